// The parity grid's reference for 'rope' (and p-RoPE, a rope option) (tests/native/parity_grid.hpp): the encoding on the
// grid's problem and its score written from its definition (the kind's other cases may go here too).
#include "grid_case.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {
std::vector<ld> rotateHalf(const float* x, int headDim, int rotary, ld pos, ld base) {
    std::vector<ld> head(x, x + rotary);
    auto r = ref::rope(head, pos, ref::defaultInvFreq(rotary, base), true);
    std::vector<ld> out(x, x + headDim);
    std::copy(r.begin(), r.end(), out.begin());
    return out;
}
}  // namespace

// RoPE (Su et al.; HF rotate_half), partial: the first half of the channels rotate, base 500.
void gridReference(GridTag<RopeEncoding>, const Problem& p, GridCase& c) {
    RopeEncoding rope;
    rope.config.base = 500;
    rope.config.partialRotaryFactor = 0.5;
    c.encoding = rope;
    c.cacheRope = rope;
    c.cacheEncoding = NoEncoding{};
    c.scale = gridRsqrt(p.headDim);
    const int rotary = p.headDim / 2;
    c.terms.contentDot = [&p, rotary](int h, int i, int j) {
        const auto a = rotateHalf(p.qv(h, i), p.headDim, rotary, p.qPos[i], 500), b = rotateHalf(p.kv(h, j), p.headDim, rotary, p.kPos[j], 500);
        ld s = 0;
        for (int x = 0; x < p.headDim; ++x) s += a[x] * b[x];
        return s;
    };
}
template void gridCase<RopeEncoding>(const Problem&, GridCase&);

// p-RoPE (Barbero et al. 2025; HF rope_type 'proportional'): of 10 pairs over 20 channels, the 7 lowest
// frequencies truncated (p = 0.3: int(0.3 * 20 // 2) = 3 kept), pairs (i, i + 10) across the whole head.
void gridReference(GridTag<PRopeCase>, const Problem& p, GridCase& c) {
    RopeEncoding rope;
    rope.config.base = 500;
    rope.config.frequencyFraction = 0.3;
    c.encoding = rope;
    c.cacheRope = rope;
    c.cacheEncoding = NoEncoding{};
    c.scale = gridRsqrt(p.headDim);
    const int d = p.headDim;
    std::vector<ld> w(static_cast<std::size_t>(d / 2), 0);
    for (int i = 0; i < int(0.3 * d) / 2; ++i) w[i] = std::pow(ld(500), -ld(2 * i) / d);
    c.terms.contentDot = [&p, w, d](int h, int i, int j) {
        const auto a = ref::rope(std::vector<ld>(p.qv(h, i), p.qv(h, i) + d), p.qPos[i], w, true);
        const auto b = ref::rope(std::vector<ld>(p.kv(h, j), p.kv(h, j) + d), p.kPos[j], w, true);
        ld s = 0;
        for (int x = 0; x < d; ++x) s += a[x] * b[x];
        return s;
    };
}
template void gridCase<PRopeCase>(const Problem&, GridCase&);
