#include "posenc/attention/attention.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "posenc/common/errors.hpp"
#include "common/decimal.hpp"
#include "kernels/attention_tile.hpp"  // packKeyRange: the engine's packed-key layout
#include "kernels/kernel_set.hpp"
#include "attention/internal.hpp"
#include "attention/positions.hpp"
#include "encodings/kind_spec.hpp"  // the scalar-bias kinds, for a message
#include "common/thread_pool.hpp"
#include "rotary/internal.hpp"

namespace posenc {

namespace {

// A calling thread's scratch for attention(): the rotated copies of q and k and the engine's workspace
// (packed keys, per-thread tiles). Kept between calls, so that repeated calls of one size reuse memory
// instead of faulting in fresh pages each time (measured natively: B 2 threads, ~1500 page faults a call);
// a call that needed more than kKeptScratchBytes gives it back when it returns.
struct CallScratch {
    static constexpr std::size_t kKeptScratchBytes = std::size_t{64} << 20;
    using Floats = std::vector<float, detail::DefaultInitAllocator<float>>;  // grown without zero-filling
    Floats q, k;
    AttentionWorkspace workspace;

    float* room(Floats& v, std::size_t n) {
        if (v.size() < n) v.resize(n);
        return v.data();
    }
    void trim() noexcept {
        const std::size_t bytes = (q.capacity() + k.capacity() + workspace.keyRows.capacity() + workspace.partials.capacity()) * sizeof(float) +
                                  workspace.packedKeys.capacity();
        if (bytes > kKeptScratchBytes) *this = CallScratch();
    }
};

CallScratch& callScratch() {
    thread_local CallScratch scratch;
    return scratch;
}

template <class T>
void requireSize(const View<T>& v, std::size_t n, const char* field, const char* shape) {
    if (v.data == nullptr && n > 0) fail(field, "is required");
    if (v.size != n) fail(field, std::string("must have ") + std::to_string(n) + " elements " + shape + " (got " + std::to_string(v.size) + ")");
}

// The largest squared norm of rows [0, rows) of x (headDim hd), and a running maximum of such values
// shared by the pool's tasks: the squared norms are non-negative doubles, whose bit patterns order
// like their values, so the maximum is the same whoever ran which rows.
double maxRowNormSquared(const float* x, std::size_t rows, std::size_t hd) {
    double m = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        double s = kernels::active().dot(x + r * hd, x + r * hd, hd);  // float; past 3.4e38 recomputed in double
        if (!std::isfinite(s)) {
            s = 0;
            for (std::size_t c = 0; c < hd; ++c) s += static_cast<double>(x[r * hd + c]) * x[r * hd + c];
        }
        m = std::max(m, s);
    }
    return m;
}
struct MaxSquare {
    std::atomic<std::uint64_t> best{0};
    void raise(double m) {
        std::uint64_t bits, seen = best.load(std::memory_order_relaxed);
        std::memcpy(&bits, &m, sizeof m);
        while (seen < bits && !best.compare_exchange_weak(seen, bits, std::memory_order_relaxed)) {
        }
    }
    double norm() const {  // the square root of the maximum
        const std::uint64_t bits = best.load();
        double m;
        std::memcpy(&m, &bits, sizeof m);
        return std::sqrt(m);
    }
};

// maxRowNorm of f16 / bf16 rows: each piece of rows converted to floats, then as maxRowNorm (the same
// float arithmetic as over the converted floats).
double maxRowNormBits(const std::uint16_t* x, std::size_t rows, std::size_t hd, KVStorage s) {
    constexpr std::size_t kRows = 256;
    MaxSquare best;
    detail::parallelFor((rows + kRows - 1) / kRows, 16.0 * static_cast<double>(rows) * hd, [&](std::size_t p, int) {
        const std::size_t n = std::min(rows, (p + 1) * kRows) - p * kRows;
        std::vector<float> piece(n * hd);
        for (std::size_t i = 0; i < n * hd; ++i) piece[i] = detail::bitsToFloat(x[p * kRows * hd + i], s);
        best.raise(maxRowNormSquared(piece.data(), n, hd));
    });
    return best.norm();
}

}  // namespace

