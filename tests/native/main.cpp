// The doctest suite's main(). With POSENC_KERNELS=<set> (ctest's suite_with_kernels_<set>) the library
// runs that kernel set; a set this CPU cannot run exits 77 (ctest: skipped) instead of falling back.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <posenc/kernels.hpp>

int main(int argc, char** argv) {
    if (const char* forced = std::getenv("POSENC_KERNELS"); forced && *forced) {
        const auto sets = posenc::kernelSets();
        if (std::find(sets.begin(), sets.end(), std::string(forced)) == sets.end()) {
            std::printf("POSENC_KERNELS=%s: not a kernel set this build and CPU run, not tested here\n", forced);
            return 77;
        }
    }
    std::printf("kernel set: %s\n", posenc::activeKernelSet().c_str());
    return doctest::Context(argc, argv).run();
}
