// The parity grid's reference for 'temperature' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// Query temperature (Llama 4 / Ministral 3): q times 1 + beta ln(1 + floor((p + offset) / length)).
void gridReference(GridTag<TemperatureEncoding>, const Problem& p, GridCase& c) {
    const TemperatureEncoding t{0.1, 8192, 1};
    c.encoding = c.cacheEncoding = t;
    c.scale = gridRsqrt(p.headDim);
    c.terms.contentDot = [&p, t](int h, int i, int j) {
        const ld s = 1 + ld(t.beta) * std::log(1 + ld((std::int64_t(p.qPos[i]) + t.offset) / t.length));
        return s * dotLd(p.qv(h, i), p.kv(h, j), p.headDim);
    };
}
template void gridCase<TemperatureEncoding>(const Problem&, GridCase&);