namespace detail {
double maxRowNorm(const float* x, std::size_t rows, std::size_t hd) {
    // Rows in fixed pieces on the pool; a maximum, so the same value whoever ran which piece.
    constexpr std::size_t kRows = 256;
    MaxSquare best;
    parallelFor((rows + kRows - 1) / kRows, 16.0 * static_cast<double>(rows) * hd, [&](std::size_t p, int) {
        best.raise(maxRowNormSquared(x + p * kRows * hd, std::min(rows, (p + 1) * kRows) - p * kRows, hd));
    });
    return best.norm();
}

void requireScoreBound(double qNorm, double kNorm, double gain) {
    const double bound = gain * qNorm * kNorm;
    if (!(bound < 1e37))
        fail("q", "and k are large enough for scale |q| |k| (up to " + formatFixed6(bound) +  // std::to_string's "%f", without printf
                      ") to overflow float scores (3.4e38): scale them down (the softmax cannot recover from infinite scores)");
}

void requireScoresInRange(const float* q, std::size_t qRows, const float* k, std::size_t kRows, std::size_t hd, double gain) {
    // k may be null: gain then already holds the keys' largest norm (the KV cache tracks it)
    requireScoreBound(maxRowNorm(q, qRows, hd), k ? maxRowNorm(k, kRows, hd) : 1.0, gain);
}

void requireSinkLogits(View<float> sinkLogits, int heads) {
    if (sinkLogits.empty()) return;
    if (sinkLogits.size != static_cast<std::size_t>(heads))
        fail("sinkLogits", "must have one logit per query head: heads = " + std::to_string(heads) + " (got " + std::to_string(sinkLogits.size) + ")");
    requireFiniteValues(sinkLogits.data, sinkLogits.size, "sinkLogits");
}

void requireValueDim(int valueDim) {
    if (valueDim != 0) requireSize(valueDim, "valueDim", limits::kMaxHeadDim);  // 0: headDim
}

float checkedSoftcap(const std::optional<double>& softcap) {
    if (!softcap) return 0;
    requirePositiveFinite(*softcap, "softcap");
    if (*softcap > std::numeric_limits<float>::max()) fail("softcap", "must be at most 3.4028234663852886e38 (got " + show(*softcap) + ")");
    return static_cast<float>(*softcap);
}

void failNonFiniteResult(float scale) {
    fail("encoding", "gives scores beyond float range with scale " + show(scale) +
                         " (a bias or position term of magnitude near 3.4e38): the result would be NaN");
}


namespace {
// The forgetting part of an encoding whose only score term it is (the other parts, if any, add none:
// stick-breaking, temperature, none), else null: its term is then built on the stack, and with the KV
// cache's tables (AttentionInputs::forgetTables) a warm decode step allocates nothing.
const ForgettingEncoding* soleForgettingTerm(const Encoding& e) {
    if (const auto* f = std::get_if<ForgettingEncoding>(&e)) return f;
    const auto* c = std::get_if<CombinedEncoding>(&e);
    if (!c) return nullptr;
    const ForgettingEncoding* found = nullptr;
    for (const Encoding& p : c->parts) {
        if (const auto* f = std::get_if<ForgettingEncoding>(&p)) {
            if (found) return nullptr;  // two: makeTerm's error
            found = f;
        } else if (std::holds_alternative<CombinedEncoding>(p) || kinds::of(p).first->hasTerm()) {
            return nullptr;
        }
    }
    return found;
}
}  // namespace

void runWithEncoding(const AttentionInputs& given, const Encoding& e, const AttentionOutputs& out, AttentionWorkspace* workspace) {
    AttentionInputs in = given;
    if (const StickBreakingEncoding* sb = stickBreakingPart(e)) {  // its normaliser in place of the softmax (checked: requireStickBreakingCall)
        in.stickBreaking = true;
        in.mask.strict = !sb->attendCurrent;
    }
    if (const ForgettingEncoding* f = soleForgettingTerm(e)) {
        ForgettingTerm term(*f, in);
        if (!runAttention(in, term, out, workspace)) failNonFiniteResult(in.scale);
        return;
    }
    auto term = makeTerm(in, e);
    NoScoreTerm none;
    // the output rows are checked as the engine writes them (no second pass over out)
    if (!runAttention(in, term ? *term : none, out, workspace)) failNonFiniteResult(in.scale);
}
}  // namespace detail

