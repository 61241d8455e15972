// Embind surface of posenc. This file only converts (heap pointers and plain numbers in, status
// codes out) and maps C++ exceptions to a status the JS layer turns into RangeError/TypeError.
// Tensors cross as byte offsets into the wasm heap, allocated and freed by bindings/posenc.mjs.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <posenc/posenc.hpp>
#include <posenc/registry.hpp>

using namespace emscripten;

namespace {

enum Status : int { kOk = 0, kRangeError = 1, kTypeError = 2, kInternalError = 3 };
char gLastError[1024] = "";

void remember(const char* what) noexcept {
    std::strncpy(gLastError, what, sizeof gLastError - 1);
    gLastError[sizeof gLastError - 1] = '\0';
}

// Runs f, turning any exception into a status code and a stored message; never lets one escape.
template <class F>
int guarded(F&& f) noexcept {
    try {
        f();
        return kOk;
    } catch (const posenc::WrongType& e) {
        remember(e.what());
        return kTypeError;
    } catch (const std::invalid_argument& e) {
        remember(e.what());
        return kRangeError;
    } catch (const std::bad_alloc&) {
        remember("out of memory: the wasm heap cannot hold this request");
        return kRangeError;
    } catch (const std::length_error& e) {
        remember("size too large for the wasm heap");
        return kRangeError;
    } catch (const std::exception& e) {
        remember(e.what());
        return kInternalError;
    } catch (...) {
        remember("unknown error");
        return kInternalError;
    }
}

template <class T>
T* at(double offset) {
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(offset));
}

std::string lastError() { return gLastError; }

template <class T>
posenc::View<T> view(double offset, int length) {
    return length > 0 ? posenc::View<T>(at<const T>(offset), static_cast<std::size_t>(length)) : posenc::View<T>();
}

// --- additive ----------------------------------------------------------------------------------
int sinusoidal(double positions, int count, int dim, double base, int layout, int paddingIdx, double out) {
    return guarded([&] {
        posenc::SinusoidalOptions o{dim, base, static_cast<posenc::SinusoidLayout>(layout), paddingIdx};
        posenc::sinusoidal(at<const std::int32_t>(positions), static_cast<std::size_t>(count), o, at<float>(out));
    });
}

int learned(double positions, int count, double table, int tableLength, int dim, int outOfRange, int interpolateTo, double out) {
    return guarded([&] {
        posenc::LearnedOptions o{view<float>(table, tableLength), dim, static_cast<posenc::OutOfRange>(outOfRange), interpolateTo};
        posenc::learned(at<const std::int32_t>(positions), static_cast<std::size_t>(count), o, at<float>(out));
    });
}

int positionIds(double mask, int batch, int length, int style, int paddingIdx, int past, double out) {
    return guarded([&] {
        posenc::positionIds(at<const std::uint8_t>(mask), batch, length, static_cast<posenc::PositionIdStyle>(style), paddingIdx, past, at<std::int32_t>(out));
    });
}

int nextPositions(double mask, int batch, int length, int past, double out) {
    return guarded([&] { posenc::nextPositions(at<const std::uint8_t>(mask), batch, length, past, at<std::int32_t>(out)); });
}

int modalityPositions(double modalities, int count, double offsets, int modalityCount, double lengths, double out) {
    return guarded([&] {
        posenc::modalityPositions(at<const std::int32_t>(modalities), static_cast<std::size_t>(count), view<std::int32_t>(offsets, modalityCount),
                                  lengths ? view<std::int32_t>(lengths, modalityCount) : posenc::View<std::int32_t>(), at<std::int32_t>(out));
    });
}

int binaryEncoding(double positions, int count, int dim, int bits, int radix, int code, double table, int tableLength, double out) {
    return guarded([&] {
        posenc::BinaryOptions o{dim, {bits, radix, static_cast<posenc::CodeKind>(code)}, view<float>(table, tableLength)};
        posenc::binaryEncoding(at<const std::int32_t>(positions), static_cast<std::size_t>(count), o, at<float>(out));
    });
}

