// RoPE entry points for the library's own code (not installed): rotated copies made on the pool.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "posenc/rotary/apply.hpp"

namespace posenc::detail {

// The one application of RoPE to attention's rows: q and k in `attention` and the public applyRope and
// rotateByDelta (each token chunk a task on the pool: rotateAll in apply.cpp), the KV cache's keys when
// appended or moved and its queries when attending. Builds `tables` for `count` tokens at angle
// multipliers m[a * stride + t] (axis a: positions, or deltas) with `scale` (the attention scale; 1 for
// a delta) and `role`, then head by head rotates rows(h) = {src, dst} (token t's row at +t * headDim;
// src == dst: in place) and calls after(h) while those rows are in cache.
template <class Rows, class After>
void rotateHeads(RopeTables& tables, const double* m, std::size_t count, std::size_t stride, double scale, RopeRole role, int heads,
                 std::size_t headDim, Rows rows, After after) {
    tables.build(m, count, scale, role, stride);
    for (int h = 0; h < heads; ++h) {
        const std::pair<const float*, float*> r = rows(h);
        tables.rotateRows(r.second, r.first, count, headDim);
        after(h);
    }
}

// dst = src [heads, tokens, headDim] rotated at `positions` ([axes, tokens], already validated: see
// applyRope); src == dst rotates in place.
struct RopeCopy {
    const float* src;
    float* dst;
    int heads, tokens;
    const std::int32_t* positions;
    RopeRole role;
};

// Work a caller adds to the pass of ropeCopies (so that it needs no pass of its own): `rows(copy, head,
// t0, n)` runs in the task that rotated tokens [t0, t0 + n) of one head of copy `copy` (chunks of
// kRopeChunk tokens), right after, while they are in cache; `extra(task)` for task in [0, extraTasks)
// are further tasks of the same pass (`extraWork` in the pool's units). Both must write only what
// their arguments own (any thread may run them, in any order).
struct RopeCopyHooks {
    std::function<void(std::size_t copy, int head, int t0, int n)> rows;
    std::size_t extraTasks = 0;
    std::function<void(std::size_t task)> extra;
    double extraWork = 0;
};
constexpr int kRopeChunk = 128;  // tokens per task

// Runs every copy in one pass on the pool, each token chunk of each copy a task, with the attention
// scale of f applied; the same chunks (and so the same bits) as applyRope for any thread count.
void ropeCopies(const RopeCopy* copies, std::size_t count, int headDim, const RopeFrequencies& f, RopeLayout layout,
                const RopeCopyHooks* hooks = nullptr);

}  // namespace posenc::detail
