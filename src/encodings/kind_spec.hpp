// One encoding kind, described once (docs/adding-an-encoding.md): the keys of its options object, each
// declared with the member of the kind's struct it is read into (so a key and its member cannot drift
// apart, and a default is the member's initialiser), what it builds for a call, its default scale, its
// traits, its parameter count, its describe() row, its references and the demo's example shapes.
// One file per kind in this folder defines its spec (`makeSpec(Tag<Its struct>)`, reached as
// `specOf<Its struct>()`); the kinds, in order, are the alternatives of posenc::Encoding (kinds.cpp).
// The registry (src/registry.cpp) makes its tables, messages and JSON from these; attention builds
// score terms through them (src/attention/encoding.cpp).
#pragma once
#include <functional>
#include <cmath>
#include <cstdint>
#include <string>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/json.hpp"
#include "posenc/attention/encoding.hpp"
#include "posenc/scores/score_term.hpp"
#include "registry_fields.hpp"

namespace posenc::kinds {

// Where the kind enters attention; `query` scales queries (describe() files it under 'score').
enum class Family { none, rotary, query, score };

// One key of the options object. `read` sets the member from the key when given (`options` is the
// kind's struct); `given` says whether a struct's member differs from its initialiser; `write` writes the
// member's value as JSON (RopeScaling's keys only: the config.json reader's echo, src/rotary/hf_config.cpp).
// Its user documentation is a `///` block right before it in kFields (TSDoc, not compiled in), else `doc`,
// the one line the registry JSON carries: scripts/gen-types.mjs writes bindings/options.d.ts from both.
// `owner` is the struct `read` sets a member of (ownerTag<T>: a tag per type; null for a key with no
// member); registry::readTable checks it before handing `read` a struct.
struct KindField {
    registry::Raw raw;
    const char* doc = "";
    void (*read)(const registry::Source& s, const char* key, void* options) = nullptr;
    bool (*given)(const void* options) = nullptr;
    const void* owner = nullptr;
    void (*write)(json::Writer& w, const void* options) = nullptr;
};

// One address per type: what a field's `owner` and a struct's reader compare.
template <class T>
inline constexpr char ownerTag = 0;

// What a parameter formula reads: each shape key's value or its table default, checked against the table.
class Shape {
public:
    virtual ~Shape() = default;
    virtual double operator()(const char* key) const = 0;
    virtual std::vector<double> numbers(const char* key) const = 0;  // a list key (windowSize)
};

struct Link {
    const char* text;
    const char* url;
};

// describe()'s row (posenc/describe.hpp) less the kind and family, which the spec holds.
struct DescribeText {
    const char *encodes, *parameters, *parameterMethod;
    bool extrapolates;
    const char* extrapolation;
    bool kvCacheFriendly;
    const char *kvCache, *reference, *usedIn;
};

// A view of a constant array (a kind's keys live in constant data: no code per key).
template <class T>
struct Span {
    const T* first = nullptr;
    std::size_t count = 0;
    constexpr Span() = default;
    template <std::size_t N>
    constexpr Span(const T (&a)[N]) : first(a), count(N) {}
    Span(const std::vector<T>& v) : first(v.data()), count(v.size()) {}
    const T* begin() const { return first; }
    const T* end() const { return first + count; }
    bool empty() const { return count == 0; }
};

struct KindSpec {
    const char* name = "";       // encoding.kind
    const char* interface = "";  // its interface in bindings/options.d.ts (generated: scripts/gen-types.mjs)
    Family family = Family::score;
    Span<KindField> fields;
    // The options object read into the kind's struct, as a posenc::Encoding; null for a struct that is
    // not one of Encoding's alternatives (a test's kind: readOptions<T> reads it).
    Encoding (*from)(const KindSpec&, const registry::Source&) = nullptr;
    // Its score term for a call (`options`: the kind's struct); none: it acts on q and k. Set by
    // buildsTerm; plain function pointers (not std::function): the wasm module pays for each kind's code.
    bool hasTerm() const { return termCall != nullptr; }
    std::unique_ptr<ScoreTerm> term(const AttentionInputs& in, const void* options) const { return termCall(termFn, in, options); }
    // Its default scale (set by `scales`); none: 1/sqrt(headDim).
    bool hasScale() const { return scaleCall != nullptr; }
    double scale(const void* options, int headDim) const { return scaleCall(scaleFn, options, headDim); }
    bool scalarBias = false;     // a bias of positions and head only (attentionBias draws it)
    bool perQueryState = false;  // its term keeps per-query state (content × position terms)
    bool stickBreaking = false;  // its weights are stick-breaking's, not the softmax's (attention/stick_breaking.hpp)
    // parameterCount('<name>'): the shape keys (their interface in options.d.ts, generated; none: a fixed function
    // that learns nothing) and the formula.
    const char* shapeInterface = "";
    Span<registry::Raw> shape;
    double (*parameters)(const Shape&) = nullptr;
    // The demo's shapes for parameterCount, for a BERT-base-sized model (512 positions, d = 768, 12
    // heads of 64): JSON text, "" = none.
    const char* example = "";
    // A complete, minimal valid options object of the kind ("kind" included) for kExampleCall, as JSON
    // text: a tensor is a list of numbers, or {"$floats": n}, n floats of any finite value (the reader
    // fills them). The registry JSON carries it (methods[kind].options): the tests build their valid
    // encoding of every kind from it (strict-options, the JS fuzz, the libFuzzer attention target: a kind
    // without a generator or Builder of their own), so a new kind needs no line in them.
    const char* options = "";
    DescribeText describe{};
    Span<Link> paper, code;  // the paper and the upstream code (empty: none single)

