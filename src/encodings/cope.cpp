// The 'cope' kind (scores/cope.hpp): contextual positions, counts of gated keys, interpolated embeddings.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = CopeEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// Position embeddings; positions clamp to npos − 1.
    req<&K::npos>("npos", "integer", "position embeddings; positions clamp to npos − 1"),
    /// [npos, headDim], row p = e[p], shared by every head.
    req<&K::embeddings>("embeddings", "FloatInput", "[npos, headDim], row p = e[p], shared by every head"),
};
}  // namespace

/// CoPE (Golovneva et al. 2024), contextual positions: with s the attention scale, gates
/// g_ij = σ(s·q_i·k_j) on allowed keys, positions p_ij = Σ_{t ≥ j} g_it clamped to npos − 1, e(p) the
/// linear interpolation of rows ⌊p⌋ and ⌈p⌉ of `embeddings`, and the logit s·(q_i·k_j + q_i·e(p_ij)).
/// Cost: each query row's gates over every key come first (a reverse cumulative sum), about a second
/// pass of q·k; blocks cannot be skipped ahead of the mask as with a bias.
/// @see Golovneva et al., "Contextual Position Encoding: Learning to Count What's Important", 2024 (facebookresearch/RAM `projects/cope`).
KindSpec makeSpec(Tag<CopeEncoding>) {
    KindSpec k = kind<K>("cope", "CopeEncoding", Family::score, kFields);
    k.options = R"({"kind":"cope","npos":4,"embeddings":{"$floats":32}})";  // [4, 8]
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<CopeTerm>(x, in); });
    k.perQueryState = true;
    /// Shape of CoPE's position embeddings [npos, headDim].
    k.shapeInterface = "CopeShape";
    static constexpr registry::Raw kShape[] = {
        /// Position embeddings.
        size("npos"),
        /// Channels per head.
        size("headDim"),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) { return s("npos") * s("headDim"); };
    k.example = R"({"npos":64,"headDim":64})";
    k.describe = {"contextual position: a count of gated keys, interpolated embeddings", "npos·headDim", "", true,
                  "positions clamp at npos − 1 (counts, not indices, grow)", false,
                  "each query recounts gates over all keys; nothing position-dependent is cached, but every step rescans",
                  "Golovneva et al. 2024, facebookresearch/RAM projects/cope", "CoPE models"};
    static constexpr Link kPaper[] = {{"Golovneva et al. 2024 (CoPE)", "https://arxiv.org/abs/2405.18719"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"facebookresearch/RAM cope", "https://github.com/facebookresearch/RAM/tree/main/projects/cope"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<CopeEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
