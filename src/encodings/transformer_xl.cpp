// The 'xl' kind (scores/transformer_xl.hpp): a projected sinusoid of i − j with the u and v biases.
#include "encodings/kind_spec.hpp"
#include "posenc/common/errors.hpp"

namespace posenc::kinds {

namespace {
using K = XlEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    req<&K::u>("u", "FloatInput", "[heads, headDim] content bias"),
    req<&K::v>("v", "FloatInput", "[heads, headDim] position bias"),
    opt<&K::r>("r", "FloatInput", "[heads, distances, headDim], row δ = W_R·R_δ"),
    opt<&K::wR>("wR", "FloatInput", "W_R, to project the sinusoid R in the core (with dModel)"),
    opt<&K::dModel>("dModel", "integer", "model width of W_R"),
};
}  // namespace

template <>
const KindSpec& specOf<XlEncoding>() {
    static const KindSpec spec = [] {
        KindSpec k = kind<K>("xl", "XLEncoding", Family::score, kFields);
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
        k.shapeInterface = "XLShape";
        static constexpr registry::Raw kShape[] = {size("heads"), size("headDim"), size("dModel")};
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
    }();
    return spec;
}

}  // namespace posenc::kinds
