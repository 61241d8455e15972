// One place that picks the SIMD batch type. Natively xsimd targets the compiler's -m flags; in wasm
// xsimd's SSE4.1 backend lowers to SIMD128 (em++ -msimd128 -msse4.1). A build with no SIMD at all
// (wasm without -msimd128: the scalar baseline of the benchmarks) sets POSENC_SIMD to 0, and every
// `...Simd` kernel then runs its scalar twin.
//
// These headers are compiled once per instruction set (kernels/kernel_set_isa.cpp, with that set's -m
// flags) and once more with the library's default flags; POSENC_KERNEL_ISA names the inline namespace
// each copy lives in, so copies compiled for different sets never share a symbol (the linker would
// otherwise keep one copy of an inline function, possibly one with instructions this CPU lacks).
#pragma once
#include <cstddef>

#ifndef POSENC_KERNEL_ISA
#define POSENC_KERNEL_ISA generic
#endif

#if defined(POSENC_NO_SIMD)
#define POSENC_SIMD 0
#else
#include <xsimd/xsimd.hpp>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
#define POSENC_SIMD 0
#else
#define POSENC_SIMD 1
#endif
#endif

#include <cmath>
#include <cstdint>

// A register block shared by several tile kernels stays one function (the K/V formats' kernels: eight
// row counts each would otherwise inline their blocks, growing the wasm module by several kB per format).
#if defined(__GNUC__) || defined(__clang__)
#define POSENC_NOINLINE __attribute__((noinline))
#else
#define POSENC_NOINLINE
#endif

namespace posenc::kernels {
inline namespace POSENC_KERNEL_ISA {  // one namespace per instruction set compiled (kernels/kernel_set.hpp)
// a*b + c for the multiply-accumulate kernels. Where the target has fused multiply-add (native
// -march with FMA) both twins fuse (std::fma and xsimd::fma round once, identically); elsewhere
// (wasm, SSE4.1) both multiply then add. Everything else compiles with -ffp-contract=off.
#if defined(__FMA__)
#define POSENC_FMA 1
inline float madd(float a, float b, float c) noexcept { return std::fma(a, b, c); }
#else
#define POSENC_FMA 0
inline float madd(float a, float b, float c) noexcept { return a * b + c; }
#endif

#if POSENC_SIMD
using FloatBatch = xsimd::batch<float>;
using DoubleBatch = xsimd::batch<double>;
constexpr std::size_t kFloatLanes = FloatBatch::size;
constexpr std::size_t kDoubleLanes = DoubleBatch::size;
// max of floats by std::max(a, b)'s rule, NaN included — (a < b) ? b : a: a NaN in b is passed over, a
// NaN in a kept — so the SIMD kernels equal their scalar twins for every input (scores of +inf make
// NaN in the softmax, and each kernel set must refuse them alike). SIMD128's pmax is that rule; x86's
// maxps(x, y) is (x > y) ? x : y, hence the operands swapped. Emscripten would lower _mm_max_ps to
// compare + select, so in wasm it is pmax itself.
using IntBatch = xsimd::batch<std::int32_t>;
#if defined(__wasm_simd128__)
inline FloatBatch vmax(FloatBatch a, FloatBatch b) noexcept { return FloatBatch(__m128(wasm_f32x4_pmax(v128_t(__m128(a)), v128_t(__m128(b))))); }
#else
inline FloatBatch vmax(FloatBatch a, FloatBatch b) noexcept { return xsimd::max(b, a); }
#endif

#if POSENC_FMA && defined(__AVX512F__)  // xsimd 8's avx512f batch has no fused fma of its own
inline FloatBatch madd(FloatBatch a, FloatBatch b, FloatBatch c) noexcept { return FloatBatch(_mm512_fmadd_ps(a, b, c)); }
#elif POSENC_FMA
inline FloatBatch madd(FloatBatch a, FloatBatch b, FloatBatch c) noexcept { return xsimd::fma(a, b, c); }
#else
inline FloatBatch madd(FloatBatch a, FloatBatch b, FloatBatch c) noexcept { return a * b + c; }
#endif
#else
constexpr std::size_t kFloatLanes = 1;
constexpr std::size_t kDoubleLanes = 1;
#endif
}  // namespace POSENC_KERNEL_ISA
}  // namespace posenc::kernels
