#include "posenc/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "common/json.hpp"
#include "registry_check.hpp"
#include "posenc/describe.hpp"
#include "posenc/posenc.hpp"

namespace posenc::registry {

namespace {

// Each field's description is written next to it for readers of this table, but not compiled in: the
// user documentation is bindings/index.d.ts (held to these tables by tests/node/strict-options.test.mjs).
//
// The source data: plain constant arrays (strings as literals, choices as "a|b|c"), so the registry
// costs its text and a short loop, not code per field. tables() turns them into the Table structs.
constexpr int kNoMin = Field::kNoMin;
constexpr double kIntMax = 2147483647.0;

struct Raw {
    const char* name;
    const char* type = "";     // "" = a closed set of choices
    const char* choices = "";  // "a|b|c", in enum order
    bool required = false;
    Default::Kind kind = Default::Kind::none;
    // A number or flag default, or a choice default's enum value: read from the option struct's
    // member initialiser by a function, so that the arrays stay constant data.
    double (*value)() = nullptr;
    const char* text = "";     // a list-of-strings default, "a|b"
    const char* types = "";    // scaling only: "linear|ntk|..."
    const char* requiredBy = "";
    int min = 1;               // integers: the least valid value (kNoMin: any); positive unless said
    double max = kIntMax;      // integers: the largest valid value
};
#define POSENC_DEFAULT(expr) [] { return static_cast<double>(expr); }

constexpr Raw req(const char* name, const char* type, const char* /*doc*/ = "") { return {name, type, "", true}; }
constexpr Raw opt(const char* name, const char* type, const char* /*doc*/ = "") { return {name, type}; }
constexpr Raw num(const char* name, const char* type, const char* /*doc*/, double (*value)()) {
    return {name, type, "", false, Default::Kind::number, value};
}
constexpr Raw flag(const char* name, const char* /*doc*/, double (*value)()) { return {name, "boolean", "", false, Default::Kind::boolean, value}; }
constexpr Raw pick(const char* name, const char* choices, const char* /*doc*/, double (*value)()) {
    return {name, "", choices, false, Default::Kind::string, value};
}
constexpr Raw pickRequired(const char* name, const char* choices, const char* /*doc*/) { return {name, "", choices, true}; }
// An integer field whose values start at `min` (0: a non-negative integer; kNoMin: any integer);
// integer fields are positive unless they say so.
constexpr Raw atLeast(int min, Raw r) {
    r.min = min;
    return r;
}
constexpr Raw upTo(double max, Raw r) {
    r.max = max;
    return r;
}
constexpr Raw scaling(Raw r, const char* types, const char* requiredBy = "") {
    r.types = types;
    r.requiredBy = requiredBy;
    return r;
}

constexpr const char* kAllScaled = "linear|ntk|dynamic|yarn|llama3|longrope";
constexpr const char* kWithLength = "dynamic|yarn|llama3|longrope";

// Everything that describes a rotary encoding. headDim is required only by ropeFrequencies; where the
// call already fixes it (applyRope's shape, attention, the cache) a given headDim must agree.
constexpr Raw kRope[] = {
    opt("headDim", "integer", "channels per head"),
    num("base", "number", "rotary base θ", POSENC_DEFAULT(RopeConfig().base)),
    num("partialRotaryFactor", "number", "fraction of the head channels that rotate", POSENC_DEFAULT(RopeConfig().partialRotaryFactor)),
    opt("scaling", "RopeScaling", "frequency schedule for longer contexts"),
    atLeast(0, opt("seqLen", "integer", "sequence length: dynamic NTK and longrope choose their frequencies by it")),
    pick("convention", "hf|ggml", "whose formulas to follow where Hugging Face and ggml differ", POSENC_DEFAULT(RopeConfig().convention)),
    pick("multiAxis", "none|mrope|axial2d", "several position axes; positions become [axes, tokens]", POSENC_DEFAULT(RopeConfig().multiAxis)),
    opt("sections", "IntInput", "M-RoPE pairs per axis (t, h, w), summing to rotaryDim/2"),
    flag("mropeInterleaved", "M-RoPE pairs assigned to t, h, w round-robin (Qwen3-VL), not in contiguous sections", POSENC_DEFAULT(RopeConfig().mropeInterleaved)),
    opt("xposScaleBase", "number", "xPos scale base γ (e.g. 512): pair k of a query at position p scales by ζ_k^(p/γ) < 1, of a key by ζ_k^(−p/γ)"),
    // Accepted by ropeFrequencies too, so that ropeConfigFromHF's result can be passed as it is.
    pick("layout", "half|interleaved", "which channels pair up (ropeFrequencies ignores it)", POSENC_DEFAULT(RopeEncoding().layout)),
};
// Outside an encoding, `kind` may still be given (as 'rope'), so one rope encoding object works anywhere.
constexpr Raw kRopeKind[] = {{"kind", "", "rope"}};  // only 'rope': lets a rope encoding be passed as it is
constexpr Raw kHeadDim[] = {req("headDim", "integer", "channels per head")};  // ropeFrequencies: replaces the optional one

constexpr Raw kScaling[] = {
    pickRequired("type", "none|linear|ntk|dynamic|yarn|llama3|longrope|default|su|ntk_aware",
                 "the schedule ('default' = 'none', 'su' = 'longrope', 'ntk_aware' = 'ntk')"),
    scaling(opt("factor", "number", "context extension factor (>= 1)"), kAllScaled, "linear|ntk|dynamic|yarn|llama3"),
    // Hugging Face falls back to config.max_position_embeddings; these options have no such field.
    scaling(opt("originalMaxPositionEmbeddings", "integer", "the context length the model was trained on"), kWithLength, kWithLength),
    scaling(num("betaFast", "number", "YaRN: rotations above which pairs keep their frequency", POSENC_DEFAULT(RopeScaling().betaFast)), "yarn"),
    scaling(num("betaSlow", "number", "YaRN: rotations below which pairs are interpolated", POSENC_DEFAULT(RopeScaling().betaSlow)), "yarn"),
    scaling(num("mscale", "number", "YaRN attention-scale coefficient (DeepSeek)", POSENC_DEFAULT(RopeScaling().mscale)), "yarn"),
    scaling(opt("mscaleAllDim", "number", "YaRN: mscale of the divisor of the attention scale (DeepSeek)"), "yarn"),
    scaling(opt("attentionFactor", "number", "explicit attention scale instead of the derived one"), "yarn|longrope"),
    scaling(flag("truncate", "YaRN: floor/ceil the correction range", POSENC_DEFAULT(RopeScaling().truncate)), "yarn"),
    scaling(opt("lowFreqFactor", "number", "llama3: wavelengths above original/lowFreqFactor are interpolated"), "llama3", "llama3"),
    scaling(opt("highFreqFactor", "number", "llama3: wavelengths below original/highFreqFactor are kept"), "llama3", "llama3"),
    scaling(opt("shortFactor", "ArrayLike<number>", "longrope: per-pair divisors up to originalMaxPositionEmbeddings"), "longrope", "longrope"),
    scaling(opt("longFactor", "ArrayLike<number>", "longrope: per-pair divisors beyond it"), "longrope", "longrope"),
};

constexpr Raw kOut = opt("out", "FloatOut", "write the result here instead of allocating");
constexpr Raw kHeads = opt("heads", "integer", "heads of the bias (default: the call's heads)");

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
constexpr Raw kAttention[] = {
    req("q", "FloatInput", "[heads, qLen, headDim]"),
    req("k", "FloatInput", "[kvHeads, kLen, headDim]"),
    req("v", "FloatInput", "[kvHeads, kLen, headDim]"),
    req("heads", "integer"),
    opt("kvHeads", "integer", "fewer than heads: grouped-query attention (default: heads)"),
    req("headDim", "integer"),
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
    flag("returnWeights", "", POSENC_DEFAULT(false)),
    flag("returnScores", "the final pre-softmax logits", POSENC_DEFAULT(false)),
    kOut,
};

// Encodings: each table starts with its required `kind`, synthesised from the table name.
constexpr Raw kAlibi[] = {
    kHeads,
    opt("slopes", "FloatInput", "one per head (default: alibiSlopes(heads))"),
    flag("symmetric", "−m·|i − j| instead of −m·(i − j)", POSENC_DEFAULT(AlibiEncoding().symmetric)),
};
constexpr Raw kT5[] = {
    kHeads,
    req("table", "FloatInput", "[numBuckets, heads]"),
    flag("bidirectional", "", POSENC_DEFAULT(T5BucketOptions().bidirectional)),
    num("numBuckets", "integer", "", POSENC_DEFAULT(T5BucketOptions().numBuckets)),
    num("maxDistance", "integer", "", POSENC_DEFAULT(T5BucketOptions().maxDistance)),
};
constexpr Raw kSwin[] = {kHeads, req("table", "FloatInput", "[(2wh−1)(2ww−1), heads]"), req("windowSize", "[number, number]", "[wh, ww]")};
constexpr Raw kShaw[] = {
    atLeast(kNoMin, req("clip", "integer", "K: relative distances are clipped to [−K, K]")),
    req("keyTable", "FloatInput", "[2K+1, headDim]"),
    opt("valueTable", "FloatInput", "[2K+1, headDim], added to the values"),
};
constexpr Raw kXl[] = {
    req("u", "FloatInput", "[heads, headDim] content bias"),
    req("v", "FloatInput", "[heads, headDim] position bias"),
    opt("r", "FloatInput", "[heads, distances, headDim], row δ = W_R·R_δ"),
    opt("wR", "FloatInput", "W_R, to project the sinusoid R in the core (with dModel)"),
    opt("dModel", "integer", "model width of W_R"),
};
constexpr Raw kDeberta[] = {
    opt("posKey", "FloatInput", "[heads, 2·span, headDim]; required by term 'c2p'"),
    opt("posQuery", "FloatInput", "[heads, 2·span, headDim]; required by term 'p2c'"),
    req("span", "integer"),
    atLeast(0, num("bucketSize", "integer", "0 = no log bucketing", POSENC_DEFAULT(DebertaBucketOptions().bucketSize))),
    num("maxPosition", "integer", "", POSENC_DEFAULT(DebertaBucketOptions().maxPosition)),
    pick("convention", "hf|microsoft", "", POSENC_DEFAULT(DebertaBucketOptions().convention)),
    {"terms", "Array<'c2p' | 'p2c'>", "", false, Default::Kind::strings, nullptr, "c2p|p2c"},  // position terms
};
constexpr Raw kRelativeKey[] = {
    req("table", "FloatInput", "[2·maxPosition − 1, headDim]"),
    req("maxPosition", "integer"),
    flag("keyQuery", "also add k_j·E (relative_key_query)", POSENC_DEFAULT(RelativeKeyEncoding().keyQuery)),
};
constexpr Raw kKerple[] = {
    pickRequired("variant", "log|power", "log: −r1·log(1 + r2·|i − j|); power: −r1·|i − j|^r2"),
    kHeads,
    req("r1", "FloatInput", "[heads], each > 0"),
    req("r2", "FloatInput", "[heads], each > 0 (≤ 2 for power)"),
};
constexpr Raw kFire[] = {
    kHeads,
    req("hidden", "integer", "width of the MLP"),
    req("w1", "FloatInput", "[hidden]: Linear(1, hidden).weight"),
    req("b1", "FloatInput", "[hidden]"),
    req("w2", "FloatInput", "[heads, hidden]: Linear(hidden, heads).weight, row h = head h"),
    req("b2", "FloatInput", "[heads]"),
    num("c", "number", "ψ(x) = log(c·x + 1)", POSENC_DEFAULT(FireEncoding().c)),
    num("L", "number", "the normaliser ψ(max(L, i)) floor", POSENC_DEFAULT(FireEncoding().L)),
    num("eps", "number", "added to the normaliser", POSENC_DEFAULT(FireEncoding().eps)),
};
constexpr Raw kCope[] = {
    req("npos", "integer", "position embeddings; positions clamp to npos − 1"),
    req("embeddings", "FloatInput", "[npos, headDim], row p = e[p], shared by every head"),
};
constexpr Raw kTemperature[] = {
    req("beta", "number", "queries × (1 + beta·ln(1 + ⌊(p + offset)/length⌋)) at their positions p"),
    req("length", "integer", "positions per step of the floor (Ministral 3: original_max_position_embeddings; Llama 4: floor_scale)"),
    atLeast(0, num("offset", "integer", "added to the position before the floor (Llama 4: 1)", POSENC_DEFAULT(TemperatureEncoding().offset))),
};

constexpr Raw kKVCache[] = {
    num("batch", "integer", "", POSENC_DEFAULT(KVCacheConfig().batch)),
    req("kvHeads", "integer"),
    req("headDim", "integer"),
    req("capacity", "integer", "slots per row"),
    opt("window", "integer", "keep only the last window tokens (ring buffer) after the sinks"),
    atLeast(0, num("sinks", "integer", "first tokens that are always kept", POSENC_DEFAULT(KVCacheConfig().sinks))),
    opt("chunk", "integer", "attend shows a query only its own chunk's keys, position / chunk (Llama 4); with window = chunk the cache holds one chunk"),
    opt("rope", "KVCacheRope", "rotates keys at their logical positions"),
    pick("dynamic", "fixed|hf", "dynamic NTK: 'fixed' keeps the configured schedule; 'hf' re-derives it as the cache grows (as Hugging Face)",
         POSENC_DEFAULT(KVCacheConfig().dynamic)),
};
constexpr Raw kAppend[] = {
    opt("positions", "IntInput", "[batch·T] (default: each row's next positions); [batch, axes, T] with multi-axis rope"),
    opt("mask", "MaskInput", "[batch·T], 1 = real token"),
    opt("maskPositions", "IntInput", "multi-axis rope: [batch·T] sequence index each slot keeps (default: each row's next positions)"),
};
constexpr Raw kAttend[] = {
    req("heads", "integer"),
    opt("encoding", "Encoding", "score terms on top of the cache rope"),
    opt("qPositions", "IntInput", "[batch·qLen] (default: each row's last qLen positions); [batch, axes, qLen] with multi-axis rope"),
    opt("maskPositions", "IntInput", "multi-axis rope: [batch·qLen] sequence index of each query (default: each row's last qLen)"),
    flag("causal", "", POSENC_DEFAULT(true)),
    opt("scale", "number", "multiplies the content terms"),
    kOut,
};

// parameterCount: the shapes of each method's learned tables (fixed functions learn none).
constexpr Raw size(const char* name) { return req(name, "integer"); }
constexpr Raw kLearnedShape[] = {size("maxPositions"), size("dim")};
constexpr Raw kBinaryShape[] = {size("bits"), size("dim"), atLeast(2, num("radix", "integer", "", POSENC_DEFAULT(CodeOptions().radix))), flag("learned", "false: fixed ±1 digits", POSENC_DEFAULT(true))};
constexpr Raw kLowRankShape[] = {size("maxPositions"), size("rank"), size("dim")};
constexpr Raw kSparseShape[] = {size("maxPositions"), size("k"), size("basisSize"), size("dim")};
constexpr Raw kAxialShape[] = {req("shape", "IntInput"), req("dims", "IntInput")};
constexpr Raw kT5Shape[] = {size("heads"), num("numBuckets", "integer", "", POSENC_DEFAULT(T5BucketOptions().numBuckets))};
constexpr Raw kSwinShape[] = {req("windowSize", "[number, number]"), size("heads")};
constexpr Raw kShawShape[] = {atLeast(0, size("clip")), size("headDim"), flag("values", "a value table too", POSENC_DEFAULT(true))};
constexpr Raw kRelativeKeyShape[] = {size("maxPosition"), size("headDim")};
constexpr Raw kXlShape[] = {size("heads"), size("headDim"), size("dModel")};
constexpr Raw kDebertaShape[] = {size("span"), size("hidden")};
constexpr Raw kKerpleShape[] = {size("heads")};
constexpr Raw kFireShape[] = {size("heads"), size("hidden")};
constexpr Raw kCopeShape[] = {size("npos"), size("headDim")};

struct Part {
    const Raw* begin = nullptr;
    const Raw* end = nullptr;
};
template <std::size_t N>
constexpr Part part(const Raw (&a)[N]) { return {a, a + N}; }

struct RawTable {
    const char* name;
    const char* interface;  // "" = none
    Part parts[3];          // concatenated; a later field replaces an earlier one of the same name
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
    {"ropeFrequencies", "RopeOptions", {part(kRope), part(kRopeKind), part(kHeadDim)}},
    {"applyRope", "ApplyRopeOptions", {part(kRope), part(kRopeKind), part(kApplyRope)}},
    {"shape", "HeadsShape", {part(kShape)}},
    {"scaling", "RopeScaling", {part(kScaling)}},
    {"ropeConfigFromHF", "HfConfigOptions", {part(kHfConfig)}},
    {"attention", "AttentionArgs", {part(kAttention)}},
    {"encoding.none", "NoneEncoding", {}},
    {"encoding.rope", "RopeEncoding", {part(kRope)}},
    {"encoding.alibi", "AlibiEncoding", {part(kAlibi)}},
    {"encoding.t5", "T5Encoding", {part(kT5)}},
    {"encoding.swin", "SwinEncoding", {part(kSwin)}},
    {"encoding.shaw", "ShawEncoding", {part(kShaw)}},
    {"encoding.xl", "XLEncoding", {part(kXl)}},
    {"encoding.deberta", "DebertaEncoding", {part(kDeberta)}},
    {"encoding.relativeKey", "RelativeKeyEncoding", {part(kRelativeKey)}},
    {"encoding.kerple", "KerpleEncoding", {part(kKerple)}},
    {"encoding.fire", "FireEncoding", {part(kFire)}},
    {"encoding.cope", "CopeEncoding", {part(kCope)}},
    {"encoding.temperature", "TemperatureEncoding", {part(kTemperature)}},
    {"KVCache", "KVCacheOptions", {part(kKVCache)}},
    {"KVCache.rope", "KVCacheRope", {part(kRope), part(kRopeKind)}},
    {"KVCache.append", "AppendOptions", {part(kAppend)}},
    {"KVCache.attend", "AttendOptions", {part(kAttend)}},
    {"parameterCount.sinusoidal", "", {}},
    {"parameterCount.rope", "", {}},
    {"parameterCount.temperature", "", {}},
    {"parameterCount.alibi", "", {}},
    {"parameterCount.sine2d", "", {}},
    {"parameterCount.sine3d", "", {}},
    {"parameterCount.randomFeatures", "", {}},
    {"parameterCount.learned", "LearnedShape", {part(kLearnedShape)}},
    {"parameterCount.binary", "BinaryShape", {part(kBinaryShape)}},
    {"parameterCount.lowRank", "LowRankShape", {part(kLowRankShape)}},
    {"parameterCount.sparse", "SparseShape", {part(kSparseShape)}},
    {"parameterCount.axial", "AxialShape", {part(kAxialShape)}},
    {"parameterCount.t5", "T5Shape", {part(kT5Shape)}},
    {"parameterCount.swin", "SwinShape", {part(kSwinShape)}},
    {"parameterCount.shaw", "ShawShape", {part(kShawShape)}},
    {"parameterCount.relativeKey", "RelativeKeyShape", {part(kRelativeKeyShape)}},
    {"parameterCount.xl", "XLShape", {part(kXlShape)}},
    {"parameterCount.deberta", "DebertaShape", {part(kDebertaShape)}},
    {"parameterCount.kerple", "KerpleShape", {part(kKerpleShape)}},
    {"parameterCount.fire", "FireShape", {part(kFireShape)}},
    {"parameterCount.cope", "CopeShape", {part(kCopeShape)}},
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

Field field(const Raw& r) {
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
    return f;
}

std::vector<Table> build() {
    std::vector<Table> out;
    for (const RawTable& raw : kTables) {
        Table t{raw.name, raw.interface, {}};
        const std::string name = raw.name;
        if (name.rfind("encoding.", 0) == 0) {
            Field kind;
            kind.name = "kind";
            kind.choices = {name.substr(9)};
            kind.required = true;
            t.keys.push_back(kind);
        }
        for (const Part& p : raw.parts)
            for (const Raw* r = p.begin; r != p.end; ++r) {
                Field f = field(*r);
                Field* same = nullptr;
                for (Field& k : t.keys)
                    if (k.name == f.name) same = &k;
                if (same) *same = f;
                else t.keys.push_back(f);
            }
        out.push_back(std::move(t));
    }
    return out;
}

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

const std::vector<Table>& tables() {
    static const std::vector<Table> t = build();
    return t;
}

const Table& table(std::string_view name) {
    for (const Table& t : tables())
        if (t.name == name) return t;
    throw std::invalid_argument("no options table '" + std::string(name) + "'");
}

const std::vector<std::string>& encodingKinds() {
    static const std::vector<std::string> kinds = [] {
        std::vector<std::string> k;
        for (const Table& t : tables())
            if (t.name.rfind("encoding.", 0) == 0) k.push_back(t.name.substr(9));
        return k;
    }();
    return kinds;
}

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

namespace {
// Whether a RopeScaling field was given: it differs from its member initialiser (NaN equals NaN).
bool differs(double a, double b) { return !(a == b || (std::isnan(a) && std::isnan(b))); }
struct ScalingMember {
    const char* name;
    bool (*given)(const RopeScaling&);
};
#define POSENC_GIVEN(member) {#member, [](const RopeScaling& s) { return differs(static_cast<double>(s.member), static_cast<double>(RopeScaling().member)); }}
const ScalingMember kScalingMembers[] = {
    POSENC_GIVEN(factor), POSENC_GIVEN(originalMaxPositionEmbeddings), POSENC_GIVEN(betaFast), POSENC_GIVEN(betaSlow),
    POSENC_GIVEN(mscale), POSENC_GIVEN(mscaleAllDim), POSENC_GIVEN(attentionFactor), POSENC_GIVEN(truncate),
    POSENC_GIVEN(lowFreqFactor), POSENC_GIVEN(highFreqFactor),
    {"shortFactor", [](const RopeScaling& s) { return !s.shortFactor.empty(); }},
    {"longFactor", [](const RopeScaling& s) { return !s.longFactor.empty(); }},
};
#undef POSENC_GIVEN
}  // namespace

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
        for (const ScalingMember& m : kScalingMembers)
            if (name == m.name) return m.given(s);
        return false;
    }, "scaling.");
}

