// Reading a Hugging Face config.json: the rotary setup a model's own modeling code derives from it —
// head dim, rotary channels, base, pairing layout, frequency schedule, multi-axis sections — per
// model_type, as transformers' modeling_*.py files read it (the table is in docs/hf-families.md).
// The one reader for C++ and JS (the JS `ropeConfigFromHF` passes the JSON text through).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "posenc/attention/temperature.hpp"
#include "posenc/rotary/apply.hpp"
#include "posenc/rotary/frequencies.hpp"

namespace posenc {

struct HfConfigOptions {
    // For configs with one rotary table per layer type (Gemma 3's 'sliding_attention' and
    // 'full_attention'; transformers' `rope_parameters` keyed by layer type): which one to return.
    // Empty with such a config is an error listing the layer types present.
    std::string layerType;
    // YaRN's factor when rope_scaling gives `factor` and also original_max_position_embeddings and
    // the config's max_position_embeddings disagree with it. 'explicit' (transformers >= 4.51 and
    // every other reader): the `factor` field. 'legacy' (transformers 4.46-4.50): the ratio
    // max_position_embeddings / original_max_position_embeddings replaces it.
    enum class YarnFactor { explicitField, legacy } yarnFactor = YarnFactor::explicitField;
    // Keys Hugging Face's code for the model type never reads (a nanotron `rope_interleaved`, Qwen2.5's
    // `use_mrope`, ...) are ignored and listed in HfRopeConfig::ignored and ::warnings; strict turns every
    // warning into an error.
    bool strict = false;
    // A model_type posenc does not know: an error naming the nearest known types (as Hugging Face's
    // AutoConfig refuses it), or `generic`: read with the Llama rules, unread rotary keys refused.
    // `generic` also reads a config without model_type without the warning it otherwise gets.
    enum class UnknownModelType { error, generic } unknownModelType = UnknownModelType::error;
};

// A config.json key the model type's Hugging Face code does not read, so neither does posenc.
struct HfIgnoredKey {
    std::string key;     // the config's own path, e.g. "config.use_mrope"
    std::string value;   // its JSON text, e.g. "false"
    std::string reason;  // why it has no effect
};

// One decoder layer's attention, as the model type's code builds it.
struct HfLayer {
    std::string type;          // "full_attention", "sliding_attention", "chunked_attention" (Llama 4)
    bool rope = true;          // false: a NoPE layer (Llama 4 / SmolLM3 no_rope_layers, Cohere2 global layers)
    int window = 0;            // sliding window in tokens (0 = none): keys with 0 <= qPos - kPos < window
    int chunk = 0;             // chunked attention: queries see keys of their own chunk of this many tokens
    bool temperature = false;  // HfRopeConfig::temperature scales this layer's queries
};

// The attention shape a caller needs next to the rotary table.
struct HfAttentionShape {
    int heads = 0;           // num_attention_heads (n_head, num_heads, n_heads)
    int kvHeads = 0;         // num_key_value_heads (num_kv_heads, multi_query = 1, attn_config.kv_n_heads); default heads
    int headDim = 0;         // q.k channels per head: head_dim, else hidden / heads (DeepSeek MLA: qk_nope + qk_rope)
    int slidingWindow = 0;   // the config's sliding window where some layer uses it (0 = none)
    std::vector<HfLayer> layers;  // one per num_hidden_layers (empty when the config does not give the count)
};

struct HfRopeConfig {
    RopeConfig rope;
    RopeLayout layout = RopeLayout::half;
    std::string modelType;  // the model_type the rules were chosen by ('' = none given: Llama rules)
    // The posenc option names this config sets itself (e.g. "partialRotaryFactor", "scaling.betaFast");
    // everything else in `rope` is posenc's default. The JS reader returns exactly these keys.
    std::vector<std::string> given;
    bool isGiven(std::string_view name) const;
    // Keys the model type's code ignores (empty under HfConfigOptions::strict, which refuses them).
    std::vector<HfIgnoredKey> ignored;
    // One sentence per thing the reading ignored or assumed, starting with the config's key: each ignored
    // key, and a missing model_type read with the Llama rules. Empty under strict, which refuses them.
    std::vector<std::string> warnings;
    // Query temperature (posenc/attention/temperature.hpp) of the layers whose HfLayer::temperature is set:
    // Ministral 3 every layer (llama_4_scaling_beta), Llama 4 its NoPE layers (attn_temperature_tuning).
    std::optional<TemperatureEncoding> temperature;
    HfAttentionShape attention;
};

// Parses `json` (the text of config.json) and returns the rotary setup. Throws std::invalid_argument
// (posenc::WrongType where a value has the wrong JSON type, for an unknown model_type and for a
// misspelt key) whose message names the config.json key to fix, e.g. "config.rope_scaling.factor must
// be a number >= 1 (got 0.5)", "config: unknown key 'rope_scalling': did you mean 'rope_scaling'? ...".
HfRopeConfig ropeConfigFromHF(std::string_view json, const HfConfigOptions& options = {});

// The reader's result as JSON text, as the JS API returns it: {"rope": {the options the config sets,
// posenc's names}, "ignored": [{key, value, reason}], "warnings": [text], "temperature": {kind, beta, length, offset} | null,
// "attention": {heads, kvHeads, headDim, slidingWindow, layers: [{type, rope, window, chunk, temperature}]}}.
std::string toJson(const HfRopeConfig& config);

}  // namespace posenc
