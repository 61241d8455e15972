#include "posenc/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "common/json.hpp"
#include "registry_check.hpp"
#include "registry_build.hpp"
#include "registry_fields.hpp"
#include "posenc/describe.hpp"
#include "posenc/posenc.hpp"

namespace posenc::registry {

namespace {

// Each field's description is written next to it for readers of this table, but not compiled in: the
// user documentation is bindings/index.d.ts (held to these tables by tests/node/strict-options.test.mjs).
// (The encoding kinds' fields, in src/encodings/, keep theirs: the registry's JSON carries them, and
// scripts/gen-types.mjs writes bindings/options.d.ts from it.)
//
// The source data: plain constant arrays (strings as literals, choices as "a|b|c"), so the registry
// costs its text and a short loop, not code per field. tables() turns them into the Table structs.
// The rope kind's keys (src/encodings/rope.cpp) open every rope options object; outside an encoding,
// `kind` may still be given (as 'rope'), so one rope encoding object works anywhere.
constexpr Raw kRopeKind[] = {{"kind", "", "rope"}};  // only 'rope': lets a rope encoding be passed as it is
constexpr Raw kHeadDim[] = {req("headDim", "integer", "channels per head")};  // ropeFrequencies: replaces the optional one

constexpr Raw kOut = opt("out", "FloatOut", "write the result here instead of allocating");
// K / V given as f16 or bf16 bit patterns (a Uint16Array) instead of floats; no default: floats.
constexpr Raw kKvType = {"kvType", "", "f16|bf16"};  // "k and v are Uint16Array bit patterns of this format"

constexpr Raw kSinusoidal[] = {
    req("dim", "integer", "width of each row"),
    num("base", "number", "wavelength base", POSENC_DEFAULT(SinusoidalOptions().base)),
    pick("layout", "interleaved|concat|tensor2tensor", "channel order", POSENC_DEFAULT(SinusoidalOptions().layout)),
    atLeast(0, opt("paddingIdx", "integer", "that position's row is zeros (fairseq; pair with positionIds style 'roberta')")),
    kOut,
};
constexpr Raw kLearned[] = {
    req("table", "FloatInput", "[rows, dim]"),
    req("dim", "integer"),
    pick("outOfRange", "error|clamp|interpolate", "what a position past the table does", POSENC_DEFAULT(LearnedOptions().outOfRange)),
    opt("interpolateTo", "integer", "rows to stretch the table to (outOfRange 'interpolate')"),
    kOut,
};
constexpr Raw kPositionIds[] = {
    num("batch", "integer", "rows of the mask", POSENC_DEFAULT(1)),
    opt("length", "integer", "tokens per row (default: mask length / batch)"),
    pick("style", "hf|roberta", "'hf' = cumsum − 1 + past; 'roberta' = (cumsum + past)·mask + paddingIdx", POSENC_DEFAULT(PositionIdStyle::hf)),
    atLeast(0, num("paddingIdx", "integer", "style 'roberta': the padding position", POSENC_DEFAULT(1))),
    atLeast(0, num("past", "integer", "tokens already seen", POSENC_DEFAULT(0))),
};
constexpr Raw kNextPositions[] = {
    num("batch", "integer", "rows of the mask", POSENC_DEFAULT(1)),
    opt("length", "integer", "tokens per row (default: mask length / batch)"),
    atLeast(0, num("past", "integer", "tokens already seen", POSENC_DEFAULT(0))),
};
constexpr Raw kModalityPositions[] = {
    req("offsets", "IntInput", "first position of each modality"),
    opt("lengths", "IntInput", "positions reserved per modality"),
};
constexpr Raw kBinary[] = {
    req("bits", "integer", "digits per code"),
    opt("dim", "integer", "output width (default: bits)"),
    pick("code", "binary|gray", "digit code", POSENC_DEFAULT(CodeOptions().code)),
    atLeast(2, num("radix", "integer", "digit base", POSENC_DEFAULT(CodeOptions().radix))),
    opt("table", "FloatInput", "learned vectors [bits, radix, dim] (default: ±1 digits)"),
    kOut,
};
constexpr Raw kCodeDistance[] = {
    req("bits", "integer", "digits per code"),
    pick("code", "binary|gray", "digit code", POSENC_DEFAULT(CodeOptions().code)),
    atLeast(2, num("radix", "integer", "digit base", POSENC_DEFAULT(CodeOptions().radix))),
};
constexpr Raw kLowRank[] = {
    req("coefficients", "FloatInput", "[positions, rank]"), req("basis", "FloatInput", "[rank, dim]"), req("rank", "integer"), req("dim", "integer"), kOut,
};
constexpr Raw kSparse[] = {
    req("indices", "IntInput", "k basis rows per position"),
    req("values", "FloatInput", "their weights, like indices"),
    req("k", "integer", "nonzeros per position"),
    req("basis", "FloatInput", "[basisSize, dim]"),
    req("dim", "integer"),
    kOut,
};
constexpr Raw kRandomFeatures[] = {
    req("dim", "integer"),
    upTo(9007199254740991.0, atLeast(0, num("seed", "integer", "the features are a function of the seed", POSENC_DEFAULT(RandomFeatureOptions().seed)))),
    pick("kind", "fourier|mlp", "feature map", POSENC_DEFAULT(RandomFeatureOptions().kind)),
    num("sigma", "number", "frequency spread", POSENC_DEFAULT(RandomFeatureOptions().sigma)),
    num("scale", "number", "position scale", POSENC_DEFAULT(RandomFeatureOptions().scale)),
    num("hidden", "integer", "kind 'mlp': hidden width", POSENC_DEFAULT(RandomFeatureOptions().hidden)),
    kOut,
};
constexpr Raw kAxial[] = {
    req("shape", "IntInput", "axis sizes [s0, s1, ...]"),
    req("tables", "FloatInput[]", "one [s_a, d_a] table per axis"),
    req("dims", "IntInput", "width of each axis table"),
    pick("combine", "concat|sum", "how the axis vectors combine", POSENC_DEFAULT(AxialOptions().combine)),
    kOut,
};
constexpr Raw kTwoLevel[] = {
    req("segmentTable", "FloatInput", "[segments, segmentDim]"),
    req("innerTable", "FloatInput", "[positions in a segment, innerDim]"),
    req("segmentDim", "integer"),
    req("innerDim", "integer"),
    pick("combine", "concat|sum", "how the two vectors combine", POSENC_DEFAULT(AxialOptions().combine)),
    kOut,
};
constexpr Raw kFrames[] = {req("frames", "integer")};
constexpr Raw kSine[] = {
    req("height", "integer"),
    req("width", "integer"),
    num("numPosFeats", "integer", "channels per axis", POSENC_DEFAULT(SineNdOptions().numPosFeats)),
    num("temperature", "number", "wavelength base", POSENC_DEFAULT(SineNdOptions().temperature)),
    flag("normalize", "scale the cumulative positions to [0, scale]", POSENC_DEFAULT(SineNdOptions().normalize)),
    num("scale", "number", "range after normalize", POSENC_DEFAULT(SineNdOptions().scale)),
    opt("mask", "MaskInput", "1 = valid cell (HF polarity)"),
    kOut,
};
constexpr Raw kResizeGrid[] = {
    req("from", "[number, number]", "grid size [h, w]"),
    req("to", "[number, number]", "new size [h, w]"),
    req("dim", "integer"),
    pick("mode", "bicubic|bilinear", "interpolation", POSENC_DEFAULT(ResizeOptions().mode)),
    pick("mapping", "size|scaleFactor", "how output cells map to input cells (timm 'size', DINO 'scaleFactor')", POSENC_DEFAULT(ResizeOptions().mapping)),
    atLeast(0, num("prefixTokens", "integer", "rows before the grid (CLS, ...), copied unchanged", POSENC_DEFAULT(ResizeOptions().prefixTokens))),
    kOut,
};
constexpr Raw kT5Bucket[] = {
    flag("bidirectional", "keys after the query get their own buckets", POSENC_DEFAULT(T5BucketOptions().bidirectional)),
    num("numBuckets", "integer", "", POSENC_DEFAULT(T5BucketOptions().numBuckets)),
    num("maxDistance", "integer", "distances beyond share the last bucket", POSENC_DEFAULT(T5BucketOptions().maxDistance)),
};
constexpr Raw kDebertaBucket[] = {
    atLeast(0, req("bucketSize", "integer", "0 = no log bucketing")),
    req("maxPosition", "integer"),
    pick("convention", "hf|microsoft", "they differ beyond maxPosition", POSENC_DEFAULT(DebertaBucketOptions().convention)),
};
constexpr Raw kApplyRope[] = {flag("inPlace", "rotate x where it lies", POSENC_DEFAULT(false)), kOut};
constexpr Raw kShape[] = {req("heads", "integer"), req("tokens", "integer"), req("headDim", "integer")};
constexpr Raw kHfConfig[] = {
    opt("layerType", "string", "which rotary table of a config with one per layer type (Gemma 3: 'full_attention' | 'sliding_attention')"),
    pick("yarnFactor", "explicit|legacy", "YaRN factor rule: the factor field, or max/original positions (transformers 4.46–4.50)", POSENC_DEFAULT(HfConfigOptions().yarnFactor)),
    flag("strict", "refuse what the reading would warn about: keys the model type's Hugging Face code ignores, a missing model_type (default: ignore and list them in `warnings`)", POSENC_DEFAULT(HfConfigOptions().strict)),
    pick("unknownModelType", "error|generic", "a model_type posenc does not know: an error naming the nearest known types, or read with the generic Llama rules", POSENC_DEFAULT(HfConfigOptions().unknownModelType)),
};
// attentionConfigFromHF: the layer, then the reader's options but layerType (the layer's own type picks its table).
constexpr Raw kAttentionConfig[] = {
    atLeast(0, req("layer", "integer", "the decoder layer, 0 … num_hidden_layers − 1")),
    pick("yarnFactor", "explicit|legacy", "YaRN factor rule: the factor field, or max/original positions (transformers 4.46–4.50)", POSENC_DEFAULT(HfConfigOptions().yarnFactor)),
    flag("strict", "refuse what the reading would warn about: keys the model type's Hugging Face code ignores, a missing model_type (default: ignore and list them in `warnings`)", POSENC_DEFAULT(HfConfigOptions().strict)),
    pick("unknownModelType", "error|generic", "a model_type posenc does not know: an error naming the nearest known types, or read with the generic Llama rules", POSENC_DEFAULT(HfConfigOptions().unknownModelType)),
};
constexpr Raw kAttention[] = {
    req("q", "FloatInput", "[heads, qLen, headDim]"),
    req("k", "KVInput", "[kvHeads, kLen, headDim]: floats, or f16 / bf16 bits with kvType"),
    req("v", "KVInput", "[kvHeads, kLen, valueDim]: floats, or f16 / bf16 bits with kvType"),
    kKvType,
    req("heads", "integer"),
    opt("kvHeads", "integer", "fewer than heads: grouped-query attention (default: heads)"),
    req("headDim", "integer"),
    opt("valueDim", "integer", "channels of v and out when they differ from headDim (DeepSeek MLA; default: headDim)"),
    req("qLen", "integer"),
    req("kLen", "integer"),
    opt("qPositions", "IntInput", "default: the last qLen key positions"),
    opt("kPositions", "IntInput", "default: 0 … kLen−1; [axes, kLen] with multi-axis rope"),
    opt("maskPositions", "IntInput", "multi-axis rope: [kLen] sequence index masks and score terms use (queries: the last qLen); default 0 … kLen−1"),
    flag("causal", "", POSENC_DEFAULT(AttentionRequest().causal)),
    opt("window", "integer", "admit a key when 0 ≤ qPos − kPos < window"),
    opt("chunk", "integer", "admit a key when kPos / chunk = qPos / chunk (Llama 4's chunked layers)"),
    opt("keyMask", "MaskInput", "[kLen], 1 = attend"),
    opt("scale", "number", "multiplies the content terms (default: per encoding)"),
    opt("encoding", "Encoding", "position terms (default: { kind: 'none' })"),
    opt("sinkLogits", "FloatInput", "[heads] learned logits in every row's softmax denominator, weighing no value (gpt-oss)"),
    opt("softcap", "number", "> 0: each logit becomes softcap·tanh(logit / softcap) before the mask (Gemma 2)"),
    flag("returnWeights", "", POSENC_DEFAULT(false)),
    flag("returnScores", "the final pre-softmax logits", POSENC_DEFAULT(false)),
    kOut,
};

constexpr Raw kKVCache[] = {
    num("batch", "integer", "", POSENC_DEFAULT(KVCacheConfig().batch)),
    req("kvHeads", "integer"),
    req("headDim", "integer"),
    opt("valueDim", "integer", "channels of the values (and attend's output) when they differ from headDim (DeepSeek MLA; default: headDim)"),
    req("capacity", "integer", "slots per row"),
    opt("window", "integer", "keep only the last window tokens (ring buffer) after the sinks"),
    atLeast(0, num("sinks", "integer", "first tokens that are always kept", POSENC_DEFAULT(KVCacheConfig().sinks))),
    opt("chunk", "integer", "attend shows a query only its own chunk's keys, position / chunk (Llama 4); with window = chunk the cache holds one chunk"),
    opt("rope", "KVCacheRope", "rotates keys at their logical positions"),
    pick("dynamic", "fixed|hf", "dynamic NTK: 'fixed' keeps the configured schedule; 'hf' re-derives it as the cache grows (as Hugging Face)",
         POSENC_DEFAULT(KVCacheConfig().dynamic)),
    pick("storage", "f32|f16|bf16|q8", "how keys (after RoPE) and values are held: float32, f16, bf16 or ggml's Q8_0 (headDim a multiple of 32)",
         POSENC_DEFAULT(KVCacheConfig().storage)),
    flag("forgetting", "forgetting attention: every append gives logForget, the cache keeps each token's cumulative log gate per head",
         POSENC_DEFAULT(KVCacheConfig().forgetting)),
};
constexpr Raw kAppend[] = {
    opt("positions", "IntInput", "[batch·T] (default: each row's next positions); [batch, axes, T] with multi-axis rope"),
    opt("mask", "MaskInput", "[batch·T], 1 = real token"),
    opt("maskPositions", "IntInput", "multi-axis rope: [batch·T] sequence index each slot keeps (default: each row's next positions)"),
    opt("logForget", "FloatInput", "[batch, heads, T] log forget gates, each finite and ≤ 0: required by a cache created with forgetting, refused otherwise"),
    kKvType,
};
constexpr Raw kAttend[] = {
    req("heads", "integer"),
    opt("encoding", "Encoding", "score terms on top of the cache rope"),
    opt("qPositions", "IntInput", "[batch·qLen] (default: each row's last qLen positions); [batch, axes, qLen] with multi-axis rope"),
    opt("maskPositions", "IntInput", "multi-axis rope: [batch·qLen] sequence index of each query (default: each row's last qLen)"),
    flag("causal", "", POSENC_DEFAULT(true)),
    opt("scale", "number", "multiplies the content terms"),
    opt("sinkLogits", "FloatInput", "[heads] learned logits in every row's softmax denominator, weighing no value (gpt-oss)"),
    opt("softcap", "number", "> 0: each logit becomes softcap·tanh(logit / softcap) before the mask (Gemma 2)"),
    kOut,
};

// parameterCount: the shapes of each method's learned tables (fixed functions learn none).
constexpr Raw size(const char* name) { return req(name, "integer"); }
constexpr Raw kLearnedShape[] = {size("maxPositions"), size("dim")};
constexpr Raw kBinaryShape[] = {size("bits"), size("dim"), atLeast(2, num("radix", "integer", "", POSENC_DEFAULT(CodeOptions().radix))), flag("learned", "false: fixed ±1 digits", POSENC_DEFAULT(true))};
constexpr Raw kLowRankShape[] = {size("maxPositions"), size("rank"), size("dim")};
constexpr Raw kSparseShape[] = {size("maxPositions"), size("k"), size("basisSize"), size("dim")};
constexpr Raw kAxialShape[] = {req("shape", "IntInput"), req("dims", "IntInput")};

struct Part {
    const Raw* begin = nullptr;
    const Raw* end = nullptr;
};
template <std::size_t N>
constexpr Part part(const Raw (&a)[N]) { return {a, a + N}; }

// Where a table's fields come from besides its parts: the rope kind's keys first, RopeScaling's keys,
// or a place for the encoding kinds' tables (src/encodings/: 'encoding.<kind>', 'parameterCount.<kind>').
enum class From { parts, rope, scaling, kindTables, fixedKindCounts, learnedKindCounts };

struct RawTable {
    const char* name;
    const char* interface;  // "" = none
    Part parts[3];          // concatenated; a later field replaces an earlier one of the same name
    From from = From::parts;
};

constexpr RawTable kTables[] = {
    {"sinusoidal", "SinusoidalOptions", {part(kSinusoidal)}},
    {"learned", "LearnedOptions", {part(kLearned)}},
    {"positionIds", "PositionIdsOptions", {part(kPositionIds)}},
    {"nextPositions", "NextPositionsOptions", {part(kNextPositions)}},
    {"modalityPositions", "ModalityPositionsOptions", {part(kModalityPositions)}},
    {"binary", "BinaryOptions", {part(kBinary)}},
    {"codeDistance", "CodeDistanceOptions", {part(kCodeDistance)}},
    {"lowRank", "LowRankOptions", {part(kLowRank)}},
    {"sparse", "SparseOptions", {part(kSparse)}},
    {"randomFeatures", "RandomFeaturesOptions", {part(kRandomFeatures)}},
    {"axial", "AxialOptions", {part(kAxial)}},
    {"twoLevel", "TwoLevelOptions", {part(kTwoLevel)}},
    {"sine2d", "Sine2dOptions", {part(kSine)}},
    {"sine3d", "Sine3dOptions", {part(kFrames), part(kSine)}},
    {"resizeGrid", "ResizeGridOptions", {part(kResizeGrid)}},
    {"t5Bucket", "T5BucketOptions", {part(kT5Bucket)}},
    {"debertaBucket", "DebertaBucketOptions", {part(kDebertaBucket)}},
    {"ropeFrequencies", "RopeOptions", {part(kRopeKind), part(kHeadDim)}, From::rope},
    {"applyRope", "ApplyRopeOptions", {part(kRopeKind), part(kApplyRope)}, From::rope},
    {"shape", "HeadsShape", {part(kShape)}},
    {"scaling", "RopeScaling", {}, From::scaling},
    {"ropeConfigFromHF", "HfConfigOptions", {part(kHfConfig)}},
    {"attentionConfigFromHF", "AttentionConfigOptions", {part(kAttentionConfig)}},
    {"attention", "AttentionArgs", {part(kAttention)}},
    {"", "", {}, From::kindTables},
    {"KVCache", "KVCacheOptions", {part(kKVCache)}},
    {"KVCache.rope", "KVCacheRope", {part(kRopeKind)}, From::rope},
    {"KVCache.append", "AppendOptions", {part(kAppend)}},
    {"KVCache.attend", "AttendOptions", {part(kAttend)}},
    {"parameterCount.sinusoidal", "", {}},
    {"", "", {}, From::fixedKindCounts},
    {"parameterCount.sine2d", "", {}},
    {"parameterCount.sine3d", "", {}},
    {"parameterCount.randomFeatures", "", {}},
    {"parameterCount.learned", "LearnedShape", {part(kLearnedShape)}},
    {"parameterCount.binary", "BinaryShape", {part(kBinaryShape)}},
    {"parameterCount.lowRank", "LowRankShape", {part(kLowRankShape)}},
    {"parameterCount.sparse", "SparseShape", {part(kSparseShape)}},
    {"parameterCount.axial", "AxialShape", {part(kAxialShape)}},
    {"", "", {}, From::learnedKindCounts},
};

std::vector<std::string> split(const char* list) {
    std::vector<std::string> out;
    std::string s(list);
    for (std::size_t at = 0; !s.empty() && at <= s.size();) {
        const std::size_t bar = std::min(s.find('|', at), s.size());
        out.push_back(s.substr(at, bar - at));
        at = bar + 1;
    }
    return out;
}

Field field(const Raw& r, const char* doc = "") {
    Field f;
    f.name = r.name;
    f.type = r.type;
    f.choices = split(r.choices);
    f.required = r.required;
    f.value.kind = r.kind;
    if (r.kind == Default::Kind::number) f.value.number = r.value();
    if (r.kind == Default::Kind::boolean) f.value.boolean = r.value() != 0;
    if (r.kind == Default::Kind::string) f.value.string = f.choices.at(static_cast<std::size_t>(r.value()));
    if (r.kind == Default::Kind::strings) f.value.strings = split(r.text);
    f.types = split(r.types);
    f.requiredBy = split(r.requiredBy);
    f.min = r.min;
    f.max = r.max;
    if (const double limit = limits::forField(r.name); limit > 0 && limit < f.max) f.max = limit;
    f.doc = doc;
    return f;
}

// Adds `f`, or replaces the field of the same name.
void put(Table& t, Field f) {
    for (Field& k : t.keys)
        if (k.name == f.name) {
            k = std::move(f);
            return;
        }
    t.keys.push_back(std::move(f));
}

const kinds::KindSpec& kindNamed(const Kinds& kinds, const char* name) {
    for (const kinds::KindSpec* k : kinds)
        if (std::string(k->name) == name) return *k;
    throw std::logic_error(std::string("registry: no kind '") + name + "'");
}

void addFields(Table& t, kinds::Span<kinds::KindField> fields) {
    for (const kinds::KindField& f : fields) put(t, field(f.raw, f.doc));
}

// The kinds as describe() lists them: by family (rotary, query, score), each in kind order.
Kinds byFamily(const Kinds& kinds) {
    Kinds out;
    for (const kinds::Family f : {kinds::Family::none, kinds::Family::rotary, kinds::Family::query, kinds::Family::score})
        for (const kinds::KindSpec* k : kinds)
            if (k->family == f) out.push_back(k);
    return out;
}

// Whether a kind has a parameterCount table, and whether it takes shape keys.
bool counted(const kinds::KindSpec& k) { return std::string(k.describe.parameterMethod) != "-"; }

}  // namespace

Built build(const Kinds& kinds) {
    Built out;
    out.kinds = kinds;
    for (const kinds::KindSpec* k : kinds) out.kindNames.push_back(k->name);
    for (const RawTable& raw : kTables) {
        if (raw.from == From::kindTables) {
            for (const kinds::KindSpec* k : kinds) {
                Table t{std::string("encoding.") + k->name, k->interface, {}};
                Field kind;
                kind.name = "kind";
                kind.choices = {k->name};
                kind.required = true;
                t.keys.push_back(kind);
                addFields(t, k->fields);
                out.tables.push_back(std::move(t));
            }
            continue;
        }
        if (raw.from == From::fixedKindCounts || raw.from == From::learnedKindCounts) {
            for (const kinds::KindSpec* k : byFamily(kinds)) {  // as describe() lists them
                if (!counted(*k) || k->shape.empty() != (raw.from == From::fixedKindCounts)) continue;
                Table t{std::string("parameterCount.") + k->name, k->shapeInterface, {}};
                for (const Raw& r : k->shape) put(t, field(r));
                out.tables.push_back(std::move(t));
            }
            continue;
        }
        Table t{raw.name, raw.interface, {}};
        if (raw.from == From::rope) addFields(t, kindNamed(kinds, "rope").fields);
        if (raw.from == From::scaling) addFields(t, kinds::scalingFields());
        for (const Part& p : raw.parts)
            for (const Raw* r = p.begin; r != p.end; ++r) put(t, field(*r));
        out.tables.push_back(std::move(t));
    }
    return out;
}

namespace {

bool contains(const std::vector<std::string>& list, const std::string& s) { return std::find(list.begin(), list.end(), s) != list.end(); }

std::string either(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? " or '" : "'") + names[i] + "'";
    return s;
}

}  // namespace

