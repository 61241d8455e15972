// The 'stickBreaking' kind (attention/stick_breaking.hpp): stick-breaking weights in place of the
// softmax; no score term (its logits are scale q·k plus any other part's terms).
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = StickBreakingEncoding;
constexpr KindField kFields[] = {
    /// Whether a query also sees the key at its own position (j ≤ i, the product over j < l ≤ i), as
    /// flash-linear-attention's `attend_current`; by default it sees only earlier positions (j < i),
    /// as the reference.
    flag<&K::attendCurrent>("attendCurrent", "the query also sees its own position (fla attend_current)"),
};
}  // namespace

/// Stick-breaking attention (Tan et al. 2024): no softmax; query i gives each earlier key j the weight
/// A_ij = σ(z_ij) Π_{j<l<i} (1 − σ(z_il)), z = scale·q·k plus the score terms of the other parts of an
/// encoding array (after `softcap`, which caps the logits before the sigmoid). The nearest key breaks
/// the stick first: a preference for recent keys without positions. The weights of a row sum to at
/// most 1 (`returnWeights` shows them; the rest of the stick weighs no value), and a row that sees no
/// key (the first query, without `attendCurrent`) gives zeros. The output is fla's `o`, Σ_j A_ij v_j; the
/// paper's models add the rest of the stick times the query's own value (`o + rem·v_i`, rem = 1 − Σ_j A_ij),
/// which a caller forms from `returnWeights`. `returnScores` shows the query's own key as masked (−∞)
/// unless `attendCurrent`. Causal only: a non-causal call and
/// `sinkLogits` are RangeErrors. Keys break the stick in their order in the call; in
/// {@link KVCache.attend}, in the order they were appended — with a `window`, over exactly the keys the
/// cache keeps (the sinks and the last `window` tokens), whatever ring slots hold them. Learns no parameters.
/// @see flash-linear-attention `fla/ops/stickbreaking_attn/naive.py` (`naive_stickbreaking_attn`);
/// shawntan/stickbreaking-attention; Tan et al., arXiv 2410.17980.
KindSpec makeSpec(Tag<StickBreakingEncoding>) {
    KindSpec k = kind<K>("stickBreaking", "StickBreakingEncoding", Family::score, kFields);
    k.options = R"({"kind":"stickBreaking","attendCurrent":false})";
    k.stickBreaking = true;  // no score term: the engine's normaliser (runWithEncoding)
    k.describe = {"order, through the weights: A_ij = σ(z_ij) Π_{j<l<i} (1 − σ(z_il)) in place of the softmax, the nearest keys first",
                  "0", "", true,
                  "no positions to run out of; reported to length-generalise better than RoPE (Tan et al. 2024)", true,
                  "nothing position-dependent is cached; a decode step walks the cached keys from the newest",
                  "Tan et al. 2024 (stick-breaking attention); fla naive_stickbreaking_attn", "stick-breaking models of Tan et al. 2024 (research)"};
    static constexpr Link kPaper[] = {{"Tan et al. 2024 (stick-breaking attention)", "https://arxiv.org/abs/2410.17980"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"shawntan/stickbreaking-attention", "https://github.com/shawntan/stickbreaking-attention"},
                                     {"fla stickbreaking_attn", "https://github.com/fla-org/flash-linear-attention/tree/main/fla/ops/stickbreaking_attn"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<StickBreakingEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
