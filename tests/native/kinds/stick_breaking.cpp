// The parity grid's reference for 'stickBreaking' (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// Stick-breaking attention (Tan et al. 2024) in place of the softmax: the reference's formula is
// naive_attention.hpp's (NaiveTerms::stickBreaking, from fla naive_stickbreaking_attn); default scale.
void gridReference(GridTag<StickBreakingEncoding>, const Problem& p, GridCase& c) {
    c.encoding = c.cacheEncoding = StickBreakingEncoding{};
    c.scale = gridRsqrt(p.headDim);
    c.terms.stickBreaking = true;
    c.noSinks = "sink logits are a softmax option (stickBreaking refuses them)";
}
template void gridCase<StickBreakingEncoding>(const Problem&, GridCase&);
