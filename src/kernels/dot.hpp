// Dot product and axpy over one head vector: used by score terms for their per-query and per-head
// projections. Scalar references sit next to the xsimd versions; tests hold them equal (the dot
// product sums in a different order, so to a few float ulps; axpy bit for bit).
#pragma once
#include <cmath>
#include <cstddef>

#include "kernels/attention_tile.hpp"
#include "kernels/simd.hpp"

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {  // one namespace per instruction set compiled (kernels/kernel_set.hpp)



inline float dotScalar(const float* a, const float* b, std::size_t n) noexcept {
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

inline float dotSimd(const float* a, const float* b, std::size_t n) noexcept {
    std::size_t i = 0;
    float s = 0;
#if POSENC_SIMD
    FloatBatch acc(0.0f);
    for (; i + kFloatLanes <= n; i += kFloatLanes) acc = acc + FloatBatch::load_unaligned(a + i) * FloatBatch::load_unaligned(b + i);
    s = xsimd::hadd(acc);
#endif
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
}

// y += alpha * x
inline void axpyScalar(float alpha, const float* x, float* y, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

inline void axpySimd(float alpha, const float* x, float* y, std::size_t n) noexcept {
    std::size_t i = 0;
#if POSENC_SIMD
    const FloatBatch a(alpha);
    for (; i + kFloatLanes <= n; i += kFloatLanes)
        (FloatBatch::load_unaligned(y + i) + a * FloatBatch::load_unaligned(x + i)).store_unaligned(y + i);
#endif
    for (; i < n; ++i) y[i] += alpha * x[i];
}

// Whether every x[i] is finite: x·0 is 0 for finite x and NaN for ±inf or NaN, so one vector sum of
// x·0 answers for the whole array (one pass, no branch per element).
inline bool allFiniteScalar(const float* x, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) return false;
    return true;
}

inline bool allFiniteSimd(const float* x, std::size_t n) noexcept {
    std::size_t i = 0;
    float s = 0;
#if POSENC_SIMD
    FloatBatch acc(0.0f);
    const FloatBatch zero(0.0f);
    for (; i + kFloatLanes <= n; i += kFloatLanes) acc = acc + FloatBatch::load_unaligned(x + i) * zero;
    s = xsimd::hadd(acc);
#endif
    for (; i < n; ++i) s += x[i] * 0.0f;
    return s == 0.0f;
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
