#include "posenc/scores/forgetting.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/cold.hpp"
#include "posenc/attention/engine.hpp"
#include "posenc/common/errors.hpp"

namespace posenc {

POSENC_COLD void requireLogForget(const float* x, std::size_t n, const char* field) {
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]) || x[i] > 0)
            fail(std::string(field) + "[" + std::to_string(i) + "]",
                 "must be a log forget gate: finite and <= 0 (log f, f in (0, 1]) (got " + show(x[i]) + ")");
}

POSENC_COLD ForgettingTerm::ForgettingTerm(const ForgettingEncoding& e, const AttentionInputs& in) {
    const AttentionDims& d = in.dims;
    if (!in.mask.causal)
        fail("causal", "must be true with encoding 'forgetting': forgetting attention is causal (a key after the query would get a growing bias)");
    const std::size_t heads = static_cast<std::size_t>(d.heads), kLen = static_cast<std::size_t>(d.kLen);
    if (!e.logForget.empty() || !in.forgetCumulative) {
        if (in.forgetCumulative)
            fail("encoding.logForget", "is not given to a KV cache's attend: the cache holds the gates appended with each token");
        const std::size_t n = elementCount({d.heads, d.kLen}, "encoding.logForget");
        if (e.logForget.empty())
            fail("encoding.logForget", "is required: [heads, kLen] = " + std::to_string(n) + " log forget gates (a KV cache holds them only when created with forgetting)");
        if (e.logForget.size != n)
            fail("encoding.logForget", "must be [heads, kLen] = " + std::to_string(n) + " values (got " + std::to_string(e.logForget.size) + ")");
        requireLogForget(e.logForget.data, n, "encoding.logForget");
        // G_j = sum of the gates of keys 0..j in double (a masked key's gate counts 0: the reference's seq_start)
        own_.resize(n);
        for (std::size_t h = 0; h < heads; ++h) {
            double g = 0;
            for (std::size_t j = 0; j < kLen; ++j) {
                if (!in.mask.keyMask || in.mask.keyMask[j]) g += static_cast<double>(e.logForget[h * kLen + j]);
                own_[h * kLen + j] = g;
            }
        }
        g_ = own_.data();
        stride_ = kLen;
    } else {
        g_ = in.forgetCumulative;
        stride_ = in.kvStride ? in.kvStride : kLen;
    }
    // Each distinct query position's anchor, min { G_j : key j admitted by the key mask, kPos_j <= qPos }:
    // one pass over the keys, each filed under the first query position at or after it, then a running min.
    qPositions_.assign(in.qPos, in.qPos + d.qLen);
    std::sort(qPositions_.begin(), qPositions_.end());
    qPositions_.erase(std::unique(qPositions_.begin(), qPositions_.end()), qPositions_.end());
    const std::size_t nq = qPositions_.size();
    anchors_.assign(heads * nq, std::numeric_limits<double>::infinity());
    for (std::size_t j = 0; j < kLen; ++j) {
        if (in.mask.keyMask && !in.mask.keyMask[j]) continue;
        const std::size_t r = static_cast<std::size_t>(std::lower_bound(qPositions_.begin(), qPositions_.end(), in.kPos[j]) - qPositions_.begin());
        if (r == nq) continue;  // after every query
        for (std::size_t h = 0; h < heads; ++h) anchors_[h * nq + r] = std::min(anchors_[h * nq + r], g_[h * stride_ + j]);
    }
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t r = 0; r < nq; ++r) {
            double& a = anchors_[h * nq + r];
            if (r > 0) a = std::min(a, anchors_[h * nq + r - 1]);
        }
    for (double& a : anchors_)
        if (std::isinf(a)) a = 0;  // no key at or before the query: it sees none (causal), any value does
}

double ForgettingTerm::anchor(int h, std::int32_t qPos) const {
    const std::size_t nq = qPositions_.size();
    const std::size_t r = static_cast<std::size_t>(std::lower_bound(qPositions_.begin(), qPositions_.end(), qPos) - qPositions_.begin());
    return anchors_[static_cast<std::size_t>(h) * nq + r];
}

void ForgettingTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t*, float* s) {
    // s[j - j0] += float(G_i - G_j): the difference in double, rounded once (|G| may pass 1e6 while the
    // differences that matter are small)
    const double a = anchor(h, qPos);
    const double* g = g_ + static_cast<std::size_t>(h) * stride_;
    for (int j = j0; j < j1; ++j) s[j - j0] += static_cast<float>(a - g[j]);
}

}  // namespace posenc