    // the typed functions behind term() and scale(), and the trampolines that call them
    using AnyFn = void (*)();
    AnyFn termFn = nullptr, scaleFn = nullptr;
    std::unique_ptr<ScoreTerm> (*termCall)(AnyFn, const AttentionInputs&, const void*) = nullptr;
    double (*scaleCall)(AnyFn, const void*, int) = nullptr;
};

// The attention call every kind's `options` example is made for (the registry JSON's exampleCall):
// 2 heads and 2 kv heads of 8 channels, 2 queries (at positions 1, 2) over 3 keys (at 0, 1, 2), causal.
constexpr const char* kExampleCall = R"({"heads":2,"kvHeads":2,"headDim":8,"qLen":2,"kLen":3,"causal":true})";

// The kinds in posenc::Encoding's order (CombinedEncoding is not a kind).
const std::vector<const KindSpec*>& standard();
// The spec of a single encoding's alternative and its struct (null spec for a combination).
std::pair<const KindSpec*, const void*> of(const Encoding& e);
// "'alibi', 't5', ...": the scalar-bias kinds, for messages.
std::string scalarBiasNames();
// RopeScaling's keys, shared by every rope options object (defined with the rope kind).
const std::vector<KindField>& scalingFields();
// Refuses (TypeError) a rope options object's keys that would have no effect with the others: `given`
// asks whether a key is present, multiAxis is its value ('none' when absent), prefix names the object.
void checkRopeKeys(const std::function<bool(const char*)>& given, const std::string& multiAxis, const std::string& prefix);

// What terms may precompute from a call's positions (src/attention/encoding.cpp).
std::pair<std::int64_t, std::int64_t> allowedDeltaRange(const AttentionInputs& in);  // qPos - kPos over admitted pairs (empty: min > max)
std::int64_t callDistance(const AttentionInputs& in);                              // the largest |qPos - kPos|
CallDistances callDistances(const AttentionInputs& in);

// Kind T's spec. Declared here, defined once (src/encodings/kind_define.hpp) and instantiated only by
// T's own file, which defines `KindSpec makeSpec(Tag<T>)` and then instantiates specOf<T> explicitly
// (`template const KindSpec& specOf<T>();`). Everything else uses this declaration: no explicit
// specialisation exists, so none has to be declared where it is used, and nothing lists the kinds.
template <class T>
struct Tag {};
template <class T>
const KindSpec& specOf();

// --- declaring fields: member paths ---------------------------------------------------------------
template <class M>
struct MemberOf;
template <class C, class V>
struct MemberOf<V C::*> {
    using Owner = C;
};
template <auto M>
using OwnerOf = typename MemberOf<decltype(M)>::Owner;

// follow<&A::b, &B::c>(a) is a.b.c: a key may set a member of a nested options struct.
template <auto M, auto... Rest, class T>
auto& follow(T& x) {
    if constexpr (sizeof...(Rest) == 0) return x.*M;
    else return follow<Rest...>(x.*M);
}

template <class V>
inline constexpr bool isOptional = false;
template <class V>
inline constexpr bool isOptional<std::optional<V>> = true;

template <class V>
void readValue(const registry::Source& s, const char* key, V& member) {
    if constexpr (std::is_same_v<V, View<float>>) {
        if (s.has(key)) member = s.floats(key);
    } else if constexpr (std::is_same_v<V, std::vector<float>>) {  // a tensor the struct keeps (RopeConfig::generators)
        if (s.has(key)) {
            const View<float> v = s.floats(key);
            member.assign(v.data, v.data + v.size);
        }
    } else if constexpr (std::is_same_v<V, std::string>) {
        if (s.has(key)) member = s.text(key);
    } else if constexpr (isOptional<V>) {  // absent: stays empty
        if (s.has(key)) {
            typename V::value_type x{};
            readValue(s, key, x);
            member = x;
        }
    } else {
        registry::read(s, key, member);
    }
}
template <auto M, auto... Rest>
void readMember(const registry::Source& s, const char* key, void* o) {
    readValue(s, key, follow<M, Rest...>(*static_cast<OwnerOf<M>*>(o)));
}
// A struct as its member initialisers leave it: one per options struct (defaults are read from it).
template <class T>
const T& pristine() {
    static const T t{};
    return t;
}
template <auto M, auto... Rest>
double initialiser() {
    return static_cast<double>(follow<M, Rest...>(pristine<OwnerOf<M>>()));
}
// Whether the member differs from its initialiser (RopeScaling: a field a scaling type does not take).
template <auto M, auto... Rest>
bool givenMember(const void* o) {
    const auto& v = follow<M, Rest...>(*static_cast<const OwnerOf<M>*>(o));
    const auto& d = follow<M, Rest...>(pristine<OwnerOf<M>>());
    using V = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<V, View<float>>) return v.size != 0;
    else if constexpr (std::is_floating_point_v<V>) return !(v == d || (std::isnan(v) && std::isnan(d)));  // NaN = not given
    else return !(v == d);
}

