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

using BlockRange = AttentionWorkspace::BlockRange;

// Per key block: the position range of its unmasked keys, so whole blocks can be skipped.
void blockRanges(const AttentionInputs& in, std::vector<BlockRange>& r) {
    const int kLen = in.dims.kLen;
    r.resize(static_cast<std::size_t>((kLen + kBlock - 1) / kBlock));
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
    Kt.resize(hd * ld);
    std::fill(Kt.begin(), Kt.end(), 0.0f);
    for (int j = 0; j < kLen; ++j)
        for (std::size_t c = 0; c < hd; ++c) Kt[c * ld + j] = K[j * hd + c];
}

}  // namespace

// Online-softmax state of one query row.
struct RowState {
    const float* qc = nullptr;  // content query (from the score term)
    std::int32_t qPos = 0;
    float m = kNegInf, l = 0;
    float* acc = nullptr;   // [headDim]
    float* wsum = nullptr;  // [valueRows]
    float* row = nullptr;   // [ld] stored scores (materialize mode)
};

void runAttention(const AttentionInputs& in, ScoreTerm& term, const AttentionOutputs& out, AttentionWorkspace* workspace) {
    AttentionWorkspace local;
    AttentionWorkspace& ws = workspace ? *workspace : local;
    const AttentionDims& d = in.dims;
    const std::size_t hd = static_cast<std::size_t>(d.headDim);
    const std::size_t ld = (static_cast<std::size_t>(d.kLen) + kBlock - 1) / kBlock * kBlock;
    const int group = d.heads / d.kvHeads;  // query head h reads kv head h / group (repeat_kv)
    blockRanges(in, ws.blocks);
    const auto& blocks = ws.blocks;
    const bool materialize = out.weights != nullptr || out.scores != nullptr;
    const std::size_t valueRows = static_cast<std::size_t>(term.valueRows());
    const float* valueTable = term.valueTable();
    constexpr std::size_t T = kQueryTile;

    // Queries run in tiles of T rows so each key block is read once per tile.
    std::vector<float>& tileScores = ws.tileScores;
    std::vector<float>& acc = ws.acc;
    std::vector<float>& wsum = ws.wsum;
    std::vector<float>& Kt = ws.keysTransposed;
    std::vector<float>& rows = ws.rows;
    tileScores.resize(T * kBlock);
    acc.resize(T * hd);
    wsum.resize(T * valueRows);
    if (materialize) rows.resize(T * ld);
    RowState st[T];
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
        for (int i0 = 0; i0 < d.qLen; i0 += static_cast<int>(T)) {
            const int nq = std::min(static_cast<int>(T), d.qLen - i0);
            const float* qcs[T];
            for (int r = 0; r < static_cast<int>(T); ++r) {
                RowState& s = st[r];
                if (r >= nq) {  // padding rows of the last tile: computed, never used
                    qcs[r] = qcs[0];
                    continue;
                }
                s.qPos = in.qPos[i0 + r];
                s.qc = qcs[r] = term.beginQuery(r, h, s.qPos, in.q + (static_cast<std::size_t>(h) * d.qLen + i0 + r) * hd);
                s.m = kNegInf;
                s.l = 0;
                s.acc = acc.data() + r * hd;
                s.wsum = wsum.data() + r * valueRows;
                s.row = materialize ? rows.data() + r * ld : nullptr;
                std::fill(s.acc, s.acc + hd, 0.0f);
                std::fill(s.wsum, s.wsum + valueRows, 0.0f);
            }

            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const int j0 = static_cast<int>(b) * kBlock, j1 = std::min(d.kLen, j0 + kBlock), n = j1 - j0;
                bool skip[T], any = false;
                for (int r = 0; r < nq; ++r) any |= !(skip[r] = blockSkipped(blocks[b], in.mask, st[r].qPos));
                if (!any) {
                    if (materialize)
                        for (int r = 0; r < nq; ++r) std::fill(st[r].row + j0, st[r].row + j1, kNegInf);
                    continue;
                }
                if (transpose) {
                    kernels::tileScoresSimd(qcs, Kt.data(), ld, static_cast<std::size_t>(j0), static_cast<std::size_t>(n), hd, tileScores.data(), kBlock);
                } else {
                    for (int r = 0; r < nq; ++r)
                        for (int j = j0; j < j1; ++j) tileScores[r * kBlock + (j - j0)] = kernels::dotSimd(qcs[r], K + j * hd, hd);
                }
                for (int r = 0; r < nq; ++r) {
                    RowState& s = st[r];
                    float* sb = materialize ? s.row + j0 : tileScores.data() + r * kBlock;
                    if (skip[r]) {
                        if (materialize) std::fill(sb, sb + n, kNegInf);
                        continue;
                    }
                    if (materialize) std::copy(tileScores.data() + r * kBlock, tileScores.data() + r * kBlock + n, sb);
                    if (term.hasContent()) term.addContent(r, s.qPos, j0, j1, in.kPos, sb);
                    for (int t = 0; t < n; ++t) sb[t] *= in.scale;
                    if (term.hasBias()) term.addBias(h, s.qPos, j0, j1, in.kPos, sb);
                    const bool whole = blockFullyAllowed(blocks[b], in.mask, s.qPos);
                    float blockMax = kNegInf;
                    for (int j = j0; j < j1; ++j) {
                        if (!whole && !keyAllowed(in.mask, s.qPos, in.kPos[j], j)) sb[j - j0] = kNegInf;
                        blockMax = std::max(blockMax, sb[j - j0]);
                    }
                    if (materialize || blockMax == kNegInf) continue;
                    // online softmax: rescale what was accumulated to the new running max
                    const float mNew = std::max(s.m, blockMax);
                    const float c = std::exp(s.m - mNew);  // exp(-inf) = 0 on the first block
                    s.l *= c;
                    kernels::scaleSimd(c, s.acc, hd);
                    for (std::size_t v = 0; v < valueRows; ++v) s.wsum[v] *= c;
                    s.l += kernels::expShiftSimd(sb, static_cast<std::size_t>(n), mNew);  // masked: exp(-inf) = 0
                    kernels::accumulateRowsSimd(sb, static_cast<std::size_t>(n), V + j0 * hd, hd, s.acc);
                    if (valueRows)
                        for (int j = j0; j < j1; ++j) s.wsum[term.valueIndex(s.qPos, in.kPos[j])] += sb[j - j0];
                    s.m = mNew;
                }
            }

            for (int r = 0; r < nq; ++r) {
                RowState& s = st[r];
                const int i = i0 + r;
                float* o = out.out + (static_cast<std::size_t>(h) * d.qLen + i) * hd;
                const std::size_t rowOffset = (static_cast<std::size_t>(h) * d.qLen + i) * d.kLen;
                if (materialize) {  // softmax over the stored row, then out = sum_j w_j (v_j + aV)
                    if (out.scores) std::copy(s.row, s.row + d.kLen, out.scores + rowOffset);
                    s.m = *std::max_element(s.row, s.row + d.kLen);
                    if (s.m != kNegInf) s.l = kernels::expShiftSimd(s.row, static_cast<std::size_t>(d.kLen), s.m);
                    else std::fill(s.row, s.row + d.kLen, 0.0f);
                    kernels::accumulateRowsSimd(s.row, static_cast<std::size_t>(d.kLen), V, hd, s.acc);
                    if (valueRows)
                        for (int j = 0; j < d.kLen; ++j) s.wsum[term.valueIndex(s.qPos, in.kPos[j])] += s.row[j];
                    if (out.weights) {
                        const float inv = s.l > 0 ? 1.0f / s.l : 0.0f;
                        for (int j = 0; j < d.kLen; ++j) out.weights[rowOffset + j] = s.row[j] * inv;
                    }
                }
                if (s.l == 0) {  // every key masked: zeros, never NaN
                    std::fill(o, o + hd, 0.0f);
                    continue;
                }
                const float inv = 1.0f / s.l;
                for (std::size_t t = 0; t < hd; ++t) o[t] = s.acc[t] * inv;
                for (std::size_t v = 0; v < valueRows; ++v)
                    if (s.wsum[v] != 0.0f) kernels::axpySimd(s.wsum[v] * inv, valueTable + v * hd, o, hd);
            }
        }
    }
}

}  // namespace posenc
