#include "posenc/describe.hpp"

namespace posenc {

const std::vector<MethodDescription>& describe() {
    static const std::vector<MethodDescription> table = {
        // --- no position terms ---
        {"none", "none", "nothing: a causal mask alone orders tokens (NoPE)", "0", "-", true,
         "no positions to run out of; decoder-only models learn order from the causal mask (Haviv et al. 2022; Kazemnejad et al. 2023)",
         true, "nothing position-dependent is cached", "plain scaled dot-product attention", "interleaved NoPE layers of Llama 4, SmolLM3, Cohere2"},
        // --- additive: vectors added to the token embeddings ---
        {"sinusoidal", "additive", "absolute position, added to embeddings", "0", "", true,
         "a fixed function of p (angles computed in double)", true, "added once to the input; cached keys never change",
         "Vaswani et al. 2017; HF DistilBERT (interleaved), Marian / Transformer-XL (concat), tensor2tensor get_timing_signal_1d",
         "Transformer, Marian, fairseq"},
        {"learned", "additive", "absolute position, a learned table row", "maxPositions·dim", "", false,
         "the table ends at maxPositions (error, clamp or interpolate — chosen explicitly)", true,
         "added once to the input", "BERT / GPT-2 position ids; RoBERTa / fairseq padding-aware ids", "BERT, GPT-2, RoBERTa, OPT"},
        {"binary", "additive", "absolute position as binary, Gray or radix-r digits", "bits·radix·dim (learned digit vectors)", "", false,
         "up to radix^bits − 1", true, "added once to the input", "the design's digit codes (no single upstream)", "position-code studies"},
        {"lowRank", "additive", "absolute position, coefficients × shared basis", "(maxPositions + dim)·rank", "", false,
         "the coefficient table ends", true, "added once to the input", "factorised learned table", "parameter-efficient variants"},
        {"sparse", "additive", "absolute position, k sparse coefficients over a basis", "maxPositions·k + basisSize·dim", "", false,
         "the coefficient table ends", true, "added once to the input", "sparse-coded learned table", "parameter-efficient variants"},
        {"randomFeatures", "additive", "absolute position, random Fourier features", "0", "", true, "a fixed (seeded) function of p",
         true, "added once to the input", "Rahimi & Recht random features (seeded, documented)", "function-generated encodings"},
        {"axial", "additive", "absolute position split over a grid's axes", "Σ shape[a]·dims[a]", "", false,
         "within the grid's shape", true, "added once to the input", "Reformer AxialPositionEmbeddings", "Reformer"},
        {"twoLevel", "additive", "segment and in-segment position", "segments·segmentDim + inner·innerDim", "-", false,
         "within both tables", true, "added once to the input", "hierarchical (segment, offset) tables", "long-document models"},
        {"sine2d", "additive", "2-D image position (y, x)", "0", "", true, "a fixed function of the pixel counts", true,
         "added to image features", "DETR PositionEmbeddingSine", "DETR, Deformable DETR"},
        {"sine3d", "additive", "3-D video position (t, y, x)", "0", "", true, "a fixed function of the counts", true,
         "added to video features", "DETR-style sine over (t, y, x)", "video transformers"},
        {"resizeGrid", "additive", "a learned 2-D table resized to a new grid", "(the table being resized)", "-", true,
         "bicubic interpolation to the new grid", true, "added once to the input", "HF ViT interpolate_pos_encoding (size and legacy scale_factor)",
         "ViT, DINO, DeiT at new resolutions"},
        // --- rotary: q and k rotated by position ---
        {"rope", "rotary", "relative position through rotation of q and k", "0", "", true,
         "with PI, NTK, dynamic NTK, YaRN, llama3 or longrope scaling", true,
         "keys are rotated once at their position; renumbering needs a re-rotation (KVCache.renumber)",
         "HF modeling_rope_utils + Llama/NeoX/GPT-J rotation; llama.cpp ggml (convention 'ggml')", "Llama, Mistral, Qwen, Phi, Gemma, DeepSeek, GPT-J, NeoX"},
        // --- query temperature: q scaled by position ---
        {"temperature", "score", "absolute position of the query, as a temperature on its scores: q × (1 + β·ln(1 + ⌊(p + offset)/length⌋))", "0", "", true,
         "1 up to length − offset, then grows logarithmically so attention stays selective at long positions", true,
         "only queries are scaled, at their logical positions; cached keys never change",
         "Nakanishi 2025 (Scalable-Softmax); HF modeling_ministral3 _get_llama_4_attn_scale (offset 0), modeling_llama4 attn_temperature_tuning (offset 1)",
         "Ministral 3 (every layer), Llama 4 (NoPE layers)"},
        // --- score terms: added to q·k ---
        {"alibi", "score", "relative distance, a linear bias per head", "0", "", true, "a fixed slope per head extends to any distance",
         true, "the bias depends on positions only", "Press et al. 2022 (slopes for any head count); Bloom", "Bloom, MPT, Falcon (ALiBi)"},
        {"t5", "score", "relative distance in log buckets, a learned bias", "numBuckets·heads", "", true,
         "every distance past maxDistance shares the last bucket", true, "the bias depends on positions only",
         "HF T5Attention._relative_position_bucket", "T5, mT5, Flan-T5"},
        {"swin", "score", "relative 2-D offset inside a window, a learned bias", "(2wh − 1)(2ww − 1)·heads", "", false,
         "fixed window size", true, "the bias depends on positions only", "Swin WindowAttention relative_position_index", "Swin, Swin V2"},
        {"shaw", "score", "relative distance, clipped; key and value embeddings", "(2·clip + 1)·headDim (×2 with values)", "", true,
         "distances past the clip share the last embedding", true, "cached keys unchanged; the term is added per query",
         "tensor2tensor _relative_attention_inner", "Shaw et al. 2018, Music Transformer"},
        {"xl", "score", "relative distance through a projected sinusoid, with u and v biases", "heads·headDim·(dModel + 2)", "", true,
         "the sinusoid R is a fixed function", true, "made for segment memory: cached keys stay valid",
         "kimiyoung transformer-xl RelPartialLearnableMultiHeadAttn", "Transformer-XL, XLNet"},
        {"deberta", "score", "relative distance in log buckets; disentangled c2p and p2c", "2·span·hidden", "", true,
         "log buckets up to maxPosition", true, "the position terms are recomputed per query from cached keys",
         "HF DisentangledSelfAttention and microsoft/DeBERTa (they differ past maxPosition)", "DeBERTa, DeBERTa-v3"},
        {"relativeKey", "score", "relative distance, a learned embedding per distance", "(2·maxPosition − 1)·headDim", "", false,
         "distances must stay below maxPosition", true, "cached keys unchanged", "HF BertSelfAttention relative_key / relative_key_query",
         "BERT variants"},
        {"kerple", "score", "relative distance through a log or power kernel, per head", "2·heads", "", true,
         "kernels of |i − j| defined for any distance", true, "the bias depends on positions only",
         "Chi et al. 2022 (KERPLE), log and power variants", "KERPLE models (length-extrapolation studies)"},
        {"fire", "score", "relative distance, progressively normalised, through an MLP per head", "2·hidden + (hidden + 1)·heads + 2", "", true,
         "the normalised distance stays in [0, 1] at any length", true, "the bias depends on positions only",
         "Li et al. 2024 (FIRE), public code's eps", "FIRE models (length-generalisation studies)"},
        {"cope", "score", "contextual position: a count of gated keys, interpolated embeddings", "npos·headDim", "", true,
         "positions clamp at npos − 1 (counts, not indices, grow)", false,
         "each query recounts gates over all keys; nothing position-dependent is cached, but every step rescans",
         "Golovneva et al. 2024, facebookresearch/RAM projects/cope", "CoPE models"},
    };
    return table;
}

}  // namespace posenc