const Field* Table::find(std::string_view key) const {
    for (const Field& f : keys)
        if (f.name == key) return &f;
    return nullptr;
}

const Built& standard() {
    static const Built b = build(kinds::standard());
    return b;
}

const std::vector<Table>& tables() { return standard().tables; }

const Table& table(std::string_view name) {
    for (const Table& t : tables())
        if (t.name == name) return t;
    throw std::invalid_argument("no options table '" + std::string(name) + "'");
}

const std::vector<std::string>& encodingKinds() { return standard().kindNames; }

const std::vector<std::string>& scalingTypes() {
    static const std::vector<std::string> types = [] {
        std::vector<std::string> t = table("scaling").find("type")->choices;
        t.resize(t.size() - scalingAliases().size());  // the aliases follow the RopeScalingType names
        return t;
    }();
    return types;
}

const std::vector<Alias>& scalingAliases() {
    static const std::vector<Alias> aliases = {{"default", "none"}, {"su", "longrope"}, {"ntk_aware", "ntk"}};
    return aliases;
}

bool scalingTakes(const std::string& type, std::string_view field) { return contains(table("scaling").find(field)->types, type); }
bool scalingRequires(const std::string& type, std::string_view field) { return contains(table("scaling").find(field)->requiredBy, type); }

void checkScalingKeys(const std::string& type, const std::function<bool(const std::string&)>& given, const std::string& prefix) {
    const Table& t = table("scaling");
    for (const Field& f : t.keys)
        if (f.name != "type" && given(f.name) && !contains(f.types, type))
            failType(prefix + f.name, "does not apply to '" + type + "' scaling (it belongs to " + either(f.types) + " scaling)");
    for (const Field& f : t.keys)
        if (contains(f.requiredBy, type) && !given(f.name)) fail(prefix + f.name, "is required by '" + type + "' scaling");
}

