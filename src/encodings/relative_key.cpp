// The 'relativeKey' kind (scores/relative_key.hpp): BERT's relative_key / relative_key_query embeddings.
#include <algorithm>

#include "encodings/kind_define.hpp"
#include "posenc/common/errors.hpp"

namespace posenc::kinds {

namespace {
using K = RelativeKeyEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// distance_embedding [2·maxPosition − 1, headDim].
    req<&K::table>("table", "FloatInput", "[2·maxPosition − 1, headDim]"),
    /// BERT `max_position_embeddings`.
    req<&K::maxPosition>("maxPosition", "integer"),
    /// Also add k_j·E[row] (`relative_key_query`).
    flag<&K::keyQuery>("keyQuery", "also add k_j·E (relative_key_query)"),
};
}  // namespace

/// BERT `relative_key` / `relative_key_query` (Huang et al. 2020): E = distance_embedding
/// [2·maxPosition − 1, headDim], shared by all heads, row (i − j) + maxPosition − 1; adds q_i·E[row]
/// (and k_j·E[row] with keyQuery), scaled with q·k (default 1/√headDim). Attended distances |i − j| must
/// be below maxPosition.
/// @see Hugging Face `BertSelfAttention` with `position_embedding_type` `'relative_key'` / `'relative_key_query'`.
KindSpec makeSpec(Tag<RelativeKeyEncoding>) {
    KindSpec k = kind<K>("relativeKey", "RelativeKeyEncoding", Family::score, kFields);
    k.options = R"({"kind":"relativeKey","table":{"$floats":40},"maxPosition":3})";  // [2·3 − 1, 8]
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) {
        std::int64_t qMin = 0, qMax = 0;
        for (int i = 0; i < in.dims.qLen; ++i) {
            qMin = i == 0 ? in.qPos[i] : std::min<std::int64_t>(qMin, in.qPos[i]);
            qMax = i == 0 ? in.qPos[i] : std::max<std::int64_t>(qMax, in.qPos[i]);
        }
        auto term = std::make_unique<RelativeKeyTerm>(x, in.dims.headDim, in.dims.kLen, qMin, qMax);
        const auto [lo, hi] = allowedDeltaRange(in);
        if (lo <= hi && (lo <= -x.maxPosition || hi >= x.maxPosition))
            fail("encoding.maxPosition", "(" + std::to_string(x.maxPosition) + ") is too small: attended distances i - j span [" +
                                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return term;
    });
    k.perQueryState = true;
    /// Shape of BERT's relative_key distance embedding [2·maxPosition − 1, headDim].
    k.shapeInterface = "RelativeKeyShape";
    static constexpr registry::Raw kShape[] = {
        /// BERT `max_position_embeddings`.
        size("maxPosition"),
        /// Channels per head.
        size("headDim"),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) { return (2 * s("maxPosition") - 1) * s("headDim"); };
    k.example = R"({"maxPosition":512,"headDim":64})";
    k.describe = {"relative distance, a learned embedding per distance", "(2·maxPosition − 1)·headDim", "", false,
                  "distances must stay below maxPosition", true, "cached keys unchanged", "HF BertSelfAttention relative_key / relative_key_query",
                  "BERT variants"};
    static constexpr Link kPaper[] = {{"Huang et al. 2020", "https://arxiv.org/abs/2009.13658"}};
    k.paper = kPaper;
    // relative_key / relative_key_query were removed from BERT on transformers main for v5
    // (huggingface/transformers#41170): pinned to the v4.40.0 tag, whose BertSelfAttention still has them.
    static constexpr Link kCode[] = {{"HF BertSelfAttention (v4.40.0)", "https://github.com/huggingface/transformers/blob/v4.40.0/src/transformers/models/bert/modeling_bert.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<RelativeKeyEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
