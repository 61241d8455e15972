// The parity grid's reference for 'liere' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// LieRE (Ostmeier et al. 2024), one axis, blocks of 3 (Rodrigues) over 18 of the 20 channels.
void gridReference(GridTag<LiereEncoding>, const Problem& p, GridCase& c) {
    const int d = p.headDim, R = 18, blocks = R / 3;
    auto& g = c.tables.emplace_back(static_cast<std::size_t>(blocks) * 9, 0.f);
    const auto r = ref::randomVector(g.size(), 28, -0.7f, 0.7f);
    for (int m = 0; m < blocks; ++m)
        for (int i = 0; i < 3; ++i)
            for (int j = i + 1; j < 3; ++j) g[m * 9 + i * 3 + j] = r[m * 9 + i * 3 + j], g[m * 9 + j * 3 + i] = -r[m * 9 + i * 3 + j];
    RopeEncoding rope;
    rope.config.multiAxis = MultiAxis::liere;
    rope.config.blockSize = 3;
    rope.config.partialRotaryFactor = 0.9;
    rope.config.generators = g;
    c.encoding = LiereEncoding{rope};
    c.cacheRope = rope;
    c.cacheEncoding = NoEncoding{};
    c.scale = gridRsqrt(d);
    const std::vector<float> gen = g;
    c.terms.contentDot = [&p, gen, d, R](int h, int i, int j) {
        const auto a = ref::liere(p.qv(h, i), d, 0, R, 3, gen, {ld(p.qPos[i])});
        const auto b = ref::liere(p.kv(h, j), d, 0, R, 3, gen, {ld(p.kPos[j])});
        ld s = 0;
        for (int x = 0; x < d; ++x) s += a[x] * b[x];
        return s;
    };
}
template void gridCase<LiereEncoding>(const Problem&, GridCase&);
