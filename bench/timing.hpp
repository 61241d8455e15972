// Minimal timing helpers for the benchmarks: median of repeated runs (machines here are noisy).
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {
template <class F>
double medianSeconds(F&& f, int reps = 9) {
    std::vector<double> t;
    f();  // warm-up
    for (int i = 0; i < reps; ++i) {
        const auto a = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
}  // namespace bench
