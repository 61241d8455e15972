#include "rotary/apply.hpp"

#include "common/errors.hpp"
#include "kernels/rotate.hpp"

namespace posenc {

RopeTables::RopeTables(const RopeFrequencies& f, RopeLayout layout)
    : invFreq_(f.invFreq), layout_(layout), rotaryDim_(f.rotaryDim),
      width_(layout == RopeLayout::half ? f.rotaryDim / 2 : f.rotaryDim) {
    if (f.rotaryDim <= 0 || f.rotaryDim % 2 != 0 || f.invFreq.size() != static_cast<std::size_t>(f.rotaryDim / 2))
        fail("rotaryDim", "must be even and match invFreq (got " + std::to_string(f.rotaryDim) + ")");
}

void RopeTables::build(const double* positions, std::size_t count, double scale) {
    const std::size_t h = invFreq_.size();
    c_.resize(count * width_);
    s_.resize(count * width_);
    std::vector<float> ct(h), st(h);
    for (std::size_t t = 0; t < count; ++t) {
        float* c = c_.data() + t * width_;
        float* s = s_.data() + t * width_;
        if (layout_ == RopeLayout::half) {
            kernels::sinCosSimd(positions[t], invFreq_.data(), h, scale, c, s);
        } else {
            kernels::sinCosSimd(positions[t], invFreq_.data(), h, scale, ct.data(), st.data());
            for (std::size_t k = 0; k < h; ++k) {
                c[2 * k] = c[2 * k + 1] = ct[k];
                s[2 * k] = -st[k];
                s[2 * k + 1] = st[k];
            }
        }
    }
}

void RopeTables::rotate(float* v, std::size_t t) const noexcept {
    const float* c = c_.data() + t * width_;
    const float* s = s_.data() + t * width_;
    if (layout_ == RopeLayout::half) kernels::rotateHalfSimd(v, c, s, width_);
    else kernels::rotateInterleavedSimd(v, c, s, width_);
}

namespace {
void checkShape(int heads, int tokens, int headDim, const RopeFrequencies& f) {
    requirePositive(heads, "heads");
    requirePositive(tokens, "tokens");
    requirePositive(headDim, "headDim");
    if (f.rotaryDim > headDim)
        fail("rotaryDim", "(" + std::to_string(f.rotaryDim) + ") exceeds headDim (" + std::to_string(headDim) + ")");
}

void rotateAll(float* x, int heads, int tokens, int headDim, const RopeTables& tables) {
    for (int h = 0; h < heads; ++h)
        for (int t = 0; t < tokens; ++t)
            tables.rotate(x + (static_cast<std::size_t>(h) * tokens + t) * headDim, static_cast<std::size_t>(t));
}
}  // namespace

void applyRope(float* x, int heads, int tokens, int headDim, const std::int32_t* positions, const RopeFrequencies& f,
               RopeLayout layout) {
    checkShape(heads, tokens, headDim, f);
    requirePositions(positions, static_cast<std::size_t>(tokens), "positions");
    std::vector<double> p(positions, positions + tokens);
    RopeTables tables(f, layout);
    tables.build(p.data(), p.size(), f.attentionScale);
    rotateAll(x, heads, tokens, headDim, tables);
}

std::vector<float> applyRope(const std::vector<float>& x, int heads, int tokens, int headDim,
                             const std::vector<std::int32_t>& positions, const RopeFrequencies& f, RopeLayout layout) {
    checkShape(heads, tokens, headDim, f);
    if (x.size() != static_cast<std::size_t>(heads) * tokens * headDim) fail("x", "must have heads*tokens*headDim elements");
    if (positions.size() != static_cast<std::size_t>(tokens)) fail("positions", "must have one entry per token");
    std::vector<float> out = x;
    applyRope(out.data(), heads, tokens, headDim, positions.data(), f, layout);
    return out;
}

void rotateByDelta(float* x, int heads, int tokens, int headDim, const std::int64_t* deltas, const RopeFrequencies& f,
                   RopeLayout layout) {
    checkShape(heads, tokens, headDim, f);
    std::vector<double> d(deltas, deltas + tokens);
    RopeTables tables(f, layout);
    tables.build(d.data(), d.size(), 1.0);
    rotateAll(x, heads, tokens, headDim, tables);
}

}  // namespace posenc
