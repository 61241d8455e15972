// The one attention engine. Every encoding runs through it:
//   score(i, j) = scale * (qc_i . k_j + content(i, j)) + bias(i, j), masked (causal, window, keyMask),
//   softmax over j, out_i = sum_j w_ij (v_j + valueTerm(i, j)).
// It streams over key blocks with an online softmax, so nothing T x T exists unless weights or scores
// are requested; blocks the causal/window mask removes entirely are skipped.
//
// Work is done FlashAttention-2 style (kernels/attention_tile.hpp): the query rows that read one kv
// head (a GQA group's heads x qLen) run in tiles of kTileRows rows, the softmax scale folded into each
// row once; per key block a register-blocked micro-kernel forms the tile's scores from keys packed
// channel-major, score terms add to them, masks touch only blocks that straddle a boundary, a
// vectorised exp turns them into weights, and a second micro-kernel adds P.V into the tile's outputs.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/scores/score_term.hpp"

namespace posenc {

struct AttentionMask {
    bool causal = false;
    int window = 0;                         // 0 = none; else admits 0 <= qPos - kPos < window
    const std::uint8_t* keyMask = nullptr;  // [kLen], 1 = attend; null = all
    int sinks = 0;                          // keys j < sinks are exempt from the window (attention sinks; the KV cache's first slots)
};

struct AttentionInputs {
    AttentionDims dims;
    const float* q = nullptr;  // [heads, qLen, headDim]
    const float* k = nullptr;  // [kvHeads, kLen, headDim]; may be null when kPacked is given
    const float* kPacked = nullptr;  // optional: keys already packed, [kvHeads][packedKeysSize(kLen, headDim)]
    const float* v = nullptr;  // [kvHeads, kLen, headDim]
    // Keys per kv head in k, kPacked and v (0 = kLen): the KV cache attends over the first kLen of
    // more slots than that (keys a long append still needs are held past its capacity).
    std::size_t kvStride = 0;
    const std::int32_t* qPos = nullptr;  // [qLen]
    const std::int32_t* kPos = nullptr;  // [kLen]
    AttentionMask mask;
    float scale = 1.0f;
};

struct AttentionOutputs {
    float* out = nullptr;      // [heads, qLen, headDim]
    float* weights = nullptr;  // optional [heads, qLen, kLen]
    float* scores = nullptr;   // optional [heads, qLen, kLen], masked = -inf
};

// Scratch memory of the engine. A caller that runs many small attentions (the KV cache, one decode
// step at a time) keeps one and passes it in, so a step allocates nothing once the buffers are warm.
struct AttentionWorkspace {
    struct BlockRange {
        std::int32_t minPos, maxPos;  // over the keys that pass keyMask and obey the window (j >= sinks)
        bool any;                     // any such key
        bool all;                     // every key in the block passes keyMask
        std::int32_t sinkMin, sinkMax;  // over the sink keys (j < sinks) that pass keyMask
        bool sinkAny;
    };
    std::vector<BlockRange> blocks;
    std::vector<float> qTile, scores, content, acc, wsum, packedKeys, keyRows, rows;
    float sink = 0;
};

// Shapes and pointers are assumed validated (see attention/attention.hpp for the checked entry).
// A query whose every key is masked gets out = 0 and weights = 0 (never NaN).
void runAttention(const AttentionInputs& in, ScoreTerm& term, const AttentionOutputs& out, AttentionWorkspace* workspace = nullptr);

// Whether key j is visible to a query at qPos under the mask (shared with the KV cache and tests).
inline bool keyAllowed(const AttentionMask& m, std::int32_t qPos, std::int32_t kPos, int j) {
    if (m.keyMask && !m.keyMask[j]) return false;
    const std::int64_t d = static_cast<std::int64_t>(qPos) - kPos;
    if (m.causal && d < 0) return false;
    if (m.window > 0 && j >= m.sinks && (d < 0 || d >= m.window)) return false;
    return true;
}

}  // namespace posenc
