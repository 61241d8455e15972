// Encoding kinds are described once (src/encodings/kind_spec.hpp). A kind this test declares, with its
// own options struct and score term, goes through the same path a new kind of the library takes: a
// registry built with it has its options and parameterCount tables (defaults from its struct's member
// initialisers, docs), its describe() row in its family's place, the option checks of its keys (unknown,
// required, range; its name among the kinds), its JSON (which tests/node/kind-spec-dummy.test.mjs hands to
// scripts/gen-types.mjs's generator and to the JS fuzz's choice of kinds), and its options read into its
// struct and its term built through the spec. The library's own registry is untouched.
// What only the real variant shows: attention and the cache computing it (the parity grid walks
// posenc::Encoding) and the libFuzzer targets (tests/fuzz/ walk the variant too).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "common/json.hpp"
#include "encodings/kind_spec.hpp"
#include "naive_attention.hpp"
#include "reference.hpp"
#include "spec_example.hpp"
#include "posenc/common/errors.hpp"
#include "registry_build.hpp"
#include "registry_check.hpp"

using namespace posenc;

namespace {

// A test kind: a bias of `weight`·min(|i − j|, reach) per head (a scalar bias, like ALiBi's symmetric form).
struct DummyEncoding {
    int heads = 0;
    double weight = 0.25;
    bool negate = true;
    int reach = 0;
};
class DummyTerm final : public ScoreTerm {
public:
    explicit DummyTerm(const DummyEncoding& e) : w_(e.negate ? -e.weight : e.weight), reach_(e.reach) {}
    void addBias(int, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override {
        for (int j = j0; j < j1; ++j) s[j] += static_cast<float>(w_ * std::min(std::abs(static_cast<double>(qPos) - kPos[j]), double(reach_)));
    }
    bool hasBias() const override { return true; }

private:
    double w_;
    int reach_;
};

constexpr kinds::KindField kDummyFields[] = {
    kinds::heads<&DummyEncoding::heads>(),
    kinds::num<&DummyEncoding::weight>("weight", "number", "bias per unit of distance"),
    kinds::flag<&DummyEncoding::negate>("negate", "subtract the bias"),
    /// Distances past it count as it (its `///` block reaches the generated interface: kind-spec-dummy.test.mjs).
    kinds::atLeast(0, kinds::req<&DummyEncoding::reach>("reach", "integer", "distances past it count as it")),
};

const kinds::KindSpec& dummySpec() {
    using K = DummyEncoding;
    static const kinds::KindSpec spec = [] {
        kinds::KindSpec k = kinds::kind<K>("dummy", "DummyEncoding", kinds::Family::score, kDummyFields);
        kinds::buildsTerm<K>(k, [](const AttentionInputs&, const K& x) { return std::make_unique<DummyTerm>(x); });
        k.scalarBias = true;
        /// Shape of the test kind's per-head weights.
        k.shapeInterface = "DummyShape";
        static constexpr registry::Raw kShape[] = {
            /// Attention heads.
            kinds::size("heads"),
        };
        k.shape = kShape;
        k.parameters = [](const kinds::Shape& s) { return s("heads"); };
        k.example = R"({"heads":12})";
        k.options = R"({"kind":"dummy","reach":2})";
        k.describe = {"a test's bias", "heads", "", true, "any distance", true, "positions only", "this test", "nothing"};
        static constexpr kinds::Link kPaper[] = {{"a paper", "https://example.org/paper"}};
        k.paper = kPaper;
        return k;
    }();
    return spec;
}

struct MapSource final : registry::Source {
    std::map<std::string, double> values;
    bool has(const char* key) const override { return values.count(key) != 0; }
    double number(const char* key) const override { return values.at(key); }
    std::string text(const char*) const override { return ""; }
    std::vector<double> numbers(const char*) const override { return {3, 3}; }
    std::vector<std::string> texts(const char*) const override { return {}; }
    View<float> floats(const char*) const override { return {}; }
    std::unique_ptr<registry::Source> object(const char*) const override { return std::make_unique<MapSource>(); }
};

registry::Built withDummy() {
    registry::Kinds kinds = kinds::standard();
    kinds.push_back(&dummySpec());
    return registry::build(kinds);
}

const registry::Table* find(const registry::Built& b, const std::string& name) {
    for (const registry::Table& t : b.tables)
        if (t.name == name) return &t;
    return nullptr;
}

}  // namespace

TEST_CASE("kind spec: a kind added through its spec gets its tables, describe() row and JSON") {
    const registry::Built b = withDummy();
    CHECK(b.kindNames.back() == "dummy");
    const registry::Table* options = find(b, "encoding.dummy");
    REQUIRE(options);
    CHECK(options->interface == "DummyEncoding");
    REQUIRE(options->keys.size() == 5);
    CHECK(options->keys[0].name == "kind");
    CHECK(options->keys[0].choices == std::vector<std::string>{"dummy"});
    CHECK(options->find("weight")->value.number == DummyEncoding().weight);  // the member initialiser
    CHECK(options->find("negate")->value.boolean == DummyEncoding().negate);
    CHECK(options->find("weight")->doc == "bias per unit of distance");
    CHECK(options->find("heads")->max == 65536);  // the size limits apply by name
    const registry::Table* count = find(b, "parameterCount.dummy");
    REQUIRE(count);
    CHECK(count->find("heads")->required);

    const std::vector<MethodDescription> rows = registry::describeRows(b.kinds);
    CHECK(rows.back().kind == "dummy");  // score terms come last, in kind order
    CHECK(rows.back().family == "score");
    CHECK(rows.size() == describe().size() + 1);

    const json::Value j = json::parse(registry::json(b));
    CHECK(j.find("encodingKinds")->elements().back().text() == "dummy");
    CHECK(j.find("tables")->find("encoding.dummy")->find("keys")->find("weight")->find("doc")->text() == "bias per unit of distance");
    const json::Value& m = *j.find("methods")->find("dummy");
    CHECK(m.find("scalarBias")->boolean());
    CHECK(m.find("example")->find("heads")->number() == 12);
    CHECK(m.find("options")->find("reach")->number() == 2);
    CHECK(m.find("paper")->elements()[0].elements()[1].text() == "https://example.org/paper");
    CHECK(m.find("code")->isNull());
}

TEST_CASE("kind spec: options are read into the kind's struct through its fields; the term is built through the spec") {
    const kinds::KindSpec& k = dummySpec();
    const bool readsAsEncoding = k.from != nullptr;
    CHECK_FALSE(readsAsEncoding);  // not one of posenc::Encoding's alternatives: readOptions reads it
    MapSource s;
    s.values = {{"heads", 2}, {"weight", 0.5}, {"reach", 5}};
    const DummyEncoding e = kinds::readOptions<DummyEncoding>(k, s);
    CHECK(e.heads == 2);
    CHECK(e.weight == 0.5);
    CHECK(e.negate == DummyEncoding().negate);  // absent: the initialiser
    CHECK(e.reach == 5);
    CHECK_THROWS_AS(registry::encodingFrom(k, s), std::logic_error);

    AttentionInputs in;
    auto term = k.term(in, &e);
    const std::int32_t kPos[] = {0, 1, 2};
    float row[3] = {};
    term->addBias(0, 2, 0, 3, kPos, row);
    CHECK(row[0] == -1.0f);
    CHECK(row[1] == -0.5f);
    CHECK(row[2] == 0.0f);
}

TEST_CASE("kind spec: every kind's formula reads only keys of its table, and its example shapes count") {
    for (const kinds::KindSpec* k : kinds::standard()) {
        INFO(k->name);
        if (!k->parameters) continue;
        const registry::Table& t = registry::table(std::string("parameterCount.") + k->name);
        MapSource s;  // every key given (3): a formula's misspelt key is a logic_error here
        for (const registry::Field& f : t.keys) s.values[f.name] = 3;
        CHECK(registry::parameterCount(k->name, s) > 0);
        CHECK(*k->example);  // the demo shows a count for every learned kind
        const json::Value example = json::parse(k->example);
        for (const json::Value::Member& key : example.members()) CHECK(t.find(key.key));
    }
}

TEST_CASE("kind spec: the scalar-bias trait drives isScalarBias and the attentionBias message") {
    CHECK(kinds::scalarBiasNames() == "'alibi', 't5', 'swin', 'kerple', 'fire'");
    CHECK(isScalarBias(AlibiEncoding{}));
    CHECK_FALSE(isScalarBias(ShawEncoding{}));
    CHECK(isScalarBias(CombinedEncoding{{AlibiEncoding{}, T5Encoding{}}}));
    CHECK_FALSE(isScalarBias(CombinedEncoding{{AlibiEncoding{}, RopeEncoding{}}}));
}

TEST_CASE("kind spec: the test kind in the option checks: its name among the kinds, its keys' messages") {
    const registry::Built b = withDummy();
    auto checked = [&b](const char* text) {
        json::Value v = json::parse(text);
        registry::checkEncoding(b, v, "encoding", {2, 8, ""});
        return v;
    };
    const json::Value ok = checked(R"({"kind":"dummy","reach":3})");
    CHECK(ok.find("heads")->number() == 2);  // the call's heads fill in, as for every kind with a heads key
    CHECK_THROWS_WITH_AS(checked(R"({"kind":"dummy","reach":3,"wieght":1})"), "unknown option 'wieght' in encoding (did you mean 'weight'?)", WrongType);
    CHECK_THROWS_WITH_AS(checked(R"({"kind":"dummy","weight":1})"), "encoding.reach is required", WrongType);
    CHECK_THROWS_WITH_AS(checked(R"({"kind":"dummy","reach":-1})"), "encoding.reach must be a non-negative integer (got -1)", std::invalid_argument);
    // (values are named as JavaScript would: typeof, then String(x))
    CHECK_THROWS_WITH_AS(checked(R"({"kind":"dummy","reach":3,"negate":1})"), "encoding.negate must be a boolean (got number 1)", WrongType);
    // a kind name not in the registry: the message lists every kind, the test kind last
    try {
        checked(R"({"kind":"dumy"})");
        FAIL("no error");
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        CHECK(m.find("encoding.kind must be one of 'none', 'rope'") == 0);
        CHECK(m.find(", 'dummy' (got 'dumy')") != std::string::npos);
    }
    // posenc's own registry has no such kind
    json::Value v = json::parse(R"({"kind":"dummy","reach":3})");
    CHECK_THROWS_AS(registry::checkEncoding(v, "encoding", {}), std::invalid_argument);
}

// The registry JSON with the test kind, for tests/node/kind-spec-dummy.test.mjs (which runs this case with
// POSENC_KIND_SPEC_JSON set and hands the file to gen-types' generator and the JS fuzz's kind choice).
TEST_CASE("kind spec: the registry JSON with the test kind") {
    const registry::Built b = withDummy();
    const std::string text = registry::json(b);
    const json::Value j = json::parse(text);
    CHECK(j.find("tables")->find("encoding.dummy"));
    if (const char* path = std::getenv("POSENC_KIND_SPEC_JSON"); path && *path) {
        std::ofstream out(path, std::ios::binary);
        out << text;
        REQUIRE(out.good());
    }
}

// Each kind's options example (KindSpec::options: what the JS tests call every kind with) passes the
// option checks for the example call, names its own kind, and gives each required key.
TEST_CASE("kind spec: every kind's options example is a valid encoding for the example call") {
    const json::Value call = json::parse(kinds::kExampleCall);
    const registry::CallShape shape{static_cast<int>(call.find("heads")->number()), static_cast<int>(call.find("headDim")->number()), "the attention's headDim"};
    for (const kinds::KindSpec* k : kinds::standard()) {
        INFO(k->name);
        REQUIRE(*k->options);
        json::Value o = json::parse(k->options);
        REQUIRE(o.find("kind"));
        CHECK(o.find("kind")->text() == k->name);
        const registry::Table& t = registry::table(std::string("encoding.") + k->name);
        for (json::Value::Member& m : o.members()) {
            const registry::Field* f = t.find(m.key);
            REQUIRE(f);
            if (f->type != "FloatInput") continue;
            // a tensor: a list of numbers or {"$floats": n}; the checks see it placed, as the binding passes it
            const json::Value* n = m.value.find("$floats");
            CHECK((m.value.isArray() || (n && n->number() > 0)));
            const double length = n ? n->number() : static_cast<double>(m.value.size());
            m.value = json::parse("{\"@\":[0," + std::to_string(static_cast<long long>(length)) + "]}");
        }
        CHECK_NOTHROW(registry::checkEncoding(o, "encoding", shape));
    }
}

// Limits a kind declares in its spec reach the registry's checks, whose message names the key: Shaw's
// clip ≥ 0 (tensor2tensor's max_relative_position) and DeBERTa's bucketSize ≥ 0 (0: no log buckets;
// 1..3, which no bucketing can use (mid = bucketSize / 2 must leave a log range), are refused by the
// term's own check, scores/deberta.cpp, whose message names the key as well).
TEST_CASE("kind spec: Shaw's clip and DeBERTa's bucketSize limits are the spec's") {
    CHECK(registry::table("encoding.shaw").find("clip")->min == 0);
    CHECK(registry::table("encoding.deberta").find("bucketSize")->min == 0);
    json::Value shaw = json::parse(R"({"kind":"shaw","clip":-1,"keyTable":{"@":[0,8]}})");
    CHECK_THROWS_WITH_AS(registry::checkEncoding(shaw, "encoding", {2, 8, ""}), "encoding.clip must be a non-negative integer (got -1)", std::invalid_argument);
    json::Value deberta = json::parse(R"({"kind":"deberta","span":4,"posKey":{"@":[0,8]},"bucketSize":-4})");
    CHECK_THROWS_WITH_AS(registry::checkEncoding(deberta, "encoding", {2, 8, ""}), "encoding.bucketSize must be a non-negative integer (got -4)",
                         std::invalid_argument);
    // 1..3: past the registry (no range has a hole), refused by the term's check, which names the key too
    attn_ref::Problem p(2, 2, 8, 2, 3, 7);
    const std::vector<float> pos = ref::randomVector(2 * 2 * 4 * 8, 9);
    DebertaEncoding d;
    d.span = 4, d.posKey = pos, d.posQuery = pos;
    d.buckets.bucketSize = 2, d.buckets.maxPosition = 8;
    CHECK_THROWS_WITH_AS(attention(p.request(d)), "encoding.bucketSize must be 0 (no bucketing) or >= 4 (got 2)", std::invalid_argument);
    d.buckets.bucketSize = 8, d.buckets.maxPosition = 5;  // the log's denominator ln((maxPosition − 1) / mid) must be > 0
    CHECK_THROWS_WITH_AS(attention(p.request(d)), "encoding.maxPosition must exceed bucketSize/2 + 1 (got 5)", std::invalid_argument);
    CHECK_THROWS_WITH_AS(validate(DebertaBucketOptions{2, 8, DebertaConvention::hf}), "bucketSize must be 0 (no bucketing) or >= 4 (got 2)",
                         std::invalid_argument);  // debertaBucket's own options: no "encoding." 
}

// The same examples read into each kind's struct as the binding reads them (spec_example.hpp, which the
// libFuzzer attention target uses for a kind without a Builder) and computed: every alternative of
// posenc::Encoding gives finite attention for the example call.
namespace {
template <class T>
void computeExample() {
    if constexpr (!std::is_same_v<T, CombinedEncoding>) {
        INFO(kinds::specOf<T>().name);
        const json::Value call = json::parse(kinds::kExampleCall);
        const auto get = [&call](const char* key) { return static_cast<int>(call.find(key)->number()); };
        attn_ref::Problem p(get("heads"), get("kvHeads"), get("headDim"), get("qLen"), get("kLen"), 41);
        p.causal = call.find("causal")->boolean();
        std::deque<std::vector<float>> tensors;
        unsigned seed = 50;
        const T e = spec_example::read<T>(p.heads, p.headDim, tensors, [&seed](std::size_t n) { return ref::randomVector(n, seed++); });
        const std::vector<float> out = attention(p.request(e)).out;
        CHECK(out.size() == static_cast<std::size_t>(p.heads) * p.qLen * p.headDim);
        for (const float x : out) REQUIRE(std::isfinite(x));
    }
}
template <std::size_t... I>
void computeEveryExample(std::index_sequence<I...>) {
    (computeExample<std::variant_alternative_t<I, Encoding>>(), ...);
}
}  // namespace

TEST_CASE("kind spec: every kind's options example, read as the binding reads it, computes attention for the example call") {
    computeEveryExample(std::make_index_sequence<std::variant_size_v<Encoding>>{});
}
