// Dot product and axpy over one head vector: the inner loops of the attention engine. Scalar
// references sit next to the xsimd versions; tests hold them equal (the dot product sums in a
// different order, so to a few float ulps; axpy bit for bit).
#pragma once
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
