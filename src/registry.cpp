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
#include "options_tables.hpp"
#include "posenc/describe.hpp"
#include "posenc/posenc.hpp"

namespace posenc::registry {

namespace {

// Each key of a call's options object is declared with the member of the struct it is read into
// (src/options_tables.hpp: readTable), so its name is written once and its default is that member's
// initialiser; a key with no member (`key(...)`) is taken by name by its reader, which may read no
// other (bindings/call.cpp). Its user documentation is the `///` block before it, or before the
// constant it names (kOut): not compiled in, scripts/gen-types.mjs writes bindings/options.d.ts from
// it. (The encoding kinds' fields, in src/encodings/, also keep a doc line: the registry's JSON carries those.)
//
// The source data: plain constant arrays (strings as literals, choices as "a|b|c"), so the registry
// costs its text and a short loop, not code per field. tables() turns them into the Table structs.
// The rope kind's keys (src/encodings/rope.cpp) open every rope options object; outside an encoding,
// `kind` may still be given (as 'rope'), so one rope encoding object works anywhere.
constexpr Raw kRopeKind[] = {
    /// Only `'rope'`, accepted so that a rope {@link RopeEncoding} can be passed as it is.
    {"kind", "", "rope"},  // only 'rope': lets a rope encoding be passed as it is
};
constexpr Raw kHeadDim[] = {
    /// Channels per attention head. Required by {@link Posenc.ropeFrequencies};
    /// elsewhere the call's shape fixes it and a given value must agree with it (`RangeError` otherwise).
    req("headDim", "integer", "channels per head"),  // ropeFrequencies: replaces the optional one
};

// A key declared with the member it is read into (src/options_tables.hpp; the kinds' helpers:
// kind_spec.hpp), or `key(...)` for one its reader takes by name.
namespace b = kinds;
using kinds::key;
using kinds::KindField;
constexpr KindField upTo(double max, KindField f) {
    f.raw.max = max;
    return f;
}

constexpr Raw kOut = opt("out", "FloatOut", "write the result here instead of allocating");
// K / V given as f16 or bf16 bit patterns (a Uint16Array) instead of floats; no default: floats.
constexpr Raw kKvType = {"kvType", "", "f16|bf16"};  // "k and v are Uint16Array bit patterns of this format"

using Sin = SinusoidalOptions;
constexpr KindField kSinusoidal[] = {
    /// Width of each row, in channels (the model dimension d).
    b::req<&Sin::dim>("dim", "integer"),
    /// Wavelength base b: wavelengths range from 2π to about 2π·b. A positive finite number other than 1.
    b::num<&Sin::base>("base", "number"),
    /// Channel order, i.e. which reference the table matches ({@link SinusoidLayout}).
    b::pick<&Sin::layout>("layout", "interleaved|concat|tensor2tensor"),
    /// fairseq's padding index: the row of this position is all zeros. An integer ≥ 0; omitted = no
    /// zero row. fairseq looks real tokens up at paddingIdx + 1 + t: pair with
    /// {@link Posenc.positionIds} style `'roberta'`.
    /// @defaultValue none
    b::atLeast(0, b::opt<&Sin::paddingIdx>("paddingIdx", "integer")),
    /// Write the [T, dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kLearned[] = {
    /// The learned table [rows, dim]: row r is the vector of position r. Its length must be a positive multiple of `dim`.
    b::req<&LearnedOptions::table>("table", "FloatInput"),
    /// Width of each row, in channels.
    b::req<&LearnedOptions::dim>("dim", "integer"),
    /// What a position ≥ rows does (BERT / GPT-2 would index out of bounds):
    /// `'error'` = `RangeError` naming the position; `'clamp'` = use the last row;
    /// `'interpolate'` = stretch the table linearly (align-corners) to `interpolateTo` rows, then look up.
    b::pick<&LearnedOptions::outOfRange>("outOfRange", "error|clamp|interpolate"),
    /// Rows to stretch the table to with outOfRange `'interpolate'` (ignored otherwise). A positive integer
    /// greater than the largest position.
    /// @defaultValue `max(rows, largest position + 1)`
    b::opt<&LearnedOptions::interpolateTo>("interpolateTo", "integer"),
    /// Write the [T, dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
using Ids = PositionIdsCall;
constexpr KindField kPositionIds[] = {
    /// Rows of the mask.
    b::num<&Ids::batch>("batch", "integer"),
    /// Tokens per row. A positive integer; mask.length must equal batch·length.
    /// @defaultValue `mask.length / batch`
    b::opt<&Ids::length>("length", "integer"),
    /// How ids are numbered, with c = cumsum(mask) along each row:
    /// - `'hf'` (Hugging Face `generate`): c − 1 + past for real tokens, 1 for padding slots;
    /// - `'roberta'` (fairseq `make_positions`, HF `create_position_ids_from_input_ids`):
    ///  (c + past)·mask + paddingIdx, so padding gets paddingIdx and real tokens start at paddingIdx + 1.
    b::pick<&Ids::style>("style", "hf|roberta"),
    /// Style `'roberta'` only: the padding index of the position table.
    b::atLeast(0, b::num<&Ids::paddingIdx>("paddingIdx", "integer")),
    /// Tokens already seen (in the KV cache) before this mask.
    b::atLeast(0, b::num<&Ids::past>("past", "integer")),
};
constexpr KindField kNextPositions[] = {
    /// Rows of the mask.
    b::num<&Ids::batch>("batch", "integer"),
    /// Tokens per row. A positive integer; mask.length must equal batch·length.
    /// @defaultValue `mask.length / batch`
    b::opt<&Ids::length>("length", "integer"),
    /// Tokens already seen before this mask.
    b::atLeast(0, b::num<&Ids::past>("past", "integer")),
};
constexpr KindField kModalityPositions[] = {
    /// First position of each modality (e.g. text 0, image 128): one integer ≥ 0 per modality.
    key(req("offsets", "IntInput")),
    /// Positions reserved per modality: a modality with more tokens than its length is a `RangeError`.
    /// One integer per modality.
    /// @defaultValue unbounded
    key(opt("lengths", "IntInput")),
};
// BinaryOptions' dim: bits unless given.
void binaryDim(const Source& s, const char* k, void* o) {
    auto& x = *static_cast<BinaryOptions*>(o);
    x.dim = s.has(k) ? static_cast<int>(s.number(k)) : x.code.bits;
}
using Bin = BinaryOptions;
constexpr KindField kBinary[] = {
    /// Digits per code. An integer in [1, 62]; positions must be below radix^bits.
    b::req<&Bin::code, &CodeOptions::bits>("bits", "integer"),
    /// Output width in channels. A positive integer; without a `table` it must equal `bits` (one channel
    /// per digit).
    /// @defaultValue `bits`
    b::custom<Bin>(opt("dim", "integer"), "", binaryDim),
    /// The digit code: `'binary'` (plain radix-r digits) or `'gray'` (neighbouring positions differ in
    /// exactly one digit: p ^ (p >> 1) for radix 2, the modular Gray code g_k = (d_k − d_(k+1)) mod r
    /// above).
    b::pick<&Bin::code, &CodeOptions::code>("code", "binary|gray"),
    /// Digit base r. An integer ≥ 2.
    b::atLeast(2, b::num<&Bin::code, &CodeOptions::radix>("radix", "integer")),
    /// Learned digit vectors [bits, radix, dim]: the row is the sum over digits k of table[k, digit_k].
    /// Omitted: the fixed code 2·digit/(r − 1) − 1 per digit (±1 for binary), least significant digit first.
    /// @defaultValue fixed ±1 digits
    b::opt<&Bin::table>("table", "FloatInput"),
    /// Write the [T, dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kCodeDistance[] = {
    /// Digits per code. An integer in [1, 62]; only the low `bits` digits of each number count.
    b::req<&CodeOptions::bits>("bits", "integer"),
    /// `'binary'` or `'gray'` (see {@link BinaryOptions.code}).
    b::pick<&CodeOptions::code>("code", "binary|gray"),
    /// Digit base. An integer ≥ 2.
    b::atLeast(2, b::num<&CodeOptions::radix>("radix", "integer")),
};
constexpr KindField kLowRank[] = {
    /// Per-position coefficients [rows, rank]; positions must be below rows.
    b::req<&LowRankCall::coefficients>("coefficients", "FloatInput"),
    /// Basis vectors [rank, dim].
    b::req<&LowRankCall::basis>("basis", "FloatInput"),
    /// Number of basis vectors.
    b::req<&LowRankCall::rank>("rank", "integer"),
    /// Output width in channels.
    b::req<&LowRankCall::dim>("dim", "integer"),
    /// Write the [T, dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kSparse[] = {
    /// Basis rows used by each position [rows, k]: integers in [0, basisSize); positions must be below rows.
    key(req("indices", "IntInput")),
    /// Their weights [rows, k], the same length as `indices`.
    b::req<&SparseCall::values>("values", "FloatInput"),
    /// Non-zeros per position.
    b::req<&SparseCall::k>("k", "integer"),
    /// Basis vectors [basisSize, dim].
    b::req<&SparseCall::basis>("basis", "FloatInput"),
    /// Output width in channels.
    b::req<&SparseCall::dim>("dim", "integer"),
    /// Write the [T, dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
using Rf = RandomFeatureOptions;
constexpr KindField kRandomFeatures[] = {
    /// Output width in channels.
    b::req<&Rf::dim>("dim", "integer"),
    /// The random function is a function of the seed. An integer in [0, 2^53 − 1].
    upTo(9007199254740991.0, b::atLeast(0, b::num<&Rf::seed>("seed", "integer"))),
    /// The feature map, x = p / scale:
    /// - `'fourier'` (random Fourier features, Rahimi and Recht 2007): PE[p][k] = sqrt(2/dim)·cos(w_k·x + b_k),
    ///  w_k ~ N(0, sigma²), b_k ~ U[0, 2π);
    /// - `'mlp'`: PE[p] = W2·tanh(W1·x + b1), W1, b1 ~ N(0, 1) of size `hidden`, W2 ~ N(0, 1/hidden) [dim, hidden].
    b::pick<&Rf::kind>("kind", "fourier|mlp"),
    /// `'fourier'`: standard deviation of the frequencies w_k, in radians per unit of x. A positive finite number.
    b::num<&Rf::sigma>("sigma", "number"),
    /// Position scale, in tokens: features see x = p / scale. A positive finite number.
    b::num<&Rf::scale>("scale", "number"),
    /// `'mlp'`: hidden width.
    b::num<&Rf::hidden>("hidden", "integer"),
    /// Write the [T, dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kAxial[] = {
    /// Axis sizes [s0, s1, ...] (first slowest): positive integers whose product exceeds every position.
    b::req<&AxialOptions::shape>("shape", "IntInput"),
    /// One table per axis: tables[a] is [shape[a], dims[a]].
    key(req("tables", "FloatInput[]")),
    /// Width of each axis table, in channels: one positive integer per axis.
    b::req<&AxialOptions::dims>("dims", "IntInput"),
    /// How the axis vectors combine: `'concat'` (Reformer; width Σ dims) or `'sum'` (the 2-D image form;
    /// all dims equal, width dims[0]).
    b::pick<&AxialOptions::combine>("combine", "concat|sum"),
    /// Write the [T, width] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kTwoLevel[] = {
    /// One vector per segment [segments, segmentDim]; segment ids must be below its rows.
    b::req<&TwoLevelCall::segmentTable>("segmentTable", "FloatInput"),
    /// One vector per position inside a segment [positions in a segment, innerDim]; no segment may be longer than its rows.
    b::req<&TwoLevelCall::innerTable>("innerTable", "FloatInput"),
    /// Width of a segment vector, in channels.
    b::req<&TwoLevelCall::segmentDim>("segmentDim", "integer"),
    /// Width of an inner vector, in channels. A positive integer (equal to segmentDim with `'sum'`).
    b::req<&TwoLevelCall::innerDim>("innerDim", "integer"),
    /// `'concat'` (width segmentDim + innerDim) or `'sum'` (width segmentDim).
    b::pick<&TwoLevelCall::combine>("combine", "concat|sum"),
    /// Write the [T, width] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kFrames[] = {
    /// Frames (time axis, slowest).
    b::req<&SineCall::frames>("frames", "integer"),
};
constexpr KindField kSine[] = {
    /// Rows of the grid (y axis), in cells.
    b::req<&SineCall::height>("height", "integer"),
    /// Columns of the grid (x axis), in cells.
    b::req<&SineCall::width>("width", "integer"),
    /// F: channels per axis (DETR `num_pos_feats`). A positive even integer.
    b::num<&SineCall::sine, &SineNdOptions::numPosFeats>("numPosFeats", "integer"),
    /// T: wavelength base. A positive finite number.
    b::num<&SineCall::sine, &SineNdOptions::temperature>("temperature", "number"),
    /// Scale each axis's cumulative counts to [0, scale): e / (e_last + 1e-6)·scale, e_last being the
    /// count at the end of the line (DETR `normalize`).
    b::flag<&SineCall::sine, &SineNdOptions::normalize>("normalize"),
    /// Range after `normalize` (ignored without it). A finite number. @defaultValue `2 * Math.PI`
    b::num<&SineCall::sine, &SineNdOptions::scale>("scale", "number"),
    /// Valid cells, one 0/1 per cell in row-major order: 1 = valid (Hugging Face polarity; the original DETR
    /// passes 1 = padding). Length height·width (frames·height·width for sine3d).
    /// @defaultValue every cell valid
    key(opt("mask", "MaskInput")),
    /// Write the result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
// `from` and `to`: [h, w] each.
template <int ResizeOptions::*H, int ResizeOptions::*W>
void gridSize(const Source& s, const char* k, void* o) {
    if (!s.has(k)) return;
    const std::vector<double> hw = s.numbers(k);
    auto& g = *static_cast<ResizeOptions*>(o);
    g.*H = static_cast<int>(hw.at(0)), g.*W = static_cast<int>(hw.at(1));
}
using Rg = ResizeOptions;
constexpr KindField kResizeGrid[] = {
    /// Size [h, w] of the input grid, in patches: positive integers.
    b::custom<Rg>(req("from", "[number, number]"), "", gridSize<&Rg::fromH, &Rg::fromW>),
    /// Size [h, w] of the output grid, in patches: positive integers.
    b::custom<Rg>(req("to", "[number, number]"), "", gridSize<&Rg::toH, &Rg::toW>),
    /// Channels per embedding.
    b::req<&Rg::dim>("dim", "integer"),
    /// `'bicubic'` (Keys kernel A = −0.75, border-clamped taps) or `'bilinear'` (source clamped at 0).
    b::pick<&Rg::mode>("mode", "bicubic|bilinear"),
    /// How output cells map to input coordinates: `'size'` (current HF and timm, `interpolate(size=...)`:
    /// src = (o + 0.5)·in/out − 0.5) or `'scaleFactor'` (DINO and older HF, `scale_factor = (out + 0.1)/in`:
    /// src = (o + 0.5)/scale_factor − 0.5).
    b::pick<&Rg::mapping>("mapping", "size|scaleFactor"),
    /// Rows before the grid (CLS, register tokens), copied unchanged.
    b::atLeast(0, b::num<&Rg::prefixTokens>("prefixTokens", "integer")),
    /// Write the [prefixTokens + to[0]·to[1], dim] result here instead of allocating (see {@link FloatOut}).
    key(kOut),
};
constexpr KindField kT5Bucket[] = {
    /// Encoder-style: keys after the query get their own half of the buckets (offset by numBuckets/2).
    /// false (decoder): every future key falls in bucket 0.
    b::flag<&T5BucketOptions::bidirectional>("bidirectional"),
    /// Number of buckets: a positive integer leaving at least 2 per direction (≥ 4 when bidirectional,
    /// ≥ 2 otherwise).
    b::num<&T5BucketOptions::numBuckets>("numBuckets", "integer"),
    /// Distance, in tokens, from which all keys share the last bucket. A positive integer greater than
    /// ⌊n/2⌋, n = numBuckets per direction (numBuckets/2 when bidirectional).
    b::num<&T5BucketOptions::maxDistance>("maxDistance", "integer"),
};
constexpr KindField kDebertaBucket[] = {
    /// DeBERTa `position_buckets`: 0 = no log bucketing (δ returned as is), else an integer ≥ 4.
    b::atLeast(0, b::req<&DebertaBucketOptions::bucketSize>("bucketSize", "integer")),
    /// DeBERTa `max_relative_positions`, in tokens: a positive integer, greater than bucketSize/2 + 1 when bucketing.
    b::req<&DebertaBucketOptions::maxPosition>("maxPosition", "integer"),
    /// `'hf'` (Hugging Face: no clamp) or `'microsoft'` (microsoft/DeBERTa: |δ| clamped to maxPosition − 1
    /// before bucketing). They differ for δ ≤ −maxPosition.
    b::pick<&DebertaBucketOptions::convention>("convention", "hf|microsoft"),
};
constexpr KindField kApplyRope[] = {
    /// Rotate `x` where it lies and return `x` itself. `x` must then be a `Float32Array` or a
    /// {@link HeapBuffer} (`TypeError` otherwise); `out` is ignored.
    key(flag("inPlace", "", POSENC_DEFAULT(false))),  // the JavaScript side's
    /// Write the result here instead of allocating (see {@link FloatOut}); `x` is left unchanged.
    key(kOut),
};
constexpr KindField kShape[] = {
    /// Attention heads (first, slowest axis).
    b::req<&HeadsShape::heads>("heads", "integer"),
    /// Tokens per head.
    b::req<&HeadsShape::tokens>("tokens", "integer"),
    /// Channels per head (last, fastest axis).
    b::req<&HeadsShape::headDim>("headDim", "integer"),
};
using Hf = HfConfigOptions;
constexpr KindField kHfConfig[] = {
    /// For configs with one rotary table per layer type (Gemma 3, ModernBERT; transformers
    /// `rope_parameters` keyed by layer type): which table to return, e.g. `'full_attention'` or
    /// `'sliding_attention'`. Required with such a config (the error lists the layer types present); giving
    /// it for a one-table config, or asking for a layer type without RoPE (Cohere2's full-attention layers),
    /// is an error.
    /// @defaultValue none
    b::opt<&Hf::layerType>("layerType", "string"),
    /// YaRN's factor when `rope_scaling` gives `factor` and max_position_embeddings /
    /// original_max_position_embeddings disagrees with it: `'explicit'` = the `factor` field (transformers
    /// ≥ 4.51 and other readers), `'legacy'` = the ratio of the two lengths (transformers 4.46–4.50).
    b::pick<&Hf::yarnFactor>("yarnFactor", "explicit|legacy"),
    /// Refuse (`RangeError`) everything the reading would otherwise only report in the result's `warnings`:
    /// keys the model type's Hugging Face code ignores (Qwen2.5's `use_mrope`, SmolLM2's `rope_interleaved`,
    /// ...), and a config without `model_type` unless `unknownModelType: 'generic'` asks for the generic rules.
    b::flag<&Hf::strict>("strict"),
    /// A `model_type` posenc does not know (a typo such as `'deepseekv3'` or `'gemma-2'`, or a model newer than
    /// posenc): `'error'` refuses it with a `TypeError` naming the nearest known types, as Hugging Face's
    /// AutoConfig refuses an unknown type; `'generic'` reads it with the Llama rules (`rotate_half` over all
    /// channels, `rope_theta`, `rope_scaling`), rotary keys it does not know staying errors. `'generic'` also
    /// reads a config without `model_type` without the warning it otherwise gets.
    b::pick<&Hf::unknownModelType>("unknownModelType", "error|generic"),
};
// attentionConfigFromHF: the layer, then the reader's options but layerType (the layer's own type picks its table).
using Ac = AttentionConfigCall;
constexpr KindField kAttentionConfig[] = {
    /// The decoder layer, 0 … num_hidden_layers − 1 (past it: a `RangeError` naming `layer` and num_hidden_layers).
    b::atLeast(0, b::req<&Ac::layer>("layer", "integer")),
    /// YaRN's factor when `rope_scaling` gives `factor` and max_position_embeddings /
    /// original_max_position_embeddings disagrees with it ({@link HfConfigOptions.yarnFactor}).
    b::pick<&Ac::reader, &Hf::yarnFactor>("yarnFactor", "explicit|legacy"),
    /// Refuse what the reading would otherwise report in `warnings` ({@link HfConfigOptions.strict}).
    b::flag<&Ac::reader, &Hf::strict>("strict"),
    /// A `model_type` posenc does not know: an error, or `'generic'`: the Llama rules, and Llama's attention (scale
    /// head_dim^−½, no window, no soft-capping) — say so only if that is the model's ({@link HfConfigOptions.unknownModelType}).
    b::pick<&Ac::reader, &Hf::unknownModelType>("unknownModelType", "error|generic"),
};
// kvHeads: heads unless given.
void kvHeadsOrHeads(const Source& s, const char* k, void* o) {
    AttentionDims& d = static_cast<AttentionCall*>(o)->request.dims;
    d.kvHeads = s.has(k) ? static_cast<int>(s.number(k)) : d.heads;
}
using At = AttentionCall;
using Rq = AttentionRequest;
using Dm = AttentionDims;
constexpr KindField kAttention[] = {
    /// Queries [heads, qLen, headDim].
    b::req<&At::request, &Rq::q>("q", "FloatInput"),
    /// Keys [kvHeads, kLen, headDim], unrotated (a rope encoding rotates them): floats, or with `kvType` a
    /// Uint16Array of f16 / bf16 bit patterns (a Uint16Array without `kvType` is a `TypeError`).
    key(req("k", "KVInput")),  // floats, or bits with kvType
    /// Values [kvHeads, kLen, valueDim] (valueDim = headDim unless given): floats, or with `kvType` a Uint16Array of bit patterns.
    key(req("v", "KVInput")),
    /// `k` and `v` are Uint16Arrays of IEEE binary16 (`'f16'`) or bfloat16 (`'bf16'`) bit patterns, the layout
    /// browser runtimes hold fp16 tensors in. The result equals attention over the float values they stand
    /// for, bit for bit; the values (and, without a rope encoding, the keys) are read in that format, with no
    /// float copy. A pattern that is not a finite number is a `RangeError` naming its index.
    /// @defaultValue none: `k` and `v` are floats
    b::member<&At::request, &Rq::kvType>(kKvType, ""),
    /// Query heads. A positive integer, a multiple of kvHeads.
    b::req<&At::request, &Rq::dims, &Dm::heads>("heads", "integer"),
    /// Key/value heads; fewer than heads = grouped-query attention. A positive integer dividing heads. @defaultValue `heads`
    b::custom<At>(opt("kvHeads", "integer"), "", kvHeadsOrHeads),
    /// Channels per head of q and k (the q·k dot product).
    b::req<&At::request, &Rq::dims, &Dm::headDim>("headDim", "integer"),
    /// Channels per head of v and of `out`, when they differ from headDim: DeepSeek V2 / V3 and Kimi K2 (MLA)
    /// score over q·k heads of `qk_nope_head_dim + qk_rope_head_dim` = 192 channels and weigh values of
    /// `v_head_dim` = 128 (with a rope encoding's `rotaryOffset`: 128).
    /// @defaultValue `headDim`
    b::opt<&At::request, &Rq::dims, &Dm::valueDim>("valueDim", "integer"),
    /// Queries per head.
    b::req<&At::request, &Rq::dims, &Dm::qLen>("qLen", "integer"),
    /// Keys per head.
    b::req<&At::request, &Rq::dims, &Dm::kLen>("kLen", "integer"),
    /// Logical position of each query [qLen], integers in [0, 2^31). @defaultValue the last `qLen` key positions
    key(opt("qPositions", "IntInput")),
    /// Logical position of each key [kLen], integers in [0, 2^31). @defaultValue `0 … kLen − 1`
    key(opt("kPositions", "IntInput")),
    /// Multi-axis RoPE only (`multiAxis` 'mrope' or 'axial2d'): the sequence index of each key [kLen], which
    /// the causal / window masks and score terms use (as Hugging Face masks by cache position), while
    /// `qPositions` / `kPositions` are the rotation's [axes, len] rows. Queries take the last qLen entries.
    /// @defaultValue `0 … kLen − 1`
    key(opt("maskPositions", "IntInput")),
    /// Mask keys after the query: admit a key when kPos ≤ qPos.
    b::flag<&At::request, &Rq::causal>("causal"),
    /// Sliding window, in positions: admit a key when 0 ≤ qPos − kPos < window. @defaultValue none
    b::opt<&At::request, &Rq::window>("window", "integer"),
    /// Chunked attention (Llama 4's chunked layers, HF `chunked_overlay`): admit a key when
    /// ⌊kPos / chunk⌋ = ⌊qPos / chunk⌋ — a query sees only the keys of its own chunk. With `causal` this is
    /// Llama 4's mask for `attention_chunk_size` = chunk. @defaultValue none
    b::opt<&At::request, &Rq::chunk>("chunk", "integer"),
    /// [kLen] 0/1, 1 = attend (e.g. 0 for padding keys). @defaultValue all keys
    key(opt("keyMask", "MaskInput")),
    /// Multiplies the content terms (q̃·k̃ and content × position terms such as Shaw's q·a^K), never the
    /// scalar biases. A finite number.
    /// @defaultValue `1/√headDim`; T5: `1`; DeBERTa: `1/√(k·headDim)`, k = 1 + active position terms
    b::opt<&At::request, &Rq::scale>("scale", "number"),
    /// The position terms ({@link Encoding}), or an array of them applied together (at most one `'rope'`;
    /// score terms add, e.g. `[{ kind: 'rope' }, { kind: 'alibi' }]`; a `'stickBreaking'` entry replaces the
    /// softmax by stick-breaking over those logits). @defaultValue `{ kind: 'none' }`
    /// @tsType Encoding | Encoding[]
    key(opt("encoding", "Encoding")),
    /// Learned logits, one per query head [heads], that join every row's softmax denominator and weigh no
    /// value: gpt-oss's `sinks` (softmax over the row's scores and the sink, the sink's column dropped).
    /// The returned `weights` then sum to less than 1; a row that sees no key gives zeros. Finite numbers.
    /// Not the KV cache's `sinks` (a count of kept tokens). A softmax option: with `'stickBreaking'` a RangeError.
    b::opt<&At::request, &Rq::sinkLogits>("sinkLogits", "FloatInput"),
    /// Gemma 2's `attn_logit_softcapping`: every logit — `scale`·q̃·k̃ plus any score terms (biases included) —
    /// becomes `softcap · tanh(logit / softcap)` before the mask, so no logit leaves (−softcap, softcap);
    /// `returnScores` gives the capped logits. With `'stickBreaking'` the capped logits go into the sigmoid.
    /// A positive finite number. @defaultValue none
    b::opt<&At::request, &Rq::softcap>("softcap", "number"),
    /// Also return the weights [heads, qLen, kLen]: the softmax's, whose rows sum to 1; with `sinkLogits` to
    /// less; with `'stickBreaking'` the stick-breaking weights, whose rows sum to at most 1 (the rest of the
    /// stick weighs no value).
    b::flag<&At::returnWeights>("returnWeights"),
    /// Also return the final pre-softmax logits [heads, qLen, kLen] (masked = −Infinity).
    b::flag<&At::returnScores>("returnScores"),
    /// Write `out` [heads, qLen, valueDim] here instead of allocating (see {@link FloatOut}).
    key(kOut),
};

void cacheRope(const Source& s, const char* k, void* o) {
    if (s.has(k)) static_cast<KVCacheConfig*>(o)->rope = ropeFrom(*s.object(k));
}
using Kv = KVCacheConfig;
constexpr KindField kKVCache[] = {
    /// Sequences (batch rows).
    b::num<&Kv::batch>("batch", "integer"),
    /// Key/value heads.
    b::req<&Kv::kvHeads>("kvHeads", "integer"),
    /// Channels per head of keys (and of the queries {@link KVCache.attend} takes).
    b::req<&Kv::headDim>("headDim", "integer"),
    /// Channels per head of values, and of {@link KVCache.attend}'s `out`, when they differ from headDim
    /// (DeepSeek MLA: keys of 192, values of 128): {@link KVCache.append} then takes v [batch, kvHeads, T,
    /// valueDim].
    /// @defaultValue `headDim`
    b::opt<&Kv::valueDim>("valueDim", "integer"),
    /// Slots per batch row, in tokens. A positive integer, at least sinks + window.
    b::req<&Kv::capacity>("capacity", "integer"),
    /// Sliding window, in positions: a query at position p sees the keys at p − window < j ≤ p, plus the
    /// `sinks` (at or before p when `causal`). The ring keeps the last `window` tokens after the `sinks`
    /// first ones; evicted tokens leave, kept ones keep their positions. An append longer than the window
    /// (a one-shot or chunked prefill) still lets each of its own queries see its whole window: keys it
    /// pushes out of the ring that those queries need are held (in memory past `capacity`, not shown by
    /// {@link KVCache.positions}) until the next `append` or `renumber`, so
    /// `cache.append(k100, v100); cache.attend(q100, …)` equals {@link Posenc.attention} with the window
    /// and sinks mask.
    /// @defaultValue none: no eviction, no window
    b::opt<&Kv::window>("window", "integer"),
    /// First tokens of each row that are always kept (attention sinks, StreamingLLM).
    b::atLeast(0, b::num<&Kv::sinks>("sinks", "integer")),
    /// Chunked attention (Llama 4's chunked layers): {@link KVCache.attend} shows a query only the keys of
    /// its own chunk, ⌊position / chunk⌋. With `window` = `chunk` the cache holds one chunk — all a query can
    /// see. Not with `sinks`. @defaultValue none
    b::opt<&Kv::chunk>("chunk", "integer"),
    /// The cache's own RoPE: keys are rotated with it at their logical positions when appended, queries
    /// when attending. @defaultValue none: keys stored as given
    b::custom<Kv>(opt("rope", "KVCacheRope"), "", cacheRope),
    /// Dynamic NTK scaling in a cache. `'fixed'` keeps the configured schedule (`rope.seqLen`) for every
    /// token, so cached keys and new queries agree. `'hf'` re-derives the base from each call's largest
    /// position + 1 once it passes `originalMaxPositionEmbeddings` (and resets below it), as Hugging Face's
    /// `dynamic_rope_update` does — knowingly inconsistent: keys cached earlier keep the older base.
    /// Only with `rope.scaling.type` `'dynamic'`.
    b::pick<&Kv::dynamic>("dynamic", "fixed|hf"),
    /// How keys (after RoPE) and values are held: `'f32'` as given; `'f16'` (IEEE binary16) or `'bf16'`
    /// (bfloat16), rounded to nearest even (half the bytes); `'q8'`, ggml's Q8_0: each 32 channels of a key
    /// or value one fp16 scale max|x| / 127 and 32 int8 round(x / scale) (34 bytes per 32 values; `headDim`
    /// must be a multiple of 32). {@link KVCache.attend} reads the stored format directly and equals float32
    /// attention over the stored values; `shift` / `renumber` convert to float, rotate and convert back. A
    /// key or value the storage cannot hold (beyond f16's 65504; a Q8_0 scale beyond it, |x| ≥ 8321040) is a
    /// `RangeError` naming it, and the cache is left as it was. {@link KVCache.bytes} says what it holds.
    b::pick<&Kv::storage>("storage", "f32|f16|bf16|q8"),
    /// Forgetting attention ({@link ForgettingEncoding}): every {@link KVCache.append} then gives
    /// {@link AppendOptions.logForget} [batch, heads, T] (heads: the query heads, fixed by the first
    /// append), and the cache keeps each token's cumulative log gate G per head in double precision,
    /// continuing the sum append after append (padding adds nothing). `attend` with
    /// `{ kind: 'forgetting' }` (no `logForget`) uses them. Eviction, `shift` and `renumber` keep the bias
    /// right: it holds only the gates between key and query, and no position enters it.
    b::flag<&Kv::forgetting>("forgetting"),
};
constexpr KindField kAppend[] = {
    /// Logical position of each appended token [batch·T], integers in [0, 2^31).
    /// @defaultValue each row continues from its next position
    key(opt("positions", "IntInput")),
    /// [batch·T] 0/1, 1 = real token; padding (0) gets neither a slot nor a position. @defaultValue all real
    key(opt("mask", "MaskInput")),
    /// Multi-axis rope only: the sequence index [batch·T] each slot keeps (masks, score terms, `shift`,
    /// `renumber`), while `positions` are then the rotation's [batch, axes, T].
    /// @defaultValue each row's next positions
    key(opt("maskPositions", "IntInput")),
    /// Log forget gates [batch, heads, T] of the appended tokens (forgetting attention), each finite and ≤ 0:
    /// required by a cache created with {@link KVCacheOptions.forgetting}, a `RangeError` naming it otherwise.
    /// `heads` are the query heads (a multiple of kvHeads), the same in every append.
    b::opt<&AppendCall::logForget>("logForget", "FloatInput"),
    /// `k` and `v` are Uint16Arrays of f16 / bf16 bit patterns (as in {@link AttentionArgs.kvType}); each is
    /// appended as the float it stands for, then stored in the cache's `storage`.
    /// @defaultValue none: `k` and `v` are floats
    b::member<&AppendCall::kvType>(kKvType, ""),
};
constexpr KindField kAttend[] = {
    /// Query heads: a positive multiple of the cache's kvHeads.
    b::req<&AttendCall::heads>("heads", "integer"),
    /// Score terms added on top of the cache's own rope (ALiBi, T5, ...), at the cached logical positions.
    /// `'rope'` is refused (a `RangeError`, and a compile error here: configure {@link KVCacheOptions.rope} instead).
    /// An array applies several together.
    /// @defaultValue `{ kind: 'none' }`
    /// @tsType AttendEncoding | AttendEncoding[]
    key(opt("encoding", "Encoding")),
    /// Logical position of each query [batch·qLen], integers in [0, 2^31).
    /// @defaultValue each row's last `qLen` positions: `next − qLen … next − 1`
    key(opt("qPositions", "IntInput")),
    /// Multi-axis rope only: each query's sequence index [batch·qLen] for the masks, while `qPositions`
    /// are then the rotation's [batch, axes, qLen]. @defaultValue each row's last `qLen` positions
    key(opt("maskPositions", "IntInput")),
    /// Mask cached keys after the query. With a `window`, keys outside a query's window are masked either
    /// way (as `window` in {@link Posenc.attention}); `causal` then decides only for the sinks.
    b::flag<&AttendCall::causal>("causal"),
    /// Multiplies the content terms, as {@link AttentionArgs.scale}. A finite number. @defaultValue per encoding (see {@link AttentionArgs.scale})
    b::opt<&AttendCall::scale>("scale", "number"),
    /// Learned per-head logits in every row's softmax denominator [heads] (gpt-oss), as {@link AttentionArgs.sinkLogits}.
    b::opt<&AttendCall::sinkLogits>("sinkLogits", "FloatInput"),
    /// Gemma 2's logit soft-capping, as {@link AttentionArgs.softcap}. A positive finite number. @defaultValue none
    b::opt<&AttendCall::softcap>("softcap", "number"),
    /// Write `out` [batch, heads, qLen, valueDim] here instead of allocating (see {@link FloatOut}).
    key(kOut),
};

// parameterCount: the shapes of each method's learned tables (fixed functions learn none).
constexpr Raw size(const char* name) { return req(name, "integer"); }
constexpr Raw kLearnedShape[] = {
    /// Rows of the table (positions).
    size("maxPositions"),
    /// Channels per row.
    size("dim"),
};
constexpr Raw kBinaryShape[] = {
    /// Digits per code.
    size("bits"),
    /// Channels per row.
    size("dim"),
    /// Digit base. An integer ≥ 2.
    atLeast(2, num("radix", "integer", "", POSENC_DEFAULT(CodeOptions().radix))),
    /// false: fixed ±1 digits, nothing learned.
    flag("learned", "false: fixed ±1 digits", POSENC_DEFAULT(true)),
};
constexpr Raw kLowRankShape[] = {
    /// Positions covered.
    size("maxPositions"),
    /// Basis vectors.
    size("rank"),
    /// Channels per row.
    size("dim"),
};
constexpr Raw kSparseShape[] = {
    /// Positions covered.
    size("maxPositions"),
    /// Non-zeros per position.
    size("k"),
    /// Basis vectors.
    size("basisSize"),
    /// Channels per row.
    size("dim"),
};
constexpr Raw kAxialShape[] = {
    /// Axis sizes: positive integers.
    req("shape", "IntInput"),
    /// Width of each axis table: one positive integer per axis.
    req("dims", "IntInput"),
};

// A run of a table's keys: plain fields (a parameter count's shape) or keys bound to members.
struct Part {
    const Raw* raw = nullptr;
    const KindField* bound = nullptr;
    std::size_t count = 0;
    const Raw& at(std::size_t i) const { return raw ? raw[i] : bound[i].raw; }
};
template <std::size_t N>
constexpr Part part(const Raw (&a)[N]) { return {a, nullptr, N}; }
template <std::size_t N>
constexpr Part part(const KindField (&a)[N]) { return {nullptr, a, N}; }

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
    /// Options of {@link Posenc.sinusoidal}.
    {"sinusoidal", "SinusoidalOptions", {part(kSinusoidal)}},
    /// Options of {@link Posenc.learned}.
    {"learned", "LearnedOptions", {part(kLearned)}},
    /// Options of {@link Posenc.positionIds}.
    {"positionIds", "PositionIdsOptions", {part(kPositionIds)}},
    /// Options of {@link Posenc.nextPositions}.
    {"nextPositions", "NextPositionsOptions", {part(kNextPositions)}},
    /// Options of {@link Posenc.modalityPositions}.
    {"modalityPositions", "ModalityPositionsOptions", {part(kModalityPositions)}},
    /// Options of {@link Posenc.binary}.
    {"binary", "BinaryOptions", {part(kBinary)}},
    /// Options of {@link Posenc.codeDistance}.
    {"codeDistance", "CodeDistanceOptions", {part(kCodeDistance)}},
    /// Options of {@link Posenc.lowRank}: PE[p] = coefficients[p]·basis.
    {"lowRank", "LowRankOptions", {part(kLowRank)}},
    /// Options of {@link Posenc.sparse}: PE[p] = Σ_i values[p, i]·basis[indices[p, i]].
    {"sparse", "SparseOptions", {part(kSparse)}},
    /// Options of {@link Posenc.randomFeatures}: PE[p] = f(p / scale) for a fixed random function drawn from
    /// `seed` (splitmix64; normals by Box-Muller), identical on every platform.
    {"randomFeatures", "RandomFeaturesOptions", {part(kRandomFeatures)}},
    /// Options of {@link Posenc.axial} (Reformer `AxialPositionEmbeddings`): position p is written in the
    /// mixed radix of `shape` (first axis slowest, p = ((d0·s1 + d1)·s2 + d2)...) and each digit d_a looks up
    /// row d_a of table a.
    {"axial", "AxialOptions", {part(kAxial)}},
    /// Options of {@link Posenc.twoLevel}: token t of segment s = segments[t], at index i inside its segment
    /// (i restarts at 0 whenever the segment id changes), gets combine(segmentTable[s], innerTable[i]).
    {"twoLevel", "TwoLevelOptions", {part(kTwoLevel)}},
    /// Options of {@link Posenc.sine2d}: the grid size and its channels, following DETR `PositionEmbeddingSine`:
    /// along each axis, e = the 1-based cumulative count of valid cells; channel 2m is sin(e/T^(2m/F)),
    /// channel 2m+1 cos(e/T^(2m/F)), F = numPosFeats, T = temperature. Padded cells are not zeroed (as DETR).
    {"sine2d", "Sine2dOptions", {part(kSine)}},
    /// Options of {@link Posenc.sine3d}: a video grid [frames, height, width] and its channels, as
    /// {@link Sine2dOptions} along each of the three axes.
    {"sine3d", "Sine3dOptions", {part(kFrames), part(kSine)}},
    /// Options of {@link Posenc.resizeGrid}: resizing ViT position embeddings to another patch grid, as
    /// PyTorch `F.interpolate` (align_corners=False, no antialias) in Hugging Face ViT
    /// `interpolate_pos_encoding` and timm `resample_abs_pos_embed`.
    {"resizeGrid", "ResizeGridOptions", {part(kResizeGrid)}},
    /// Options of {@link Posenc.t5Bucket}, as Hugging Face `T5Attention._relative_position_bucket`
    /// (Raffel et al. 2020). With n = numBuckets (halved when bidirectional), distances below n/2 get a
    /// bucket each, larger ones log-spaced buckets up to maxDistance (float32 log, truncated, as HF).
    {"t5Bucket", "T5BucketOptions", {part(kT5Bucket)}},
    /// Options of {@link Posenc.debertaBucket}: DeBERTa's log buckets (Hugging Face `make_log_bucket_position`,
    /// microsoft/DeBERTa `build_relative_position`), mid = bucketSize/2: |δ| < mid is kept, larger distances
    /// are log-spaced up to maxPosition (float32, as both references).
    {"debertaBucket", "DebertaBucketOptions", {part(kDebertaBucket)}},
    /// Everything that defines a rotary encoding (RoPE, Su et al. 2021). Pair i of the rotaryDim channels
    /// from `rotaryOffset` (the first ones by default) turns by position·invFreq[i] radians, with
    /// invFreq[i] = base^(−2i/rotaryDim) before {@link RopeScaling | scaling}; the remaining channels pass through. The same object (as returned by
    /// {@link Posenc.ropeConfigFromHF}) is accepted by {@link Posenc.ropeFrequencies},
    /// {@link Posenc.applyRope}, a `{ kind: 'rope' }` {@link RopeEncoding} and a {@link KVCacheOptions.rope}.
    {"ropeFrequencies", "RopeOptions", {part(kRopeKind), part(kHeadDim)}, From::rope},
    /// Options of {@link Posenc.applyRope} and {@link Posenc.rotateByDelta}: the {@link RopeOptions} (all
    /// optional: headDim, when given, must equal the shape's), plus where the result goes.
    {"applyRope", "ApplyRopeOptions", {part(kRopeKind), part(kApplyRope)}, From::rope},
    /// The shape [heads, tokens, headDim] of a tensor of head vectors; every field is a positive integer.
    {"shape", "HeadsShape", {part(kShape)}},
    /// A RoPE frequency schedule for contexts longer than the training length ({@link RopeOptions.scaling}).
    /// Names and formulas follow Hugging Face `modeling_rope_utils`; where llama.cpp (ggml) computes
    /// differently, {@link RopeOptions.convention} `'ggml'` reproduces ggml. Each `type` accepts only its own
    /// keys (another type's key is a `TypeError`) and requires what Hugging Face's rope validation requires
    /// (a missing one is a `RangeError`).
    ///
    /// R = rotary dim, w_i = base^(−2i/R) the default frequencies, L0 = originalMaxPositionEmbeddings:
    ///
    /// - `'none'` (alias `'default'`): w_i unchanged.
    /// - `'linear'` (Position Interpolation; HF `_compute_linear_scaling_rope_parameters`): w_i / factor.
    /// - `'ntk'` (alias `'ntk_aware'`; bloc97's NTK-aware scaled RoPE): base·factor^(R/(R−2)). Needs R > 2.
    /// - `'dynamic'` (HF `_compute_dynamic_ntk_parameters`): base·(1 + factor·(L/L0 − 1))^(R/(R−2)) with
    ///   L = max(seqLen, L0), the same number as HF's factor·L/L0 − (factor − 1); equal to the default at or
    ///   below L0. Needs R > 2.
    /// - `'yarn'` (HF `_compute_yarn_parameters`; ggml `rope_yarn`): pairs that turn more than `betaFast`
    ///   times over L0 keep w_i, pairs that turn fewer than `betaSlow` times become w_i / factor, a linear ramp
    ///   in between; attention scale 0.1·mscale·ln(factor) + 1 (see `mscale`, `mscaleAllDim`,
    ///   `attentionFactor`; ggml: always 1 + 0.1·ln(factor)).
    /// - `'llama3'` (HF `_compute_llama3_parameters`): wavelengths longer than L0/lowFreqFactor become
    ///   w_i / factor, shorter than L0/highFreqFactor are kept, a smooth blend in between.
    /// - `'longrope'` (alias `'su'`; HF `_compute_longrope_parameters`, Phi-3): w_i / shortFactor[i], or
    ///   w_i / longFactor[i] when seqLen > L0; attention scale sqrt(1 + ln(factor)/ln(L0)) when factor > 1.
    {"scaling", "RopeScaling", {}, From::scaling},
    /// Options of {@link Posenc.ropeConfigFromHF}: how to read a config.json.
    {"ropeConfigFromHF", "HfConfigOptions", {part(kHfConfig)}},
    /// Options of {@link Posenc.attentionConfigFromHF}: the layer, and how to read the config.json (as {@link HfConfigOptions}, but
    /// for `layerType`: the layer's own type chooses its rotary table).
    {"attentionConfigFromHF", "AttentionConfigOptions", {part(kAttentionConfig)}},
    /// Arguments of {@link Posenc.attention}. Sizes are positive integers; tensors are row-major.
    /// Default positions: keys 0 .. kLen − 1, queries at the last qLen key positions (max(kLen − qLen, 0) + i).
    {"attention", "AttentionArgs", {part(kAttention)}},
    {"", "", {}, From::kindTables},
    /// Options of `new pe.KVCache(...)` ({@link Posenc.KVCache}). Each batch row has `sinks` slots kept
    /// forever, then either plain slots up to `capacity` (no window: appending past capacity is a
    /// `RangeError`) or a ring of `window` slots holding the most recent tokens. With a window, a query at
    /// position p sees the keys at positions p − window < j ≤ p plus the sinks (Hugging Face / vLLM sliding
    /// window, StreamingLLM sinks), however the tokens were appended: see {@link KVCacheOptions.window}.
    {"KVCache", "KVCacheOptions", {part(kKVCache)}},
    /// The cache's own RoPE: {@link RopeOptions}, all optional (headDim, when given, must equal the cache's).
    /// With multi-axis RoPE, {@link AppendOptions.positions} are the rotation's per axis and each slot keeps
    /// a sequence index ({@link AppendOptions.maskPositions}) for the masks.
    {"KVCache.rope", "KVCacheRope", {part(kRopeKind)}, From::rope},
    /// Options of {@link KVCache.append}.
    {"KVCache.append", "AppendOptions", {part(kAppend)}},
    /// Options of {@link KVCache.attend}.
    {"KVCache.attend", "AttendOptions", {part(kAttend)}},
    {"parameterCount.sinusoidal", "", {}},
    {"", "", {}, From::fixedKindCounts},
    {"parameterCount.sine2d", "", {}},
    {"parameterCount.sine3d", "", {}},
    {"parameterCount.randomFeatures", "", {}},
    /// Shape of a learned absolute table (BERT, GPT-2).
    {"parameterCount.learned", "LearnedShape", {part(kLearnedShape)}},
    /// Shape of a binary / Gray / radix code with learned digit vectors.
    {"parameterCount.binary", "BinaryShape", {part(kBinaryShape)}},
    /// Shape of a low-rank table (coefficients [maxPositions, rank] × basis [rank, dim]).
    {"parameterCount.lowRank", "LowRankShape", {part(kLowRankShape)}},
    /// Shape of a sparse table (k weights per position, basis [basisSize, dim]).
    {"parameterCount.sparse", "SparseShape", {part(kSparseShape)}},
    /// Shape of axial tables (Reformer).
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
            for (std::size_t i = 0; i < p.count; ++i) put(t, field(p.at(i)));
        out.tables.push_back(std::move(t));
    }
    return out;
}

namespace {
const RawTable* boundTable(std::string_view name) {
    for (const RawTable& t : kTables)
        if (t.from == From::parts && name == t.name) return &t;
    return nullptr;
}
}  // namespace

const void* tableOwner(std::string_view name) {
    if (const RawTable* t = boundTable(name))
        for (const Part& p : t->parts)
            for (std::size_t i = 0; p.bound && i < p.count; ++i)
                if (p.bound[i].owner) return p.bound[i].owner;
    return nullptr;
}

void readTable(std::string_view name, const void* owner, const Source& s, void* out) {
    const RawTable* t = boundTable(name);
    if (!t || !owner || tableOwner(name) != owner)
        throw std::logic_error("registry: no table '" + std::string(name) + "' whose keys are read into that struct");
    for (const Part& p : t->parts)
        for (std::size_t i = 0; p.bound && i < p.count; ++i) {
            const KindField& f = p.bound[i];
            if (!f.read) continue;
            if (f.owner != owner) throw std::logic_error("registry: " + std::string(name) + "." + f.raw.name + " is read into another struct");
            f.read(s, f.raw.name, out);
        }
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
