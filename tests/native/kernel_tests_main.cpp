// main() of posenc_kernel_tests_<set>: test_kernels.cpp compiled with one kernel set's flags (CMake).
// Compiled with the default flags, it first asks the library whether this CPU runs the set, and exits
// 77 (ctest: skipped) when it cannot, before any of the set's instructions run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

#include <posenc/kernels.hpp>

int main(int argc, char** argv) {
    const auto sets = posenc::kernelSets();
    if (std::find(sets.begin(), sets.end(), POSENC_KERNEL_SET_NAME) == sets.end()) {
        std::printf("this CPU cannot run the kernel set %s: not tested here\n", POSENC_KERNEL_SET_NAME);
        return 77;
    }
    std::printf("kernel set %s: SIMD kernels against their scalar twins\n", POSENC_KERNEL_SET_NAME);
    return doctest::Context(argc, argv).run();
}
