// Applying RoPE: rotate the first rotaryDim channels of each head vector by position * invFreq,
// scaled by attentionScale (as HF and ggml fold it into cos/sin). Channels >= rotaryDim pass through.
#pragma once
#include <cstdint>
#include <vector>

#include "rotary/frequencies.hpp"

namespace posenc {

enum class RopeLayout {
    half,         // rotate_half: pairs (k, k + R/2) — HF Llama/NeoX, ggml NEOX
    interleaved,  // pairs (2k, 2k+1) — GPT-J, ggml NORMAL
};

// Per-token rotation tables in the kernel's layout (see kernels/rotate.hpp). Angles are formed in
// double precision, so positions up to 2^31-1 stay within 1e-6 of the exact rotation.
class RopeTables {
public:
    RopeTables(const RopeFrequencies& f, RopeLayout layout);
    // Fills the table for `count` angles: angle multiplier `positions[t]` (or a delta), times `scale`.
    void build(const double* positions, std::size_t count, double scale);
    // Rotates one head vector of token t in place.
    void rotate(float* headVector, std::size_t t) const noexcept;
    int rotaryDim() const noexcept { return rotaryDim_; }

private:
    std::vector<double> invFreq_;
    RopeLayout layout_;
    int rotaryDim_;
    std::size_t width_;         // rotary pairs = floats per token in each of c and s
    std::vector<float> c_, s_;  // [count, width_]: scale*cos, scale*sin
};

// x: [heads, tokens, headDim], rotated in place; positions: [tokens], each >= 0.
void applyRope(float* x, int heads, int tokens, int headDim, const std::int32_t* positions,
               const RopeFrequencies& f, RopeLayout layout);
std::vector<float> applyRope(const std::vector<float>& x, int heads, int tokens, int headDim,
                             const std::vector<std::int32_t>& positions, const RopeFrequencies& f, RopeLayout layout);

// Rotates by a position delta without the attention scale (re-rotating cached keys moves them from
// position p to p + delta; the scale they already carry stays). delta may be negative.
void rotateByDelta(float* x, int heads, int tokens, int headDim, const std::int64_t* deltas,
                   const RopeFrequencies& f, RopeLayout layout);

}  // namespace posenc
