#include "posenc/scores/shaw.hpp"

#include <algorithm>

#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD ShawTerm::ShawTerm(const ShawEncoding& e, int headDim, int valueDim) : e_(e), headDim_(headDim) {
    if (e.clip < 0) fail("encoding.clip", "must be >= 0 (got " + std::to_string(e.clip) + ")");
    const std::size_t rows = elementCount({2 * static_cast<std::int64_t>(e.clip) + 1}, "encoding.clip");
    const std::size_t want = elementCount({2 * static_cast<std::int64_t>(e.clip) + 1, headDim}, "encoding.keyTable");
    if (e.keyTable.size != want)
        fail("encoding.keyTable", "must be [2*clip+1, headDim] = " + std::to_string(want) + " elements (got " + std::to_string(e.keyTable.size) + ")");
    const bool ownValueDim = valueDim != 0 && valueDim != headDim;
    const std::size_t wantValues = elementCount({2 * static_cast<std::int64_t>(e.clip) + 1, ownValueDim ? valueDim : headDim}, "encoding.valueTable");
    if (!e.valueTable.empty() && e.valueTable.size != wantValues)
        fail("encoding.valueTable", std::string("must be [2*clip+1, ") + (ownValueDim ? "valueDim" : "headDim") + "] = " + std::to_string(wantValues) +
                                        " elements (got " + std::to_string(e.valueTable.size) + ")");
    requireFiniteValues(e.keyTable.data, want, "encoding.keyTable");
    if (!e.valueTable.empty()) requireFiniteValues(e.valueTable.data, wantValues, "encoding.valueTable");
    qa_.resize(rows * kQueryTile);
}

int ShawTerm::valueIndex(std::int32_t qPos, std::int32_t kPos) const {
    const std::int64_t d = static_cast<std::int64_t>(kPos) - qPos;
    return static_cast<int>(std::clamp<std::int64_t>(d, -e_.clip, e_.clip) + e_.clip);
}

const float* ShawTerm::beginQuery(int slot, int, std::int32_t, const float* q) {
    const std::size_t rows = 2 * static_cast<std::size_t>(e_.clip) + 1;
    float* qa = qa_.data() + slot * rows;
    for (std::size_t r = 0; r < rows; ++r) qa[r] = kernels::active().dot(q, e_.keyTable.data + r * headDim_, headDim_);
    return q;
}

void ShawTerm::addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const float* qa = qa_.data() + slot * (2 * static_cast<std::size_t>(e_.clip) + 1);
    for (int j = j0; j < j1; ++j) s[j - j0] += qa[valueIndex(qPos, kPos[j])];
}

}  // namespace posenc
