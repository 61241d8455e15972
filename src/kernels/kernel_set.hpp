// The SIMD kernels the library calls, as one table of function pointers per instruction set.
//
// The x86-64 library is compiled for the baseline (SSE2) and, in separate translation units with their
// own -m flags (kernel_set_isa.cpp), for SSE4.1, AVX2 + FMA and AVX-512; at first use the best set the
// CPU (and OS) supports is chosen, so the installed library runs on any x86-64 and uses the machine's
// widest vectors. POSENC_KERNELS=<name> in the environment, or posenc::useKernelSet(name), forces a set
// (benchmarks, tests). A wasm build, a -march=native build or another architecture holds one set.
// The code outside src/kernels/ is compiled once, with the default flags, and reaches every kernel
// through kernels::active(); nothing here depends on an instruction set.
#pragma once
#include <cstddef>
#include <cstdint>

#include "posenc/scores/score_term.hpp"  // kQueryTile

namespace posenc::kernels {

// The attention micro-kernels for each row count 1..tileRows, reached through function pointers: an
// indirect call cannot be inlined (binaryen inlines single-caller functions whatever the source says),
// so each micro-kernel stays a small function of its own and V8 keeps its accumulators in registers
// (inlined into the engine's large loop they were spilled to the stack, at ~1.6x the time).
// Keys and values are read in their stored format (kernels/kv_format.hpp: f32, f16, bf16, q8), hence void*.
using ScoreTileFn = void (*)(const float*, const void*, std::size_t, float*, std::size_t) noexcept;
using ValueTileFn = void (*)(const float*, std::size_t, const void*, std::size_t, float*, const float*) noexcept;

constexpr int kKVFormats = 4;  // posenc::KVStorage: f32, f16, bf16, q8

// The score and value micro-kernels of one stored format, for each row count.
struct KVTileKernels {
    ScoreTileFn score[kQueryTile];  // [rows - 1], rows = 1..tileRows
    ValueTileFn value[kQueryTile];
};
using SoftmaxTileFn = bool (*)(float*, std::size_t, const bool*, float*, float*, float*) noexcept;

struct KernelSet {
    const char* name;
    std::size_t tileRows;          // query rows per attention tile (<= kQueryTile)
    std::size_t floatLanes;        // floats per vector
    KVTileKernels kv[kKVFormats];        // by the keys' / the values' stored format
    SoftmaxTileFn softmaxTile[kQueryTile];
    void (*axpy)(float, const float*, float*, std::size_t) noexcept;
    float (*dot)(const float*, const float*, std::size_t) noexcept;
    bool (*allFinite)(const float*, std::size_t) noexcept;
    void (*sinCos)(double, const double*, std::size_t, double*, double*) noexcept;
    void (*advance)(double*, double*, const double*, const double*, std::size_t) noexcept;
    void (*rotateHalf)(float*, const float*, const float*, const float*, std::size_t) noexcept;  // (dst, src, cos, sin, pairs)
    void (*rotateInterleaved)(float*, const float*, const float*, const float*, std::size_t) noexcept;
    // ALiBi: s[t] += float(negSlope * (qPos - kPos[t])), |..| when symmetric (kernels/bias.hpp)
    void (*linearBias)(float*, const std::int32_t*, std::size_t, std::int32_t, double, bool) noexcept;
    // Gemma 2's logit soft-capping: s = cap * tanh(s / cap) on (s, rows, n, cap): rows of n scores, kKeyBlock
    // floats apart (kernels/softcap.hpp)
    void (*softcap)(float*, std::size_t, std::size_t, float) noexcept;
    // Stick-breaking attention's sigmoids on (s, rest, rows, n): s <- σ(s), rest <- 1 − σ(s), rows of n
    // logits kKeyBlock floats apart (kernels/stick.hpp)
    void (*stickSigmoids)(float*, float*, std::size_t, std::size_t) noexcept;
};

// The set in use (chosen once, at first call, unless forced since).
const KernelSet& active() noexcept;

}  // namespace posenc::kernels
