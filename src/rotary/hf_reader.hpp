// The config.json reader's entry for attentionConfigFromHF (src/attention/hf_plan.cpp): one decoder
// layer's reading, with the attention terms the model type's code applies besides RoPE. Private.
#pragma once
#include <string>
#include <string_view>

#include "common/json.hpp"
#include "posenc/rotary/hf_config.hpp"

namespace posenc::detail {

// What a family's attention code does to the logits besides rotating q and k (transformers
// modeling_<type>.py, the Attention class): docs/hf-families.md has the table.
struct HfAttentionTerms {
    bool rotary = true;      // false: no rotary table at all (Bloom, MPT)
    bool alibi = false;      // ALiBi with the paper's slopes, added to scale q.k unscaled (Bloom, MPT)
    bool causal = true;      // false: use_bidirectional_attention (Gemma)
    double scale = 0;        // the softmax scale the code multiplies q.k by
    std::string scaleRule;   // where it comes from, in the config's words: "query_pre_attn_scalar^-1/2 (224)"
    double softcap = 0;      // attn_logit_softcapping (Gemma 2); 0 = none
    bool sinkLogits = false; // a learned logit per head in the softmax (gpt-oss `sinks`)
    int valueDim = 0;        // value / output channels when they differ from q.k's (DeepSeek MLA: v_head_dim); 0 = headDim
    int rotaryOffset = 0;    // the first rotated channel (DeepSeek MLA: qk_nope_head_dim)
};

struct HfLayerReading {
    HfRopeConfig config;  // with the layer's rotary table (its layer type's, where the config has several)
    HfAttentionTerms terms;
    int layer = 0;
};

// Reads `json` for decoder layer `layer`. Throws as ropeConfigFromHF does; `layer` past the config's
// num_hidden_layers is an error naming both. options.layerType must be empty (the layer decides).
HfLayerReading readHfLayer(std::string_view json, int layer, const HfConfigOptions& options);

// The "rope" object of toJson(HfRopeConfig): the options the config sets, in posenc's names; with `kind`
// ("rope") first when given, as an encoding.
void writeRopeOptions(json::Writer& w, const HfRopeConfig& r, const char* kind = nullptr);

}  // namespace posenc::detail
