// Reading a Hugging Face config.json: the rotary setup a model's own modeling code derives from it —
// head dim, rotary channels, base, pairing layout, frequency schedule, multi-axis sections — per
// model_type, as transformers' modeling_*.py files read it (the table is in docs/hf-families.md).
// The one reader for C++ and JS (the JS `ropeConfigFromHF` passes the JSON text through).
#pragma once
#include <string>
#include <string_view>
#include <vector>

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
};

struct HfRopeConfig {
    RopeConfig rope;
    RopeLayout layout = RopeLayout::half;
    std::string modelType;  // the model_type the rules were chosen by ('' = none given: Llama rules)
    // The posenc option names this config sets itself (e.g. "partialRotaryFactor", "scaling.betaFast");
    // everything else in `rope` is posenc's default. The JS reader returns exactly these keys.
    std::vector<std::string> given;
    bool isGiven(std::string_view name) const;
};

// Parses `json` (the text of config.json) and returns the rotary setup. Throws std::invalid_argument
// (posenc::WrongType where a value has the wrong JSON type) whose message names the config.json key
// to fix, e.g. "config.rope_scaling.factor must be a number >= 1 (got 0.5)".
HfRopeConfig ropeConfigFromHF(std::string_view json, const HfConfigOptions& options = {});

}  // namespace posenc
