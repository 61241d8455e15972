#include "posenc/attention/encoding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "attention/internal.hpp"
#include "posenc/common/errors.hpp"
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

// What the distance-only bias terms (T5, ALiBi) may precompute from the call's positions.
CallDistances callDistances(const AttentionInputs& in) {
    CallDistances c;
    c.largest = callDistance(in);
    c.keysIncrease = true;
    for (int j = 1; j < in.dims.kLen && c.keysIncrease; ++j) c.keysIncrease = in.kPos[j] > in.kPos[j - 1];
    c.pairsPerHead = static_cast<double>(in.dims.qLen) * in.dims.kLen;
    return c;
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

const TemperatureEncoding* temperaturePart(const Encoding& e) {
    const TemperatureEncoding* found = nullptr;
    if (const auto* t = std::get_if<TemperatureEncoding>(&e)) found = t;
    if (const auto* c = std::get_if<CombinedEncoding>(&e))
        for (const Encoding& p : c->parts)
            if (const auto* t = std::get_if<TemperatureEncoding>(&p)) {
                if (found) fail("encoding", "combines two 'temperature' parts: at most one query temperature");
                found = t;
            }
    if (found) validateTemperature(*found);
    return found;
}

namespace detail {

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
            [&](const AlibiEncoding& a) -> std::unique_ptr<ScoreTerm> { return std::make_unique<AlibiTerm>(a, d.heads, callDistances(in)); },
            [&](const T5Encoding& t) -> std::unique_ptr<ScoreTerm> { return std::make_unique<T5Term>(t, d.heads, callDistances(in)); },
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

}  // namespace detail

}  // namespace posenc