int codeDistance(double a, double b, int bits, int radix, int code, double out) {
    return guarded([&] {
        const posenc::CodeOptions o{bits, radix, static_cast<posenc::CodeKind>(code)};
        *at<std::int32_t>(out) = posenc::codeDistance(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), o);
    });
}

int lowRank(double positions, int count, double coefficients, int coefficientsLength, double basis, int basisLength, int rank, int dim, double out) {
    return guarded([&] {
        posenc::lowRank(at<const std::int32_t>(positions), static_cast<std::size_t>(count), view<float>(coefficients, coefficientsLength),
                        view<float>(basis, basisLength), rank, dim, at<float>(out));
    });
}

int sparse(double positions, int count, double indices, double values, int entries, int k, double basis, int basisLength, int dim, double out) {
    return guarded([&] {
        posenc::sparse(at<const std::int32_t>(positions), static_cast<std::size_t>(count), view<std::int32_t>(indices, entries), view<float>(values, entries), k,
                       view<float>(basis, basisLength), dim, at<float>(out));
    });
}

int randomFeatures(double positions, int count, int dim, double seed, int kind, double sigma, double scale, int hidden, double out) {
    return guarded([&] {
        posenc::RandomFeatureOptions o;
        o.dim = dim;
        o.seed = static_cast<std::uint64_t>(seed);
        o.kind = static_cast<posenc::RandomFeatureKind>(kind);
        o.sigma = sigma;
        o.scale = scale;
        o.hidden = hidden;
        posenc::randomFeatures(at<const std::int32_t>(positions), static_cast<std::size_t>(count), o, at<float>(out));
    });
}

// shape / dims: int32[axes]; tables: float64[axes] heap offsets of each [shape[a], dims[a]] table.
int axial(double positions, int count, double shape, double dims, double tables, int axes, int combine, double out) {
    return guarded([&] {
        posenc::AxialOptions o;
        o.combine = static_cast<posenc::AxialCombine>(combine);
        for (int a = 0; a < axes; ++a) {
            o.shape.push_back(at<const std::int32_t>(shape)[a]);
            o.dims.push_back(at<const std::int32_t>(dims)[a]);
            const std::int64_t n = static_cast<std::int64_t>(o.shape.back()) * o.dims.back();
            o.tables.push_back(posenc::View<float>(at<const float>(at<const double>(tables)[a]), n > 0 ? static_cast<std::size_t>(n) : 0));
        }
        posenc::axial(at<const std::int32_t>(positions), static_cast<std::size_t>(count), o, at<float>(out));
    });
}

int twoLevel(double segments, int count, double segmentTable, int segmentLength, double innerTable, int innerLength, int segmentDim, int innerDim,
             int combine, double out) {
    return guarded([&] {
        posenc::twoLevel(at<const std::int32_t>(segments), static_cast<std::size_t>(count), view<float>(segmentTable, segmentLength),
                         view<float>(innerTable, innerLength), segmentDim, innerDim, static_cast<posenc::AxialCombine>(combine), at<float>(out));
    });
}

int sineNd(int frames, int height, int width, double mask, int numPosFeats, double temperature, bool normalize, double scale, double out) {
    return guarded([&] {
        posenc::SineNdOptions o{numPosFeats, temperature, normalize, scale};
        const std::size_t cells = static_cast<std::size_t>(std::max(frames, 1)) * std::max(height, 0) * std::max(width, 0);
        const posenc::View<std::uint8_t> m = mask ? posenc::View<std::uint8_t>(at<const std::uint8_t>(mask), cells) : posenc::View<std::uint8_t>();
        if (frames == 0) posenc::sine2d(height, width, m, o, at<float>(out));
        else posenc::sine3d(frames, height, width, m, o, at<float>(out));
    });
}

int resizeGrid(double grid, int gridLength, int fromH, int fromW, int toH, int toW, int dim, int mode, int mapping, int prefixTokens, double out) {
    return guarded([&] {
        posenc::ResizeOptions o{fromH, fromW, toH, toW, dim, static_cast<posenc::ResizeMode>(mode), static_cast<posenc::ResizeMapping>(mapping), prefixTokens};
        posenc::resizeGrid(view<float>(grid, gridLength), o, at<float>(out));
    });
}

