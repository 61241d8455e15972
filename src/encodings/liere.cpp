// The 'liere' kind (rotary/): LieRE's rotations of q and k from learned skew-symmetric generators; no score
// term. Its keys are read into a RopeEncoding with multiAxis 'liere' (posenc/rotary/frequencies.hpp), which
// attention applies as any rope (ropePart).
#include <cmath>

#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = LiereEncoding;
using E = RopeEncoding;
using C = RopeConfig;
constexpr KindField kFields[] = {
    /// [axes, rotaryDim/blockSize, blockSize, blockSize] row-major: block j of the rotated channels turns into
    /// exp(Σₐ pₐ·G[a, j])·x_j at positions p = (p₀, …) (`qPositions` / `kPositions` [axes, len]). Each block
    /// must be skew-symmetric (Gᵀ = −G) within 1e-6 of its largest |entry| (then (G − Gᵀ)/2 is used); entries within ±1e4.
    req<&K::rope, &E::config, &C::generators>("generators", "FloatInput", "skew-symmetric generators [axes, blocks, blockSize, blockSize]"),
    /// Channels per block: an integer in [2, 64] dividing rotaryDim. 2 is axial RoPE (each 2 x 2 block a plane rotation).
    req<&K::rope, &E::config, &C::blockSize>("blockSize", "integer", "channels per rotation block (>= 2, divides rotaryDim)"),
    opt<&K::rope, &E::config, &C::headDim>("headDim", "integer", "channels per head"),
    num<&K::rope, &E::config, &C::partialRotaryFactor>("partialRotaryFactor", "number", "fraction of the head channels that rotate"),
    atLeast(0, num<&K::rope, &E::config, &C::rotaryOffset>("rotaryOffset", "integer", "first rotated channel")),
};
}  // namespace

/// LieRE (Ostmeier et al. 2024) inside attention: q and k rotated block by block by exp(Σₐ pₐ·Gₐ) at their
/// N-D positions (`qPositions` / `kPositions` [axes, len], `maskPositions` [len] for the masks and score
/// terms), then plain dot products (scale 1/√headDim). Block size 2 reproduces 2-D axial RoPE; q(p)·k(p′)
/// depends on p − p′ alone only when the axes' generators commute. The same rotation is the rope option
/// `multiAxis: 'liere'` ({@link RopeOptions}), which {@link Posenc.applyRope} and a {@link KVCache}'s `rope`
/// take. The exponential is formed in double by scaling and squaring (b = 2: cos / sin of the angle).
/// @see Ostmeier et al., "LieRE: Generalizing Rotary Position Encodings", arXiv 2406.10322.
KindSpec makeSpec(Tag<LiereEncoding>) {
    KindSpec k = kind<K>("liere", "LiereEncoding", Family::rotary, kFields);
    // 4 skew-symmetric 2 × 2 blocks over 8 channels
    k.options = R"({"kind":"liere","blockSize":2,"generators":[0,-0.5,0.5,0,0,-0.25,0.25,0,0,1,-1,0,0,0.1,-0.1,0]})";
    /// Shape of LieRE's generators.
    k.shapeInterface = "LiereShape";
    static constexpr registry::Raw kShape[] = {
        /// Position axes (2 for images, 3 for video).
        size("axes"),
        /// Rotated channels per head.
        size("rotaryDim"),
        /// Channels per rotation block.
        size("blockSize"),
    };
    k.shape = kShape;
    // a skew-symmetric b x b block has b(b - 1)/2 free entries; rotaryDim/b blocks per axis
    k.parameters = [](const Shape& s) { return s("axes") * std::floor(s("rotaryDim") / s("blockSize")) * s("blockSize") * (s("blockSize") - 1) / 2; };
    k.example = R"({"axes":2,"rotaryDim":64,"blockSize":4})";
    k.describe = {"N-D position through rotations exp(Σ pₐ·Gₐ) of blocks of q and k channels", "axes·rotaryDim·(blockSize − 1)/2", "", true,
                  "rotations are defined for any position (exp formed in double)", true,
                  "keys are rotated once at their position; shift / renumber only when the generators commute",
                  "Ostmeier et al. 2024 (LieRE); block size 2 = axial RoPE (RoPE-ViT)", "vision and 3-D transformers (LieRE, STRING, ComRoPE studies)"};
    static constexpr Link kPaper[] = {{"Ostmeier et al. 2024 (LieRE)", "https://arxiv.org/abs/2406.10322"}};
    k.paper = kPaper;
    return k;
}
template const KindSpec& specOf<LiereEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
