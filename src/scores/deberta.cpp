#include "posenc/scores/deberta.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "common/cold.hpp"

namespace posenc {

namespace {
// The keys as messages name them: "encoding.bucketSize" in an encoding, "bucketSize" in debertaBucket's options.
POSENC_COLD void validateBuckets(const DebertaBucketOptions& o, const char* bucketSize, const char* maxPosition) {
    requireNonNegative(o.bucketSize, bucketSize);
    if (o.bucketSize > 0) {
        if (o.bucketSize < 4) fail(bucketSize, "must be 0 (no bucketing) or >= 4 (got " + std::to_string(o.bucketSize) + ")");
        if (o.maxPosition <= o.bucketSize / 2 + 1)
            fail(maxPosition, "must exceed bucketSize/2 + 1 (got " + std::to_string(o.maxPosition) + ")");
    } else {
        requirePositive(o.maxPosition, maxPosition);
    }
}
}  // namespace

POSENC_COLD void validate(const DebertaBucketOptions& o) { validateBuckets(o, "bucketSize", "maxPosition"); }

std::int64_t debertaBucket(std::int64_t rel, const DebertaBucketOptions& o) {
    if (o.bucketSize <= 0) return rel;
    if (o.convention == DebertaConvention::microsoft)
        rel = std::clamp<std::int64_t>(rel, -(o.maxPosition - 1), o.maxPosition - 1);
    const std::int64_t mid = o.bucketSize / 2;
    if (rel < mid && rel > -mid) return rel;
    const std::int64_t absPos = rel < 0 ? -rel : rel;
    if (absPos <= mid) return rel;
    // float32 as both references compute it: ceil(log(|r|/mid) / log((maxPos-1)/mid) * (mid-1)) + mid
    const float ratio = static_cast<float>(absPos) / static_cast<float>(mid);
    const float denom = std::log(static_cast<float>(o.maxPosition - 1) / static_cast<float>(mid));
    const float logPos = std::ceil(std::log(ratio) / denom * static_cast<float>(mid - 1)) + static_cast<float>(mid);
    const std::int64_t b = static_cast<std::int64_t>(logPos);
    return rel < 0 ? -b : b;
}

POSENC_COLD DebertaTerm::DebertaTerm(const DebertaEncoding& e, int heads, int headDim, int kLen, std::int64_t callDistance)
    : e_(e), headDim_(headDim), kLen_(kLen) {
    validateBuckets(e.buckets, "encoding.bucketSize", "encoding.maxPosition");
    requirePositive(e.span, "encoding.span");
    if (!e.c2p && !e.p2c) fail("encoding.terms", "must name at least one of 'c2p', 'p2c'");
    if (e.c2p && e.posKey.empty()) fail("encoding.posKey", "is required by term 'c2p'");
    if (e.p2c && e.posQuery.empty()) fail("encoding.posQuery", "is required by term 'p2c'");
    const std::size_t want = elementCount({heads, 2 * static_cast<std::int64_t>(e.span), headDim}, "encoding.span");
    if (e.c2p && e.posKey.size != want)
        fail("encoding.posKey", "must be [heads, 2*span, headDim] = " + std::to_string(want) + " elements (got " + std::to_string(e.posKey.size) + ")");
    if (e.p2c && e.posQuery.size != want)
        fail("encoding.posQuery", "must be [heads, 2*span, headDim] = " + std::to_string(want) + " elements (got " + std::to_string(e.posQuery.size) + ")");
    if (e.c2p) requireFiniteValues(e.posKey.data, want, "encoding.posKey");
    if (e.p2c) requireFiniteValues(e.posQuery.data, want, "encoding.posQuery");
    qp_.assign(2 * static_cast<std::size_t>(e.span) * kQueryTile, 0.0f);
    if (e.p2c) kp_.assign(static_cast<std::size_t>(kLen) * 2 * e.span, 0.0f);
    // Bucketing costs a log: look small |delta| up, compute larger ones directly.
    // (no further than the call's own largest distance: the table's cost follows the call)
    lookupRange_ = static_cast<int>(std::min<std::int64_t>(std::max(e.buckets.maxPosition, 2 * e.span) + 1, std::max<std::int64_t>(callDistance, 0) + 1));
    lookup_.resize(2 * static_cast<std::size_t>(lookupRange_) + 1);
    for (int d = -lookupRange_; d <= lookupRange_; ++d) {
        const std::int64_t b = debertaBucket(d, e.buckets) + e.span;
        lookup_[d + lookupRange_] = static_cast<int>(std::clamp<std::int64_t>(b, 0, 2 * e.span - 1));
    }
}

int DebertaTerm::index(std::int64_t delta) const {
    if (delta >= -lookupRange_ && delta <= lookupRange_) return lookup_[static_cast<std::size_t>(delta + lookupRange_)];
    return static_cast<int>(std::clamp<std::int64_t>(debertaBucket(delta, e_.buckets) + e_.span, 0, 2 * e_.span - 1));
}

void DebertaTerm::beginHead(int h, const float* k, const std::int32_t*) {
    if (!e_.p2c) return;
    const std::size_t rows = 2 * static_cast<std::size_t>(e_.span);
    const float* pq = e_.posQuery.data + static_cast<std::size_t>(h) * rows * headDim_;
    for (int j = 0; j < kLen_; ++j)
        for (std::size_t r = 0; r < rows; ++r)
            kp_[j * rows + r] = kernels::active().dot(k + static_cast<std::size_t>(j) * headDim_, pq + r * headDim_, headDim_);
}

const float* DebertaTerm::beginQuery(int slot, int h, std::int32_t, const float* q) {
    if (e_.c2p) {
        const std::size_t rows = 2 * static_cast<std::size_t>(e_.span);
        const float* pk = e_.posKey.data + static_cast<std::size_t>(h) * rows * headDim_;
        float* qp = qp_.data() + slot * rows;
        for (std::size_t r = 0; r < rows; ++r) qp[r] = kernels::active().dot(q, pk + r * headDim_, headDim_);
    }
    return q;
}

void DebertaTerm::addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const std::size_t rows = 2 * static_cast<std::size_t>(e_.span);
    const float* qp = qp_.data() + slot * rows;
    for (int j = j0; j < j1; ++j) {
        const int idx = index(static_cast<std::int64_t>(qPos) - kPos[j]);
        float add = 0;
        if (e_.c2p) add += qp[idx];
        if (e_.p2c) add += kp_[static_cast<std::size_t>(j) * rows + idx];
        s[j - j0] += add;
    }
}

}  // namespace posenc
