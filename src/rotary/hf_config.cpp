// The config.json reader. Every rule below is what a transformers modeling_*.py (or, for remote-code
// models, the model's own code) does with the field; docs/hf-families.md is the table, per model_type.
#include "posenc/rotary/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iterator>
#include <optional>
#include <string_view>

#include "common/edit_distance.hpp"
#include "common/json.hpp"
#include "encodings/kind_spec.hpp"
#include "rotary/hf_reader.hpp"
#include "posenc/common/errors.hpp"
#include "posenc/registry.hpp"

namespace posenc {
namespace {

using Json = json::Value;

// --- the per-family rules -------------------------------------------------------------------------
// What a family's modeling code does differently from Llama's (rotate_half over all head channels, base
// config.rope_theta, default 10000). Unknown model types follow Llama. Each rule names the construct it
// comes from; docs/hf-families.md is the same table for readers.
enum class LayerTables { one, gemma3, modernbert };

struct Family {
    std::string_view modelType;
    RopeLayout layout = RopeLayout::half;
    double rotaryFraction = 1.0;   // the config class's default when the config gives no rotary field
    int rotaryDim = 0;             // GPT-J / CodeGen: the class's default rotary_dim (channels)
    double baseDefault = 10000;    // the class's rope_theta default; NaN = it differs between transformers versions
    int headDimDefault = 0;        // the class's head_dim default (used when config.json has none); 0 = hidden / heads
    std::string_view interleaveFlag;  // a boolean field choosing interleaved pairs, default interleaveFlagDefault
    bool interleaveFlagDefault = false;
    bool fixedBase = false;        // the code fixes base 10000 and reads no rope_theta / rope_scaling
    std::string_view nestedBase;      // "attn_config": rope_theta lives there (DBRX)
    LayerTables tables = LayerTables::one;
    bool yarnMeansLongrope = false;    // Phi-3: rope_scaling type 'su' or 'yarn' is rewritten to 'longrope'
    bool topLevelOriginal = false;     // Phi-3: config.original_max_position_embeddings wins over rope_scaling's
    int mropeDefault[3] = {};          // Qwen3-VL: mrope_section's default (t, h, w)
    bool mropeInterleaved = false;     // Qwen3-VL: always apply_interleaved_mrope
    std::string_view nopeLayers;          // which layers skip RoPE (documented; the table is the rotating layers')
    std::string_view notRotary;           // set: this model type has no rotary embedding at all (why)
    bool llama4Beta = false;           // Ministral 3: rope_parameters.llama_4_scaling_beta is a query temperature

