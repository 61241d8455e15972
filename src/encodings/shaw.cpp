// The 'shaw' kind (scores/shaw.hpp): clipped relative distances with key (and value) embeddings.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = ShawEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// K: relative distances are clipped to [−K, K], in tokens.
    atLeast(0, req<&K::clip>("clip", "integer", "K: relative distances are clipped to [−K, K]")),
    /// a^K: [2K + 1, headDim], row idx.
    req<&K::keyTable>("keyTable", "FloatInput", "[2K+1, headDim]"),
    /// a^V: [2K + 1, headDim] (valueDim channels when the attention's `valueDim` is given), added to the values.
    /// @defaultValue none (no value term)
    opt<&K::valueTable>("valueTable", "FloatInput", "[2K+1, valueDim], added to the values"),
};
}  // namespace

/// Shaw et al. 2018 relative position representations: with idx = clip(j − i, −K, K) + K (key − query),
/// logits q_i·k_j + q_i·a^K[idx] and out_i = Σ_j w_ij·(v_j + a^V[idx]). The tables are shared by all heads.
/// Both logit terms are multiplied by the scale (tensor2tensor scales q first); default 1/√headDim.
/// @see tensor2tensor `_relative_attention_inner` / `_generate_relative_positions_matrix`.
KindSpec makeSpec(Tag<ShawEncoding>) {
    KindSpec k = kind<K>("shaw", "ShawEncoding", Family::score, kFields);
    k.options = R"({"kind":"shaw","clip":1,"keyTable":{"$floats":24}})";  // [2·1 + 1, 8]
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<ShawTerm>(x, in.dims.headDim, in.dims.valueDim); });
    k.perQueryState = true;
    /// Shape of Shaw's tables [2·clip + 1, headDim].
    k.shapeInterface = "ShawShape";
    static constexpr registry::Raw kShape[] = {
        /// K: the clipping distance.
        registry::atLeast(0, size("clip")),
        /// Channels per head.
        size("headDim"),
        /// false: key table only (no a^V).
        registry::flag("values", "", [] { return 1.0; }),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) { return (2 * s("clip") + 1) * s("headDim") * (s("values") != 0 ? 2 : 1); };
    k.example = R"({"clip":16,"headDim":64})";
    k.describe = {"relative distance, clipped; key and value embeddings", "(2·clip + 1)·headDim (×2 with values)", "", true,
                  "distances past the clip share the last embedding", true, "cached keys unchanged; the term is added per query",
                  "tensor2tensor _relative_attention_inner", "Shaw et al. 2018, Music Transformer"};
    static constexpr Link kPaper[] = {{"Shaw et al. 2018", "https://arxiv.org/abs/1803.02155"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"tensor2tensor", "https://github.com/tensorflow/tensor2tensor/blob/master/tensor2tensor/layers/common_attention.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<ShawEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
