// The parity grid's reference for 'deberta' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// DeBERTa (He et al.; HF DisentangledSelfAttention): c2p q . posKey[h][idx] + p2c k . posQuery[h][idx],
// idx = clamp(bucket(i - j) + span, 0, 2 span - 1), scale 1/sqrt(3d).
void gridReference(GridTag<DebertaEncoding>, const Problem& p, GridCase& c) {
    const int d = p.headDim, span = 8;
    const DebertaBucketOptions b{8, 24, DebertaConvention::hf};
    const auto& pk = c.table(static_cast<std::size_t>(p.heads) * 2 * span * d, 18);
    const auto& pq = c.table(static_cast<std::size_t>(p.heads) * 2 * span * d, 19);
    DebertaEncoding e;
    e.posKey = pk;
    e.posQuery = pq;
    e.span = span;
    e.buckets = b;
    c.encoding = c.cacheEncoding = e;
    c.scale = 1 / std::sqrt(ld(3 * d));
    c.terms.content = [&p, &pk, &pq, d, span, b](int h, int i, int j) {
        const int idx = int(std::clamp<std::int64_t>(debertaBucket(std::int64_t(p.qPos[i]) - p.kPos[j], b) + span, 0, 2 * span - 1));
        const std::size_t row = (static_cast<std::size_t>(h) * 2 * span + idx) * d;
        return dotLd(p.qv(h, i), pk.data() + row, d) + dotLd(p.kv(h, j), pq.data() + row, d);
    };
}
template void gridCase<DebertaEncoding>(const Problem&, GridCase&);