void validateScaling(const RopeScaling& s) {
    checkScalingKeys(scalingTypes().at(static_cast<std::size_t>(s.type)), [&](const std::string& name) {
        for (const kinds::KindField& f : kinds::scalingFields())
            if (name == f.raw.name) return f.given && f.given(&s);
        return false;
    }, "scaling.");
}

struct MethodExtras {
    const char* kind;
    std::vector<kinds::Link> paper, code;
    const char* example;
};
const MethodExtras* extrasOf(const std::string& kind);

namespace {
void links(json::Writer& w, const char* key, kinds::Span<kinds::Link> links) {
    w.key(key);
    if (links.empty()) {
        w.null();
        return;
    }
    w.open('[');
    for (const kinds::Link& l : links) w.open('[').string(l.text).string(l.url).close(']');
    w.close(']');
}
}  // namespace

std::string json() { return json(standard()); }

std::string json(const Built& registry) {
    json::Writer w;
    w.open('{').key("tables").open('{');
    for (const Table& t : registry.tables) {
        w.key(t.name).open('{').key("interface");
        if (t.interface.empty()) w.null();
        else w.string(t.interface);
        w.key("keys").open('{');
        for (const Field& f : t.keys) {
            w.key(f.name).open('{').key("type");
            if (f.choices.empty()) w.string(f.type);
            else w.strings(f.choices);
            if (f.required) w.key("required").boolean(true);
            if (f.type == "integer" && f.min != Field::kNoMin) w.key("min").number(f.min);
            if (f.type == "integer" && f.max != kIntMax) w.key("max").number(f.max);
            switch (f.value.kind) {
                case Default::Kind::none: break;
                case Default::Kind::number: w.key("default").number(f.value.number); break;
                case Default::Kind::boolean: w.key("default").boolean(f.value.boolean); break;
                case Default::Kind::string: w.key("default").string(f.value.string); break;
                case Default::Kind::strings: w.key("default").strings(f.value.strings); break;
            }
            if (t.name == "scaling" && f.name != "type") w.key("types").strings(f.types).key("requiredBy").strings(f.requiredBy);
            if (!f.doc.empty()) w.key("doc").string(f.doc);
            w.close('}');
        }
        w.close('}').close('}');
    }
    w.close('}').key("encodingKinds").strings(registry.kindNames).key("scalingTypes").strings(scalingTypes()).key("scalingAliases").open('{');
    for (const Alias& a : scalingAliases()) w.key(a.name).string(a.type);
    w.close('}').key("describe").open('[');
    const std::vector<MethodDescription> rows = describeRows(registry.kinds);
    for (const MethodDescription& d : rows) {
        w.open('{').key("kind").string(d.kind).key("family").string(d.family).key("encodes").string(d.encodes).key("parameters").string(d.parameters);
        w.key("parameterMethod");
        if (d.parameterMethod == "-") w.null();
        else w.string(d.parameterMethod.empty() ? d.kind : d.parameterMethod);
        w.key("extrapolates").boolean(d.extrapolates).key("extrapolation").string(d.extrapolation).key("kvCacheFriendly").boolean(d.kvCacheFriendly);
        w.key("kvCache").string(d.kvCache).key("reference").string(d.reference).key("usedIn").string(d.usedIn).close('}');
    }
    // per describe() row: its paper and upstream code, the demo's example shapes; a kind's options
    // example (for exampleCall) and traits
    w.close(']').key("exampleCall").raw(kinds::kExampleCall).key("methods").open('{');
    for (const MethodDescription& d : rows) {
        w.key(d.kind).open('{');
        if (const MethodExtras* x = extrasOf(d.kind)) {
            links(w, "paper", x->paper), links(w, "code", x->code);
            w.key("example");
            if (*x->example) w.raw(x->example);
            else w.null();
        }
        for (const kinds::KindSpec* k : registry.kinds)
            if (d.kind == k->name) {
                links(w, "paper", k->paper), links(w, "code", k->code);
                w.key("example");
                if (*k->example) w.raw(k->example);
                else w.null();
                w.key("options");
                if (*k->options) w.raw(k->options);
                else w.null();
                w.key("scalarBias").boolean(k->scalarBias).key("perQueryState").boolean(k->perQueryState).key("stickBreaking").boolean(k->stickBreaking);
            }
        w.close('}');
    }
    return w.close('}').close('}').text();
}


