// The parity grid's reference for 'shaw' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// Shaw et al.: idx = clip(j - i, -K, K) + K; q . a^K[idx] scaled with q . k, a^V[idx] added to values.
void gridReference(GridTag<ShawEncoding>, const Problem& p, GridCase& c) {
    const int K = 3, d = p.headDim, vd = p.vd();
    const auto& aK = c.table(static_cast<std::size_t>(2 * K + 1) * d, 13);
    const auto& aV = c.table(static_cast<std::size_t>(2 * K + 1) * vd, 14);  // the values' width
    c.encoding = c.cacheEncoding = ShawEncoding{K, aK, aV};
    c.scale = gridRsqrt(d);
    auto idx = [&p, K](int i, int j) { return int(std::clamp<std::int64_t>(std::int64_t(p.kPos[j]) - p.qPos[i], -K, K) + K); };
    c.terms.content = [&p, &aK, idx, d](int h, int i, int j) { return dotLd(p.qv(h, i), aK.data() + idx(i, j) * d, d); };
    c.terms.valueRow = [&aV, idx, vd](int, int i, int j) { return aV.data() + idx(i, j) * vd; };
}
template void gridCase<ShawEncoding>(const Problem&, GridCase&);
