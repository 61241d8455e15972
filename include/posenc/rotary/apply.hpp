// Applying RoPE: rotate rotaryDim channels of each head vector, from rotaryOffset (0: the first ones;
// DeepSeek MLA: the trailing ones), by position * invFreq, scaled by attentionScale (as HF and ggml fold
// it into cos/sin). The other channels pass through.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/rotary/frequencies.hpp"

namespace posenc {

enum class RopeLayout {
    half,         // rotate_half: pairs (k, k + R/2) — HF Llama/NeoX, ggml NEOX
    interleaved,  // pairs (2k, 2k+1) — GPT-J, ggml NORMAL
};

// Which side of q.k a rotation is for: only xPos tells them apart (a query at p scales by zeta^(p/gamma), a key by zeta^(-p/gamma); zeta < 1).
enum class RopeRole { query, key };

// Per-token rotation tables in the kernel's layout (see kernels/rotate.hpp). Angles are formed in
// double precision, so positions up to 2^31-1 stay within 1e-6 of the exact rotation.
class RopeTables {
public:
    RopeTables(const RopeFrequencies& f, RopeLayout layout);
    // Fills the tables for `count` tokens: angle multiplier positions[a * stride + t] for axis a (a
    // position or a delta), times `scale`. stride defaults to count (one axis: just positions[t]).
    void build(const double* positions, std::size_t count, double scale, RopeRole role = RopeRole::query, std::size_t stride = 0);
    // Rotates one head vector of token t in place.
    void rotate(float* headVector, std::size_t t) const noexcept;
    // Rotates `rows` head vectors x + t * stride by tokens t = 0..rows-1.
    void rotateRows(float* x, std::size_t rows, std::size_t stride) const noexcept { rotateRows(x, x, rows, stride); }
    // The same from src into dst (rows of `stride` floats; the channels outside the rotated range copied).
    void rotateRows(float* dst, const float* src, std::size_t rows, std::size_t stride) const noexcept;
    int rotaryDim() const noexcept { return rotaryDim_; }
    int rotaryOffset() const noexcept { return static_cast<int>(offset_); }

private:
    std::vector<double> invFreq_;
    std::vector<int> axisOfPair_;
    std::vector<double> logZeta_;  // xPos: ln zeta_k; empty = off
    double xposScaleBase_ = 0;
    RopeLayout layout_;
    int rotaryDim_;
    std::size_t offset_;        // the first rotated channel (RopeFrequencies::rotaryOffset)
    std::size_t width_;         // rotary pairs = floats per token in each of c and s
    std::vector<float> c_, s_;  // [count, width_]: scale*cos, scale*sin
    std::vector<double> cd_, sd_, stepC_, stepS_;  // current angle's cos/sin in double; cos/sin of one position step
    // LieRE (RopeFrequencies::blockSize > 0): per token, each block's rotation exp(sum_a p_a G_a) times
    // the scale, [count, blocks, b, b] in double (applied in double, rounded once per channel)
    int block_ = 0;
    std::size_t axes_ = 1;
    std::vector<double> generators_;
    std::vector<double> blockRot_;
    void buildLiere(const double* positions, std::size_t count, double scale, std::size_t stride);
    void rotateLiere(float* dst, const float* src, std::size_t t) const noexcept;
};

// x: [heads, tokens, headDim], rotated in place; positions: [axes, tokens] (axes = f.axes, usually 1), each >= 0.
void applyRope(float* x, int heads, int tokens, int headDim, const std::int32_t* positions,
               const RopeFrequencies& f, RopeLayout layout, RopeRole role = RopeRole::query);
// The same on a copy: returns x rotated (positions [axes * tokens]), x unchanged.
std::vector<float> applyRope(const std::vector<float>& x, int heads, int tokens, int headDim,
                             const std::vector<std::int32_t>& positions, const RopeFrequencies& f, RopeLayout layout);

// Rotates by a position delta without the attention scale (re-rotating cached keys moves them from
// position p to p + delta; the scale they already carry stays). delta may be negative.
void rotateByDelta(float* x, int heads, int tokens, int headDim, const std::int64_t* deltas,
                   const RopeFrequencies& f, RopeLayout layout, RopeRole role = RopeRole::key);

}  // namespace posenc
