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
#include "kernels/kernel_set.hpp"
#include "attention/internal.hpp"
#include "attention/positions.hpp"
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
        const std::size_t bytes = (q.capacity() + k.capacity() + workspace.packedKeys.capacity() + workspace.keyRows.capacity() +
                                   workspace.partials.capacity()) * sizeof(float);
        if (bytes > kKeptScratchBytes) *this = CallScratch();
    }
};

CallScratch& callScratch() {
    thread_local CallScratch scratch;
    return scratch;
}

void requireSize(const View<float>& v, std::size_t n, const char* field, const char* shape) {
    if (v.data == nullptr && n > 0) fail(field, "is required");
    if (v.size != n) fail(field, std::string("must have ") + std::to_string(n) + " elements " + shape + " (got " + std::to_string(v.size) + ")");
}

}  // namespace

namespace detail {
double maxRowNorm(const float* x, std::size_t rows, std::size_t hd) {
    // Rows in fixed pieces on the pool; a maximum, so the same value whoever ran which piece. The
    // squared norms are non-negative doubles, whose bit patterns order like their values.
    constexpr std::size_t kRows = 256;
    std::atomic<std::uint64_t> best{0};
    parallelFor((rows + kRows - 1) / kRows, 16.0 * static_cast<double>(rows) * hd, [&](std::size_t p, int) {
        double m = 0;
        for (std::size_t r = p * kRows; r < std::min(rows, (p + 1) * kRows); ++r) {
            double s = kernels::active().dot(x + r * hd, x + r * hd, hd);  // float; past 3.4e38 recomputed in double
            if (!std::isfinite(s)) {
                s = 0;
                for (std::size_t c = 0; c < hd; ++c) s += static_cast<double>(x[r * hd + c]) * x[r * hd + c];
            }
            m = std::max(m, s);
        }
        std::uint64_t bits, seen = best.load(std::memory_order_relaxed);
        std::memcpy(&bits, &m, sizeof m);
        while (seen < bits && !best.compare_exchange_weak(seen, bits, std::memory_order_relaxed)) {
        }
    });
    const std::uint64_t bits = best.load();
    double m;
    std::memcpy(&m, &bits, sizeof m);
    return std::sqrt(m);
}

void requireScoresInRange(const float* q, std::size_t qRows, const float* k, std::size_t kRows, std::size_t hd, double gain) {
    // k may be null: gain then already holds the keys' largest norm (the KV cache tracks it)
    const double bound = gain * maxRowNorm(q, qRows, hd) * (k ? maxRowNorm(k, kRows, hd) : 1.0);
    if (!(bound < 1e37))
        fail("q", "and k are large enough for scale |q| |k| (up to " + formatFixed6(bound) +  // std::to_string's "%f", without printf
                      ") to overflow float scores (3.4e38): scale them down (the softmax cannot recover from infinite scores)");
}

void requireFiniteResult(const float* out, std::size_t n, float scale) {
    if (firstNonFinite(out, n) < n)
        fail("encoding", "gives scores beyond float range with scale " + show(scale) +
                             " (a bias or position term of magnitude near 3.4e38): the result would be NaN");
}

void runWithEncoding(const AttentionInputs& in, const Encoding& e, const AttentionOutputs& out, AttentionWorkspace* workspace) {
    auto term = makeTerm(in, e);
    NoScoreTerm none;
    runAttention(in, term ? *term : none, out, workspace);
    requireFiniteResult(out.out, static_cast<std::size_t>(in.dims.heads) * in.dims.qLen * in.dims.headDim, in.scale);
}
}  // namespace detail

