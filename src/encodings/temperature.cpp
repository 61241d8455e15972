// The 'temperature' kind (attention/temperature.hpp): queries scaled by their position, no score term.
#include "encodings/kind_spec.hpp"

namespace posenc::kinds {

namespace {
using K = TemperatureEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    req<&K::beta>("beta", "number", "queries × (1 + beta·ln(1 + ⌊(p + offset)/length⌋)) at their positions p"),
    req<&K::length>("length", "integer",
                    "positions per step of the floor (Ministral 3: original_max_position_embeddings; Llama 4: floor_scale)"),
    atLeast(0, num<&K::offset>("offset", "integer", "added to the position before the floor (Llama 4: 1)")),
};
}  // namespace

template <>
const KindSpec& specOf<TemperatureEncoding>() {
    static const KindSpec spec = [] {
        KindSpec k = kind<K>("temperature", "TemperatureEncoding", Family::query, kFields);
        // no score term: attention() and the cache scale q (temperaturePart)
        k.describe = {"absolute position of the query, as a temperature on its scores: q × (1 + β·ln(1 + ⌊(p + offset)/length⌋))", "0", "", true,
                      "1 up to length − offset, then grows logarithmically so attention stays selective at long positions", true,
                      "only queries are scaled, at their logical positions; cached keys never change",
                      "Nakanishi 2025 (Scalable-Softmax); HF modeling_ministral3 _get_llama_4_attn_scale (offset 0), modeling_llama4 attn_temperature_tuning (offset 1)",
                      "Ministral 3 (every layer), Llama 4 (NoPE layers)"};
        static constexpr Link kPaper[] = {{"Nakanishi 2025 (Scalable-Softmax)", "https://arxiv.org/abs/2501.19399"}};
        k.paper = kPaper;
        static constexpr Link kCode[] = {{"HF Llama 4", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama4/modeling_llama4.py"}};
        k.code = kCode;
        return k;
    }();
    return spec;
}

}  // namespace posenc::kinds
