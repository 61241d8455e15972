// The parity grid's reference for 'kerple' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// KERPLE log (Chi et al. 2022): -r1 log(1 + r2 |i - j|) per head.
void gridReference(GridTag<KerpleEncoding>, const Problem& p, GridCase& c) {
    const auto& r1 = c.table(p.heads, 21, 0.1f, 2.0f);
    const auto& r2 = c.table(p.heads, 22, 0.05f, 1.2f);
    c.encoding = c.cacheEncoding = KerpleEncoding{KerpleVariant::log, p.heads, View<float>(r1), View<float>(r2)};
    c.scale = gridRsqrt(p.headDim);
    c.terms.bias = [&p, &r1, &r2](int h, int i, int j) { return -ld(r1[h]) * std::log(1 + ld(r2[h]) * std::fabs(ld(p.qPos[i]) - p.kPos[j])); };
}
template void gridCase<KerpleEncoding>(const Problem&, GridCase&);
