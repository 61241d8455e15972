// The parity grid's reference for 'forgetting' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// Forgetting attention (FoX, Lin et al. 2025): G_t = cumulative sum of the keys' log forget gates
// (fla-org/flash-linear-attention fla/ops/forgetting_attn/naive.py:45 `gc = g.float().cumsum(1)`), the
// bias of query i on key j G_i - G_j (naive.py:51 `ref + gc[q] - gc[k]`) with the query's G that of its
// own token: zhixuan-lin/forgetting-transformer src/forgetting_transformer/ops/forgetting_attention.py
// reads query m's cumulative sum at key index P_SEQ + m (`log_lambda_out_ptrs`). Here: the last key
// whose position is at or before the query's. Gates in [-0.3, 0), per query head ([heads, kLen]).
void gridReference(GridTag<ForgettingEncoding>, const Problem& p, GridCase& c) {
    const auto& gates = c.table(static_cast<std::size_t>(p.heads) * p.kLen, 31, -0.3f, 0.0f);
    c.encoding = ForgettingEncoding{View<float>(gates)};
    c.cacheEncoding = ForgettingEncoding{};
    c.cacheLogForget = gates;
    c.scale = gridRsqrt(p.headDim);
    auto cum = std::make_shared<std::vector<ld>>();
    for (int h = 0; h < p.heads; ++h) {
        ld g = 0;
        for (int j = 0; j < p.kLen; ++j) cum->push_back(g += ld(gates[static_cast<std::size_t>(h) * p.kLen + j]));
    }
    c.terms.bias = [&p, cum](int h, int i, int j) {
        int own = -1;
        for (int u = 0; u < p.kLen; ++u)
            if (p.kPos[u] <= p.qPos[i]) own = u;
        const ld* G = cum->data() + static_cast<std::size_t>(h) * p.kLen;
        return G[own] - G[j];
    };
}
template void gridCase<ForgettingEncoding>(const Problem&, GridCase&);
