// The parity grid's reference for 'none' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

void gridReference(GridTag<NoEncoding>, const Problem& p, GridCase& c) {
    c.encoding = NoEncoding{};
    c.cacheEncoding = NoEncoding{};
    c.scale = gridRsqrt(p.headDim);
}
template void gridCase<NoEncoding>(const Problem&, GridCase&);
