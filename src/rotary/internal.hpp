// RoPE entry points for the library's own code (not installed): rotated copies made on the pool.
#pragma once
#include <cstddef>
#include <cstdint>

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

// Runs every copy in one pass on the pool, each token chunk of each copy a task, with the attention
// scale of f applied; the same chunks (and so the same bits) as applyRope for any thread count.
void ropeCopies(const RopeCopy* copies, std::size_t count, int headDim, const RopeFrequencies& f, RopeLayout layout);

}  // namespace posenc::detail
