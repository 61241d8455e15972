// One instruction set's kernel table. CMake compiles this file once per set, each time with that set's
// -m flags and -DPOSENC_KERNEL_ISA=<name> (the inline namespace the kernel headers' copies live in, and
// the name of the getter below). Only raw-pointer kernels are compiled here: no library code, no
// standard containers, so nothing compiled with wider instructions can be shared with other code.
#include <array>
#include <utility>

#include "kernels/attention_tile.hpp"
#include "kernels/bias.hpp"
#include "kernels/dot.hpp"
#include "kernels/kernel_set.hpp"
#include "kernels/rotate.hpp"
#include "kernels/softcap.hpp"
#include "kernels/stick.hpp"

#define POSENC_CAT2(a, b) a##b
#define POSENC_CAT(a, b) POSENC_CAT2(a, b)

namespace posenc::kernels {
namespace {
// rows 1..kTileRows of each kernel; past kTileRows, null
template <std::size_t I>
constexpr std::size_t rows = I < kTileRows ? I + 1 : 1;
template <class Fmt, std::size_t... I>
constexpr KVTileKernels floatFormat(std::index_sequence<I...>) {
    return {{(I < kTileRows ? &scoreTileSimd<rows<I>, Fmt> : nullptr)...}, {(I < kTileRows ? &valueTileSimd<rows<I>, Fmt> : nullptr)...}};
}
template <std::size_t... I>
constexpr KVTileKernels q8Format(std::index_sequence<I...>) {
    return {{(I < kTileRows ? &scoreTileQ8Simd<rows<I>> : nullptr)...}, {(I < kTileRows ? &valueTileQ8Simd<rows<I>> : nullptr)...}};
}
template <std::size_t... I>
constexpr KernelSet makeSet(std::index_sequence<I...> seq) {
    return KernelSet{
        POSENC_KERNEL_SET_NAME, kTileRows, kFloatLanes,
        {floatFormat<F32Format>(seq), floatFormat<F16Format>(seq), floatFormat<Bf16Format>(seq), q8Format(seq)},
        {(I < kTileRows ? &softmaxTileSimd<rows<I>> : nullptr)...},
        &axpySimd, &dotSimd, &allFiniteSimd,
        &sinCosSimd, &advanceSimd, &rotateHalfSimd, &rotateInterleavedSimd, &linearBiasSimd, &softcapSimd,
        &stickSigmoidsSimd,
    };
}
constexpr KernelSet kSet = makeSet(std::make_index_sequence<kQueryTile>());
static_assert(kTileRows <= kQueryTile, "score terms keep kQueryTile per-row slots");
static_assert(F32Format::id == 0 && F16Format::id == 1 && Bf16Format::id == 2 && kFormatQ8 == 3, "KernelSet::kv is indexed by posenc::KVStorage");
}  // namespace

const KernelSet& POSENC_CAT(kernelSet_, POSENC_KERNEL_ISA)() noexcept { return kSet; }
}  // namespace posenc::kernels
