// The positions of a call, resolved in one place for `attention` (attention.cpp) and the KV cache
// (kv_cache.cpp): the defaults, the checks of given positions, and multi-axis RoPE's two kinds of
// position (M-RoPE, 2-D axial) — the rotation's, one row per axis ([axes, len]), and the sequence
// index ([len], `maskPositions`) that masks and score terms use. With one axis the positions are both.
// Not installed (the library's own code only).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "posenc/attention/attention.hpp"
#include "posenc/common/view.hpp"

namespace posenc {

namespace detail {

// ---- Defaults

// Keys: 0 .. kLen-1.
std::vector<std::int32_t> defaultKeyPositions(int kLen);
// `attention`'s queries: the last qLen of the key positions 0 .. kLen-1; with qLen > kLen, 0 .. qLen-1.
std::vector<std::int32_t> defaultQueryPositions(int qLen, int kLen);
// The KV cache's query i of qLen: the positions just before a row's next one, next - qLen + i, each at
// least 0 (with qLen > next the first queries share position 0, unlike defaultQueryPositions).
inline std::int32_t cacheQueryPosition(std::int64_t next, int qLen, int i) {
    return static_cast<std::int32_t>(std::max<std::int64_t>(next - qLen + i, 0));
}

// ---- Shapes of given positions

// How a call lays its positions out, for the messages: `len` tokens (called lenName: "qLen", "kLen",
// "T") per row, and either `batch` rows (the KV cache: [batch * len], multi-axis [batch, axes, len]) or,
// with batch 0, `attention`'s one sequence ([len], multi-axis [axes, len]).
struct PositionLayout {
    int batch;
    int len;
    const char* lenName;
};

// Throws unless `got` positions fit the layout with `axes` rotation axes.
void requirePositionCount(const char* field, std::size_t got, std::size_t axes, const PositionLayout& layout);
// Throws for maskPositions given without multi-axis RoPE; `positionFields` names what the mask
// positions are then ("qPositions / kPositions").
void requireMaskPositionsAllowed(View<std::int32_t> maskPositions, std::size_t axes, const char* positionFields);

// ---- Multi-axis rotation positions and the KV cache's checks

// Multi-axis RoPE: token t's rotation position on axis a — its entry in the given [axes, len] rows,
// or, none given (null), its sequence index on every axis (text tokens).
inline std::int32_t axisPosition(const std::int32_t* given, std::size_t len, std::size_t a, std::size_t t, std::int32_t sequenceIndex) {
    return given ? given[a * len + t] : sequenceIndex;
}

// The KV cache's checks of one call's positions (append: `positions` [batch * T], multi-axis
// [batch, axes, T]; attend: `qPositions`, the same with qLen) and maskPositions ([batch * len]):
// maskPositions only with several axes, then both counts. Returns the sequence index as given (masks,
// score terms): the positions themselves with one axis, maskPositions with several; empty = the defaults.
View<std::int32_t> checkCachePositions(View<std::int32_t> positions, View<std::int32_t> maskPositions, std::size_t axes,
                                       const PositionLayout& layout, const char* field);

// ---- `attention`'s positions, whole

struct AttentionPositions {
    std::vector<std::int32_t> qRotation, kRotation;  // [axes, qLen], [axes, kLen]
    std::vector<std::int32_t> qSequence, kSequence;  // multi-axis only: [qLen], [kLen]
    bool multiAxis = false;
    // The positions masks and score terms use: the rotation's with one axis, else the sequence index.
    const std::vector<std::int32_t>& q() const { return multiAxis ? qSequence : qRotation; }
    const std::vector<std::int32_t>& k() const { return multiAxis ? kSequence : kRotation; }
};

// Checks and resolves r's qPositions, kPositions and maskPositions for `axes` rotation axes (1 without
// multi-axis RoPE): given ones are checked (count, >= 0), missing ones take the defaults — on every
// axis for the rotation, and maskPositions 0 .. kLen-1 with the queries at the last qLen.
AttentionPositions resolveAttentionPositions(const AttentionRequest& r, std::size_t axes);

}  // namespace detail

}  // namespace posenc