// --- rotary --------------------------------------------------------------------------------------
// Reading the JS layer's checked option objects into posenc's own structs: a key that is absent (or
// undefined) leaves the member's initialiser, so defaults live in the C++ structs only. Choices arrive
// as their index in the registry's list (= the enum value), tensors as [heap offset, length].
template <class T>
void take(const val& o, const char* key, T& to) {
    const val x = o[key];
    if (x.isUndefined()) return;
    if constexpr (std::is_same_v<T, bool>) to = x.as<bool>();
    else if constexpr (std::is_same_v<T, std::vector<double>> || std::is_same_v<T, std::vector<int>>) to = vecFromJSArray<typename T::value_type>(x);
    else if constexpr (std::is_enum_v<T>) to = static_cast<T>(x.as<int>());
    else to = static_cast<T>(x.as<double>());
}
posenc::View<float> floats(const val& o, const char* key) {
    const val t = o[key];
    return t.isUndefined() ? posenc::View<float>() : view<float>(t[0].as<double>(), t[1].as<int>());
}

posenc::RopeConfig toConfig(const val& o) {
    posenc::RopeConfig c;
    take(o, "headDim", c.headDim);
    take(o, "base", c.base);
    take(o, "partialRotaryFactor", c.partialRotaryFactor);
    take(o, "seqLen", c.seqLen);
    take(o, "convention", c.convention);
    take(o, "multiAxis", c.multiAxis);
    take(o, "sections", c.sections);
    take(o, "mropeInterleaved", c.mropeInterleaved);
    take(o, "xposScaleBase", c.xposScaleBase);
    const val s = o["scaling"];
    if (s.isUndefined()) return c;
    posenc::RopeScaling& k = c.scaling;
    take(s, "type", k.type);
    take(s, "factor", k.factor);
    take(s, "originalMaxPositionEmbeddings", k.originalMaxPositionEmbeddings);
    take(s, "betaFast", k.betaFast);
    take(s, "betaSlow", k.betaSlow);
    take(s, "mscale", k.mscale);
    take(s, "mscaleAllDim", k.mscaleAllDim);
    take(s, "attentionFactor", k.attentionFactor);
    take(s, "truncate", k.truncate);
    take(s, "lowFreqFactor", k.lowFreqFactor);
    take(s, "highFreqFactor", k.highFreqFactor);
    take(s, "shortFactor", k.shortFactor);
    take(s, "longFactor", k.longFactor);
    return c;
}

posenc::RopeEncoding toRope(const val& o) {
    posenc::RopeEncoding r{toConfig(o)};
    take(o, "layout", r.layout);
    return r;
}

// out (float64): [rotaryDim, attentionScale, axes, invFreq[0..rotaryDim/2), axisOfPair[0..rotaryDim/2)];
// room for 3 + headDim.
int ropeFrequencies(const val& rope, double out) {
    return guarded([&] {
        const auto f = posenc::ropeFrequencies(toConfig(rope));
        double* o = at<double>(out);
        o[0] = f.rotaryDim;
        o[1] = f.attentionScale;
        o[2] = f.axes;
        std::copy(f.invFreq.begin(), f.invFreq.end(), o + 3);
        for (std::size_t k = 0; k < f.invFreq.size(); ++k) o[3 + f.invFreq.size() + k] = f.axisOfPair.empty() ? 0 : f.axisOfPair[k];
    });
}

// x [heads, tokens, headDim] rotated in place.
int applyRope(const val& rope, double x, int heads, int tokens, int headDim, double positions) {
    return guarded([&] {
        const posenc::RopeEncoding r = toRope(rope);
        const auto f = posenc::ropeFrequencies(r.config);
        if (r.config.headDim != headDim) posenc::fail("headDim", "of the rope config must equal the tensor's headDim");
        posenc::applyRope(at<float>(x), heads, tokens, headDim, at<const std::int32_t>(positions), f, r.layout);
    });
}