RopeEncoding ropeFrom(const Source& s) { return std::get<RopeEncoding>(encodingFrom(kinds::specOf<RopeEncoding>(), s)); }

Encoding encodingFrom(const kinds::KindSpec& k, const Source& s) {
    if (!k.from) throw std::logic_error(std::string("registry: kind '") + k.name + "' has no alternative in posenc::Encoding");
    return k.from(k, s);
}

Encoding encodingFrom(const Source& s) {
    const std::string kind = s.text("kind");
    for (const kinds::KindSpec* k : standard().kinds)
        if (kind == k->name) return encodingFrom(*k, s);
    fail("encoding.kind", "must be one of the registered kinds (got '" + kind + "')");
}

namespace {
// A kind's formula over the shape `s` gives, each key checked against the kind's table `t`.
class ShapeOf final : public kinds::Shape {
public:
    ShapeOf(const Table& t, const Source& s) : t_(t), s_(s) {}
    double operator()(const char* key) const override {
        const Field* f = t_.find(key);
        if (!f) throw std::logic_error("registry: " + t_.name + " has no key '" + key + "'");  // a formula's typo
        double v = f->value.kind == Default::Kind::boolean ? f->value.boolean : f->value.number;
        if (s_.has(key)) v = s_.number(key);
        else if (f->value.kind == Default::Kind::none) fail(key, "is required");
        if (f->type == "integer" && (v < f->min || v > f->max || v != std::floor(v))) {
            const std::string what = f->min == 1 ? "a positive integer" : f->min == 0 ? "a non-negative integer"
                                                                                     : "an integer in [" + std::to_string(f->min) + ", 2147483647]";
            fail(key, "must be " + what + " (got " + show(v) + ")");
        }
        return v;
    }
    std::vector<double> numbers(const char* key) const override { return s_.numbers(key); }

private:
    const Table& t_;
    const Source& s_;
};
}  // namespace

