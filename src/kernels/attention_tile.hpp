// The attention engine's inner kernels, FlashAttention-2 style: a tile of up to kTileRows query rows
// against one block of kKeyBlock keys.
//   scoreTile   S = Q · Kᵀ with a register-blocked micro-kernel (keys packed channel-major per block,
//               so each loaded key vector serves every row of the tile and no horizontal sums occur)
//   expShift    p = exp(s − m) with a vectorised exp (expApprox, error stated below)
//   valueTile   O = O · corr + P · V with the output rows held in registers, chunk by chunk
// Every kernel has a scalar twin that performs the same float operations in the same order (multiply-
// accumulates through madd, fused on both sides or on neither); the two agree bit for bit (tests/native/test_kernels.cpp holds them to that).
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/kv_format.hpp"
#include "kernels/simd.hpp"

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {  // one namespace per instruction set compiled (kernels/kernel_set.hpp)

// Query rows per register block: 4 rows x 2 vectors = 8 accumulators where there are 16 vector
// registers (SSE, AVX2, wasm SIMD128: V8 spills beyond that); 8 rows x 2 vectors = 16 where there are
// 32 (AVX-512).
constexpr std::size_t kBlockRows = kFloatLanes >= 16 ? 8 : 4;
// The stored formats' tiles run in register blocks of a power of two rows (at most kBlockRows): a tile of
// 3, 5, 6 or 7 rows as 2 + 1, 4 + 1, 4 + 2, 4 + 2 + 1, so each format keeps three or four block functions
// (wasm size) — the keys or values of a block are then read again from L1 by the second block.
template <std::size_t R>
constexpr std::size_t pow2Block() {
    std::size_t b = 1;
    while (b * 2 <= R && b * 2 <= kBlockRows) b *= 2;
    return b;
}
// Query rows per tile: 8 on every set. Where a register block is 4 rows, a tile is two blocks run one
// after the other on each key block, while its keys and values are in L1, and the engine's bookkeeping
// of a key block (masks, the softmax's running state) is paid once for 8 rows instead of twice.
constexpr std::size_t kTileRows = 8;
constexpr std::size_t kKeyBlock = kKeyBlockKeys;  // keys per block; packed key blocks are [headDim][kKeyBlock] (kernels/kv_format.hpp)

// --- exp ------------------------------------------------------------------------------------------
// expApprox(x) for x <= 0 or -inf (the softmax only takes exp of a score minus the running max):
// x = n·ln2 + r with |r| <= ln2/2 (two-part Cody-Waite ln2, so n·ln2hi is exact), e^r by the degree-6
// polynomial 1 + r + c2 r^2 + ... + c6 r^6 fitted for the least maximum relative error on that range
// (3.1e-9; scripts/fit/exp_polynomial.py: two multiply-adds fewer than the Taylor series to r^7 it
// replaced, whose truncation was 8e-9 — the exponentials are ~12 % of a causal attention call in wasm),
// scaled by 2^n through the exponent bits, which are floored at 0 so results under 2^-126 flush to 0
// without a compare and select.
// Stated accuracy (tested against std::exp in double): at most 2 ulp relative on [-87, 0] (1.2 ulp
// measured); exactly 0 from x <= -88 (true value < 6.1e-39), so -inf gives 0.
namespace detail {
constexpr float kExpFloor = -100.0f;  // clamp: keeps n (and the int conversion) small and finite
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kShifter = 12582912.0f;             // 1.5·2^23
constexpr std::int32_t kShifterBits = 0x4B400000;   // its bit pattern: integer k added to it reads as bits + k
constexpr float kLn2Hi = 0.693359375f;           // 355/512: n·kLn2Hi is exact for |n| < 2^15
constexpr float kLn2Lo = -2.12194440054690583e-4f;  // ln2 − kLn2Hi
constexpr float kC2 = 0x1.fffffcp-2f, kC3 = 0x1.555492p-3f, kC4 = 0x1.5558f2p-5f, kC5 = 0x1.123a20p-7f, kC6 = 0x1.6a23d0p-10f;

// 2^n for n in [-126, 127]; 0 below -126. Past 127 (NaN or +inf in) the exponent wraps as the SIMD
// twin's 32-bit lane shift does: shifted as unsigned, where that is defined.
inline float pow2i(std::int32_t n) noexcept {
    const std::uint32_t bits = static_cast<std::uint32_t>(std::max(n + 127, 0)) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
}  // namespace detail

inline float expApproxScalar(float x) noexcept {
    using namespace detail;
    const float xc = std::max(x, kExpFloor);
    // n = round(x log2e) by the 1.5·2^23 shifter: the add rounds to an integer held in the low
    // mantissa bits (cheaper in wasm than nearest + saturating truncation)
    const float shifted = xc * kLog2e + kShifter;
    const float n = shifted - kShifter;
    const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
    float p = kC6;
    p = p * r + kC5;
    p = p * r + kC4;
    p = p * r + kC3;
    p = p * r + kC2;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    std::int32_t bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    return p * pow2i(bits - kShifterBits);
}

#if POSENC_SIMD
inline FloatBatch expApprox(FloatBatch x) noexcept {
    using namespace detail;
    const FloatBatch xc = vmax(x, FloatBatch(kExpFloor));
    const FloatBatch shifted = xc * FloatBatch(kLog2e) + FloatBatch(kShifter);
    const FloatBatch n = shifted - FloatBatch(kShifter);
    const FloatBatch r = (xc - n * FloatBatch(kLn2Hi)) - n * FloatBatch(kLn2Lo);
    FloatBatch p(kC6);
    p = p * r + FloatBatch(kC5);
    p = p * r + FloatBatch(kC4);
    p = p * r + FloatBatch(kC3);
    p = p * r + FloatBatch(kC2);
    p = p * r + FloatBatch(1.0f);
    p = p * r + FloatBatch(1.0f);
    const IntBatch bits = xsimd::max(xsimd::bitwise_cast<IntBatch>(shifted) - IntBatch(kShifterBits - 127), IntBatch(0)) << 23;
    return p * xsimd::bitwise_cast<FloatBatch>(bits);
}
#endif

inline void expApproxScalar(const float* x, float* y, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) y[i] = expApproxScalar(x[i]);
}

inline void expApproxSimd(const float* x, float* y, std::size_t n) noexcept {
    std::size_t i = 0;
#if POSENC_SIMD
    for (const std::size_t whole = n - n % kFloatLanes; i < whole; i += kFloatLanes)
        expApprox(FloatBatch::load_unaligned(x + i)).store_unaligned(y + i);
#endif
    for (; i < n; ++i) y[i] = expApproxScalar(x[i]);
}

// --- row reductions ----------------------------------------------------------------------------
inline float rowMaxScalar(const float* s, std::size_t n) noexcept {
    float m = -std::numeric_limits<float>::infinity();
    for (std::size_t t = 0; t < n; ++t) m = std::max(m, s[t]);
    return m;
}

// The maxima of R rows (row r at s + r·stride), n values each, in one pass of R independent chains
// (one row's chain is latency-bound). Each lane starts from -inf, as the scalar loop, and passes over NaN
// as std::max(m, x) does; max is exact, so each out[r] equals rowMaxScalar whatever the order.
template <std::size_t R>
inline void rowMaxesSimd(const float* s, std::size_t stride, std::size_t n, float* out) noexcept {
    std::size_t t = 0;
    for (std::size_t r = 0; r < R; ++r) out[r] = -std::numeric_limits<float>::infinity();
#if POSENC_SIMD
    if (n >= kFloatLanes) {
        FloatBatch mb[R];
        for (std::size_t r = 0; r < R; ++r) mb[r] = FloatBatch(-std::numeric_limits<float>::infinity());
        for (; t + kFloatLanes <= n; t += kFloatLanes)
            for (std::size_t r = 0; r < R; ++r) mb[r] = vmax(mb[r], FloatBatch::load_unaligned(s + r * stride + t));
        for (std::size_t r = 0; r < R; ++r) {
            alignas(64) float lanes[kFloatLanes];
            mb[r].store_aligned(lanes);
            for (float v : lanes) out[r] = std::max(out[r], v);
        }
    }
#endif
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t u = t; u < n; ++u) out[r] = std::max(out[r], s[r * stride + u]);
}

