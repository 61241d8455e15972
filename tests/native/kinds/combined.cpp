// The parity grid's reference for a combination (an array of encodings: posenc::CombinedEncoding, not a kind;
// tests/native/parity_grid.hpp): RoPE and ALiBi together, from their own references.
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

// its parts' references, instantiated by their own files
extern template void gridCase<RopeEncoding>(const Problem&, GridCase&);
extern template void gridCase<AlibiEncoding>(const Problem&, GridCase&);

// RoPE + ALiBi: rotated q . k plus -m (i - j).
void gridReference(GridTag<CombinedEncoding>, const Problem& p, GridCase& c) {
    GridCase rope, alibi;
    gridCase<RopeEncoding>(p, rope);
    gridCase<AlibiEncoding>(p, alibi);
    c.encoding = CombinedEncoding{{rope.encoding, alibi.encoding}};
    c.cacheRope = rope.cacheRope;
    c.cacheEncoding = alibi.encoding;
    c.scale = gridRsqrt(p.headDim);
    c.terms.contentDot = rope.terms.contentDot;
    c.terms.bias = alibi.terms.bias;
}
template void gridCase<CombinedEncoding>(const Problem&, GridCase&);