// Moves rotated vectors by a position delta per token (float64 deltas, may be negative); no scale.
int rotateByDelta(const val& rope, double x, int heads, int tokens, int headDim, double deltas) {
    return guarded([&] {
        const posenc::RopeEncoding r = toRope(rope);
        const auto f = posenc::ropeFrequencies(r.config);
        const double* d = at<const double>(deltas);
        std::vector<std::int64_t> dv(d, d + tokens);
        posenc::rotateByDelta(at<float>(x), heads, tokens, headDim, dv.data(), f, r.layout);
    });
}

// Reads config.json text; fills `out` with the options the config sets (posenc's names), and `meta`
// with the ignored keys, the query temperature and the attention shape, as bindings/rope-config.mjs documents.
void setConfigMeta(const posenc::HfRopeConfig& r, val meta) {
    val ignored = val::array();
    for (std::size_t i = 0; i < r.ignored.size(); ++i) {
        val e = val::object();
        e.set("key", r.ignored[i].key);
        e.set("value", r.ignored[i].value);  // JSON text; the JS side parses it
        e.set("reason", r.ignored[i].reason);
        ignored.set(i, e);
    }
    meta.set("ignored", ignored);
    if (r.temperature) {
        val t = val::object();
        t.set("kind", std::string("temperature"));
        t.set("beta", r.temperature->beta);
        t.set("length", static_cast<double>(r.temperature->length));
        t.set("offset", static_cast<double>(r.temperature->offset));
        meta.set("temperature", t);
    } else {
        meta.set("temperature", val::null());
    }
    const posenc::HfAttentionShape& a = r.attention;
    val shape = val::object();
    shape.set("heads", a.heads);
    shape.set("kvHeads", a.kvHeads);
    shape.set("headDim", a.headDim);
    shape.set("slidingWindow", a.slidingWindow);
    val layers = val::array();
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        val l = val::object();
        l.set("type", a.layers[i].type);
        l.set("rope", a.layers[i].rope);
        l.set("window", a.layers[i].window);
        l.set("chunk", a.layers[i].chunk);
        l.set("temperature", a.layers[i].temperature);
        layers.set(i, l);
    }
    shape.set("layers", layers);
    meta.set("attention", shape);
}

int ropeConfigFromHF(const std::string& json, const std::string& layerType, int yarnFactor, bool strict, val out, val meta) {
    return guarded([&] {
        posenc::HfConfigOptions o;
        o.layerType = layerType;
        o.yarnFactor = static_cast<posenc::HfConfigOptions::YarnFactor>(yarnFactor);
        o.strict = strict;
        const posenc::HfRopeConfig r = posenc::ropeConfigFromHF(json, o);
        setConfigMeta(r, meta);
        const posenc::RopeConfig& c = r.rope;
        const auto& s = c.scaling;
        static const char* const kScalingNames[] = {"none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"};
        out.set("headDim", c.headDim);
        out.set("base", c.base);
        out.set("layout", std::string(r.layout == posenc::RopeLayout::half ? "half" : "interleaved"));
        auto numbers = [](const auto& list) {
            val a = val::array();
            for (std::size_t i = 0; i < list.size(); ++i) a.set(i, list[i]);
            return a;
        };
        if (r.isGiven("partialRotaryFactor")) out.set("partialRotaryFactor", c.partialRotaryFactor);
        if (r.isGiven("multiAxis")) out.set("multiAxis", std::string("mrope"));
        if (r.isGiven("sections")) out.set("sections", numbers(c.sections));
        if (r.isGiven("mropeInterleaved")) out.set("mropeInterleaved", c.mropeInterleaved);
        if (!r.isGiven("scaling.type")) return;
        val sc = val::object();
        sc.set("type", std::string(kScalingNames[static_cast<int>(s.type)]));
        auto put = [&](const char* name, auto value) {
            if (r.isGiven(std::string("scaling.") + name)) sc.set(name, value);
        };
        put("factor", s.factor);
        put("originalMaxPositionEmbeddings", static_cast<double>(s.originalMaxPositionEmbeddings));
        put("betaFast", s.betaFast);
        put("betaSlow", s.betaSlow);
        put("mscale", s.mscale);
        put("mscaleAllDim", s.mscaleAllDim);
        put("attentionFactor", s.attentionFactor);
        put("truncate", s.truncate);
        put("lowFreqFactor", s.lowFreqFactor);
        put("highFreqFactor", s.highFreqFactor);
        if (r.isGiven("scaling.shortFactor")) sc.set("shortFactor", numbers(s.shortFactor));
        if (r.isGiven("scaling.longFactor")) sc.set("longFactor", numbers(s.longFactor));
        out.set("scaling", sc);
    });
}