inline float rowMaxSimd(const float* s, std::size_t n) noexcept {
    float m;
    rowMaxesSimd<1>(s, 0, n, &m);
    return m;
}

// s[t] = exp(s[t] − m); returns the sum. The sum's order differs between the twins (lanes, then
// across lanes), so the sums agree to float rounding; the exponentials agree bit for bit.
inline float expShiftScalar(float* s, std::size_t n, float m) noexcept {
    float sum = 0;
    for (std::size_t t = 0; t < n; ++t) sum += (s[t] = expApproxScalar(s[t] - m));
    return sum;
}

inline float expShiftSimd(float* s, std::size_t n, float m) noexcept {
    std::size_t t = 0;
    float sum = 0;
#if POSENC_SIMD
    FloatBatch acc(0.0f);
    const FloatBatch mb(m);
    for (; t + kFloatLanes <= n; t += kFloatLanes) {
        const FloatBatch e = expApprox(FloatBatch::load_unaligned(s + t) - mb);
        e.store_unaligned(s + t);
        acc = acc + e;
    }
    sum = xsimd::hadd(acc);
#endif
    for (; t < n; ++t) sum += (s[t] = expApproxScalar(s[t] - m));
    return sum;
}

// --- online softmax over one tile's block of scores ---------------------------------------------
// For each row r of s (R rows of kKeyBlock, n valid): if live[r], the block's max raises the running
// max m[r]; corr[r] = exp(m_old − m_new) rescales what was accumulated (l[r] and the outputs), the
// scores become p = exp(s − m_new) and l[r] = l[r]·corr[r] + Σp. A row that is not live, or whose
// block is wholly masked (max −inf), gets p = 0 and corr = 1. Returns whether any row took weight.
// With R = 1 the row may be longer than a block (the engine's materialised rows: one whole row).
// Twins: identical p, corr and m bit for bit; l to float rounding (the sums' order differs).
template <std::size_t R>
inline bool softmaxTileScalar(float* s, std::size_t n, const bool* live, float* m, float* l, float* corr) noexcept {
    bool any = false;
    for (std::size_t r = 0; r < R; ++r) {
        float* row = s + r * kKeyBlock;
        const float blockMax = live[r] ? rowMaxScalar(row, n) : -std::numeric_limits<float>::infinity();
        corr[r] = 1.0f;
        if (blockMax == -std::numeric_limits<float>::infinity()) {
            std::fill(row, row + n, 0.0f);
            continue;
        }
        const float mNew = std::max(m[r], blockMax);
        corr[r] = expApproxScalar(m[r] - mNew);  // exp(-inf) = 0 on a row's first block
        l[r] = l[r] * corr[r] + expShiftScalar(row, n, mNew);
        m[r] = mNew;
        any = true;
    }
    return any;
}

