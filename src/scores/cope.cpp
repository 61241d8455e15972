#include "posenc/scores/cope.hpp"

#include <cmath>
#include <string>

#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD CopeTerm::CopeTerm(const CopeEncoding& e, const AttentionInputs& in)
    : npos_(e.npos), headDim_(in.dims.headDim), kLen_(in.dims.kLen), e_(e.embeddings.data), mask_(in.mask), kPos_(in.kPos), scale_(in.scale) {
    requirePositive(e.npos, "encoding.npos");
    const std::size_t n = elementCount({e.npos, in.dims.headDim}, "encoding.embeddings");
    if (e.embeddings.size != n)
        fail("encoding.embeddings", "must have npos x headDim = " + std::to_string(n) + " values [npos, headDim] (got " + std::to_string(e.embeddings.size) + ")");
    requireFiniteValues(e.embeddings.data, n, "encoding.embeddings");
    content_.resize(static_cast<std::size_t>(kQueryTile) * kLen_);
    qe_.resize(static_cast<std::size_t>(npos_));
}

void CopeTerm::beginHead(int, const float* k, const std::int32_t*) { k_ = k; }

const float* CopeTerm::beginQuery(int slot, int, std::int32_t qPos, const float* q) {
    const std::size_t hd = static_cast<std::size_t>(headDim_);
    float* row = content_.data() + static_cast<std::size_t>(slot) * kLen_;
    for (int p = 0; p < npos_; ++p) qe_[p] = kernels::active().dot(q, e_ + p * hd, hd);
    // reverse cumulative sum of the gates: p_ij = sum_{t >= j} g_it (masked keys count 0)
    double pos = 0;
    for (int j = kLen_ - 1; j >= 0; --j) {
        if (keyAllowed(mask_, qPos, kPos_[j], j)) {
            const double logit = static_cast<double>(scale_) * kernels::active().dot(q, k_ + j * hd, hd);
            pos += 1.0 / (1.0 + std::exp(-logit));
        }
        const double p = std::min(pos, static_cast<double>(npos_ - 1));
        const int lo = static_cast<int>(std::floor(p)), hi = static_cast<int>(std::ceil(p));
        const double w = p - lo;
        row[j] = static_cast<float>(qe_[hi] * w + qe_[lo] * (1 - w));
    }
    return q;
}

void CopeTerm::addContent(int slot, std::int32_t, int j0, int j1, const std::int32_t*, float* s) {
    const float* row = content_.data() + static_cast<std::size_t>(slot) * kLen_;
    for (int j = j0; j < j1; ++j) s[j - j0] += row[j];
}

}  // namespace posenc
