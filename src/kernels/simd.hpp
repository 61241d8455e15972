// One place that picks the SIMD batch type. Natively xsimd targets the compiler's -m flags; in wasm
// xsimd's SSE4.1 backend lowers to SIMD128 (em++ -msimd128 -msse4.1).
#pragma once
#include <xsimd/xsimd.hpp>

namespace posenc::kernels {
using FloatBatch = xsimd::batch<float>;
using DoubleBatch = xsimd::batch<double>;
constexpr std::size_t kFloatLanes = FloatBatch::size;
constexpr std::size_t kDoubleLanes = DoubleBatch::size;
}  // namespace posenc::kernels