template <std::size_t R>
inline bool softmaxTileSimd(float* s, std::size_t n, const bool* live, float* m, float* l, float* corr) noexcept {
    // Three passes so the rows' exponentials of (m_old - m_new) are one vector call instead of R
    // latency-bound scalar ones.
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    constexpr std::size_t lanes = (R + kFloatLanes - 1) / kFloatLanes * kFloatLanes;
    alignas(64) float shift[lanes] = {}, mNew[lanes] = {}, blockMax[R];
    rowMaxesSimd<R>(s, kKeyBlock, n, blockMax);
    bool take[R], any = false;
    for (std::size_t r = 0; r < R; ++r) {
        take[r] = live[r] && blockMax[r] != kNegInf;
        mNew[r] = take[r] ? std::max(m[r], blockMax[r]) : m[r];
        shift[r] = take[r] ? m[r] - mNew[r] : 0.0f;  // exp(0) = 1: rows without weight keep their sums
        any |= take[r];
    }
    expApproxSimd(shift, shift, lanes);
    for (std::size_t r = 0; r < R; ++r) {
        float* row = s + r * kKeyBlock;
        corr[r] = shift[r];
        if (!take[r]) {
            std::fill(row, row + n, 0.0f);
            continue;
        }
        l[r] = l[r] * corr[r] + expShiftSimd(row, n, mNew[r]);
        m[r] = mNew[r];
    }
    return any;
}

// --- packed keys -----------------------------------------------------------------------------------
// Keys [kLen][hd] packed as ceil(kLen / kKeyBlock) blocks of [hd][kKeyBlock], zero-padded: key j,
// channel c sits at block(j)·hd·kKeyBlock + c·kKeyBlock + j mod kKeyBlock.
inline std::size_t packedKeysSize(std::size_t kLen, std::size_t hd) noexcept {
    return (kLen + kKeyBlock - 1) / kKeyBlock * kKeyBlock * hd;
}
inline std::size_t packedKeyOffset(std::size_t j, std::size_t hd) noexcept {
    return j / kKeyBlock * hd * kKeyBlock + j % kKeyBlock;
}
// Keys [j0, j1) of K (row j at K + j·hd) into their packed blocks, j0 a whole number of blocks: the
// blocks they touch are zero-filled first, so the blocks hold exactly what packKeys puts there. T: float,
// or uint16 bit patterns (f16 / bf16 keys, packed as they are).
template <class T>
inline void packKeyRange(const T* K, std::size_t j0, std::size_t j1, std::size_t hd, T* packed) noexcept {
    for (std::size_t b0 = j0; b0 < j1; b0 += kKeyBlock) {  // block by block, each written in order
        const std::size_t n = std::min(kKeyBlock, j1 - b0);
        T* dst = packed + b0 * hd;
        const T* src = K + b0 * hd;
        for (std::size_t c = 0; c < hd; ++c, dst += kKeyBlock) {
            for (std::size_t t = 0; t < n; ++t) dst[t] = src[t * hd + c];
            for (std::size_t t = n; t < kKeyBlock; ++t) dst[t] = T(0);  // the padding keys of a last, partial block
        }
    }
}
template <class T>
inline void packKeys(const T* K, std::size_t kLen, std::size_t hd, T* packed) noexcept { packKeyRange(K, 0, kLen, hd, packed); }
inline void packKey(const float* key, std::size_t j, std::size_t hd, float* packed) noexcept {
    float* dst = packed + packedKeyOffset(j, hd);
    for (std::size_t c = 0; c < hd; ++c) dst[c * kKeyBlock] = key[c];
}
inline void unpackKey(const float* packed, std::size_t j, std::size_t hd, float* key) noexcept {
    const float* src = packed + packedKeyOffset(j, hd);
    for (std::size_t c = 0; c < hd; ++c) key[c] = src[c * kKeyBlock];
}

