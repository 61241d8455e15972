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
// exp of a 3 x 3 skew-symmetric matrix A = [[0, -w3, w2], [w3, 0, -w1], [-w2, w1, 0]] (row-major) by
// Rodrigues' formula: with theta = |w| and K = A / theta, exp(A) = I + sin(theta) K + (1 - cos(theta)) K^2.
inline std::vector<ld> rodrigues(const ld* A) {
    const ld w1 = A[7], w2 = A[2], w3 = A[3];
    const ld theta = std::sqrt(w1 * w1 + w2 * w2 + w3 * w3);
    std::vector<ld> R(9, 0);
    for (int i = 0; i < 3; ++i) R[i * 3 + i] = 1;
    if (theta == 0) return R;
    ld K[9];
    for (int e = 0; e < 9; ++e) K[e] = A[e] / theta;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            ld k2 = 0;
            for (int m = 0; m < 3; ++m) k2 += K[i * 3 + m] * K[m * 3 + j];
            R[i * 3 + j] += std::sin(theta) * K[i * 3 + j] + (1 - std::cos(theta)) * k2;
        }
    return R;
}

// LieRE (Ostmeier et al. 2024) on one head vector, for block sizes 2 and 3 where exp has a closed form:
// block j of channels [offset + j b, offset + (j + 1) b) becomes exp(sum_a pos[a] G[a, j]) x_j, G
// [axes, blocks, b, b] row-major. b = 2: the rotation by theta = sum_a pos[a] G[a, j][1][0]; b = 3: Rodrigues.
inline std::vector<ld> liere(const float* x, int headDim, int offset, int rotary, int b, const std::vector<float>& G,
                             const std::vector<ld>& pos) {
    std::vector<ld> y(x, x + headDim);
    const int blocks = rotary / b, bb = b * b;
    for (int j = 0; j < blocks; ++j) {
        std::vector<ld> A(static_cast<std::size_t>(bb), 0);
        for (std::size_t a = 0; a < pos.size(); ++a)
            for (int e = 0; e < bb; ++e) A[e] += pos[a] * ld(G[(a * blocks + j) * bb + e]);
        std::vector<ld> R;
        if (b == 2) {
            const ld t = A[2];
            R = {std::cos(t), -std::sin(t), std::sin(t), std::cos(t)};
        } else {
            R = rodrigues(A.data());
        }
        const float* xj = x + offset + j * b;
        for (int i = 0; i < b; ++i) {
            ld acc = 0;
            for (int m = 0; m < b; ++m) acc += R[i * b + m] * ld(xj[m]);
            y[offset + j * b + i] = acc;
        }
    }
    return y;
}

}  // namespace ref
