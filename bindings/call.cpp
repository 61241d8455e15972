// The wasm module's surface: one C function, posenc_call, takes a request as JSON text
// ({"op": "sinusoidal", ...arguments}) and answers with a status, an error message or a JSON result.
// Tensors cross as [heap offset, length] pairs placed by bindings/heap.mjs; option values arrive checked
// for type (choices as their index) and are read into posenc's own structs here, whose member
// initialisers hold every default and whose functions check every value. This file only converts.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>
#include <posenc/registry.hpp>

#include "common/json.hpp"

namespace {

using posenc::View;
using posenc::json::Value;
using posenc::registry::read;
using Count = std::uint64_t;  // element counts of results: products of sizes overflow wasm32's size_t

// --- the answer: a JSON object, and the result tensors the call allocated --------------------------
class Answer : public posenc::json::Writer {
public:
    void begin() { reset(), open('{'); }
    void end() { close('}'); }
    void reset() { clear(), buffers_.clear(); }
    // A result tensor: ["f32" | "i32", offset, length]; the JS side copies it out, then releases it.
    template <class T>
    void tensor(const char* type, const T* p, Count n) {
        open('[').string(type).number(static_cast<double>(reinterpret_cast<std::uintptr_t>(p))).number(static_cast<double>(n)).close(']');
    }
    template <class T>
    T* keep(Count n) {  // a result buffer that lives until the next call
        if (n > (SIZE_MAX - 64) / sizeof(T)) throw std::bad_alloc();  // more than a 32-bit heap can address
        buffers_.push_back(std::make_unique<char[]>(std::max<std::size_t>(static_cast<std::size_t>(n) * sizeof(T), 1)));
        return reinterpret_cast<T*>(buffers_.back().get());
    }

private:
    std::vector<std::unique_ptr<char[]>> buffers_;
};

Answer gAnswer;
std::string gError;
std::set<posenc::KVCache*> gCaches;  // live caches: a handle is checked before use

// --- the request: option values and tensors by key -----------------------------------------------
class Args final : public posenc::registry::Source {
public:
    explicit Args(const Value& v) : v_(v) {}
    bool has(const char* k) const override { const Value* x = v_.find(k); return x && !x->isNull(); }
    double number(const char* k) const override {
        const Value& x = at(k);
        return x.isBoolean() ? (x.boolean() ? 1 : 0) : x.number();
    }
    std::string text(const char* k) const override { return at(k).text(); }
    std::vector<double> numbers(const char* k) const override {
        std::vector<double> out;
        for (const Value& e : at(k).elements()) out.push_back(e.number());
        return out;
    }
    std::vector<std::string> texts(const char* k) const override {
        std::vector<std::string> out;
        for (const Value& e : at(k).elements()) out.push_back(e.text());
        return out;
    }
    View<float> floats(const char* k) const override { return tensor<float>(k); }
    std::unique_ptr<posenc::registry::Source> object(const char* k) const override { return std::make_unique<Args>(at(k)); }

