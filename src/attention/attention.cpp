#include "posenc/attention/attention.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>

#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "attention/internal.hpp"
#include "common/thread_pool.hpp"
#include "rotary/internal.hpp"
#include "posenc/scores/combined.hpp"

namespace posenc {

namespace {

template <class... F>
struct Overload : F... {
    using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

// The smallest and largest qPos - kPos over the pairs the mask admits (empty: min > max).
std::pair<std::int64_t, std::int64_t> allowedDeltaRange(const AttentionInputs& in) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    for (int i = 0; i < in.dims.qLen; ++i)
        for (int j = 0; j < in.dims.kLen; ++j)
            if (keyAllowed(in.mask, in.qPos[i], in.kPos[j], j)) {
                const std::int64_t d = static_cast<std::int64_t>(in.qPos[i]) - in.kPos[j];
                lo = std::min(lo, d);
                hi = std::max(hi, d);
            }
    return {lo, hi};
}

// The largest |qPos - kPos| over all pairs of the call (masked or not).
std::int64_t callDistance(const AttentionInputs& in) {
    std::int64_t qMin = std::numeric_limits<std::int64_t>::max(), qMax = std::numeric_limits<std::int64_t>::min(), kMin = qMin, kMax = qMax;
    for (int i = 0; i < in.dims.qLen; ++i) qMin = std::min<std::int64_t>(qMin, in.qPos[i]), qMax = std::max<std::int64_t>(qMax, in.qPos[i]);
    for (int j = 0; j < in.dims.kLen; ++j) kMin = std::min<std::int64_t>(kMin, in.kPos[j]), kMax = std::max<std::int64_t>(kMax, in.kPos[j]);
    return std::max(kMax - qMin, qMax - kMin);
}

std::unique_ptr<ScoreTerm> makeTerm(const AttentionInputs& in, const Encoding& e) {
    const AttentionDims& d = in.dims;
    if (const auto* c = std::get_if<CombinedEncoding>(&e)) {
        std::vector<std::unique_ptr<ScoreTerm>> parts;
        int contentQueries = 0;
        for (const Encoding& p : c->parts) {
            if (std::holds_alternative<CombinedEncoding>(p)) fail("encoding", "parts must be single encodings, not combinations");
            contentQueries += std::holds_alternative<XlEncoding>(p);
            if (auto t = makeTerm(in, p)) parts.push_back(std::move(t));
        }
        if (contentQueries > 1) fail("encoding", "combines two 'xl' parts: each changes the content query");
        if (parts.empty()) return nullptr;
        if (parts.size() == 1) return std::move(parts.front());
        return std::make_unique<CombinedTerm>(std::move(parts));
    }
    return std::visit(
        Overload{
            // no score term: runWithEncoding uses a stateless no-op term (nothing to allocate)
            [&](const NoEncoding&) -> std::unique_ptr<ScoreTerm> { return nullptr; },
            [&](const RopeEncoding&) -> std::unique_ptr<ScoreTerm> { return nullptr; },
            [&](const TemperatureEncoding&) -> std::unique_ptr<ScoreTerm> { return nullptr; },  // scales q (attention())
            [&](const AlibiEncoding& a) -> std::unique_ptr<ScoreTerm> { return std::make_unique<AlibiTerm>(a, d.heads); },
            [&](const T5Encoding& t) -> std::unique_ptr<ScoreTerm> { return std::make_unique<T5Term>(t, d.heads, callDistance(in)); },
            [&](const SwinEncoding& s) -> std::unique_ptr<ScoreTerm> {
                auto term = std::make_unique<SwinTerm>(s, d.heads);
                term->checkPositions(in.qPos, d.qLen, "qPositions");
                term->checkPositions(in.kPos, d.kLen, "kPositions");
                return term;
            },
            [&](const ShawEncoding& s) -> std::unique_ptr<ScoreTerm> { return std::make_unique<ShawTerm>(s, d.headDim); },
            [&](const XlEncoding& x) -> std::unique_ptr<ScoreTerm> {
                const auto [lo, hi] = allowedDeltaRange(in);
                if (lo <= hi && lo < 0)
                    fail("encoding", "'xl' needs every attended key at or before its query (i - j >= 0); use causal: true or mask future keys");
                auto term = std::make_unique<XlTerm>(x, d.heads, d.headDim, lo <= hi ? hi : 0);
                if (lo <= hi && hi >= term->distances())
                    fail("encoding.r", "has " + std::to_string(term->distances()) + " distances but the call needs i - j up to " + std::to_string(hi));
                return term;
            },
            [&](const DebertaEncoding& x) -> std::unique_ptr<ScoreTerm> {
                return std::make_unique<DebertaTerm>(x, d.heads, d.headDim, d.kLen, callDistance(in));
            },
            [&](const KerpleEncoding& x) -> std::unique_ptr<ScoreTerm> { return std::make_unique<KerpleTerm>(x, d.heads); },
            [&](const FireEncoding& x) -> std::unique_ptr<ScoreTerm> { return std::make_unique<FireTerm>(x, d.heads); },
            [&](const CopeEncoding& x) -> std::unique_ptr<ScoreTerm> { return std::make_unique<CopeTerm>(x, in); },
            [&](const CombinedEncoding&) -> std::unique_ptr<ScoreTerm> { return nullptr; },  // handled above
            [&](const RelativeKeyEncoding& x) -> std::unique_ptr<ScoreTerm> {
                auto term = std::make_unique<RelativeKeyTerm>(x, d.headDim, d.kLen);
                const auto [lo, hi] = allowedDeltaRange(in);
                if (lo <= hi && (lo <= -x.maxPosition || hi >= x.maxPosition))
                    fail("encoding.maxPosition", "(" + std::to_string(x.maxPosition) + ") is too small: attended distances i - j span [" +
                                                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
                return term;
            },
        },
        e);
}

void requireSize(const View<float>& v, std::size_t n, const char* field, const char* shape) {
    if (v.data == nullptr && n > 0) fail(field, "is required");
    if (v.size != n) fail(field, std::string("must have ") + std::to_string(n) + " elements " + shape + " (got " + std::to_string(v.size) + ")");
}

}  // namespace

const RopeEncoding* ropePart(const Encoding& e) {
    if (const auto* r = std::get_if<RopeEncoding>(&e)) return r;
    const RopeEncoding* found = nullptr;
    if (const auto* c = std::get_if<CombinedEncoding>(&e))
        for (const Encoding& p : c->parts)
            if (const auto* r = std::get_if<RopeEncoding>(&p)) {
                if (found) fail("encoding", "combines two 'rope' parts: at most one rotary encoding");
                found = r;
            }
    return found;
}

bool isScalarBias(const Encoding& e) {
    if (const auto* c = std::get_if<CombinedEncoding>(&e)) {
        for (const Encoding& p : c->parts)
            if (!isScalarBias(p)) return false;
        return !c->parts.empty();
    }
    return std::holds_alternative<AlibiEncoding>(e) || std::holds_alternative<T5Encoding>(e) || std::holds_alternative<SwinEncoding>(e) ||
           std::holds_alternative<KerpleEncoding>(e) || std::holds_alternative<FireEncoding>(e);
}

double defaultScale(const Encoding& e, int headDim) {
    if (const auto* c = std::get_if<CombinedEncoding>(&e)) {
        const double standard = 1.0 / std::sqrt(static_cast<double>(headDim));
        double chosen = standard;
        for (const Encoding& p : c->parts) {
            const double s = defaultScale(p, headDim);
            if (s == standard) continue;
            if (chosen != standard && s != chosen)
                fail("scale", "is required: the combined encodings default to different scales (" + show(chosen) + " and " + show(s) + ")");
            chosen = s;
        }
        return chosen;
    }
    if (std::holds_alternative<T5Encoding>(e)) return 1.0;
    if (const auto* d = std::get_if<DebertaEncoding>(&e)) return 1.0 / std::sqrt(static_cast<double>(headDim) * (1 + (d->c2p ? 1 : 0) + (d->p2c ? 1 : 0)));
    return 1.0 / std::sqrt(static_cast<double>(headDim));
}

namespace detail {
std::vector<std::int32_t> defaultKeyPositions(int kLen) {
    std::vector<std::int32_t> p(static_cast<std::size_t>(kLen));
    for (int j = 0; j < kLen; ++j) p[j] = j;
    return p;
}
std::vector<std::int32_t> defaultQueryPositions(int qLen, int kLen) {
    std::vector<std::int32_t> p(static_cast<std::size_t>(qLen));
    const int first = std::max(kLen - qLen, 0);
    for (int i = 0; i < qLen; ++i) p[i] = first + i;
    return p;
}

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
        fail("q", "and k are large enough for scale |q| |k| (up to " + std::to_string(bound) +
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
    // Rotation positions ([axes, len]); given empty, every axis at the default sequence index (text tokens).
    auto rotationPositions = [&](const View<std::int32_t>& given, int len, bool query, const char* field, const char* lenName) {
        std::vector<std::int32_t> p;
        if (given.empty()) {
            const auto dflt = query ? detail::defaultQueryPositions(d.qLen, d.kLen) : detail::defaultKeyPositions(d.kLen);
            for (std::size_t a = 0; a < axes; ++a) p.insert(p.end(), dflt.begin(), dflt.end());
        } else {
            p.assign(given.data, given.data + given.size);
        }
        const std::size_t want = axes * static_cast<std::size_t>(len);
        if (p.size() != want)
            fail(field, axes == 1 ? "must have " + std::string(lenName) + " = " + std::to_string(len) + " entries (got " + std::to_string(p.size()) + ")"
                                  : "must be [axes, " + std::string(lenName) + "] = " + std::to_string(axes) + " x " + std::to_string(len) +
                                        " entries for multi-axis RoPE (got " + std::to_string(p.size()) + ")");
        requirePositions(p.data(), p.size(), field);
        return p;
    };
    const std::vector<std::int32_t> qRopePos = rotationPositions(r.qPositions, d.qLen, true, "qPositions", "qLen");
    const std::vector<std::int32_t> kRopePos = rotationPositions(r.kPositions, d.kLen, false, "kPositions", "kLen");
    // Masks and score terms: the positions themselves with one axis; with several, the sequence index.
    std::vector<std::int32_t> qMask, kMask;
    if (axes == 1 && !r.maskPositions.empty())
        fail("maskPositions", "apply only to multi-axis RoPE (otherwise qPositions / kPositions are the mask positions)");
    if (axes > 1) {
        if (r.maskPositions.empty()) {
            kMask = detail::defaultKeyPositions(d.kLen);
            qMask = detail::defaultQueryPositions(d.qLen, d.kLen);
        } else {
            if (r.maskPositions.size != static_cast<std::size_t>(d.kLen))
                fail("maskPositions", "must have kLen = " + std::to_string(d.kLen) + " entries (got " + std::to_string(r.maskPositions.size) + ")");
            if (d.qLen > d.kLen)
                fail("maskPositions", "give the queries theirs as the last qLen keys' (qLen " + std::to_string(d.qLen) + " > kLen " + std::to_string(d.kLen) + ")");
            kMask.assign(r.maskPositions.data, r.maskPositions.data + r.maskPositions.size);
            requirePositions(kMask.data(), kMask.size(), "maskPositions");
            qMask.assign(kMask.end() - d.qLen, kMask.end());
        }
    }
    const std::vector<std::int32_t>& qPos = axes == 1 ? qRopePos : qMask;
    const std::vector<std::int32_t>& kPos = axes == 1 ? kRopePos : kMask;

    AttentionInputs in;
    in.dims = d;
    in.q = r.q.data;
    in.k = r.k.data;
    in.v = r.v.data;
    in.qPos = qPos.data();
    in.kPos = kPos.data();
    in.mask = AttentionMask{r.causal, r.window, r.keyMask.empty() ? nullptr : r.keyMask.data, 0, r.chunk};
    in.scale = static_cast<float>(std::isnan(r.scale) ? defaultScale(r.encoding, d.headDim) : r.scale);

    std::unique_ptr<float[]> qRot, kRot;  // uninitialised: written by the pool's tasks
    if (rope) {
        // RoPE: rotate copies of q and k at their logical positions (per axis), then plain dot products.
        const RopeFrequencies& f = *freqs;
        requireXposRange(f, qRopePos.data(), qRopePos.size(), "qPositions");
        requireXposRange(f, kRopePos.data(), kRopePos.size(), "kPositions");
        // q and k copied and rotated in one pass on the pool, chunk by chunk (inputs checked above)
        qRot.reset(new float[qn]);
        kRot.reset(new float[kn]);
        const detail::RopeCopy copies[2] = {{r.q.data, qRot.get(), d.heads, d.qLen, qRopePos.data(), RopeRole::query},
                                            {r.k.data, kRot.get(), d.kvHeads, d.kLen, kRopePos.data(), RopeRole::key}};
        detail::ropeCopies(copies, 2, d.headDim, f, rope->layout);
        in.q = qRot.get();
        in.k = kRot.get();
    }
    if (temperature) {  // query temperature at each query's logical position (the sequence index with multi-axis RoPE)
        if (!rope) {
            qRot.reset(new float[qn]);
            std::copy(r.q.data, r.q.data + qn, qRot.get());
        }
        applyQueryTemperature(*temperature, qRot.get(), d.heads, d.qLen, d.headDim, qPos.data());
        in.q = qRot.get();
    }
    // |q.k| <= |q| |k| (of the rotated copies when RoPE is on): refuse inputs whose scores could leave
    // float range rather than return a softmax of infinities.
    detail::requireScoresInRange(in.q, static_cast<std::size_t>(d.heads) * d.qLen, in.k, static_cast<std::size_t>(d.kvHeads) * d.kLen,
                                 static_cast<std::size_t>(d.headDim), std::fabs(in.scale));
    detail::runWithEncoding(in, r.encoding, AttentionOutputs{out, weights, scores});
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
    requirePositive(heads, "heads");
    requirePositive(static_cast<std::int64_t>(qp.size), "qPositions.length");
    requirePositive(static_cast<std::int64_t>(kp.size), "kPositions.length");
    requirePositions(qp.data, qp.size, "qPositions");
    requirePositions(kp.data, kp.size, "kPositions");
    if (!isScalarBias(e))
        fail("encoding.kind", "must be a scalar-bias encoding ('alibi', 't5', 'swin', 'kerple', 'fire', or an array of them)");
    AttentionInputs in;
    in.dims = AttentionDims{heads, heads, 1, static_cast<int>(qp.size), static_cast<int>(kp.size)};
    in.qPos = qp.data;
    in.kPos = kp.data;
    auto term = makeTerm(in, e);  // non-null: only scalar-bias kinds get here
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
