// Registers the kernel tests (test_kernels.cpp) with doctest and records their checks. Compiled with the
// default flags, so its static initialiser is safe on every CPU; the registered functions run only when
// doctest runs them, after main()'s check of the CPU.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "kernel_tests.hpp"

namespace {
[[maybe_unused]] const int registered = [] {
    for (std::size_t i = 0; i < kKernelTestCaseCount; ++i)  // the line number keeps the cases distinct
        doctest::detail::regTest(doctest::detail::TestCase(kKernelTestCases[i].run, "tests/native/test_kernels.cpp",
                                                           static_cast<unsigned>(i + 1),
                                                           doctest_detail_test_suite_ns::getCurrentTestSuite()) *
                                 kKernelTestCases[i].name);
    return 0;
}();

std::vector<std::pair<const char*, double>>& notes() {
    static std::vector<std::pair<const char*, double>> live;
    return live;
}
}  // namespace

namespace kernel_tests {
void check(bool passed, const char* expression, const char* file, int line) {
    doctest::detail::ResultBuilder result(doctest::assertType::DT_CHECK, file, line, expression);
    result.m_failed = !passed;
    if (!passed && !notes().empty()) {
        std::string text = "with";
        for (const auto& [name, value] : notes()) text += std::string(" ") + name + " = " + std::to_string(value);
        result.m_decomp = text.c_str();
    }
    if (result.log()) DOCTEST_BREAK_INTO_DEBUGGER();
    result.react();
}

Note::Note(const char* name, double value) { notes().emplace_back(name, value); }
Note::~Note() { notes().pop_back(); }
}  // namespace kernel_tests
