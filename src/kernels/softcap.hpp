// Logit soft-capping (Gemma 2's attn_logit_softcapping): s <- c * tanh(s / c), so no score leaves
// (-c, c). tanh through the softmax's own exponential (attention_tile.hpp: expApprox, for arguments
// <= 0): tanh|x| = (1 - e) / (1 + e) with e = exp(-2|x|) in (0, 1], the sign put back by copysign.
// Its error is absolute, about 1e-7 (e's rounding; the cancellation in 1 - e at small |x| leaves the
// absolute error, not the relative one), so a capped logit is within ~1e-7 c of c * tanh(s / c).
// SIMD and scalar twins do the same operations in the same order: the same bits.
#pragma once
#include <cmath>
#include <cstddef>

#include "kernels/attention_tile.hpp"

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {

inline float softcapScalar(float s, float cap) noexcept {
    const float x = s / cap;
    const float e = expApproxScalar(-2.0f * std::fabs(x));
    const float t = (1.0f - e) / (1.0f + e);
    return std::copysign(cap * t, x);
}

inline void softcapScalar(float* s, std::size_t n, float cap) noexcept {
    for (std::size_t i = 0; i < n; ++i) s[i] = softcapScalar(s[i], cap);
}

inline void softcapSimd(float* s, std::size_t n, float cap) noexcept {
    std::size_t i = 0;
#if POSENC_SIMD
    const FloatBatch c(cap), one(1.0f), minusTwo(-2.0f);
    for (const std::size_t whole = n - n % kFloatLanes; i < whole; i += kFloatLanes) {
        const FloatBatch x = FloatBatch::load_unaligned(s + i) / c;
        const FloatBatch e = expApprox(minusTwo * xsimd::abs(x));
        const FloatBatch t = (one - e) / (one + e);
        xsimd::copysign(c * t, x).store_unaligned(s + i);
    }
#endif
    for (; i < n; ++i) s[i] = softcapScalar(s[i], cap);
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
