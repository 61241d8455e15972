#include "attention/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/dot.hpp"

namespace posenc {

namespace {
constexpr int kBlock = 64;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct BlockRange {
    std::int32_t minPos, maxPos;
    bool any;  // any key in the block passes keyMask
    bool all;  // every key in the block passes keyMask
};

// Per key block: the position range of its unmasked keys, so whole blocks can be skipped.
std::vector<BlockRange> blockRanges(const AttentionInputs& in) {
    const int kLen = in.dims.kLen;
    std::vector<BlockRange> r((kLen + kBlock - 1) / kBlock);
    for (std::size_t b = 0; b < r.size(); ++b) {
        BlockRange br{std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min(), false, true};
        for (int j = static_cast<int>(b) * kBlock; j < std::min(kLen, static_cast<int>(b + 1) * kBlock); ++j) {
            if (in.mask.keyMask && !in.mask.keyMask[j]) {
                br.all = false;
                continue;
            }
            br.any = true;
            br.minPos = std::min(br.minPos, in.kPos[j]);
            br.maxPos = std::max(br.maxPos, in.kPos[j]);
        }
        r[b] = br;
    }
    return r;
}

bool blockSkipped(const BlockRange& b, const AttentionMask& m, std::int32_t qPos) {
    if (!b.any) return true;
    if ((m.causal || m.window > 0) && b.minPos > qPos) return true;
    if (m.window > 0 && static_cast<std::int64_t>(qPos) - b.maxPos >= m.window) return true;
    return false;
}

// No key of the block is masked for this query (its per-key checks can be skipped).
bool blockFullyAllowed(const BlockRange& b, const AttentionMask& m, std::int32_t qPos) {
    if (!b.all) return false;
    if ((m.causal || m.window > 0) && b.maxPos > qPos) return false;
    if (m.window > 0 && static_cast<std::int64_t>(qPos) - b.minPos >= m.window) return false;
    return true;
}

// K of one kv head transposed to [headDim, ld], zero-padded to whole blocks: block scores then
// vectorise across keys (see kernels::blockScoresSimd).
void transposeKeys(const float* K, int kLen, std::size_t hd, std::size_t ld, std::vector<float>& Kt) {
    Kt.assign(hd * ld, 0.0f);
    for (int j = 0; j < kLen; ++j)
        for (std::size_t c = 0; c < hd; ++c) Kt[c * ld + j] = K[j * hd + c];
}

}  // namespace

void runAttention(const AttentionInputs& in, ScoreTerm& term, const AttentionOutputs& out) {
    const AttentionDims& d = in.dims;
    const std::size_t hd = static_cast<std::size_t>(d.headDim);
    const std::size_t ld = (static_cast<std::size_t>(d.kLen) + kBlock - 1) / kBlock * kBlock;
    const int group = d.heads / d.kvHeads;  // query head h reads kv head h / group (repeat_kv)
    const auto blocks = blockRanges(in);
    const bool materialize = out.weights != nullptr || out.scores != nullptr;
    const int valueRows = term.valueRows();
    const float* valueTable = term.valueTable();

    std::vector<float> s(kBlock), acc(hd), wsum(static_cast<std::size_t>(valueRows)), Kt;
    std::vector<float> row(materialize ? ld : 0);
    int transposedHead = -1;
    // Transposing K pays off only when several query rows read it (prefill); a decode step (one
    // query per head) takes direct dot products over the keys as they are stored.
    const bool transpose = static_cast<long>(d.qLen) * group >= 4;

    for (int h = 0; h < d.heads; ++h) {
        const int kvh = h / group;
        const float* K = in.k + static_cast<std::size_t>(kvh) * d.kLen * hd;
        const float* V = in.v + static_cast<std::size_t>(kvh) * d.kLen * hd;
        if (transpose && kvh != transposedHead) {
            transposeKeys(K, d.kLen, hd, ld, Kt);
            transposedHead = kvh;
        }
        term.beginHead(h, K, in.kPos);
        for (int i = 0; i < d.qLen; ++i) {
            const std::int32_t qPos = in.qPos[i];
            const float* qc = term.beginQuery(h, qPos, in.q + (static_cast<std::size_t>(h) * d.qLen + i) * hd);
            float m = kNegInf, l = 0;
            std::fill(acc.begin(), acc.end(), 0.0f);
            std::fill(wsum.begin(), wsum.end(), 0.0f);

            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const int j0 = static_cast<int>(b) * kBlock, j1 = std::min(d.kLen, j0 + kBlock), n = j1 - j0;
                float* sb = materialize ? row.data() + j0 : s.data();
                if (blockSkipped(blocks[b], in.mask, qPos)) {
                    if (materialize) std::fill(sb, sb + n, kNegInf);
                    continue;
                }
                if (transpose) kernels::blockScoresSimd(qc, Kt.data(), ld, static_cast<std::size_t>(j0), static_cast<std::size_t>(n), hd, sb);
                else for (int j = j0; j < j1; ++j) sb[j - j0] = kernels::dotSimd(qc, K + j * hd, hd);
                if (term.hasContent()) term.addContent(qPos, j0, j1, in.kPos, sb);
                for (int t = 0; t < n; ++t) sb[t] *= in.scale;
                if (term.hasBias()) term.addBias(h, qPos, j0, j1, in.kPos, sb);
                const bool whole = blockFullyAllowed(blocks[b], in.mask, qPos);
                float blockMax = kNegInf;
                for (int j = j0; j < j1; ++j) {
                    if (!whole && !keyAllowed(in.mask, qPos, in.kPos[j], j)) sb[j - j0] = kNegInf;
                    blockMax = std::max(blockMax, sb[j - j0]);
                }
                if (materialize || blockMax == kNegInf) continue;
                // online softmax: rescale what was accumulated to the new running max
                const float mNew = std::max(m, blockMax);
                const float c = std::exp(m - mNew);  // exp(-inf) = 0 on the first block
                l *= c;
                kernels::scaleSimd(c, acc.data(), hd);
                for (float& w : wsum) w *= c;
                l += kernels::expShiftSimd(sb, static_cast<std::size_t>(n), mNew);  // masked: exp(-inf) = 0
                kernels::accumulateRowsSimd(sb, static_cast<std::size_t>(n), V + j0 * hd, hd, acc.data());
                if (valueRows)
                    for (int j = j0; j < j1; ++j) wsum[term.valueIndex(qPos, in.kPos[j])] += sb[j - j0];
                m = mNew;
            }

            float* o = out.out + (static_cast<std::size_t>(h) * d.qLen + i) * hd;
            const std::size_t rowOffset = (static_cast<std::size_t>(h) * d.qLen + i) * d.kLen;
            if (materialize) {  // softmax over the stored row, then out = sum_j w_j (v_j + aV)
                if (out.scores) std::copy(row.begin(), row.begin() + d.kLen, out.scores + rowOffset);
                m = *std::max_element(row.begin(), row.begin() + d.kLen);
                if (m != kNegInf) l = kernels::expShiftSimd(row.data(), static_cast<std::size_t>(d.kLen), m);
                else std::fill(row.begin(), row.end(), 0.0f);
                kernels::accumulateRowsSimd(row.data(), static_cast<std::size_t>(d.kLen), V, hd, acc.data());
                if (valueRows)
                    for (int j = 0; j < d.kLen; ++j) wsum[term.valueIndex(qPos, in.kPos[j])] += row[j];
                if (out.weights) {
                    const float inv = l > 0 ? 1.0f / l : 0.0f;
                    for (int j = 0; j < d.kLen; ++j) out.weights[rowOffset + j] = row[j] * inv;
                }
            }
            if (l == 0) {  // every key masked: zeros, never NaN
                std::fill(o, o + hd, 0.0f);
                continue;
            }
            const float inv = 1.0f / l;
            for (std::size_t t = 0; t < hd; ++t) o[t] = acc[t] * inv;
            for (int r = 0; r < valueRows; ++r)
                if (wsum[r] != 0.0f) kernels::axpySimd(wsum[r] * inv, valueTable + static_cast<std::size_t>(r) * hd, o, hd);
        }
    }
}

}  // namespace posenc
