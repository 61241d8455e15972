// Logit soft-capping (Gemma 2's attn_logit_softcapping): s <- c * tanh(s / c), so no score leaves
// (-c, c). tanh through the softmax's own exponential (attention_tile.hpp: expApprox, for arguments
// <= 0): tanh|x| = (1 - e) / (1 + e) with e = exp(-2|x|) in (0, 1], the sign put back by copysign
// (from s: c > 0, so s / c has the sign of s).
// The per-score cost is one multiply, one exponential and one division: -2|x| = |s| * k with
// k = -2 / c formed once per call (a division per score less than |s| / c; the divisions were most of
// the kernel's time), so the exponential's argument is within a float rounding of -2|s| / c.
// Its error is absolute, about 1e-7 (e's rounding and k's; the cancellation in 1 - e at small |x|
// leaves the absolute error, not the relative one), so a capped logit is within ~1e-7 c of
// c * tanh(s / c). |s| = inf or k|s| below expApprox's floor gives e = 0 and exactly c; s = +-0 gives
// +-0 (e = 1).
// SIMD and scalar twins do the same operations in the same order: the same bits.
#pragma once
#include <cmath>
#include <cstddef>

#include "kernels/attention_tile.hpp"

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {

// k = softcapSlope(cap) = -2 / cap, the factor of |s| in the exponential's argument.
inline float softcapSlope(float cap) noexcept { return -2.0f / cap; }

inline float softcapScalar(float s, float cap, float k) noexcept {
    const float e = expApproxScalar(k * std::fabs(s));
    const float t = (1.0f - e) / (1.0f + e);
    return std::copysign(cap * t, s);
}

inline void softcapScalar(float* s, std::size_t n, float cap) noexcept {
    const float k = softcapSlope(cap);
    for (std::size_t i = 0; i < n; ++i) s[i] = softcapScalar(s[i], cap, k);
}

inline void softcapSimd(float* s, std::size_t n, float cap) noexcept {
    std::size_t i = 0;
    const float k = softcapSlope(cap);
#if POSENC_SIMD
    const FloatBatch c(cap), one(1.0f), kb(k);
    for (const std::size_t whole = n - n % kFloatLanes; i < whole; i += kFloatLanes) {
        const FloatBatch x = FloatBatch::load_unaligned(s + i);
        const FloatBatch e = expApprox(kb * xsimd::abs(x));
        const FloatBatch t = (one - e) / (one + e);
        xsimd::copysign(c * t, x).store_unaligned(s + i);
    }
#endif
    for (; i < n; ++i) s[i] = softcapScalar(s[i], cap, k);
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