void attention(const AttentionRequest& r, float* out, float* weights, float* scores) {
    const AttentionDims& d = r.dims;
    requireSize(d.heads, "heads", limits::kMaxHeads);
    requireSize(d.kvHeads, "kvHeads", limits::kMaxHeads);
    requireSize(d.headDim, "headDim", limits::kMaxHeadDim);
    detail::requireValueDim(d.valueDim);
    requirePositive(d.qLen, "qLen");
    requirePositive(d.kLen, "kLen");
    if (d.heads % d.kvHeads != 0)
        fail("heads", "(" + std::to_string(d.heads) + ") must be a multiple of kvHeads (" + std::to_string(d.kvHeads) + ")");
    const std::size_t qn = elementCount({d.heads, d.qLen, d.headDim}, "q");
    const std::size_t kn = elementCount({d.kvHeads, d.kLen, d.headDim}, "k");
    const std::size_t vn = elementCount({d.kvHeads, d.kLen, d.valueChannels()}, "v");
    const std::size_t hd = static_cast<std::size_t>(d.headDim);
    requireSize(r.q, qn, "q", "[heads, qLen, headDim]");
    // K and V as f16 / bf16 bits (kvType): read in that format (the keys in float when RoPE rotates copies)
    const bool bits = r.kvType.has_value();
    const KVStorage kvFormat = bits ? storageOf(*r.kvType) : KVStorage::f32;
    const char* vShape = d.valueDim != 0 ? "[kvHeads, kLen, valueDim]" : "[kvHeads, kLen, headDim]";
    if (bits) {
        if (!r.k.empty() || !r.v.empty()) fail("k", "and v are given as floats and as kvType bits: give kBits and vBits only");
        requireSize(r.kBits, kn, "k", "[kvHeads, kLen, headDim]");
        requireSize(r.vBits, vn, "v", vShape);
    } else {
        requireSize(r.k, kn, "k", "[kvHeads, kLen, headDim]");
        requireSize(r.v, vn, "v", vShape);
    }
    // a large call keeps the pool's workers awake across its passes (and wakes them now, while it checks)
    const detail::PoolHold hold(static_cast<double>(d.heads) * d.qLen * static_cast<double>(d.kLen) * static_cast<double>(d.headDim + d.valueChannels()));

    // RoPE without temperature runs in one pass on the pool what would otherwise be six: the finiteness
    // scans of q, k and v, the rotated copies of q and k, their norms (the overflow check) and the
    // packing of the keys (see `fused` below). Errors keep their order: the scans come first, so when
    // a check between them and that pass fails, the scans run before its error is let through.
    const RopeEncoding* rope = ropePart(r.encoding);
    const TemperatureEncoding* temperature = temperaturePart(r.encoding);
    const bool onePass = rope != nullptr && temperature == nullptr && !bits;
    const auto requireFiniteInputs = [&] {
        requireFiniteValues(r.q.data, qn, "q");
        if (bits) {
            detail::requireFiniteBits(r.kBits.data, kn, kvFormat, "k");
            detail::requireFiniteBits(r.vBits.data, vn, kvFormat, "v");
            return;
        }
        requireFiniteValues(r.k.data, kn, "k");
        requireFiniteValues(r.v.data, vn, "v");
    };
    if (!onePass) requireFiniteInputs();

    std::optional<RopeFrequencies> freqs;
    std::optional<detail::AttentionPositions> positions;
    AttentionInputs in;
    // The rotated copies and the engine's workspace come from this thread's scratch, kept between calls
    // (see CallScratch): a call then writes into memory the last one touched instead of fresh pages.
    CallScratch& scratch = callScratch();
    const struct TrimAfter {
        CallScratch& s;
        ~TrimAfter() { s.trim(); }
    } trimAfter{scratch};  // when the call returns or throws
    float* qRot = nullptr;
    float* kRot = nullptr;
    try {
        if (r.window < 0) fail("window", "must be >= 1 (got " + std::to_string(r.window) + ")");
        if (r.chunk < 0) fail("chunk", "must be >= 1 (got " + std::to_string(r.chunk) + ")");
        if (!r.keyMask.empty() && r.keyMask.size != static_cast<std::size_t>(d.kLen))
            fail("keyMask", "must have kLen = " + std::to_string(d.kLen) + " entries (got " + std::to_string(r.keyMask.size) + ")");
        for (std::size_t j = 0; j < r.keyMask.size; ++j)
            if (r.keyMask[j] > 1) fail("keyMask[" + std::to_string(j) + "]", "must be 0 or 1 (got " + std::to_string(r.keyMask[j]) + ")");
        if (!std::isnan(r.scale)) requireFinite(r.scale, "scale");
        detail::requireSinkLogits(r.sinkLogits, d.heads);
        detail::requireStickBreakingCall(r.encoding, r.causal, !r.sinkLogits.empty());
        const float softcap = detail::checkedSoftcap(r.softcap);
        if (!out) fail("out", "is required");

        // Multi-axis RoPE rotates by one position per axis; masks and score terms then use maskPositions.
        if (rope) {
            RopeConfig c = rope->config;
            c.headDim = d.headDim;
            freqs = ropeFrequencies(c);
        }
        const std::size_t axes = freqs ? static_cast<std::size_t>(freqs->axes) : 1;
        positions.emplace(detail::resolveAttentionPositions(r, axes));

        in.dims = d;
        in.q = r.q.data;
        in.k = bits ? static_cast<const void*>(r.kBits.data) : r.k.data;
        in.v = bits ? static_cast<const void*>(r.vBits.data) : r.v.data;
        in.keyStorage = in.valueStorage = kvFormat;
        in.qPos = positions->q().data();  // masks and score terms
        in.kPos = positions->k().data();
        in.mask = AttentionMask{r.causal, r.window, r.keyMask.empty() ? nullptr : r.keyMask.data, 0, r.chunk};
        in.scale = static_cast<float>(std::isnan(r.scale) ? defaultScale(r.encoding, d.headDim) : r.scale);
        in.sinkLogits = r.sinkLogits.empty() ? nullptr : r.sinkLogits.data;
        in.softcap = softcap;
        if (rope) {
            requireXposRange(*freqs, positions->qRotation.data(), positions->qRotation.size(), "qPositions");
            requireXposRange(*freqs, positions->kRotation.data(), positions->kRotation.size(), "kPositions");
            qRot = scratch.room(scratch.q, qn);
            kRot = scratch.room(scratch.k, kn);
        }
    } catch (...) {
        if (onePass) requireFiniteInputs();  // a non-finite input is reported first
        throw;
    }

    if (rope) {
        // RoPE: rotate copies of q and k at their logical positions (per axis), then plain dot products;
        // q and k copied and rotated in one pass on the pool, chunk by chunk.
        // keys given as bits: converted to floats in kRot, then rotated there (attention over the floats they stand for)
        if (bits) detail::bitsToFloats(r.kBits.data, kn, kvFormat, kRot);
        const detail::RopeCopy copies[2] = {{r.q.data, qRot, d.heads, d.qLen, positions->qRotation.data(), RopeRole::query},
                                            {bits ? kRot : r.k.data, kRot, d.kvHeads, d.kLen, positions->kRotation.data(), RopeRole::key}};
        if (onePass) {
            // The fused pass. Each task that rotates a chunk of q or k first scans the chunk's inputs for
            // non-finite values, then takes the largest norm of the rotated rows and (keys) packs them for
            // the engine, while they are in cache; v is scanned by further tasks of the same pass, in
            // 64 KiB pieces. Flags and maxima: the same whoever ran which task. A flagged input is then
            // scanned again in order, for the message naming its first non-finite value.
            std::atomic<bool> bad[3] = {false, false, false};
            MaxSquare norms[2];
            const std::size_t packedStride = kernels::packedKeysSize(static_cast<std::size_t>(d.kLen), hd);  // floats
            scratch.workspace.packedKeys.resize(static_cast<std::size_t>(d.kvHeads) * packedStride * sizeof(float));
            float* const packed = reinterpret_cast<float*>(scratch.workspace.packedKeys.data());
            constexpr std::size_t kPiece = std::size_t(1) << 14;
            detail::RopeCopyHooks hooks;
            hooks.rows = [&](std::size_t j, int h, int t0, int n) {
                const detail::RopeCopy& c = copies[j];
                const std::size_t at = (static_cast<std::size_t>(h) * c.tokens + t0) * hd, rows = static_cast<std::size_t>(n);
                if (!kernels::active().allFinite(c.src + at, rows * hd)) bad[j].store(true, std::memory_order_relaxed);
                norms[j].raise(maxRowNormSquared(c.dst + at, rows, hd));
                if (j == 1)
                    kernels::packKeyRange(c.dst + static_cast<std::size_t>(h) * c.tokens * hd, static_cast<std::size_t>(t0), static_cast<std::size_t>(t0) + rows,
                                          hd, packed + static_cast<std::size_t>(h) * packedStride);
            };
            hooks.extraTasks = (vn + kPiece - 1) / kPiece;
            hooks.extra = [&](std::size_t p) {
                if (!kernels::active().allFinite(r.v.data + p * kPiece, std::min(kPiece, vn - p * kPiece))) bad[2].store(true, std::memory_order_relaxed);
            };
            hooks.extraWork = 16.0 * static_cast<double>(vn);
            detail::ropeCopies(copies, 2, d.headDim, *freqs, rope->layout, &hooks);
            if (bad[0] || bad[1] || bad[2]) requireFiniteInputs();
            in.q = qRot;
            in.k = kRot;
            in.kPacked = packed;
            // |q.k| <= |q| |k| of the rotated copies: refuse inputs whose scores could leave float range
            // rather than return a softmax of infinities.
            detail::requireScoreBound(norms[0].norm(), norms[1].norm(), std::fabs(in.scale));
            detail::runWithEncoding(in, r.encoding, AttentionOutputs{out, weights, scores}, &scratch.workspace);
            return;
        }
        detail::ropeCopies(copies, 2, d.headDim, *freqs, rope->layout);
        in.q = qRot;
        in.k = kRot;
        in.keyStorage = KVStorage::f32;
    }
    if (temperature) {  // query temperature at each query's logical position (the sequence index with multi-axis RoPE)
        if (!rope) {
            qRot = scratch.room(scratch.q, qn);
            std::copy(r.q.data, r.q.data + qn, qRot);
        }
        applyQueryTemperature(*temperature, qRot, d.heads, d.qLen, d.headDim, positions->q().data());
        in.q = qRot;
    }
    // |q.k| <= |q| |k| (of the rotated copies when RoPE is on): refuse inputs whose scores could leave
    // float range rather than return a softmax of infinities.
    const std::size_t qRows = static_cast<std::size_t>(d.heads) * d.qLen, kRows = static_cast<std::size_t>(d.kvHeads) * d.kLen;
    if (in.keyStorage == KVStorage::f32)
        detail::requireScoresInRange(in.q, qRows, static_cast<const float*>(in.k), kRows, hd, std::fabs(in.scale));
    else
        detail::requireScoreBound(detail::maxRowNorm(in.q, qRows, hd), maxRowNormBits(r.kBits.data, kRows, hd, kvFormat), std::fabs(in.scale));
    detail::runWithEncoding(in, r.encoding, AttentionOutputs{out, weights, scores}, &scratch.workspace);
}

