// Logit soft-capping (Gemma 2's attn_logit_softcapping): s <- c * tanh(s / c), so no score leaves
// [-c, c]. tanh from one exponential: with e = exp(-2|x|) = 2^z, z = |s| * k, k = -2 log2(e) / c (formed
// once per call, so a score costs a multiply, not a division by c),
//   c * tanh(s / c) = sign(s) * c * (1 - e) / (1 + e),
// computed as (c - c e) / (1 + e) >= 0 with the sign bit of s put back by one xor (no copysign).
// 2^z: z clamped to >= -100 (2^-100 leaves 1 - e = 1: the cap itself), n = nearest integer to z by the
// 1.5 * 2^23 shifter, f = z - n exact in [-1/2, 1/2], 2^f by the degree-5 polynomial 1 + f q(f) fitted
// for the least maximum relative error on that range (9.2e-8: scripts/fit/exp2_polynomial.py), times 2^n
// through the exponent bits. Per score: 19 float operations and one division, against 25 and one (and,
// before, two divisions) through the softmax's expApprox — a cheaper exponential is enough here, since
// tanh takes at most half of e's relative error as absolute error.
// Accuracy: within 2e-7 c of c * tanh(s / c) (the kernel tests' bound; e's error, k's and z's rounding,
// and the last operations' roundings, all absolute in units of c). Near 0, 1 - e cancels, so the error
// stays absolute (~1e-7 c) rather than relative; s = +-0 gives +-0 (f = 0, e = 1 exactly). |s| = inf, or
// z below the clamp, gives e <= 2^-100 and exactly +-c. Never outside [-c, c]; odd: the sign of s kept.
// SIMD and scalar twins do the same operations in the same order: the same bits.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/attention_tile.hpp"  // kShifter, kShifterBits (the exponential's constants)

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {

namespace detail {
// 2^f ~ 1 + f (c1 + f (c2 + f (c3 + f (c4 + f c5)))) on |f| <= 1/2
constexpr float kT1 = 0x1.62e42ap-1f, kT2 = 0x1.ebf9bap-3f, kT3 = 0x1.c6b756p-5f, kT4 = 0x1.3ceafap-7f, kT5 = 0x1.5bb99ep-10f;
constexpr float kTanhFloor = -100.0f;  // z's least value: 2^-100 is below 1 - e's rounding
constexpr std::uint32_t kSignBit = 0x80000000u;
}  // namespace detail

// k = softcapSlope(cap) = -2 log2(e) / cap, the factor of |s| in the exponent z (formed in double, then
// rounded once; both twins use this value).
inline float softcapSlope(float cap) noexcept { return static_cast<float>(-2.8853900817779268 / static_cast<double>(cap)); }

inline float softcapScalar(float s, float cap, float k) noexcept {
    using namespace detail;
    std::uint32_t sBits;
    std::memcpy(&sBits, &s, sizeof s);
    const std::uint32_t sign = sBits & kSignBit, absBits = sBits ^ sign;
    float a;
    std::memcpy(&a, &absBits, sizeof a);
    const float z = std::max(a * k, kTanhFloor);  // std::max(x, floor) keeps NaN, as the SIMD vmax(x, floor)
    const float shifted = z + kShifter;
    const float n = shifted - kShifter;
    const float f = z - n;
    float p = kT5;
    p = p * f + kT4;
    p = p * f + kT3;
    p = p * f + kT2;
    p = p * f + kT1;
    p = p * f + 1.0f;
    std::int32_t bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    const std::uint32_t scaleBits = static_cast<std::uint32_t>(bits - (kShifterBits - 127)) << 23;  // 2^n, n in [-100, 0]
    float scale;
    std::memcpy(&scale, &scaleBits, sizeof scale);
    const float e = p * scale;
    const float r = (cap - cap * e) / (1.0f + e);  // c tanh |x| >= 0
    std::uint32_t rBits;
    std::memcpy(&rBits, &r, sizeof r);
    rBits ^= sign;
    float out;
    std::memcpy(&out, &rBits, sizeof out);
    return out;
}

// `rows` rows of n scores, kKeyBlock floats apart (an attention tile's score rows; rows = 1: one row of
// any length), capped in place: one call per tile, not per row.
inline void softcapScalar(float* s, std::size_t rows, std::size_t n, float cap) noexcept {
    const float k = softcapSlope(cap);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < n; ++i) s[r * kKeyBlock + i] = softcapScalar(s[r * kKeyBlock + i], cap, k);
}

inline void softcapSimd(float* s, std::size_t rows, std::size_t n, float cap) noexcept {
    const float k = softcapSlope(cap);
#if POSENC_SIMD
    using namespace detail;
    const FloatBatch kb(k), capb(cap), one(1.0f), zFloor(kTanhFloor), shifter(kShifter), signMask(-0.0f);
#endif
    for (std::size_t r = 0; r < rows; ++r, s += kKeyBlock) {
        std::size_t i = 0;
#if POSENC_SIMD
        for (const std::size_t whole = n - n % kFloatLanes; i < whole; i += kFloatLanes) {
            const FloatBatch x = FloatBatch::load_unaligned(s + i);
            const FloatBatch sign = x & signMask;
            const FloatBatch a = x ^ sign;
            const FloatBatch z = vmax(a * kb, zFloor);
            const FloatBatch shifted = z + shifter;
            const FloatBatch nf = shifted - shifter;
            const FloatBatch f = z - nf;
            FloatBatch p(kT5);
            p = p * f + FloatBatch(kT4);
            p = p * f + FloatBatch(kT3);
            p = p * f + FloatBatch(kT2);
            p = p * f + FloatBatch(kT1);
            p = p * f + one;
            const IntBatch scaleBits = (xsimd::bitwise_cast<IntBatch>(shifted) - IntBatch(kShifterBits - 127)) << 23;
            const FloatBatch e = p * xsimd::bitwise_cast<FloatBatch>(scaleBits);
            (((capb - capb * e) / (one + e)) ^ sign).store_unaligned(s + i);
        }
#endif
        for (; i < n; ++i) s[i] = softcapScalar(s[i], cap, k);
    }
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
