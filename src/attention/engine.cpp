// The attention engine (posenc/attention/engine.hpp), per tile of query rows and block of keys:
//   positions  resolved before the engine (attention/positions.hpp), used as given here
//   rotation   before the engine too: q and k arrive rotated (rotary/internal.hpp, detail::rotateHeads)
//   mask       posenc/attention/mask.hpp (keyAllowed, whole blocks skipped or fully allowed)
//   scores     scoreBlock below: the score kernel, then the score term's content terms and biases
//              (src/scores/), then the mask
//   softmax    attention/softmax.hpp: the online update, the decode split's merge, the finish
//              (or stick-breaking's, attention/stick_breaking.hpp: the keys walked from the last)
//   P.V        inside the softmax update (the value tile kernel); kernels in kernels/attention_tile.hpp
#include "posenc/attention/engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attention/softmax.hpp"
#include "attention/stick_breaking.hpp"
#include "kernels/attention_tile.hpp"  // the packed-key layout (kKeyBlock, packKeys): no instruction-set code
#include "common/thread_pool.hpp"
#include "kernels/kernel_set.hpp"
#include "posenc/common/errors.hpp"

namespace posenc {


namespace {
constexpr int kBlock = static_cast<int>(kernels::kKeyBlock);
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

using BlockRange = AttentionWorkspace::BlockRange;

// Reads one float per 64-byte line of key block b (packed, in the keys' format) and its value rows (in the
// values' format, valueDim channels) (see `streaming`); every format's blocks and block offsets are
// whole floats. (Byte loads and an integer sum here cost float32 decode 3-5 % in wasm, measured.)
float touchBlock(const unsigned char* Kp, const unsigned char* V, std::size_t b, int kLen, std::size_t blockBytes, std::size_t rowBytes) {
    const std::size_t B = kernels::kKeyBlock, keys = std::min<std::size_t>(B, static_cast<std::size_t>(kLen) - b * B);
    const unsigned char* k = Kp + b * blockBytes;
    const unsigned char* v = V + b * B * rowBytes;
    const auto at = [](const unsigned char* p) {  // any alignment (16-bit keys given by a caller may sit at 2 bytes)
        float f;
        std::memcpy(&f, p, sizeof f);
        return f;
    };
    float s = 0;
    for (std::size_t x = 0; x + 4 <= blockBytes; x += 64) s += at(k + x);
    for (std::size_t x = 0; x + 4 <= keys * rowBytes; x += 64) s += at(v + x);
    return s;
}

// One query row of the tile (its softmax state: Tile::sm).
struct RowState {
    int h = 0, i = 0;  // query head and index
    std::int32_t qPos = 0;
    float* row = nullptr;   // [ld] stored scores (materialize mode)
};

// What one call shares between the steps below: inputs, score term, outputs, scratch, and shapes.
struct Run {
    const AttentionInputs& in;
    ScoreTerm& term;
    const AttentionOutputs& out;
    AttentionWorkspace& ws;
    std::size_t hd, vd, ld;  // q / k channels; value / output channels (valueDim); stored row length (kLen rounded up to whole blocks)
    bool materialize;    // weights or scores requested: rows are stored, softmax at the end
    std::size_t valueRows;
    const float* valueTable;
    bool streaming;      // keys and values larger than a cache level: touch the next block ahead
    const kernels::KernelSet& K;  // the instruction set's kernels, chosen at run time
    // The keys' and the values' stored formats (kernels/kv_format.hpp), a packed key block's bytes and a
    // value row's: every key and value is read in its format by the format's tile kernels.
    int keyFormat, valueFormat;
    std::size_t keyBlockBytes, valueRowBytes;
    std::size_t ahead;  // streaming: the block touched ahead of the one computed on (see runAttention)
    // A causal mask alone (no window, chunk, key mask or sinks): a block whose keys sit at consecutive
    // positions (ws.runStart[b] = the position of its first key, else kNoRun) then has, for a query
    // at qPos, exactly its first qPos - runStart + 1 keys visible (clamped to the block): the engine
    // takes that count instead of testing key by key.
    bool causalOnly;
    bool hasContent, hasBias;  // the term's, asked once per call (fixed by its configuration)
    bool stick;                // stick-breaking in place of the softmax (attention/stick_breaking.hpp): key blocks walked last to first
};
constexpr std::int64_t kNoRun = std::numeric_limits<std::int64_t>::min();

// Keys of block b visible to a query at qPos under a causal-only mask, when the block's keys are at
// consecutive positions from `start`: a prefix of the block, of this length (in [0, n]); a strict mask
// (stick-breaking) hides the key at qPos too.
inline int causalPrefix(std::int64_t start, std::int32_t qPos, int n, bool strict) {
    return static_cast<int>(std::clamp<std::int64_t>(static_cast<std::int64_t>(qPos) - start + (strict ? 0 : 1), 0, n));
}

using Slot = AttentionWorkspace::Slot;

// One tile: up to K.tileRows (<= kQueryTile) query rows of one kv head, their softmax states, and the
// score kernel for its row count.
struct Tile {
    int nr = 0;
    RowState st[kQueryTile];
    detail::SoftmaxRow sm[kQueryTile];
    kernels::ScoreTileFn scoreTile;
};

// Sets up the tile's rows: score-term state, the queries transposed into the slot's qTile with the softmax
// scale folded in once, empty accumulators.
void beginTile(const Run& run, Slot& sc, Tile& t, int kvh, int group, int row0, bool mixHeads, const float* keyRows, int& begunHead) {
    const AttentionInputs& in = run.in;
    const AttentionDims& d = in.dims;
    const std::size_t hd = run.hd;
    float* const qTile = sc.qTile.data();
    t.scoreTile = run.K.kv[run.keyFormat].score[t.nr - 1];
    for (int r = 0; r < t.nr; ++r) {
        RowState& s = t.st[r];
        s.h = kvh * group + (row0 + r) / d.qLen;
        s.i = (row0 + r) % d.qLen;
        if (mixHeads ? begunHead < 0 : s.h != begunHead) {
            run.term.beginHead(s.h, keyRows, in.kPos);
            begunHead = s.h;
        }
        s.qPos = in.qPos[s.i];
        const float* qc = run.term.beginQuery(r, s.h, s.qPos, in.q + (static_cast<std::size_t>(s.h) * d.qLen + s.i) * hd);
        for (std::size_t c = 0; c < hd; ++c) qTile[c * t.nr + r] = in.scale * qc[c];  // transposed, softmax scale folded in once
        s.row = run.materialize ? sc.rows.data() + r * run.ld : nullptr;
        if (run.stick) detail::stickBegin(t.sm[r], sc.acc.data() + r * run.vd, run.vd, sc.wsum.data() + r * run.valueRows, run.valueRows);
        else detail::softmaxBegin(t.sm[r], sc.acc.data() + r * run.vd, run.vd, sc.wsum.data() + r * run.valueRows, run.valueRows);
    }
}

// The score block: the tile's scores against the keys of walk step `step` (ws.steps: key block b's keys
// [begin, end); the block's keys before begin score -inf, unseen in this step) into ws.scores — q.k, content terms, biases,
// then masks (per key only where the block straddles a boundary). live[r] says whether row r sees the
// block at all. Returns how many of the block's keys were scored (keys past the last one any row may
// see are not), or -1 when no row sees the block. Stored rows (materialize) get the scores, -inf past them.
int scoreBlock(const Run& run, Slot& sc, Tile& t, const unsigned char* Kp, const unsigned char* V, std::size_t step, bool live[]) {
    const AttentionInputs& in = run.in;
    const AttentionDims& d = in.dims;
    const std::vector<KeyBlockRange>& blocks = run.ws.blocks;
    const std::vector<AttentionWorkspace::Step>& steps = run.ws.steps;
    constexpr std::size_t B = kernels::kKeyBlock;
    const std::size_t kAhead = run.ahead;
    float* const S = sc.scores.data();
    const std::size_t b = static_cast<std::size_t>(steps[step].block);
    const int j0 = static_cast<int>(b) * kBlock, j1 = steps[step].end, n = j1 - j0, lead = steps[step].begin - j0;
    bool skip[kQueryTile], any = false;
    for (int r = 0; r < t.nr; ++r) any |= !(skip[r] = blockSkipped(blocks[b], in.mask, t.st[r].qPos));
    if (!any) {
        if (run.materialize)
            for (int r = 0; r < t.nr; ++r) std::fill(t.st[r].row + j0, t.st[r].row + j1, kNegInf);
        return -1;
    }
    if (run.streaming) {  // the block kAhead ahead in walking order (stick-breaking walks backwards)
        const auto touch = [&](std::size_t s) { sc.sink += touchBlock(Kp, V, static_cast<std::size_t>(steps[s].block), d.kLen, run.keyBlockBytes, run.valueRowBytes); };
        if (!run.stick && step + kAhead < steps.size()) touch(step + kAhead);
        if (run.stick && step >= kAhead) touch(step - kAhead);
    }
    // Keys past the last one any row of the tile may see are not scored (the causal diagonal: on
    // average half a block per tile).
    int used = n;
    const std::int64_t runStart = run.causalOnly ? run.ws.runStart[b] : kNoRun;
    if (runStart != kNoRun) {  // the same count as the key-by-key search below, from the positions
        used = 0;
        for (int r = 0; r < t.nr; ++r)
            if (!skip[r]) used = std::max(used, causalPrefix(runStart, t.st[r].qPos, n, in.mask.strict));
    } else if (in.mask.causal || in.mask.window > 0 || in.mask.chunk > 0) {
        bool whole = true;
        for (int r = 0; r < t.nr && whole; ++r) whole = skip[r] || blockFullyAllowed(blocks[b], in.mask, t.st[r].qPos);
        if (!whole) {
            used = 0;
            for (int j = j1 - 1; j >= j0 + lead && used == 0; --j)
                for (int r = 0; r < t.nr; ++r)
                    if (!skip[r] && keyAllowed(in.mask, t.st[r].qPos, in.kPos[j], j)) {
                        used = j - j0 + 1;
                        break;
                    }
        }
    }
    t.scoreTile(sc.qTile.data(), Kp + b * run.keyBlockBytes, run.hd, S, static_cast<std::size_t>(used));
    // The mask, then the stored row: after every term (and the cap) has been added.
    const auto maskRow = [&](int r) {
        const RowState& s = t.st[r];
        float* sb = S + r * B;
        if (runStart != kNoRun) {  // keys past the row's visible prefix (the keyAllowed test below, by count)
            const int visible = causalPrefix(runStart, s.qPos, n, in.mask.strict);
            std::fill(sb + visible, sb + std::max(used, visible), kNegInf);
        } else if (!blockFullyAllowed(blocks[b], in.mask, s.qPos))  // a block straddling a mask boundary
            for (int j = j0; j < j0 + used; ++j)
                if (!keyAllowed(in.mask, s.qPos, in.kPos[j], j)) sb[j - j0] = kNegInf;
        std::fill(sb, sb + std::min(lead, used), kNegInf);  // keys another step walks
        if (run.materialize) {
            std::copy(sb, sb + used, s.row + j0);
            std::fill(s.row + j0 + used, s.row + j1, kNegInf);
        }
    };
    const bool capped = in.softcap > 0;
    for (int r = 0; r < t.nr; ++r) {
        RowState& s = t.st[r];
        float* sb = S + r * B;
        live[r] = !skip[r];
        if (skip[r]) {
            if (run.materialize) std::fill(s.row + j0, s.row + j1, kNegInf);
            continue;
        }
        if (run.hasContent) {  // content x position terms, scaled like q.k
            float* cb = sc.content.data();
            std::fill(cb, cb + used, 0.0f);
            run.term.addContent(r, s.qPos, j0, j0 + used, in.kPos, cb);
            run.K.axpy(in.scale, cb, sb, static_cast<std::size_t>(used));
        }
        if (run.hasBias) run.term.addBias(s.h, s.qPos, j0, j0 + used, in.kPos, sb);
        if (!capped) maskRow(r);
    }
    if (capped) {
        // Gemma 2's soft-capping, every row of the tile in one kernel call (a skipped row's scores are
        // capped too and never read), before the mask: masked stays -inf
        run.K.softcap(S, static_cast<std::size_t>(t.nr), static_cast<std::size_t>(used), in.softcap);
        for (int r = 0; r < t.nr; ++r)
            if (!skip[r]) maskRow(r);
    }
    return used;
}

// The online softmax (softmax.hpp) or the stick-breaking update (stick_breaking.hpp) of the tile's rows
// over key block b's `used` keys, and P.V.
void softmaxBlock(const Run& run, Slot& sc, Tile& t, const unsigned char* V, int j0, int used, const bool live[]) {
    if (run.stick) {
        detail::stickUpdate(run.K, run.valueFormat, t.nr, t.sm, sc.scores.data(), sc.rest.data(), static_cast<std::size_t>(used), live, V + static_cast<std::size_t>(j0) * run.valueRowBytes,
                            run.vd, j0, run.valueRows, [&](int r, int j) { return run.term.valueIndex(t.st[r].qPos, run.in.kPos[j]); });
        return;
    }
    detail::softmaxUpdate(run.K, run.valueFormat, t.nr, t.sm, sc.scores.data(), static_cast<std::size_t>(used), live, V + static_cast<std::size_t>(j0) * run.valueRowBytes,
                          run.vd, j0, run.valueRows, [&](int r, int j) { return run.term.valueIndex(t.st[r].qPos, run.in.kPos[j]); });
}

// Row r's sink logit (gpt-oss), or -inf when the call has none.
float sinkOf(const Run& run, const RowState& s) { return run.in.sinkLogits ? run.in.sinkLogits[s.h] : kNegInf; }

// The materialised path's end of a row: scores out, the softmax over the stored row (the same update as
// a streamed block, the row as one block), weights out.
void finishStoredRow(const Run& run, Slot& sc, const RowState& s, detail::SoftmaxRow& sm, const unsigned char* V) {
    const AttentionDims& d = run.in.dims;
    const std::size_t rowOffset = (static_cast<std::size_t>(s.h) * d.qLen + s.i) * d.kLen;
    const std::size_t kLen = static_cast<std::size_t>(d.kLen);
    if (run.out.scores) std::copy(s.row, s.row + kLen, run.out.scores + rowOffset);
    const bool live = true;
    const auto valueIndex = [&](int, int j) { return run.term.valueIndex(s.qPos, run.in.kPos[j]); };
    if (run.stick) {  // the row walked from its last key; the weights are final
        detail::stickUpdate(run.K, run.valueFormat, 1, &sm, s.row, sc.rest.data(), kLen, &live, V, run.vd, 0, run.valueRows, valueIndex);
        if (run.out.weights) std::copy(s.row, s.row + kLen, run.out.weights + rowOffset);
        return;
    }
    detail::softmaxUpdate(run.K, run.valueFormat, 1, &sm, s.row, kLen, &live, V, run.vd, 0, run.valueRows, valueIndex);
    if (run.out.weights) detail::softmaxWeights(sm, s.row, kLen, run.out.weights + rowOffset, sinkOf(run, s));
}

// Row finishing: out = acc / l, plus the value-table rows by their weights (softmax.hpp). A row that is
// not all finite marks the slot of the thread that wrote it (checked here, while the row is in cache,
// instead of in a pass over the whole output after the run).
void finishRow(const Run& run, const RowState& s, const detail::SoftmaxRow& sm, Slot& sc) {
    const std::size_t vd = run.vd;
    float* o = run.out.out + (static_cast<std::size_t>(s.h) * run.in.dims.qLen + s.i) * vd;
    if (run.stick) {
        detail::stickFinish(run.K, sm, vd, run.valueRows, run.valueTable, o);
        if (!run.K.allFinite(o, vd)) sc.nonFinite = true;
        return;
    }
    detail::softmaxFinish(run.K, sm, vd, run.valueRows, run.valueTable, o, sinkOf(run, s));
    if (sm.l != 0 && !run.K.allFinite(o, vd)) sc.nonFinite = true;
}

}  // namespace

namespace {
// A split run's chunks of one tile merged in chunk order (the same order whatever ran them), then
// finished like an unsplit row.
void mergeChunks(const Run& run, const detail::SoftmaxPartials& parts, const AttentionWorkspace::TileRows& tile, int group, const float* partial,
                 std::size_t chunks, Slot& sc) {
    const int qLen = run.in.dims.qLen;
    for (int r = 0; r < tile.rows; ++r) {
        RowState s;
        s.h = tile.kvHead * group + (tile.row0 + r) / qLen;
        s.i = (tile.row0 + r) % qLen;
        detail::SoftmaxRow sm;
        detail::softmaxBegin(sm, sc.acc.data(), run.vd, sc.wsum.data(), run.valueRows);  // the merge's sums start empty (stickMerge sets P)
        if (run.stick) detail::stickMerge(parts, run.K, partial, chunks, static_cast<std::size_t>(r), sm);
        else parts.merge(run.K, partial, chunks, static_cast<std::size_t>(r), sm);
        finishRow(run, s, sm, sc);
    }
}
}  // namespace

bool runAttention(const AttentionInputs& in, ScoreTerm& term, const AttentionOutputs& out, AttentionWorkspace* workspace) {
    AttentionWorkspace local;
    AttentionWorkspace& ws = workspace ? *workspace : local;
    const AttentionDims& d = in.dims;
    const std::size_t hd = static_cast<std::size_t>(d.headDim), vd = static_cast<std::size_t>(d.valueChannels());
    const std::size_t ld = (static_cast<std::size_t>(d.kLen) + kBlock - 1) / kBlock * kBlock;
    const std::size_t stride = in.kvStride ? in.kvStride : static_cast<std::size_t>(d.kLen);  // keys per kv head in storage
    const int group = d.heads / d.kvHeads;  // query head h reads kv head h / group (repeat_kv)
    keyBlockRanges(in.mask, in.kPos, d.kLen, kBlock, ws.blocks);
    const bool materialize = out.weights != nullptr || out.scores != nullptr;
    // The walk: every block in index order, or each keyOrder span's keys block by block (a block two
    // spans share is scored in each, every key in its own span's step; the ring of a cache window
    // splits at most two blocks so).
    ws.steps.clear();
    if (!in.keyOrder) {
        for (int j0 = 0; j0 < d.kLen; j0 += kBlock) ws.steps.push_back({j0 / kBlock, j0, std::min(d.kLen, j0 + kBlock)});
    } else {
        if (materialize) fail("keyOrder", "is not supported with weights or scores");
        // spans split at most one block each; room for four (the KV cache's most: sinks, held, the ring's two
        // parts) whatever this call's count, so a decode loop does not reallocate when its ring first wraps
        ws.steps.reserve(ws.blocks.size() + std::max<std::size_t>(in.keyOrderSpans, 4));
        for (std::size_t i = 0; i < in.keyOrderSpans; ++i)
            for (int j = in.keyOrder[i].begin; j < in.keyOrder[i].end;) {
                const int e = std::min(in.keyOrder[i].end, (j / kBlock + 1) * kBlock);
                ws.steps.push_back({j / kBlock, j, e});
                j = e;
            }
    }
    const std::size_t valueRows = static_cast<std::size_t>(term.valueRows());
    const kernels::KernelSet& K = kernels::active();  // the instruction set's kernels, chosen at run time
    const std::size_t R = K.tileRows;
    constexpr std::size_t B = kernels::kKeyBlock;
    const bool concurrent = term.concurrent();

    // Per-thread scratch, sized once per shape (a warm decode step allocates nothing).
    ws.slots.resize(static_cast<std::size_t>(std::max(threadCount(), 1)));
    for (Slot& sc : ws.slots) {
        sc.qTile.resize(R * hd);
        sc.scores.resize(R * B);
        sc.content.resize(B);
        sc.acc.resize(R * vd);
        sc.wsum.resize(R * valueRows);
        if (materialize) sc.rows.resize(R * ld);
        if (in.stickBreaking) sc.rest.resize(materialize ? std::max(R * B, ld) : R * B);
        sc.kvHead = sc.begunHead = -1;
        sc.nonFinite = false;
    }
    // Keys and values in their stored formats (a packed key block's bytes, a value row's).
    const int keyFormat = static_cast<int>(in.keyStorage), valueFormat = static_cast<int>(in.valueStorage);
    const std::size_t keyBlockBytes = kernels::keyBlockBytes(keyFormat, hd), valueRowBytes = kernels::valueRowBytes(valueFormat, vd);
    // Keys and values larger than a cache level stream from memory; wasm has no prefetch instruction,
    // so before computing on a block the engine reads one byte per 64-byte line of a block ahead (Run::ahead):
    // its misses are then in flight during this block's arithmetic (a decode step over 32768 cached
    // tokens about 15 % faster in wasm).
    const bool streaming = static_cast<std::size_t>(d.kLen) * (keyBlockBytes / kernels::kKeyBlock + valueRowBytes) > (std::size_t(1) << 21);
    // Causal-only masks: each block's run of consecutive key positions, if it is one (see Run::causalOnly).
    const bool causalOnly = in.mask.causal && in.mask.window == 0 && in.mask.chunk == 0 && !in.mask.keyMask && in.mask.sinks == 0;
    if (causalOnly) {
        ws.runStart.resize(ws.blocks.size());
        for (std::size_t b = 0; b < ws.blocks.size(); ++b) {
            const int j0 = static_cast<int>(b) * kBlock, j1 = std::min(d.kLen, j0 + kBlock);
            bool consecutive = true;
            for (int j = j0 + 1; j < j1 && consecutive; ++j) consecutive = static_cast<std::int64_t>(in.kPos[j]) == static_cast<std::int64_t>(in.kPos[j - 1]) + 1;
            ws.runStart[b] = consecutive ? in.kPos[j0] : kNoRun;
        }
    }
    // ... about 32 KiB ahead: one block of float32 keys and values of 64 channels (two or four ahead are no
    // better for them); two or three blocks of the smaller stored formats
    const std::size_t ahead = std::max<std::size_t>(1, 32768 / (keyBlockBytes + kernels::kKeyBlock * valueRowBytes));
    const Run run{in, term, out, ws, hd, vd, ld, materialize, valueRows, term.valueTable(), streaming, K, keyFormat, valueFormat,
                  keyBlockBytes, valueRowBytes, ahead, causalOnly, term.hasContent(), term.hasBias(), in.stickBreaking};
    // About one unit per multiply-add: below kParallelMinWork the call stays on this thread.
    const double work = static_cast<double>(d.heads) * d.qLen * static_cast<double>(d.kLen) * static_cast<double>(hd + vd);  // q.k and P.V

    // Keys packed for the score kernel, every kv head first (tasks of all kv heads then run at once);
    // f16 / bf16 keys are packed as the bit patterns they are.
    const unsigned char* packedBase = static_cast<const unsigned char*>(in.kPacked);
    std::size_t packedStride = kernels::packedKeyBytes(keyFormat, stride, hd);
    if (!packedBase) {
        packedStride = kernels::packedKeyBytes(keyFormat, static_cast<std::size_t>(d.kLen), hd);
        ws.packedKeys.resize(static_cast<std::size_t>(d.kvHeads) * packedStride);
        detail::parallelFor(static_cast<std::size_t>(d.kvHeads), 16.0 * d.kvHeads * d.kLen * static_cast<double>(hd), [&](std::size_t h, int) {
            unsigned char* dst = ws.packedKeys.data() + h * packedStride;
            if (keyFormat == kernels::kFormatF32)
                kernels::packKeys(static_cast<const float*>(in.k) + h * stride * hd, static_cast<std::size_t>(d.kLen), hd, reinterpret_cast<float*>(dst));
            else
                kernels::packKeys(static_cast<const std::uint16_t*>(in.k) + h * stride * hd, static_cast<std::size_t>(d.kLen), hd, reinterpret_cast<std::uint16_t*>(dst));
        });
        packedBase = ws.packedKeys.data();
    }
    // Row-major float keys for a term that reads them (such terms run on one thread).
    const float* keyRowsBase = nullptr;
    std::size_t keyRowsStride = stride * hd;
    if (term.readsKeys()) {
        if (in.k && keyFormat == kernels::kFormatF32) {
            keyRowsBase = static_cast<const float*>(in.k);
        } else {
            keyRowsStride = static_cast<std::size_t>(d.kLen) * hd;
            ws.keyRows.resize(static_cast<std::size_t>(d.kvHeads) * keyRowsStride);
            for (int h = 0; h < d.kvHeads; ++h)
                for (int j = 0; j < d.kLen; ++j)
                    kernels::loadKey(keyFormat, packedBase + h * packedStride, static_cast<std::size_t>(j), hd, ws.keyRows.data() + h * keyRowsStride + j * hd);
            keyRowsBase = ws.keyRows.data();
        }
    }

    // The tiles: rows of one kv head (its query heads' rows, head-major), up to R at a time. A tile
    // mixes heads only when the score term allows it (then beginHead runs once per kv head, with its
    // first query head). Every kv head gets the same tiles.
    const bool mixHeads = !term.headSpecificKeyState();
    const int rowsPerKv = group * d.qLen;
    ws.tiles.clear();
    for (int kvh = 0; kvh < d.kvHeads; ++kvh)
        for (int row0 = 0, nr = 0; row0 < rowsPerKv; row0 += nr) {
            nr = std::min(static_cast<int>(R), rowsPerKv - row0);
            if (!mixHeads) nr = std::min(nr, (row0 / d.qLen + 1) * d.qLen - row0);  // stay within one head
            ws.tiles.push_back({kvh, row0, nr});
        }
    const std::size_t nTiles = ws.tiles.size(), tilesPerKv = nTiles / static_cast<std::size_t>(d.kvHeads);

    // Runs walk steps [b0, b1) for one tile in scratch `sc`; leaves the rows' states in `tile`.
    auto runTile = [&](const AttentionWorkspace::TileRows& tr, Slot& sc, Tile& tile, std::size_t b0, std::size_t b1) {
        const unsigned char* Kp = packedBase + static_cast<std::size_t>(tr.kvHead) * packedStride;
        const unsigned char* V = static_cast<const unsigned char*>(in.v) + static_cast<std::size_t>(tr.kvHead) * stride * run.valueRowBytes;
        if (sc.kvHead != tr.kvHead) sc.kvHead = tr.kvHead, sc.begunHead = -1;
        tile.nr = tr.rows;
        beginTile(run, sc, tile, tr.kvHead, group, tr.row0, mixHeads, keyRowsBase ? keyRowsBase + tr.kvHead * keyRowsStride : nullptr,
                  sc.begunHead);
        for (std::size_t x = b0; x < b1; ++x) {
            const std::size_t s = run.stick ? b1 - 1 - (x - b0) : x;  // stick-breaking walks the keys from the last
            bool live[kQueryTile];
            const int used = scoreBlock(run, sc, tile, Kp, V, s, live);
            if (used < 0 || materialize) continue;  // materialised: the softmax runs over whole stored rows
            softmaxBlock(run, sc, tile, V, ws.steps[s].block * kBlock, used, live);
            if (run.stick) {  // every row's stick used up (stick_breaking.hpp): the earlier keys weigh 0
                bool usedUp = true;
                for (int r = 0; r < tile.nr && usedUp; ++r) usedUp = tile.sm[r].l == 0.0f;
                if (usedUp) break;
            }
        }
        return V;
    };

    // Few tiles over many keys (a decode step): each tile's keys in fixed chunks, so every thread has
    // work; the chunking depends on the shapes only.
    constexpr std::size_t kChunkBlocks = kDecodeChunkKeys / kBlock;
    constexpr std::size_t kSplitBelowTiles = 64;
    const std::size_t nChunks = (ws.steps.size() + kChunkBlocks - 1) / kChunkBlocks;
    const bool split = !materialize && concurrent && nChunks > 1 && nTiles < kSplitBelowTiles;

    if (split) {
        const detail::SoftmaxPartials parts{R, vd, valueRows};
        const std::size_t per = parts.floats();
        ws.partials.resize(nTiles * nChunks * per);
        detail::parallelFor(nTiles * nChunks, work, [&](std::size_t task, int slot) {
            const std::size_t ti = task / nChunks, c = task % nChunks;
            Slot& sc = ws.slots[static_cast<std::size_t>(slot)];
            Tile tile;
            runTile(ws.tiles[ti], sc, tile, c * kChunkBlocks, std::min(ws.steps.size(), (c + 1) * kChunkBlocks));
            for (int r = 0; r < tile.nr; ++r) parts.store(tile.sm[r], static_cast<std::size_t>(r), ws.partials.data() + task * per);
        });
        for (std::size_t ti = 0; ti < nTiles; ++ti) mergeChunks(run, parts, ws.tiles[ti], group, ws.partials.data() + ti * nChunks * per, nChunks, ws.slots[0]);
    } else {
        detail::parallelFor(nTiles, concurrent ? work : 0.0, [&](std::size_t task, int slot) {
            // Concurrent: kv head by kv head (the threads share one head's keys and values in cache),
            // each head's heaviest tiles first (under a causal mask the last rows see the most keys).
            // Otherwise in order (the term's head state carries from tile to tile).
            const std::size_t ti = concurrent ? task / tilesPerKv * tilesPerKv + (tilesPerKv - 1 - task % tilesPerKv) : task;
            Slot& sc = ws.slots[static_cast<std::size_t>(slot)];
            Tile tile;
            const unsigned char* V = runTile(ws.tiles[ti], sc, tile, 0, ws.steps.size());
            for (int r = 0; r < tile.nr; ++r) {
                if (materialize) finishStoredRow(run, sc, tile.st[r], tile.sm[r], V);
                finishRow(run, tile.st[r], tile.sm[r], sc);
            }
        });
    }
    bool finite = true;
    for (Slot& sc : ws.slots) ws.sink += sc.sink, sc.sink = 0, finite = finite && !sc.nonFinite;
    return finite;
}

}  // namespace posenc
