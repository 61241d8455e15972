// The 'forgetting' kind (scores/forgetting.hpp): FoX's data-dependent decay, the sum of the log forget
// gates between a key and its query.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = ForgettingEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// [heads, kLen]: log f_t of each key token for each query head (the caller's gate projection, e.g.
    /// `logsigmoid(x·W_f + b_f)`), each finite and ≤ 0. Per query head: with grouped-query attention there
    /// are `heads` rows, not `kvHeads`. Not given to `cache.attend`: a cache created with
    /// `forgetting: true` holds the gates appended with each token (`cache.append(k, v, { logForget })`).
    opt<&K::logForget>("logForget", "FloatInput", "[heads, kLen] log forget gates, each finite and ≤ 0 (not given to cache.attend)"),
};
}  // namespace

/// Forgetting attention (FoX, Lin et al. 2025): a data-dependent decay added to the logits after
/// scaling, D_ij = G_i − G_j = Σ_{l=j+1..i} log f_l, with G_t = Σ_{l≤t} log f_l the cumulative sum of
/// the keys' log forget gates in key order. A query takes the G of the last key (in key order) whose
/// position is at or before its own — for a causal prefill its own token — so every visible key gets
/// D ≤ 0. Keys the key mask drops count as gates of 1 and are never a query's anchor. Causal only (a
/// non-causal call is a RangeError). Scale 1/√headDim; combines with a rotary entry and other terms.
/// @see Lin et al., "Forgetting Transformer: Softmax Attention with a Forget Gate", ICLR 2025
/// (zhixuan-lin/forgetting-transformer; flash-linear-attention `fla/ops/forgetting_attn`).
KindSpec makeSpec(Tag<ForgettingEncoding>) {
    KindSpec k = kind<K>("forgetting", "ForgettingEncoding", Family::score, kFields);
    k.options = R"({"kind":"forgetting","logForget":[-0.1,-0.2,0,-0.3,-0.05,-1]})";  // [2 heads, 3 keys], each ≤ 0
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<ForgettingTerm>(x, in); });
    /// Shape of FoX's forget-gate projection (W_f [dModel, heads] and b_f [heads]).
    k.shapeInterface = "ForgettingShape";
    static constexpr registry::Raw kShape[] = {
        /// Attention (query) heads, one gate each.
        size("heads"),
        /// Model width the gates are projected from.
        size("dModel"),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) { return s("heads") * (s("dModel") + 1); };  // the gate projection W_f [dModel, heads] and b_f
    k.example = R"({"heads":12,"dModel":768})";
    k.describe = {"a data-dependent decay: the sum of the log forget gates between key and query", "heads·(dModel + 1)", "", true,
                  "no position enters the bias; the gates decide how far back a head looks", true,
                  "the cache keeps each token's cumulative log gate per head (double); windows, shift and renumber keep it right",
                  "Lin et al. 2025 (FoX), zhixuan-lin/forgetting-transformer, fla forgetting_attn", "Forgetting Transformer (FoX)"};
    static constexpr Link kPaper[] = {{"Lin et al. 2025 (FoX)", "https://arxiv.org/abs/2503.02130"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"zhixuan-lin/forgetting-transformer", "https://github.com/zhixuan-lin/forgetting-transformer"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<ForgettingEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