// --- what posenc implements ------------------------------------------------------------------------
val describe() {
    val list = val::array();
    unsigned n = 0;
    for (const posenc::MethodDescription& d : posenc::describe()) {
        val o = val::object();
        o.set("kind", d.kind);
        o.set("family", d.family);
        o.set("encodes", d.encodes);
        o.set("parameters", d.parameters);
        o.set("parameterMethod", d.parameterMethod == "-" ? val::null() : val(d.parameterMethod.empty() ? d.kind : d.parameterMethod));
        o.set("extrapolates", d.extrapolates);
        o.set("extrapolation", d.extrapolation);
        o.set("kvCacheFriendly", d.kvCacheFriendly);
        o.set("kvCache", d.kvCache);
        o.set("reference", d.reference);
        o.set("usedIn", d.usedIn);
        list.set(n++, o);
    }
    return list;
}

// --- score terms and attention ---------------------------------------------------------------------
// One encoding object ({kind: 'alibi', heads, slopes: [offset, length], ...}) as posenc's struct.
posenc::Encoding toEncoding(const val& e) {
    const std::string kind = e["kind"].as<std::string>();
    if (kind == "none") return posenc::NoEncoding{};
    if (kind == "rope") return toRope(e);
    if (kind == "alibi") {
        posenc::AlibiEncoding a;
        take(e, "heads", a.heads);
        a.slopes = floats(e, "slopes");
        take(e, "symmetric", a.symmetric);
        return a;
    }
    if (kind == "t5") {
        posenc::T5Encoding t;
        take(e, "heads", t.heads);
        t.table = floats(e, "table");
        take(e, "bidirectional", t.buckets.bidirectional);
        take(e, "numBuckets", t.buckets.numBuckets);
        take(e, "maxDistance", t.buckets.maxDistance);
        return t;
    }
    if (kind == "swin") {
        posenc::SwinEncoding w;
        take(e, "heads", w.heads);
        w.table = floats(e, "table");
        const val size = e["windowSize"];  // [wh, ww]
        w.windowH = size[0].as<int>();
        w.windowW = size[1].as<int>();
        return w;
    }
    if (kind == "shaw") return posenc::ShawEncoding{e["clip"].as<int>(), floats(e, "keyTable"), floats(e, "valueTable")};
    if (kind == "xl") {
        posenc::XlEncoding x{floats(e, "u"), floats(e, "v"), floats(e, "r"), floats(e, "wR")};
        take(e, "dModel", x.dModel);
        return x;
    }
    if (kind == "deberta") {
        posenc::DebertaEncoding d;
        d.posKey = floats(e, "posKey");
        d.posQuery = floats(e, "posQuery");
        take(e, "span", d.span);
        take(e, "bucketSize", d.buckets.bucketSize);
        take(e, "maxPosition", d.buckets.maxPosition);
        take(e, "convention", d.buckets.convention);
        const val terms = e["terms"];  // of 'c2p', 'p2c'; default both
        if (!terms.isUndefined()) {
            const auto names = vecFromJSArray<std::string>(terms);
            d.c2p = std::find(names.begin(), names.end(), "c2p") != names.end();
            d.p2c = std::find(names.begin(), names.end(), "p2c") != names.end();
        }
        return d;
    }
    if (kind == "relativeKey") {
        posenc::RelativeKeyEncoding r{floats(e, "table")};
        take(e, "maxPosition", r.maxPosition);
        take(e, "keyQuery", r.keyQuery);
        return r;
    }
    if (kind == "kerple") {
        posenc::KerpleEncoding k;
        take(e, "variant", k.variant);
        take(e, "heads", k.heads);
        k.r1 = floats(e, "r1");
        k.r2 = floats(e, "r2");
        return k;
    }
    if (kind == "fire") {
        posenc::FireEncoding f;
        take(e, "heads", f.heads);
        take(e, "hidden", f.hidden);
        f.w1 = floats(e, "w1");
        f.b1 = floats(e, "b1");
        f.w2 = floats(e, "w2");
        f.b2 = floats(e, "b2");
        take(e, "c", f.c);
        take(e, "L", f.L);
        take(e, "eps", f.eps);
        return f;
    }
    if (kind == "cope") {
        posenc::CopeEncoding c;
        take(e, "npos", c.npos);
        c.embeddings = floats(e, "embeddings");
        return c;
    }
    if (kind == "temperature") {
        posenc::TemperatureEncoding t;
        take(e, "beta", t.beta);
        take(e, "length", t.length);
        take(e, "offset", t.offset);
        return t;
    }
    posenc::fail("encoding.kind", "is not a known encoding");
}

