#include "posenc/scores/forgetting.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/cold.hpp"
#include "kernels/kv_format.hpp"  // the key block size only
#include "posenc/attention/engine.hpp"
#include "posenc/common/errors.hpp"

namespace posenc {

namespace {
constexpr std::size_t kBlock = kernels::kKeyBlockKeys;  // the engine's key block: addBias gets keys of one block
}  // namespace

POSENC_COLD void requireLogForget(const float* x, std::size_t n, const char* field) {
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]) || x[i] > 0)
            fail(std::string(field) + "[" + std::to_string(i) + "]",
                 "must be a log forget gate: finite and <= 0 (log f, f in (0, 1]) (got " + show(x[i]) + ")");
}

POSENC_COLD ForgettingTerm::ForgettingTerm(const ForgettingEncoding& e, const AttentionInputs& in)
    : t_(in.forgetTables ? *in.forgetTables : ownTables_) {
    std::vector<std::int32_t>& qPositions_ = t_.qPositions;
    std::vector<double>& anchors_ = t_.anchors;
    std::vector<double>& blockMin_ = t_.blockMin;
    std::vector<float>& fromMin_ = t_.fromMin;
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
    qPositions_.assign(in.qPos, in.qPos + d.qLen);  // (assign: no allocation within the capacity reserved)
    std::sort(qPositions_.begin(), qPositions_.end());
    qPositions_.erase(std::unique(qPositions_.begin(), qPositions_.end()), qPositions_.end());
    const std::size_t nq = qPositions_.size();
    consecutive_ = static_cast<std::int64_t>(qPositions_.back()) - qPositions_.front() + 1 == static_cast<std::int64_t>(nq);
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
    // Per 64-key block (the engine's blocks): its smallest admitted G, and each key's float(G_min - G_j) <= 0
    // (a cache's slots are not in sequence order, so not the last key's G). A query whose anchor is at or
    // below a block's minimum (every block before its own) adds float(a - G_min) + that: two terms <= 0,
    // no cancellation, every float operation vectorisable; other blocks take the difference in double.
    const std::size_t nb = (kLen + kBlock - 1) / kBlock;
    blockMin_.assign(heads * nb, -std::numeric_limits<double>::infinity());
    fromMin_.assign(heads * kLen, 0.0f);
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t b = 0; b < nb; ++b) {
            const std::size_t j0 = b * kBlock, j1 = std::min(kLen, j0 + kBlock);
            double m = std::numeric_limits<double>::infinity();
            for (std::size_t j = j0; j < j1; ++j)
                if (!in.mask.keyMask || in.mask.keyMask[j]) m = std::min(m, g_[h * stride_ + j]);
            if (std::isinf(m)) continue;  // no admitted key: the double path (every score is masked anyway)
            blockMin_[h * nb + b] = m;
            for (std::size_t j = j0; j < j1; ++j)
                if (!in.mask.keyMask || in.mask.keyMask[j]) fromMin_[h * kLen + j] = static_cast<float>(m - g_[h * stride_ + j]);
        }
    blocks_ = nb;
    kLen_ = kLen;
}

double ForgettingTerm::anchor(int h, std::int32_t qPos) const {
    const std::vector<std::int32_t>& qPositions_ = t_.qPositions;
    const std::size_t nq = qPositions_.size();
    // consecutive query positions (a prefill, its chunks, a decode step): the row by subtraction
    const std::size_t r = consecutive_ ? static_cast<std::size_t>(static_cast<std::int64_t>(qPos) - qPositions_.front())
                                       : static_cast<std::size_t>(std::lower_bound(qPositions_.begin(), qPositions_.end(), qPos) - qPositions_.begin());
    return t_.anchors[static_cast<std::size_t>(h) * nq + r];
}

void ForgettingTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t*, float* s) {
    // s[j - j0] += float(G_i - G_j): the difference in double, rounded once (|G| may pass 1e6 while the
    // differences that matter are small)
    const double a = anchor(h, qPos);
    const std::size_t b = static_cast<std::size_t>(j0) / kBlock;
    const double blockMin = t_.blockMin[static_cast<std::size_t>(h) * blocks_ + b];
    if (j1 > j0 && static_cast<std::size_t>(j1 - 1) / kBlock == b && a <= blockMin) {
        const float r = static_cast<float>(a - blockMin);
        const float* c = t_.fromMin.data() + static_cast<std::size_t>(h) * kLen_;
        for (int j = j0; j < j1; ++j) s[j - j0] += r + c[j];
        return;
    }
    const double* g = g_ + static_cast<std::size_t>(h) * stride_;
    for (int j = j0; j < j1; ++j) s[j - j0] += static_cast<float>(a - g[j]);
}

}  // namespace posenc
