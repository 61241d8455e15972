// The 'xl' kind (scores/transformer_xl.hpp): a projected sinusoid of i − j with the u and v biases.
#include "encodings/kind_define.hpp"
#include "posenc/common/errors.hpp"

namespace posenc::kinds {

namespace {
using K = XlEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// u (`r_w_bias`): content bias [heads, headDim].
    req<&K::u>("u", "FloatInput", "[heads, headDim] content bias"),
    /// v (`r_r_bias`): position bias [heads, headDim].
    req<&K::v>("v", "FloatInput", "[heads, headDim] position bias"),
    /// The projected relative embeddings [heads, distances, headDim], row δ = W_R·R_δ for δ = 0 .. distances − 1;
    /// distances must exceed the largest attended i − j. Required unless `wR` is given.
    opt<&K::r>("r", "FloatInput", "[heads, distances, headDim], row δ = W_R·R_δ"),
    /// W_R (`r_net.weight`) [heads·headDim, dModel], to build r in the core from the sinusoid R of width
    /// `dModel` (for distances below 2^20). Used when `r` is not given.
    opt<&K::wR>("wR", "FloatInput", "W_R, to project the sinusoid R in the core (with dModel)"),
    /// Model width d_model of the sinusoid R. Required with `wR`.
    opt<&K::dModel>("dModel", "integer", "model width of W_R"),
};
}  // namespace

/// Transformer-XL relative attention (Dai et al. 2019): score = ((q_i + u)·k_j + (q_i + v)·r_(i−j)) ·
/// scale, δ = i − j (query − key), r_δ = W_R·R_δ with R the `'concat'` sinusoid of width dModel. Every
/// attended key must be at or before its query (use `causal: true`). Default scale 1/√headDim. Give
/// either `r` or `wR` with `dModel`.
/// @see kimiyoung/transformer-xl `RelPartialLearnableMultiHeadAttn` (the rel-shift trick is not needed:
/// the result equals the direct formula).
KindSpec makeSpec(Tag<XlEncoding>) {
    KindSpec k = kind<K>("xl", "XLEncoding", Family::score, kFields);
    // u, v [2, 8]; r [2 heads, 3 distances, 8]
    k.options = R"({"kind":"xl","u":{"$floats":16},"v":{"$floats":16},"r":{"$floats":48}})";
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) {
        const auto [lo, hi] = allowedDeltaRange(in);
        if (lo <= hi && lo < 0)
            fail("encoding", "'xl' needs every attended key at or before its query (i - j >= 0); use causal: true or mask future keys");
        auto term = std::make_unique<XlTerm>(x, in.dims.heads, in.dims.headDim, lo <= hi ? hi : 0);
        if (lo <= hi && hi >= term->distances())
            fail("encoding.r", "has " + std::to_string(term->distances()) + " distances but the call needs i - j up to " + std::to_string(hi));
        return term;
    });
    k.perQueryState = true;
    /// Shape of Transformer-XL's position parameters: W_R [heads·headDim, dModel] and u, v [heads, headDim].
    k.shapeInterface = "XLShape";
    static constexpr registry::Raw kShape[] = {
        /// Attention heads.
        size("heads"),
        /// Channels per head.
        size("headDim"),
        /// Model width (of the sinusoid R).
        size("dModel"),
    };
    k.shape = kShape;
    // W_R [heads*headDim, dModel] plus the u and v biases [heads, headDim]
    k.parameters = [](const Shape& s) { return s("heads") * s("headDim") * (s("dModel") + 2); };
    k.example = R"({"heads":12,"headDim":64,"dModel":768})";
    k.describe = {"relative distance through a projected sinusoid, with u and v biases", "heads·headDim·(dModel + 2)", "", true,
                  "the sinusoid R is a fixed function", true, "made for segment memory: cached keys stay valid",
                  "kimiyoung transformer-xl RelPartialLearnableMultiHeadAttn", "Transformer-XL, XLNet"};
    static constexpr Link kPaper[] = {{"Dai et al. 2019 (Transformer-XL)", "https://arxiv.org/abs/1901.02860"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"kimiyoung/transformer-xl", "https://github.com/kimiyoung/transformer-xl/blob/master/pytorch/mem_transformer.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<XlEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