// `encoding` may be an array of encodings applied together (posenc::CombinedEncoding).
posenc::Encoding toEncodings(const val& specs) {
    const unsigned n = specs["length"].as<unsigned>();
    if (n == 1) return toEncoding(specs[0]);
    posenc::CombinedEncoding c;
    for (unsigned i = 0; i < n; ++i) c.parts.push_back(toEncoding(specs[i]));
    return c;
}

struct AttentionSpec {
    int heads, kvHeads, headDim, qLen, kLen;
    double q, k, v, qPositions, kPositions, keyMask;  // positions / keyMask: 0 = default
    int qPositionsLength, kPositionsLength;           // [qLen] / [kLen], or [axes, len] with multi-axis RoPE
    double maskPositions; int maskPositionsLength;    // multi-axis RoPE: the keys' sequence index; 0 = default
    bool causal;
    int window;
    double scale;  // NaN = the encoding's default
    double out, weights, scores;  // weights / scores: 0 = not requested
};

int attention(const AttentionSpec& a, const val& e) {
    return guarded([&] {
        posenc::AttentionRequest r;
        r.dims = posenc::AttentionDims{a.heads, a.kvHeads, a.headDim, a.qLen, a.kLen};
        const std::size_t qn = static_cast<std::size_t>(a.heads) * a.qLen * a.headDim;
        const std::size_t kn = static_cast<std::size_t>(a.kvHeads) * a.kLen * a.headDim;
        r.q = posenc::View<float>(at<const float>(a.q), qn);
        r.k = posenc::View<float>(at<const float>(a.k), kn);
        r.v = posenc::View<float>(at<const float>(a.v), kn);
        if (a.qPositions) r.qPositions = view<std::int32_t>(a.qPositions, a.qPositionsLength);
        if (a.kPositions) r.kPositions = view<std::int32_t>(a.kPositions, a.kPositionsLength);
        if (a.maskPositions) r.maskPositions = view<std::int32_t>(a.maskPositions, a.maskPositionsLength);
        if (a.keyMask) r.keyMask = posenc::View<std::uint8_t>(at<const std::uint8_t>(a.keyMask), static_cast<std::size_t>(a.kLen));
        r.causal = a.causal;
        r.window = a.window;
        r.scale = a.scale;
        r.encoding = toEncodings(e);
        posenc::attention(r, at<float>(a.out), a.weights ? at<float>(a.weights) : nullptr, a.scores ? at<float>(a.scores) : nullptr);
    });
}

int attentionBias(const val& e, int heads, double qPositions, int qLen, double kPositions, int kLen, double out) {
    return guarded([&] {
        posenc::attentionBias(toEncodings(e), heads, view<std::int32_t>(qPositions, qLen), view<std::int32_t>(kPositions, kLen), at<float>(out));
    });
}

