// Encoding kinds are described once (src/encodings/kind_spec.hpp). A kind this test declares, with its
// own options struct and score term, goes through the same path a new kind of the library takes: a
// registry built with it has its options and parameterCount tables (defaults from its struct's member
// initialisers, docs), its describe() row in its family's place, its JSON, and its options read into its
// struct and its term built through the spec. The library's own registry is untouched.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>

#include "common/json.hpp"
#include "encodings/kind_spec.hpp"
#include "registry_build.hpp"

using namespace posenc;

namespace {

// A test kind: a bias of `weight`·|i − j| per head (a scalar bias, like ALiBi's symmetric form).
struct DummyEncoding {
    int heads = 0;
    double weight = 0.25;
    bool negate = true;
};
class DummyTerm final : public ScoreTerm {
public:
    explicit DummyTerm(const DummyEncoding& e) : w_(e.negate ? -e.weight : e.weight) {}
    void addBias(int, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override {
        for (int j = j0; j < j1; ++j) s[j] += static_cast<float>(w_ * std::abs(static_cast<double>(qPos) - kPos[j]));
    }
    bool hasBias() const override { return true; }

private:
    double w_;
};

constexpr kinds::KindField kDummyFields[] = {
    kinds::heads<&DummyEncoding::heads>(),
    kinds::num<&DummyEncoding::weight>("weight", "number", "bias per unit of distance"),
    kinds::flag<&DummyEncoding::negate>("negate", "subtract the bias"),
};

const kinds::KindSpec& dummySpec() {
    using K = DummyEncoding;
    static const kinds::KindSpec spec = [] {
        kinds::KindSpec k = kinds::kind<K>("dummy", "DummyEncoding", kinds::Family::score, kDummyFields);
        kinds::buildsTerm<K>(k, [](const AttentionInputs&, const K& x) { return std::make_unique<DummyTerm>(x); });
        k.scalarBias = true;
        k.shapeInterface = "DummyShape";
        static constexpr registry::Raw kShape[] = {kinds::size("heads")};
        k.shape = kShape;
        k.parameters = [](const kinds::Shape& s) { return s("heads"); };
        k.example = R"({"heads":12})";
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
    REQUIRE(options->keys.size() == 4);
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
    CHECK(m.find("paper")->elements()[0].elements()[1].text() == "https://example.org/paper");
    CHECK(m.find("code")->isNull());
}

TEST_CASE("kind spec: options are read into the kind's struct through its fields; the term is built through the spec") {
    const kinds::KindSpec& k = dummySpec();
    const bool readsAsEncoding = k.from != nullptr;
    CHECK_FALSE(readsAsEncoding);  // not one of posenc::Encoding's alternatives: readOptions reads it
    MapSource s;
    s.values = {{"heads", 2}, {"weight", 0.5}};
    const DummyEncoding e = kinds::readOptions<DummyEncoding>(k, s);
    CHECK(e.heads == 2);
    CHECK(e.weight == 0.5);
    CHECK(e.negate == DummyEncoding().negate);  // absent: the initialiser
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
