// The 'kerple' kind (scores/kerple.hpp): a log or power kernel of |i − j|, a bias per head.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = KerpleEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// `'log'` (−r1·log(1 + r2·d)) or `'power'` (−r1·d^r2).
    pickRequired<&K::variant>("variant", "log|power", "log: −r1·log(1 + r2·|i − j|); power: −r1·|i − j|^r2"),
    /// Heads of the bias. @defaultValue the call's heads (required by {@link Posenc.attentionBias})
    heads<&K::heads>(),
    /// [heads], each a positive finite number.
    req<&K::r1>("r1", "FloatInput", "[heads], each > 0"),
    /// [heads], each a positive finite number (at most 2 for `'power'`).
    req<&K::r2>("r2", "FloatInput", "[heads], each > 0 (≤ 2 for power)"),
};
}  // namespace

/// KERPLE (Chi et al. 2022): a per-head bias from a conditionally positive definite kernel of the
/// distance, log: −r1·log(1 + r2·|i − j|); power: −r1·|i − j|^r2. Learned r1, r2 > 0 (r2 ≤ 2 for power).
/// @see Chi et al., "KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation", NeurIPS 2022.
KindSpec makeSpec(Tag<KerpleEncoding>) {
    KindSpec k = kind<K>("kerple", "KerpleEncoding", Family::score, kFields);
    k.options = R"({"kind":"kerple","variant":"log","r1":[0.5,1],"r2":[1,0.5]})";  // r1, r2 > 0 per head
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<KerpleTerm>(x, in.dims.heads); });
    k.scalarBias = true;
    /// Shape of KERPLE's per-head parameters.
    k.shapeInterface = "KerpleShape";
    static constexpr registry::Raw kShape[] = {
        /// Attention heads.
        size("heads"),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) { return 2 * s("heads"); };  // r1, r2 per head
    k.example = R"({"heads":12})";
    k.describe = {"relative distance through a log or power kernel, per head", "2·heads", "", true,
                  "kernels of |i − j| defined for any distance", true, "the bias depends on positions only",
                  "Chi et al. 2022 (KERPLE), log and power variants", "KERPLE models (length-extrapolation studies)"};
    static constexpr Link kPaper[] = {{"Chi et al. 2022 (KERPLE)", "https://arxiv.org/abs/2205.09921"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"chijames/KERPLE", "https://github.com/chijames/KERPLE"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<KerpleEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
