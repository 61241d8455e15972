// Rotation kernels for RoPE. Each has a scalar reference (`...Scalar`) and an xsimd version
// (`...Simd`) performing the same float operations in the same order, so tests can demand
// bit-equal results. Compile with -ffp-contract=off so neither side gets fused multiply-adds.
//
// Layout-specific tables keep the kernels branch-free:
//   half        (rotate_half, pairs (k, k+h)):  c[h], s[h]
//   interleaved (GPT-J, pairs (2k, 2k+1)):      C[R] = (c0,c0,c1,c1,..), S[R] = (-s0,s0,-s1,s1,..)
#pragma once
#include <cmath>
#include <cstddef>

#include "kernels/simd.hpp"

namespace posenc::kernels {

// --- cos/sin tables: out[k] = scale*cos(p*w[k]), scale*sin(p*w[k]), angles in double -------------
inline void sinCosScalar(double position, const double* w, std::size_t n, double scale, float* c, float* s) noexcept {
    for (std::size_t k = 0; k < n; ++k) {
        const double a = position * w[k];
        c[k] = static_cast<float>(scale * std::cos(a));
        s[k] = static_cast<float>(scale * std::sin(a));
    }
}

inline void sinCosSimd(double position, const double* w, std::size_t n, double scale, float* c, float* s) noexcept {
    std::size_t k = 0;
    alignas(64) double cb[kDoubleLanes], sb[kDoubleLanes];
    const DoubleBatch p(position), sc(scale);
    for (; k + kDoubleLanes <= n; k += kDoubleLanes) {
        const DoubleBatch a = p * DoubleBatch::load_unaligned(w + k);
        auto cs = xsimd::sincos(a);  // pair (sin, cos)
        (sc * cs.second).store_aligned(cb);
        (sc * cs.first).store_aligned(sb);
        for (std::size_t l = 0; l < kDoubleLanes; ++l) {
            c[k + l] = static_cast<float>(cb[l]);
            s[k + l] = static_cast<float>(sb[l]);
        }
    }
    sinCosScalar(position, w + k, n - k, scale, c + k, s + k);
}

// --- half layout: x[k], x[k+h] -------------------------------------------------------------------
inline void rotateHalfScalar(float* x, const float* c, const float* s, std::size_t h) noexcept {
    for (std::size_t k = 0; k < h; ++k) {
        const float a = x[k], b = x[k + h];
        x[k] = a * c[k] - b * s[k];
        x[k + h] = b * c[k] + a * s[k];
    }
}

inline void rotateHalfSimd(float* x, const float* c, const float* s, std::size_t h) noexcept {
    std::size_t k = 0;
    for (; k + kFloatLanes <= h; k += kFloatLanes) {
        const FloatBatch a = FloatBatch::load_unaligned(x + k), b = FloatBatch::load_unaligned(x + k + h);
        const FloatBatch cb = FloatBatch::load_unaligned(c + k), sb = FloatBatch::load_unaligned(s + k);
        (a * cb - b * sb).store_unaligned(x + k);
        (b * cb + a * sb).store_unaligned(x + k + h);
    }
    for (; k < h; ++k) {  // tail, same arithmetic as the scalar reference
        const float a = x[k], b = x[k + h];
        x[k] = a * c[k] - b * s[k];
        x[k + h] = b * c[k] + a * s[k];
    }
}

// --- interleaved layout: x[2k], x[2k+1] ----------------------------------------------------------
inline void rotateInterleavedScalar(float* x, const float* C, const float* S, std::size_t R) noexcept {
    for (std::size_t k = 0; k < R; k += 2) {
        const float a = x[k], b = x[k + 1];
        x[k] = a * C[k] + b * S[k];
        x[k + 1] = b * C[k + 1] + a * S[k + 1];
    }
}

namespace detail {
struct SwapPairs {
    static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};
}  // namespace detail

inline void rotateInterleavedSimd(float* x, const float* C, const float* S, std::size_t R) noexcept {
    constexpr auto swap = xsimd::make_batch_constant<xsimd::batch<std::uint32_t>, detail::SwapPairs>();
    std::size_t k = 0;
    for (; k + kFloatLanes <= R; k += kFloatLanes) {
        const FloatBatch v = FloatBatch::load_unaligned(x + k);
        const FloatBatch partner = xsimd::swizzle(v, swap);
        (v * FloatBatch::load_unaligned(C + k) + partner * FloatBatch::load_unaligned(S + k)).store_unaligned(x + k);
    }
    rotateInterleavedScalar(x + k, C + k, S + k, R - k);
}

}  // namespace posenc::kernels