int t5Buckets(double rel, int n, bool bidirectional, int numBuckets, int maxDistance, double out) {
    return guarded([&] {
        const posenc::T5BucketOptions o{bidirectional, numBuckets, maxDistance};
        posenc::validate(o);
        for (int i = 0; i < n; ++i) at<std::int32_t>(out)[i] = posenc::t5Bucket(at<const std::int32_t>(rel)[i], o);
    });
}

int debertaBuckets(double rel, int n, int bucketSize, int maxPosition, int convention, double out) {
    return guarded([&] {
        const posenc::DebertaBucketOptions o{bucketSize, maxPosition, static_cast<posenc::DebertaConvention>(convention)};
        posenc::validate(o);
        for (int i = 0; i < n; ++i) at<std::int32_t>(out)[i] = static_cast<std::int32_t>(posenc::debertaBucket(at<const std::int32_t>(rel)[i], o));
    });
}

int alibiSlopes(int heads, double out) {
    return guarded([&] {
        const auto s = posenc::alibiSlopes(heads);
        std::copy(s.begin(), s.end(), at<double>(out));
    });
}

int swinRelativeIndex(int windowH, int windowW, double out) {
    return guarded([&] {
        const auto idx = posenc::swinRelativeIndex(windowH, windowW);
        std::copy(idx.begin(), idx.end(), at<std::int32_t>(out));
    });
}

// --- KV cache ---------------------------------------------------------------------------------------
// Owns one posenc::KVCache; every method returns a status like the free functions.
class KVCacheHandle {
public:
    int create(int batch, int kvHeads, int headDim, int capacity, int window, int sinks, const val& rope, int dynamic) {
        return guarded([&] {
            posenc::KVCacheConfig c;
            c.batch = batch;
            c.kvHeads = kvHeads;
            c.headDim = headDim;
            c.capacity = capacity;
            c.window = window;
            c.sinks = sinks;
            if (!rope.isUndefined()) c.rope = toRope(rope);
            c.dynamic = static_cast<posenc::KVCacheConfig::DynamicNtk>(dynamic);
            cache_ = std::make_unique<posenc::KVCache>(c);
        });
    }
    int append(double k, double v, int T, double positions, int positionsLength, double mask, double maskPositions) {
        return guarded([&] {
            const auto& c = live().config();
            const std::size_t n = static_cast<std::size_t>(c.batch) * c.kvHeads * T * c.headDim, bt = static_cast<std::size_t>(c.batch) * T;
            live().append(view<float>(k, static_cast<int>(n)), view<float>(v, static_cast<int>(n)), T, view<std::int32_t>(positions, positionsLength),
                          mask ? posenc::View<std::uint8_t>(at<const std::uint8_t>(mask), bt) : posenc::View<std::uint8_t>(),
                          maskPositions ? posenc::View<std::int32_t>(at<const std::int32_t>(maskPositions), bt) : posenc::View<std::int32_t>());
        });
    }
    int attend(double q, int heads, int qLen, const val& e, double qPositions, int qPositionsLength, bool causal, double scale, double out,
               double maskPositions) {
        return guarded([&] {
            const auto& c = live().config();
            const std::size_t n = static_cast<std::size_t>(c.batch) * heads * qLen * c.headDim, bq = static_cast<std::size_t>(c.batch) * qLen;
            live().attend(posenc::View<float>(at<const float>(q), n), heads, qLen, toEncodings(e), view<std::int32_t>(qPositions, qPositionsLength),
                          causal, at<float>(out), scale,
                          maskPositions ? posenc::View<std::int32_t>(at<const std::int32_t>(maskPositions), bq) : posenc::View<std::int32_t>());
        });
    }
    int shift(double delta) { return guarded([&] { live().shift(static_cast<std::int64_t>(delta)); }); }
    int renumber(double positions) {
        return guarded([&] {
            const auto& c = live().config();
            live().renumber(posenc::View<std::int32_t>(at<const std::int32_t>(positions), static_cast<std::size_t>(c.batch) * c.capacity));
        });
    }
    int positions(double out) {
        return guarded([&] {
            const auto p = live().positions();
            std::copy(p.begin(), p.end(), at<std::int32_t>(out));
        });
    }
    int nextPositions(double out) {
        return guarded([&] {
            const auto p = live().nextPositions();
            std::copy(p.begin(), p.end(), at<std::int32_t>(out));
        });
    }

private:
    posenc::KVCache& live() {
        if (!cache_) posenc::fail("cache", "was not created");
        return *cache_;
    }
    std::unique_ptr<posenc::KVCache> cache_;
};