    constexpr Family(const char* type) : modelType(type) {}
    constexpr Family& interleaved() { layout = RopeLayout::interleaved; return *this; }
    constexpr Family& fraction(double f) { rotaryFraction = f; return *this; }
    constexpr Family& dimDefault(int d) { rotaryDim = d; return *this; }
    constexpr Family& base(double b) { baseDefault = b; return *this; }
    constexpr Family& headDim(int d) { headDimDefault = d; return *this; }
    constexpr Family& interleaveBy(const char* flag, bool dflt) { interleaveFlag = flag; interleaveFlagDefault = dflt; return *this; }
    constexpr Family& baseFixed() { fixedBase = true; return *this; }
    constexpr Family& baseIn(const char* holder) { nestedBase = holder; return *this; }
    constexpr Family& perLayer(LayerTables t) { tables = t; return *this; }
    constexpr Family& phi3() { yarnMeansLongrope = topLevelOriginal = true; return *this; }
    constexpr Family& mrope(int t, int h, int w, bool inter) { mropeDefault[0] = t, mropeDefault[1] = h, mropeDefault[2] = w; mropeInterleaved = inter; return *this; }
    constexpr Family& nope(const char* which) { nopeLayers = which; return *this; }
    constexpr Family& none(const char* why) { notRotary = why; return *this; }
    constexpr Family& queryTemperatureBeta() { llama4Beta = true; return *this; }
};

constexpr double kVersionDependent = std::numeric_limits<double>::quiet_NaN();

// A constant table (data, not code that builds it: docs/package-size.md).
constexpr Family kFamilies[] = {
    // GPT-J / CodeGen: rotate_every_two over rotary_dim (default 64) channels; base 10000 in the code.
    Family("gptj").interleaved().dimDefault(64).baseFixed(),
    Family("codegen").interleaved().dimDefault(64).baseFixed(),
    // Cohere: repeat_interleave of the frequencies, rotate on (even, odd) channels. Default theta
    // 10000 in transformers 4.x, 500000 in 5.x. Cohere2: no RoPE on its full-attention layers.
    Family("cohere").interleaved().base(kVersionDependent),
    Family("cohere2").interleaved().nope("full_attention"),
    // DeepSeek: a rope head of qk_rope_head_dim channels; V2 view_as_complex on (2i, 2i+1); V3
    // apply_rotary_pos_emb_interleave when rope_interleave (default true).
    Family("deepseek_v2").interleaved(),
    Family("deepseek_v3").interleaveBy("rope_interleave", true),
    // GLM / GLM-4 (dense), Moonshine: cos/sin repeat_interleave'd over the first half of the head.
    // GLM-4.5 MoE rotates the same half with rotate_half.
    Family("glm").interleaved().fraction(0.5).headDim(128),
    Family("glm4").interleaved().fraction(0.5).headDim(128),
    Family("glm4_moe").fraction(0.5),
    Family("moonshine").interleaved().fraction(0.9),
    // Helium: rotate_half on (0::2, 1::2) with repeat_interleave'd cos/sin; Llama 4: view_as_complex.
    Family("helium").interleaved().base(100000).headDim(128),
    Family("llama4").interleaved().base(500000).nope("no_rope_layers[i] = 0"),
    Family("llama4_text").interleaved().base(500000).nope("no_rope_layers[i] = 0"),
    // rotate_half over a leading fraction of the channels
    Family("gpt_neox").fraction(0.25),
    Family("gpt_neox_japanese"),
    Family("phi").fraction(0.5),
    Family("stablelm").fraction(0.25),
    Family("stablelm_epoch"),  // remote code: rope_pct (no default known: the config gives it)
    Family("persimmon").fraction(0.5).base(kVersionDependent),  // theta 25000 in 4.x, 10000 in 5.x
    Family("fuyu").fraction(0.5).base(kVersionDependent),
    Family("nemotron").fraction(0.5),
    // Phi-3 / Phi-3.5 / Phi-4-mini: longrope ('su' and 'yarn' read as longrope); PhiMoE likewise.
    Family("phi3").phi3(),
    Family("phimoe").phi3().base(1e6),
    // theta and head_dim defaults of the config classes
    Family("mixtral").base(1e6),
    Family("qwen2_vl").base(1e6),
    Family("qwen2_5_vl").base(1e6),
    Family("qwen2_5_vl_text").base(1e6),
    Family("qwen2_vl_text").base(1e6),
    Family("qwen3").headDim(128),
    Family("qwen3_vl").base(5e6).headDim(128).mrope(24, 20, 20, true),
    Family("qwen3_vl_text").base(5e6).headDim(128).mrope(24, 20, 20, true),
    Family("qwen3_vl_moe").base(5e6).headDim(128).mrope(24, 20, 20, true),
    Family("qwen3_vl_moe_text").base(5e6).headDim(128).mrope(24, 20, 20, true),
    Family("gemma").headDim(256),
    Family("gemma2").headDim(256),
    Family("gemma3").headDim(256).base(1e6).perLayer(LayerTables::gemma3),
    Family("gemma3_text").headDim(256).base(1e6).perLayer(LayerTables::gemma3),
    Family("modernbert").perLayer(LayerTables::modernbert),
    Family("gpt_oss").base(150000).headDim(64),
    Family("olmo3").base(500000),
    Family("exaone4").nope("full_attention, when sliding_window is set"),
    Family("smollm3").nope("no_rope_layers[i] = 0"),
    Family("dbrx").baseIn("attn_config"),
    // Ministral 3 (Mistral 3's text model): Llama rules plus a query temperature (modeling_ministral3)
    Family("ministral3").queryTemperatureBeta(),
    // model types whose positions are not rotary at all: reading them as Llama would be wrong
    Family("bloom").none("uses ALiBi, not a rotary embedding"),
    Family("mpt").none("uses ALiBi (or learned positions), not a rotary embedding"),
    Family("gpt2").none("uses learned absolute positions, not a rotary embedding"),
    Family("gpt_bigcode").none("uses learned absolute positions, not a rotary embedding"),
    Family("opt").none("uses learned absolute positions, not a rotary embedding"),
    Family("bert").none("uses learned absolute positions, not a rotary embedding"),
    Family("roberta").none("uses learned absolute positions, not a rotary embedding"),
    Family("t5").none("uses T5 relative buckets, not a rotary embedding"),
    Family("bart").none("uses learned absolute positions, not a rotary embedding"),
    Family("jamba").none("has no positional encoding (its Mamba layers carry order)"),
};

// Model types that follow the Llama rules by their own code (docs/hf-families.md). With these and the
// table above, the reader knows which keys the type's code reads, so it can ignore the others as
// Hugging Face does. Any other model_type is an error unless HfConfigOptions::unknownModelType says
// to read it generically (then an unread rotary key stays an error).
constexpr const char* kLlamaRules[] = {"llama", "mistral", "qwen2", "qwen2_moe", "qwen3_moe", "granite", "granitemoe", "olmo", "olmo2",
                                       "starcoder2", "falcon", "chameleon", "internlm2", "exaone", "mllama", "ministral"};

// Multimodal config classes that fill in their text_config's model_type when it is left out
// (LlavaConfig, Mistral3Config, ... `text_config.get("model_type", ...)`): the type the text model is.
struct Wrapper {
    const char* type;
    const char* textType;
};
constexpr Wrapper kWrappers[] = {{"llava", "llama"}, {"llava_next", "llama"}, {"llava_onevision", "qwen2"}, {"mistral3", "mistral"}, {"paligemma", "gemma"}};

bool knownModelType(const std::string& modelType) {
    for (const Family& f : kFamilies)
        if (modelType == f.modelType) return true;
    return std::any_of(std::begin(kLlamaRules), std::end(kLlamaRules), [&](const char* t) { return modelType == t; });
}

const Family& familyOf(const std::string& modelType) {
    static const Family llama("llama");
    for (const Family& f : kFamilies)
        if (modelType == f.modelType) return f;
    return llama;
}

std::string lowerCase(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// " Did you mean 'deepseek_v3'?": the known model types nearest to an unknown one ("" when none is close).
std::string nearestModelTypes(const std::string& type) {
    std::vector<std::string_view> names;
    for (const Family& f : kFamilies) names.push_back(f.modelType);
    names.insert(names.end(), std::begin(kLlamaRules), std::end(kLlamaRules));
    for (const Wrapper& w : kWrappers) names.emplace_back(w.type);
    const std::string t = lowerCase(type);
    std::size_t best = std::max<std::size_t>(2, t.size() / 3);  // further than this is no suggestion
    std::vector<std::string_view> nearest;
    for (std::string_view n : names) {
        if (t.size() > n.size() + best || t.size() + best < n.size()) continue;  // at least that many edits
        const std::size_t d = editDistance(t, n);
        if (d > best) continue;
        if (d < best) best = d, nearest.clear();
        if (std::find(nearest.begin(), nearest.end(), n) == nearest.end()) nearest.push_back(n);
    }
    std::sort(nearest.begin(), nearest.end());
    if (nearest.size() > 3) nearest.resize(3);
    std::string out;
    for (std::size_t i = 0; i < nearest.size(); ++i) out += (i == 0 ? " Did you mean '" : i + 1 == nearest.size() ? " or '" : ", '") + std::string(nearest[i]) + "'";
    return out.empty() ? out : out + "?";
}

// --- misspelt keys -------------------------------------------------------------------------------
// Hugging Face loads a config.json with a misspelt key and ignores it: `rope_scalling` silently drops the
// scaling. posenc refuses a key that is no key any model type's config uses yet lies a few edits from a
// key this model type's code reads (case ignored): one edit for names shorter than 14 characters, two for
// longer ones. A real key of another family (SmolLM2's `rope_interleaved`, one edit from
// `mrope_interleaved`) is never taken for a misspelling: it goes through the ignored-key rules instead.

// Top-level keys the reader reads for every model type.
constexpr const char* kReadByAll[] = {
    "model_type", "text_config", "hidden_size", "n_embd", "d_model", "num_attention_heads", "n_head", "num_heads", "n_heads",
    "num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num", "multi_query", "attn_config", "head_dim",
    "qk_nope_head_dim", "qk_rope_head_dim", "num_hidden_layers", "n_layer", "n_layers", "num_layers", "layer_types", "sliding_window",
    "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "rotary_pct", "rope_pct", "rotary_dim", "rotary_emb_base",
    "max_position_embeddings", "original_max_position_embeddings", "mrope_interleaved"};
// Top-level keys read for some model types only (Reader::readsKey says which).
constexpr const char* kReadBySome[] = {
    "rope_interleave", "rope_local_base_freq", "sliding_window_pattern", "global_rope_theta", "local_rope_theta", "no_rope_layers",
    "no_rope_layer_interval", "attn_temperature_tuning", "attn_scale", "floor_scale", "attention_chunk_size", "use_sliding_window",
    "max_window_layers", "alibi", "query_pre_attn_scalar", "attn_logit_softcapping", "attention_multiplier", "use_bidirectional_attention",
    "new_decoder_architecture"};
// Keys published configs carry that lie within the edit limit of a key read above, and are not
// misspellings of it: SmolLM2's rope_interleaved, Qwen2.5's use_mrope, StableLM-epoch's rotary_scaling_factor,
// DeepSeek's v_head_dim, Transformer-XL's d_head, Bloom's n_embed, vision models' hidden_sizes,
// Falcon's n_head_kv, Gemma 2's sliding_window_size, OpenELM's num_query_heads, Nomic's rotary_emb_fraction.
constexpr const char* kOtherFamiliesKeys[] = {
    "rope_interleaved", "use_mrope", "rotary_scaling_factor", "v_head_dim", "d_head", "n_embed", "hidden_sizes", "n_head_kv",
    "sliding_window_size", "num_query_heads", "rotary_emb_fraction"};

bool isMisspelling(std::string_view key, std::string_view known) {
    const std::size_t limit = known.size() < 14 ? 1 : 2;
    // lengths further apart than the limit are too (and a huge key costs no quadratic table)
    if (key.size() > known.size() + limit || key.size() + limit < known.size()) return false;
    return editDistance(lowerCase(key), known) <= limit;
}

// --- JSON access that names the key --------------------------------------------------------------
std::string describeJson(const Json& v) {
    switch (v.type()) {
        case Json::Type::null: return "null";
        case Json::Type::boolean: return v.boolean() ? "true" : "false";
        case Json::Type::string: return "'" + v.text() + "'";
        case Json::Type::array: return "an array";
        case Json::Type::object: return "an object";
        case Json::Type::number: break;
    }
    return v.text();  // a number, as the config writes it
}

// A key that is absent or null: Hugging Face treats a null rope_scaling field as absent.
const Json* find(const Json& obj, const std::string& key) {
    const Json* v = obj.find(key);
    return v && !v->isNull() ? v : nullptr;
}

double number(const Json& v, const std::string& path) {
    if (!v.isNumber()) failType(path, "must be a number (got " + describeJson(v) + ")");
    return v.number();
}

std::int64_t positiveInteger(const Json& v, const std::string& path) {
    const double x = number(v, path);
    if (!(x >= 1) || x != std::floor(x) || x > 9007199254740991.0) fail(path, "must be a positive integer (got " + show(x) + ")");
    return static_cast<std::int64_t>(x);
}

// A size that posenc bounds (posenc/common/limits.hpp), named by the config's key when past the limit.
int boundedSize(std::int64_t n, const std::string& path, int max) {
    if (n > max) fail(path, "(" + std::to_string(n) + ") is past posenc's limit of " + std::to_string(max));
    return static_cast<int>(n);
}

std::string string(const Json& v, const std::string& path) {
    if (!v.isString()) failType(path, "must be a string (got " + describeJson(v) + ")");
    return v.text();
}

bool boolean(const Json& v, const std::string& path) {
    if (!v.isBoolean()) failType(path, "must be true or false (got " + describeJson(v) + ")");
    return v.boolean();
}

std::vector<double> numberList(const Json& v, const std::string& path) {
    if (!v.isArray()) failType(path, "must be an array of numbers (got " + describeJson(v) + ")");
    std::vector<double> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(number(v[i], path + "[" + std::to_string(i) + "]"));
    return out;
}

// --- scaling fields ------------------------------------------------------------------------------
// The rope_scaling / rope_parameters fields are RopeScaling's keys in the registry's 'scaling' table
// (kinds::scalingFields(), src/encodings/rope.cpp: which scaling types take and require each, and the
// member each is read into): config.json spells each name in snake_case (betaFast: beta_fast). factor and
// original_max_position_embeddings are read with their fallbacks by the reader itself.
std::string configKey(std::string_view name) {
    std::string out;
    for (const char c : name) {
        if (c >= 'A' && c <= 'Z') out += '_', out += static_cast<char>(c - 'A' + 'a');
        else out += c;
    }
    return out;
}
bool readFirst(std::string_view name) { return name == "factor" || name == "originalMaxPositionEmbeddings"; }
bool isType(const kinds::KindField& f) { return std::string_view(f.raw.name) == "type"; }

// One config.json value as the source of a scaling field's read (KindField::read), checked as its type
// says (a boolean, a list of numbers or a number), config.json's path in messages.
class ConfigValue final : public registry::Source {
public:
    ConfigValue(const Json& v, const std::string& path, bool flag) : v_(v), path_(path), flag_(flag) {}
    bool has(const char*) const override { return true; }
    double number(const char*) const override;
    std::vector<double> numbers(const char*) const override;
    // no scaling field is text, a tensor or an object
    std::string text(const char*) const override { none(); }
    std::vector<std::string> texts(const char*) const override { none(); }
    View<float> floats(const char*) const override { none(); }
    std::unique_ptr<registry::Source> object(const char*) const override { none(); }

private:
    [[noreturn]] static void none() { throw std::logic_error("config.json reader: a scaling field of a type it cannot read"); }
    const Json& v_;
    const std::string& path_;
    bool flag_;
};
double ConfigValue::number(const char*) const { return flag_ ? (boolean(v_, path_) ? 1 : 0) : ::posenc::number(v_, path_); }
std::vector<double> ConfigValue::numbers(const char*) const { return numberList(v_, path_); }

// Keys Hugging Face knows inside rope_scaling / rope_parameters besides the fields above. Anything
// else there is refused: a rotary field posenc does not understand is never dropped silently.
const char* const kOtherRopeKeys[] = {"rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section",
                                      "mrope_interleaved", "short_mscale", "long_mscale"};

// The rope types config.json spells ('default' is posenc's 'none'; 'su' and 'ntk_aware' are older names).
struct NamedType {
    const char* name;
    RopeScalingType type;
};
const NamedType kScalingNames[] = {
    {"default", RopeScalingType::none}, {"linear", RopeScalingType::linear}, {"ntk", RopeScalingType::ntk},
    {"ntk_aware", RopeScalingType::ntk}, {"dynamic", RopeScalingType::dynamic}, {"yarn", RopeScalingType::yarn},
    {"llama3", RopeScalingType::llama3}, {"longrope", RopeScalingType::longrope}, {"su", RopeScalingType::longrope},
};

// --- the reader ----------------------------------------------------------------------------------
class Reader {
public:
    // plan >= 0: reading for attentionConfigFromHF's layer `plan` (readLayer).
    Reader(const Json& root, const HfConfigOptions& options, int plan = -1) : options_(options), wanted_(options.layerType) {
        if (plan >= 0) plan_ = PlanLayer{plan, {}};
        if (!root.isObject()) failType("config", "must be a JSON object (got " + describeJson(root) + ")");
        // Multimodal configs (Qwen2.5-VL, Gemma 3, Llama 4, Mistral 3) keep the language model's
        // fields in text_config.
        const Json* text = find(root, "text_config");
        if (text && !find(root, "hidden_size") && !find(root, "n_embd") && !find(root, "head_dim")) {
            if (!text->isObject()) failType("config.text_config", "must be an object (got " + describeJson(*text) + ")");
            c_ = text;
            where_ = "config.text_config";
        } else {
            c_ = &root;
            where_ = "config";
        }
        modelTypeKey_ = key("model_type");
        if (const Json* t = find(*c_, "model_type")) {
            out_.modelType = string(*t, modelTypeKey_);
            hasModelType_ = true;
        } else if (const Json* t = find(root, "model_type")) {
            modelTypeKey_ = "config.model_type";
            out_.modelType = string(*t, modelTypeKey_);
            hasModelType_ = true;
            if (c_ != &root)  // a text_config without its own model_type: the one its wrapper's class fills in
                for (const Wrapper& w : kWrappers)
                    if (out_.modelType == w.type) out_.modelType = w.textType;
        }
        family_ = &familyOf(out_.modelType);
        knownType_ = knownModelType(out_.modelType);
    }

    HfRopeConfig read() {
        checkModelType();
        if (!family_->notRotary.empty())
            fail(key("model_type"), "'" + out_.modelType + "' " + std::string(family_->notRotary) + ": there is no rotary setup to read");
        if (out_.modelType == "falcon" && field("alibi") && boolean(*field("alibi"), key("alibi")))
            fail(key("alibi"), "is true: this Falcon uses ALiBi, not a rotary embedding (posenc: { kind: 'alibi' })");
        refuseMisspeltKeys(*c_, where_, allKeys(), readKeys());
        refuseUnknownRotaryKeys();
        chooseParameters();
        headDim();
        layout();
        base();
        rotaryFraction();
        scaling();
        attentionShape();
        temperature();
        return out_;
    }

    // One decoder layer's reading for attentionConfigFromHF: the attention shape first (it says which
    // layer type, and so which rotary table, the layer uses), then that table, then the attention terms
    // the family's code applies. Bloom and MPT have no rotary table: their terms are ALiBi's.
    detail::HfLayerReading readLayer() {
        checkModelType();
        const bool alibi = out_.modelType == "bloom" || out_.modelType == "mpt";
        if (!family_->notRotary.empty() && !alibi)
            fail(key("model_type"), "'" + out_.modelType + "' " + std::string(family_->notRotary) + ": posenc has no attention plan for it");
        if (out_.modelType == "falcon" && field("alibi") && boolean(*field("alibi"), key("alibi")))
            fail(key("alibi"), "is true: Falcon's ALiBi bias is built from bfloat16 slopes and scaled by 1/sqrt(head_dim) together with q.k "
                               "(modeling_falcon build_alibi_tensor, FalconAttention.forward): posenc's alibi cannot reproduce it");
        refuseMisspeltKeys(*c_, where_, allKeys(), readKeys());
        refuseUnknownLatentAttention();
        if (alibi) {
            attentionShape();
            for (HfLayer& l : out_.attention.layers) l.rope = false;
            pickLayer();
            alibiTerms();
        } else {
            refuseUnknownRotaryKeys();
            headDim();
            attentionShape();
            pickLayer();
            chooseParameters();
            layout();
            base();
            rotaryFraction();
            scaling();
            temperature();
            attentionTerms();
            if (latentAttention()) latentTerms();
        }
        return {out_, terms_, plan_->index};
    }

private:
    const HfConfigOptions& options_;
    std::string wanted_;  // the rotary table asked for: options.layerType, or the plan's layer's type
    struct PlanLayer {
        int index;
        std::string type;  // its layer type, once attentionShape has run
    };
    std::optional<PlanLayer> plan_;
    detail::HfAttentionTerms terms_;
    const Json* c_;
    std::string where_;
    const Json* params_ = nullptr;  // rope_parameters or rope_scaling (possibly one layer type's)
    std::string source_;            // how messages name params_
    const Family* family_;
    bool knownType_ = false;        // the reader knows which keys this model type's code reads
    bool hasModelType_ = false;     // the config gives a model_type (else the Llama rules)
    std::string modelTypeKey_;      // where model_type is (or would be)
    std::string layerType_;         // chosen layer type, when the config has several tables
    HfRopeConfig out_;

    std::string key(const std::string& name) const { return where_ + "." + name; }
    const Json* field(const std::string& name) const { return ignoredKey(name) ? nullptr : find(*c_, name); }
    const Json* param(const std::string& name) const { return params_ ? find(*params_, name) : nullptr; }
    // Records that the config set posenc option `name` through config key `from`.
    void given(const std::string& name, const std::string& from) {
        out_.given.push_back(name);
        keys_.emplace_back(name, from);
    }

public:
    // posenc option name -> the config.json key it was read from (for messages).
    std::vector<std::pair<std::string, std::string>> keys_;

private:

    // A key the model type's code does not read: listed in out_.ignored and out_.warnings, as Hugging Face
    // ignores it. Under options.strict an error saying why it has no effect (`strictMessage`, default
    // the reason); for a model type the reader does not know, an error (`unknownTypeMessage`): posenc
    // cannot tell whether that code reads it.
    void ignoreOrFail(const std::string& path, const Json& value, const std::string& reason, const std::string& strictMessage = "",
                      const std::string& unknownTypeMessage = "") {
        if (!knownType_)
            fail(path, unknownTypeMessage.empty() ? strictMessage.empty() ? "is ignored: " + reason : strictMessage : unknownTypeMessage);
        if (options_.strict) fail(path, (strictMessage.empty() ? "is ignored: " + reason : strictMessage) + " (strict refuses what the model's code ignores)");
        out_.ignored.push_back(HfIgnoredKey{path, value.dump(), reason});
        out_.warnings.push_back(path + " is ignored: " + reason);
    }
    std::string typeName() const { return out_.modelType.empty() ? std::string("(none)") : out_.modelType; }
    // For messages about a model type the reader does not know (read generically) or a config without one.
    std::string unknownTypeNote() const {
        return hasModelType_ ? "posenc does not know model_type '" + out_.modelType + "' (read with the generic Llama rules)"
                             : "the config has no model_type (read with the generic Llama rules)";
    }

    // An unknown model_type is an error (Hugging Face's AutoConfig refuses one too), unless the caller asks
    // for the generic Llama rules; a missing one is read with them and warned about (refused under strict).
    void checkModelType() {
        const bool generic = options_.unknownModelType == HfConfigOptions::UnknownModelType::generic;
        if (!hasModelType_) {
            if (generic) return;
            const std::string what = "is missing, so the config is read with the generic Llama rules, which may not be the model's "
                                     "(Hugging Face's AutoConfig refuses a config.json without model_type); unknownModelType: 'generic' reads it so without this warning";
            if (options_.strict) fail(modelTypeKey_, what + " (strict refuses it)");
            out_.warnings.push_back(modelTypeKey_ + " " + what);
            return;
        }
        if (knownType_ || generic) return;
        for (const Wrapper& w : kWrappers)
            if (out_.modelType == w.type)
                failType(modelTypeKey_, "'" + out_.modelType + "' is a multimodal model type: its language model's fields belong in text_config " +
                                            "(read when the top level has no hidden_size, n_embd or head_dim)");
        failType(modelTypeKey_, "'" + out_.modelType + "' is not a model type posenc knows, and Hugging Face's AutoConfig refuses it too." +
                                    nearestModelTypes(out_.modelType) + " (To read it with the generic Llama rules anyway, pass unknownModelType: 'generic'.)");
    }

    // --- misspelt keys ---------------------------------------------------------------------------
    // Whether the reader reads top-level key `k` for this model type (kReadBySome).
    bool readsKey(std::string_view k) const {
        const std::string& t = out_.modelType;
        if (k == "rope_interleave") return !family_->interleaveFlag.empty();
        if (k == "rope_local_base_freq") return family_->tables == LayerTables::gemma3;
        if (k == "sliding_window_pattern") return family_->tables == LayerTables::gemma3 || t == "cohere2" || t == "exaone4";
        if (k == "global_rope_theta" || k == "local_rope_theta") return family_->tables == LayerTables::modernbert;
        if (k == "no_rope_layers" || k == "no_rope_layer_interval") return family_->nopeLayers.find("no_rope_layers") != std::string_view::npos;
        if (k == "attn_temperature_tuning" || k == "attn_scale" || k == "floor_scale" || k == "attention_chunk_size") return isLlama4();
        if (k == "use_sliding_window") return windowFromMaxWindowLayers();
        if (k == "max_window_layers") return windowFromMaxWindowLayers() && t != "smollm3";
        if (k == "alibi" || k == "new_decoder_architecture") return t == "falcon";
        if (k == "query_pre_attn_scalar" || k == "attn_logit_softcapping") return t == "gemma2" || family_->tables == LayerTables::gemma3;
        if (k == "attention_multiplier") return t == "granite" || t == "granitemoe";
        if (k == "use_bidirectional_attention") return t == "gemma" || t == "gemma2" || family_->tables == LayerTables::gemma3;
        return false;
    }
    bool isLlama4() const { return out_.modelType == "llama4" || out_.modelType == "llama4_text"; }
    bool windowFromMaxWindowLayers() const {
        const std::string& t = out_.modelType;
        return t == "qwen2" || t == "qwen2_moe" || t == "qwen3" || t == "qwen3_moe" || t == "smollm3";
    }
    std::vector<std::string_view> readKeys() const {
        std::vector<std::string_view> keys(std::begin(kReadByAll), std::end(kReadByAll));
        for (const char* k : kReadBySome)
            if (readsKey(k)) keys.emplace_back(k);
        return keys;
    }
    static std::vector<std::string_view> allKeys() {
        std::vector<std::string_view> keys(std::begin(kReadByAll), std::end(kReadByAll));
        keys.insert(keys.end(), std::begin(kReadBySome), std::end(kReadBySome));
        keys.insert(keys.end(), std::begin(kOtherFamiliesKeys), std::end(kOtherFamiliesKeys));
        return keys;
    }
    // A key of `holder` that no config uses (`known`) but that is a misspelling of one this model type
    // reads (`read`) is a TypeError naming it and the key meant.
    void refuseMisspeltKeys(const Json& holder, const std::string& path, const std::vector<std::string_view>& known,
                            const std::vector<std::string_view>& read) const {
        for (const auto& member : holder.members()) {
            const std::string& k = member.key;
            if (std::find(known.begin(), known.end(), k) != known.end()) continue;
            const std::string lower = lowerCase(k);
            std::string_view meant;
            std::size_t best = 0;
            for (std::string_view r : read)
                if (isMisspelling(k, r) && (meant.empty() || editDistance(lower, r) < best)) meant = r, best = editDistance(lower, r);
            if (!meant.empty())
                throw WrongType(path + ": unknown key '" + k + "': did you mean '" + std::string(meant) +
                                "'? (Hugging Face would load the config and ignore the key without a word)");
        }
    }

    // Rotary-looking fields this reader does not interpret for this model type: Hugging Face's code for
    // a known type does not read them either (ignored, listed); for an unknown type they are errors.
    void refuseUnknownRotaryKeys() {
        static const char* const understood[] = {
            "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "rotary_pct", "rotary_dim",
            "rope_pct", "rotary_emb_base", "qk_rope_head_dim", "rope_interleave", "rope_local_base_freq",
            "max_position_embeddings", "original_max_position_embeddings", "mrope_interleaved", "no_rope_layers",
            "no_rope_layer_interval", "global_rope_theta", "local_rope_theta"};
        for (const auto& member : c_->members()) {
            const std::string& k = member.key;
            const Json& v = member.value;
            const bool rotaryLooking = k.find("rope") != std::string::npos || k.find("rotary") != std::string::npos;
            if (!rotaryLooking || v.isNull()) continue;
            if (std::find_if(std::begin(understood), std::end(understood), [&](const char* u) { return k == u; }) == std::end(understood))
                ignoreOrFail(key(k), v, "Hugging Face's " + typeName() + " code does not read it", "",
                             "may change the rotary embedding, and " + unknownTypeNote() +
                                 ", so posenc cannot tell whether the model's code reads it: refusing rather than ignoring it");
        }
        // Keys one family reads, found in another: that family's code ignores them.
        auto elsewhere = [&](const char* k, bool readHere, const std::string& whose) {
            const Json* v = field(k);
            if (!v || readHere) return;
            ignoreOrFail(key(k), *v, "read only by " + whose + "'s code; " + typeName() + "'s code ignores it",
                         "is read only for " + whose + ", not '" + out_.modelType + "'");
            ignoredKeys_.push_back(k);
        };
        elsewhere("rope_interleave", !family_->interleaveFlag.empty(), "DeepSeek-V3 (model_type 'deepseek_v3')");
        elsewhere("rope_local_base_freq", family_->tables == LayerTables::gemma3, "Gemma 3 (model_type 'gemma3' / 'gemma3_text')");
        elsewhere("global_rope_theta", family_->tables == LayerTables::modernbert, "ModernBERT (model_type 'modernbert')");
        elsewhere("local_rope_theta", family_->tables == LayerTables::modernbert, "ModernBERT (model_type 'modernbert')");
        elsewhere("no_rope_layers", family_->nopeLayers.find("no_rope_layers") != std::string::npos, "Llama 4 and SmolLM3");
        elsewhere("no_rope_layer_interval", family_->nopeLayers.find("no_rope_layers") != std::string::npos, "Llama 4 and SmolLM3");
        // GPT-J / CodeGen fix base 10000 in their code and read no scaling: such a field has no effect in
        // the model, so it is ignored (listed) rather than applied.
        if (family_->fixedBase)
            for (const char* k : {"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base"})
                if (const Json* v = field(k)) {
                    ignoreOrFail(key(k), *v, out_.modelType + "'s code fixes base 10000 and applies no scaling",
                                 "has no effect in " + out_.modelType + "'s code (base 10000, no scaling): remove it to read the config as the model runs");
                    ignoredKeys_.push_back(k);
                }
    }
    // Top-level keys found ignored above: the rest of the reader treats them as absent.
    std::vector<std::string> ignoredKeys_;
    bool ignoredKey(const std::string& name) const { return std::find(ignoredKeys_.begin(), ignoredKeys_.end(), name) != ignoredKeys_.end(); }

    // --- query temperature -------------------------------------------------------------------------
    // Ministral 3: queries x (1 + beta ln(1 + floor(p / L0))), beta = rope_parameters.llama_4_scaling_beta,
    // L0 = rope_parameters.original_max_position_embeddings (modeling_ministral3 _get_llama_4_attn_scale),
    // on every layer. Llama 4: queries x (1 + attn_scale ln(1 + floor((p + 1) / floor_scale))) on the NoPE
    // layers when attn_temperature_tuning is truthy (modeling_llama4 Llama4TextAttention; class defaults
    // True, 0.1, 8192).
    void temperature() {
        TemperatureEncoding t;
        std::string betaKey, lengthKey;
        if (family_->llama4Beta) {
            // the unsplit parameters: Ministral 3 has one table
            const Json* beta = param("llama_4_scaling_beta");
            betaKey = source_ + ".llama_4_scaling_beta";
            if (!beta) fail(betaKey, "is required: " + out_.modelType + "'s attention multiplies every query by a temperature made from it");
            t.beta = number(*beta, betaKey);
            lengthKey = source_ + ".original_max_position_embeddings";
            const Json* L0 = param("original_max_position_embeddings");
            if (!L0) fail(lengthKey, "is required: it is the length of llama_4_scaling_beta's query temperature");
            t.length = positiveInteger(*L0, lengthKey);
            t.offset = 0;
        } else if (isLlama4()) {
            bool on = true;  // Llama4TextConfig.attn_temperature_tuning defaults to True
            if (const Json* tuning = field("attn_temperature_tuning")) {
                // Python truthiness: published configs carry 4 (Scout, Maverick) as well as true
                if (tuning->isBoolean()) on = tuning->boolean();
                else if (tuning->isNumber()) on = number(*tuning, key("attn_temperature_tuning")) != 0;
                else failType(key("attn_temperature_tuning"), "must be true, false or a number (got " + describeJson(*tuning) + ")");
            }
            if (!on) return;
            betaKey = key("attn_scale");
            t.beta = field("attn_scale") ? number(*field("attn_scale"), betaKey) : 0.1;
            lengthKey = key("floor_scale");
            t.length = field("floor_scale") ? positiveInteger(*field("floor_scale"), lengthKey) : 8192;
            t.offset = 1;
        } else {
            return;
        }
        if (!std::isfinite(t.beta)) fail(betaKey, "must be a finite number (got " + show(t.beta) + ")");
        out_.temperature = t;
        for (HfLayer& l : out_.attention.layers) l.temperature = family_->llama4Beta || !l.rope;
    }

    // --- attention terms (attentionConfigFromHF) ----------------------------------------------------
    // Multi-head latent attention (DeepSeek V2 / V3: modeling_deepseek_v3.py DeepseekV3Attention.forward, :428-466;
    // modeling_deepseek_v2.py likewise) rotates the trailing qk_rope_head_dim channels of each q / k head of
    // qk_nope_head_dim + qk_rope_head_dim (query_states = cat(q_pass, q_rot), key_states = [k_nope, k_rot]) and has
    // v_head_dim value channels: a plan with rotaryOffset = qk_nope_head_dim and valueDim = v_head_dim. Only the model
    // types whose code posenc knows: any other config with these keys (Kimi K2's remote code read generically) is refused.
    bool latentAttention() const {
        for (const char* k : {"qk_nope_head_dim", "qk_rope_head_dim", "kv_lora_rank", "v_head_dim"})
            if (field(k)) return true;
        return false;
    }
    void refuseUnknownLatentAttention() const {
        if (!latentAttention() || out_.modelType == "deepseek_v2" || out_.modelType == "deepseek_v3") return;
        for (const char* k : {"qk_nope_head_dim", "qk_rope_head_dim", "kv_lora_rank", "v_head_dim"})
            if (const Json* v = field(k))
                fail(key(k), "(" + describeJson(*v) + "): multi-head latent attention, which posenc plans for model_type 'deepseek_v2' and "
                             "'deepseek_v3' only (their code is the one it follows), not '" + typeName() + "'");
    }
    void latentTerms() {
        detail::HfAttentionTerms& t = terms_;
        for (const char* k : {"qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
            if (!field(k)) fail(key(k), "is required: " + out_.modelType + "'s attention (multi-head latent attention) is sized by it");
        t.rotaryOffset = boundedSize(positiveInteger(*field("qk_nope_head_dim"), key("qk_nope_head_dim")), key("qk_nope_head_dim"), limits::kMaxHeadDim);
        t.valueDim = boundedSize(positiveInteger(*field("v_head_dim"), key("v_head_dim")), key("v_head_dim"), limits::kMaxHeadDim);
        // yarn_apply_mscale (modeling_deepseek_v3.py:279-286, modeling_deepseek_v2.py:289-296): with a rope type other
        // than 'default' and a nonzero mscale_all_dim, scaling = qk_head_dim**-0.5 * mscale(factor, mscale_all_dim)**2,
        // mscale(s, m) = 0.1 m ln(s) + 1 (1 when s <= 1)
        const std::string type = param("rope_type") ? string(*param("rope_type"), source_ + ".rope_type")
                                 : param("type")    ? string(*param("type"), source_ + ".type") : "default";
        const Json* all = param("mscale_all_dim");
        const double m = all ? number(*all, source_ + ".mscale_all_dim") : 0;
        if (type != "default" && m != 0) {
            const Json* f = param("factor");
            if (!f) fail(source_ + ".factor", "is required: " + out_.modelType + "'s attention scale is mscale(factor, mscale_all_dim)^2 / sqrt(head_dim)");
            const double factor = number(*f, source_ + ".factor");
            const double mscale = factor <= 1 ? 1 : 0.1 * m * std::log(factor) + 1;
            t.scale *= mscale * mscale;
            t.scaleRule = "qk_head_dim^-1/2 (" + std::to_string(out_.attention.headDim) + ") * mscale(factor " + show(factor) +
                          ", mscale_all_dim " + show(m) + ")^2";
        }
    }

    // The layer asked for: it must exist (the config must say how many layers there are).
    void pickLayer() {
        const auto& layers = out_.attention.layers;
        if (!out_.attention.heads)
            fail(key("num_attention_heads"), "is required to plan a layer's attention (or n_head, num_heads, n_heads)");
        if (!out_.attention.headDim) fail(where_, "needs head_dim, or hidden_size and num_attention_heads, to plan a layer's attention");
        if (layers.empty())
            fail(key("num_hidden_layers"), "is required to plan a layer's attention (which layers slide, chunk or skip RoPE depends on it)");
        if (plan_->index >= static_cast<int>(layers.size()))
            fail("layer", "must be below " + key("num_hidden_layers") + " (" + std::to_string(layers.size()) + "): the layers are 0 .. " +
                              std::to_string(layers.size() - 1) + " (got " + std::to_string(plan_->index) + ")");
        plan_->type = layers[static_cast<std::size_t>(plan_->index)].type;
    }

    // A positive finite number at `name`, or `fallback` (the config class's default) when the key is absent.
    // `nullMeans` is what an explicit null stands for (0 = none).
    double positiveNumber(const char* name, double fallback, double nullMeans) const {
        const Json* v = c_->find(name);
        if (!v) return fallback;
        if (v->isNull()) return nullMeans;
        const double x = number(*v, key(name));
        if (!(x > 0) || !std::isfinite(x)) fail(key(name), "must be a positive number (got " + show(x) + ")");
        return x;
    }

    // Softmax scale, soft-capping, sink logits and causality as the model type's attention code applies them
    // (transformers modeling_<type>.py, the Attention class's __init__; docs/hf-families.md lists them).
    void attentionTerms() {
        detail::HfAttentionTerms& t = terms_;
        const std::string& type = out_.modelType;
        const int hd = out_.attention.headDim;
        t.scale = 1 / std::sqrt(static_cast<double>(hd));
        t.scaleRule = "head_dim^-1/2 (head_dim " + std::to_string(hd) + ")";
        const bool gemma2or3 = type == "gemma2" || family_->tables == LayerTables::gemma3;
        if (gemma2or3) {
            // Gemma2Attention / Gemma3Attention: scaling = query_pre_attn_scalar**-0.5 (class default 256)
            const double s = positiveNumber("query_pre_attn_scalar", 256, 0);
            if (s == 0) failType(key("query_pre_attn_scalar"), "is null: Gemma's attention scale is query_pre_attn_scalar^-1/2");
            t.scale = 1 / std::sqrt(s);
            t.scaleRule = c_->find("query_pre_attn_scalar") ? "query_pre_attn_scalar^-1/2 (" + show(s) + ")"
                                                             : "query_pre_attn_scalar^-1/2 (the class default, 256)";
            // attn_logit_softcapping: Gemma2Config default 50.0, Gemma3TextConfig default None; null = none
            t.softcap = positiveNumber("attn_logit_softcapping", type == "gemma2" ? 50 : 0, 0);
        }
        if (type == "granite" || type == "granitemoe") {
            // GraniteAttention: scaling = config.attention_multiplier (class default 1.0)
            t.scale = positiveNumber("attention_multiplier", 1, 0);
            if (t.scale == 0) failType(key("attention_multiplier"), "is null: Granite's attention scale is attention_multiplier");
            t.scaleRule = c_->find("attention_multiplier") ? "attention_multiplier (" + show(t.scale) + ")" : "attention_multiplier (the class default, 1)";
        }
        if (type == "gemma" || gemma2or3) {
            // use_bidirectional_attention (EmbeddingGemma): is_causal = False; the sliding layers then see
            // |q - k| < window, both ways, which posenc's one-sided window cannot express.
            const Json* b = field("use_bidirectional_attention");
            if (b && boolean(*b, key("use_bidirectional_attention"))) {
                if (plan_->type == "sliding_attention")
                    fail(key("use_bidirectional_attention"), "is true: this sliding-window layer then admits keys on both sides of the query "
                                                             "(|q - k| < window), which posenc's window (0 <= qPos - kPos < window) cannot express");
                t.causal = false;
            }
        }
        t.sinkLogits = type == "gpt_oss";  // GptOssAttention.sinks: one learned logit per head
    }

    // Bloom and MPT: ALiBi with the paper's slopes (alibiSlopes), added unscaled to scale q.k.
    void alibiTerms() {
        detail::HfAttentionTerms& t = terms_;
        t.rotary = false;
        t.alibi = true;
        const int hd = out_.attention.headDim;
        if (!out_.attention.heads || !hd) fail(where_, "needs the attention heads and the hidden size to plan " + out_.modelType + "'s attention");
        t.scale = 1 / std::sqrt(static_cast<double>(hd));
        t.scaleRule = "head_dim^-1/2 (head_dim " + std::to_string(hd) + ")";
        if (out_.modelType != "mpt") return;
        // MptAttention: softmax_scale = attn_config.softmax_scale, else 1 / sqrt(d_model / n_heads); the ALiBi
        // tensor is build_mpt_alibi_tensor(n_heads, max_seq_len) with its default alibi_bias_max of 8, whatever
        // the config says, and is used whatever attn_config.alibi says.
        const Json* a = field("attn_config");
        if (!a) return;
        if (!a->isObject()) failType(key("attn_config"), "must be an object (got " + describeJson(*a) + ")");
        const std::string where = key("attn_config");
        if (const Json* s = find(*a, "softmax_scale")) {
            t.scale = number(*s, where + ".softmax_scale");
            if (!(t.scale > 0) || !std::isfinite(t.scale)) fail(where + ".softmax_scale", "must be a positive number (got " + show(t.scale) + ")");
            t.scaleRule = "attn_config.softmax_scale (" + show(t.scale) + ")";
        }
        if (const Json* m = find(*a, "alibi_bias_max"); m && !(m->isNumber() && m->number() == 8))
            ignoreOrFail(where + ".alibi_bias_max", *m, "Hugging Face's mpt code builds the ALiBi slopes with alibi_bias_max 8 whatever the config says");
        if (const Json* on = find(*a, "alibi"); on && !(on->isBoolean() && on->boolean()))
            ignoreOrFail(where + ".alibi", *on, "Hugging Face's mpt code adds the ALiBi bias whatever the config says");
    }

    // --- attention shape ---------------------------------------------------------------------------
    std::int64_t integerField(std::initializer_list<const char*> names, std::int64_t fallback) const {
        for (const char* n : names)
            if (const Json* v = field(n)) return positiveInteger(*v, key(n));
        return fallback;
    }

    void attentionShape() {
        HfAttentionShape& a = out_.attention;
        a.heads = boundedSize(integerField({"num_attention_heads", "n_head", "num_heads", "n_heads"}, 0), key("num_attention_heads"), limits::kMaxHeads);
        std::int64_t kv = integerField({"num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num"}, 0);
        if (!kv) {
            if (const Json* attn = field("attn_config"); attn && attn->isObject())
                if (const Json* k = find(*attn, "kv_n_heads")) kv = positiveInteger(*k, key("attn_config.kv_n_heads"));
        }
        if (!kv)
            if (const Json* mq = field("multi_query"); mq && mq->isBoolean() && mq->boolean()) kv = 1;  // Falcon-7B
        if (out_.modelType == "falcon") {
            // FalconAttention: num_kv_heads with new_decoder_architecture, else 1 under multi_query (whatever
            // num_kv_heads, which FalconConfig serialises as the head count, says), else num_kv_heads
            const Json* arch = field("new_decoder_architecture");
            const Json* mq = field("multi_query");
            const bool newArch = arch && boolean(*arch, key("new_decoder_architecture"));
            if (!newArch && mq && boolean(*mq, key("multi_query"))) kv = 1;
        }
        a.kvHeads = kv ? boundedSize(kv, key("num_key_value_heads"), limits::kMaxHeads) : a.heads;
        if (a.heads && a.heads % a.kvHeads != 0)
            fail(key("num_key_value_heads"), "(" + std::to_string(a.kvHeads) + ") must divide the attention heads (" + std::to_string(a.heads) + ")");
        // q.k channels: head_dim, DeepSeek MLA's nope + rope parts, the class default, or hidden / heads
        if (const Json* h = field("head_dim")) {
            a.headDim = boundedSize(positiveInteger(*h, key("head_dim")), key("head_dim"), limits::kMaxHeadDim);
        } else if (field("qk_nope_head_dim") && field("qk_rope_head_dim")) {
            a.headDim = boundedSize(positiveInteger(*field("qk_nope_head_dim"), key("qk_nope_head_dim")) + out_.rope.headDim,
                                    key("qk_nope_head_dim") + " + " + key("qk_rope_head_dim"), limits::kMaxHeadDim);
        } else if (family_->headDimDefault > 0) {
            a.headDim = family_->headDimDefault;
        } else if (a.heads) {
            // BloomConfig: n_embed, when given, replaces hidden_size
            const std::int64_t hidden = out_.modelType == "bloom" ? integerField({"n_embed", "hidden_size"}, 0) : integerField({"hidden_size", "n_embd", "d_model"}, 0);
            a.headDim = hidden ? boundedSize(hidden / a.heads, key("hidden_size") + " / " + key("num_attention_heads"), limits::kMaxHeadDim)
                               : out_.rope.headDim;
        } else {
            a.headDim = out_.rope.headDim;
        }

        const std::int64_t layers = integerField({"num_hidden_layers", "n_layer", "n_layers", "num_layers"}, 0);
        if (layers > (1 << 16)) fail(key("num_hidden_layers"), "(" + std::to_string(layers) + ") is more than 65536 layers");
        const bool window = field("sliding_window") != nullptr;  // parsed below, where a layer uses it
        const std::string& type = out_.modelType;
        std::vector<std::string> types(static_cast<std::size_t>(layers), "full_attention");
        std::vector<int> rope(static_cast<std::size_t>(layers), 1);
        auto pattern = [&](const char* name, std::int64_t dflt) {  // every pattern-th layer global, the rest sliding
            const std::int64_t p = integerField({name}, dflt);
            for (std::int64_t i = 0; i < layers; ++i)
                if ((i + 1) % p != 0) types[i] = "sliding_attention";
        };
        // NoPE layers: no_rope_layers[i] = 0 (Llama 4, SmolLM3; default every no_rope_layer_interval-th)
        const bool hasNopeList = family_->nopeLayers.find("no_rope_layers") != std::string::npos;
        if (hasNopeList) {
            const Json* list = field("no_rope_layers");
            if (list && !list->isArray()) failType(key("no_rope_layers"), "must be an array of 0 and 1 (got " + describeJson(*list) + ")");
            if (list && !list->empty()) {
                if (static_cast<std::int64_t>(list->size()) != layers && layers)
                    fail(key("no_rope_layers"), "has " + std::to_string(list->size()) + " entries for " + std::to_string(layers) + " layers");
                for (std::size_t i = 0; i < list->size() && static_cast<std::int64_t>(i) < layers; ++i) {
                    const std::string p = key("no_rope_layers[" + std::to_string(i) + "]");
                    const Json& e = (*list)[i];
                    const double x = e.isBoolean() ? (e.boolean() ? 1 : 0) : number(e, p);
                    if (x != 0 && x != 1) fail(p, "must be 0 or 1 (got " + show(x) + ")");
                    rope[i] = x != 0;
                }
            } else {
                const std::int64_t every = integerField({"no_rope_layer_interval"}, 4);
                for (std::int64_t i = 0; i < layers; ++i) rope[i] = (i + 1) % every != 0;
            }
        }
        std::int64_t chunk = 0;
        if (const Json* lt = field("layer_types")) {
            if (!lt->isArray()) failType(key("layer_types"), "must be an array of layer type names (got " + describeJson(*lt) + ")");
            if (layers && static_cast<std::int64_t>(lt->size()) != layers)
                fail(key("layer_types"), "has " + std::to_string(lt->size()) + " entries for " + std::to_string(layers) + " layers");
            for (std::size_t i = 0; i < lt->size() && static_cast<std::int64_t>(i) < layers; ++i)
                types[i] = string((*lt)[i], key("layer_types[" + std::to_string(i) + "]"));
        } else if (type == "gemma2") {
            for (std::int64_t i = 0; i < layers; ++i) types[i] = i % 2 == 0 ? "sliding_attention" : "full_attention";
        } else if (family_->tables == LayerTables::gemma3) {
            pattern("sliding_window_pattern", 6);
        } else if (type == "cohere2") {
            pattern("sliding_window_pattern", 4);
        } else if (isLlama4()) {
            for (std::int64_t i = 0; i < layers; ++i) types[i] = rope[i] ? "chunked_attention" : "full_attention";
        } else if (type == "smollm3") {
            // SmolLM3Config: sliding on the NoPE layers, only with use_sliding_window
            const Json* use = field("use_sliding_window");
            const bool on = use && boolean(*use, key("use_sliding_window"));
            for (std::int64_t i = 0; i < layers; ++i)
                if (on && window && !rope[i]) types[i] = "sliding_attention";
        } else if (windowFromMaxWindowLayers()) {
            // sliding only with use_sliding_window, from layer max_window_layers on
            const Json* use = field("use_sliding_window");
            const bool on = use && boolean(*use, key("use_sliding_window"));
            const std::int64_t from = field("max_window_layers") ? static_cast<std::int64_t>(number(*field("max_window_layers"), key("max_window_layers"))) : 28;  // the classes' default
            for (std::int64_t i = 0; i < layers; ++i)
                if (on && window && i >= from) types[i] = "sliding_attention";
        } else if (type == "exaone4" && window) {
            // Exaone4Config: every sliding_window_pattern-th layer global (an integer; default 4)
            const Json* p = field("sliding_window_pattern");
            if (p && !p->isNumber())
                fail(key("sliding_window_pattern"), "(" + describeJson(*p) + ") is not an integer, and the config has no layer_types: Hugging Face's "
                                                    "Exaone4Config computes the layer types from an integer pattern (give layer_types)");
            pattern("sliding_window_pattern", 4);
        } else if (type == "mistral" || type == "mixtral" || type == "ministral3" || type == "phi3" || type == "starcoder2" || type == "ministral") {
            for (std::int64_t i = 0; i < layers; ++i)
                if (window) types[i] = "sliding_attention";  // sliding_window (when not null) on every layer
        }
        if (isLlama4()) chunk = integerField({"attention_chunk_size"}, 8192);
        if (nopeOnFullAttention() || type == "cohere2")
            for (std::int64_t i = 0; i < layers; ++i) rope[i] = types[i] == "sliding_attention";  // global layers NoPE
        for (std::int64_t i = 0; i < layers; ++i) {
            HfLayer l;
            l.type = types[i];
            l.rope = rope[i] != 0;
            if (l.type == "sliding_attention") {
                const bool classDefault = family_->tables == LayerTables::gemma3 || type == "gemma2" || type == "cohere2";  // 4096
                const std::int64_t w = window ? positiveInteger(*field("sliding_window"), key("sliding_window")) : classDefault ? 4096 : 0;
                if (!w) fail(key("sliding_window"), "is required by the sliding-attention layers (layer " + std::to_string(i) + ")");
                l.window = static_cast<int>(std::min<std::int64_t>(w, 2147483647));
                a.slidingWindow = l.window;
            }
            if (l.type == "chunked_attention") {
                if (!chunk) chunk = integerField({"attention_chunk_size"}, 0);
                if (!chunk) fail(key("attention_chunk_size"), "is required by the chunked-attention layers (layer " + std::to_string(i) + ")");
                l.chunk = static_cast<int>(std::min<std::int64_t>(chunk, 2147483647));
            }
            a.layers.push_back(l);
        }
    }

    bool isLocalGlobal() const { return family_->tables != LayerTables::one; }
    bool nopeOnFullAttention() const {
        if (family_->nopeLayers.rfind("full_attention", 0) != 0) return false;
        return out_.modelType != "exaone4" || field("sliding_window") != nullptr;  // EXAONE 4: only when hybrid
    }

    // rope_parameters (transformers >= 5) or rope_scaling; one table per layer type where the model
    // has several.
    void chooseParameters() {
        const char* name = field("rope_parameters") ? "rope_parameters" : "rope_scaling";
        params_ = field(name);
        source_ = key(name);
        if (params_ && !params_->isObject()) failType(source_, "must be an object (got " + describeJson(*params_) + ")");
        if (params_) {  // misspelt fields, in every layer type's table
            const auto keys = ropeParameterKeys();
            if (isKeyedByLayerType(*params_))
                for (const auto& m : params_->members()) refuseMisspeltKeys(m.value, source_ + "." + m.key, keys, keys);
            else
                refuseMisspeltKeys(*params_, source_, keys, keys);
        }

        std::vector<std::string> layerTypes;
        if (params_ && isKeyedByLayerType(*params_)) {
            for (const auto& m : params_->members()) layerTypes.push_back(m.key);
        } else if (isLocalGlobal()) {
            layerTypes = {"full_attention", "sliding_attention"};
        }
        if (plan_) wanted_ = layerTypes.empty() ? std::string() : plan_->type;  // the layer's table, where there are several
        if (layerTypes.empty() && nopeOnFullAttention()) {
            // One table, used by the sliding-window layers only (Cohere2, hybrid EXAONE 4).
            if (wanted_ == "full_attention")
                fail("layerType", "'full_attention': " + out_.modelType + "'s full-attention layers use no rotary embedding (NoPE)");
            if (!wanted_.empty() && wanted_ != "sliding_attention")
                fail("layerType", "must be 'sliding_attention' or 'full_attention' for " + out_.modelType + " (got '" + wanted_ + "')");
            return;
        }
        if (layerTypes.empty()) {
            if (!wanted_.empty())
                fail("layerType", "'" + wanted_ + "' was asked for, but this config has one rotary table for every layer" +
                                      (family_->nopeLayers.empty() ? std::string() : " that rotates (" + std::string(family_->nopeLayers) + " skips RoPE)"));
            return;
        }
        std::string list;
        for (const auto& t : layerTypes) list += (list.empty() ? "'" : ", '") + t + "'";
        if (wanted_.empty())
            fail(where_, "has one rotary table per layer type (" + list + "): pass layerType to choose one");
        if (std::find(layerTypes.begin(), layerTypes.end(), wanted_) == layerTypes.end()) {
            if (plan_)
                fail(source_, "has no rotary table for layer " + std::to_string(plan_->index) + "'s type '" + wanted_ + "' (it has " + list + ")");
            fail("layerType", "must be one of " + list + " for this config (got '" + wanted_ + "')");
        }
        layerType_ = wanted_;
        if (params_ && isKeyedByLayerType(*params_)) {
            source_ += "." + layerType_;
            params_ = find(*params_, layerType_);
            if (!params_ || !params_->isObject()) failType(source_, "must be an object");
        } else if (layerType_ == "sliding_attention") {
            params_ = nullptr;  // Gemma 3's local layers: rope_local_base_freq, never scaled
        } else if (family_->tables == LayerTables::modernbert) {
            params_ = nullptr;  // ModernBERT: plain RoPE on both, bases global_rope_theta / local_rope_theta
        }
    }

    // The keys Hugging Face knows inside rope_scaling / rope_parameters.
    static std::vector<std::string_view> ropeParameterKeys() {
        std::vector<std::string_view> keys(std::begin(kOtherRopeKeys), std::end(kOtherRopeKeys));
        static const std::vector<std::string> scaling = [] {
            std::vector<std::string> k;
            for (const kinds::KindField& f : kinds::scalingFields())
                if (!isType(f)) k.push_back(configKey(f.raw.name));
            return k;
        }();
        keys.insert(keys.end(), scaling.begin(), scaling.end());
        keys.emplace_back("llama_4_scaling_beta");
        return keys;
    }

    // {"full_attention": {...}, "sliding_attention": {...}}: every value an object, no rope field as a key.
    static bool isKeyedByLayerType(const Json& p) {
        if (p.empty()) return false;
        for (const auto& m : p.members())
            if (!m.value.isObject()) return false;
        return true;
    }

    void headDim() {
        std::int64_t dim = 0;
        std::string dimKey;
        if (const Json* h = field("head_dim")) {
            dim = positiveInteger(*h, key("head_dim"));
            dimKey = key("head_dim");
        } else if (family_->headDimDefault > 0) {
            dim = family_->headDimDefault;  // the config class's head_dim default (transformers 4.x)
            dimKey = "the default head_dim of " + out_.modelType;
        } else {
            const char* hiddenKey = nullptr;
            const char* headsKey = nullptr;
            for (const char* k : {"hidden_size", "n_embd", "d_model"})
                if (!hiddenKey && field(k)) hiddenKey = k;
            for (const char* k : {"num_attention_heads", "n_head", "num_heads", "n_heads"})
                if (!headsKey && field(k)) headsKey = k;
            if (!hiddenKey || !headsKey) fail(where_, "needs head_dim, or hidden_size and num_attention_heads");
            const std::int64_t hidden = positiveInteger(*field(hiddenKey), key(hiddenKey));
            const std::int64_t heads = positiveInteger(*field(headsKey), key(headsKey));
            if (hidden % heads != 0)
                fail(key(hiddenKey), "(" + std::to_string(hidden) + ") must be divisible by " + key(headsKey) + " (" + std::to_string(heads) + ")");
            dim = hidden / heads;
            dimKey = key(hiddenKey) + " / " + key(headsKey);
        }
        // DeepSeek MLA rotates a separate rope head of qk_rope_head_dim channels.
        if (const Json* r = field("qk_rope_head_dim")) {
            dim = positiveInteger(*r, key("qk_rope_head_dim"));
            dimKey = key("qk_rope_head_dim");
        }
        out_.rope.headDim = boundedSize(dim, dimKey, limits::kMaxHeadDim);
    }

    void layout() {
        RopeLayout l = family_->layout;
        if (!family_->interleaveFlag.empty()) {
            bool on = family_->interleaveFlagDefault;
            const std::string flag(family_->interleaveFlag);
            if (const Json* f = field(flag)) on = boolean(*f, key(flag));
            l = on ? RopeLayout::interleaved : RopeLayout::half;
        }
        out_.layout = l;
    }

    void base() {
        for (const Json* holder : {c_, params_})
            for (const char* k : {"rope_theta", "partial_rotary_factor"})
                if (holder && holder->isObject() && holder->find(k) && holder->find(k)->isNull())
                    failType((holder == c_ ? where_ : source_) + "." + k, "is null: give a number or leave the key out");
        std::string baseKey;
        const Json* b = nullptr;
        double fallback = family_->baseDefault;
        if (family_->fixedBase) {
            out_.rope.base = 10000;
            return;
        }
        const std::string holder(family_->nestedBase);
        const Json* nested = holder.empty() ? nullptr : field(holder);
        if (nested && !nested->isObject()) failType(key(holder), "must be an object (got " + describeJson(*nested) + ")");
        if (family_->tables == LayerTables::modernbert) {
            // ModernBERT: global layers global_rope_theta (160000), local layers local_rope_theta (10000),
            // or the global base when local_rope_theta is null.
            const bool local = layerType_ == "sliding_attention" && field("local_rope_theta");
            baseKey = key(local ? "local_rope_theta" : "global_rope_theta");
            b = field(local ? "local_rope_theta" : "global_rope_theta");
            fallback = local ? 10000 : 160000;
        } else if (layerType_ == "sliding_attention" && family_->tables == LayerTables::gemma3 && !field("rope_parameters")) {
            // Gemma 3's local layers: rope_local_base_freq (class default 10000), unscaled.
            b = field("rope_local_base_freq");
            baseKey = key("rope_local_base_freq");
            fallback = 10000;
        } else if (nested && (b = find(*nested, "rope_theta"))) {
            baseKey = key(holder + ".rope_theta");
        } else if ((b = param("rope_theta"))) {
            baseKey = source_ + ".rope_theta";
        } else if ((b = field("rope_theta"))) {
            baseKey = key("rope_theta");
        } else if ((b = field("rotary_emb_base"))) {
            baseKey = key("rotary_emb_base");
        }
        if (!b) {
            if (std::isnan(fallback))
                fail(key("rope_theta"), "is missing, and the default of transformers' " + out_.modelType +
                                            " config differs between versions: give it in the config");
            out_.rope.base = fallback;
            return;
        }
        const double v = number(*b, baseKey);
        if (!(v > 0) || v == 1 || !std::isfinite(v)) fail(baseKey, "must be a positive number other than 1 (got " + show(v) + ")");
        out_.rope.base = v;
    }

    void rotaryFraction() {
        const int dim = out_.rope.headDim;
        std::string fKey;
        double fraction = 0;
        bool have = false;
        auto take = [&](const Json* v, const std::string& k) {
            if (have || !v) return;
            fraction = number(*v, k);
            fKey = k;
            have = true;
        };
        take(field("partial_rotary_factor"), key("partial_rotary_factor"));
        take(param("partial_rotary_factor"), source_ + ".partial_rotary_factor");
        take(field("rotary_pct"), key("rotary_pct"));
        take(field("rope_pct"), key("rope_pct"));  // StableLM-epoch remote code
        if (!have) {
            if (const Json* r = field("rotary_dim")) {
                const std::int64_t channels = positiveInteger(*r, key("rotary_dim"));
                if (channels > dim) fail(key("rotary_dim"), "(" + std::to_string(channels) + ") must not exceed the head dim (" + std::to_string(dim) + ")");
                fraction = static_cast<double>(channels) / dim;
                fKey = key("rotary_dim");
                have = true;
            } else if (family_->rotaryDim > 0) {
                fraction = std::min(1.0, static_cast<double>(family_->rotaryDim) / dim);
                fKey = "the default rotary_dim of " + out_.modelType + " (" + std::to_string(family_->rotaryDim) + ")";
            } else {
                fraction = family_->rotaryFraction;
                fKey = "the default rotary fraction of " + out_.modelType + " (" + show(fraction) + ")";
            }
        }
        // rope_type 'proportional' keeps the whole head rotating and reads the factor as p-RoPE's fraction
        // (proportional() below): any p in [0, 1], int(p * head_dim // 2) pairs keep their frequency
        const Json* type = param("rope_type");
        if (type && type->isString() && string(*type, source_ + ".rope_type") == "proportional") {
            if (!(fraction >= 0 && fraction <= 1)) fail(fKey, "must lie in [0, 1] (got " + show(fraction) + ")");
            out_.rope.partialRotaryFactor = fraction;
            if (fraction != 1.0 || have) given("partialRotaryFactor", fKey);
            return;
        }
        if (!(fraction > 0 && fraction <= 1)) fail(fKey, "must lie in (0, 1] (got " + show(fraction) + ")");
        const int R = static_cast<int>(dim * fraction);
        if (R < 2 || R % 2 != 0)
            fail(fKey, "(" + show(fraction) + ") gives " + std::to_string(R) + " rotary channels of " + std::to_string(dim) +
                           "; they must be even and at least 2");
        out_.rope.partialRotaryFactor = fraction;
        if (fraction != 1.0 || have) given("partialRotaryFactor", fKey);
    }

    void scaling() {
        std::string type = "default";
        if (const Json* t = param("rope_type")) type = string(*t, source_ + ".rope_type");
        else if (const Json* t = param("type")) type = string(*t, source_ + ".type");
        const std::string typeKey = source_ + (param("rope_type") ? ".rope_type" : ".type");

        if (params_) {
            for (const auto& member : params_->members()) {
                const std::string& k = member.key;
                const Json& v = member.value;
                if (v.isNull()) continue;  // null stands for absent, as in Hugging Face
                const std::vector<kinds::KindField>& fields = kinds::scalingFields();
                const bool known = std::any_of(fields.begin(), fields.end(), [&](const kinds::KindField& f) { return !isType(f) && k == configKey(f.raw.name); }) ||
                                   std::any_of(std::begin(kOtherRopeKeys), std::end(kOtherRopeKeys), [&](const char* o) { return k == o; });
                if (k == "llama_4_scaling_beta" && family_->llama4Beta) continue;  // read by temperature()
                if (!known)
                    ignoreOrFail(source_ + "." + k, v,
                                 k == "llama_4_scaling_beta" ? "a query temperature read only by Ministral 3's code (model_type 'ministral3'); " + typeName() + "'s code ignores it"
                                                             : "no rotary code of Hugging Face reads it (rope validation only warns about unrecognised keys)",
                                 "", "is not a rotary field posenc knows, and " + unknownTypeNote() + ": refusing rather than ignoring it");
            }
        }
        multiAxis(type);
        if (type == "mrope") type = "default";
        if (family_->yarnMeansLongrope && (type == "yarn" || type == "su")) type = "longrope";  // Phi3Config's own rewrite

        if (type == "proportional") {
            proportional();
            return;
        }
        int index = -1;
        for (const NamedType& n : kScalingNames)
            if (type == n.name) index = static_cast<int>(n.type);
        if (index < 0) fail(typeKey, "must be one of 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional' (got '" + type + "')");
        const auto scalingType = static_cast<RopeScalingType>(index);
        if (scalingType == RopeScalingType::none) return;
        RopeScaling& s = out_.rope.scaling;
        s.type = scalingType;
        given("scaling.type", typeKey);
        // a reference into the registry: a local string would add a cleanup to every call below
        const std::string& typeName = registry::scalingTypes()[static_cast<std::size_t>(scalingType)];

        std::optional<std::int64_t> maxPos, original;
        if (const Json* m = field("max_position_embeddings")) maxPos = positiveInteger(*m, key("max_position_embeddings"));
        const Json* inParams = param("original_max_position_embeddings");
        const Json* topLevel = field("original_max_position_embeddings");
        if (inParams && !(family_->topLevelOriginal && topLevel)) original = positiveInteger(*inParams, source_ + ".original_max_position_embeddings");
        else if (topLevel) original = positiveInteger(*topLevel, key("original_max_position_embeddings"));

        // An explicit factor wins; without one (DeepSeek-V3 yarn, Phi-3 longrope) it is max / original.
        std::optional<double> factor;
        if (const Json* f = param("factor")) {
            factor = number(*f, source_ + ".factor");
            if (!(*factor >= 1) || !std::isfinite(*factor)) fail(source_ + ".factor", "must be a number >= 1 (got " + show(*factor) + ")");
        }
        const bool derive = !factor || (scalingType == RopeScalingType::yarn && options_.yarnFactor == HfConfigOptions::YarnFactor::legacy);
        if (derive && original && maxPos) {
            const double ratio = static_cast<double>(*maxPos) / static_cast<double>(*original);
            if (!(ratio >= 1))
                fail(key("max_position_embeddings"), "(" + std::to_string(*maxPos) + ") must be at least original_max_position_embeddings (" +
                                                         std::to_string(*original) + "): their ratio is the scaling factor");
            factor = ratio;
        }
        if (factor) s.factor = *factor, given("scaling.factor", param("factor") && !derive ? source_ + ".factor" : key("max_position_embeddings"));
        if (registry::scalingTakes(typeName, "originalMaxPositionEmbeddings")) {
            const auto L0 = original ? original : maxPos;
            if (!L0) fail(where_, "needs original_max_position_embeddings (or max_position_embeddings) for '" + type + "' scaling");
            s.originalMaxPositionEmbeddings = *L0;
            given("scaling.originalMaxPositionEmbeddings",
                  !original ? key("max_position_embeddings") : inParams && !(family_->topLevelOriginal && topLevel) ? source_ + ".original_max_position_embeddings" : key("original_max_position_embeddings"));
        }
        for (const kinds::KindField& field : kinds::scalingFields()) {
            if (isType(field)) continue;
            const kinds::KindField* f = &field;
            const std::string key = configKey(f->raw.name);
            const Json* v = param(key);
            const std::string path = source_ + "." + key;
            if (!registry::scalingTakes(typeName, f->raw.name)) continue;  // HF warns about fields a type does not use, and ignores them
            const std::string name = std::string("scaling.") + f->raw.name;
            const bool readAbove = readFirst(f->raw.name);  // factor, original length: read with their fallbacks
            if (readAbove ? !out_.isGiven(name) : !v) {
                if (registry::scalingRequires(typeName, f->raw.name)) fail(path, "is required by '" + type + "' scaling");
                continue;
            }
            if (readAbove) continue;
            f->read(ConfigValue(*v, path, std::string_view(f->raw.type) == "boolean"), f->raw.name, &s);
            given(name, path);
        }
        phimoeMscale(type);
    }

    // rope_type 'proportional' (transformers modeling_rope_utils._compute_proportional_rope_parameters,
    // Gemma 4's full-attention layers): the whole head rotates in the half layout, the first
    // int(partial_rotary_factor * head_dim // 2) pairs at base^(-2i/head_dim), the rest at frequency 0,
    // all divided by `factor` (default 1). posenc: partialRotaryFactor 1, frequencyFraction =
    // partial_rotary_factor (read above as partialRotaryFactor), linear scaling by a factor other than 1.
    void proportional() {
        RopeConfig& r = out_.rope;
        r.frequencyFraction = r.partialRotaryFactor;
        r.partialRotaryFactor = 1.0;
        for (std::size_t i = 0; i < out_.given.size(); ++i)
            if (out_.given[i] == "partialRotaryFactor") {
                const std::string from = keys_[i].second;
                out_.given.erase(out_.given.begin() + static_cast<std::ptrdiff_t>(i));
                keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(i));
                given("frequencyFraction", from);
                break;
            }
        if (const Json* f = param("factor")) {
            const double factor = number(*f, source_ + ".factor");
            if (!(factor >= 1) || !std::isfinite(factor)) fail(source_ + ".factor", "must be a number >= 1 (got " + show(factor) + ")");
            if (factor != 1) {
                r.scaling.type = RopeScalingType::linear;
                r.scaling.factor = factor;
                given("scaling.type", source_ + ".rope_type");
                given("scaling.factor", source_ + ".factor");
            }
        }
    }

    // PhiMoE (Phi-3.5-MoE) scales cos/sin by short_mscale up to the original length and long_mscale
    // beyond: one attention factor when they agree (as in every published config); otherwise the
    // choice depends on the sequence length, which a config cannot fix.
    void phimoeMscale(const std::string& type) {
        const Json* sm = param("short_mscale");
        const Json* lm = param("long_mscale");
        if (!sm && !lm) return;
        if (out_.rope.scaling.type != RopeScalingType::longrope)
            fail(source_ + "." + (sm ? "short_mscale" : "long_mscale"), "applies only to longrope scaling (got '" + type + "')");
        if (!sm || !lm) fail(source_ + "." + (sm ? "long_mscale" : "short_mscale"), "is required with " + (sm ? std::string("short_mscale") : "long_mscale"));
        const double a = number(*sm, source_ + ".short_mscale"), b = number(*lm, source_ + ".long_mscale");
        if (a != b)
            fail(source_ + ".short_mscale", "(" + show(a) + ") differs from long_mscale (" + show(b) +
                                                "): the attention factor would depend on the sequence length; posenc supports equal values");
        out_.rope.scaling.attentionFactor = a;
        given("scaling.attentionFactor", source_ + ".short_mscale");
    }

    // Qwen2-VL / Qwen2.5-VL M-RoPE sections, and Qwen3-VL's interleaved assignment.
    void multiAxis(const std::string& type) {
        const Json* sections = param("mrope_section");
        const Json* interleaved = param("mrope_interleaved");
        const std::string interleavedKey = interleaved ? source_ + ".mrope_interleaved" : key("mrope_interleaved");
        if (!interleaved) interleaved = field("mrope_interleaved");
        if (family_->mropeInterleaved) {
            // Qwen3-VL: mrope_section defaults to [24, 20, 20], and the code always interleaves.
            if (interleaved && !boolean(*interleaved, interleavedKey))
                fail(interleavedKey, "is false, but " + out_.modelType + "'s code always interleaves M-RoPE (apply_interleaved_mrope)");
            out_.rope.multiAxis = MultiAxis::mrope;
            out_.rope.mropeInterleaved = true;
            const std::string path = source_ + ".mrope_section";
            if (sections) readSections(*sections, path);
            else out_.rope.sections.assign(std::begin(family_->mropeDefault), std::end(family_->mropeDefault));
            given("multiAxis", path);
            given("sections", path);
            given("mropeInterleaved", interleavedKey);
            return;
        }
        if (!sections) {
            if (type == "mrope") fail(source_ + ".mrope_section", "is required by 'mrope'");
            if (interleaved) fail(source_ + ".mrope_interleaved", "needs mrope_section");
            return;
        }
        const std::string path = source_ + ".mrope_section";
        readSections(*sections, path);
        out_.rope.multiAxis = MultiAxis::mrope;
        given("multiAxis", path);
        given("sections", path);
        if (interleaved && boolean(*interleaved, interleavedKey)) {
            out_.rope.mropeInterleaved = true;
            given("mropeInterleaved", interleavedKey);
        }
    }

    void readSections(const Json& sections, const std::string& path) {
        if (!sections.isArray() || sections.empty()) failType(path, "must be an array of positive integers (got " + describeJson(sections) + ")");
        for (std::size_t i = 0; i < sections.size(); ++i)
            out_.rope.sections.push_back(static_cast<int>(positiveInteger(sections[i], path + "[" + std::to_string(i) + "]")));
    }
};

}  // namespace

bool HfRopeConfig::isGiven(std::string_view name) const {
    return std::find(given.begin(), given.end(), name) != given.end();
}

namespace {

Json parseConfig(std::string_view text) {
    try {
        return json::parse(text);
    } catch (const json::ParseError& e) {  // a syntax error, or a number beyond double's range (8e1515)
        fail("config", std::string("is not valid JSON: ") + e.what());
    }
}

// Every range check of the schedule, before the caller uses it; the message names the config.json
// key the offending value came from (ropeFrequencies names posenc's own option).
void checkSchedule(const HfRopeConfig& out, const Reader& reader) {
    try {
        ropeFrequencies(out.rope);
    } catch (const std::invalid_argument& e) {
        std::string message = e.what();
        std::size_t best = 0;
        const std::string* from = nullptr;
        for (const auto& [name, key] : reader.keys_)
            if (name.size() > best && message.compare(0, name.size(), name) == 0 &&
                (message.size() == name.size() || message[name.size()] == ' ' || message[name.size()] == '['))
                best = name.size(), from = &key;
        if (!from) throw std::invalid_argument("config: " + message);
        throw std::invalid_argument(*from + message.substr(best));
    }
}

}  // namespace

HfRopeConfig ropeConfigFromHF(std::string_view text, const HfConfigOptions& options) {
    const Json root = parseConfig(text);
    Reader reader(root, options);
    HfRopeConfig out = reader.read();
    checkSchedule(out, reader);
    return out;
}

detail::HfLayerReading detail::readHfLayer(std::string_view text, int layer, const HfConfigOptions& options) {
    if (layer < 0) fail("layer", "must be a layer index >= 0 (got " + std::to_string(layer) + ")");
    if (!options.layerType.empty())
        fail("layerType", "is not an option here: the layer's own type (from `layer`) chooses its rotary table");
    const Json root = parseConfig(text);
    Reader reader(root, options, layer);
    HfLayerReading out = reader.readLayer();
    if (out.terms.rotary) checkSchedule(out.config, reader);
    return out;
}

void detail::writeRopeOptions(json::Writer& w, const HfRopeConfig& r, const char* kind) {
    const RopeConfig& c = r.rope;
    const RopeScaling& s = c.scaling;
    w.open('{');
    if (kind) w.key("kind").string(kind);
    w.key("headDim").number(c.headDim).key("base").number(c.base);
    w.key("layout").string(r.layout == RopeLayout::half ? "half" : "interleaved");
    if (r.isGiven("partialRotaryFactor")) w.key("partialRotaryFactor").number(c.partialRotaryFactor);
    if (r.isGiven("rotaryOffset")) w.key("rotaryOffset").number(c.rotaryOffset);
    if (r.isGiven("multiAxis")) w.key("multiAxis").string("mrope");
    if (r.isGiven("sections")) w.key("sections").numbers(c.sections);
    if (r.isGiven("mropeInterleaved")) w.key("mropeInterleaved").boolean(c.mropeInterleaved);
    if (r.isGiven("frequencyFraction")) w.key("frequencyFraction").number(c.frequencyFraction);
    if (r.isGiven("scaling.type")) {
        w.key("scaling").open('{').key("type").string(registry::scalingTypes().at(static_cast<std::size_t>(s.type)));
        for (const kinds::KindField& f : kinds::scalingFields())  // the registry's scaling keys, in its order
            if (!isType(f) && r.isGiven(std::string("scaling.") + f.raw.name)) f.write(w.key(f.raw.name), &s);
        w.close('}');
    }
    w.close('}');
}

std::string toJson(const HfRopeConfig& r) {
    json::Writer w;
    w.open('{').key("rope");
    detail::writeRopeOptions(w, r);
    w.key("ignored").open('[');
    for (const HfIgnoredKey& i : r.ignored) w.open('{').key("key").string(i.key).key("value").raw(i.value).key("reason").string(i.reason).close('}');
    w.close(']').key("warnings").strings(r.warnings).key("temperature");
    if (r.temperature) {
        w.open('{').key("kind").string("temperature").key("beta").number(r.temperature->beta);
        w.key("length").number(static_cast<double>(r.temperature->length)).key("offset").number(static_cast<double>(r.temperature->offset)).close('}');
    } else {
        w.null();
    }
    const HfAttentionShape& a = r.attention;
    w.key("attention").open('{').key("heads").number(a.heads).key("kvHeads").number(a.kvHeads).key("headDim").number(a.headDim);
    w.key("slidingWindow").number(a.slidingWindow).key("layers").open('[');
    for (const HfLayer& l : a.layers) {
        w.open('{').key("type").string(l.type).key("rope").boolean(l.rope).key("window").number(l.window).key("chunk").number(l.chunk);
        w.key("temperature").boolean(l.temperature).close('}');
    }
    return w.close(']').close('}').close('}').text();
}

}  // namespace posenc
