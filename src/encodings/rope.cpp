// The 'rope' kind (rotary/): q and k rotated by position; no score term. Its keys, and RopeScaling's,
// are every rope options object's (ropeFrequencies, applyRope, the cache's rope: src/registry.cpp).
#include <functional>
#include <string>

#include "encodings/kind_define.hpp"
#include "posenc/common/errors.hpp"

namespace posenc::kinds {

namespace {
constexpr const char* kAllScaled = "linear|ntk|dynamic|yarn|llama3|longrope";
constexpr const char* kWithLength = "dynamic|yarn|llama3|longrope";
// A RopeScaling key, named as its member; validateScaling asks whether the member was given (differs
// from its initialiser), and the config.json reader's echo writes it.
template <auto M>
constexpr KindField withGiven(KindField f) {
    f.given = &givenMember<M>;
    f.write = &writeMember<M>;
    return f;
}
#define POSENC_SCALING_KEY(maker, member, ...) withGiven<&RopeScaling::member>(maker<&RopeScaling::member>(#member, __VA_ARGS__))
// The scaling types that take the key and those that require it.
constexpr KindField scaled(KindField f, const char* types, const char* requiredBy = "") {
    f.raw.types = types;
    f.raw.requiredBy = requiredBy;
    return f;
}
}  // namespace

const std::vector<KindField>& scalingFields() {
    using S = RopeScaling;
    static const std::vector<KindField> fields = {
        /// The schedule. Aliases as spelt in config.json files: `'default'` = `'none'`, `'su'` = `'longrope'`,
        /// `'ntk_aware'` = `'ntk'`.
        pickRequired<&S::type>("type", "none|linear|ntk|dynamic|yarn|llama3|longrope|default|su|ntk_aware",
                               "the schedule ('default' = 'none', 'su' = 'longrope', 'ntk_aware' = 'ntk')"),
        /// Context extension factor s (dimensionless: new context length / original). A finite number ≥ 1.
        /// Required by `'linear'`, `'ntk'`, `'dynamic'`, `'yarn'` and `'llama3'`; optional for `'longrope'`
        /// (only its attention scale uses it); not accepted by `'none'`.
        /// @defaultValue `1` (longrope only)
        scaled(POSENC_SCALING_KEY(opt, factor, "number", "context extension factor (>= 1)"), kAllScaled, "linear|ntk|dynamic|yarn|llama3"),
        // Hugging Face falls back to config.max_position_embeddings; these options have no such field.
        /// L0: the context length the model was trained on, in tokens (HF `original_max_position_embeddings`;
        /// Hugging Face falls back to `max_position_embeddings`, which these options do not have). A positive
        /// integer (at least 2 for `'longrope'` with factor > 1). Required by `'dynamic'`, `'yarn'`, `'llama3'`
        /// and `'longrope'`.
        scaled(POSENC_SCALING_KEY(opt, originalMaxPositionEmbeddings, "integer", "the context length the model was trained on"),
               kWithLength, kWithLength),
        /// YaRN β_fast: pairs that make more than this many full turns over L0 keep their frequency
        /// (extrapolated). Rotations, a positive finite number. `'yarn'` only.
        scaled(POSENC_SCALING_KEY(num, betaFast, "number", "YaRN: rotations above which pairs keep their frequency"), "yarn"),
        /// YaRN β_slow: pairs that make fewer than this many full turns over L0 are interpolated (w / factor).
        /// Rotations, a positive finite number. `'yarn'` only.
        scaled(POSENC_SCALING_KEY(num, betaSlow, "number", "YaRN: rotations below which pairs are interpolated"), "yarn"),
        /// YaRN mscale m (DeepSeek): the attention scale is 0.1·m·ln(factor) + 1, or with `mscaleAllDim` the
        /// ratio of two such terms. A finite number. `'yarn'` only; ignored with convention `'ggml'`.
        scaled(POSENC_SCALING_KEY(num, mscale, "number", "YaRN attention-scale coefficient (DeepSeek)"), "yarn"),
        /// YaRN `mscale_all_dim` (DeepSeek): when it and `mscale` are non-zero the attention scale is
        /// (0.1·mscale·ln f + 1) / (0.1·mscaleAllDim·ln f + 1), as HF. A finite number; 0 = unset.
        /// `'yarn'` only; ignored with convention `'ggml'`.
        /// @defaultValue `0` (unset)
        scaled(POSENC_SCALING_KEY(opt, mscaleAllDim, "number", "YaRN: mscale of the divisor of the attention scale (DeepSeek)"), "yarn"),
        /// An explicit attention scale (HF `attention_factor`) instead of the derived one: multiplies cos and
        /// sin. A positive finite number, at most 1e4. `'yarn'` and `'longrope'`; with convention `'ggml'`
        /// YaRN ignores it (ggml always uses 1 + 0.1·ln factor).
        /// @defaultValue derived from the schedule
        scaled(POSENC_SCALING_KEY(opt, attentionFactor, "number", "explicit attention scale instead of the derived one"), "yarn|longrope"),
        /// YaRN: round the correction range down/up to whole pair indices (floor of the low end, ceil of the
        /// high end), as HF does by default (`truncate`). Convention `'ggml'` always truncates. `'yarn'` only.
        scaled(POSENC_SCALING_KEY(flag, truncate, "YaRN: floor/ceil the correction range"), "yarn"),
        /// llama3 `low_freq_factor`: wavelengths longer than L0 / lowFreqFactor tokens are interpolated
        /// (w / factor). A positive finite number, less than `highFreqFactor`. Required by `'llama3'` (and only
        /// accepted there); Llama 3.1 uses 1.
        scaled(POSENC_SCALING_KEY(opt, lowFreqFactor, "number", "llama3: wavelengths above original/lowFreqFactor are interpolated"), "llama3", "llama3"),
        /// llama3 `high_freq_factor`: wavelengths shorter than L0 / highFreqFactor tokens keep their frequency.
        /// A positive finite number, greater than `lowFreqFactor`. Required by `'llama3'` (and only accepted
        /// there); Llama 3.1 uses 4.
        scaled(POSENC_SCALING_KEY(opt, highFreqFactor, "number", "llama3: wavelengths below original/highFreqFactor are kept"), "llama3", "llama3"),
        /// longrope `short_factor`: one divisor per rotary pair (rotaryDim/2 positive finite numbers), used
        /// while seqLen ≤ originalMaxPositionEmbeddings. Required by `'longrope'` (and only accepted there).
        scaled(POSENC_SCALING_KEY(opt, shortFactor, "ArrayLike<number>", "longrope: per-pair divisors up to originalMaxPositionEmbeddings"), "longrope",
               "longrope"),
        /// longrope `long_factor`: one divisor per rotary pair (rotaryDim/2 positive finite numbers), used
        /// when seqLen > originalMaxPositionEmbeddings. Required by `'longrope'` (and only accepted there).
        scaled(POSENC_SCALING_KEY(opt, longFactor, "ArrayLike<number>", "longrope: per-pair divisors beyond it"), "longrope", "longrope"),
    };
    return fields;
}
#undef POSENC_SCALING_KEY

namespace {
using K = RopeEncoding;
using C = RopeConfig;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    opt<&K::config, &C::headDim>("headDim", "integer", "channels per head"),
    /// Rotary base θ (HF `rope_theta`): the longest wavelength grows with it. A positive finite number other
    /// than 1 (Llama 2: 10000, Llama 3: 500000).
    num<&K::config, &C::base>("base", "number", "rotary base θ"),
    /// Fraction of each head's channels that rotate (HF `partial_rotary_factor`, GPT-NeoX `rotary_pct`):
    /// rotaryDim = int(headDim·partialRotaryFactor), truncated as HF does, must be even and at least 2.
    /// A number in (0, 1].
    num<&K::config, &C::partialRotaryFactor>("partialRotaryFactor", "number", "fraction of the head channels that rotate"),
    /// The first rotated channel: channels [rotaryOffset, rotaryOffset + rotaryDim) of each head rotate, in
    /// either {@link RopeLayout | layout} (pairs i and i + rotaryDim/2, or 2i and 2i + 1, counted from
    /// rotaryOffset), and every other channel passes through. DeepSeek V2 / V3 and Kimi K2 (MLA) rotate the
    /// trailing `qk_rope_head_dim` channels of heads of `qk_nope_head_dim + qk_rope_head_dim`: rotaryOffset =
    /// `qk_nope_head_dim` with partialRotaryFactor = rope / (nope + rope), e.g. 128 and 64/192. An integer ≥ 0;
    /// rotaryOffset + rotaryDim > headDim is a `RangeError` naming rotaryOffset.
    atLeast(0, num<&K::config, &C::rotaryOffset>("rotaryOffset", "integer", "first rotated channel (DeepSeek MLA: qk_nope_head_dim)")),
    /// Frequency schedule for longer contexts (HF `rope_scaling` / `rope_parameters`).
    /// @defaultValue none: the default frequencies
    custom(registry::opt("scaling", "RopeScaling"), "frequency schedule for longer contexts",
    [](const registry::Source& s, const char* key, void* o) {
    if (!s.has(key)) return;
    const std::unique_ptr<registry::Source> nested = s.object(key);
    RopeScaling& scaling = static_cast<K*>(o)->config.scaling;
    for (const KindField& f : scalingFields()) f.read(*nested, f.raw.name, &scaling);
    }),
    /// Sequence length in tokens: dynamic NTK uses L = max(seqLen, originalMaxPositionEmbeddings), and
    /// longrope uses its long factors when seqLen > originalMaxPositionEmbeddings. An integer ≥ 0;
    /// 0 = unknown (dynamic then equals the default frequencies, longrope uses the short factors).
    /// @defaultValue `0`
    atLeast(0, opt<&K::config, &C::seqLen>("seqLen", "integer", "sequence length: dynamic NTK and longrope choose their frequencies by it")),
    /// Whose formulas to follow where Hugging Face and llama.cpp differ (only YaRN differs): `'hf'`
    /// (`_compute_yarn_parameters`: `truncate` option, ramp (i − low)/(high − low), explicit
    /// attentionFactor or mscale ratio) or `'ggml'` (`rope_yarn` / `ggml_rope_yarn_corr_dims`: always
    /// floor/ceil, ramp width at least 0.001, attention scale always 1 + 0.1·ln(factor)).
    pick<&K::config, &C::convention>("convention", "hf|ggml", "whose formulas to follow where Hugging Face and ggml differ"),
    /// Several position axes, each driving its own rotary pairs; positions then come as [axes, tokens].
    /// - `'none'`: one position per token.
    /// - `'mrope'`: Qwen2-VL M-RoPE (`mrope_section`): `sections` split the rotaryDim/2 pairs in order among
    ///   the axes (t, h, w), default frequencies per pair.
    /// - `'axial2d'`: 2-D axial RoPE for image patches (RoPE-ViT, Heo et al. 2024): the first rotaryDim/4
    ///   pairs follow axis 0 (x), the next rotaryDim/4 axis 1 (y), each with frequencies base^(−4k/rotaryDim).
    ///   Needs rotaryDim divisible by 4 and no scaling.
    ///
    /// - `'liere'`: Lie-group RoPE (LieRE, Ostmeier et al. 2024): block j of blockSize rotated channels
    ///   becomes exp(Σₐ pₐ·G[a, j])·x_j from learned skew-symmetric `generators`; axes = the generators'
    ///   count / (rotaryDim·blockSize). Blocks are contiguous channels in either layout; no scaling.
    ///
    /// Positions are then [axes, tokens] (`applyRope`, `attention` with `maskPositions`, the KV cache).
    pick<&K::config, &C::multiAxis>("multiAxis", "none|mrope|axial2d|liere", "several position axes; positions become [axes, tokens]"),
    /// M-RoPE pairs per axis (t, h, w) as in Qwen2-VL's `mrope_section`: positive integers summing to
    /// rotaryDim/2, e.g. [16, 24, 24] for headDim 128. Only with multiAxis `'mrope'`, where it is required.
    opt<&K::config, &C::sections>("sections", "IntInput", "M-RoPE pairs per axis (t, h, w), summing to rotaryDim/2"),
    /// M-RoPE pair assignment: false = contiguous sections (Qwen2-VL, Qwen2.5-VL); true = round-robin as
    /// Qwen3-VL's `apply_interleaved_mrope` (pair k follows axis 1 when k mod 3 = 1 and k < 3·sections[1],
    /// axis 2 when k mod 3 = 2 and k < 3·sections[2], else axis 0). true needs multiAxis `'mrope'` and
    /// exactly three sections.
    flag<&K::config, &C::mropeInterleaved>("mropeInterleaved",
                          "M-RoPE pairs assigned to t, h, w round-robin (Qwen3-VL), not in contiguous sections"),
    /// xPos scale base γ (Sun et al. 2022, torchscale `XPOS`), e.g. 512: pair k of a query at position p is
    /// also scaled by ζ_k^(p/γ) and of a key by ζ_k^(−p/γ), ζ_k = (2k + 0.4·R)/(1.4·R), so scores decay with
    /// distance. A positive finite number; omitted = no xPos. Positions (and deltas) are then limited to
    /// about 63.8·γ (32 694 for γ = 512), beyond which a call is a `RangeError`. Not with multiAxis.
    /// @defaultValue off
    opt<&K::config, &C::xposScaleBase>("xposScaleBase", "number", "xPos scale base γ (e.g. 512): pair k of a query at position p scales by ζ_k^(p/γ) < 1, of a key by ζ_k^(−p/γ)"),
    /// p-RoPE (Barbero et al. 2025, "Round and Round We Go!"): only ⌊frequencyFraction·rotaryDim/2⌋ pairs keep
    /// their frequency, the others get frequency 0 and pass through in place; the pairing stays the layout's over
    /// all rotary channels, with exponents over the whole rotary width. With the half layout and
    /// partialRotaryFactor 1 this is Hugging Face's rope_type `'proportional'` (Gemma 4), which
    /// {@link Posenc.ropeConfigFromHF} reads into this key. Not partialRotaryFactor, which rotates the leading
    /// channels with frequencies over their own width. A number in [0, 1]; 0 = NoPE. Single-axis only.
    num<&K::config, &C::frequencyFraction>("frequencyFraction", "number", "p-RoPE: fraction of the rotary pairs that keep their frequency"),
    /// p-RoPE: `'high'` keeps the highest frequencies and truncates the lowest (the paper, HF 'proportional');
    /// `'low'` keeps the lowest. Only with frequencyFraction < 1.
    pick<&K::config, &C::keptFrequencies>("keptFrequencies", "high|low",
                                          "p-RoPE: which end keeps rotating ('high': the lowest are truncated, as the paper)"),
    /// LieRE generators, [axes, rotaryDim/blockSize, blockSize, blockSize] row-major; each block skew-symmetric
    /// (Gᵀ = −G) within 1e-6 of its largest |entry| (then (G − Gᵀ)/2 is used), entries within ±1e4. Only with
    /// multiAxis `'liere'`, where it is required.
    opt<&K::config, &C::generators>("generators", "FloatInput", "LieRE: skew-symmetric generators [axes, blocks, blockSize, blockSize]"),
    /// LieRE: channels per rotation block, an integer in [2, 64] dividing rotaryDim. Required by multiAxis `'liere'`.
    opt<&K::config, &C::blockSize>("blockSize", "integer", "LieRE: channels per rotation block (>= 2, divides rotaryDim)"),
    // Accepted by ropeFrequencies too, so that ropeConfigFromHF's result can be passed as it is.
    /// Which channels pair up ({@link RopeLayout}). Frequencies do not depend on it, so
    /// {@link Posenc.ropeFrequencies} accepts and ignores it (and ropeConfigFromHF's result passes as is).
    pick<&K::layout>("layout", "half|interleaved", "which channels pair up (ropeFrequencies ignores it)"),
};
}  // namespace