// Plain memcpy inside the wasm heap: the copy-bandwidth yardstick the benchmarks compare against.
void copyBytes(double dst, double src, double bytes) {
    std::memcpy(at<char>(dst), at<const char>(src), static_cast<std::size_t>(bytes));
}

}  // namespace

EMSCRIPTEN_BINDINGS(posenc) {
    function("lastError", &lastError);
    function("sinusoidal", &sinusoidal);
    function("learned", &learned);
    function("positionIds", &positionIds);
    function("nextPositions", &nextPositions);
    function("modalityPositions", &modalityPositions);
    function("binaryEncoding", &binaryEncoding);
    function("codeDistance", &codeDistance);
    function("lowRank", &lowRank);
    function("sparse", &sparse);
    function("randomFeatures", &randomFeatures);
    function("axial", &axial);
    function("twoLevel", &twoLevel);
    function("sineNd", &sineNd);
    function("resizeGrid", &resizeGrid);
    function("ropeConfigFromHF", &ropeConfigFromHF);
    function("describe", &describe);
    function("registry", &posenc::registry::json);
    function("ropeFrequencies", &ropeFrequencies);
    function("applyRope", &applyRope);
    function("rotateByDelta", &rotateByDelta);
    function("copyBytes", &copyBytes);
    function("setThreadCount", &posenc::setThreadCount);  // the bindings pass a validated count >= 1
    value_object<AttentionSpec>("AttentionSpec")
        .field("heads", &AttentionSpec::heads)
        .field("kvHeads", &AttentionSpec::kvHeads)
        .field("headDim", &AttentionSpec::headDim)
        .field("qLen", &AttentionSpec::qLen)
        .field("kLen", &AttentionSpec::kLen)
        .field("q", &AttentionSpec::q)
        .field("k", &AttentionSpec::k)
        .field("v", &AttentionSpec::v)
        .field("qPositions", &AttentionSpec::qPositions)
        .field("kPositions", &AttentionSpec::kPositions)
        .field("qPositionsLength", &AttentionSpec::qPositionsLength)
        .field("kPositionsLength", &AttentionSpec::kPositionsLength)
        .field("maskPositions", &AttentionSpec::maskPositions)
        .field("maskPositionsLength", &AttentionSpec::maskPositionsLength)
        .field("keyMask", &AttentionSpec::keyMask)
        .field("causal", &AttentionSpec::causal)
        .field("window", &AttentionSpec::window)
        .field("scale", &AttentionSpec::scale)
        .field("out", &AttentionSpec::out)
        .field("weights", &AttentionSpec::weights)
        .field("scores", &AttentionSpec::scores);
    function("attention", &attention);
    function("attentionBias", &attentionBias);
    function("t5Buckets", &t5Buckets);
    function("debertaBuckets", &debertaBuckets);
    function("alibiSlopes", &alibiSlopes);
    function("swinRelativeIndex", &swinRelativeIndex);
    class_<KVCacheHandle>("KVCacheHandle")
        .constructor<>()
        .function("create", &KVCacheHandle::create)
        .function("append", &KVCacheHandle::append)
        .function("attend", &KVCacheHandle::attend)
        .function("shift", &KVCacheHandle::shift)
        .function("renumber", &KVCacheHandle::renumber)
        .function("positions", &KVCacheHandle::positions)
        .function("nextPositions", &KVCacheHandle::nextPositions);
}
