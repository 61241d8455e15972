// The 'none' kind: no position terms (NoPE); the causal mask alone orders tokens.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

/// No positional term: plain scaled dot-product attention (scale 1/√headDim).
KindSpec makeSpec(Tag<NoEncoding>) {
    KindSpec k = kind<NoEncoding>("none", "NoneEncoding", Family::none, {});
    k.options = R"({"kind":"none"})";
    k.describe = {"nothing: a causal mask alone orders tokens (NoPE)", "0", "-", true,
                  "no positions to run out of; decoder-only models learn order from the causal mask (Haviv et al. 2022; Kazemnejad et al. 2023)",
                  true, "nothing position-dependent is cached", "plain scaled dot-product attention", "interleaved NoPE layers of Llama 4, SmolLM3, Cohere2"};
    static constexpr Link kPaper[] = {{"Haviv et al. 2022", "https://arxiv.org/abs/2203.16634"}, {"Kazemnejad et al. 2023", "https://arxiv.org/abs/2305.19466"}};
    k.paper = kPaper;
    return k;
}
template const KindSpec& specOf<NoEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
