// The 'temperature' kind (attention/temperature.hpp): queries scaled by their position, no score term.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = TemperatureEncoding;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// β: a finite number (Ministral 3 `llama_4_scaling_beta`, Llama 4 `attn_scale`).
    req<&K::beta>("beta", "number", "queries × (1 + beta·ln(1 + ⌊(p + offset)/length⌋)) at their positions p"),
    /// Positions per step of the floor (Ministral 3 `original_max_position_embeddings`, Llama 4
    /// `floor_scale`).
    req<&K::length>("length", "integer",
                    "positions per step of the floor (Ministral 3: original_max_position_embeddings; Llama 4: floor_scale)"),
    /// Added to the position before the floor (Llama 4: 1).
    atLeast(0, num<&K::offset>("offset", "integer", "added to the position before the floor (Llama 4: 1)")),
};
}  // namespace

/// Query temperature (Nakanishi 2025, Scalable-Softmax, in the form of Llama 4 and Ministral 3): every
/// query at logical position p is multiplied by s(p) = 1 + beta·ln(1 + ⌊(p + offset) / length⌋), after
/// any rotation and before q·k, so its scores sharpen at long positions (score terms are not scaled).
/// Alone (NoPE layers, Llama 4) or in an array with a rope (Ministral 3) or score terms; in
/// {@link KVCache.attend} at each query's logical position, so generation past a sliding window is right.
/// With multi-axis RoPE p is the sequence index (`maskPositions`). The floor is exact (integers) at every
/// position; Hugging Face divides in float32, which differs only where p + offset > 2^24 lies within
/// float rounding of a multiple of length. {@link Posenc.ropeConfigFromHF} returns it for a config
/// (`temperature`). Learns no parameters.
/// @see Hugging Face `modeling_ministral3` `_get_llama_4_attn_scale` (offset 0), `modeling_llama4`
/// `attn_temperature_tuning` (offset 1); Nakanishi, "Scalable-Softmax Is Superior for Attention", arXiv 2501.19399.
KindSpec makeSpec(Tag<TemperatureEncoding>) {
    KindSpec k = kind<K>("temperature", "TemperatureEncoding", Family::query, kFields);
    k.options = R"({"kind":"temperature","beta":0.1,"length":2,"offset":1})";
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
}
template const KindSpec& specOf<TemperatureEncoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