std::string json() {
    json::Writer w;
    w.open('{').key("tables").open('{');
    for (const Table& t : tables()) {
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
            w.close('}');
        }
        w.close('}').close('}');
    }
    w.close('}').key("encodingKinds").strings(encodingKinds()).key("scalingTypes").strings(scalingTypes()).key("scalingAliases").open('{');
    for (const Alias& a : scalingAliases()) w.key(a.name).string(a.type);
    w.close('}').key("describe").open('[');
    for (const MethodDescription& d : describe()) {
        w.open('{').key("kind").string(d.kind).key("family").string(d.family).key("encodes").string(d.encodes).key("parameters").string(d.parameters);
        w.key("parameterMethod");
        if (d.parameterMethod == "-") w.null();
        else w.string(d.parameterMethod.empty() ? d.kind : d.parameterMethod);
        w.key("extrapolates").boolean(d.extrapolates).key("extrapolation").string(d.extrapolation).key("kvCacheFriendly").boolean(d.kvCacheFriendly);
        w.key("kvCache").string(d.kvCache).key("reference").string(d.reference).key("usedIn").string(d.usedIn).close('}');
    }
    return w.close(']').close('}').text();
}


RopeEncoding ropeFrom(const Source& s) {
    RopeEncoding r;
    RopeConfig& c = r.config;
    read(s, "headDim", c.headDim);
    read(s, "base", c.base);
    read(s, "partialRotaryFactor", c.partialRotaryFactor);
    read(s, "seqLen", c.seqLen);
    read(s, "convention", c.convention);
    read(s, "multiAxis", c.multiAxis);
    read(s, "sections", c.sections);
    read(s, "mropeInterleaved", c.mropeInterleaved);
    read(s, "xposScaleBase", c.xposScaleBase);
    read(s, "layout", r.layout);
    if (!s.has("scaling")) return r;
    const std::unique_ptr<Source> o = s.object("scaling");
    RopeScaling& k = c.scaling;
    read(*o, "type", k.type);
    read(*o, "factor", k.factor);
    read(*o, "originalMaxPositionEmbeddings", k.originalMaxPositionEmbeddings);
    read(*o, "betaFast", k.betaFast);
    read(*o, "betaSlow", k.betaSlow);
    read(*o, "mscale", k.mscale);
    read(*o, "mscaleAllDim", k.mscaleAllDim);
    read(*o, "attentionFactor", k.attentionFactor);
    read(*o, "truncate", k.truncate);
    read(*o, "lowFreqFactor", k.lowFreqFactor);
    read(*o, "highFreqFactor", k.highFreqFactor);
    read(*o, "shortFactor", k.shortFactor);
    read(*o, "longFactor", k.longFactor);
    return r;
}