void attention(const AttentionRequest& r, float* out, float* weights, float* scores) {
    const AttentionDims& d = r.dims;
    requirePositive(d.heads, "heads");
    requirePositive(d.kvHeads, "kvHeads");
    requirePositive(d.headDim, "headDim");
    requirePositive(d.qLen, "qLen");
    requirePositive(d.kLen, "kLen");
    if (d.heads % d.kvHeads != 0)
        fail("heads", "(" + std::to_string(d.heads) + ") must be a multiple of kvHeads (" + std::to_string(d.kvHeads) + ")");
    const std::size_t qn = elementCount({d.heads, d.qLen, d.headDim}, "q");
    const std::size_t kn = elementCount({d.kvHeads, d.kLen, d.headDim}, "k");
    requireSize(r.q, qn, "q", "[heads, qLen, headDim]");
    requireSize(r.k, kn, "k", "[kvHeads, kLen, headDim]");
    requireSize(r.v, kn, "v", "[kvHeads, kLen, headDim]");
    requireFiniteValues(r.q.data, qn, "q");
    requireFiniteValues(r.k.data, kn, "k");
    requireFiniteValues(r.v.data, kn, "v");
    if (r.window < 0) fail("window", "must be >= 1 (got " + std::to_string(r.window) + ")");
    if (r.chunk < 0) fail("chunk", "must be >= 1 (got " + std::to_string(r.chunk) + ")");
    if (!r.keyMask.empty() && r.keyMask.size != static_cast<std::size_t>(d.kLen))
        fail("keyMask", "must have kLen = " + std::to_string(d.kLen) + " entries (got " + std::to_string(r.keyMask.size) + ")");
    for (std::size_t j = 0; j < r.keyMask.size; ++j)
        if (r.keyMask[j] > 1) fail("keyMask[" + std::to_string(j) + "]", "must be 0 or 1 (got " + std::to_string(r.keyMask[j]) + ")");
    if (!std::isnan(r.scale)) requireFinite(r.scale, "scale");
    if (!out) fail("out", "is required");

    // Multi-axis RoPE rotates by one position per axis; masks and score terms then use maskPositions.
    const RopeEncoding* rope = ropePart(r.encoding);
    const TemperatureEncoding* temperature = temperaturePart(r.encoding);
    std::optional<RopeFrequencies> freqs;
    if (rope) {
        RopeConfig c = rope->config;
        c.headDim = d.headDim;
        freqs = ropeFrequencies(c);
    }
    const std::size_t axes = freqs ? static_cast<std::size_t>(freqs->axes) : 1;
    const detail::AttentionPositions positions = detail::resolveAttentionPositions(r, axes);
    const std::vector<std::int32_t>& qRopePos = positions.qRotation;
    const std::vector<std::int32_t>& kRopePos = positions.kRotation;
    const std::vector<std::int32_t>& qPos = positions.q();  // masks and score terms
    const std::vector<std::int32_t>& kPos = positions.k();

    AttentionInputs in;
    in.dims = d;
    in.q = r.q.data;
    in.k = r.k.data;
    in.v = r.v.data;
    in.qPos = qPos.data();
    in.kPos = kPos.data();
    in.mask = AttentionMask{r.causal, r.window, r.keyMask.empty() ? nullptr : r.keyMask.data, 0, r.chunk};
    in.scale = static_cast<float>(std::isnan(r.scale) ? defaultScale(r.encoding, d.headDim) : r.scale);

    // The rotated copies and the engine's workspace come from this thread's scratch, kept between calls
    // (see CallScratch): a call then writes into memory the last one touched instead of fresh pages.
    CallScratch& scratch = callScratch();
    const struct TrimAfter {
        CallScratch& s;
        ~TrimAfter() { s.trim(); }
    } trimAfter{scratch};  // when the call returns or throws
    float* qRot = nullptr;
    float* kRot = nullptr;
    if (rope) {
        // RoPE: rotate copies of q and k at their logical positions (per axis), then plain dot products.
        const RopeFrequencies& f = *freqs;
        requireXposRange(f, qRopePos.data(), qRopePos.size(), "qPositions");
        requireXposRange(f, kRopePos.data(), kRopePos.size(), "kPositions");
        // q and k copied and rotated in one pass on the pool, chunk by chunk (inputs checked above)
        qRot = scratch.room(scratch.q, qn);
        kRot = scratch.room(scratch.k, kn);
        const detail::RopeCopy copies[2] = {{r.q.data, qRot, d.heads, d.qLen, qRopePos.data(), RopeRole::query},
                                            {r.k.data, kRot, d.kvHeads, d.kLen, kRopePos.data(), RopeRole::key}};
        detail::ropeCopies(copies, 2, d.headDim, f, rope->layout);
        in.q = qRot;
        in.k = kRot;
    }
    if (temperature) {  // query temperature at each query's logical position (the sequence index with multi-axis RoPE)
        if (!rope) {
            qRot = scratch.room(scratch.q, qn);
            std::copy(r.q.data, r.q.data + qn, qRot);
        }
        applyQueryTemperature(*temperature, qRot, d.heads, d.qLen, d.headDim, qPos.data());
        in.q = qRot;
    }
    // |q.k| <= |q| |k| (of the rotated copies when RoPE is on): refuse inputs whose scores could leave
    // float range rather than return a softmax of infinities.
    detail::requireScoresInRange(in.q, static_cast<std::size_t>(d.heads) * d.qLen, in.k, static_cast<std::size_t>(d.kvHeads) * d.kLen,
                                 static_cast<std::size_t>(d.headDim), std::fabs(in.scale));
    detail::runWithEncoding(in, r.encoding, AttentionOutputs{out, weights, scores}, &scratch.workspace);
}

AttentionResult attention(const AttentionRequest& r, bool returnWeights, bool returnScores) {
    AttentionResult res;
    const AttentionDims& d = r.dims;
    res.out.resize(static_cast<std::size_t>(std::max(d.heads, 0)) * std::max(d.qLen, 0) * std::max(d.headDim, 0));
    const std::size_t wn = static_cast<std::size_t>(std::max(d.heads, 0)) * std::max(d.qLen, 0) * std::max(d.kLen, 0);
    if (returnWeights) res.weights.resize(wn);
    if (returnScores) res.scores.resize(wn);
    attention(r, res.out.data(), returnWeights ? res.weights.data() : nullptr, returnScores ? res.scores.data() : nullptr);
    return res;
}

void attentionBias(const Encoding& e, int heads, View<std::int32_t> qp, View<std::int32_t> kp, float* out) {
    if (!isScalarBias(e))
        fail("encoding.kind", "must be a scalar-bias encoding ('alibi', 't5', 'swin', 'kerple', 'fire', or an array of them)");
    requirePositive(heads, "heads");
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
