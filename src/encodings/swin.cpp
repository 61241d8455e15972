// The 'swin' kind (scores/swin.hpp): a learned bias per relative 2-D offset inside a window and head.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = SwinEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// Heads of the bias: equal to the call's heads. Required by
    /// {@link Posenc.attentionBias}.
    /// @defaultValue the call's `heads`
    heads<&K::heads>(),
    /// Learned bias table [(2wh − 1)(2ww − 1), heads] (`relative_position_bias_table`).
    req<&K::table>("table", "FloatInput", "[(2wh−1)(2ww−1), heads]"),
    /// Window size [wh, ww] in patches: positive integers.
    custom(registry::req("windowSize", "[number, number]"), "[wh, ww]",
           [](const registry::Source& s, const char* key, void* o) {
               auto& w = *static_cast<K*>(o);
               const std::vector<double> size = s.numbers(key);
               if (size.size() == 2) w.windowH = static_cast<int>(size[0]), w.windowW = static_cast<int>(size[1]);
           }),
};
}  // namespace

/// Swin relative position bias inside one window: table[index(i, j), h] with the index of
/// {@link Posenc.swinRelativeIndex}; a position p is the patch (p / ww, p % ww) and must lie inside the
/// window (p < wh·ww). Scale 1/√headDim.
/// @see Swin Transformer `WindowAttention` (Liu et al. 2021).
KindSpec makeSpec(Tag<SwinEncoding>) {
    KindSpec k = kind<K>("swin", "SwinEncoding", Family::score, kFields);
    k.options = R"({"kind":"swin","table":{"$floats":10},"windowSize":[1,3]})";  // [(2·1 − 1)(2·3 − 1), 2 heads]
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) {
        auto term = std::make_unique<SwinTerm>(x, in.dims.heads);
        term->checkPositions(in.qPos, in.dims.qLen, "qPositions");
        term->checkPositions(in.kPos, in.dims.kLen, "kPositions");
        return term;
    });
    k.scalarBias = true;
    /// Shape of a Swin bias table [(2wh − 1)(2ww − 1), heads].
    k.shapeInterface = "SwinShape";
    static constexpr registry::Raw kShape[] = {
        /// Window size [wh, ww] in patches: positive integers.
        registry::req("windowSize", "[number, number]"),
        /// Attention heads.
        size("heads"),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) {
        const std::vector<double> w = s.numbers("windowSize");  // [wh, ww], checked by the caller
        return (2 * w.at(0) - 1) * (2 * w.at(1) - 1) * s("heads");
    };
    k.example = R"({"windowSize":[7,7],"heads":12})";
    k.describe = {"relative 2-D offset inside a window, a learned bias", "(2wh − 1)(2ww − 1)·heads", "", false,
                  "fixed window size", true, "the bias depends on positions only", "Swin WindowAttention relative_position_index", "Swin, Swin V2"};
    static constexpr Link kPaper[] = {{"Liu et al. 2021 (Swin)", "https://arxiv.org/abs/2103.14030"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"Swin WindowAttention", "https://github.com/microsoft/Swin-Transformer/blob/main/models/swin_transformer.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<SwinEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
