// Independent long-double references written from the papers' / upstream definitions, used only
// by tests. They share no code with src/.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace ref {
using ld = long double;
constexpr ld kPi = 3.141592653589793238462643383279502884L;

inline std::vector<float> randomVector(std::size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = u(g);
    return v;
}

// RoPE on one head vector, exact: pairs per layout, angle p * base^(-2i/R) / divisor, times scale.
inline std::vector<ld> rope(const std::vector<ld>& x, ld p, const std::vector<ld>& w, bool half, ld scale = 1) {
    std::vector<ld> y = x;
    const std::size_t h = w.size();
    for (std::size_t i = 0; i < h; ++i) {
        const std::size_t a = half ? i : 2 * i, b = half ? i + h : 2 * i + 1;
        const ld c = std::cos(p * w[i]) * scale, s = std::sin(p * w[i]) * scale;
        y[a] = x[a] * c - x[b] * s;
        y[b] = x[b] * c + x[a] * s;
    }
    return y;
}

inline std::vector<ld> defaultInvFreq(int R, ld base) {
    std::vector<ld> w(R / 2);
    for (int i = 0; i < R / 2; ++i) w[i] = std::pow(base, -2.0L * i / R);
    return w;
}
}  // namespace ref
