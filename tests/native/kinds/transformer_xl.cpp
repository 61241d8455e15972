// The parity grid's reference for 'xl' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// Transformer-XL (Dai et al.): (q + u) . k + (q + v) . r[i - j], r given per head for every distance.
void gridReference(GridTag<XlEncoding>, const Problem& p, GridCase& c) {
    const int d = p.headDim, heads = p.heads;
    const std::int64_t distances = std::int64_t(p.qPos.back()) - p.kPos.front() + 1;
    const auto& u = c.table(static_cast<std::size_t>(heads) * d, 15);
    const auto& v = c.table(static_cast<std::size_t>(heads) * d, 16);
    const auto& r = c.table(static_cast<std::size_t>(heads) * distances * d, 17);
    XlEncoding e;
    e.u = u;
    e.v = v;
    e.r = r;
    c.encoding = c.cacheEncoding = e;
    c.scale = gridRsqrt(d);
    c.terms.contentDot = [&p, &u, d](int h, int i, int j) {
        ld s = 0;
        for (int x = 0; x < d; ++x) s += (ld(p.qv(h, i)[x]) + u[h * d + x]) * p.kv(h, j)[x];
        return s;
    };
    c.terms.content = [&p, &v, &r, d, distances](int h, int i, int j) {
        const std::int64_t delta = std::int64_t(p.qPos[i]) - p.kPos[j];
        ld s = 0;
        for (int x = 0; x < d; ++x) s += (ld(p.qv(h, i)[x]) + v[h * d + x]) * r[(static_cast<std::size_t>(h) * distances + delta) * d + x];
        return s;
    };
}
template void gridCase<XlEncoding>(const Problem&, GridCase&);
