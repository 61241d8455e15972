// The checked entry point: multi-head attention with any positional encoding (attention/encoding.hpp),
// or a combination, on the engine (attention/engine.hpp). The rotary part is applied here: copies of q
// and k are rotated at their positions (per axis for multi-axis RoPE), then the engine adds the score terms.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "posenc/attention/encoding.hpp"
#include "posenc/attention/engine.hpp"
#include "posenc/common/view.hpp"

namespace posenc {

struct AttentionRequest {
    AttentionDims dims;            // dims.valueDim: v's and out's channels (DeepSeek MLA); 0 = headDim
    View<float> q;                 // [heads, qLen, headDim]
    View<float> k;                 // [kvHeads, kLen, headDim]
    View<float> v;                 // [kvHeads, kLen, valueDim] (headDim when valueDim is 0)
    View<std::int32_t> qPositions; // [qLen]; empty = the last qLen key positions ([axes, qLen] with multi-axis RoPE)
    View<std::int32_t> kPositions; // [kLen]; empty = 0..kLen-1 ([axes, kLen] with multi-axis RoPE)
    // Multi-axis RoPE only (M-RoPE, 2-D axial): the sequence index of each key [kLen], which the causal /
    // window masks and score terms use, as Hugging Face masks by cache position; queries take the last
    // qLen. Empty = 0..kLen-1. Rotation uses q/kPositions' axis rows.
    View<std::int32_t> maskPositions;
    bool causal = false;
    int window = 0;                // 0 = none
    int chunk = 0;                 // 0 = none; else a query sees only keys of its own chunk, pos / chunk (Llama 4)
    View<std::uint8_t> keyMask;    // [kLen], 1 = attend; empty = all
    double scale = std::numeric_limits<double>::quiet_NaN();  // NaN = the encoding's default
    Encoding encoding;
    // [heads], or empty: learned per-head logits in every row's softmax denominator that weigh no value
    // (gpt-oss's `sinks`: softmax(cat(scores, sink))[..., :-1]). Not the KV cache's `sinks` token count.
    View<float> sinkLogits;
    // Gemma 2's attn_logit_softcapping: each logit (scale q.k plus any score terms) becomes
    // softcap * tanh(logit / softcap) before the mask. A positive finite number; empty = none.
    std::optional<double> softcap;
    // K and V as f16 or bf16 bit patterns (the layout browser runtimes hand over fp16 tensors in): kvType
    // set, kBits / vBits [kvHeads, kLen, headDim] in place of k / v (which stay empty). The result is
    // attention over the floats the bits stand for, bit for bit; the engine reads the values (and, unless
    // RoPE rotates copies of the keys in float, the keys) in that format, without a float copy.
    std::optional<KVType> kvType;
    View<std::uint16_t> kBits, vBits;
};

struct AttentionResult {
    std::vector<float> out, weights, scores;
};

// Validates everything, then runs the engine. Outputs are caller buffers of the documented sizes
// (out [heads, qLen, valueDim], valueDim = headDim unless given; weights/scores [heads, qLen, kLen],
// may be null).
void attention(const AttentionRequest& r, float* out, float* weights = nullptr, float* scores = nullptr);
AttentionResult attention(const AttentionRequest& r, bool returnWeights = false, bool returnScores = false);

// [heads, Tq, Tk] bias of a scalar-bias encoding (alibi, t5, swin, kerple, fire, or a combination of
// them). ALiBi gives the paper form -m(i-j).
std::vector<float> attentionBias(const Encoding& e, int heads, const std::vector<std::int32_t>& qPositions,
                                 const std::vector<std::int32_t>& kPositions);
void attentionBias(const Encoding& e, int heads, View<std::int32_t> qPositions, View<std::int32_t> kPositions, float* out);

}  // namespace posenc
