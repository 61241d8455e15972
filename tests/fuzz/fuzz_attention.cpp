// libFuzzer target: attention with drawn shapes, positions, masks, scale and encoding. The encoding is
// drawn from every alternative of posenc::Encoding (a compile-time walk of the variant, as
// src/encodings/kinds.cpp does), each made by its Builder below, or, for a kind without one, from its
// spec's options example (KindSpec::options; tests/native/spec_example.hpp) with its tensors drawn from the
// input, on a call of the example's shapes (kinds::kExampleCall; positions, masks and flags drawn as for
// every kind). So every kind is fuzzed the day it lands, and a Builder of its own (wider shapes and edge
// values) can follow. Builders make mostly valid parameters
// (and sometimes edge values, which must be refused with std::invalid_argument). Accepted calls give
// finite outputs and weight rows summing to 1 (or 0 for a fully masked row), and streaming equals the
// materialized run.
#include "common.hpp"
#include <posenc/posenc.hpp>
#include "../native/spec_example.hpp"

#include <array>
#include <cstring>
#include <deque>
#include <type_traits>
#include <utility>
#include <variant>

using namespace posenc;

namespace {

// What a builder draws from: the input, the call's shape, and storage that outlives the call for the
// tensors its Views point into.
struct Draw {
    FuzzedDataProvider& in;
    const AttentionDims& d;
    std::deque<std::vector<float>> tensors;
    View<float> floats(std::size_t n, float range) {
        tensors.push_back(fuzz::floats(in, n, range));
        return tensors.back();
    }
    // n values in (0, hi] most of the time; an edge value (NaN, ±inf, 0, negative, ...) otherwise.
    View<float> positives(std::size_t n, double hi) {
        std::vector<float> v(n);
        for (auto& x : v) x = static_cast<float>(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? fuzz::number(in, -1, hi)
                                                                                          : in.ConsumeFloatingPointInRange<double>(1e-3, hi));
        tensors.push_back(std::move(v));
        return tensors.back();
    }
    std::size_t sz(std::size_t a, std::size_t b = 1, std::size_t c = 1) { return a * b * c; }
};

// One specialisation per alternative of posenc::Encoding that has one; the primary template is left
// undefined (a kind without a specialisation is made from its spec's example: fromSpec).
template <class T>
struct Builder;

template <class T, class = void>
struct HasBuilder : std::false_type {};
template <class T>
struct HasBuilder<T, std::void_t<decltype(Builder<T>::make(std::declval<Draw&>()))>> : std::true_type {};

template <>
struct Builder<NoEncoding> {
    static NoEncoding make(Draw&) { return {}; }
};
template <>
struct Builder<RopeEncoding> {
    static RopeEncoding make(Draw& w) {
        RopeEncoding e;
        e.config.base = fuzz::number(w.in, 2, 1e6);
        e.config.partialRotaryFactor = w.in.ConsumeBool() ? 1.0 : 0.5;
        // MLA: the rotated channels from an offset (past the head: refused, naming rotaryOffset)
        if (w.in.ConsumeBool()) e.config.rotaryOffset = w.in.ConsumeIntegralInRange<int>(-1, w.d.headDim);
        if (w.in.ConsumeBool()) e.config.xposScaleBase = 512;
        e.layout = w.in.ConsumeBool() ? RopeLayout::half : RopeLayout::interleaved;
        if (w.in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // p-RoPE (outside [0, 1]: refused)
            e.config.frequencyFraction = fuzz::number(w.in, -0.1, 1.1);
            e.config.keptFrequencies = w.in.ConsumeBool() ? KeptFrequencies::high : KeptFrequencies::low;
        }
        if (w.in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // LieRE on one axis (positions stay [len]); not skew: refused
            e.config.multiAxis = MultiAxis::liere;
            e.config.blockSize = w.in.ConsumeIntegralInRange<int>(1, 4);
            const int b = e.config.blockSize, R = static_cast<int>(w.d.headDim * e.config.partialRotaryFactor);
            const View<float> g = w.floats(static_cast<std::size_t>(std::max(R, 0)) * static_cast<std::size_t>(b), 2.0f);
            e.config.generators.assign(g.data, g.data + g.size);
            if (w.in.ConsumeBool())
                for (std::size_t m = 0; m + static_cast<std::size_t>(b * b) <= e.config.generators.size(); m += static_cast<std::size_t>(b * b))
                    for (int i = 0; i < b; ++i) {
                        e.config.generators[m + static_cast<std::size_t>(i * b + i)] = 0;
                        for (int j = i + 1; j < b; ++j) e.config.generators[m + static_cast<std::size_t>(j * b + i)] = -e.config.generators[m + static_cast<std::size_t>(i * b + j)];
                    }
        }
        return e;
    }
};
template <>
struct Builder<LiereEncoding> {
    static LiereEncoding make(Draw& w) {  // one axis (positions stay [len]); sizes and skew-symmetry drawn, some refused
        LiereEncoding e;
        e.rope.config.blockSize = w.in.ConsumeIntegralInRange<int>(1, 4);
        if (w.in.ConsumeBool()) e.rope.config.partialRotaryFactor = 0.5;
        const int b = e.rope.config.blockSize, R = static_cast<int>(w.d.headDim * e.rope.config.partialRotaryFactor);
        const View<float> g = w.floats(static_cast<std::size_t>(std::max(R, 0)) * static_cast<std::size_t>(b), 2.0f);
        e.rope.config.generators.assign(g.data, g.data + g.size);
        if (w.in.ConsumeBool())
            for (std::size_t m = 0; m + static_cast<std::size_t>(b * b) <= e.rope.config.generators.size(); m += static_cast<std::size_t>(b * b))
                for (int i = 0; i < b; ++i) {
                    e.rope.config.generators[m + static_cast<std::size_t>(i * b + i)] = 0;
                    for (int j = i + 1; j < b; ++j)
                        e.rope.config.generators[m + static_cast<std::size_t>(j * b + i)] = -e.rope.config.generators[m + static_cast<std::size_t>(i * b + j)];
                }
        return e;
    }
};
template <>
struct Builder<AlibiEncoding> {
    static AlibiEncoding make(Draw& w) {
        AlibiEncoding e{w.d.heads, {}, w.in.ConsumeBool()};
        if (w.in.ConsumeBool()) e.slopes = w.floats(w.d.heads, 2.0f);
        return e;
    }
};
template <>
struct Builder<T5Encoding> {
    static T5Encoding make(Draw& w) {
        T5BucketOptions o{w.in.ConsumeBool(), w.in.ConsumeIntegralInRange<int>(2, 40), w.in.ConsumeIntegralInRange<int>(2, 200)};
        return T5Encoding{w.d.heads, w.floats(w.sz(o.numBuckets, w.d.heads), 3.0f), o};
    }
};
template <>
struct Builder<SwinEncoding> {  // positions must lie inside the window (wh * ww of them)
    static SwinEncoding make(Draw& w) {
        SwinEncoding e;
        e.heads = w.d.heads;
        e.windowH = w.in.ConsumeIntegralInRange<int>(1, 4);
        e.windowW = w.in.ConsumeIntegralInRange<int>(1, 80);
        e.table = w.floats(w.sz(2 * e.windowH - 1, 2 * e.windowW - 1, w.d.heads), 3.0f);
        return e;
    }
};
template <>
struct Builder<ShawEncoding> {
    static ShawEncoding make(Draw& w) {
        const int clip = w.in.ConsumeIntegralInRange<int>(0, 6);
        View<float> key = w.floats(w.sz(2 * clip + 1, w.d.headDim), 1.0f);
        View<float> value = w.in.ConsumeBool() ? w.floats(w.sz(2 * clip + 1, static_cast<std::size_t>(std::max(w.d.valueChannels(), 0))), 1.0f) : View<float>{};
        return ShawEncoding{clip, key, value};
    }
};
template <>
struct Builder<XlEncoding> {  // needs causal attention (or masked future keys): refused otherwise
    static XlEncoding make(Draw& w) {
        XlEncoding e;
        e.u = w.floats(w.sz(w.d.heads, w.d.headDim), 1.0f);
        e.v = w.floats(w.sz(w.d.heads, w.d.headDim), 1.0f);
        if (w.in.ConsumeBool()) {
            e.r = w.floats(w.sz(w.d.heads, w.in.ConsumeIntegralInRange<int>(1, 320), w.d.headDim), 1.0f);
        } else {
            e.dModel = 2 * w.in.ConsumeIntegralInRange<int>(1, 4);
            e.wR = w.floats(w.sz(w.d.heads, w.d.headDim, e.dModel), 1.0f);
        }
        return e;
    }
};
template <>
struct Builder<DebertaEncoding> {
    static DebertaEncoding make(Draw& w) {
        DebertaEncoding e;
        e.span = w.in.ConsumeIntegralInRange<int>(1, 8);
        e.posKey = w.floats(w.sz(w.d.heads, 2 * e.span, w.d.headDim), 1.0f);
        e.posQuery = w.floats(e.posKey.size, 1.0f);
        e.c2p = w.in.ConsumeIntegralInRange<int>(0, 3) != 0;
        e.p2c = w.in.ConsumeBool();
        e.buckets = DebertaBucketOptions{w.in.ConsumeIntegralInRange<int>(0, 16), w.in.ConsumeIntegralInRange<int>(1, 64),
                                         w.in.ConsumeBool() ? DebertaConvention::hf : DebertaConvention::microsoft};
        return e;
    }
};
template <>
struct Builder<RelativeKeyEncoding> {
    static RelativeKeyEncoding make(Draw& w) {
        const int maxPos = w.in.ConsumeIntegralInRange<int>(1, 200);
        return RelativeKeyEncoding{w.floats(w.sz(2 * maxPos - 1, w.d.headDim), 1.0f), maxPos, w.in.ConsumeBool()};
    }
};
template <>
struct Builder<KerpleEncoding> {  // r1, r2 > 0; r2 <= 2 for power
    static KerpleEncoding make(Draw& w) {
        KerpleEncoding e;
        e.variant = w.in.ConsumeBool() ? KerpleVariant::log : KerpleVariant::power;
        e.heads = w.d.heads;
        e.r1 = w.positives(w.d.heads, 8);
        e.r2 = w.positives(w.d.heads, e.variant == KerpleVariant::power ? 2 : 8);
        return e;
    }
};
template <>
struct Builder<FireEncoding> {  // c, eps > 0; L >= 0
    static FireEncoding make(Draw& w) {
        FireEncoding e;
        e.heads = w.d.heads;
        e.hidden = w.in.ConsumeIntegralInRange<int>(1, 8);
        e.w1 = w.floats(e.hidden, 2.0f);
        e.b1 = w.floats(e.hidden, 2.0f);
        e.w2 = w.floats(w.sz(w.d.heads, e.hidden), 2.0f);
        e.b2 = w.floats(w.d.heads, 2.0f);
        if (w.in.ConsumeBool()) e.c = w.in.ConsumeBool() ? w.in.ConsumeFloatingPointInRange<double>(1e-3, 10) : fuzz::number(w.in, -1, 10);
        if (w.in.ConsumeBool()) e.L = w.in.ConsumeBool() ? w.in.ConsumeFloatingPointInRange<double>(0, 1e4) : fuzz::number(w.in, -1, 1e4);
        if (w.in.ConsumeBool()) e.eps = w.in.ConsumeBool() ? w.in.ConsumeFloatingPointInRange<double>(1e-9, 1) : fuzz::number(w.in, -1, 1);
        return e;
    }
};
template <>
struct Builder<CopeEncoding> {
    static CopeEncoding make(Draw& w) {
        CopeEncoding e;
        e.npos = w.in.ConsumeIntegralInRange<int>(1, 24);
        e.embeddings = w.floats(w.sz(e.npos, w.d.headDim), 1.0f);
        return e;
    }
};
template <>
struct Builder<TemperatureEncoding> {  // beta finite, length >= 1, offset >= 0
    static TemperatureEncoding make(Draw& w) {
        TemperatureEncoding e;
        e.beta = w.in.ConsumeBool() ? w.in.ConsumeFloatingPointInRange<double>(-0.5, 2) : fuzz::number(w.in, -1, 4);
        e.length = w.in.ConsumeBool() ? w.in.ConsumeIntegralInRange<std::int64_t>(1, 300) : w.in.ConsumeIntegral<std::int64_t>();
        e.offset = w.in.ConsumeBool() ? w.in.ConsumeIntegralInRange<std::int64_t>(0, 2) : w.in.ConsumeIntegral<std::int64_t>();
        return e;
    }
};

template <>
struct Builder<ForgettingEncoding> {  // log gates <= 0, finite: [heads, kLen]; sometimes a wrong length or an edge value (refused)
    static ForgettingEncoding make(Draw& w) {
        ForgettingEncoding e;
        const int shape = w.in.ConsumeIntegralInRange<int>(0, 7);
        if (shape == 0) return e;  // none: refused (no cache holds them)
        std::size_t n = w.sz(w.d.heads, w.d.kLen);
        if (shape == 1) n = w.in.ConsumeIntegralInRange<std::size_t>(0, n + 2);
        std::vector<float> g(n);
        for (auto& x : g) x = static_cast<float>(w.in.ConsumeIntegralInRange<int>(0, 15) == 0 ? fuzz::number(w.in, -1e7, 1)
                                                                                            : -w.in.ConsumeFloatingPointInRange<double>(0, shape == 2 ? 1e6 : 3));
        w.tensors.push_back(std::move(g));
        e.logForget = w.tensors.back();
        return e;
    }
};

template <>
struct Builder<StickBreakingEncoding> {  // causal only: a non-causal call must be refused
    static StickBreakingEncoding make(Draw& w) { return StickBreakingEncoding{w.in.ConsumeBool()}; }
};

Encoding single(Draw& w);

template <>
struct Builder<CombinedEncoding> {  // 1-3 single parts; two rotary or two temperature parts must be refused
    static CombinedEncoding make(Draw& w) {
        CombinedEncoding e;
        const int n = w.in.ConsumeIntegralInRange<int>(1, 3);
        for (int i = 0; i < n; ++i) e.parts.push_back(single(w));
        return e;
    }
};

// Alternative `i` of Encoding, made by its Builder (the fold visits each alternative once).
template <std::size_t... I>
Encoding pick(Draw& w, std::size_t i, bool allowCombined, std::index_sequence<I...>) {
    Encoding out;
    auto one = [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        if constexpr (std::is_same_v<T, CombinedEncoding>) {
            if (!allowCombined) return;
        }
        if constexpr (HasBuilder<T>::value) out = Builder<T>::make(w);
        else out = spec_example::read<T>(w.d.heads, w.d.headDim, w.tensors, [&w](std::size_t n) { return fuzz::floats(w.in, n, 4.0f); });
    };
    ((I == i ? one(static_cast<std::variant_alternative_t<I, Encoding>*>(nullptr)) : void()), ...);
    return out;
}
constexpr std::size_t kAlternatives = std::variant_size_v<Encoding>;
template <std::size_t... I>
constexpr std::array<bool, sizeof...(I)> buildersOf(std::index_sequence<I...>) {
    return {HasBuilder<std::variant_alternative_t<I, Encoding>>::value...};
}
constexpr std::array<bool, kAlternatives> kHasBuilder = buildersOf(std::make_index_sequence<kAlternatives>());

Encoding single(Draw& w) {
    return pick(w, w.in.ConsumeIntegralInRange<std::size_t>(0, kAlternatives - 1), false, std::make_index_sequence<kAlternatives>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    AttentionRequest r;
    const int kvHeads = in.ConsumeIntegralInRange<int>(1, 3);
    r.dims = AttentionDims{kvHeads * in.ConsumeIntegralInRange<int>(1, 4), kvHeads, in.ConsumeIntegralInRange<int>(1, 20),
                           in.ConsumeIntegralInRange<int>(1, 9), in.ConsumeIntegralInRange<int>(1, 140)};
    r.dims.valueDim = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(-1, 20) : 0;  // MLA: values of their own width (-1: refused)
    const AttentionDims& d = r.dims;
    // The kind first, so that every kind is reached from short inputs too.
    const std::size_t kind = in.ConsumeIntegralInRange<std::size_t>(0, kAlternatives - 1);
    if (!kHasBuilder[kind]) r.dims = spec_example::callDims();  // a kind made from its spec's example: the example's shapes
    const float range = in.ConsumeBool() ? 4.0f : 1e19f;
    auto q = fuzz::floats(in, static_cast<std::size_t>(d.heads) * d.qLen * d.headDim, range);
    auto k = fuzz::floats(in, static_cast<std::size_t>(d.kvHeads) * d.kLen * d.headDim, range);
    auto v = fuzz::floats(in, static_cast<std::size_t>(d.kvHeads) * d.kLen * std::max(d.valueChannels(), 1), 4.0f);
    r.q = q;
    r.k = k;
    r.v = v;
    std::vector<std::int32_t> qp, kp;
    std::vector<std::uint8_t> mask;
    if (in.ConsumeBool()) {
        const std::int32_t base = in.ConsumeBool() ? 0 : 2147483647 - 400;
        for (int i = 0; i < d.qLen; ++i) qp.push_back(base + in.ConsumeIntegralInRange<std::int32_t>(0, 300));
        for (int j = 0; j < d.kLen; ++j) kp.push_back(base + in.ConsumeIntegralInRange<std::int32_t>(0, 300));
        r.qPositions = qp;
        r.kPositions = kp;
    }
    if (in.ConsumeBool())
        for (int j = 0; j < d.kLen; ++j) mask.push_back(in.ConsumeBool());
    r.keyMask = mask;
    r.causal = in.ConsumeBool();
    r.window = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 200) : 0;
    r.chunk = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 100) : 0;
    if (in.ConsumeBool()) r.scale = fuzz::number(in, -2, 2);
    Draw w{in, d, {}};
    try {
        r.encoding = pick(w, kind, true, std::make_index_sequence<kAlternatives>());
    } catch (const std::invalid_argument&) {  // a spec's example refused for the drawn call (fromSpec)
        return 0;
    }
    if (in.ConsumeIntegralInRange<int>(0, 4) == 0) {
        // K and V as f16 / bf16 bits: refused as the floats they stand for would be, else equal to attention
        // over those floats bit for bit (values past f16 become infinities: refused by both)
        const KVType type = in.ConsumeBool() ? KVType::f16 : KVType::bf16;
        std::vector<std::uint16_t> kb(k.size()), vb(v.size());
        std::vector<float> kf(k.size()), vf(v.size());
        for (std::size_t i = 0; i < k.size(); ++i) {
            kb[i] = type == KVType::f16 ? floatToF16(k[i]) : floatToBf16(k[i]);
            kf[i] = type == KVType::f16 ? f16ToFloat(kb[i]) : bf16ToFloat(kb[i]);
        }
        for (std::size_t i = 0; i < v.size(); ++i) {  // v has valueDim channels: its own length
            vb[i] = type == KVType::f16 ? floatToF16(v[i]) : floatToBf16(v[i]);
            vf[i] = type == KVType::f16 ? f16ToFloat(vb[i]) : bf16ToFloat(vb[i]);
        }
        AttentionRequest a = r, b = r;
        a.k = {}, a.v = {}, a.kvType = type, a.kBits = kb, a.vBits = vb;
        b.k = kf, b.v = vf;
        const bool weights = in.ConsumeBool();
        AttentionResult ra, rb;
        bool threwA = false, threwB = false;
        try { ra = attention(a, weights); } catch (const std::invalid_argument&) { threwA = true; }
        try { rb = attention(b, weights); } catch (const std::invalid_argument&) { threwB = true; }
        if (threwA != threwB) {
            std::fprintf(stderr, "kvType bits %s where their floats %s\n", threwA ? "refused" : "accepted", threwB ? "are refused" : "are not");
            std::abort();
        }
        const auto same = [](const std::vector<float>& x, const std::vector<float>& y) {
            return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
        };
        if (!threwA && (!same(ra.out, rb.out) || !same(ra.weights, rb.weights))) {
            std::fprintf(stderr, "kvType bits give other bits than their floats\n");
            std::abort();
        }
    }
    AttentionResult streamed, full;
    try {
        streamed = attention(r);
        full = attention(r, true, true);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    if (streamed.out.size() != static_cast<std::size_t>(d.heads) * d.qLen * d.valueChannels()) std::abort();  // [heads, qLen, valueDim]
    fuzz::requireFinite(streamed.out, "output");
    fuzz::requireFinite(full.weights, "weights");
    for (std::size_t i = 0; i < streamed.out.size(); ++i)
        if (std::fabs(streamed.out[i] - full.out[i]) > 1e-3f * (1.0f + std::fabs(full.out[i]))) std::abort();
    // softmax rows sum to 1 (0: no key seen); stick-breaking's to at most 1 (the rest of the stick), each weight >= 0
    const bool stick = stickBreakingPart(r.encoding) != nullptr;  // a second part was refused above
    if (stick && !r.causal) std::abort();  // stick-breaking accepted a non-causal call
    for (std::size_t row = 0; row < full.weights.size() / d.kLen; ++row) {
        double s = 0;
        for (int j = 0; j < d.kLen; ++j) {
            if (full.weights[row * d.kLen + j] < 0) std::abort();
            s += full.weights[row * d.kLen + j];
        }
        if (stick ? !(s <= 1 + 1e-4) : !(std::fabs(s - 1) < 1e-4 || s == 0)) std::abort();
    }
    return 0;
}
