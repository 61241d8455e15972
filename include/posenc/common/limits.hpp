// The largest sizes posenc accepts. Far past every published model (head dims 32..576, at most a few
// hundred heads, d_model up to tens of thousands), yet small enough that a mistaken size (headDim 2^30)
// is refused at once with a message naming the field and the limit, instead of running for seconds.
// The JS binding's option checks carry the same limits (src/registry.cpp).
#pragma once
#include <string_view>

namespace posenc::limits {
constexpr int kMaxHeadDim = 1 << 16;  // channels per head (headDim, and valueDim where values have their own)
constexpr int kMaxHeads = 1 << 16;    // heads per call (heads, kvHeads, numHeads)
constexpr int kMaxDim = 1 << 20;      // width of an additive encoding's rows (dim)

// The limit on an option of that name, or 0 when its size is bounded only by memory.
constexpr double forField(std::string_view name) {
    if (name == "headDim" || name == "valueDim") return kMaxHeadDim;
    if (name == "heads" || name == "kvHeads" || name == "numHeads") return kMaxHeads;
    if (name == "dim") return kMaxDim;
    return 0;
}
}  // namespace posenc::limits
