// Distance-only biases (T5, ALiBi) over a block of consecutive keys: one run of a table by distance.
// Not installed (the library's own code only).
#pragma once
#include <cstdint>

#include "kernels/kernel_set.hpp"

namespace posenc::detail {

// s[t] += row[kPos[j0 + t] - qPos] for t < j1 - j0 (`row` points at distance 0 of a table covering
// [-range, range]), when the call's keys strictly increase and this block's are consecutive positions
// whose distances all lie in the table: one vector add (axpy by 1, the same float additions as the
// per-key loop). Returns false, having done nothing, otherwise.
inline bool addConsecutiveDistances(const float* row, std::int64_t range, bool keysIncrease, std::int32_t qPos, int j0, int j1,
                                    const std::int32_t* kPos, float* s) {
    if (!keysIncrease || j1 <= j0) return false;
    const std::int64_t first = static_cast<std::int64_t>(kPos[j0]) - qPos, last = static_cast<std::int64_t>(kPos[j1 - 1]) - qPos;
    if (last - first != j1 - 1 - j0 || first < -range || last > range) return false;  // increasing: first and last apart by count - 1 = consecutive
    kernels::active().axpy(1.0f, row + first, s, static_cast<std::size_t>(j1 - j0));
    return true;
}

}  // namespace posenc::detail
