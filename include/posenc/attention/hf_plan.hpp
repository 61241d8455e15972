// One decoder layer's attention, planned from a Hugging Face config.json: everything `attention`, a
// KVCache and its `attend` need to compute that layer as the model's own transformers code does — head
// counts, the softmax scale, the rotary table of the layer's type (or NoPE), the query temperature, the
// sliding window or chunk, ALiBi, logit soft-capping, and which learned tensors besides q, k and v the
// caller must bring (gpt-oss's sink logits). Read by the config reader (posenc/rotary/hf_config.hpp);
// per family in docs/hf-families.md. The JS `pe.attentionConfigFromHF` passes the JSON text through.
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "posenc/attention/attention.hpp"
#include "posenc/cache/kv_cache.hpp"
#include "posenc/rotary/hf_config.hpp"

namespace posenc {

// What KVCache::attend takes besides q and its positions.
struct AttendPlan {
    int heads = 0;
    double scale = std::numeric_limits<double>::quiet_NaN();
    Encoding encoding;              // on top of the cache's own rope: the query temperature, ALiBi, or none
    std::optional<double> softcap;  // Gemma 2's attn_logit_softcapping
};

struct AttentionPlan {
    int layer = 0;
    HfLayer layerInfo;       // the reader's entry for the layer: type, rope (false = NoPE), window, chunk, temperature
    std::string modelType;
    // An attention request to complete with q, k, v, qLen, kLen (and positions, key mask, sink logits):
    // dims.heads / kvHeads / headDim, causal, scale (always explicit), encoding, window, chunk, softcap.
    AttentionRequest attention;
    // A cache configuration to complete with capacity (and batch, sinks): kvHeads, headDim, rope (absent
    // on NoPE and ALiBi layers), window, chunk (with window = chunk: the cache holds one chunk, as HF's).
    KVCacheConfig cache;
    AttendPlan attend;
    // Checkpoint tensors the layer needs besides q, k and v: "sinkLogits" (gpt-oss's per-head `sinks`).
    std::vector<std::string> requires;
    std::string scaleRule;   // where the scale comes from: "head_dim^-1/2 (head_dim 128)", "query_pre_attn_scalar^-1/2 (224)"
    HfRopeConfig reading;    // the reader's result for this layer (its rope table is the layer type's)
};

// Reads `json` (config.json text) for decoder layer `layer` (0-based). Throws std::invalid_argument
// (posenc::WrongType for JSON of the wrong type) naming the config key: a layer past num_hidden_layers
// names `layer` and num_hidden_layers; a family whose attention posenc cannot reproduce names the key
// that makes it so (Falcon's `alibi`, ...). options.layerType must be empty: the layer picks its table.
AttentionPlan attentionConfigFromHF(std::string_view json, int layer, const HfConfigOptions& options = {});

// The plan as JSON text, as the JS API returns it: {"layer": {index, type, rope, window, chunk,
// temperature}, "modelType", "attention": {heads, kvHeads, headDim, causal, scale, encoding, window?,
// chunk?, softcap?}, "cache": {kvHeads, headDim, rope?, window?, chunk?}, "attend": {heads, scale,
// encoding?, softcap?}, "requires": [...], "scaleRule", "ignored": [...], "warnings": [...]}; encodings
// as the JS options objects ({kind: 'rope', ...}, {kind: 'temperature', ...}, {kind: 'alibi', heads},
// {kind: 'none'}, or an array of them).
std::string toJson(const AttentionPlan& plan);

}  // namespace posenc
