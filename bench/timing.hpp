// Minimal timing helpers for the benchmarks: median of repeated runs (machines here are noisy).
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {
// Median and fastest of repeated runs (after one warm-up), in seconds.
struct Stats {
    double median, min;
};
template <class F>
Stats stats(F&& f, int reps = 9) {
    std::vector<double> t;
    f();  // warm-up
    for (int i = 0; i < reps; ++i) {
        const auto a = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t.front()};
}
template <class F>
double medianSeconds(F&& f, int reps = 9) {
    return stats(f, reps).median;
}
// Fastest of repeated runs: for bandwidth ratios on a shared machine, the run least disturbed by
// neighbours is the comparable one (both sides of a ratio are measured the same way).
template <class F>
double bestSeconds(F&& f, int reps = 15) {
    return stats(f, reps).min;
}
}  // namespace bench
