// The stored formats of keys and values (posenc/attention/kv_storage.hpp): their layouts, the scalar
// conversions, and the loads that convert a vector of stored elements to floats in registers, each a
// SIMD and scalar twin doing the same integer and float operations (bit for bit equal, for every input).
//
// Layouts (kKeyBlock = 64 keys per packed block, hd channels):
//   keys, packed per block   f32: float [hd][64] · f16 / bf16: uint16 [hd][64] (the bits) ·
//                            q8: hd/32 groups of { uint16 scales [64] (fp16), int8 [32 channels][64] }
//   values, one row per key  f32: float [hd] · f16 / bf16: uint16 [hd] · q8: hd/32 ggml block_q8_0 { fp16 d, int8 qs[32] }
// A q8 key of 32 channels is the same block as ggml's, its scale and its 32 int8 spread over the group.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/simd.hpp"

#if POSENC_SIMD && (defined(__SSE2__) || defined(__AVX2__) || defined(__AVX512F__))
#include <immintrin.h>
#endif

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {  // one namespace per instruction set compiled (kernels/kernel_set.hpp)

// Format ids: posenc::KVStorage's values.
constexpr int kFormatF32 = 0, kFormatF16 = 1, kFormatBf16 = 2, kFormatQ8 = 3;
constexpr int kFormats = 4;
constexpr std::size_t kQ8Block = 32;                         // values per Q8_0 block (ggml QK8_0)
constexpr std::size_t kQ8BlockBytes = 2 + kQ8Block;           // ggml block_q8_0: fp16 d + int8 qs[32]

inline std::uint32_t floatBits(float f) noexcept {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline float bitsFloat(std::uint32_t u) noexcept {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
inline std::uint16_t loadU16(const unsigned char* p) noexcept {  // little-endian, any alignment
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline void storeU16(unsigned char* p, std::uint16_t v) noexcept {
    p[0] = static_cast<unsigned char>(v & 0xffu);
    p[1] = static_cast<unsigned char>(v >> 8);
}

// --- scalar conversions ----------------------------------------------------------------------------
// binary16 -> float, exact for every pattern. From w = h << 16: the magnitude's exponent and mantissa
// moved into float's fields (>> 3) read as a float 2^-112 times the half's value, normal or subnormal
// alike (the float is then subnormal: no flush-to-zero is set anywhere in posenc), so one exact multiply
// by 2^112 gives the value; exponent 31 (infinity, NaN) becomes 255 by an or; the sign is or-ed back.
inline float f16ToFloatBits(std::uint32_t w) noexcept {
    const std::uint32_t sign = w & 0x80000000u;
    const float f = bitsFloat((w & 0x7fff0000u) >> 3) * 0x1p112f;
    const std::uint32_t special = (w & 0x7c000000u) == 0x7c000000u ? 0x7f800000u : 0u;
    return bitsFloat(floatBits(f) | sign | special);
}
inline float f16ToFloat(std::uint16_t h) noexcept { return f16ToFloatBits(static_cast<std::uint32_t>(h) << 16); }
// The kernels' binary16 -> float, for finite halves (infinity and NaN never reach a kernel: K and V are
// checked finite, and storable, before they are stored or attended). In three operations from w = h << 16:
// an arithmetic shift by 3 and a mask put sign, exponent and mantissa in float's fields (s 000 eeeee m…),
// which read as 2^-112 times the half's value, normal or subnormal, and one exact multiply by 2^112.
// Exact for every finite half (test_kernels.cpp: every pattern); exponent 31 gives a finite value, not
// infinity or NaN.
inline float f16ToFloatFinite(std::uint16_t h) noexcept {
    const std::int32_t w = static_cast<std::int32_t>(static_cast<std::uint32_t>(h) << 16);
    return bitsFloat(static_cast<std::uint32_t>(w >> 3) & 0x8fffffffu) * 0x1p112f;
}
inline float bf16ToFloat(std::uint16_t h) noexcept { return bitsFloat(static_cast<std::uint32_t>(h) << 16); }

// float -> binary16, round to nearest, ties to even. |x| >= 65520 gives infinity; NaN stays a quiet NaN.
inline std::uint16_t floatToF16(float x) noexcept {
    const std::uint32_t u = floatBits(x);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // 65520 and up (ties to even: 0x7bff is odd)
    if (a >= 0x38800000u) {  // >= 2^-14: a normal half; exponent rebiased 127 -> 15, 13 bits dropped
        const std::uint32_t r = a - 0x38000000u;
        return static_cast<std::uint16_t>(sign | ((r + 0x0fffu + ((r >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u) return static_cast<std::uint16_t>(sign);  // below 2^-25: rounds to zero
    // a subnormal half m·2^-24: |x| = s·2^(e-150) with the 24-bit significand s, so m = s >> (126 - e), rounded
    const std::uint32_t e = a >> 23, s = (a & 0x7fffffu) | 0x800000u, shift = 126 - e;  // shift in [14, 24]
    const std::uint32_t m = s >> shift, rest = s & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    return static_cast<std::uint16_t>(sign | (m + (rest > half || (rest == half && (m & 1u)))));
}

// float -> bfloat16, round to nearest, ties to even (ggml's ggml_compute_fp32_to_bf16, PyTorch's
// .to(torch.bfloat16)); NaN stays a quiet NaN. The largest floats round to infinity.
inline std::uint16_t floatToBf16(float x) noexcept {
    const std::uint32_t u = floatBits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// One Q8_0 block from 32 floats, as ggml's quantize_row_q8_0_ref (ggml src/ggml-quants.c): amax = max
// |x|, d = amax / 127 (float), id = 1 / d (0 when d is 0), the scale stored as fp16(d), q = roundf(x·id)
// (halves away from zero). Where 1 / d overflows (d < 2^-128; ggml's cast of ±inf / NaN is then
// undefined) q is 0: fp16(d) is 0 there, so the block reads back as zeros either way.
inline void quantizeQ8Block(const float* x, unsigned char* block) noexcept {
    float amax = 0.0f;
    for (std::size_t j = 0; j < kQ8Block; ++j) amax = std::fabs(x[j]) > amax ? std::fabs(x[j]) : amax;  // ggml's MAX(a, b)
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    storeU16(block, floatToF16(d));
    for (std::size_t j = 0; j < kQ8Block; ++j) {
        const float q = x[j] * id;
        block[2 + j] = static_cast<unsigned char>(static_cast<std::int8_t>(std::isfinite(q) ? std::round(q) : 0.0f));
    }
}
inline float q8Value(std::int8_t q, float d) noexcept { return static_cast<float>(q) * d; }  // ggml: qs[j]*d (exact)
inline void dequantizeQ8Block(const unsigned char* block, float* x) noexcept {
    const float d = f16ToFloat(loadU16(block));
    for (std::size_t j = 0; j < kQ8Block; ++j) x[j] = q8Value(static_cast<std::int8_t>(block[2 + j]), d);
}

// --- vector loads that convert ----------------------------------------------------------------------
#if POSENC_SIMD
// kFloatLanes uint16 at p, each in the top half of a 32-bit lane (h << 16): bf16's float bits.
inline IntBatch loadHalfBits(const std::uint16_t* p) noexcept {
#if defined(__wasm_simd128__)
    return IntBatch(__m128i(wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16)));
#elif defined(__AVX512F__)
    return IntBatch(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
#elif defined(__AVX2__)
    return IntBatch(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
#elif defined(__SSE2__)
    return IntBatch(_mm_unpacklo_epi16(_mm_setzero_si128(), _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#else
    alignas(64) std::int32_t w[kFloatLanes];
    for (std::size_t i = 0; i < kFloatLanes; ++i) w[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(p[i]) << 16);
    return IntBatch::load_aligned(w);
#endif
}

// f16ToFloatFinite of kFloatLanes halves at p. Sign-extended to 32 bits and shifted left by 13, a half's
// bits read s sss s eeeee m… (the sign copied into bits 30..28): the same bits as (h << 16) >> 3, which the
// mask then clears to s 000 eeeee m…, read as 2^-112 times the half's value.
inline FloatBatch loadF16(const std::uint16_t* p) noexcept {
    const IntBatch mask(static_cast<std::int32_t>(0x8fffffffu));
#if defined(__wasm_simd128__)
    const IntBatch w = IntBatch(__m128i(wasm_i32x4_shl(wasm_i32x4_load16x4(p), 13)));
#elif defined(__AVX512F__)
    const IntBatch w(_mm512_slli_epi32(_mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 13));
#elif defined(__AVX2__)
    const IntBatch w(_mm256_slli_epi32(_mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 13));
#elif defined(__SSE4_1__)
    const IntBatch w(_mm_slli_epi32(_mm_cvtepi16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))), 13));
#else
    const IntBatch w = loadHalfBits(p) >> 3;
#endif
    return xsimd::bitwise_cast<FloatBatch>(w & mask) * FloatBatch(0x1p112f);
}

// --- q8's loads, in pairs of vectors -------------------------------------------------------------------
// In wasm, int8 (and q8's fp16 scales) are widened two vectors at a time by i32x4.dot_i16x8_s against
// (1, 0, …) and (0, 1, …): of 8 elements sign-extended to int16 it gives elements 0, 2, 4, 6 and 1, 3, 5, 7
// as int32, exactly, in one instruction each, and LLVM 14 cannot fold the int-to-float conversion into it
// (it can into an extend, and then converts lane by lane). The q8 kernels accumulate the even and the odd
// elements in separate vectors and interleave them once, when they store. Elsewhere, and for one vector,
// elements stay in order. Each lane's arithmetic is the same either way.
#if POSENC_SIMD
#if defined(__wasm_simd128__)
constexpr bool kSplitPairs = true;
inline v128_t evenLanes16(v128_t x) noexcept { return wasm_i32x4_dot_i16x8(x, wasm_i16x8_const(1, 0, 1, 0, 1, 0, 1, 0)); }
inline v128_t oddLanes16(v128_t x) noexcept { return wasm_i32x4_dot_i16x8(x, wasm_i16x8_const(0, 1, 0, 1, 0, 1, 0, 1)); }
#else
constexpr bool kSplitPairs = false;
#endif
#endif

// int32 lanes holding small integers (|i| < 2^22) as exact floats. In wasm by the 1.5·2^23 shifter (the
// integer added to its bits, the shifter subtracted as a float): LLVM 14 folds a sign extension into
// f32x4.convert_i32x4_s and then converts lane by lane; elsewhere the conversion instruction.
inline FloatBatch smallIntToFloat(IntBatch i) noexcept {
#if defined(__wasm_simd128__)
    return xsimd::bitwise_cast<FloatBatch>(i + IntBatch(0x4B400000)) - FloatBatch(12582912.0f);
#else
    return xsimd::to_float(i);
#endif
}

// V · kFloatLanes int8 at p (V = 1, 2 or 4), sign-extended to 32-bit lanes, vector v from p + v·kFloatLanes.
template <std::size_t V>
inline void loadI8(const std::int8_t* p, IntBatch (&out)[V]) noexcept {
#if defined(__wasm_simd128__)
    if constexpr (V == 4) {  // one 16-byte load for the four
        const v128_t b = wasm_v128_load(p), lo = wasm_i16x8_extend_low_i8x16(b), hi = wasm_i16x8_extend_high_i8x16(b);
        out[0] = IntBatch(__m128i(wasm_i32x4_extend_low_i16x8(lo))), out[1] = IntBatch(__m128i(wasm_i32x4_extend_high_i16x8(lo)));
        out[2] = IntBatch(__m128i(wasm_i32x4_extend_low_i16x8(hi))), out[3] = IntBatch(__m128i(wasm_i32x4_extend_high_i16x8(hi)));
    } else if constexpr (V == 2) {
        const v128_t w = wasm_i16x8_load8x8(p);
        out[0] = IntBatch(__m128i(wasm_i32x4_extend_low_i16x8(w))), out[1] = IntBatch(__m128i(wasm_i32x4_extend_high_i16x8(w)));
    } else {
        static_assert(V == 1, "1, 2 or 4 vectors");
        out[0] = IntBatch(__m128i(wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(wasm_v128_load32_zero(p)))));
    }
#else
    for (std::size_t v = 0; v < V; ++v) {
        const std::int8_t* q = p + v * kFloatLanes;
#if defined(__AVX512F__)
        out[v] = IntBatch(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q))));
#elif defined(__AVX2__)
        out[v] = IntBatch(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q))));
#elif defined(__SSE4_1__)
        std::int32_t four;
        std::memcpy(&four, q, sizeof four);
        out[v] = IntBatch(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(four)));
#elif defined(__SSE2__)
        std::int32_t four;
        std::memcpy(&four, q, sizeof four);
        const __m128i b = _mm_cvtsi32_si128(four);
        const __m128i w = _mm_unpacklo_epi16(_mm_unpacklo_epi8(b, b), _mm_unpacklo_epi8(b, b));  // each byte in the top of its lane
        out[v] = IntBatch(_mm_srai_epi32(w, 24));
#else
        alignas(64) std::int32_t w[kFloatLanes];
        for (std::size_t i = 0; i < kFloatLanes; ++i) w[i] = q[i];
        out[v] = IntBatch::load_aligned(w);
#endif
    }
#endif
}

// V vectors (1, or an even number) of int8 at p as exact floats; of fp16 (finite) at p as floats; of
// floats at p; and back to floats at p: in pairs split even / odd in wasm (kSplitPairs), else in order.
template <std::size_t V>
inline void loadI8Floats(const std::int8_t* p, FloatBatch (&out)[V]) noexcept {
#if defined(__wasm_simd128__)
    if constexpr (V % 2 == 0) {
        for (std::size_t u = 0; u < V / 2; ++u) {
            const v128_t b = wasm_i16x8_load8x8(p + 8 * u);
            out[2 * u] = FloatBatch(__m128(wasm_f32x4_convert_i32x4(evenLanes16(b))));
            out[2 * u + 1] = FloatBatch(__m128(wasm_f32x4_convert_i32x4(oddLanes16(b))));
        }
        return;
    }
#endif
    IntBatch q[V];
    loadI8(p, q);
    for (std::size_t v = 0; v < V; ++v) out[v] = smallIntToFloat(q[v]);
}
template <std::size_t V>
inline void loadF16Floats(const std::uint16_t* p, FloatBatch (&out)[V]) noexcept {
#if defined(__wasm_simd128__)
    if constexpr (V % 2 == 0) {
        const IntBatch mask(static_cast<std::int32_t>(0x8fffffffu));
        for (std::size_t u = 0; u < V / 2; ++u) {
            const v128_t h = wasm_v128_load(p + 8 * u);  // sign-extended by the dot products, then as loadF16
            out[2 * u] = xsimd::bitwise_cast<FloatBatch>(IntBatch(__m128i(wasm_i32x4_shl(evenLanes16(h), 13))) & mask) * FloatBatch(0x1p112f);
            out[2 * u + 1] = xsimd::bitwise_cast<FloatBatch>(IntBatch(__m128i(wasm_i32x4_shl(oddLanes16(h), 13))) & mask) * FloatBatch(0x1p112f);
        }
        return;
    }
#endif
    for (std::size_t v = 0; v < V; ++v) out[v] = loadF16(p + v * kFloatLanes);
}
template <std::size_t V>
inline void loadFloats(const float* p, FloatBatch (&out)[V]) noexcept {
#if defined(__wasm_simd128__)
    if constexpr (V % 2 == 0) {
        for (std::size_t u = 0; u < V / 2; ++u) {
            const v128_t lo = wasm_v128_load(p + 8 * u), hi = wasm_v128_load(p + 8 * u + 4);
            out[2 * u] = FloatBatch(__m128(wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6)));
            out[2 * u + 1] = FloatBatch(__m128(wasm_i32x4_shuffle(lo, hi, 1, 3, 5, 7)));
        }
        return;
    }
#endif
    for (std::size_t v = 0; v < V; ++v) out[v] = FloatBatch::load_unaligned(p + v * kFloatLanes);
}
template <std::size_t V>
inline void storeFloats(float* p, const FloatBatch (&in)[V]) noexcept {
#if defined(__wasm_simd128__)
    if constexpr (V % 2 == 0) {
        for (std::size_t u = 0; u < V / 2; ++u) {
            const v128_t e = v128_t(__m128(in[2 * u])), o = v128_t(__m128(in[2 * u + 1]));
            wasm_v128_store(p + 8 * u, wasm_i32x4_shuffle(e, o, 0, 4, 1, 5));
            wasm_v128_store(p + 8 * u + 4, wasm_i32x4_shuffle(e, o, 2, 6, 3, 7));
        }
        return;
    }
#endif
    for (std::size_t v = 0; v < V; ++v) in[v].store_unaligned(p + v * kFloatLanes);
}
#endif

// The element formats the float kernels are templated on: one element and one vector (kFloatLanes
// elements at p), as floats. Stored 16-bit elements are read byte-wise (loadU16) or by vector loads.
struct F32Format {
    using T = float;
    static constexpr int id = kFormatF32;
    static float at(const T* p) noexcept { return *p; }
#if POSENC_SIMD
    static FloatBatch lanes(const T* p) noexcept { return FloatBatch::load_unaligned(p); }
#endif
};
struct F16Format {
    using T = std::uint16_t;
    static constexpr int id = kFormatF16;
    static float at(const T* p) noexcept { return f16ToFloatFinite(loadU16(reinterpret_cast<const unsigned char*>(p))); }
#if POSENC_SIMD
    static FloatBatch lanes(const T* p) noexcept { return loadF16(p); }
#endif
};
struct Bf16Format {
    using T = std::uint16_t;
    static constexpr int id = kFormatBf16;
    static float at(const T* p) noexcept { return bf16ToFloat(loadU16(reinterpret_cast<const unsigned char*>(p))); }
#if POSENC_SIMD
    static FloatBatch lanes(const T* p) noexcept { return xsimd::bitwise_cast<FloatBatch>(loadHalfBits(p)); }
#endif
};

// --- layouts ------------------------------------------------------------------------------------------
constexpr std::size_t kKeyBlockKeys = 64;  // = kKeyBlock (attention_tile.hpp)
constexpr std::size_t kQ8GroupBytes = 2 * kKeyBlockKeys + kQ8Block * kKeyBlockKeys;  // one group of 32 channels of a key block

inline std::size_t keyBlockBytes(int format, std::size_t hd) noexcept {
    switch (format) {
        case kFormatF32: return hd * kKeyBlockKeys * 4;
        case kFormatQ8: return hd / kQ8Block * kQ8GroupBytes;
        default: return hd * kKeyBlockKeys * 2;
    }
}
inline std::size_t valueRowBytes(int format, std::size_t hd) noexcept {
    switch (format) {
        case kFormatF32: return hd * 4;
        case kFormatQ8: return hd / kQ8Block * kQ8BlockBytes;
        default: return hd * 2;
    }
}
inline std::size_t packedKeyBytes(int format, std::size_t kLen, std::size_t hd) noexcept {
    return (kLen + kKeyBlockKeys - 1) / kKeyBlockKeys * keyBlockBytes(format, hd);
}

// Key j of a packed store, converted from / to floats. `key` has hd floats. Storing converts (rounds);
// loading gives exactly the floats the kernels compute with.
inline void storeKey(int format, const float* key, std::size_t j, std::size_t hd, unsigned char* packed) noexcept {
    unsigned char* block = packed + j / kKeyBlockKeys * keyBlockBytes(format, hd);
    const std::size_t t = j % kKeyBlockKeys;
    if (format == kFormatF32) {
        for (std::size_t c = 0; c < hd; ++c) std::memcpy(block + (c * kKeyBlockKeys + t) * 4, key + c, 4);
    } else if (format == kFormatQ8) {
        for (std::size_t g = 0; g < hd / kQ8Block; ++g) {
            unsigned char q[kQ8BlockBytes];
            quantizeQ8Block(key + g * kQ8Block, q);
            unsigned char* group = block + g * kQ8GroupBytes;
            group[2 * t] = q[0], group[2 * t + 1] = q[1];
            for (std::size_t c = 0; c < kQ8Block; ++c) group[2 * kKeyBlockKeys + c * kKeyBlockKeys + t] = q[2 + c];
        }
    } else {
        for (std::size_t c = 0; c < hd; ++c)
            storeU16(block + (c * kKeyBlockKeys + t) * 2, format == kFormatF16 ? floatToF16(key[c]) : floatToBf16(key[c]));
    }
}
inline void loadKey(int format, const unsigned char* packed, std::size_t j, std::size_t hd, float* key) noexcept {
    const unsigned char* block = packed + j / kKeyBlockKeys * keyBlockBytes(format, hd);
    const std::size_t t = j % kKeyBlockKeys;
    if (format == kFormatF32) {
        for (std::size_t c = 0; c < hd; ++c) std::memcpy(key + c, block + (c * kKeyBlockKeys + t) * 4, 4);
    } else if (format == kFormatQ8) {
        for (std::size_t g = 0; g < hd / kQ8Block; ++g) {
            const unsigned char* group = block + g * kQ8GroupBytes;
            const float d = f16ToFloat(loadU16(group + 2 * t));
            for (std::size_t c = 0; c < kQ8Block; ++c)
                key[g * kQ8Block + c] = q8Value(static_cast<std::int8_t>(group[2 * kKeyBlockKeys + c * kKeyBlockKeys + t]), d);
        }
    } else {
        for (std::size_t c = 0; c < hd; ++c) {
            const std::uint16_t h = loadU16(block + (c * kKeyBlockKeys + t) * 2);
            key[c] = format == kFormatF16 ? f16ToFloat(h) : bf16ToFloat(h);
        }
    }
}
// Key `from` copied to slot `to` of the same store, its stored bytes as they are.
inline void copyKey(int format, unsigned char* packed, std::size_t from, std::size_t to, std::size_t hd) noexcept {
    const std::size_t blockBytes = keyBlockBytes(format, hd);
    const unsigned char* src = packed + from / kKeyBlockKeys * blockBytes;
    unsigned char* dst = packed + to / kKeyBlockKeys * blockBytes;
    const std::size_t s = from % kKeyBlockKeys, d = to % kKeyBlockKeys;
    if (format == kFormatQ8) {
        for (std::size_t g = 0; g < hd / kQ8Block; ++g) {
            const unsigned char* gs = src + g * kQ8GroupBytes;
            unsigned char* gd = dst + g * kQ8GroupBytes;
            gd[2 * d] = gs[2 * s], gd[2 * d + 1] = gs[2 * s + 1];
            for (std::size_t c = 0; c < kQ8Block; ++c) gd[2 * kKeyBlockKeys + c * kKeyBlockKeys + d] = gs[2 * kKeyBlockKeys + c * kKeyBlockKeys + s];
        }
        return;
    }
    const std::size_t size = format == kFormatF32 ? 4 : 2;
    for (std::size_t c = 0; c < hd; ++c) std::memcpy(dst + (c * kKeyBlockKeys + d) * size, src + (c * kKeyBlockKeys + s) * size, size);
}

// One value row converted from / to floats.
inline void storeValue(int format, const float* v, std::size_t hd, unsigned char* row) noexcept {
    if (format == kFormatF32) {
        std::memcpy(row, v, hd * 4);
    } else if (format == kFormatQ8) {
        for (std::size_t g = 0; g < hd / kQ8Block; ++g) quantizeQ8Block(v + g * kQ8Block, row + g * kQ8BlockBytes);
    } else {
        for (std::size_t c = 0; c < hd; ++c) storeU16(row + 2 * c, format == kFormatF16 ? floatToF16(v[c]) : floatToBf16(v[c]));
    }
}
inline void loadValue(int format, const unsigned char* row, std::size_t hd, float* v) noexcept {
    if (format == kFormatF32) {
        std::memcpy(v, row, hd * 4);
    } else if (format == kFormatQ8) {
        for (std::size_t g = 0; g < hd / kQ8Block; ++g) dequantizeQ8Block(row + g * kQ8BlockBytes, v + g * kQ8Block);
    } else {
        for (std::size_t c = 0; c < hd; ++c) {
            const std::uint16_t h = loadU16(row + 2 * c);
            v[c] = format == kFormatF16 ? f16ToFloat(h) : bf16ToFloat(h);
        }
    }
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
