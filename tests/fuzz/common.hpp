// Shared helpers of the libFuzzer targets: values drawn from the input, and the one rule every target
// checks: a call either throws std::invalid_argument (a clear error) or returns finite results.
#pragma once
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace fuzz {

// Doubles that stress validation: ordinary values most of the time, edge values otherwise.
inline double number(FuzzedDataProvider& in, double lo, double hi) {
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
        case 0: return std::nan("");
        case 1: return in.ConsumeBool() ? INFINITY : -INFINITY;
        case 2: return in.ConsumeBool() ? 0.0 : -0.0;
        case 3: return in.ConsumeFloatingPoint<double>();
        default: return in.ConsumeFloatingPointInRange<double>(lo, hi);
    }
}

inline std::vector<float> floats(FuzzedDataProvider& in, std::size_t n, float range) {
    std::vector<float> v(n);
    for (auto& x : v) x = in.ConsumeFloatingPointInRange<float>(-range, range);
    return v;
}

inline void requireFinite(const std::vector<float>& v, const char* what) {
    for (float x : v)
        if (!std::isfinite(x)) {
            std::fprintf(stderr, "non-finite %s from accepted input\n", what);
            std::abort();
        }
}

}  // namespace fuzz
