// The wasm module's surface: one C function, posenc_call, takes a request as JSON text
// ({"op": "sinusoidal", "options": {...}, ...arguments}) and answers with a status, an error message or
// a JSON result. Tensors cross as {"@": [heap offset, length]}, placed by bindings/heap.mjs. Options
// objects arrive as the caller wrote them: the registry checks them (src/registry_check.cpp: unknown
// keys, nulls, types, ranges, choices) and they are read into posenc's own structs, whose member
// initialisers hold every default and whose functions check every value. This file only converts.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>
#include <posenc/registry.hpp>

#include "common/json.hpp"
#include "options_tables.hpp"
#include "registry_check.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#include <malloc.h>
#endif

namespace {
// The size of the last allocation the heap refused (0: none since the call began), for the RangeError.
std::atomic<std::uint64_t> gRefusedBytes{0};
}  // namespace

#ifdef __EMSCRIPTEN__
// Every allocation (operator new's too) goes through malloc: this one remembers the size of a refusal.
// Emscripten's malloc is a weak alias of dlmalloc, also exported as emscripten_builtin_malloc.
extern "C" void* emscripten_builtin_malloc(std::size_t);
extern "C" void* malloc(std::size_t n) {
    void* p = emscripten_builtin_malloc(n);
    if (!p) gRefusedBytes.store(n, std::memory_order_relaxed);
    return p;
}
#endif

namespace {

using posenc::View;
using posenc::json::Value;
using posenc::registry::CallShape;
using posenc::registry::Place;
using posenc::registry::optionsOf;
using posenc::registry::readTable;
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
        if (n > (SIZE_MAX - 64) / sizeof(T)) {  // more than a 32-bit heap can address
            gRefusedBytes.store(n * sizeof(T), std::memory_order_relaxed);
            throw std::bad_alloc();
        }
        buffers_.push_back(std::make_unique<char[]>(std::max<std::size_t>(static_cast<std::size_t>(n) * sizeof(T), 1)));
        return reinterpret_cast<T*>(buffers_.back().get());
    }

private:
    std::vector<std::unique_ptr<char[]>> buffers_;
};

Answer gAnswer;
std::string gError = std::string(511, ' ');  // (cleared below) room for a refusal's message without allocating
std::set<posenc::KVCache*> gCaches;  // live caches: a handle is checked before use

// --- the request: option values and tensors by key -----------------------------------------------
// An options object (`table`: the registry table it was checked against) reads only that table's keys:
// a key it lacks is a reader's typo, an internal error, never a silent default.
class Args final : public posenc::registry::Source {
public:
    explicit Args(const Value& v, const posenc::registry::Table* table = nullptr) : v_(v), table_(table) {}
    bool has(const char* k) const override {
        known(k);
        const Value* x = v_.find(k);
        return x && !x->isNull();
    }
    double number(const char* k) const override {
        const Value& x = at(k);
        return x.isBoolean() ? (x.boolean() ? 1 : 0) : x.number();
    }
    std::string text(const char* k) const override { return at(k).text(); }
    std::vector<double> numbers(const char* k) const override {  // a list, or an int32 tensor
        if (at(k).find("@")) {
            const View<std::int32_t> ints = tensor<std::int32_t>(k);
            return std::vector<double>(ints.data, ints.data + ints.size);
        }
        std::vector<double> out;
        for (const Value& e : at(k).elements()) out.push_back(e.number());
        return out;
    }
    std::vector<std::string> texts(const char* k) const override {
        std::vector<std::string> out;
        for (const Value& e : at(k).elements()) out.push_back(e.text());
        return out;
    }
    // A float tensor; a Uint16Array's bits (placed as {"@": ..., "bits": 16}) are refused here: they are
    // values only with kvType (halves below).
    View<float> floats(const char* k) const override {
        if (has(k) && at(k).find("bits"))
            posenc::failType(k, "must be a Float32Array, not an integer array (got Uint16Array): fp16 / bf16 data in a Uint16Array holds bit "
                                "patterns, not values — pass kvType: 'f16' or 'bf16' with k and v as such bits, or decode it first");
        return tensor<float>(k);
    }
    // K or V as f16 / bf16 bit patterns (with kvType), placed from a Uint16Array.
    View<std::uint16_t> halves(const char* k, const char* type) const {
        if (!at(k).find("bits"))
            posenc::failType(k, std::string("must be a Uint16Array of ") + type + " bit patterns with kvType '" + type +
                                    "' (got float values: leave kvType out to pass floats)");
        return tensor<std::uint16_t>(k);
    }
    std::unique_ptr<posenc::registry::Source> object(const char* k) const override { return std::make_unique<Args>(at(k)); }