Encoding encodingFrom(const Source& s) {
    const std::string kind = s.text("kind");
    if (kind == "none") return NoEncoding{};
    if (kind == "rope") return ropeFrom(s);
    if (kind == "alibi") {
        AlibiEncoding a;
        read(s, "heads", a.heads);
        a.slopes = s.floats("slopes");
        read(s, "symmetric", a.symmetric);
        return a;
    }
    if (kind == "t5") {
        T5Encoding t;
        read(s, "heads", t.heads);
        t.table = s.floats("table");
        read(s, "bidirectional", t.buckets.bidirectional);
        read(s, "numBuckets", t.buckets.numBuckets);
        read(s, "maxDistance", t.buckets.maxDistance);
        return t;
    }
    if (kind == "swin") {
        SwinEncoding w;
        read(s, "heads", w.heads);
        w.table = s.floats("table");
        const std::vector<double> size = s.numbers("windowSize");  // [wh, ww]
        if (size.size() == 2) w.windowH = static_cast<int>(size[0]), w.windowW = static_cast<int>(size[1]);
        return w;
    }
    if (kind == "shaw") {
        ShawEncoding h{0, s.floats("keyTable"), s.floats("valueTable")};
        read(s, "clip", h.clip);
        return h;
    }
    if (kind == "xl") {
        XlEncoding x{s.floats("u"), s.floats("v"), s.floats("r"), s.floats("wR")};
        read(s, "dModel", x.dModel);
        return x;
    }
    if (kind == "deberta") {
        DebertaEncoding d;
        d.posKey = s.floats("posKey");
        d.posQuery = s.floats("posQuery");
        read(s, "span", d.span);
        read(s, "bucketSize", d.buckets.bucketSize);
        read(s, "maxPosition", d.buckets.maxPosition);
        read(s, "convention", d.buckets.convention);
        if (s.has("terms")) {  // of 'c2p', 'p2c'; default both
            const std::vector<std::string> terms = s.texts("terms");
            d.c2p = contains(terms, "c2p");
            d.p2c = contains(terms, "p2c");
        }
        return d;
    }
    if (kind == "relativeKey") {
        RelativeKeyEncoding r{s.floats("table")};
        read(s, "maxPosition", r.maxPosition);
        read(s, "keyQuery", r.keyQuery);
        return r;
    }
    if (kind == "kerple") {
        KerpleEncoding k;
        read(s, "variant", k.variant);
        read(s, "heads", k.heads);
        k.r1 = s.floats("r1");
        k.r2 = s.floats("r2");
        return k;
    }
    if (kind == "fire") {
        FireEncoding f;
        read(s, "heads", f.heads);
        read(s, "hidden", f.hidden);
        f.w1 = s.floats("w1");
        f.b1 = s.floats("b1");
        f.w2 = s.floats("w2");
        f.b2 = s.floats("b2");
        read(s, "c", f.c);
        read(s, "L", f.L);
        read(s, "eps", f.eps);
        return f;
    }
    if (kind == "cope") {
        CopeEncoding c;
        read(s, "npos", c.npos);
        c.embeddings = s.floats("embeddings");
        return c;
    }
    if (kind == "temperature") {
        TemperatureEncoding t;
        read(s, "beta", t.beta);
        read(s, "length", t.length);
        read(s, "offset", t.offset);
        return t;
    }
    fail("encoding.kind", "must be one of the registered kinds (got '" + kind + "')");
}

