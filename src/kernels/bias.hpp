// Score-term kernels: ALiBi's linear distance bias, added to a block of scores.
//   s[t] += float(negSlope · d_t),  d_t = qPos − kPos[t] (|qPos − kPos[t]| when symmetric)
// The product is formed in double, as the reference (the BLOOM / MPT bias, a slope times an integer
// distance) is: the distance is exact as an int32 (both positions are in [0, 2^31)), its double is
// exact, and the one rounding to float follows the double product, so the SIMD kernel (two double
// lanes at a time, SSE2 / wasm SIMD128) and its scalar twin agree bit for bit. It was the scalar loop
// of AlibiTerm::addBias, about a tenth of a causal ALiBi attention call in wasm.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/simd.hpp"

#if POSENC_SIMD && defined(__SSE2__)
#include <emmintrin.h>
#define POSENC_BIAS_SSE2 1
#else
#define POSENC_BIAS_SSE2 0
#endif

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {  // one namespace per instruction set compiled (kernels/kernel_set.hpp)

inline std::int32_t biasDistance(std::int32_t qPos, std::int32_t kPos, bool symmetric) noexcept {
    const std::int32_t d = qPos - kPos;  // positions in [0, 2^31) (a table's r: small): no overflow
    return symmetric && d < 0 ? -d : d;
}

// The bias of one distance: the product in double, rounded once to float (ALiBi's tables by distance,
// scores/alibi.cpp, hold exactly these values).
inline float linearBiasOf(std::int32_t distance, double negSlope) noexcept { return static_cast<float>(negSlope * static_cast<double>(distance)); }

inline void linearBiasScalar(float* s, const std::int32_t* kPos, std::size_t n, std::int32_t qPos, double negSlope, bool symmetric) noexcept {
    for (std::size_t t = 0; t < n; ++t) s[t] += linearBiasOf(biasDistance(qPos, kPos[t], symmetric), negSlope);
}

inline void linearBiasSimd(float* s, const std::int32_t* kPos, std::size_t n, std::int32_t qPos, double negSlope, bool symmetric) noexcept {
    std::size_t t = 0;
#if POSENC_BIAS_SSE2
    const __m128i q = _mm_set1_epi32(qPos);
    const __m128d m = _mm_set1_pd(negSlope);
    for (; t + 4 <= n; t += 4) {
        __m128i d = _mm_sub_epi32(q, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kPos + t)));
        if (symmetric) {  // |d| with SSE2 alone: (d ^ sign) − sign
            const __m128i sign = _mm_srai_epi32(d, 31);
            d = _mm_sub_epi32(_mm_xor_si128(d, sign), sign);
        }
        const __m128 lo = _mm_cvtpd_ps(_mm_mul_pd(_mm_cvtepi32_pd(d), m));                            // lanes 0, 1
        const __m128 hi = _mm_cvtpd_ps(_mm_mul_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(d, 0x0E)), m));  // lanes 2, 3
        _mm_storeu_ps(s + t, _mm_add_ps(_mm_loadu_ps(s + t), _mm_movelh_ps(lo, hi)));
    }
#endif
    linearBiasScalar(s + t, kPos + t, n - t, qPos, negSlope, symmetric);
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