    // A tensor given as {"@": [offset, length]}; empty when absent.
    template <class T>
    View<T> tensor(const char* k) const {
        return has(k) ? tensorOf<T>(at(k)) : View<T>();
    }
    template <class T>
    static View<T> tensorOf(const Value& t) {
        const Value& p = *t.find("@");
        return View<T>(reinterpret_cast<const T*>(static_cast<std::uintptr_t>(p[0].number())), static_cast<std::size_t>(p[1].number()));
    }
    template <class T>
    T* pointer(const char* k) const { return const_cast<T*>(tensor<T>(k).data); }
    int integer(const char* k, int fallback = 0) const { return has(k) ? static_cast<int>(number(k)) : fallback; }
    bool flag(const char* k) const { return has(k) && number(k) != 0; }
    const Value& at(const char* k) const {
        known(k);
        const Value* x = v_.find(k);
        if (!x) throw std::logic_error(std::string("binding: request lacks '") + k + "'");
        return *x;
    }

private:
    void known(const char* k) const {
        if (table_ && !table_->find(k)) throw std::logic_error("binding: reads '" + std::string(k) + "', not a key of table '" + table_->name + "'");
    }
    const Value& v_;
    const posenc::registry::Table* table_;
};

// The request's options object `key`, checked against registry table `table` (an absent one is empty).
Args options(Value& r, const std::string& table, const Place& at, const CallShape& call = {}, const char* key = "options") {
    Value* o = r.find(key);
    if (!o) (o = &r.insert(key))->becomeObject();
    posenc::registry::check(*o, table, at, call);
    return Args(*o, &posenc::registry::table(table));
}
Args options(Value& r, const std::string& op) { return options(r, op, optionsOf(op)); }

// Room for a float result of n elements: the caller's buffer when the request names one ("out":
// a tensor, checked against n), else a buffer of the answer's.
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

// A tensor whose leading count is implied by its length (`perItem` elements each): that count.
int countOf(std::size_t size, Count perItem, const char* field, const std::string& shape) {
    if (size == 0 || perItem == 0 || size % perItem != 0)
        posenc::fail(field, "must be " + shape + ": a positive multiple of " + std::to_string(perItem) + " elements (got " + std::to_string(size) + ")");
    return static_cast<int>(size / perItem);
}