double parameterCount(const std::string& method, const Source& s) {
    const Table& t = table("parameterCount." + method);
    const ShapeOf get(t, s);
    auto list = [&](const char* key) {
        const std::vector<double> v = s.numbers(key);
        for (std::size_t i = 0; i < v.size(); ++i)
            if (!(v[i] >= 1) || v[i] != std::floor(v[i])) fail(std::string(key) + "[" + std::to_string(i) + "]", "must be in [1, 2147483647] (got " + show(v[i]) + ")");
        return v;
    };
    if (t.keys.empty()) return 0;  // a fixed function: nothing learned
    for (const kinds::KindSpec* k : standard().kinds)
        if (method == k->name) return k->parameters ? k->parameters(get) : 0;
    if (method == "learned") return get("maxPositions") * get("dim");
    if (method == "binary") return get("bits") * get("dim") * get("radix") * (get("learned") != 0);  // fixed ±1 digits learn nothing
    if (method == "lowRank") return (get("maxPositions") + get("dim")) * get("rank");
    if (method == "sparse") return get("maxPositions") * get("k") + get("basisSize") * get("dim");
    if (method == "axial") {  // one [shape[a], dims[a]] table per axis
        const std::vector<double> shape = list("shape"), dims = list("dims");
        if (dims.size() != shape.size())
            fail("dims", "must have " + std::to_string(shape.size()) + " elements (one per axis of shape) (got " + std::to_string(dims.size()) + ")");
        double n = 0;
        for (std::size_t a = 0; a < shape.size(); ++a) n += shape[a] * dims[a];
        return n;
    }
    fail("method", "has no parameter count ('" + method + "')");
}

}  // namespace posenc::registry

