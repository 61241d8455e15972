// RoPE entry points for the library's own code (not installed): rotated copies made on the pool.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "posenc/rotary/apply.hpp"

namespace posenc::detail {

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
