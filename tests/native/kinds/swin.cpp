// The parity grid's reference for 'swin' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// Swin: table[(dh + wh - 1)(2 ww - 1) + dw + ww - 1, h] over a wh x ww window's cells.
void gridReference(GridTag<SwinEncoding>, const Problem& p, GridCase& c) {
    const int wh = 3, ww = 5;
    const auto& t = c.table(static_cast<std::size_t>(2 * wh - 1) * (2 * ww - 1) * p.heads, 12);
    c.encoding = c.cacheEncoding = SwinEncoding{p.heads, t, wh, ww};
    c.scale = gridRsqrt(p.headDim);
    c.noDecode = "a Swin window holds wh x ww tokens";
    const int heads = p.heads;
    c.terms.bias = [&p, &t, heads](int h, int i, int j) {
        const int wh = 3, ww = 5;
        const int dh = p.qPos[i] / ww - p.kPos[j] / ww, dw = p.qPos[i] % ww - p.kPos[j] % ww;
        return ld(t[((dh + wh - 1) * (2 * ww - 1) + (dw + ww - 1)) * heads + h]);
    };
}
template void gridCase<SwinEncoding>(const Problem&, GridCase&);