// --- S = Q · Kᵀ for one tile ---------------------------------------------------------------------
// qT: the tile's R query rows transposed, qT[c·R + r] (so one pointer serves every row: in wasm each
// distinct address costs an add); Kb: one packed key block (kernels/kv_format.hpp) in format Fmt, its
// elements converted to floats as they are loaded (the f32 format: as they are); s: R rows of kKeyBlock
// scores, of which the first `cols` are computed (rounded up to whole vectors; padding keys are zeros):
// a block on the causal diagonal needs only the keys up to the tile's last query. Each score sums over
// channels c ascending from 0 in both twins, of the same floats (the stored element's exact value).
template <std::size_t R, class Fmt = F32Format>
inline void scoreTileScalar(const float* qT, const void* Kb, std::size_t hd, float* s, std::size_t cols = kKeyBlock) noexcept {
    const auto* K = static_cast<const typename Fmt::T*>(Kb);
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t t = 0; t < cols; ++t) {
            float acc = 0;
            for (std::size_t c = 0; c < hd; ++c) acc = madd(qT[c * R + r], Fmt::at(K + c * kKeyBlock + t), acc);
            s[r * kKeyBlock + t] = acc;
        }
}

#if POSENC_SIMD  // the register blocks exist only with SIMD; without, the tiles run their scalar twins
// One register block: R (<= kBlockRows) rows of the tile, whose query columns sit `stride` floats apart
// (a compile-time constant for float32 keys, std::integral_constant; at run time for the stored formats,
// whose blocks are then shared by the tiles of every row count).
template <std::size_t R, class Fmt, class Stride>
inline void scoreRowsSimd(const float* qT, Stride stride, const typename Fmt::T* Kb, std::size_t hd, float* s, std::size_t cols) noexcept {
    // Key vectors per step: 8 accumulators in all (V8 gives wasm SIMD 16 xmm registers).
    constexpr std::size_t KV = R >= 3 ? 2 : 4 / R;
    constexpr std::size_t step = KV * kFloatLanes;
    static_assert(kKeyBlock % kFloatLanes == 0, "a key block is whole vectors");
    std::size_t t = 0;
    for (; t + step <= kKeyBlock && t < cols; t += step) {
        FloatBatch a[R][KV];
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t v = 0; v < KV; ++v) a[r][v] = FloatBatch(0.0f);
        const typename Fmt::T* k = Kb + t;
        const float* qc = qT;
        for (std::size_t c = 0; c < hd; ++c, k += kKeyBlock, qc += stride) {
            FloatBatch kv[KV];
            for (std::size_t v = 0; v < KV; ++v) kv[v] = Fmt::lanes(k + v * kFloatLanes);
            for (std::size_t r = 0; r < R; ++r) {
                const FloatBatch qb(qc[r]);
                for (std::size_t v = 0; v < KV; ++v) a[r][v] = madd(qb, kv[v], a[r][v]);
            }
        }
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t v = 0; v < KV; ++v) a[r][v].store_unaligned(s + r * kKeyBlock + t + v * kFloatLanes);
    }
    for (; t < kKeyBlock && t < cols; t += kFloatLanes) {  // a block not divisible into whole steps (wide vectors)
        FloatBatch a[R];
        for (std::size_t r = 0; r < R; ++r) a[r] = FloatBatch(0.0f);
        for (std::size_t c = 0; c < hd; ++c) {
            const FloatBatch k = Fmt::lanes(Kb + c * kKeyBlock + t);
            for (std::size_t r = 0; r < R; ++r) a[r] = madd(FloatBatch(qT[c * stride + r]), k, a[r]);
        }
        for (std::size_t r = 0; r < R; ++r) a[r].store_unaligned(s + r * kKeyBlock + t);
    }
}
template <std::size_t R, class Fmt>
POSENC_NOINLINE void scoreRowsShared(const float* qT, std::size_t stride, const typename Fmt::T* Kb, std::size_t hd, float* s, std::size_t cols) noexcept {
    scoreRowsSimd<R, Fmt>(qT, stride, Kb, hd, s, cols);
}
#endif

