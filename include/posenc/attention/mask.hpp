// Every mask of the attention engine in one place: which keys a query sees (causal, sliding window,
// chunks, attention sinks, a key mask), and the per-block summaries that let the engine skip key blocks a
// query cannot see or drop the per-key checks of blocks it sees whole.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace posenc {

struct AttentionMask {
    bool causal = false;
    int window = 0;                         // 0 = none; else admits 0 <= qPos - kPos < window
    const std::uint8_t* keyMask = nullptr;  // [kLen], 1 = attend; null = all
    int sinks = 0;                          // keys j < sinks are exempt from the window (attention sinks; the KV cache's first slots)
    int chunk = 0;                          // 0 = none; else admits kPos / chunk == qPos / chunk (Llama 4's chunked layers)
    bool strict = false;                    // with causal: admits kPos < qPos only, not a query's own position (stick-breaking attention)
};

// Whether causal masking hides a key at kPos from a query at qPos (kPos > qPos; strict: kPos >= qPos).
inline bool causallyHidden(const AttentionMask& m, std::int64_t kPos, std::int64_t qPos) { return m.causal && (kPos > qPos || (m.strict && kPos == qPos)); }

// The first position of qPos's chunk (positions are >= 0).
inline std::int64_t chunkStart(const AttentionMask& m, std::int32_t qPos) { return static_cast<std::int64_t>(qPos) / m.chunk * m.chunk; }

// Whether key j (at kPos) is visible to a query at qPos under the mask (shared with the KV cache and tests).
inline bool keyAllowed(const AttentionMask& m, std::int32_t qPos, std::int32_t kPos, int j) {
    if (m.keyMask && !m.keyMask[j]) return false;
    const std::int64_t d = static_cast<std::int64_t>(qPos) - kPos;
    if (causallyHidden(m, kPos, qPos)) return false;
    if (m.window > 0 && j >= m.sinks && (d < 0 || d >= m.window)) return false;
    if (m.chunk > 0 && kPos / m.chunk != qPos / m.chunk) return false;
    return true;
}

// One key block's summary: the position range of its unmasked keys, sink keys (exempt from the
// window) ranged apart from the others.
struct KeyBlockRange {
    std::int32_t minPos, maxPos;    // over the keys that pass keyMask and obey the window (j >= sinks)
    bool any;                       // any such key
    bool all;                       // every key in the block passes keyMask
    std::int32_t sinkMin, sinkMax;  // over the sink keys (j < sinks) that pass keyMask
    bool sinkAny;
};

// Summaries of the blocks of `block` keys covering kLen keys.
inline void keyBlockRanges(const AttentionMask& m, const std::int32_t* kPos, int kLen, int block, std::vector<KeyBlockRange>& r) {
    constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max(), kMin = std::numeric_limits<std::int32_t>::min();
    r.resize(static_cast<std::size_t>((kLen + block - 1) / block));
    for (std::size_t b = 0; b < r.size(); ++b) {
        KeyBlockRange br{kMax, kMin, false, true, kMax, kMin, false};
        for (int j = static_cast<int>(b) * block; j < std::min(kLen, static_cast<int>(b + 1) * block); ++j) {
            if (m.keyMask && !m.keyMask[j]) {
                br.all = false;
                continue;
            }
            if (j < m.sinks) {
                br.sinkAny = true;
                br.sinkMin = std::min(br.sinkMin, kPos[j]);
                br.sinkMax = std::max(br.sinkMax, kPos[j]);
                continue;
            }
            br.any = true;
            br.minPos = std::min(br.minPos, kPos[j]);
            br.maxPos = std::max(br.maxPos, kPos[j]);
        }
        r[b] = br;
    }
}

// No key of the block is visible to a query at qPos (the block can be skipped).
inline bool blockSkipped(const KeyBlockRange& b, const AttentionMask& m, std::int32_t qPos) {
    if (b.sinkAny && !causallyHidden(m, b.sinkMin, qPos)) return false;  // a sink key may be visible
    if (!b.any) return true;
    if (causallyHidden(m, b.minPos, qPos) || (m.window > 0 && b.minPos > qPos)) return true;
    if (m.window > 0 && static_cast<std::int64_t>(qPos) - b.maxPos >= m.window) return true;
    if (m.chunk > 0 && (b.maxPos < chunkStart(m, qPos) || b.minPos >= chunkStart(m, qPos) + m.chunk)) return true;
    return false;
}

// Every key of the block is visible to a query at qPos (its per-key checks can be skipped).
inline bool blockFullyAllowed(const KeyBlockRange& b, const AttentionMask& m, std::int32_t qPos) {
    if (!b.all) return false;
    if (b.sinkAny && causallyHidden(m, b.sinkMax, qPos)) return false;
    if (b.sinkAny && m.chunk > 0 && (b.sinkMin < chunkStart(m, qPos) || b.sinkMax >= chunkStart(m, qPos) + m.chunk)) return false;
    if (!b.any) return true;
    if (causallyHidden(m, b.maxPos, qPos) || (m.window > 0 && b.maxPos > qPos)) return false;
    if (m.window > 0 && static_cast<std::int64_t>(qPos) - b.minPos >= m.window) return false;
    if (m.chunk > 0 && (b.minPos < chunkStart(m, qPos) || b.maxPos >= chunkStart(m, qPos) + m.chunk)) return false;
    return true;
}

}  // namespace posenc
