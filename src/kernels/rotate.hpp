// Rotation kernels for RoPE. Each has a scalar reference (`...Scalar`) and an xsimd version
// (`...Simd`); tests demand equal results (bit-equal for the rotations, 1 float ulp for the
// sin/cos tables). Compiled with -ffp-contract=off so neither side gets fused multiply-adds.
//
// Both layouts read the same per-token tables c[k] = scale*cos(p*w_k), s[k] = scale*sin(p*w_k):
//   half        (rotate_half, HF Llama/NeoX): pairs (k, k+h)
//   interleaved (GPT-J, ggml NORMAL):         pairs (2k, 2k+1)
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/simd.hpp"

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {  // one namespace per instruction set compiled (kernels/kernel_set.hpp)

// --- cos/sin tables, angles in double ------------------------------------------------------------
// Reference: libm on the unreduced angle p * w[k].
inline void sinCosScalar(double position, const double* w, std::size_t n, double* c, double* s) noexcept {
    for (std::size_t k = 0; k < n; ++k) {
        const double a = position * w[k];
        c[k] = std::cos(a);
        s[k] = std::sin(a);
    }
}

// 2*pi split so that k*kTwoPi1 and k*kTwoPi2 are exact for |k| < 2^31 (22 significant bits each).
constexpr double kTwoPi1 = 6.283184051513672;
constexpr double kTwoPi2 = 1.2556656656670384e-06;
constexpr double kTwoPi3 = 2.4893488687586454e-13;
constexpr double kInvTwoPi = 0.15915494309189535;

// SIMD: reduce the angle to [-pi, pi] exactly (three-part Cody-Waite), then xsimd's vector sincos,
// which is fast and accurate on that range (its large-argument path is per-lane scalar).
inline void sinCosSimd(double position, const double* w, std::size_t n, double* c, double* s) noexcept {
    std::size_t k = 0;
#if POSENC_SIMD
    const DoubleBatch p(position);
    for (; k + kDoubleLanes <= n; k += kDoubleLanes) {
        const DoubleBatch a = p * DoubleBatch::load_unaligned(w + k);
        const DoubleBatch turns = xsimd::nearbyint(a * DoubleBatch(kInvTwoPi));
        const DoubleBatch r = ((a - turns * DoubleBatch(kTwoPi1)) - turns * DoubleBatch(kTwoPi2)) - turns * DoubleBatch(kTwoPi3);
        const auto sinCos = xsimd::sincos(r);
        sinCos.second.store_unaligned(c + k);
        sinCos.first.store_unaligned(s + k);
    }
#endif
    sinCosScalar(position, w + k, n - k, c + k, s + k);
}

// One position step by the angle addition formula: (c, s) <- (c cos w - s sin w, s cos w + c sin w).
// In double, 256 steps drift by ~1e-13, far below float resolution; callers re-anchor with sinCos.
inline void advanceScalar(double* c, double* s, const double* stepC, const double* stepS, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k) {
        const double cn = c[k] * stepC[k] - s[k] * stepS[k];
        s[k] = s[k] * stepC[k] + c[k] * stepS[k];
        c[k] = cn;
    }
}

inline void advanceSimd(double* c, double* s, const double* stepC, const double* stepS, std::size_t n) noexcept {
    std::size_t k = 0;
#if POSENC_SIMD
    for (; k + kDoubleLanes <= n; k += kDoubleLanes) {
        const DoubleBatch cb = DoubleBatch::load_unaligned(c + k), sb = DoubleBatch::load_unaligned(s + k);
        const DoubleBatch cw = DoubleBatch::load_unaligned(stepC + k), sw = DoubleBatch::load_unaligned(stepS + k);
        (cb * cw - sb * sw).store_unaligned(c + k);
        (sb * cw + cb * sw).store_unaligned(s + k);
    }
#endif
    advanceScalar(c + k, s + k, stepC + k, stepS + k, n - k);
}

// out = float(scale * in), for both tables.
inline void toFloatScaled(const double* c, const double* s, std::size_t n, double scale, float* cf, float* sf) noexcept {
    for (std::size_t k = 0; k < n; ++k) {
        cf[k] = static_cast<float>(scale * c[k]);
        sf[k] = static_cast<float>(scale * s[k]);
    }
}