AttentionResult attention(const AttentionRequest& r, bool returnWeights, bool returnScores) {
    AttentionResult res;
    const AttentionDims& d = r.dims;
    res.out.resize(static_cast<std::size_t>(std::max(d.heads, 0)) * std::max(d.qLen, 0) * std::max(d.valueChannels(), 0));
    const std::size_t wn = static_cast<std::size_t>(std::max(d.heads, 0)) * std::max(d.qLen, 0) * std::max(d.kLen, 0);
    if (returnWeights) res.weights.resize(wn);
    if (returnScores) res.scores.resize(wn);
    attention(r, res.out.data(), returnWeights ? res.weights.data() : nullptr, returnScores ? res.scores.data() : nullptr);
    return res;
}

void attentionBias(const Encoding& e, int heads, View<std::int32_t> qp, View<std::int32_t> kp, float* out) {
    if (!isScalarBias(e))
        fail("encoding.kind", "must be a scalar-bias encoding (" + kinds::scalarBiasNames() + ", or an array of them)");
    requireSize(heads, "heads", limits::kMaxHeads);
    requirePositive(static_cast<std::int64_t>(qp.size), "qPositions.length");
    requirePositive(static_cast<std::int64_t>(kp.size), "kPositions.length");
    requirePositions(qp.data, qp.size, "qPositions");
    requirePositions(kp.data, kp.size, "kPositions");
    AttentionInputs in;
    in.dims = AttentionDims{heads, heads, 1, static_cast<int>(qp.size), static_cast<int>(kp.size)};
    in.qPos = qp.data;
    in.kPos = kp.data;
    auto term = detail::makeTerm(in, e);  // non-null: only scalar-bias kinds get here
    for (int h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < qp.size; ++i) {
            float* row = out + (static_cast<std::size_t>(h) * qp.size + i) * kp.size;
            std::fill(row, row + kp.size, 0.0f);
            term->addBias(h, qp.data[i], 0, static_cast<int>(kp.size), kp.data, row);
        }
}

std::vector<float> attentionBias(const Encoding& e, int heads, const std::vector<std::int32_t>& q, const std::vector<std::int32_t>& k) {
    std::vector<float> out(static_cast<std::size_t>(std::max(heads, 0)) * q.size() * k.size());
    attentionBias(e, heads, View<std::int32_t>(q), View<std::int32_t>(k), out.data());
    return out;
}

}  // namespace posenc
