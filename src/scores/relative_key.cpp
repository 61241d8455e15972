#include "posenc/scores/relative_key.hpp"

#include <algorithm>

#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD RelativeKeyTerm::RelativeKeyTerm(const RelativeKeyEncoding& e, int headDim, int kLen, std::int64_t qMin, std::int64_t qMax)
    : e_(e), headDim_(headDim), kLen_(kLen), qMin_(qMin) {
    requirePositive(e.maxPosition, "encoding.maxPosition");
    const std::size_t want = elementCount({2 * static_cast<std::int64_t>(e.maxPosition) - 1, headDim}, "encoding.maxPosition");
    if (e.table.size != want)
        fail("encoding.table", "must be [2*maxPosition-1, headDim] = " + std::to_string(want) + " elements (got " + std::to_string(e.table.size) + ")");
    requireFiniteValues(e.table.data, want, "encoding.table");
    qe_.resize(static_cast<std::size_t>(rows()) * kQueryTile);
    if (e.keyQuery) {
        keyRows_ = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(qMax - qMin + 1, 1), rows()));
        ke_.resize(static_cast<std::size_t>(kLen) * keyRows_);
        keyRow0_.resize(static_cast<std::size_t>(kLen));
    }
}

void RelativeKeyTerm::beginHead(int, const float* k, const std::int32_t* kPos) {
    if (!e_.keyQuery) return;
    const std::size_t width = static_cast<std::size_t>(keyRows_);
    for (int j = 0; j < kLen_; ++j) {
        // the rows qPos - kPos_j + maxPosition - 1 of queries qMin..qMax, kept inside E
        const std::int64_t first = qMin_ - kPos[j] + e_.maxPosition - 1;
        const int row0 = static_cast<int>(std::clamp<std::int64_t>(first, 0, rows() - keyRows_));
        keyRow0_[j] = row0;
        for (std::size_t r = 0; r < width; ++r)
            ke_[j * width + r] = kernels::active().dot(k + static_cast<std::size_t>(j) * headDim_, e_.table.data + (row0 + r) * headDim_, headDim_);
    }
}

const float* RelativeKeyTerm::beginQuery(int slot, int, std::int32_t, const float* q) {
    const std::size_t R = static_cast<std::size_t>(rows());
    float* qe = qe_.data() + slot * R;
    for (std::size_t r = 0; r < R; ++r) qe[r] = kernels::active().dot(q, e_.table.data + r * headDim_, headDim_);
    return q;
}

void RelativeKeyTerm::addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const std::size_t R = static_cast<std::size_t>(rows());
    const float* qe = qe_.data() + slot * R;
    for (int j = j0; j < j1; ++j) {
        const std::int64_t row = static_cast<std::int64_t>(qPos) - kPos[j] + e_.maxPosition - 1;
        if (row < 0 || row >= static_cast<std::int64_t>(R)) continue;  // masked pairs only (checked up front)
        s[j - j0] += qe[static_cast<std::size_t>(row)] +
                     (e_.keyQuery ? ke_[static_cast<std::size_t>(j) * keyRows_ + static_cast<std::size_t>(row - keyRow0_[j])] : 0.0f);
    }
}

}  // namespace posenc
