#include "posenc/scores/t5.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"
#include "scores/distance_row.hpp"

namespace posenc {

POSENC_COLD void validate(const T5BucketOptions& o) {
    requirePositive(o.numBuckets, "numBuckets");
    requirePositive(o.maxDistance, "maxDistance");
    const int n = o.bidirectional ? o.numBuckets / 2 : o.numBuckets;
    if (n < 2) fail("numBuckets", "must leave at least 2 buckets per direction (got " + std::to_string(o.numBuckets) + ")");
    if (o.maxDistance <= n / 2)
        fail("maxDistance", "must exceed the exact range numBuckets'/2 = " + std::to_string(n / 2) + " (got " +
                                std::to_string(o.maxDistance) + ")");
}

int t5Bucket(std::int64_t rel, const T5BucketOptions& o) {
    int n = o.numBuckets, bucket = 0;
    std::int64_t r;
    if (o.bidirectional) {
        n /= 2;
        if (rel > 0) bucket += n;
        r = rel < 0 ? -rel : rel;
    } else {
        r = rel < 0 ? -rel : 0;  // future keys (rel > 0) all land in bucket 0
    }
    const int maxExact = n / 2;
    if (r < maxExact) return bucket + static_cast<int>(r);
    // HF computes this in float32: log(r / maxExact) / log(maxDistance / maxExact) * (n - maxExact), truncated.
    const float ratio = static_cast<float>(r) / static_cast<float>(maxExact);
    const float logRange = static_cast<float>(std::log(static_cast<double>(o.maxDistance) / maxExact));
    const float large = std::log(ratio) / logRange * static_cast<float>(n - maxExact);
    const std::int64_t v = maxExact + static_cast<std::int64_t>(large);
    return bucket + static_cast<int>(std::min<std::int64_t>(v, n - 1));
}

POSENC_COLD T5Term::T5Term(const T5Encoding& e, int heads, std::int64_t callDistance) : table_(e.table.data), o_(e.buckets) {
    validate(o_);
    if (e.heads != heads) fail("encoding.heads", "(" + std::to_string(e.heads) + ") must equal heads (" + std::to_string(heads) + ")");
    const std::size_t want = elementCount({o_.numBuckets, heads}, "encoding.numBuckets");
    if (e.table.size != want)
        fail("encoding.table", "must have numBuckets*heads = " + std::to_string(want) + " elements (got " + std::to_string(e.table.size) + ")");
    requireFiniteValues(e.table.data, want, "encoding.table");
    // Tables cover |key - query| up to maxDistance (buckets saturate beyond) or the call's own largest
    // distance, whichever is smaller: their cost follows the call, not the configuration.
    range_ = static_cast<int>(std::min<std::int64_t>(o_.maxDistance, std::max<std::int64_t>(callDistance, 0)));
    lookup_.resize(2 * static_cast<std::size_t>(range_) + 1);
    for (int r = -range_; r <= range_; ++r) lookup_[r + range_] = t5Bucket(r, o_);
    // Per head, the bias of every relative position in [-range, range]: a block then costs one clamp and
    // one load per key.
    const std::size_t span = lookup_.size();
    biasByDistance_.resize(span * heads);
    for (int h = 0; h < heads; ++h)
        for (std::size_t r = 0; r < span; ++r) biasByDistance_[h * span + r] = table_[static_cast<std::size_t>(lookup_[r]) * heads + h];
}

POSENC_COLD T5Term::T5Term(const T5Encoding& e, int heads, const CallDistances& call) : T5Term(e, heads, call.largest) {
    keysIncrease_ = call.keysIncrease;
}

int T5Term::bucket(std::int64_t rel) const {
    if (rel < -range_ || rel > range_) return t5Bucket(rel, o_);
    return lookup_[static_cast<std::size_t>(rel + range_)];
}

void T5Term::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const std::int64_t md = range_;  // every distance of the call is within it
    const float* bias = biasByDistance_.data() + static_cast<std::size_t>(h) * (2 * md + 1) + md;
    if (detail::addConsecutiveDistances(bias, md, true, keysIncrease_, qPos, j0, j1, kPos, s)) return;
    for (int j = j0; j < j1; ++j) s[j - j0] += bias[std::clamp<std::int64_t>(static_cast<std::int64_t>(kPos[j]) - qPos, -md, md)];
}

}  // namespace posenc
