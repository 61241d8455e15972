// Distance-only biases (T5, ALiBi) over a block of consecutive keys: one run of a table by distance.
// Not installed (the library's own code only).
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels/kernel_set.hpp"

namespace posenc::detail {

// s[t] += row[kPos[j0 + t] - qPos] for t < j1 - j0 (`row` points at distance 0 of a table covering
// [-range, range]) when the call's keys strictly increase and this block's are consecutive positions:
// the distances inside the table are one vector add (axpy by 1: the same float additions as the
// per-key loop). Distances past the table either take its edge entries (`saturate`: T5's buckets stop
// growing there), added as one constant per side, or (not saturating) send the block back to the
// caller. Returns false, having done nothing, where it does not apply.
inline bool addConsecutiveDistances(const float* row, std::int64_t range, bool saturate, bool keysIncrease, std::int32_t qPos, int j0,
                                    int j1, const std::int32_t* kPos, float* s) {
    if (!keysIncrease || j1 <= j0) return false;
    const std::int64_t n = j1 - j0;
    const std::int64_t first = static_cast<std::int64_t>(kPos[j0]) - qPos, last = static_cast<std::int64_t>(kPos[j1 - 1]) - qPos;
    if (last - first != n - 1) return false;  // increasing: first and last apart by count - 1 = consecutive
    if (!saturate && (first < -range || last > range)) return false;
    // keys [0, below) lie before -range, [below, within) in the table, [within, n) past +range
    const std::int64_t below = std::clamp<std::int64_t>(-range - first, 0, n), within = std::clamp<std::int64_t>(range - first + 1, 0, n);
    for (std::int64_t t = 0; t < below; ++t) s[t] += row[-range];
    if (within > below) kernels::active().axpy(1.0f, row + first + below, s + below, static_cast<std::size_t>(within - below));
    for (std::int64_t t = within; t < n; ++t) s[t] += row[range];
    return true;
}

}  // namespace posenc::detail
