// The 'fire' kind (scores/fire.hpp): progressively normalised distance through an MLP, a bias per head.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = FireEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// Heads of the bias (the MLP's outputs). @defaultValue the call's heads (required by {@link Posenc.attentionBias})
    heads<&K::heads>(),
    /// Hidden width of the MLP.
    req<&K::hidden>("hidden", "integer", "width of the MLP"),
    /// [hidden]: `Linear(1, hidden).weight`.
    req<&K::w1>("w1", "FloatInput", "[hidden]: Linear(1, hidden).weight"),
    /// [hidden]: `Linear(1, hidden).bias`.
    req<&K::b1>("b1", "FloatInput", "[hidden]"),
    /// [heads, hidden]: `Linear(hidden, heads).weight`, row h = head h.
    req<&K::w2>("w2", "FloatInput", "[heads, hidden]: Linear(hidden, heads).weight, row h = head h"),
    /// [heads]: `Linear(hidden, heads).bias`.
    req<&K::b2>("b2", "FloatInput", "[heads]"),
    /// ψ(x) = log(c·x + 1): a positive number.
    num<&K::c>("c", "number", "ψ(x) = log(c·x + 1)"),
    /// The normaliser's floor ψ(max(L, i)): a number ≥ 0.
    num<&K::L>("L", "number", "the normaliser ψ(max(L, i)) floor"),
    /// Added to the normaliser: a positive number. @defaultValue `1e-6`
    num<&K::eps>("eps", "number", "added to the normaliser"),
};
}  // namespace

/// FIRE (Li et al., ICLR 2024): a per-head bias from a small MLP of a progressively normalised log
/// distance, b_h(i, j) = f_h(ψ(|i − j|) / (ψ(max(L, i)) + eps)), ψ(x) = log(c·x + 1),
/// f(x) = w2·ReLU(w1·x + b1) + b2. i and j are the query and key positions. The paper has no eps; the
/// public code adds it to the normaliser (so i = 0 gives 0, not 0/0) and uses |i − j|, so a non-causal
/// pair gets the bias of its distance.
/// @see Li et al., "Functional Interpolation for Relative Positions Improves Long Context Transformers", ICLR 2024.
KindSpec makeSpec(Tag<FireEncoding>) {
    KindSpec k = kind<K>("fire", "FireEncoding", Family::score, kFields);
    k.options = R"({"kind":"fire","hidden":2,"w1":[1,-1],"b1":[0,0.5],"w2":[1,2,3,4],"b2":[0,0]})";
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<FireTerm>(x, in.dims.heads); });
    k.scalarBias = true;
    /// Shape of FIRE's MLP.
    k.shapeInterface = "FireShape";
    static constexpr registry::Raw kShape[] = {
        /// Attention heads (the MLP's outputs).
        size("heads"),
        /// Hidden width of the MLP.
        size("hidden"),
    };
    k.shape = kShape;
    // Linear(1, hidden) + Linear(hidden, heads), and the learned c and L (FIRE's public code)
    k.parameters = [](const Shape& s) { return 2 * s("hidden") + (s("hidden") + 1) * s("heads") + 2; };
    k.example = R"({"heads":12,"hidden":32})";
    k.describe = {"relative distance, progressively normalised, through an MLP per head", "2·hidden + (hidden + 1)·heads + 2", "", true,
                  "the normalised distance stays in [0, 1] at any length", true, "the bias depends on positions only",
                  "Li et al. 2024 (FIRE), public code's eps", "FIRE models (length-generalisation studies)"};
    static constexpr Link kPaper[] = {{"Li et al. 2023 (FIRE, ICLR 2024)", "https://arxiv.org/abs/2310.04418"}};
    k.paper = kPaper;
    return k;
}
template const KindSpec& specOf<FireEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
