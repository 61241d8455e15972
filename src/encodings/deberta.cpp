// The 'deberta' kind (scores/deberta.hpp): disentangled c2p and p2c terms over log-bucketed i − j.
#include <algorithm>
#include <cmath>

#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = DebertaEncoding;
using B = DebertaBucketOptions;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// Relative key projections [heads, 2·span, headDim]. Required by term `'c2p'`.
    opt<&K::posKey>("posKey", "FloatInput", "[heads, 2·span, headDim]; required by term 'c2p'"),
    /// Relative query projections [heads, 2·span, headDim]. Required by term `'p2c'`.
    opt<&K::posQuery>("posQuery", "FloatInput", "[heads, 2·span, headDim]; required by term 'p2c'"),
    /// Attention span (DeBERTa `att_span`: position_buckets, or max_relative_positions without buckets).
    req<&K::span>("span", "integer"),
    /// DeBERTa `position_buckets`: 0 = no log bucketing, else at least 4.
    atLeast(0, num<&K::buckets, &B::bucketSize>("bucketSize", "integer", "0 = no log bucketing")),
    /// DeBERTa `max_relative_positions`: greater than bucketSize/2 + 1.
    num<&K::buckets, &B::maxPosition>("maxPosition", "integer"),
    /// `'hf'` (no clamp) or `'microsoft'` (clamps |δ| to maxPosition − 1 first).
    pick<&K::buckets, &B::convention>("convention", "hf|microsoft"),
    /// Which position terms to add (DeBERTa `pos_att_type`): at least one of `'c2p'`, `'p2c'`.
    custom({"terms", "Array<'c2p' | 'p2c'>", "", false, registry::Default::Kind::strings, nullptr, "c2p|p2c"},
           "position terms", [](const registry::Source& s, const char* key, void* o) {
               if (!s.has(key)) return;  // default both
               auto& d = *static_cast<K*>(o);
               const std::vector<std::string> terms = s.texts(key);
               d.c2p = std::find(terms.begin(), terms.end(), "c2p") != terms.end();
               d.p2c = std::find(terms.begin(), terms.end(), "p2c") != terms.end();
           }),
};
}  // namespace

/// DeBERTa disentangled attention (He et al. 2021): score = c2c + c2p + p2c with
/// c2p = q_i·posKey[idx], p2c = k_j·posQuery[idx], idx = clamp(bucket(i − j) + span, 0, 2·span − 1),
/// δ = i − j (query − key), bucket as {@link Posenc.debertaBucket}. Default scale 1/√(k·headDim) with
/// k = 1 + the number of active terms (3 with both).
/// @see Hugging Face `DisentangledSelfAttention` (DeBERTa-v2), microsoft/DeBERTa `disentangled_att_bias`.
KindSpec makeSpec(Tag<DebertaEncoding>) {
    KindSpec k = kind<K>("deberta", "DebertaEncoding", Family::score, kFields);
    k.options = R"({"kind":"deberta","posKey":{"$floats":128},"posQuery":{"$floats":128},"span":4})";  // [2 heads, 2·4, 8] each
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) {
        return std::make_unique<DebertaTerm>(x, in.dims.heads, in.dims.headDim, in.dims.kLen, callDistance(in));
    });
    // 1/√(k·headDim), k = 1 + the active position terms
    scales<K>(k, [](const K& d, int headDim) { return 1.0 / std::sqrt(static_cast<double>(headDim) * (1 + (d.c2p ? 1 : 0) + (d.p2c ? 1 : 0))); });
    k.perQueryState = true;
    /// Shape of DeBERTa's shared relative embeddings [2·span, hidden].
    k.shapeInterface = "DebertaShape";
    static constexpr registry::Raw kShape[] = {
        /// Attention span (DeBERTa `position_buckets`, or max_relative_positions without buckets).
        size("span"),
        /// Hidden size.
        size("hidden"),
    };
    k.shape = kShape;
    // shared relative embeddings [2 span, hidden] (projections reuse the content W_q, W_k when share_att_key)
    k.parameters = [](const Shape& s) { return 2 * s("span") * s("hidden"); };
    k.example = R"({"span":256,"hidden":768})";
    k.describe = {"relative distance in log buckets; disentangled c2p and p2c", "2·span·hidden", "", true,
                  "log buckets up to maxPosition", true, "the position terms are recomputed per query from cached keys",
                  "HF DisentangledSelfAttention and microsoft/DeBERTa (they differ past maxPosition)", "DeBERTa, DeBERTa-v3"};
    static constexpr Link kPaper[] = {{"He et al. 2020 (DeBERTa)", "https://arxiv.org/abs/2006.03654"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"microsoft/DeBERTa", "https://github.com/microsoft/DeBERTa"},
              {"HF DeBERTa", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/deberta/modeling_deberta.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<DebertaEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