// Rope keys that have no meaning with the others given, refused when present (a TypeError naming it):
// LieRE's rotations are its generators alone, on blocks of consecutive channels (Ostmeier et al. 2024;
// its reference code exponentiates a block-diagonal skew-symmetric matrix over contiguous channels): no
// pairing layout, no frequency schedule (base, convention, seqLen), whatever their values. Keys that
// matter only with another one are refused by value in ropeFrequencies, where a key given at its default
// is the same as leaving it out (keptFrequencies other than 'high' without frequencyFraction < 1,
// mropeInterleaved true outside M-RoPE: TypeErrors; sections, generators and blockSize outside their
// multiAxis, xposScaleBase and frequencyFraction with several axes, a scaling with LieRE: RangeErrors).
void checkRopeKeys(const std::function<bool(const char*)>& given, const std::string& multiAxis, const std::string& prefix) {
    if (multiAxis == "liere")
        for (const char* key : {"layout", "base", "convention", "seqLen"})
            if (given(key))
                failType(prefix + key, "has no effect with multiAxis 'liere': its rotations are the generators' exp(Σ pₐ·Gₐ) on blocks of consecutive "
                                       "channels (no pairing layout, no frequency schedule); leave it out");
}

/// RoPE inside attention: q and k are rotated at their logical positions (keys with the key-side xPos
/// scale), then plain dot products (scale 1/√headDim). The other keys are {@link RopeOptions} (all optional:
/// headDim, when given, must equal the attention's); `rotaryOffset` rotates channels from an offset
/// (DeepSeek MLA: the trailing `qk_rope_head_dim` of each head, the values' own width in `valueDim`).
/// Multi-axis RoPE is a `RangeError` here: rotate with {@link Posenc.applyRope}, then attend with kind
/// `'none'`. Not accepted by {@link KVCache.attend} (the cache has its own `rope`) nor by
/// {@link Posenc.attentionBias}.
KindSpec makeSpec(Tag<RopeEncoding>) {
    // headDim is required only by ropeFrequencies; where the call already fixes it (applyRope's
    // shape, attention, the cache) a given headDim must agree.
    KindSpec k = kind<K>("rope", "RopeEncoding", Family::rotary, kFields);
    k.options = R"({"kind":"rope"})";
    k.describe = {"relative position through rotation of q and k", "0", "", true, "with PI, NTK, dynamic NTK, YaRN, llama3 or longrope scaling", true,
                  "keys are rotated once at their position; renumbering needs a re-rotation (KVCache.renumber)",
                  "HF modeling_rope_utils + Llama/NeoX/GPT-J rotation; llama.cpp ggml (convention 'ggml'); p-RoPE: HF 'proportional'",
                  "Llama, Mistral, Qwen, Phi, Gemma, DeepSeek, GPT-J, NeoX"};
    static constexpr Link kPaper[] = {{"Su et al. 2021 (RoFormer)", "https://arxiv.org/abs/2104.09864"},
                                      {"Barbero et al. 2025 (p-RoPE)", "https://arxiv.org/abs/2410.06205"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"HF modeling_rope_utils.py", "https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_rope_utils.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<RopeEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
