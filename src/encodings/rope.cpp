// The 'rope' kind (rotary/): q and k rotated by position; no score term. Its keys, and RopeScaling's,
// are every rope options object's (ropeFrequencies, applyRope, the cache's rope: src/registry.cpp).
#include "encodings/kind_define.hpp"

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
        pickRequired<&S::type>("type", "none|linear|ntk|dynamic|yarn|llama3|longrope|default|su|ntk_aware",
                               "the schedule ('default' = 'none', 'su' = 'longrope', 'ntk_aware' = 'ntk')"),
        scaled(POSENC_SCALING_KEY(opt, factor, "number", "context extension factor (>= 1)"), kAllScaled, "linear|ntk|dynamic|yarn|llama3"),
        // Hugging Face falls back to config.max_position_embeddings; these options have no such field.
        scaled(POSENC_SCALING_KEY(opt, originalMaxPositionEmbeddings, "integer", "the context length the model was trained on"),
               kWithLength, kWithLength),
        scaled(POSENC_SCALING_KEY(num, betaFast, "number", "YaRN: rotations above which pairs keep their frequency"), "yarn"),
        scaled(POSENC_SCALING_KEY(num, betaSlow, "number", "YaRN: rotations below which pairs are interpolated"), "yarn"),
        scaled(POSENC_SCALING_KEY(num, mscale, "number", "YaRN attention-scale coefficient (DeepSeek)"), "yarn"),
        scaled(POSENC_SCALING_KEY(opt, mscaleAllDim, "number", "YaRN: mscale of the divisor of the attention scale (DeepSeek)"), "yarn"),
        scaled(POSENC_SCALING_KEY(opt, attentionFactor, "number", "explicit attention scale instead of the derived one"), "yarn|longrope"),
        scaled(POSENC_SCALING_KEY(flag, truncate, "YaRN: floor/ceil the correction range"), "yarn"),
        scaled(POSENC_SCALING_KEY(opt, lowFreqFactor, "number", "llama3: wavelengths above original/lowFreqFactor are interpolated"), "llama3", "llama3"),
        scaled(POSENC_SCALING_KEY(opt, highFreqFactor, "number", "llama3: wavelengths below original/highFreqFactor are kept"), "llama3", "llama3"),
        scaled(POSENC_SCALING_KEY(opt, shortFactor, "ArrayLike<number>", "longrope: per-pair divisors up to originalMaxPositionEmbeddings"), "longrope",
               "longrope"),
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
    num<&K::config, &C::base>("base", "number", "rotary base θ"),
    num<&K::config, &C::partialRotaryFactor>("partialRotaryFactor", "number", "fraction of the head channels that rotate"),
    atLeast(0, num<&K::config, &C::rotaryOffset>("rotaryOffset", "integer", "first rotated channel (DeepSeek MLA: qk_nope_head_dim)")),
    custom(registry::opt("scaling", "RopeScaling"), "frequency schedule for longer contexts",
    [](const registry::Source& s, const char* key, void* o) {
    if (!s.has(key)) return;
    const std::unique_ptr<registry::Source> nested = s.object(key);
    RopeScaling& scaling = static_cast<K*>(o)->config.scaling;
    for (const KindField& f : scalingFields()) f.read(*nested, f.raw.name, &scaling);
    }),
    atLeast(0, opt<&K::config, &C::seqLen>("seqLen", "integer", "sequence length: dynamic NTK and longrope choose their frequencies by it")),
    pick<&K::config, &C::convention>("convention", "hf|ggml", "whose formulas to follow where Hugging Face and ggml differ"),
    pick<&K::config, &C::multiAxis>("multiAxis", "none|mrope|axial2d|liere", "several position axes; positions become [axes, tokens]"),
    opt<&K::config, &C::sections>("sections", "IntInput", "M-RoPE pairs per axis (t, h, w), summing to rotaryDim/2"),
    flag<&K::config, &C::mropeInterleaved>("mropeInterleaved",
                          "M-RoPE pairs assigned to t, h, w round-robin (Qwen3-VL), not in contiguous sections"),
    opt<&K::config, &C::xposScaleBase>(
    "xposScaleBase", "number", "xPos scale base γ (e.g. 512): pair k of a query at position p scales by ζ_k^(p/γ) < 1, of a key by ζ_k^(−p/γ)"),
    /// p-RoPE (Barbero et al. 2025, "Round and Round We Go!"): only k = floor(frequencyFraction·R/2) of the
    /// R/2 rotary pairs keep their frequency; the others get frequency 0 and pass through in place (the
    /// pairing stays the layout's across all R channels; with attentionScale ≠ 1 they are still scaled, as in
    /// HF's cos/sin). With the half layout and partialRotaryFactor 1 this is Hugging Face's rope_type
    /// 'proportional' (Gemma 4). Not partialRotaryFactor, which rotates the leading R channels with
    /// frequencies base^(−2i/R): here the exponents run over the whole width. 0 = NoPE, 1 = RoPE.
    num<&K::config, &C::frequencyFraction>("frequencyFraction", "number", "p-RoPE: fraction of the rotary pairs that keep their frequency"),
    pick<&K::config, &C::keptFrequencies>("keptFrequencies", "high|low",
                                          "p-RoPE: which end keeps rotating ('high': the lowest are truncated, as the paper)"),
    /// LieRE (multiAxis 'liere'): [axes, rotaryDim/blockSize, blockSize, blockSize] row-major; block j of a
    /// head's rotated channels turns into exp(Σₐ pₐ·G[a, j])·x_j. Each block must be skew-symmetric
    /// (Gᵀ = −G) within 1e-6 of its largest |entry| (then (G − Gᵀ)/2 is used), entries within ±1e4.
    opt<&K::config, &C::generators>("generators", "FloatInput", "LieRE: skew-symmetric generators [axes, blocks, blockSize, blockSize]"),
    opt<&K::config, &C::blockSize>("blockSize", "integer", "LieRE: channels per rotation block (>= 2, divides rotaryDim)"),
    // Accepted by ropeFrequencies too, so that ropeConfigFromHF's result can be passed as it is.
    pick<&K::layout>("layout", "half|interleaved", "which channels pair up (ropeFrequencies ignores it)"),
};
}  // namespace

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