namespace posenc {

// What posenc implements (posenc/describe.hpp): the additive functions' rows, here; the encoding kinds'
// rows, with their specs (src/encodings/).
namespace {
// One describe() row as literals: a constant table (built into strings once) costs far less code than
// the strings' constructors written out row by row.
struct DescribeRow {
    const char* kind;
    kinds::DescribeText text;
};
constexpr DescribeRow kAdditiveRows[] = {
    {"sinusoidal", {"absolute position, added to embeddings", "0", "", true,
     "a fixed function of p (angles computed in double)", true, "added once to the input; cached keys never change",
     "Vaswani et al. 2017; HF DistilBERT (interleaved), Marian / Transformer-XL (concat), tensor2tensor get_timing_signal_1d",
     "Transformer, Marian, fairseq"}},
    {"learned", {"absolute position, a learned table row", "maxPositions·dim", "", false,
     "the table ends at maxPositions (error, clamp or interpolate — chosen explicitly)", true,
     "added once to the input", "BERT / GPT-2 position ids; RoBERTa / fairseq padding-aware ids", "BERT, GPT-2, RoBERTa, OPT"}},
    {"binary", {"absolute position as binary, Gray or radix-r digits", "bits·radix·dim (learned digit vectors)", "", false,
     "up to radix^bits − 1", true, "added once to the input", "the design's digit codes (no single upstream)", "position-code studies"}},
    {"lowRank", {"absolute position, coefficients × shared basis", "(maxPositions + dim)·rank", "", false,
     "the coefficient table ends", true, "added once to the input", "factorised learned table", "parameter-efficient variants"}},
    {"sparse", {"absolute position, k sparse coefficients over a basis", "maxPositions·k + basisSize·dim", "", false,
     "the coefficient table ends", true, "added once to the input", "sparse-coded learned table", "parameter-efficient variants"}},
    {"randomFeatures", {"absolute position, random Fourier features", "0", "", true, "a fixed (seeded) function of p",
     true, "added once to the input", "Rahimi & Recht random features (seeded, documented)", "function-generated encodings"}},
    {"axial", {"absolute position split over a grid's axes", "Σ shape[a]·dims[a]", "", false,
     "within the grid's shape", true, "added once to the input", "Reformer AxialPositionEmbeddings", "Reformer"}},
    {"twoLevel", {"segment and in-segment position", "segments·segmentDim + inner·innerDim", "-", false,
     "within both tables", true, "added once to the input", "hierarchical (segment, offset) tables", "long-document models"}},
    {"sine2d", {"2-D image position (y, x)", "0", "", true, "a fixed function of the pixel counts", true,
     "added to image features", "DETR PositionEmbeddingSine", "DETR, Deformable DETR"}},
    {"sine3d", {"3-D video position (t, y, x)", "0", "", true, "a fixed function of the counts", true,
     "added to video features", "DETR-style sine over (t, y, x)", "video transformers"}},
    {"resizeGrid", {"a learned 2-D table resized to a new grid", "(the table being resized)", "-", true,
     "bicubic interpolation to the new grid", true, "added once to the input", "HF ViT interpolate_pos_encoding (size and legacy scale_factor)",
     "ViT, DINO, DeiT at new resolutions"}},
};

MethodDescription row(const char* kind, const char* family, const kinds::DescribeText& r) {
    return {kind, family, r.encodes, r.parameters, r.parameterMethod, r.extrapolates, r.extrapolation, r.kvCacheFriendly,
            r.kvCache, r.reference, r.usedIn};
}
}  // namespace

namespace registry {

// The additive functions' papers and upstream code (every arXiv id checked against the paper's title
// and authors, every GitHub path against the repository, on 2026-12-02) and the demo's shapes for
// parameterCount (a BERT-base-sized model: 512 positions, d = 768).
namespace {
const std::vector<MethodExtras>& additiveExtras() {
    static const std::vector<MethodExtras> extras = {
        {"sinusoidal", {{"Vaswani et al. 2017", "https://arxiv.org/abs/1706.03762"}},
         {{"tensor2tensor", "https://github.com/tensorflow/tensor2tensor/blob/master/tensor2tensor/layers/common_attention.py"}}, ""},
        {"learned", {{"Devlin et al. 2018 (BERT)", "https://arxiv.org/abs/1810.04805"}},
         {{"google-research/bert", "https://github.com/google-research/bert/blob/master/modeling.py"}}, R"({"maxPositions":512,"dim":768})"},
        {"binary", {}, {}, R"({"bits":9,"dim":768})"},
        {"lowRank", {}, {}, R"({"maxPositions":512,"rank":32,"dim":768})"},
        {"sparse", {}, {}, R"({"maxPositions":512,"k":4,"basisSize":64,"dim":768})"},
        {"randomFeatures", {{"Tancik et al. 2020 (Fourier features of coordinates)", "https://arxiv.org/abs/2006.10739"}},
         {{"fourier-feature-networks", "https://github.com/tancik/fourier-feature-networks"}}, ""},
        {"axial", {{"Kitaev et al. 2020 (Reformer)", "https://arxiv.org/abs/2001.04451"}},
         {{"HF Reformer", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/reformer/modeling_reformer.py"}},
         R"({"shape":[16,32],"dims":[256,512]})"},
        {"twoLevel", {}, {}, ""},
        {"sine2d", {{"Carion et al. 2020 (DETR)", "https://arxiv.org/abs/2005.12872"}},
         {{"DETR position_encoding.py", "https://github.com/facebookresearch/detr/blob/main/models/position_encoding.py"}}, ""},
        {"sine3d", {}, {{"DETR position_encoding.py (2-D form)", "https://github.com/facebookresearch/detr/blob/main/models/position_encoding.py"}}, ""},
        {"resizeGrid", {{"Dosovitskiy et al. 2020 (ViT)", "https://arxiv.org/abs/2010.11929"}},
         {{"HF ViT interpolate_pos_encoding", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/vit/modeling_vit.py"}}, ""},
    };
    return extras;
}
}  // namespace

const MethodExtras* extrasOf(const std::string& kind) {
    for (const MethodExtras& x : additiveExtras())
        if (kind == x.kind) return &x;
    return nullptr;
}

std::vector<MethodDescription> describeRows(const Kinds& kinds) {
    // 'none' first, then the additive functions, then the kinds by family; a query temperature changes
    // the scores: its family reads 'score'
    static const char* const kFamilyNames[] = {"none", "rotary", "score", "score"};
    const Kinds ordered = byFamily(kinds);
    std::vector<MethodDescription> rows;
    auto k = ordered.begin();
    for (; k != ordered.end() && (*k)->family == kinds::Family::none; ++k) rows.push_back(row((*k)->name, "none", (*k)->describe));
    for (const DescribeRow& r : kAdditiveRows) rows.push_back(row(r.kind, "additive", r.text));
    for (; k != ordered.end(); ++k) rows.push_back(row((*k)->name, kFamilyNames[static_cast<int>((*k)->family)], (*k)->describe));
    return rows;
}

}  // namespace registry

const std::vector<MethodDescription>& describe() {
    static const std::vector<MethodDescription> rows = registry::describeRows(kinds::standard());
    return rows;
}

}  // namespace posenc
