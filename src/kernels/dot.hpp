// Dot product and axpy over one head vector: the inner loops of the attention engine. Scalar
// references sit next to the xsimd versions; tests hold them equal (the dot product sums in a
// different order, so to a few float ulps; axpy bit for bit).
#pragma once
#include <cmath>
#include <cstddef>

#include "kernels/simd.hpp"

namespace posenc::kernels {

inline float dotScalar(const float* a, const float* b, std::size_t n) noexcept {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

inline float dotSimd(const float* a, const float* b, std::size_t n) noexcept {
    std::size_t i = 0;
    FloatBatch acc(0.0f);
    for (; i + kFloatLanes <= n; i += kFloatLanes) acc = acc + FloatBatch::load_unaligned(a + i) * FloatBatch::load_unaligned(b + i);
    float s = xsimd::hadd(acc);
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
}

// y += alpha * x
inline void axpyScalar(float alpha, const float* x, float* y, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

inline void axpySimd(float alpha, const float* x, float* y, std::size_t n) noexcept {
    std::size_t i = 0;
    const FloatBatch a(alpha);
    for (; i + kFloatLanes <= n; i += kFloatLanes)
        (FloatBatch::load_unaligned(y + i) + a * FloatBatch::load_unaligned(x + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] += alpha * x[i];
}

// y *= alpha
inline void scaleSimd(float alpha, float* y, std::size_t n) noexcept {
    std::size_t i = 0;
    const FloatBatch a(alpha);
    for (; i + kFloatLanes <= n; i += kFloatLanes) (FloatBatch::load_unaligned(y + i) * a).store_unaligned(y + i);
    for (; i < n; ++i) y[i] *= alpha;
}

}  // namespace posenc::kernels

namespace posenc::kernels {

// Scores of one query against a block of keys stored transposed (Kt[c * ld + j]): s[t] = sum_c q[c] Kt[c][j0+t].
// Vectorised across keys, so no horizontal sums; the scalar reference sums over c in the same order.
inline void blockScoresScalar(const float* q, const float* Kt, std::size_t ld, std::size_t j0, std::size_t n, std::size_t d,
                              float* s) noexcept {
    for (std::size_t t = 0; t < n; ++t) {
        float acc = 0;
        for (std::size_t c = 0; c < d; ++c) acc += q[c] * Kt[c * ld + j0 + t];
        s[t] = acc;
    }
}

// Requires Kt rows padded so that j0 + roundUp(n, lanes) <= ld, and s with room for roundUp(n, lanes).
inline void blockScoresSimd(const float* q, const float* Kt, std::size_t ld, std::size_t j0, std::size_t n, std::size_t d,
                            float* s) noexcept {
    for (std::size_t t = 0; t < n; t += kFloatLanes) {
        FloatBatch acc(0.0f);
        const float* col = Kt + j0 + t;
        for (std::size_t c = 0; c < d; ++c) acc = acc + FloatBatch(q[c]) * FloatBatch::load_unaligned(col + c * ld);
        acc.store_unaligned(s + t);
    }
}

// s[t] = exp(s[t] - m), returns the sum. Scalar reference uses std::exp; xsimd's exp agrees to a few ulps.
inline float expShiftScalar(float* s, std::size_t n, float m) noexcept {
    float sum = 0;
    for (std::size_t t = 0; t < n; ++t) sum += (s[t] = std::exp(s[t] - m));
    return sum;
}

inline float expShiftSimd(float* s, std::size_t n, float m) noexcept {
    std::size_t t = 0;
    FloatBatch acc(0.0f);
    const FloatBatch mb(m);
    for (; t + kFloatLanes <= n; t += kFloatLanes) {
        const FloatBatch e = xsimd::exp(FloatBatch::load_unaligned(s + t) - mb);
        e.store_unaligned(s + t);
        acc = acc + e;
    }
    float sum = xsimd::hadd(acc);
    for (; t < n; ++t) sum += (s[t] = std::exp(s[t] - m));
    return sum;
}

}  // namespace posenc::kernels

namespace posenc::kernels {

// acc[c] += sum_t p[t] * V[t * hd + c]: one block of value rows, accumulator kept in registers per
// lane-chunk of c. The scalar reference adds in the same order (t ascending for every c).
inline void accumulateRowsScalar(const float* p, std::size_t n, const float* V, std::size_t hd, float* acc) noexcept {
    for (std::size_t c = 0; c < hd; ++c) {
        float a = acc[c];
        for (std::size_t t = 0; t < n; ++t) a += p[t] * V[t * hd + c];
        acc[c] = a;
    }
}

inline void accumulateRowsSimd(const float* p, std::size_t n, const float* V, std::size_t hd, float* acc) noexcept {
    std::size_t c = 0;
    for (; c + kFloatLanes <= hd; c += kFloatLanes) {
        FloatBatch a = FloatBatch::load_unaligned(acc + c);
        for (std::size_t t = 0; t < n; ++t) a = a + FloatBatch(p[t]) * FloatBatch::load_unaligned(V + t * hd + c);
        a.store_unaligned(acc + c);
    }
    for (; c < hd; ++c) {
        float a = acc[c];
        for (std::size_t t = 0; t < n; ++t) a += p[t] * V[t * hd + c];
        acc[c] = a;
    }
}

}  // namespace posenc::kernels

namespace posenc::kernels {

// Scores of a tile of kQueryTile queries against one key block (keys transposed, see blockScores*):
// s[r * stride + t] = sum_c q[r][c] Kt[c][j0 + t]. Each key vector is loaded once for the whole tile.
// The scalar reference sums over c in the same order, per row.
constexpr std::size_t kQueryTile = 4;

inline void tileScoresScalar(const float* const* q, const float* Kt, std::size_t ld, std::size_t j0, std::size_t n, std::size_t d, float* s,
                             std::size_t stride) noexcept {
    for (std::size_t r = 0; r < kQueryTile; ++r) blockScoresScalar(q[r], Kt, ld, j0, n, d, s + r * stride);
}

inline void tileScoresSimd(const float* const* q, const float* Kt, std::size_t ld, std::size_t j0, std::size_t n, std::size_t d, float* s,
                           std::size_t stride) noexcept {
    static_assert(kQueryTile == 4, "the register tile below is written for 4 queries");
    for (std::size_t t = 0; t < n; t += kFloatLanes) {
        FloatBatch a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
        const float* col = Kt + j0 + t;
        for (std::size_t c = 0; c < d; ++c) {
            const FloatBatch k = FloatBatch::load_unaligned(col + c * ld);
            a0 = a0 + FloatBatch(q[0][c]) * k;
            a1 = a1 + FloatBatch(q[1][c]) * k;
            a2 = a2 + FloatBatch(q[2][c]) * k;
            a3 = a3 + FloatBatch(q[3][c]) * k;
        }
        a0.store_unaligned(s + t);
        a1.store_unaligned(s + stride + t);
        a2.store_unaligned(s + 2 * stride + t);
        a3.store_unaligned(s + 3 * stride + t);
    }
}

}  // namespace posenc::kernels
