#include "posenc/scores/relative_key.hpp"

#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD RelativeKeyTerm::RelativeKeyTerm(const RelativeKeyEncoding& e, int headDim, int kLen) : e_(e), headDim_(headDim), kLen_(kLen) {
    requirePositive(e.maxPosition, "encoding.maxPosition");
    const std::size_t want = elementCount({2 * static_cast<std::int64_t>(e.maxPosition) - 1, headDim}, "encoding.maxPosition");
    if (e.table.size != want)
        fail("encoding.table", "must be [2*maxPosition-1, headDim] = " + std::to_string(want) + " elements (got " + std::to_string(e.table.size) + ")");
    requireFiniteValues(e.table.data, want, "encoding.table");
    qe_.resize(static_cast<std::size_t>(rows()) * kQueryTile);
    if (e.keyQuery) ke_.resize(static_cast<std::size_t>(kLen) * rows());
}

void RelativeKeyTerm::beginHead(int, const float* k, const std::int32_t*) {
    if (!e_.keyQuery) return;
    const std::size_t R = static_cast<std::size_t>(rows());
    for (int j = 0; j < kLen_; ++j)
        for (std::size_t r = 0; r < R; ++r)
            ke_[j * R + r] = kernels::active().dot(k + static_cast<std::size_t>(j) * headDim_, e_.table.data + r * headDim_, headDim_);
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
        s[j - j0] += qe[static_cast<std::size_t>(row)] + (e_.keyQuery ? ke_[j * R + static_cast<std::size_t>(row)] : 0.0f);
    }
}

}  // namespace posenc