#if POSENC_SIMD
// R rows in power-of-two blocks (pow2Block), query columns `stride` apart.
template <std::size_t R, class Fmt>
inline void scoreRowsPow2(const float* qT, std::size_t stride, const typename Fmt::T* K, std::size_t hd, float* s, std::size_t cols) noexcept {
    constexpr std::size_t b = pow2Block<R>();
    scoreRowsShared<b, Fmt>(qT, stride, K, hd, s, cols);
    if constexpr (R > b) scoreRowsPow2<R - b, Fmt>(qT + b, stride, K, hd, s + b * kKeyBlock, cols);
}
#endif

template <std::size_t R, class Fmt = F32Format>
inline void scoreTileSimd(const float* qT, const void* Kb, std::size_t hd, float* s, std::size_t cols = kKeyBlock) noexcept {
#if POSENC_SIMD
    // register blocks of kBlockRows rows, the last one what remains (the same sums, row by row)
    const auto* K = static_cast<const typename Fmt::T*>(Kb);
    constexpr std::size_t first = R < kBlockRows ? R : kBlockRows;
    if constexpr (Fmt::id == kFormatF32) {
        constexpr std::integral_constant<std::size_t, R> stride;
        scoreRowsSimd<first, Fmt>(qT, stride, K, hd, s, cols);
        if constexpr (R > kBlockRows) scoreRowsSimd<R - kBlockRows, Fmt>(qT + kBlockRows, stride, K, hd, s + kBlockRows * kKeyBlock, cols);
    } else {
        scoreRowsPow2<R, Fmt>(qT, R, K, hd, s, cols);
    }
#else
    scoreTileScalar<R, Fmt>(qT, Kb, hd, s, cols);
#endif
}

// The same for a q8 key block: hd / 32 groups of { fp16 scales [kKeyBlock], int8 [32][kKeyBlock] }; key t's
// channel g·32 + c is q8Value(q, fp16 scale of key t in group g), the float loadKey gives (scales are
// finite: the cache refuses a block whose scale is not).
template <std::size_t R>
inline void scoreTileQ8Scalar(const float* qT, const void* Kb, std::size_t hd, float* s, std::size_t cols = kKeyBlock) noexcept {
    const auto* block = static_cast<const unsigned char*>(Kb);
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t t = 0; t < cols; ++t) {
            float acc = 0;
            for (std::size_t g = 0; g < hd / kQ8Block; ++g) {
                const unsigned char* group = block + g * kQ8GroupBytes;
                const float d = f16ToFloatFinite(loadU16(group + 2 * t));
                const unsigned char* q = group + 2 * kKeyBlock + t;
                for (std::size_t c = 0; c < kQ8Block; ++c)
                    acc = madd(qT[(g * kQ8Block + c) * R + r], q8Value(static_cast<std::int8_t>(q[c * kKeyBlock]), d), acc);
            }
            s[r * kKeyBlock + t] = acc;
        }
}

#if POSENC_SIMD
template <std::size_t R, std::size_t KV>
inline void scoreStepQ8(const float* qT, std::size_t stride, const unsigned char* Kb, std::size_t hd, float* s, std::size_t t) noexcept {
    FloatBatch a[R][KV];
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t v = 0; v < KV; ++v) a[r][v] = FloatBatch(0.0f);
    const float* qc = qT;
    for (std::size_t g = 0; g < hd / kQ8Block; ++g) {
        const unsigned char* group = Kb + g * kQ8GroupBytes;
        FloatBatch d[KV];  // the keys' scales of this group, converted once for its 32 channels
        loadF16Floats(reinterpret_cast<const std::uint16_t*>(group) + t, d);
        const std::int8_t* q = reinterpret_cast<const std::int8_t*>(group + 2 * kKeyBlock) + t;
        for (std::size_t c = 0; c < kQ8Block; ++c, q += kKeyBlock, qc += stride) {
            FloatBatch kv[KV];
            loadI8Floats(q, kv);
            for (std::size_t v = 0; v < KV; ++v) kv[v] = kv[v] * d[v];
            for (std::size_t r = 0; r < R; ++r) {
                const FloatBatch qb(qc[r]);
                for (std::size_t v = 0; v < KV; ++v) a[r][v] = madd(qb, kv[v], a[r][v]);
            }
        }
    }
    for (std::size_t r = 0; r < R; ++r) storeFloats(s + r * kKeyBlock + t, a[r]);  // the lanes back in key order
}

