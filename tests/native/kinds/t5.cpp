// The parity grid's reference for 't5' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// T5 (HF _relative_position_bucket, relative = key - query, causal buckets), no 1/sqrt(d).
void gridReference(GridTag<T5Encoding>, const Problem& p, GridCase& c) {
    const T5BucketOptions o{false, 32, 128};
    const auto& t = c.table(32 * static_cast<std::size_t>(p.heads), 11);
    c.encoding = c.cacheEncoding = T5Encoding{p.heads, t, o};
    c.scale = 1;
    const int heads = p.heads;
    c.terms.bias = [&p, &t, o, heads](int h, int i, int j) { return ld(t[t5Bucket(std::int64_t(p.kPos[j]) - p.qPos[i], o) * heads + h]); };
}
template void gridCase<T5Encoding>(const Problem&, GridCase&);