double parameterCount(const std::string& method, const Source& s) {
    const Table& t = table("parameterCount." + method);
    // a key's value, or the table's default; an integer within its range
    auto get = [&](const char* key) {
        const Field& f = *t.find(key);
        double v = f.value.kind == Default::Kind::boolean ? f.value.boolean : f.value.number;
        if (s.has(key)) v = s.number(key);
        else if (f.value.kind == Default::Kind::none) fail(key, "is required");
        if (f.type == "integer" && (v < f.min || v > f.max || v != std::floor(v))) {
            const std::string what = f.min == 1 ? "a positive integer" : f.min == 0 ? "a non-negative integer"
                                                                                   : "an integer in [" + std::to_string(f.min) + ", 2147483647]";
            fail(key, "must be " + what + " (got " + show(v) + ")");
        }
        return v;
    };
    auto list = [&](const char* key) {
        const std::vector<double> v = s.numbers(key);
        for (std::size_t i = 0; i < v.size(); ++i)
            if (!(v[i] >= 1) || v[i] != std::floor(v[i])) fail(std::string(key) + "[" + std::to_string(i) + "]", "must be in [1, 2147483647] (got " + show(v[i]) + ")");
        return v;
    };
    if (t.keys.empty()) return 0;  // a fixed function: nothing learned
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
    if (method == "t5") return get("numBuckets") * get("heads");
    if (method == "swin") {
        const std::vector<double> w = s.numbers("windowSize");  // [wh, ww], checked by the caller
        return (2 * w.at(0) - 1) * (2 * w.at(1) - 1) * get("heads");
    }
    if (method == "shaw") return (2 * get("clip") + 1) * get("headDim") * (get("values") != 0 ? 2 : 1);
    if (method == "relativeKey") return (2 * get("maxPosition") - 1) * get("headDim");
    // W_R [heads*headDim, dModel] plus the u and v biases [heads, headDim]
    if (method == "xl") return get("heads") * get("headDim") * (get("dModel") + 2);
    // shared relative embeddings [2 span, hidden] (projections reuse the content W_q, W_k when share_att_key)
    if (method == "deberta") return 2 * get("span") * get("hidden");
    if (method == "kerple") return 2 * get("heads");  // r1, r2 per head
    // Linear(1, hidden) + Linear(hidden, heads), and the learned c and L (FIRE's public code)
    if (method == "fire") return 2 * get("hidden") + (get("hidden") + 1) * get("heads") + 2;
    if (method == "cope") return get("npos") * get("headDim");
    fail("method", "has no parameter count ('" + method + "')");
}

}  // namespace posenc::registry

