// The parity grid's reference for 'alibi' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// ALiBi (Press et al.): -m_h (i - j), the slopes of a non-power-of-two head count.
void gridReference(GridTag<AlibiEncoding>, const Problem& p, GridCase& c) {
    c.encoding = c.cacheEncoding = AlibiEncoding{p.heads, {}, false};
    c.scale = gridRsqrt(p.headDim);
    const auto slopes = alibiSlopes(p.heads);
    c.terms.bias = [&p, slopes](int h, int i, int j) { return -ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
}
template void gridCase<AlibiEncoding>(const Problem&, GridCase&);
