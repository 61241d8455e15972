#include "posenc/attention/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/attention_tile.hpp"  // the packed-key layout (kKeyBlock, packKeys): no instruction-set code
#include "kernels/kernel_set.hpp"

namespace posenc {

namespace {
constexpr int kBlock = static_cast<int>(kernels::kKeyBlock);
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

using BlockRange = AttentionWorkspace::BlockRange;

// Per key block: the position range of its unmasked keys, so whole blocks can be skipped. Sink keys
// (j < mask.sinks, exempt from the window) are ranged apart from the others.
void blockRanges(const AttentionInputs& in, std::vector<BlockRange>& r) {
    const int kLen = in.dims.kLen;
    constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max(), kMin = std::numeric_limits<std::int32_t>::min();
    r.resize(static_cast<std::size_t>((kLen + kBlock - 1) / kBlock));
    for (std::size_t b = 0; b < r.size(); ++b) {
        BlockRange br{kMax, kMin, false, true, kMax, kMin, false};
        for (int j = static_cast<int>(b) * kBlock; j < std::min(kLen, static_cast<int>(b + 1) * kBlock); ++j) {
            if (in.mask.keyMask && !in.mask.keyMask[j]) {
                br.all = false;
                continue;
            }
            if (j < in.mask.sinks) {
                br.sinkAny = true;
                br.sinkMin = std::min(br.sinkMin, in.kPos[j]);
                br.sinkMax = std::max(br.sinkMax, in.kPos[j]);
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
    if (b.sinkAny && !(m.causal && b.sinkMin > qPos)) return false;  // a sink key may be visible
    if (!b.any) return true;
    if ((m.causal || m.window > 0) && b.minPos > qPos) return true;
    if (m.window > 0 && static_cast<std::int64_t>(qPos) - b.maxPos >= m.window) return true;
    return false;
}

// No key of the block is masked for this query (its per-key checks can be skipped).
bool blockFullyAllowed(const BlockRange& b, const AttentionMask& m, std::int32_t qPos) {
    if (!b.all) return false;
    if (b.sinkAny && m.causal && b.sinkMax > qPos) return false;
    if (!b.any) return true;
    if ((m.causal || m.window > 0) && b.maxPos > qPos) return false;
    if (m.window > 0 && static_cast<std::int64_t>(qPos) - b.minPos >= m.window) return false;
    return true;
}

// Reads one float per 64-byte line of key block b (packed) and its value rows (see `streaming`).
float touchBlock(const float* Kp, const float* V, std::size_t b, int kLen, std::size_t hd) {
    const std::size_t B = kernels::kKeyBlock, keys = std::min<std::size_t>(B, static_cast<std::size_t>(kLen) - b * B);
    const float* k = Kp + b * hd * B;
    const float* v = V + b * B * hd;
    float s = 0;
    for (std::size_t x = 0; x < hd * B; x += 16) s += k[x];
    for (std::size_t x = 0; x < keys * hd; x += 16) s += v[x];
    return s;
}

}  // namespace

// Online-softmax state of one query row of the tile.
struct RowState {
    int h = 0, i = 0;  // query head and index
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
    const std::size_t stride = in.kvStride ? in.kvStride : static_cast<std::size_t>(d.kLen);  // keys per kv head in storage
    const std::size_t packedSize = kernels::packedKeysSize(stride, hd);
    const int group = d.heads / d.kvHeads;  // query head h reads kv head h / group (repeat_kv)
    blockRanges(in, ws.blocks);
    const auto& blocks = ws.blocks;
    const bool materialize = out.weights != nullptr || out.scores != nullptr;
    const std::size_t valueRows = static_cast<std::size_t>(term.valueRows());
    const float* valueTable = term.valueTable();
    const kernels::KernelSet& K = kernels::active();  // the instruction set's kernels, chosen at run time
    const std::size_t R = K.tileRows;
    constexpr std::size_t B = kernels::kKeyBlock;

    ws.qTile.resize(R * hd);
    ws.scores.resize(R * B);
    ws.content.resize(B);
    ws.acc.resize(R * hd);
    ws.wsum.resize(R * valueRows);
    if (materialize) ws.rows.resize(R * ld);
    float* const qTile = ws.qTile.data();
    float* const S = ws.scores.data();
    RowState st[kQueryTile];
    const float one = 1.0f;

    // Rows of one kv head: its query heads' rows, head-major. A tile mixes heads only when the score
    // term allows it (then beginHead runs once per kv head, with its first query head).
    const bool mixHeads = !term.headSpecificKeyState();
    // Keys and values larger than a cache level stream from memory; wasm has no prefetch instruction,
    // so before computing on a block the engine reads one float per 64-byte line of the next one: its
    // misses are then in flight during this block's arithmetic (a decode step over 32768 cached
    // tokens: 26 -> 22 ms in wasm). Two or four blocks ahead measured no better.
    const bool streaming = static_cast<std::size_t>(d.kLen) * hd * 2 * sizeof(float) > (std::size_t(1) << 21);
    constexpr std::size_t kAhead = 1;
    const int rowsPerKv = group * d.qLen;

    for (int kvh = 0; kvh < d.kvHeads; ++kvh) {
        const float* Kp;
        if (in.kPacked) {
            Kp = in.kPacked + static_cast<std::size_t>(kvh) * packedSize;
        } else {
            ws.packedKeys.resize(kernels::packedKeysSize(static_cast<std::size_t>(d.kLen), hd));
            kernels::packKeys(in.k + kvh * stride * hd, static_cast<std::size_t>(d.kLen), hd, ws.packedKeys.data());
            Kp = ws.packedKeys.data();
        }
        const float* keyRows = nullptr;
        if (term.readsKeys()) {
            if (in.k) {
                keyRows = in.k + kvh * stride * hd;
            } else {
                ws.keyRows.resize(static_cast<std::size_t>(d.kLen) * hd);
                for (int j = 0; j < d.kLen; ++j) kernels::unpackKey(Kp, static_cast<std::size_t>(j), hd, ws.keyRows.data() + j * hd);
                keyRows = ws.keyRows.data();
            }
        }
        const float* V = in.v + kvh * stride * hd;
        int begunHead = -1;

        for (int row0 = 0; row0 < rowsPerKv;) {
            int nr = std::min(static_cast<int>(R), rowsPerKv - row0);
            if (!mixHeads) nr = std::min(nr, (row0 / d.qLen + 1) * d.qLen - row0);  // stay within one head
            const kernels::ScoreTileFn scoreTile = K.scoreTile[nr - 1];
            const kernels::ValueTileFn valueTile = K.valueTile[nr - 1];
            const kernels::SoftmaxTileFn softmaxTile = K.softmaxTile[nr - 1];
            for (int r = 0; r < nr; ++r) {
                RowState& s = st[r];
                s.h = kvh * group + (row0 + r) / d.qLen;
                s.i = (row0 + r) % d.qLen;
                if (mixHeads ? begunHead < 0 : s.h != begunHead) {
                    term.beginHead(s.h, keyRows, in.kPos);
                    begunHead = s.h;
                }
                s.qPos = in.qPos[s.i];
                const float* qc = term.beginQuery(r, s.h, s.qPos, in.q + (static_cast<std::size_t>(s.h) * d.qLen + s.i) * hd);
                for (std::size_t c = 0; c < hd; ++c) qTile[c * nr + r] = in.scale * qc[c];  // transposed, softmax scale folded in once
                s.m = kNegInf;
                s.l = 0;
                s.acc = ws.acc.data() + r * hd;
                s.wsum = ws.wsum.data() + r * valueRows;
                s.row = materialize ? ws.rows.data() + r * ld : nullptr;
                std::fill(s.acc, s.acc + hd, 0.0f);
                std::fill(s.wsum, s.wsum + valueRows, 0.0f);
            }

            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const int j0 = static_cast<int>(b) * kBlock, j1 = std::min(d.kLen, j0 + kBlock), n = j1 - j0;
                bool skip[kQueryTile], any = false;
                for (int r = 0; r < nr; ++r) any |= !(skip[r] = blockSkipped(blocks[b], in.mask, st[r].qPos));
                if (!any) {
                    if (materialize)
                        for (int r = 0; r < nr; ++r) std::fill(st[r].row + j0, st[r].row + j1, kNegInf);
                    continue;
                }
                if (streaming && b + kAhead < blocks.size()) ws.sink += touchBlock(Kp, V, b + kAhead, d.kLen, hd);
                // Keys past the last one any row of the tile may see are not scored (the causal
                // diagonal: on average half a block per tile).
                int used = n;
                if (in.mask.causal || in.mask.window > 0) {
                    bool whole = true;
                    for (int r = 0; r < nr && whole; ++r) whole = skip[r] || blockFullyAllowed(blocks[b], in.mask, st[r].qPos);
                    if (!whole) {
                        used = 0;
                        for (int j = j1 - 1; j >= j0 && used == 0; --j)
                            for (int r = 0; r < nr; ++r)
                                if (!skip[r] && keyAllowed(in.mask, st[r].qPos, in.kPos[j], j)) {
                                    used = j - j0 + 1;
                                    break;
                                }
                    }
                }
                scoreTile(qTile, Kp + b * hd * B, hd, S, static_cast<std::size_t>(used));
                bool live[kQueryTile];
                for (int r = 0; r < nr; ++r) {
                    RowState& s = st[r];
                    float* sb = S + r * B;
                    live[r] = !skip[r];
                    if (skip[r]) {
                        if (materialize) std::fill(s.row + j0, s.row + j1, kNegInf);
                        continue;
                    }
                    if (term.hasContent()) {  // content x position terms, scaled like q.k
                        float* cb = ws.content.data();
                        std::fill(cb, cb + used, 0.0f);
                        term.addContent(r, s.qPos, j0, j0 + used, in.kPos, cb);
                        K.axpy(in.scale, cb, sb, static_cast<std::size_t>(used));
                    }
                    if (term.hasBias()) term.addBias(s.h, s.qPos, j0, j0 + used, in.kPos, sb);
                    if (!blockFullyAllowed(blocks[b], in.mask, s.qPos))  // a block straddling a mask boundary
                        for (int j = j0; j < j0 + used; ++j)
                            if (!keyAllowed(in.mask, s.qPos, in.kPos[j], j)) sb[j - j0] = kNegInf;
                    if (materialize) {
                        std::copy(sb, sb + used, s.row + j0);
                        std::fill(s.row + j0 + used, s.row + j1, kNegInf);
                    }
                }
                if (materialize) continue;
                // online softmax: running max, rescale factors and weights for the whole tile
                float m[kQueryTile], l[kQueryTile], corr[kQueryTile];
                for (int r = 0; r < nr; ++r) m[r] = st[r].m, l[r] = st[r].l;
                const bool contributes = softmaxTile(S, static_cast<std::size_t>(used), live, m, l, corr);
                for (int r = 0; r < nr; ++r) {
                    RowState& s = st[r];
                    s.m = m[r];
                    s.l = l[r];
                    if (valueRows && live[r]) {
                        for (std::size_t v = 0; v < valueRows; ++v) s.wsum[v] *= corr[r];
                        for (int j = j0; j < j0 + used; ++j) s.wsum[term.valueIndex(s.qPos, in.kPos[j])] += S[r * B + (j - j0)];
                    }
                }
                if (contributes)
                    valueTile(S, static_cast<std::size_t>(used), V + static_cast<std::size_t>(j0) * hd, hd, ws.acc.data(), corr);
            }

            for (int r = 0; r < nr; ++r) {
                RowState& s = st[r];
                float* o = out.out + (static_cast<std::size_t>(s.h) * d.qLen + s.i) * hd;
                const std::size_t rowOffset = (static_cast<std::size_t>(s.h) * d.qLen + s.i) * d.kLen;
                if (materialize) {  // softmax over the stored row, then out = sum_j w_j (v_j + aV)
                    const std::size_t kLen = static_cast<std::size_t>(d.kLen);
                    if (out.scores) std::copy(s.row, s.row + kLen, out.scores + rowOffset);
                    s.m = K.rowMax(s.row, kLen);
                    if (s.m != kNegInf) s.l = K.expShift(s.row, kLen, s.m);
                    else std::fill(s.row, s.row + kLen, 0.0f);
                    K.valueTile[0](s.row, kLen, V, hd, s.acc, &one);
                    if (valueRows)
                        for (int j = 0; j < d.kLen; ++j) s.wsum[term.valueIndex(s.qPos, in.kPos[j])] += s.row[j];
                    if (out.weights) {
                        const float inv = s.l > 0 ? 1.0f / s.l : 0.0f;
                        for (std::size_t j = 0; j < kLen; ++j) out.weights[rowOffset + j] = s.row[j] * inv;
                    }
                }
                if (s.l == 0) {  // every key masked: zeros, never NaN
                    std::fill(o, o + hd, 0.0f);
                    continue;
                }
                const float inv = 1.0f / s.l;
                for (std::size_t t = 0; t < hd; ++t) o[t] = s.acc[t] * inv;
                for (std::size_t v = 0; v < valueRows; ++v)
                    if (s.wsum[v] != 0.0f) K.axpy(s.wsum[v] * inv, valueTable + v * hd, o, hd);
            }
            row0 += nr;
        }
    }
}

}  // namespace posenc