    // A tensor given as [offset, length]; empty when absent.
    template <class T>
    View<T> tensor(const char* k) const {
        if (!has(k)) return View<T>();
        const Value& t = at(k);
        return View<T>(reinterpret_cast<const T*>(static_cast<std::uintptr_t>(t[0].number())), static_cast<std::size_t>(t[1].number()));
    }
    template <class T>
    T* pointer(const char* k) const { return const_cast<T*>(tensor<T>(k).data); }
    int integer(const char* k, int fallback = 0) const { return has(k) ? static_cast<int>(number(k)) : fallback; }
    bool flag(const char* k) const { return has(k) && number(k) != 0; }
    const Value& at(const char* k) const {
        const Value* x = v_.find(k);
        if (!x) throw std::logic_error(std::string("binding: request lacks '") + k + "'");
        return *x;
    }

private:
    const Value& v_;
};

// Room for a float result of n elements: the caller's buffer when the request names one ("out":
// [offset, length], checked against n), else a buffer of the answer's.
float* floatOut(const Args& a, const char* k, Count n) {
    float* p;
    if (a.has(k)) {
        const View<float> given = a.tensor<float>(k);
        if (given.size != n) posenc::fail(k, "must have " + std::to_string(n) + " elements (got " + std::to_string(given.size) + ")");
        p = const_cast<float*>(given.data);
    } else {
        p = gAnswer.keep<float>(n);
    }
    gAnswer.key(k), gAnswer.tensor("f32", p, n);
    return p;
}

std::int32_t* intOut(const char* k, Count n) {
    std::int32_t* p = gAnswer.keep<std::int32_t>(n);
    gAnswer.key(k), gAnswer.tensor("i32", p, n);
    return p;
}

// The core's pointer entry points cannot see a buffer's length: the binding checks it.
template <class T>
void requireSize(View<T> t, Count n, const char* field, const std::string& shape) {
    if (t.size != n) posenc::fail(field, "must have " + std::to_string(n) + " elements (" + shape + ") (got " + std::to_string(t.size) + ")");
}

posenc::Encoding encodingOf(const Args& a) {
    const Value& e = a.at("encoding");
    if (!e.isArray()) return posenc::registry::encodingFrom(Args(e));
    posenc::CombinedEncoding c;
    for (const Value& part : e.elements()) c.parts.push_back(posenc::registry::encodingFrom(Args(part)));
    return c;
}

posenc::KVCache& cacheOf(const Args& a) {
    auto* c = reinterpret_cast<posenc::KVCache*>(static_cast<std::uintptr_t>(a.number("cache")));
    if (!gCaches.count(c)) posenc::fail("cache", "has been deleted");
    return *c;
}

// --- the operations ---------------------------------------------------------------------------------
void sinusoidal(const Args& a) {
    posenc::SinusoidalOptions o;
    read(a, "dim", o.dim), read(a, "base", o.base), read(a, "layout", o.layout), read(a, "paddingIdx", o.paddingIdx);
    posenc::validate(o);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::sinusoidal(p.data, p.size, o, floatOut(a, "out", Count(p.size) * o.dim));
}

void learned(const Args& a) {
    posenc::LearnedOptions o;
    o.table = a.floats("table");
    read(a, "dim", o.dim), read(a, "outOfRange", o.outOfRange), read(a, "interpolateTo", o.interpolateTo);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::learned(p.data, p.size, o, floatOut(a, "out", Count(p.size) * std::max(o.dim, 0)));
}

void positionIds(const Args& a) {
    const int batch = a.integer("batch"), length = a.integer("length");
    posenc::positionIds(a.tensor<std::uint8_t>("mask").data, batch, length, static_cast<posenc::PositionIdStyle>(a.integer("style")),
                        a.integer("paddingIdx"), a.integer("past"), intOut("out", a.tensor<std::uint8_t>("mask").size));
}

void nextPositions(const Args& a) {
    const int batch = a.integer("batch");
    posenc::nextPositions(a.tensor<std::uint8_t>("mask").data, batch, a.integer("length"), a.integer("past"), intOut("out", static_cast<std::size_t>(batch)));
}

void modalityPositions(const Args& a) {
    const View<std::int32_t> m = a.tensor<std::int32_t>("modalities");
    posenc::modalityPositions(m.data, m.size, a.tensor<std::int32_t>("offsets"), a.tensor<std::int32_t>("lengths"), intOut("out", m.size));
}

posenc::CodeOptions codeOf(const Args& a) {
    posenc::CodeOptions c;
    read(a, "bits", c.bits), read(a, "radix", c.radix), read(a, "code", c.code);
    return c;
}

void binary(const Args& a) {
    posenc::BinaryOptions o;
    o.code = codeOf(a);
    o.dim = a.integer("dim", o.code.bits);
    o.table = a.floats("table");
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::binaryEncoding(p.data, p.size, o, floatOut(a, "out", Count(p.size) * std::max(o.dim, 0)));
}

void codeDistance(const Args& a) {
    gAnswer.key("value").number(posenc::codeDistance(static_cast<std::int64_t>(a.number("a")), static_cast<std::int64_t>(a.number("b")), codeOf(a)));
}

void lowRank(const Args& a) {
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    const int dim = a.integer("dim");
    posenc::lowRank(p.data, p.size, a.floats("coefficients"), a.floats("basis"), a.integer("rank"), dim, floatOut(a, "out", Count(p.size) * std::max(dim, 0)));
}

void sparse(const Args& a) {
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    const int dim = a.integer("dim");
    posenc::sparse(p.data, p.size, a.tensor<std::int32_t>("indices"), a.floats("values"), a.integer("k"), a.floats("basis"), dim,
                   floatOut(a, "out", Count(p.size) * std::max(dim, 0)));
}

void randomFeatures(const Args& a) {
    posenc::RandomFeatureOptions o;
    read(a, "dim", o.dim), read(a, "kind", o.kind), read(a, "sigma", o.sigma), read(a, "scale", o.scale), read(a, "hidden", o.hidden);
    if (a.has("seed")) o.seed = static_cast<std::uint64_t>(a.number("seed"));
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::randomFeatures(p.data, p.size, o, floatOut(a, "out", Count(p.size) * std::max(o.dim, 0)));
}

void axial(const Args& a) {
    posenc::AxialOptions o;
    for (const double s : a.numbers("shape")) o.shape.push_back(static_cast<int>(s));
    for (const double d : a.numbers("dims")) o.dims.push_back(static_cast<int>(d));
    for (const Value& t : a.at("tables").elements())
        o.tables.emplace_back(reinterpret_cast<const float*>(static_cast<std::uintptr_t>(t[0].number())), static_cast<std::size_t>(t[1].number()));
    read(a, "combine", o.combine);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::axial(p.data, p.size, o, floatOut(a, "out", Count(p.size) * std::max(posenc::axialWidth(o), 0)));
}

void twoLevel(const Args& a) {
    const View<std::int32_t> s = a.tensor<std::int32_t>("segments");
    const int segmentDim = a.integer("segmentDim"), innerDim = a.integer("innerDim");
    const auto combine = static_cast<posenc::AxialCombine>(a.integer("combine"));
    const int width = combine == posenc::AxialCombine::sum ? segmentDim : segmentDim + innerDim;
    posenc::twoLevel(s.data, s.size, a.floats("segmentTable"), a.floats("innerTable"), segmentDim, innerDim, combine,
                     floatOut(a, "out", Count(s.size) * std::max(width, 0)));
}

void sine(const Args& a) {
    posenc::SineNdOptions o;
    read(a, "numPosFeats", o.numPosFeats), read(a, "temperature", o.temperature), read(a, "normalize", o.normalize), read(a, "scale", o.scale);
    const int frames = a.integer("frames"), height = a.integer("height"), width = a.integer("width");
    const View<std::uint8_t> mask = a.tensor<std::uint8_t>("mask");
    const Count cells = Count(std::max(frames, 1)) * std::max(height, 0) * std::max(width, 0);
    if (!mask.empty()) requireSize(mask, cells, "mask", frames ? "frames*height*width" : "height*width");
    float* out = floatOut(a, "out", cells * (frames ? 3 : 2) * std::max(o.numPosFeats, 0));
    if (frames == 0) posenc::sine2d(height, width, mask, o, out);
    else posenc::sine3d(frames, height, width, mask, o, out);
}

void resizeGrid(const Args& a) {
    posenc::ResizeOptions o;
    const std::vector<double> from = a.numbers("from"), to = a.numbers("to");
    o.fromH = static_cast<int>(from[0]), o.fromW = static_cast<int>(from[1]), o.toH = static_cast<int>(to[0]), o.toW = static_cast<int>(to[1]);
    read(a, "dim", o.dim), read(a, "mode", o.mode), read(a, "mapping", o.mapping), read(a, "prefixTokens", o.prefixTokens);
    const Count n = (Count(std::max(o.prefixTokens, 0)) + Count(o.toH) * o.toW) * std::max(o.dim, 0);
    posenc::resizeGrid(a.floats("grid"), o, floatOut(a, "out", n));
}

// --- rotary -----------------------------------------------------------------------------------------
void ropeFrequencies(const Args& a) {
    const auto f = posenc::ropeFrequencies(posenc::registry::ropeFrom(a).config);
    std::copy(f.invFreq.begin(), f.invFreq.end(), floatOut(a, "invFreq", f.invFreq.size()));  // float32, as the API returns it
    gAnswer.key("attentionScale").number(f.attentionScale).key("rotaryDim").number(f.rotaryDim);
    if (f.axes < 2) return;
    gAnswer.key("axes").number(f.axes);
    std::int32_t* axis = intOut("axisOfPair", f.invFreq.size());
    for (std::size_t k = 0; k < f.invFreq.size(); ++k) axis[k] = f.axisOfPair.empty() ? 0 : f.axisOfPair[k];
}

// applyRope / rotateByDelta: x [heads, tokens, headDim] rotated in place (the JS side passes a copy
// unless the caller asked for inPlace).
void rotate(const Args& a, bool byDelta) {
    const posenc::RopeEncoding r = posenc::registry::ropeFrom(a);
    const auto f = posenc::ropeFrequencies(r.config);
    const int heads = a.integer("heads"), tokens = a.integer("tokens"), headDim = a.integer("headDim");
    float* x = a.pointer<float>("x");
    const View<std::int32_t> p = a.tensor<std::int32_t>(byDelta ? "deltas" : "positions");
    if (byDelta) {
        requireSize(p, Count(std::max(tokens, 0)), "deltas", "one per token");
        const std::vector<std::int64_t> deltas(p.data, p.data + p.size);
        posenc::rotateByDelta(x, heads, tokens, headDim, deltas.data(), f, r.layout);
    } else {
        const int axes = std::max(f.axes, 1);
        requireSize(p, Count(std::max(tokens, 0)) * axes, "positions", axes > 1 ? "[axes = " + std::to_string(axes) + ", tokens]" : "one per token");
        posenc::applyRope(x, heads, tokens, headDim, p.data, f, r.layout);
    }
}

// config.json text -> the rope options it sets ("rope", posenc's names, given keys only), the keys
// it ignores, its query temperature and its attention shape.
void ropeConfigFromHF(const Args& a) {
    posenc::HfConfigOptions o;
    if (a.has("layerType")) o.layerType = a.text("layerType");
    read(a, "yarnFactor", o.yarnFactor), read(a, "strict", o.strict);
    gAnswer.key("value").raw(posenc::toJson(posenc::ropeConfigFromHF(a.text("config"), o)));
}

// --- score terms, attention, tables -----------------------------------------------------------------
void attention(const Args& a) {
    posenc::AttentionRequest r;
    r.dims = posenc::AttentionDims{a.integer("heads"), a.integer("kvHeads"), a.integer("headDim"), a.integer("qLen"), a.integer("kLen")};
    r.q = a.floats("q"), r.k = a.floats("k"), r.v = a.floats("v");
    r.qPositions = a.tensor<std::int32_t>("qPositions"), r.kPositions = a.tensor<std::int32_t>("kPositions");
    r.maskPositions = a.tensor<std::int32_t>("maskPositions"), r.keyMask = a.tensor<std::uint8_t>("keyMask");
    r.causal = a.flag("causal"), r.window = a.integer("window"), r.chunk = a.integer("chunk");
    if (a.has("scale")) r.scale = a.number("scale");
    r.encoding = encodingOf(a);
    const Count qn = r.q.size, wn = Count(std::max(r.dims.heads, 0)) * std::max(r.dims.qLen, 0) * std::max(r.dims.kLen, 0);
    float* out = floatOut(a, "out", qn);
    float* weights = a.flag("returnWeights") ? floatOut(a, "weights", wn) : nullptr;
    float* scores = a.flag("returnScores") ? floatOut(a, "scores", wn) : nullptr;
    posenc::attention(r, out, weights, scores);
}

void attentionBias(const Args& a) {
    const posenc::Encoding e = encodingOf(a);
    const int heads = a.integer("heads");
    const View<std::int32_t> q = a.tensor<std::int32_t>("qPositions"), k = a.tensor<std::int32_t>("kPositions");
    posenc::attentionBias(e, heads, q, k, floatOut(a, "out", Count(std::max(heads, 0)) * q.size * k.size));
}

template <class Options, class Bucket>
void buckets(const Args& a, Options o, Bucket bucket) {
    posenc::validate(o);
    const View<std::int32_t> rel = a.tensor<std::int32_t>("relativePositions");
    std::int32_t* out = intOut("out", rel.size);
    for (std::size_t i = 0; i < rel.size; ++i) out[i] = static_cast<std::int32_t>(bucket(rel[i], o));
}

void t5Bucket(const Args& a) {
    posenc::T5BucketOptions o;
    read(a, "bidirectional", o.bidirectional), read(a, "numBuckets", o.numBuckets), read(a, "maxDistance", o.maxDistance);
    buckets(a, o, [](std::int32_t r, const posenc::T5BucketOptions& x) { return posenc::t5Bucket(r, x); });
}

void debertaBucket(const Args& a) {
    posenc::DebertaBucketOptions o;
    read(a, "bucketSize", o.bucketSize), read(a, "maxPosition", o.maxPosition), read(a, "convention", o.convention);
    buckets(a, o, [](std::int32_t r, const posenc::DebertaBucketOptions& x) { return posenc::debertaBucket(r, x); });
}

void alibiSlopes(const Args& a) { gAnswer.key("value").numbers(posenc::alibiSlopes(a.integer("numHeads"))); }

void swinRelativeIndex(const Args& a) {
    const auto idx = posenc::swinRelativeIndex(a.integer("windowH"), a.integer("windowW"));
    std::copy(idx.begin(), idx.end(), intOut("out", idx.size()));
}

void parameterCount(const Args& a) { gAnswer.key("value").number(posenc::registry::parameterCount(a.text("method"), a)); }

void registryTables(const Args&) { gAnswer.key("value").raw(posenc::registry::json()); }

void setThreadCount(const Args& a) { gAnswer.key("value").number(posenc::setThreadCount(a.integer("threads"))); }

// Plain memcpy inside the heap: the copy-bandwidth yardstick the benchmarks compare against.
void copyBytes(const Args& a) {
    std::memcpy(a.pointer<char>("dst"), a.pointer<char>("src"), static_cast<std::size_t>(a.number("bytes")));
}

// --- KV cache: a handle is the cache's address, valid while listed in gCaches ----------------------------
void cacheCreate(const Args& a) {
    posenc::KVCacheConfig c;
    read(a, "batch", c.batch), read(a, "kvHeads", c.kvHeads), read(a, "headDim", c.headDim), read(a, "capacity", c.capacity);
    read(a, "window", c.window), read(a, "sinks", c.sinks), read(a, "chunk", c.chunk), read(a, "dynamic", c.dynamic);
    if (a.has("rope")) c.rope = posenc::registry::ropeFrom(*a.object("rope"));
    auto cache = std::make_unique<posenc::KVCache>(c);
    gCaches.insert(cache.get());
    gAnswer.key("value").number(static_cast<double>(reinterpret_cast<std::uintptr_t>(cache.release())));
}

void cacheDelete(const Args& a) {
    posenc::KVCache* c = &cacheOf(a);
    gCaches.erase(c);
    delete c;
}

void cacheAppend(const Args& a) {
    posenc::KVCache& c = cacheOf(a);
    c.append(a.floats("k"), a.floats("v"), a.integer("tokens"), a.tensor<std::int32_t>("positions"), a.tensor<std::uint8_t>("mask"),
             a.tensor<std::int32_t>("maskPositions"));
}

void cacheAttend(const Args& a) {
    posenc::KVCache& c = cacheOf(a);
    const View<float> q = a.floats("q");
    c.attend(q, a.integer("heads"), a.integer("qLen"), encodingOf(a), a.tensor<std::int32_t>("qPositions"), a.flag("causal"),
             floatOut(a, "out", q.size), a.has("scale") ? a.number("scale") : std::nan(""), a.tensor<std::int32_t>("maskPositions"));
}

void cacheShift(const Args& a) { cacheOf(a).shift(static_cast<std::int64_t>(a.number("delta"))); }
void cacheRenumber(const Args& a) { cacheOf(a).renumber(a.tensor<std::int32_t>("positions")); }

void cachePositions(const Args& a) {
    const auto p = cacheOf(a).positions();
    std::copy(p.begin(), p.end(), intOut("value", p.size()));
}

void cacheNextPositions(const Args& a) {
    const auto p = cacheOf(a).nextPositions();
    std::copy(p.begin(), p.end(), intOut("value", p.size()));
}

struct Op {
    const char* name;
    void (*run)(const Args&);
};
constexpr Op kOps[] = {
    {"sinusoidal", sinusoidal}, {"learned", learned}, {"positionIds", positionIds}, {"nextPositions", nextPositions},
    {"modalityPositions", modalityPositions}, {"binary", binary}, {"codeDistance", codeDistance}, {"lowRank", lowRank},
    {"sparse", sparse}, {"randomFeatures", randomFeatures}, {"axial", axial}, {"twoLevel", twoLevel}, {"sine", sine},
    {"resizeGrid", resizeGrid}, {"ropeFrequencies", ropeFrequencies}, {"applyRope", [](const Args& a) { rotate(a, false); }},
    {"rotateByDelta", [](const Args& a) { rotate(a, true); }}, {"ropeConfigFromHF", ropeConfigFromHF}, {"attention", attention},
    {"attentionBias", attentionBias}, {"t5Bucket", t5Bucket}, {"debertaBucket", debertaBucket}, {"alibiSlopes", alibiSlopes},
    {"swinRelativeIndex", swinRelativeIndex}, {"parameterCount", parameterCount}, {"registry", registryTables},
    {"setThreadCount", setThreadCount}, {"copyBytes", copyBytes}, {"cache.create", cacheCreate}, {"cache.delete", cacheDelete},
    {"cache.append", cacheAppend}, {"cache.attend", cacheAttend}, {"cache.shift", cacheShift}, {"cache.renumber", cacheRenumber},
    {"cache.positions", cachePositions}, {"cache.nextPositions", cacheNextPositions},
};

enum Status : int { kOk = 0, kRangeError = 1, kTypeError = 2, kInternalError = 3 };

int run(const char* text, std::size_t length) {
    const Value request = posenc::json::parse(std::string_view(text, length));
    const Value* op = request.find("op");
    const std::string name = op ? op->text() : "";
    for (const Op& o : kOps) {
        if (name != o.name) continue;
        gAnswer.begin();
        o.run(Args(request));
        gAnswer.end();
        return kOk;
    }
    throw std::logic_error("binding: no operation '" + name + "'");
}

}  // namespace

