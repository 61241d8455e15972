#include "posenc/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "posenc/posenc.hpp"

namespace posenc::registry {

namespace {

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
    const char* doc = "";
    const char* types = "";    // scaling only: "linear|ntk|..."
    const char* requiredBy = "";
    int min = 1;               // integers: the least valid value (kNoMin: any); positive unless said
    double max = kIntMax;      // integers: the largest valid value
};
#define POSENC_DEFAULT(expr) [] { return static_cast<double>(expr); }

constexpr Raw req(const char* name, const char* type, const char* doc = "") { return {name, type, "", true, Default::Kind::none, nullptr, "", doc}; }
constexpr Raw opt(const char* name, const char* type, const char* doc = "") { return {name, type, "", false, Default::Kind::none, nullptr, "", doc}; }
constexpr Raw num(const char* name, const char* type, const char* doc, double (*value)()) {
    return {name, type, "", false, Default::Kind::number, value, "", doc};
}
constexpr Raw flag(const char* name, const char* doc, double (*value)()) { return {name, "boolean", "", false, Default::Kind::boolean, value, "", doc}; }
constexpr Raw pick(const char* name, const char* choices, const char* doc, double (*value)()) {
    return {name, "", choices, false, Default::Kind::string, value, "", doc};
}
constexpr Raw pickRequired(const char* name, const char* choices, const char* doc) { return {name, "", choices, true, Default::Kind::none, nullptr, "", doc}; }
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
constexpr Raw kRopeKind[] = {{"kind", "", "rope", false, Default::Kind::none, nullptr, "", "only 'rope': lets a rope encoding be passed as it is"}};
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
    flag("strict", "refuse keys the model type's Hugging Face code ignores (default: ignore and list them in `ignored`)", POSENC_DEFAULT(HfConfigOptions().strict)),
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
    {"terms", "Array<'c2p' | 'p2c'>", "", false, Default::Kind::strings, nullptr, "c2p|p2c", "position terms"},
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
    f.doc = r.doc;
    f.types = split(r.types);
    f.requiredBy = split(r.requiredBy);
    f.min = r.min;
    f.max = r.max;
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
            kind.doc = "which encoding";
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

void validateScaling(const RopeScaling& s) {
    const std::string type = scalingTypes().at(static_cast<std::size_t>(s.type));
    const Table& t = table("scaling");
    for (const ScalingMember& m : kScalingMembers) {
        const Field& f = *t.find(m.name);
        const bool given = m.given(s);
        if (given && !contains(f.types, type))
            fail("scaling." + f.name, "does not apply to '" + type + "' scaling (it belongs to " + either(f.types) + " scaling)");
        if (!given && contains(f.requiredBy, type)) fail("scaling." + f.name, "is required by '" + type + "' scaling");
    }
}

namespace {
void quote(std::string& out, const std::string& s) {
    out += '"';
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
}
void quoteAll(std::string& out, const std::vector<std::string>& list) {
    out += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) out += ',';
        quote(out, list[i]);
    }
    out += ']';
}
void number(std::string& out, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out += buf;
}
}  // namespace

std::string json() {
    std::string o = "{\"tables\":{";
    for (std::size_t i = 0; i < tables().size(); ++i) {
        const Table& t = tables()[i];
        if (i) o += ',';
        quote(o, t.name);
        o += ":{\"interface\":";
        if (t.interface.empty()) o += "null";
        else quote(o, t.interface);
        o += ",\"keys\":{";
        for (std::size_t k = 0; k < t.keys.size(); ++k) {
            const Field& f = t.keys[k];
            if (k) o += ',';
            quote(o, f.name);
            o += ":{\"type\":";
            if (f.choices.empty()) quote(o, f.type);
            else quoteAll(o, f.choices);
            if (f.required) o += ",\"required\":true";
            if (!f.doc.empty()) o += ",\"doc\":", quote(o, f.doc);
            if (f.type == "integer" && f.min != Field::kNoMin) o += ",\"min\":", number(o, f.min);
            if (f.type == "integer" && f.max != kIntMax) o += ",\"max\":", number(o, f.max);
            switch (f.value.kind) {
                case Default::Kind::none: break;
                case Default::Kind::number: o += ",\"default\":", number(o, f.value.number); break;
                case Default::Kind::boolean: o += f.value.boolean ? ",\"default\":true" : ",\"default\":false"; break;
                case Default::Kind::string: o += ",\"default\":", quote(o, f.value.string); break;
                case Default::Kind::strings: o += ",\"default\":", quoteAll(o, f.value.strings); break;
            }
            if (t.name == "scaling" && f.name != "type") {
                o += ",\"types\":", quoteAll(o, f.types);
                o += ",\"requiredBy\":", quoteAll(o, f.requiredBy);
            }
            o += '}';
        }
        o += "}}";
    }
    o += "},\"encodingKinds\":", quoteAll(o, encodingKinds());
    o += ",\"scalingTypes\":", quoteAll(o, scalingTypes());
    o += ",\"scalingAliases\":{";
    for (std::size_t i = 0; i < scalingAliases().size(); ++i) {
        if (i) o += ',';
        quote(o, scalingAliases()[i].name);
        o += ':';
        quote(o, scalingAliases()[i].type);
    }
    return o + "}}";
}

}  // namespace posenc::registry
