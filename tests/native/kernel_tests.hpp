// The kernel tests' interface between test_kernels.cpp, compiled once per kernel set with that set's
// -m flags, and the files compiled with the default flags (kernel_tests_register.cpp, main()).
//
// Nothing compiled with a set's flags may run before main() has asked whether the CPU has the set, and
// no out-of-line function compiled with them may be shared with the rest of the program (the linker
// keeps one copy of an inline function or template instance, perhaps this one, for every caller). So
// test_kernels.cpp includes no doctest.h (it registers each TEST_CASE from a static initialiser and
// instantiates its templates there); its cases are a constant-initialised table, registered with
// doctest by the default-flags file, and its checks call out to that file. ctest's
// kernel_objects_isolated holds both rules.
#pragma once
#include <cstddef>

struct KernelTestCase {
    const char* name;
    void (*run)();
};

extern const KernelTestCase kKernelTestCases[];
extern const std::size_t kKernelTestCaseCount;

namespace kernel_tests {
// One check, recorded with doctest as a CHECK at the caller's file and line.
void check(bool passed, const char* expression, const char* file, int line);

// While alive, a failing check's report shows "name = value" (doctest's CAPTURE / INFO).
class Note {
public:
    Note(const char* name, double value);
    ~Note();
    Note(const Note&) = delete;
    Note& operator=(const Note&) = delete;
};
}  // namespace kernel_tests

#ifndef DOCTEST_LIBRARY_INCLUDED  // the default-flags side has doctest's own
#define CHECK(...) ::kernel_tests::check(static_cast<bool>(__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
#define POSENC_KT_JOIN2(a, b) a##b
#define POSENC_KT_JOIN(a, b) POSENC_KT_JOIN2(a, b)
#define NOTE(name, value) const ::kernel_tests::Note POSENC_KT_JOIN(note_, __LINE__)(name, static_cast<double>(value))
#define CAPTURE(x) NOTE(#x, x)
#endif
