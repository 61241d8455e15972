// The 'alibi' kind (scores/alibi.hpp): a linear bias per head, −m·(i − j).
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = AlibiEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// Heads of the bias: equal to the call's heads. Required by
    /// {@link Posenc.attentionBias}.
    /// @defaultValue the call's `heads`
    heads<&K::heads>(),
    /// One finite slope per head [heads]. @defaultValue `pe.alibiSlopes(heads)`
    opt<&K::slopes>("slopes", "FloatInput", "one per head (default: alibiSlopes(heads))"),
    /// Bidirectional (encoder) variant: −m_h·|i − j| instead of −m_h·(i − j).
    flag<&K::symmetric>("symmetric", "−m·|i − j| instead of −m·(i − j)"),
};
}  // namespace

/// ALiBi (Press et al. 2022): a per-head linear bias on distance, −m_h·(i − j) added after scaling (the
/// paper form; fairseq and Bloom add +m_h·j, the same after softmax). Scale 1/√headDim.
/// @see ofirpress/attention_with_linear_biases; Hugging Face Bloom `build_alibi_tensor`.
KindSpec makeSpec(Tag<AlibiEncoding>) {
    KindSpec k = kind<K>("alibi", "AlibiEncoding", Family::score, kFields);
    k.options = R"({"kind":"alibi"})";
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<AlibiTerm>(x, in.dims.heads, callDistances(in)); });
    k.scalarBias = true;
    k.describe = {"relative distance, a linear bias per head", "0", "", true, "a fixed slope per head extends to any distance",
                  true, "the bias depends on positions only", "Press et al. 2022 (slopes for any head count); Bloom", "Bloom, MPT, Falcon (ALiBi)"};
    static constexpr Link kPaper[] = {{"Press et al. 2021", "https://arxiv.org/abs/2108.12409"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"attention_with_linear_biases", "https://github.com/ofirpress/attention_with_linear_biases"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<AlibiEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
