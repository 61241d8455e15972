// Stick-breaking attention's sigmoids (attention/stick_breaking.hpp): each logit z of a tile's score rows
// becomes σ(z) in place, and 1 − σ(z) goes to a second buffer of the same layout, both from one
// exponential and one division, without cancellation: with e = exp(−|z|) (expApprox, within 2 ulp, 0 at
// −inf) and d = 1 / (1 + e), σ(|z|) = d and σ(−|z|) = e·d, so
//   z >= 0: σ(z) = d,   1 − σ(z) = e·d;      z < 0: σ(z) = e·d,   1 − σ(z) = d.
// A masked logit (−inf) gives exactly σ = 0 and 1 − σ = 1 (e = 0): its key weighs nothing and leaves the
// stick unchanged. Large |z| cannot overflow (e <= 1); for |z| past 87, e flushes to 0 (σ exactly 0 or 1).
// SIMD and scalar twins do the same operations in the same order: the same bits.
#pragma once
#include <cmath>
#include <cstddef>

#include "kernels/attention_tile.hpp"  // expApprox, kKeyBlock

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {

inline void stickSigmoidScalar(float z, float& sigma, float& rest) noexcept {
    const float e = expApproxScalar(-std::fabs(z));
    const float d = 1.0f / (1.0f + e);
    const float ed = e * d;
    sigma = z >= 0.0f ? d : ed;
    rest = z >= 0.0f ? ed : d;
}

// `rows` rows of n logits kKeyBlock floats apart (an attention tile's score rows; rows = 1: one row of any
// length): s <- σ(s), rest <- 1 − σ(s) (rest in the same layout).
inline void stickSigmoidsScalar(float* s, float* rest, std::size_t rows, std::size_t n) noexcept {
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < n; ++i) stickSigmoidScalar(s[r * kKeyBlock + i], s[r * kKeyBlock + i], rest[r * kKeyBlock + i]);
}

inline void stickSigmoidsSimd(float* s, float* rest, std::size_t rows, std::size_t n) noexcept {
#if POSENC_SIMD
    const FloatBatch one(1.0f), zero(0.0f), signMask(-0.0f);
#endif
    for (std::size_t r = 0; r < rows; ++r, s += kKeyBlock, rest += kKeyBlock) {
        std::size_t i = 0;
#if POSENC_SIMD
        for (const std::size_t whole = n - n % kFloatLanes; i < whole; i += kFloatLanes) {
            const FloatBatch z = FloatBatch::load_unaligned(s + i);
            const FloatBatch e = expApprox(z | signMask);  // −|z|
            const FloatBatch d = one / (one + e);
            const FloatBatch ed = e * d;
            const auto positive = z >= zero;
            xsimd::select(positive, d, ed).store_unaligned(s + i);
            xsimd::select(positive, ed, d).store_unaligned(rest + i);
        }
#endif
        for (; i < n; ++i) stickSigmoidScalar(s[i], s[i], rest[i]);
    }
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