namespace posenc {

// What posenc implements, one row per encoding kind and additive function (posenc/describe.hpp): kept
// here with the kinds' tables, so a new kind is registered in one file.
namespace {
// One describe() row as literals: a constant table (built into strings once) costs far less code than
// the strings' constructors written out row by row.
struct DescribeRow {
    const char *kind, *family, *encodes, *parameters, *parameterMethod;
    bool extrapolates;
    const char* extrapolation;
    bool kvCacheFriendly;
    const char *kvCache, *reference, *usedIn;
};
constexpr DescribeRow kDescribeRows[] = {
    // --- no position terms ---
    {"none", "none", "nothing: a causal mask alone orders tokens (NoPE)", "0", "-", true,
     "no positions to run out of; decoder-only models learn order from the causal mask (Haviv et al. 2022; Kazemnejad et al. 2023)",
     true, "nothing position-dependent is cached", "plain scaled dot-product attention", "interleaved NoPE layers of Llama 4, SmolLM3, Cohere2"},
    // --- additive: vectors added to the token embeddings ---
    {"sinusoidal", "additive", "absolute position, added to embeddings", "0", "", true,
     "a fixed function of p (angles computed in double)", true, "added once to the input; cached keys never change",
     "Vaswani et al. 2017; HF DistilBERT (interleaved), Marian / Transformer-XL (concat), tensor2tensor get_timing_signal_1d",
     "Transformer, Marian, fairseq"},
    {"learned", "additive", "absolute position, a learned table row", "maxPositions·dim", "", false,
     "the table ends at maxPositions (error, clamp or interpolate — chosen explicitly)", true,
     "added once to the input", "BERT / GPT-2 position ids; RoBERTa / fairseq padding-aware ids", "BERT, GPT-2, RoBERTa, OPT"},
    {"binary", "additive", "absolute position as binary, Gray or radix-r digits", "bits·radix·dim (learned digit vectors)", "", false,
     "up to radix^bits − 1", true, "added once to the input", "the design's digit codes (no single upstream)", "position-code studies"},
    {"lowRank", "additive", "absolute position, coefficients × shared basis", "(maxPositions + dim)·rank", "", false,
     "the coefficient table ends", true, "added once to the input", "factorised learned table", "parameter-efficient variants"},
    {"sparse", "additive", "absolute position, k sparse coefficients over a basis", "maxPositions·k + basisSize·dim", "", false,
     "the coefficient table ends", true, "added once to the input", "sparse-coded learned table", "parameter-efficient variants"},
    {"randomFeatures", "additive", "absolute position, random Fourier features", "0", "", true, "a fixed (seeded) function of p",
     true, "added once to the input", "Rahimi & Recht random features (seeded, documented)", "function-generated encodings"},
    {"axial", "additive", "absolute position split over a grid's axes", "Σ shape[a]·dims[a]", "", false,
     "within the grid's shape", true, "added once to the input", "Reformer AxialPositionEmbeddings", "Reformer"},
    {"twoLevel", "additive", "segment and in-segment position", "segments·segmentDim + inner·innerDim", "-", false,
     "within both tables", true, "added once to the input", "hierarchical (segment, offset) tables", "long-document models"},
    {"sine2d", "additive", "2-D image position (y, x)", "0", "", true, "a fixed function of the pixel counts", true,
     "added to image features", "DETR PositionEmbeddingSine", "DETR, Deformable DETR"},
    {"sine3d", "additive", "3-D video position (t, y, x)", "0", "", true, "a fixed function of the counts", true,
     "added to video features", "DETR-style sine over (t, y, x)", "video transformers"},
    {"resizeGrid", "additive", "a learned 2-D table resized to a new grid", "(the table being resized)", "-", true,
     "bicubic interpolation to the new grid", true, "added once to the input", "HF ViT interpolate_pos_encoding (size and legacy scale_factor)",
     "ViT, DINO, DeiT at new resolutions"},
    // --- rotary: q and k rotated by position ---
    {"rope", "rotary", "relative position through rotation of q and k", "0", "", true,
     "with PI, NTK, dynamic NTK, YaRN, llama3 or longrope scaling", true,
     "keys are rotated once at their position; renumbering needs a re-rotation (KVCache.renumber)",
     "HF modeling_rope_utils + Llama/NeoX/GPT-J rotation; llama.cpp ggml (convention 'ggml')", "Llama, Mistral, Qwen, Phi, Gemma, DeepSeek, GPT-J, NeoX"},
    // --- query temperature: q scaled by position ---
    {"temperature", "score", "absolute position of the query, as a temperature on its scores: q × (1 + β·ln(1 + ⌊(p + offset)/length⌋))", "0", "", true,
     "1 up to length − offset, then grows logarithmically so attention stays selective at long positions", true,
     "only queries are scaled, at their logical positions; cached keys never change",
     "Nakanishi 2025 (Scalable-Softmax); HF modeling_ministral3 _get_llama_4_attn_scale (offset 0), modeling_llama4 attn_temperature_tuning (offset 1)",
     "Ministral 3 (every layer), Llama 4 (NoPE layers)"},
    // --- score terms: added to q·k ---
    {"alibi", "score", "relative distance, a linear bias per head", "0", "", true, "a fixed slope per head extends to any distance",
     true, "the bias depends on positions only", "Press et al. 2022 (slopes for any head count); Bloom", "Bloom, MPT, Falcon (ALiBi)"},
    {"t5", "score", "relative distance in log buckets, a learned bias", "numBuckets·heads", "", true,
     "every distance past maxDistance shares the last bucket", true, "the bias depends on positions only",
     "HF T5Attention._relative_position_bucket", "T5, mT5, Flan-T5"},
    {"swin", "score", "relative 2-D offset inside a window, a learned bias", "(2wh − 1)(2ww − 1)·heads", "", false,
     "fixed window size", true, "the bias depends on positions only", "Swin WindowAttention relative_position_index", "Swin, Swin V2"},
    {"shaw", "score", "relative distance, clipped; key and value embeddings", "(2·clip + 1)·headDim (×2 with values)", "", true,
     "distances past the clip share the last embedding", true, "cached keys unchanged; the term is added per query",
     "tensor2tensor _relative_attention_inner", "Shaw et al. 2018, Music Transformer"},
    {"xl", "score", "relative distance through a projected sinusoid, with u and v biases", "heads·headDim·(dModel + 2)", "", true,
     "the sinusoid R is a fixed function", true, "made for segment memory: cached keys stay valid",
     "kimiyoung transformer-xl RelPartialLearnableMultiHeadAttn", "Transformer-XL, XLNet"},
    {"deberta", "score", "relative distance in log buckets; disentangled c2p and p2c", "2·span·hidden", "", true,
     "log buckets up to maxPosition", true, "the position terms are recomputed per query from cached keys",
     "HF DisentangledSelfAttention and microsoft/DeBERTa (they differ past maxPosition)", "DeBERTa, DeBERTa-v3"},
    {"relativeKey", "score", "relative distance, a learned embedding per distance", "(2·maxPosition − 1)·headDim", "", false,
     "distances must stay below maxPosition", true, "cached keys unchanged", "HF BertSelfAttention relative_key / relative_key_query",
     "BERT variants"},
    {"kerple", "score", "relative distance through a log or power kernel, per head", "2·heads", "", true,
     "kernels of |i − j| defined for any distance", true, "the bias depends on positions only",
     "Chi et al. 2022 (KERPLE), log and power variants", "KERPLE models (length-extrapolation studies)"},
    {"fire", "score", "relative distance, progressively normalised, through an MLP per head", "2·hidden + (hidden + 1)·heads + 2", "", true,
     "the normalised distance stays in [0, 1] at any length", true, "the bias depends on positions only",
     "Li et al. 2024 (FIRE), public code's eps", "FIRE models (length-generalisation studies)"},
    {"cope", "score", "contextual position: a count of gated keys, interpolated embeddings", "npos·headDim", "", true,
     "positions clamp at npos − 1 (counts, not indices, grow)", false,
     "each query recounts gates over all keys; nothing position-dependent is cached, but every step rescans",
     "Golovneva et al. 2024, facebookresearch/RAM projects/cope", "CoPE models"},
};
}  // namespace

const std::vector<MethodDescription>& describe() {
    static const std::vector<MethodDescription> table = [] {
        std::vector<MethodDescription> rows;
        for (const DescribeRow& r : kDescribeRows)
            rows.push_back({r.kind, r.family, r.encodes, r.parameters, r.parameterMethod, r.extrapolates, r.extrapolation, r.kvCacheFriendly,
                            r.kvCache, r.reference, r.usedIn});
        return rows;
    }();
    return table;
}

}  // namespace posenc
