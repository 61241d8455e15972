// The parity grid's reference for 'relativeKey' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// BERT relative_key_query (HF BertSelfAttention): E[i - j + maxPosition - 1] dotted with q and with k.
void gridReference(GridTag<RelativeKeyEncoding>, const Problem& p, GridCase& c) {
    const int d = p.headDim;
    const int maxPosition = static_cast<int>(std::int64_t(p.qPos.back()) - p.kPos.front() + 1);
    const auto& E = c.table(static_cast<std::size_t>(2 * maxPosition - 1) * d, 20);
    c.encoding = c.cacheEncoding = RelativeKeyEncoding{E, maxPosition, true};
    c.scale = gridRsqrt(d);
    c.terms.content = [&p, &E, d, maxPosition](int h, int i, int j) {
        const float* row = E.data() + (std::int64_t(p.qPos[i]) - p.kPos[j] + maxPosition - 1) * d;
        return dotLd(p.qv(h, i), row, d) + dotLd(p.kv(h, j), row, d);
    };
}
template void gridCase<RelativeKeyEncoding>(const Problem&, GridCase&);