template <std::size_t R>
POSENC_NOINLINE void scoreRowsQ8Simd(const float* qT, std::size_t stride, const unsigned char* Kb, std::size_t hd, float* s, std::size_t cols) noexcept {
    constexpr std::size_t KV = R >= 3 ? 2 : 4 / R;  // 8 accumulators, as the float kernel
    constexpr std::size_t step = KV * kFloatLanes;
    std::size_t t = 0;
    for (; t + step <= kKeyBlock && t < cols; t += step) scoreStepQ8<R, KV>(qT, stride, Kb, hd, s, t);
    for (; t < kKeyBlock && t < cols; t += kFloatLanes) scoreStepQ8<R, 1>(qT, stride, Kb, hd, s, t);
}
#endif

#if POSENC_SIMD
template <std::size_t R>
inline void scoreRowsQ8Pow2(const float* qT, std::size_t stride, const unsigned char* K, std::size_t hd, float* s, std::size_t cols) noexcept {
    constexpr std::size_t b = pow2Block<R>();
    scoreRowsQ8Simd<b>(qT, stride, K, hd, s, cols);
    if constexpr (R > b) scoreRowsQ8Pow2<R - b>(qT + b, stride, K, hd, s + b * kKeyBlock, cols);
}
#endif

template <std::size_t R>
inline void scoreTileQ8Simd(const float* qT, const void* Kb, std::size_t hd, float* s, std::size_t cols = kKeyBlock) noexcept {
#if POSENC_SIMD
    scoreRowsQ8Pow2<R>(qT, R, static_cast<const unsigned char*>(Kb), hd, s, cols);
#else
    scoreTileQ8Scalar<R>(qT, Kb, hd, s, cols);
#endif
}

// --- O = O · corr + P · V for one tile -----------------------------------------------------------
// p: R rows of weights, row stride kKeyBlock (a compile-time stride: constant offsets from one
// pointer); n keys; V: n value rows of hd elements in format Fmt (converted to floats as loaded); o: R
// rows of hd floats; corr: R factors (the online softmax's rescale of what was accumulated so far).
// Each output element is o·corr, then + p[t]·v[t] for t ascending, in both twins.
template <std::size_t R, class Fmt = F32Format>
inline void valueTileScalar(const float* p, std::size_t n, const void* Vv, std::size_t hd, float* o, const float* corr) noexcept {
    const auto* V = static_cast<const typename Fmt::T*>(Vv);
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < hd; ++c) {
            float acc = o[r * hd + c] * corr[r];
            for (std::size_t t = 0; t < n; ++t) acc = madd(p[r * kKeyBlock + t], Fmt::at(V + t * hd + c), acc);
            o[r * hd + c] = acc;
        }
}

#if POSENC_SIMD  // the register blocks exist only with SIMD; without, the tiles run their scalar twins
// One register block: R (<= kBlockRows) rows.
template <std::size_t R, class Fmt>
inline void valueRowsSimd(const float* p, std::size_t n, const typename Fmt::T* V, std::size_t hd, float* o, const float* corr) noexcept {
    constexpr std::size_t CV = R >= 3 ? 2 : 4 / R;  // channel vectors per step: ~8 accumulators
    std::size_t c = 0;
    for (; c + CV * kFloatLanes <= hd; c += CV * kFloatLanes) {
        FloatBatch a[R][CV];
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t v = 0; v < CV; ++v) a[r][v] = FloatBatch::load_unaligned(o + r * hd + c + v * kFloatLanes) * FloatBatch(corr[r]);
        const typename Fmt::T* x = V + c;
        for (std::size_t t = 0; t < n; ++t, x += hd) {
            FloatBatch xv[CV];
            for (std::size_t v = 0; v < CV; ++v) xv[v] = Fmt::lanes(x + v * kFloatLanes);
            for (std::size_t r = 0; r < R; ++r) {
                const FloatBatch pb(p[r * kKeyBlock + t]);
                for (std::size_t v = 0; v < CV; ++v) a[r][v] = madd(pb, xv[v], a[r][v]);
            }
        }
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t v = 0; v < CV; ++v) a[r][v].store_unaligned(o + r * hd + c + v * kFloatLanes);
    }
    for (; c + kFloatLanes <= hd; c += kFloatLanes) {
        FloatBatch a[R];
        for (std::size_t r = 0; r < R; ++r) a[r] = FloatBatch::load_unaligned(o + r * hd + c) * FloatBatch(corr[r]);
        for (std::size_t t = 0; t < n; ++t) {
            const FloatBatch x = Fmt::lanes(V + t * hd + c);
            for (std::size_t r = 0; r < R; ++r) a[r] = madd(FloatBatch(p[r * kKeyBlock + t]), x, a[r]);
        }
        for (std::size_t r = 0; r < R; ++r) a[r].store_unaligned(o + r * hd + c);
    }
    for (; c < hd; ++c)  // channels past the last whole vector (odd head dims)
        for (std::size_t r = 0; r < R; ++r) {
            float acc = o[r * hd + c] * corr[r];
            for (std::size_t t = 0; t < n; ++t) acc = madd(p[r * kKeyBlock + t], Fmt::at(V + t * hd + c), acc);
            o[r * hd + c] = acc;
        }
}
template <std::size_t R, class Fmt>
POSENC_NOINLINE void valueRowsShared(const float* p, std::size_t n, const typename Fmt::T* V, std::size_t hd, float* o, const float* corr) noexcept {
    valueRowsSimd<R, Fmt>(p, n, V, hd, o, corr);
}
#endif

