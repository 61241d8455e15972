#include "posenc/attention/encoding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "attention/internal.hpp"
#include "encodings/kind_spec.hpp"
#include "posenc/common/errors.hpp"
#include "posenc/scores/combined.hpp"

namespace posenc {

namespace kinds {

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

}  // namespace kinds

namespace {
const RopeEncoding* rotaryOf(const Encoding& e) {
    if (const auto* r = std::get_if<RopeEncoding>(&e)) return r;
    if (const auto* l = std::get_if<LiereEncoding>(&e)) return &l->rope;
    return nullptr;
}

// The one part of e that `match` picks (e itself, or one part of a combined encoding); two such parts
// are refused with `twice`.
template <class T, class Match>
const T* singlePart(const Encoding& e, Match match, const char* twice) {
    if (const T* t = match(e)) return t;
    const T* found = nullptr;
    if (const auto* c = std::get_if<CombinedEncoding>(&e))
        for (const Encoding& p : c->parts)
            if (const T* t = match(p)) {
                if (found) fail("encoding", twice);
                found = t;
            }
    return found;
}
}  // namespace

const RopeEncoding* ropePart(const Encoding& e) {
    return singlePart<RopeEncoding>(e, rotaryOf, "combines two 'rope' parts: at most one rotary encoding ('rope' or 'liere')");
}

const ForgettingEncoding* forgettingPart(const Encoding& e) {
    return singlePart<ForgettingEncoding>(e, [](const Encoding& p) { return std::get_if<ForgettingEncoding>(&p); },
                                          "combines two 'forgetting' parts: at most one forget-gate decay");
}

bool isScalarBias(const Encoding& e) {
    if (const auto* c = std::get_if<CombinedEncoding>(&e)) {
        for (const Encoding& p : c->parts)
            if (!isScalarBias(p)) return false;
        return !c->parts.empty();
    }
    return kinds::of(e).first->scalarBias;
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
    const auto [kind, options] = kinds::of(e);
    return kind->hasScale() ? kind->scale(options, headDim) : 1.0 / std::sqrt(static_cast<double>(headDim));
}

const TemperatureEncoding* temperaturePart(const Encoding& e) {
    const TemperatureEncoding* found = singlePart<TemperatureEncoding>(
        e, [](const Encoding& p) { return std::get_if<TemperatureEncoding>(&p); }, "combines two 'temperature' parts: at most one query temperature");
    if (found) validateTemperature(*found);
    return found;
}

const StickBreakingEncoding* stickBreakingPart(const Encoding& e) {
    const auto part = [](const Encoding& p) -> const StickBreakingEncoding* {
        const auto [kind, options] = kinds::of(p);  // the kind's trait selects the normaliser; its struct holds the options
        return kind && kind->stickBreaking ? static_cast<const StickBreakingEncoding*>(options) : nullptr;
    };
    return singlePart<StickBreakingEncoding>(e, part, "combines two 'stickBreaking' parts: at most one");
}

namespace detail {

void requireStickBreakingCall(const Encoding& e, bool causal, bool sinkLogits) {
    if (!stickBreakingPart(e)) return;
    if (!causal) fail("causal", "must be true with encoding 'stickBreaking': its weights break a stick over earlier keys (causal only)");
    if (sinkLogits) fail("sinkLogits", "is a softmax option: encoding 'stickBreaking' has no softmax denominator to add a sink to");
}

std::unique_ptr<ScoreTerm> makeTerm(const AttentionInputs& in, const Encoding& e) {
    if (const auto* c = std::get_if<CombinedEncoding>(&e)) {
        std::vector<std::unique_ptr<ScoreTerm>> parts;
        int contentQueries = 0;
        for (const Encoding& p : c->parts) {
            if (std::holds_alternative<CombinedEncoding>(p)) fail("encoding", "parts must be single encodings, not combinations");
            contentQueries += std::holds_alternative<XlEncoding>(p);
            if (auto t = makeTerm(in, p)) parts.push_back(std::move(t));
        }
        if (contentQueries > 1) fail("encoding", "combines two 'xl' parts: each changes the content query");
        forgettingPart(e);  // two 'forgetting' parts are an error
        if (parts.empty()) return nullptr;
        if (parts.size() == 1) return std::move(parts.front());
        return std::make_unique<CombinedTerm>(std::move(parts));
    }
    // no score term (none, rope, temperature): runWithEncoding uses a stateless no-op term (nothing to allocate)
    const auto [kind, options] = kinds::of(e);
    return kind->hasTerm() ? kind->term(in, options) : nullptr;
}

}  // namespace detail

}  // namespace posenc