// --- half layout: x[k], x[k+h] -------------------------------------------------------------------
// Each rotation reads src and writes dst (the same row when in place; a rotated copy otherwise, so a
// copy costs no separate pass over the row).
inline void rotateHalfScalar(float* dst, const float* src, const float* c, const float* s, std::size_t h) noexcept {
    for (std::size_t k = 0; k < h; ++k) {
        const float a = src[k], b = src[k + h];
        dst[k] = a * c[k] - b * s[k];
        dst[k + h] = b * c[k] + a * s[k];
    }
}

inline void rotateHalfSimd(float* dst, const float* src, const float* c, const float* s, std::size_t h) noexcept {
    std::size_t k = 0;
#if POSENC_SIMD
    for (; k + kFloatLanes <= h; k += kFloatLanes) {
        const FloatBatch a = FloatBatch::load_unaligned(src + k), b = FloatBatch::load_unaligned(src + k + h);
        const FloatBatch cb = FloatBatch::load_unaligned(c + k), sb = FloatBatch::load_unaligned(s + k);
        (a * cb - b * sb).store_unaligned(dst + k);
        (b * cb + a * sb).store_unaligned(dst + k + h);
    }
#endif
    for (; k < h; ++k) {  // tail, same arithmetic as the scalar reference
        const float a = src[k], b = src[k + h];
        dst[k] = a * c[k] - b * s[k];
        dst[k + h] = b * c[k] + a * s[k];
    }
}

// --- interleaved layout: x[2k], x[2k+1] ----------------------------------------------------------
inline void rotateInterleavedScalar(float* dst, const float* src, const float* c, const float* s, std::size_t h) noexcept {
    for (std::size_t k = 0; k < h; ++k) {
        const float a = src[2 * k], b = src[2 * k + 1];
        dst[2 * k] = a * c[k] - b * s[k];
        dst[2 * k + 1] = b * c[k] + a * s[k];
    }
}

#if POSENC_SIMD
namespace detail {
using IndexBatch = xsimd::batch<std::uint32_t>;
struct SwapPairs { static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; } };
struct DuplicateLow { static constexpr unsigned get(unsigned i, unsigned) { return i / 2; } };
struct DuplicateHigh { static constexpr unsigned get(unsigned i, unsigned n) { return (i + n) / 2; } };
// lane 2k: a*c + b*(-s) == a*c - b*s exactly; lane 2k+1: b*c + a*s
inline FloatBatch rotatePairs(FloatBatch v, FloatBatch cc, FloatBatch ss, FloatBatch sign) noexcept {
    constexpr auto swap = xsimd::make_batch_constant<IndexBatch, SwapPairs>();
    return v * cc + xsimd::swizzle(v, swap) * (ss * sign);
}
}  // namespace detail
#endif

inline void rotateInterleavedSimd(float* dst, const float* src, const float* c, const float* s, std::size_t h) noexcept {
    std::size_t k = 0;
#if POSENC_SIMD
    constexpr auto lo = xsimd::make_batch_constant<detail::IndexBatch, detail::DuplicateLow>();
    constexpr auto hi = xsimd::make_batch_constant<detail::IndexBatch, detail::DuplicateHigh>();
    alignas(64) float signs[kFloatLanes];
    for (std::size_t i = 0; i < kFloatLanes; ++i) signs[i] = i % 2 == 0 ? -1.0f : 1.0f;
    const FloatBatch sign = FloatBatch::load_aligned(signs);
    for (; k + kFloatLanes <= h; k += kFloatLanes) {
        const FloatBatch cb = FloatBatch::load_unaligned(c + k), sb = FloatBatch::load_unaligned(s + k);
        const float* p = src + 2 * k;
        float* d = dst + 2 * k;
        const FloatBatch v0 = FloatBatch::load_unaligned(p), v1 = FloatBatch::load_unaligned(p + kFloatLanes);
        detail::rotatePairs(v0, xsimd::swizzle(cb, lo), xsimd::swizzle(sb, lo), sign).store_unaligned(d);
        detail::rotatePairs(v1, xsimd::swizzle(cb, hi), xsimd::swizzle(sb, hi), sign).store_unaligned(d + kFloatLanes);
    }
#endif
    rotateInterleavedScalar(dst + 2 * k, src + 2 * k, c + k, s + k, h - k);
}

}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