#if POSENC_SIMD
template <std::size_t R, class Fmt>
inline void valueRowsPow2(const float* p, std::size_t n, const typename Fmt::T* V, std::size_t hd, float* o, const float* corr) noexcept {
    constexpr std::size_t b = pow2Block<R>();
    valueRowsShared<b, Fmt>(p, n, V, hd, o, corr);
    if constexpr (R > b) valueRowsPow2<R - b, Fmt>(p + b * kKeyBlock, n, V, hd, o + b * hd, corr + b);
}
#endif

template <std::size_t R, class Fmt = F32Format>
inline void valueTileSimd(const float* p, std::size_t n, const void* Vv, std::size_t hd, float* o, const float* corr) noexcept {
#if POSENC_SIMD
    const auto* V = static_cast<const typename Fmt::T*>(Vv);
    constexpr std::size_t first = R < kBlockRows ? R : kBlockRows;
    if constexpr (Fmt::id == kFormatF32) {
        valueRowsSimd<first, Fmt>(p, n, V, hd, o, corr);
        if constexpr (R > kBlockRows) valueRowsSimd<R - kBlockRows, Fmt>(p + kBlockRows * kKeyBlock, n, V, hd, o + kBlockRows * hd, corr + kBlockRows);
    } else {
        valueRowsPow2<R, Fmt>(p, n, V, hd, o, corr);
    }
#else
    valueTileScalar<R, Fmt>(p, n, Vv, hd, o, corr);
#endif
}

// The same for q8 value rows (ggml block_q8_0 each 32 channels: hd is a multiple of 32): channel c of
// row t is q8Value(q, fp16 d of its block).
template <std::size_t R>
inline void valueTileQ8Scalar(const float* p, std::size_t n, const void* Vv, std::size_t hd, float* o, const float* corr) noexcept {
    const auto* V = static_cast<const unsigned char*>(Vv);
    const std::size_t rowBytes = valueRowBytes(kFormatQ8, hd);
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < hd; ++c) {
            float acc = o[r * hd + c] * corr[r];
            for (std::size_t t = 0; t < n; ++t) {
                const unsigned char* block = V + t * rowBytes + c / kQ8Block * kQ8BlockBytes;
                acc = madd(p[r * kKeyBlock + t], q8Value(static_cast<std::int8_t>(block[2 + c % kQ8Block]), f16ToFloatFinite(loadU16(block))), acc);
            }
            o[r * hd + c] = acc;
        }
}

