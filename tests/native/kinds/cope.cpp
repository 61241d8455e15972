// The parity grid's reference for 'cope' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// CoPE (Golovneva et al. 2024): gates sigmoid(scale q . k) over the allowed keys, position of key j =
// sum of the gates of keys j..end, clamped to npos - 1, e(p) interpolated; q . e(p) joins q . k. The
// reverse sums are formed once per query row.
void gridReference(GridTag<CopeEncoding>, const Problem& p, GridCase& c) {
    const int d = p.headDim, npos = 9;
    const auto& emb = c.table(static_cast<std::size_t>(npos) * d, 27);
    c.encoding = c.cacheEncoding = CopeEncoding{npos, View<float>(emb)};
    c.scale = gridRsqrt(d);
    auto sums = std::make_shared<std::map<std::pair<int, int>, std::vector<ld>>>();
    c.terms.content = [&p, &emb, d, npos, sums](int h, int i, int j) {
        auto& pos = (*sums)[{h, i}];
        if (pos.empty()) {
            pos.assign(p.kLen + 1, 0);
            for (int u = p.kLen - 1; u >= 0; --u)
                pos[u] = pos[u + 1] + (p.allowed(i, u) ? 1 / (1 + std::exp(-gridRsqrt(d) * dotLd(p.qv(h, i), p.kv(h, u), d))) : 0);
        }
        const ld at = std::min(pos[j], ld(npos - 1));
        const int lo = int(std::floor(at)), hi = int(std::ceil(at));
        return dotLd(p.qv(h, i), emb.data() + hi * d, d) * (at - lo) + dotLd(p.qv(h, i), emb.data() + lo * d, d) * (1 - (at - lo));
    };
}
template void gridCase<CopeEncoding>(const Problem&, GridCase&);
