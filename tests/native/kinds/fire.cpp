// The parity grid's reference for 'fire' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// FIRE (Li et al. 2024): MLP(log(c |i - j| + 1) / (log(c max(L, i) + 1) + eps)) per head.
void gridReference(GridTag<FireEncoding>, const Problem& p, GridCase& c) {
    const int heads = p.heads, hidden = 7;
    const auto& w1 = c.table(hidden, 23), &b1 = c.table(hidden, 24);
    const auto& w2 = c.table(static_cast<std::size_t>(heads) * hidden, 25), &b2 = c.table(heads, 26);
    c.encoding = c.cacheEncoding = FireEncoding{heads, hidden, View<float>(w1), View<float>(b1), View<float>(w2), View<float>(b2), 1.5, 16, 1e-6};
    c.scale = gridRsqrt(p.headDim);
    c.terms.bias = [&p, &w1, &b1, &w2, &b2, hidden](int h, int i, int j) {
        const ld norm = std::log(ld(1.5) * std::max(ld(16), ld(p.qPos[i])) + 1) + ld(1e-6);
        const ld x = std::log(ld(1.5) * std::fabs(ld(p.qPos[i]) - p.kPos[j]) + 1) / norm;
        ld y = b2[h];
        for (int k = 0; k < hidden; ++k) y += ld(w2[h * hidden + k]) * std::max(ld(0), ld(w1[k]) * x + ld(b1[k]));
        return y;
    };
}
template void gridCase<FireEncoding>(const Problem&, GridCase&);