#if POSENC_SIMD
// Channels [c, c + CV·kFloatLanes) of rows [t0, t1); `scales` holds those rows' block scales as floats
// (row t, block g at (t - t0)·groups + g). The first pass over the rows (t0 = 0) rescales by corr.
template <std::size_t R, std::size_t CV>
inline void valueStepQ8(const float* p, std::size_t t0, std::size_t t1, const unsigned char* V, std::size_t hd, std::size_t c, float* o,
                        const float* corr, const float* scales) noexcept {
    const std::size_t rowBytes = valueRowBytes(kFormatQ8, hd), groups = hd / kQ8Block;
    std::size_t at[CV], group[CV];  // each vector's bytes within a row, and its block (a vector never straddles a block)
    for (std::size_t v = 0; v < CV; ++v) {
        const std::size_t cv = c + v * kFloatLanes;
        group[v] = cv / kQ8Block;
        at[v] = group[v] * kQ8BlockBytes + 2 + cv % kQ8Block;
    }
    constexpr bool oneBlock = CV * kFloatLanes <= kQ8Block;  // the step's channels lie in one block, contiguous
    FloatBatch a[R][CV];  // (in loadFloats' lane order where oneBlock)
    for (std::size_t r = 0; r < R; ++r) {
        if constexpr (oneBlock) loadFloats(o + r * hd + c, a[r]);
        else
            for (std::size_t v = 0; v < CV; ++v) a[r][v] = FloatBatch::load_unaligned(o + r * hd + c + v * kFloatLanes);
        if (t0 == 0)
            for (std::size_t v = 0; v < CV; ++v) a[r][v] = a[r][v] * FloatBatch(corr[r]);
    }
    for (std::size_t t = t0; t < t1; ++t) {
        const unsigned char* row = V + t * rowBytes;
        const float* d = scales + (t - t0) * groups;
        FloatBatch xv[CV];
        if constexpr (oneBlock) {  // one load, one scale
            loadI8Floats(reinterpret_cast<const std::int8_t*>(row + at[0]), xv);
            const FloatBatch dt(d[group[0]]);
            for (std::size_t v = 0; v < CV; ++v) xv[v] = xv[v] * dt;
        } else {  // wide vectors: each its own block's part
            for (std::size_t v = 0; v < CV; ++v) {
                IntBatch qi[1];
                loadI8(reinterpret_cast<const std::int8_t*>(row + at[v]), qi);
                xv[v] = smallIntToFloat(qi[0]) * FloatBatch(d[group[v]]);
            }
        }
        for (std::size_t r = 0; r < R; ++r) {
            const FloatBatch pb(p[r * kKeyBlock + t]);
            for (std::size_t v = 0; v < CV; ++v) a[r][v] = madd(pb, xv[v], a[r][v]);
        }
    }
    for (std::size_t r = 0; r < R; ++r) {
        if constexpr (oneBlock) storeFloats(o + r * hd + c, a[r]);
        else
            for (std::size_t v = 0; v < CV; ++v) a[r][v].store_unaligned(o + r * hd + c + v * kFloatLanes);
    }
}

template <std::size_t R>
POSENC_NOINLINE void valueRowsQ8Simd(const float* p, std::size_t n, const unsigned char* V, std::size_t hd, float* o, const float* corr) noexcept {
    constexpr std::size_t CV = R >= 3 ? 2 : 4 / R;
    constexpr std::size_t kScales = 2048;  // rows' scales converted once per pass (8 KiB of stack)
    const std::size_t rowBytes = valueRowBytes(kFormatQ8, hd), groups = hd / kQ8Block;
    const std::size_t rowsPerPass = std::max<std::size_t>(1, kScales / groups);
    float scales[kScales];
    for (std::size_t t0 = 0; t0 < n; t0 += rowsPerPass) {
        const std::size_t t1 = std::min(n, t0 + rowsPerPass);
        for (std::size_t t = t0; t < t1; ++t)
            for (std::size_t g = 0; g < groups; ++g) scales[(t - t0) * groups + g] = f16ToFloatFinite(loadU16(V + t * rowBytes + g * kQ8BlockBytes));
        std::size_t c = 0;
        for (; c + CV * kFloatLanes <= hd; c += CV * kFloatLanes) valueStepQ8<R, CV>(p, t0, t1, V, hd, c, o, corr, scales);
        for (; c < hd; c += kFloatLanes) valueStepQ8<R, 1>(p, t0, t1, V, hd, c, o, corr, scales);  // hd is whole vectors (a multiple of 32)
    }
}
#endif

#if POSENC_SIMD
template <std::size_t R>
inline void valueRowsQ8Pow2(const float* p, std::size_t n, const unsigned char* V, std::size_t hd, float* o, const float* corr) noexcept {
    constexpr std::size_t b = pow2Block<R>();
    valueRowsQ8Simd<b>(p, n, V, hd, o, corr);
    if constexpr (R > b) valueRowsQ8Pow2<R - b>(p + b * kKeyBlock, n, V, hd, o + b * hd, corr + b);
}
#endif

template <std::size_t R>
inline void valueTileQ8Simd(const float* p, std::size_t n, const void* Vv, std::size_t hd, float* o, const float* corr) noexcept {
#if POSENC_SIMD
    valueRowsQ8Pow2<R>(p, n, static_cast<const unsigned char*>(Vv), hd, o, corr);
#else
    valueTileQ8Scalar<R>(p, n, Vv, hd, o, corr);
#endif
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
