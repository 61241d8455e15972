// RoPE frequency schedules: which angle each rotary pair turns by per position, and the attention
// scale folded into cos/sin. Names follow Hugging Face `modeling_rope_utils`; where llama.cpp/ggml
// computes differently, `RopeConvention::ggml` reproduces ggml.
#pragma once
#include <cstdint>
#include <string>
#include <limits>
#include <vector>

namespace posenc {

enum class RopeScalingType { none, linear, ntk, dynamic, yarn, llama3, longrope };
enum class RopeConvention { hf, ggml };

// Which fields each type takes and requires is the registry's 'scaling' table (posenc/registry.hpp):
// a field left at its initialiser counts as not given, and ropeFrequencies refuses a required field not
// given or a field given to a type that does not take it.
struct RopeScaling {
    RopeScalingType type = RopeScalingType::none;
    // >= 1; required by every type but longrope (NaN = not given; longrope then takes 1)
    double factor = std::numeric_limits<double>::quiet_NaN();
    std::int64_t originalMaxPositionEmbeddings = 0;  // L0 / Lmax; required by dynamic, yarn, llama3, longrope
    // YaRN
    double betaFast = 32.0;
    double betaSlow = 1.0;
    double mscale = 1.0;
    double mscaleAllDim = 0.0;  // 0 = unset
    bool truncate = true;
    // YaRN / longrope: an explicit attention factor (NaN = derive it)
    double attentionFactor = std::numeric_limits<double>::quiet_NaN();
    // llama3: both required (NaN = not given), as in Hugging Face (no default) and posenc's JS API
    double lowFreqFactor = std::numeric_limits<double>::quiet_NaN();
    double highFreqFactor = std::numeric_limits<double>::quiet_NaN();
    // longrope: one factor per rotary pair
    std::vector<double> shortFactor;
    std::vector<double> longFactor;
};

// Several position axes, each driving its own rotary pairs (positions come as [axes, tokens]).
enum class MultiAxis {
    none,
    mrope,    // Qwen2-VL M-RoPE: `sections` (t, h, w) split the R/2 pairs in order; default frequencies
    axial2d,  // 2-D axial RoPE for image patches (RoPE-ViT): first R/4 pairs follow axis 0 (x),
              // the next R/4 axis 1 (y), each with w_k = base^(-4k/R)
    liere,    // Lie-group RoPE (LieRE, Ostmeier et al. 2024): blocks of `blockSize` channels rotate by
              // exp(sum_a p_a G_a) from skew-symmetric generators G [axes, blocks, b, b] (RopeConfig::generators)
};

// p-RoPE (Barbero et al. 2025): which end of the spectrum keeps its frequency when frequencyFraction < 1.
enum class KeptFrequencies {
    high,  // pairs 0 .. k-1 (the highest frequencies) rotate, the lowest are truncated: the paper's p-RoPE, HF 'proportional'
    low,   // pairs R/2-k .. R/2-1 (the lowest frequencies) rotate, the highest are truncated
};

struct RopeConfig {
    int headDim = 0;
    double base = 10000.0;
    double partialRotaryFactor = 1.0;
    // The first rotated channel: channels [rotaryOffset, rotaryOffset + rotaryDim) rotate, in either
    // layout, and the rest pass through. 0 = the leading channels (every model but MLA); DeepSeek V2/V3 /
    // Kimi K2 (MLA) rotate the trailing qk_rope_head_dim channels of a head of qk_nope_head_dim +
    // qk_rope_head_dim: rotaryOffset = qk_nope_head_dim, partialRotaryFactor = rope / (nope + rope).
    int rotaryOffset = 0;
    RopeScaling scaling;
    std::int64_t seqLen = 0;  // dynamic NTK and longrope choose by it; 0 = unknown
    RopeConvention convention = RopeConvention::hf;
    MultiAxis multiAxis = MultiAxis::none;
    std::vector<int> sections;   // mrope: pairs per axis, summing to rotaryDim/2
    // mrope: Qwen3-VL's interleaved assignment (HF apply_interleaved_mrope) instead of contiguous
    // sections: pair k follows axis 1 when k % 3 == 1 and k < 3 * sections[1], axis 2 when
    // k % 3 == 2 and k < 3 * sections[2], else axis 0. Needs three sections.
    bool mropeInterleaved = false;
    double xposScaleBase = 0;    // xPos (Sun et al. 2022) when > 0: gamma, typically 512
    // p-RoPE (Barbero et al. 2025, "Round and Round We Go!"): only k = floor(frequencyFraction * R / 2)
    // of the R/2 rotary pairs keep their frequency (the schedule's, computed over the whole rotary width);
    // the others get frequency 0 and pass through unrotated, in place: the pairing stays the layout's
    // over all R channels. With partialRotaryFactor 1 and the half layout this is Hugging Face's
    // rope_type 'proportional' (modeling_rope_utils._compute_proportional_rope_parameters, Gemma 4).
    // Unlike partialRotaryFactor, which rotates the leading R channels with frequencies base^(-2i/R)
    // and pairs (i, i + R/2), the exponents here run over the full width. In [0, 1]; 1 = off.
    double frequencyFraction = 1.0;
    KeptFrequencies keptFrequencies = KeptFrequencies::high;
    // LieRE (multiAxis liere): channels [rotaryOffset, rotaryOffset + R) in blocks of blockSize b (b
    // divides R); generators [axes, R/b, b, b] row-major, each b x b block skew-symmetric (see
    // ropeFrequencies for the tolerance); block j of a head vector x turns into exp(sum_a p_a G[a, j]) x_j.
    std::vector<float> generators;
    int blockSize = 0;           // 0 = unset (required by liere, >= 2)
};

struct RopeFrequencies {
    std::vector<double> invFreq;  // rotaryDim/2 angular frequencies (radians per position)
    double attentionScale = 1.0;  // multiplies cos and sin (HF attention_scaling, ggml mscale)
    int rotaryDim = 0;            // channels [rotaryOffset, rotaryOffset + rotaryDim) rotate; the rest pass through
    int rotaryOffset = 0;         // RopeConfig::rotaryOffset
    int axes = 1;                 // position axes (multi-axis RoPE)
    std::vector<int> axisOfPair;  // [rotaryDim/2] axis driving each pair; empty = axis 0
    // xPos: pair k of a query at position p is scaled by zeta_k^(p/gamma), of a key by zeta_k^(-p/gamma),
    // zeta_k = (2k + 0.4 R) / (1.4 R) (torchscale XPOS). Empty = off.
    std::vector<double> xposZeta;
    double xposScaleBase = 0;
    // xPos scales q and k separately, so zeta_0^(p/gamma) leaves float range long before their product
    // zeta^((m-n)/gamma) does: positions (and deltas) are limited to |p| <= xposMaxPosition, where the
    // scales stay within e^(+-80) (63.8 gamma). Beyond it a call is a RangeError, never a NaN.
    std::int64_t xposMaxPosition = 0;
    // LieRE: block size b (0 = off) and the generators [axes, rotaryDim/b, b, b] in double, made exactly
    // skew-symmetric ((G - G^T) / 2). invFreq is then all zeros (unused) and axisOfPair empty.
    int blockSize = 0;
    std::vector<double> generators;
    // Whether every pair of axes' generators commutes, block by block (|[G_a, G_c]| within 1e-9 of
    // |G_a| |G_c| b): only then is exp(sum_a p_a G_a) a function of positions whose scores depend on p - p'
    // alone, and moving every axis by one delta one rotation (the KV cache's shift / renumber).
    bool generatorsCommute = true;
};

// exp(A) of a b x b matrix (row-major, double): scaling and squaring around a Taylor core (A / 2^s with
// norm <= 1/2, terms to double precision). Used for LieRE's rotations; exposed for its tests.
void matrixExp(const double* A, int b, double* out);

// Throws std::invalid_argument naming `field` when xPos is on and a position or delta lies beyond
// f.xposMaxPosition.
void requireXposRange(const RopeFrequencies& f, const std::int32_t* positions, std::size_t n, const std::string& field);
void requireXposRange(const RopeFrequencies& f, const std::int64_t* deltas, std::size_t n, const std::string& field);

// R = int(headDim * partialRotaryFactor), truncating as HF does. Throws on an odd or zero R.
int rotaryDimOf(int headDim, double partialRotaryFactor);

RopeFrequencies ropeFrequencies(const RopeConfig& config);

}  // namespace posenc