// An encoding (checked by the caller): one, or a combination.
posenc::Encoding encodingOf(const Args& a) {
    if (!a.has("encoding")) return posenc::NoEncoding{};
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
void sinusoidal(Value& r) {
    const Args a(r), o = options(r, "sinusoidal");
    const auto s = readTable<posenc::SinusoidalOptions>("sinusoidal", o);
    posenc::validate(s);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::sinusoidal(p.data, p.size, s, floatOut(a, "out", Count(p.size) * s.dim));
}

void learned(Value& r) {
    const Args a(r), o = options(r, "learned");
    const auto l = readTable<posenc::LearnedOptions>("learned", o);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::learned(p.data, p.size, l, floatOut(a, "out", Count(p.size) * std::max(l.dim, 0)));
}

// positionIds / nextPositions: a 0/1 mask [batch, length] (length: the mask's size / batch unless given).
void ofMask(Value& r, bool next) {
    const char* table = next ? "nextPositions" : "positionIds";
    const Args a(r), o = options(r, table);
    const View<std::uint8_t> mask = a.tensor<std::uint8_t>("mask");
    const auto m = readTable<posenc::registry::PositionIdsCall>(table, o);
    const int batch = m.batch;
    const int length = m.length ? m.length : static_cast<int>(mask.size / static_cast<std::size_t>(batch));
    if (!m.length && (mask.size % static_cast<std::size_t>(batch) != 0 || length < 1))
        posenc::fail("mask", "must have batch*length entries (got " + std::to_string(mask.size) + " for batch " + std::to_string(batch) + ")");
    requireSize(mask, Count(batch) * length, "mask", "batch*length");
    if (next) return posenc::nextPositions(mask.data, batch, length, m.past, intOut("out", static_cast<std::size_t>(batch)));
    posenc::positionIds(mask.data, batch, length, m.style, m.paddingIdx, m.past, intOut("out", mask.size));
}

void modalityPositions(Value& r) {
    const Args a(r), o = options(r, "modalityPositions");
    const View<std::int32_t> m = a.tensor<std::int32_t>("modalities");
    posenc::modalityPositions(m.data, m.size, o.tensor<std::int32_t>("offsets"), o.tensor<std::int32_t>("lengths"), intOut("out", m.size));
}

void binary(Value& r) {
    const Args a(r), o = options(r, "binary");
    const auto b = readTable<posenc::BinaryOptions>("binary", o);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::binaryEncoding(p.data, p.size, b, floatOut(a, "out", Count(p.size) * std::max(b.dim, 0)));
}

void codeDistance(Value& r) {
    const Args a(r), o = options(r, "codeDistance");
    gAnswer.key("value").number(posenc::codeDistance(static_cast<std::int64_t>(a.number("a")), static_cast<std::int64_t>(a.number("b")),
                                                               readTable<posenc::CodeOptions>("codeDistance", o)));
}

void lowRank(Value& r) {
    const Args a(r), o = options(r, "lowRank");
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    const auto l = readTable<posenc::registry::LowRankCall>("lowRank", o);
    posenc::lowRank(p.data, p.size, l.coefficients, l.basis, l.rank, l.dim, floatOut(a, "out", Count(p.size) * l.dim));
}

void sparse(Value& r) {
    const Args a(r), o = options(r, "sparse");
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    const auto x = readTable<posenc::registry::SparseCall>("sparse", o);
    posenc::sparse(p.data, p.size, o.tensor<std::int32_t>("indices"), x.values, x.k, x.basis, x.dim, floatOut(a, "out", Count(p.size) * x.dim));
}

void randomFeatures(Value& r) {
    const Args a(r), o = options(r, "randomFeatures");
    const auto f = readTable<posenc::RandomFeatureOptions>("randomFeatures", o);
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::randomFeatures(p.data, p.size, f, floatOut(a, "out", Count(p.size) * f.dim));
}

void axial(Value& r) {
    const Args a(r), o = options(r, "axial");
    auto x = readTable<posenc::AxialOptions>("axial", o);
    for (const Value& t : o.at("tables").elements()) x.tables.push_back(Args::tensorOf<float>(t));
    const View<std::int32_t> p = a.tensor<std::int32_t>("positions");
    posenc::axial(p.data, p.size, x, floatOut(a, "out", Count(p.size) * std::max(posenc::axialWidth(x), 0)));
}

void twoLevel(Value& r) {
    const Args a(r), o = options(r, "twoLevel");
    const View<std::int32_t> s = a.tensor<std::int32_t>("segments");
    const auto t = readTable<posenc::registry::TwoLevelCall>("twoLevel", o);
    const int width = t.combine == posenc::AxialCombine::sum ? t.segmentDim : t.segmentDim + t.innerDim;
    posenc::twoLevel(s.data, s.size, t.segmentTable, t.innerTable, t.segmentDim, t.innerDim, t.combine, floatOut(a, "out", Count(s.size) * width));
}

void sine(Value& r, bool video) {
    const char* table = video ? "sine3d" : "sine2d";
    const Args a(r), o = options(r, table);
    const auto c = readTable<posenc::registry::SineCall>(table, o);
    const posenc::SineNdOptions& s = c.sine;
    const int frames = c.frames, height = c.height, width = c.width;
    const View<std::uint8_t> mask = o.tensor<std::uint8_t>("mask");
    const Count cells = Count(std::max(frames, 1)) * height * width;
    if (!mask.empty()) requireSize(mask, cells, "mask", video ? "frames*height*width" : "height*width");
    float* out = floatOut(a, "out", cells * (video ? 3 : 2) * s.numPosFeats);
    if (!video) posenc::sine2d(height, width, mask, s, out);
    else posenc::sine3d(frames, height, width, mask, s, out);
}

void resizeGrid(Value& r) {
    const Args a(r), o = options(r, "resizeGrid");
    const auto g = readTable<posenc::ResizeOptions>("resizeGrid", o);
    posenc::resizeGrid(a.floats("grid"), g, floatOut(a, "out", (Count(g.prefixTokens) + Count(g.toH) * g.toW) * g.dim));
}

// --- rotary -----------------------------------------------------------------------------------------
void ropeFrequencies(Value& r) {
    const Args a(r), o = options(r, "ropeFrequencies");
    const auto f = posenc::ropeFrequencies(posenc::registry::ropeFrom(o).config);
    std::copy(f.invFreq.begin(), f.invFreq.end(), floatOut(a, "invFreq", f.invFreq.size()));  // float32, as the API returns it
    gAnswer.key("attentionScale").number(f.attentionScale).key("rotaryDim").number(f.rotaryDim);
    if (f.axes < 2) return;
    gAnswer.key("axes").number(f.axes);
    std::int32_t* axis = intOut("axisOfPair", f.invFreq.size());
    for (std::size_t k = 0; k < f.invFreq.size(); ++k) axis[k] = f.axisOfPair.empty() ? 0 : f.axisOfPair[k];
}

// applyRope / rotateByDelta: x [heads, tokens, headDim] rotated in place (the JS side passes a copy
// unless the caller asked for inPlace).
void rotate(Value& r, bool byDelta) {
    const std::string op = byDelta ? "rotateByDelta" : "applyRope";
    const Args a(r), shape = options(r, "shape", {"shape", op + " shape", ""}, {}, "shape");
    const auto [heads, tokens, headDim] = readTable<posenc::registry::HeadsShape>("shape", shape);
    const Args o = options(r, "applyRope", optionsOf(op), {0, headDim, "the shape's headDim"});
    const posenc::RopeEncoding rope = posenc::registry::ropeFrom(o);
    const auto f = posenc::ropeFrequencies(rope.config);
    const View<float> x = a.floats("x");
    requireSize(x, Count(heads) * tokens * headDim, "x", "[heads, tokens, headDim]");
    const View<std::int32_t> p = a.tensor<std::int32_t>(byDelta ? "deltas" : "positions");
    if (byDelta) {
        requireSize(p, Count(tokens), "deltas", "one per token");
        const std::vector<std::int64_t> deltas(p.data, p.data + p.size);
        posenc::rotateByDelta(const_cast<float*>(x.data), heads, tokens, headDim, deltas.data(), f, rope.layout);
    } else {
        const int axes = std::max(f.axes, 1);
        requireSize(p, Count(tokens) * axes, "positions", axes > 1 ? "[axes = " + std::to_string(axes) + ", tokens]" : "one per token");
        posenc::applyRope(const_cast<float*>(x.data), heads, tokens, headDim, p.data, f, rope.layout);
    }
}

// config.json text -> the rope options it sets ("rope", posenc's names, given keys only), the keys
// it ignores, its query temperature and its attention shape.
void ropeConfigFromHF(Value& r) {
    const Args a(r), o = options(r, "ropeConfigFromHF");
    const auto c = readTable<posenc::HfConfigOptions>("ropeConfigFromHF", o);
    gAnswer.key("value").raw(posenc::toJson(posenc::ropeConfigFromHF(a.text("config"), c)));
}

// config.json text + a layer -> that layer's attention plan (posenc/attention/hf_plan.hpp).
void attentionConfigFromHF(Value& r) {
    const Args a(r), o = options(r, "attentionConfigFromHF");
    const auto c = readTable<posenc::registry::AttentionConfigCall>("attentionConfigFromHF", o);
    gAnswer.key("value").raw(posenc::toJson(posenc::attentionConfigFromHF(a.text("config"), c.layer, c.reader)));
}

// --- score terms, attention, tables -----------------------------------------------------------------
void attention(Value& r) {
    const Args o = options(r, "attention", {"args", "attention args", ""});
    auto call = readTable<posenc::registry::AttentionCall>("attention", o);
    posenc::AttentionRequest& q = call.request;
    if (q.kvType) {  // k and v as f16 / bf16 bits
        q.kBits = o.halves("k", posenc::kvTypeName(*q.kvType)), q.vBits = o.halves("v", posenc::kvTypeName(*q.kvType));
    } else {
        q.k = o.floats("k"), q.v = o.floats("v");
    }
    q.qPositions = o.tensor<std::int32_t>("qPositions"), q.kPositions = o.tensor<std::int32_t>("kPositions");
    q.maskPositions = o.tensor<std::int32_t>("maskPositions"), q.keyMask = o.tensor<std::uint8_t>("keyMask");
    q.encoding = encodingOf(o);
    const Args a(r);
    const Count wn = Count(q.dims.heads) * q.dims.qLen * q.dims.kLen;
    float* out = floatOut(a, "out", q.q.size / std::max(q.dims.headDim, 1) * q.dims.valueChannels());
    float* weights = call.returnWeights ? floatOut(a, "weights", wn) : nullptr;
    float* scores = call.returnScores ? floatOut(a, "scores", wn) : nullptr;
    posenc::attention(q, out, weights, scores);
}

// The bias [heads, qLen, kLen] of scalar-bias encodings, with the heads the (first) encoding gives.
void attentionBias(Value& r) {
    const Args a(r);
    Value* e = r.find("encoding");
    if (!e) posenc::failType("encoding", "is required");
    posenc::registry::checkEncoding(*e, "encoding", {});
    const Value* heads = (e->isArray() ? (*e)[0] : *e).find("heads");
    const int h = heads ? static_cast<int>(heads->number()) : 0;
    const View<std::int32_t> q = a.tensor<std::int32_t>("qPositions"), k = a.tensor<std::int32_t>("kPositions");
    posenc::attentionBias(encodingOf(a), h, q, k, floatOut(a, "out", Count(std::max(h, 0)) * q.size * k.size));
}

template <class Options, class Bucket>
void buckets(const Args& a, Options o, Bucket bucket) {
    posenc::validate(o);
    const View<std::int32_t> rel = a.tensor<std::int32_t>("relativePositions");
    std::int32_t* out = intOut("out", rel.size);
    for (std::size_t i = 0; i < rel.size; ++i) out[i] = static_cast<std::int32_t>(bucket(rel[i], o));
}

void t5Bucket(Value& r) {
    const Args o = options(r, "t5Bucket");
    buckets(Args(r), readTable<posenc::T5BucketOptions>("t5Bucket", o), [](std::int32_t x, const posenc::T5BucketOptions& b) { return posenc::t5Bucket(x, b); });
}

void debertaBucket(Value& r) {
    const Args o = options(r, "debertaBucket");
    buckets(Args(r), readTable<posenc::DebertaBucketOptions>("debertaBucket", o), [](std::int32_t x, const posenc::DebertaBucketOptions& b) { return posenc::debertaBucket(x, b); });
}

void alibiSlopes(Value& r) { gAnswer.key("value").numbers(posenc::alibiSlopes(Args(r).integer("numHeads"))); }

void swinRelativeIndex(Value& r) {
    const Args a(r);
    const auto idx = posenc::swinRelativeIndex(a.integer("windowH"), a.integer("windowW"));
    std::copy(idx.begin(), idx.end(), intOut("out", idx.size()));
}

void parameterCount(Value& r) {
    const std::string method = Args(r).text("method");
    std::vector<std::string> methods;
    for (const posenc::registry::Table& t : posenc::registry::tables())
        if (t.name.rfind("parameterCount.", 0) == 0) methods.push_back(t.name.substr(15));
    posenc::registry::choose(method, "method", methods);
    const Args o = options(r, "parameterCount." + method, optionsOf("parameterCount('" + method + "')"));
    const double n = posenc::registry::parameterCount(method, o);
    if (n > 9007199254740992.0) {
        posenc::json::Writer w;
        posenc::fail("parameterCount('" + method + "'):", w.number(n).text() + " parameters cannot be counted exactly (more than 2^53)");
    }
    gAnswer.key("value").number(n);
}

void registryTables(Value&) { gAnswer.key("value").raw(posenc::registry::json()); }

void setThreadCount(Value& r) { gAnswer.key("value").number(posenc::setThreadCount(Args(r).integer("threads"))); }

// Plain memcpy inside the heap: the copy-bandwidth yardstick the benchmarks compare against.
void copyBytes(Value& r) {
    const Args a(r);
    std::memcpy(a.pointer<char>("dst"), a.pointer<char>("src"), static_cast<std::size_t>(a.number("bytes")));
}

// --- KV cache: a handle is the cache's address, valid while listed in gCaches ----------------------------
void cacheCreate(Value& r) {
    const Args o = options(r, "KVCache");
    const auto c = readTable<posenc::KVCacheConfig>("KVCache", o);
    // refused before the cache builds its tables: what the 4 GiB heap cannot hold beside the module
    const Count bytes = posenc::KVCache::storageBytes(c);
    if (bytes > (Count(1) << 32) - (Count(1) << 26))
        posenc::fail("capacity", "(" + std::to_string(c.capacity) + ") needs " + std::to_string(bytes) + " bytes for keys and values (storage '" +
                                     posenc::storageName(c.storage) + "'), more than the 4 GiB wasm heap can hold");
    auto cache = std::make_unique<posenc::KVCache>(c);
    gCaches.insert(cache.get());
    gAnswer.key("value").number(static_cast<double>(reinterpret_cast<std::uintptr_t>(cache.release())));
    gAnswer.key("batch").number(c.batch).key("capacity").number(c.capacity).key("storage").string(posenc::storageName(c.storage));
}

void cacheDelete(Value& r) {
    posenc::KVCache* c = &cacheOf(Args(r));
    gCaches.erase(c);
    delete c;
}

// k: [batch, kvHeads, T, headDim], v: [batch, kvHeads, T, valueDim], T implied by k's length.
void cacheAppend(Value& r) {
    const Args a(r);
    posenc::KVCache& c = cacheOf(a);
    const Args o = options(r, "KVCache.append", {"options", "append options", ""});
    const posenc::KVCacheConfig& cfg = c.config();
    const Count perToken = Count(cfg.batch) * cfg.kvHeads * cfg.headDim;
    const auto x = readTable<posenc::registry::AppendCall>("KVCache.append", o);
    if (x.kvType) {  // k and v as f16 / bf16 bits
        const posenc::KVType type = *x.kvType;
        const View<std::uint16_t> k = a.halves("k", posenc::kvTypeName(type)), v = a.halves("v", posenc::kvTypeName(type));
        const int tokens = countOf(k.size, perToken, "k", "[batch, kvHeads, T, headDim]");
        return c.append(k, v, type, tokens, o.tensor<std::int32_t>("positions"), o.tensor<std::uint8_t>("mask"), o.tensor<std::int32_t>("maskPositions"),
                        x.logForget);
    }
    const int tokens = countOf(a.floats("k").size, perToken, "k", "[batch, kvHeads, T, headDim]");
    c.append(a.floats("k"), a.floats("v"), tokens, o.tensor<std::int32_t>("positions"), o.tensor<std::uint8_t>("mask"),
             o.tensor<std::int32_t>("maskPositions"), x.logForget);
}

void cacheBytes(Value& r) { gAnswer.key("value").number(static_cast<double>(cacheOf(Args(r)).bytes())); }

// q: [batch, heads, qLen, headDim], qLen implied by its length; out [batch, heads, qLen, valueDim].
void cacheAttend(Value& r) {
    const Args a(r);
    posenc::KVCache& c = cacheOf(a);
    const posenc::KVCacheConfig& cfg = c.config();
    const Args o = options(r, "KVCache.attend", {"options", "attend options", ""}, {0, cfg.headDim, "the attention's headDim"});
    const View<float> q = a.floats("q");
    const auto x = readTable<posenc::registry::AttendCall>("KVCache.attend", o);
    const int heads = x.heads;
    // q's size fixes heads * qLen only: when it does not fit, say which heads was assumed
    const Count rows = Count(cfg.batch) * cfg.headDim;
    if (q.size > 0 && q.size % rows == 0 && (q.size / rows) % heads != 0)
        posenc::fail("heads", "(" + std::to_string(heads) + ") does not fit q: q holds " + std::to_string(q.size / rows) +
                                  " head vectors per batch row ([batch = " + std::to_string(cfg.batch) + ", heads, qLen, headDim = " +
                                  std::to_string(cfg.headDim) + "]), not a multiple of heads");
    const int qLen = countOf(q.size, rows * heads, "q", "[batch, heads, qLen, headDim] with heads = " + std::to_string(heads));
    c.attend(q, heads, qLen, encodingOf(o), o.tensor<std::int32_t>("qPositions"), x.causal,
             floatOut(a, "out", q.size / std::max(cfg.headDim, 1) * (cfg.valueDim > 0 ? cfg.valueDim : cfg.headDim)), x.scale,
             o.tensor<std::int32_t>("maskPositions"), x.sinkLogits, x.softcap);
}

void cacheShift(Value& r) { cacheOf(Args(r)).shift(static_cast<std::int64_t>(Args(r).number("delta"))); }
void cacheRenumber(Value& r) { cacheOf(Args(r)).renumber(Args(r).tensor<std::int32_t>("positions")); }

void cachePositions(Value& r) {
    const auto p = cacheOf(Args(r)).positions();
    std::copy(p.begin(), p.end(), intOut("value", p.size()));
}

void cacheNextPositions(Value& r) {
    const auto p = cacheOf(Args(r)).nextPositions();
    std::copy(p.begin(), p.end(), intOut("value", p.size()));
}

struct Op {
    const char* name;
    void (*run)(Value&);
};
constexpr Op kOps[] = {
    {"sinusoidal", sinusoidal}, {"learned", learned}, {"positionIds", [](Value& r) { ofMask(r, false); }},
    {"nextPositions", [](Value& r) { ofMask(r, true); }}, {"modalityPositions", modalityPositions}, {"binary", binary},
    {"codeDistance", codeDistance}, {"lowRank", lowRank}, {"sparse", sparse}, {"randomFeatures", randomFeatures}, {"axial", axial},
    {"twoLevel", twoLevel}, {"sine2d", [](Value& r) { sine(r, false); }}, {"sine3d", [](Value& r) { sine(r, true); }},
    {"resizeGrid", resizeGrid}, {"ropeFrequencies", ropeFrequencies}, {"applyRope", [](Value& r) { rotate(r, false); }},
    {"rotateByDelta", [](Value& r) { rotate(r, true); }}, {"ropeConfigFromHF", ropeConfigFromHF}, {"attentionConfigFromHF", attentionConfigFromHF}, {"attention", attention},
    {"attentionBias", attentionBias}, {"t5Bucket", t5Bucket}, {"debertaBucket", debertaBucket}, {"alibiSlopes", alibiSlopes},
    {"swinRelativeIndex", swinRelativeIndex}, {"parameterCount", parameterCount}, {"registry", registryTables},
    {"setThreadCount", setThreadCount}, {"copyBytes", copyBytes}, {"cache.create", cacheCreate}, {"cache.delete", cacheDelete},
    {"cache.append", cacheAppend}, {"cache.attend", cacheAttend}, {"cache.shift", cacheShift}, {"cache.renumber", cacheRenumber},
    {"cache.positions", cachePositions}, {"cache.nextPositions", cacheNextPositions}, {"cache.bytes", cacheBytes},
};

enum Status : int { kOk = 0, kRangeError = 1, kTypeError = 2, kInternalError = 3 };

// Free bytes inside the heap (in pieces, not one block) and how far it can still grow.
std::uint64_t heapFree() {
#ifdef __EMSCRIPTEN__
    return static_cast<std::uint32_t>(mallinfo().fordblks);  // an int holding a 32-bit size
#else
    return 0;
#endif
}

// A refusal for memory, written without allocating (the heap is full) and without printf (which would
// bring the C library's formatting into the module: ~10 kB gzipped): what the call needed and what is left.
class FixedText {
public:
    FixedText& operator<<(const char* s) {
        while (*s && n_ + 1 < sizeof text_) text_[n_++] = *s++;
        text_[n_] = 0;
        return *this;
    }
    FixedText& operator<<(std::uint64_t v) {
        char digits[24];
        std::size_t k = 0;
        do digits[k++] = static_cast<char>('0' + v % 10); while ((v /= 10) != 0);
        while (k && n_ + 1 < sizeof text_) text_[n_++] = digits[--k];
        text_[n_] = 0;
        return *this;
    }
    const char* c_str() const { return text_; }

private:
    char text_[320] = {};
    std::size_t n_ = 0;
};

const char* outOfMemory() {
    static FixedText text;
    text = FixedText();
    const std::uint64_t needed = gRefusedBytes.load(std::memory_order_relaxed);
    if (needed) text << "out of memory: this call needs " << needed << " bytes in one block";
    else text << "out of memory: the heap cannot hold this call";
#ifdef __EMSCRIPTEN__
    text << "; the wasm heap has " << heapFree() << " bytes free (in pieces) and can grow by "
         << static_cast<std::uint64_t>(emscripten_get_heap_max() - emscripten_get_heap_size()) << " bytes (to 4 GiB)";
#endif
    return text.c_str();
}

int run(const char* text, std::size_t length) {
    Value request = posenc::json::parse(std::string_view(text, length));
    const Value* op = request.find("op");
    const std::string name = op ? op->text() : "";
    for (const Op& o : kOps) {
        if (name != o.name) continue;
        gAnswer.begin();
        o.run(request);
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
    const auto failed = [](int status, const char* what) {
        gAnswer.reset();
        gError.clear();
        try {
            gError = what;
        } catch (const std::bad_alloc&) {  // a message longer than the room kept: its start
            gError.assign(what, std::min(std::strlen(what), gError.capacity()));
        }
        return status;
    };
    gRefusedBytes.store(0, std::memory_order_relaxed);
    try {
        return run(request, length);
    } catch (const posenc::WrongType& e) {
        return failed(kTypeError, e.what());
    } catch (const std::invalid_argument& e) {
        return failed(kRangeError, e.what());
    } catch (const std::bad_alloc&) {
        return failed(kRangeError, outOfMemory());
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
std::size_t posenc_heap_free() noexcept { return static_cast<std::size_t>(heapFree()); }
void posenc_release() noexcept { gAnswer.reset(); }
}