// The member's value as JSON: a number, a boolean or a list of numbers.
template <auto M, auto... Rest>
void writeMember(json::Writer& w, const void* o) {
    const auto& v = follow<M, Rest...>(*static_cast<const OwnerOf<M>*>(o));
    using V = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<V, bool>) w.boolean(v);
    else if constexpr (std::is_same_v<V, std::vector<double>>) w.numbers(v);
    else w.number(static_cast<double>(v));
}

template <auto M, auto... Rest>
constexpr KindField member(registry::Raw r, const char* doc) {
    return {r, doc, &readMember<M, Rest...>, nullptr, &ownerTag<OwnerOf<M>>};
}
template <auto... P>
constexpr KindField req(const char* name, const char* type, const char* doc = "") {
    return member<P...>(registry::req(name, type), doc);
}
template <auto... P>
constexpr KindField opt(const char* name, const char* type, const char* doc = "") {
    return member<P...>(registry::opt(name, type), doc);
}
template <auto... P>
constexpr KindField num(const char* name, const char* type, const char* doc = "") {
    return member<P...>(registry::num(name, type, "", &initialiser<P...>), doc);
}
template <auto... P>
constexpr KindField flag(const char* name, const char* doc = "") {
    return member<P...>(registry::flag(name, "", &initialiser<P...>), doc);
}
template <auto... P>
constexpr KindField pick(const char* name, const char* choices, const char* doc = "") {
    return member<P...>(registry::pick(name, choices, "", &initialiser<P...>), doc);
}
template <auto... P>
constexpr KindField pickRequired(const char* name, const char* choices, const char* doc = "") {
    return member<P...>(registry::pickRequired(name, choices, ""), doc);
}
template <auto... P>
constexpr KindField heads() {
    return opt<P...>("heads", "integer", "heads of the bias (default: the call's heads)");
}
// A key whose value does not map onto one member (windowSize -> windowH, windowW); `Owner`: the struct
// `read` sets (void: a kind's own reader, which casts as it knows).
template <class Owner = void>
constexpr KindField custom(registry::Raw r, const char* doc, void (*read)(const registry::Source&, const char*, void*)) {
    if constexpr (std::is_void_v<Owner>) return {r, doc, read};
    else return {r, doc, read, nullptr, &ownerTag<Owner>};
}
// A key with no member: a tensor or an object the reader of the table takes itself, by the same name.
constexpr KindField key(registry::Raw r) { return {r}; }
constexpr KindField atLeast(int min, KindField f) {
    f.raw.min = min;
    return f;
}

// --- declaring a kind -------------------------------------------------------------------------------
template <class T>
T readOptions(const KindSpec& k, const registry::Source& s) {
    T x{};
    for (const KindField& f : k.fields)
        if (f.read) f.read(s, f.raw.name, &x);
    return x;
}
template <class T>
Encoding readEncoding(const KindSpec& k, const registry::Source& s) {
    return readOptions<T>(k, s);
}

template <class T>
KindSpec kind(const char* name, const char* interface, Family family, Span<KindField> fields) {
    KindSpec k;
    k.name = name, k.interface = interface, k.family = family, k.fields = fields;
    if constexpr (std::is_constructible_v<Encoding, T>) k.from = &readEncoding<T>;
    return k;
}
// make(const AttentionInputs&, const T&) -> std::unique_ptr<ScoreTerm>
template <class T, class Fn>
std::unique_ptr<ScoreTerm> callTerm(KindSpec::AnyFn f, const AttentionInputs& in, const void* o) {
    return reinterpret_cast<Fn>(f)(in, *static_cast<const T*>(o));
}
template <class T, class Fn>
double callScale(KindSpec::AnyFn f, const void* o, int headDim) {
    return reinterpret_cast<Fn>(f)(*static_cast<const T*>(o), headDim);
}
// make: a lambda without captures, (const AttentionInputs&, const T&) -> std::unique_ptr<a ScoreTerm>
template <class T, class F>
void buildsTerm(KindSpec& k, F make) {
    auto* f = +make;
    k.termFn = reinterpret_cast<KindSpec::AnyFn>(f);
    k.termCall = &callTerm<T, decltype(f)>;
}
// scale: a lambda without captures, (const T&, int headDim) -> double
template <class T, class F>
void scales(KindSpec& k, F scale) {
    auto* f = +scale;
    k.scaleFn = reinterpret_cast<KindSpec::AnyFn>(f);
    k.scaleCall = &callScale<T, decltype(f)>;
}
constexpr registry::Raw size(const char* name) { return registry::req(name, "integer"); }

}  // namespace posenc::kinds