// The exports (-sEXPORTED_FUNCTIONS in CMakeLists.txt). posenc_call never lets an exception escape: a
// failed call's status says which JS error to throw and posenc_error() its message; its result buffers
// are dropped.
extern "C" {
int posenc_call(const char* request, std::size_t length) noexcept {
    const auto failed = [](int status, const std::string& what) {
        gAnswer.reset();
        gError = what;
        return status;
    };
    try {
        return run(request, length);
    } catch (const posenc::WrongType& e) {
        return failed(kTypeError, e.what());
    } catch (const std::invalid_argument& e) {
        return failed(kRangeError, e.what());
    } catch (const std::bad_alloc&) {
        return failed(kRangeError, "out of memory: the wasm heap cannot hold this request");
    } catch (const std::length_error&) {
        return failed(kRangeError, "size too large for the wasm heap");
    } catch (const std::exception& e) {
        return failed(kInternalError, e.what());
    } catch (...) {
        return failed(kInternalError, "unknown error");
    }
}
const char* posenc_answer() noexcept { return gAnswer.text().c_str(); }
std::size_t posenc_answer_length() noexcept { return gAnswer.text().size(); }
const char* posenc_error() noexcept { return gError.c_str(); }
void posenc_release() noexcept { gAnswer.reset(); }
}
