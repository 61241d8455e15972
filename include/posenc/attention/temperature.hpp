// Position-dependent query temperature (Nakanishi 2025, "Scalable-Softmax", arXiv 2501.19399, in the
// form Llama 4 and Ministral 3 use it): each query is multiplied by
//   s(p) = 1 + beta * ln(1 + floor((p + offset) / length))
// at its logical position p, after any rotation and before q.k. It is 1 for p + offset < length and
// grows logarithmically after, keeping attention selective at long positions.
//   Ministral 3 (HF modeling_ministral3 `_get_llama_4_attn_scale`): beta = llama_4_scaling_beta,
//     length = original_max_position_embeddings of the rope parameters, offset 0.
//   Llama 4 (HF modeling_llama4, `attn_temperature_tuning` on NoPE layers): beta = attn_scale,
//     length = floor_scale, offset 1.
// posenc forms the floor with integers (exact at every position) and the logarithm in double; HF
// divides in float32, which differs only where p + offset > 2^24 lies within float rounding of a
// multiple of length.
#pragma once
#include <cstdint>
#include <string>

namespace posenc {

struct TemperatureEncoding {
    double beta = 0;           // finite; 0 leaves queries unchanged
    std::int64_t length = 0;   // >= 1 positions per step of the floor
    std::int64_t offset = 0;   // >= 0, added to the position first (Llama 4: 1)
};

// Throws std::invalid_argument naming `prefix + field` for a beta that is not finite, a length < 1 or an
// offset < 0 (or one that, with a position up to 2^31 - 1, would not fit 63 bits).
void validateTemperature(const TemperatureEncoding& t, const std::string& prefix = "encoding.");

// s(p) for a position p >= 0.
double queryTemperature(const TemperatureEncoding& t, std::int64_t position);

// Multiplies each query row q[h, i, :] by s(positions[i]) (q is [heads, qLen, headDim]).
void applyQueryTemperature(const TemperatureEncoding& t, float* q, int heads, int qLen, int headDim, const std::int32_t* positions);

}  // namespace posenc
