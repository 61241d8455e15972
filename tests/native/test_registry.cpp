// The registry (posenc/registry.hpp) is the one list of kinds, fields, defaults and choices, and the
// C++ entry points refuse what it forbids with the JS API's messages (tests/node/strict-options.test.mjs
// checks the same rules and messages from JavaScript).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>

#include <posenc/posenc.hpp>

using namespace posenc;

namespace {
// A registry::Source over a few numbers and the kind (what a reader of any format provides).
struct MapSource final : registry::Source {
    std::map<std::string, double> values;
    std::string kind;
    bool has(const char* key) const override { return values.count(key) || (kind.size() && std::string(key) == "kind"); }
    double number(const char* key) const override { return values.at(key); }
    std::string text(const char*) const override { return kind; }
    std::vector<double> numbers(const char*) const override { return {}; }
    std::vector<std::string> texts(const char*) const override { return {}; }
    View<float> floats(const char*) const override { return {}; }
    std::unique_ptr<registry::Source> object(const char*) const override { return std::make_unique<MapSource>(); }
};

RopeConfig rope8(RopeScalingType type) {
    RopeConfig c;
    c.headDim = 8;
    c.scaling.type = type;
    return c;
}
}  // namespace

TEST_CASE("registry: every encoding kind has a table and a describe() row; table names are unique") {
    std::set<std::string> names;
    for (const registry::Table& t : registry::tables()) CHECK(names.insert(t.name).second);
    std::set<std::string> described;
    for (const MethodDescription& d : describe()) described.insert(d.kind);
    for (const std::string& kind : registry::encodingKinds()) {
        INFO(kind);
        CHECK(names.count("encoding." + kind) == 1);
        CHECK(described.count(kind) == 1);
        CHECK(registry::table("encoding." + kind).keys.front().name == "kind");
    }
    CHECK(registry::encodingKinds().front() == "none");
    CHECK_THROWS_AS(registry::table("nope"), std::invalid_argument);
}

TEST_CASE("registry: every kind is read into its own struct; absent keys keep the struct's defaults") {
    std::set<std::size_t> variants;
    for (const std::string& kind : registry::encodingKinds()) {
        MapSource s;
        s.kind = kind;
        INFO(kind);
        variants.insert(registry::encodingFrom(s).index());
    }
    CHECK(variants.size() == registry::encodingKinds().size());
    MapSource t;
    t.kind = "temperature";
    t.values = {{"beta", 0.5}, {"length", 8}};
    const auto temperature = std::get<TemperatureEncoding>(registry::encodingFrom(t));
    CHECK(temperature.beta == 0.5);
    CHECK(temperature.length == 8);
    CHECK(temperature.offset == TemperatureEncoding().offset);
    MapSource unknown;
    unknown.kind = "nope";
    CHECK_THROWS_WITH_AS(registry::encodingFrom(unknown), "encoding.kind must be one of the registered kinds (got 'nope')", std::invalid_argument);
}

TEST_CASE("registry: defaults are the option structs' initialisers, choices in enum order") {
    const auto& base = *registry::table("ropeFrequencies").find("base");
    CHECK(base.value.kind == registry::Default::Kind::number);
    CHECK(base.value.number == RopeConfig().base);
    const auto& layout = *registry::table("sinusoidal").find("layout");
    CHECK(layout.choices == std::vector<std::string>{"interleaved", "concat", "tensor2tensor"});
    CHECK(layout.value.string == layout.choices[static_cast<std::size_t>(SinusoidalOptions().layout)]);
    CHECK(registry::table("encoding.temperature").find("offset")->value.number == TemperatureEncoding().offset);
    CHECK(registry::scalingTypes().size() == static_cast<std::size_t>(RopeScalingType::longrope) + 1);
    CHECK(registry::scalingTypes()[static_cast<std::size_t>(RopeScalingType::llama3)] == "llama3");
}

TEST_CASE("ropeFrequencies refuses what the JS API refuses: required scaling fields, with its messages") {
    auto linear = rope8(RopeScalingType::linear);
    CHECK_THROWS_WITH_AS(ropeFrequencies(linear), "scaling.factor is required by 'linear' scaling", std::invalid_argument);
    linear.scaling.factor = 2;
    CHECK(ropeFrequencies(linear).invFreq[0] == 0.5);

    auto llama3 = rope8(RopeScalingType::llama3);
    llama3.scaling.factor = 8;
    llama3.scaling.originalMaxPositionEmbeddings = 1024;
    llama3.scaling.highFreqFactor = 4;
    CHECK_THROWS_WITH_AS(ropeFrequencies(llama3), "scaling.lowFreqFactor is required by 'llama3' scaling", std::invalid_argument);

    auto dynamic = rope8(RopeScalingType::dynamic);
    dynamic.scaling.factor = 2;
    CHECK_THROWS_WITH_AS(ropeFrequencies(dynamic), "scaling.originalMaxPositionEmbeddings is required by 'dynamic' scaling",
                         std::invalid_argument);

    auto longrope = rope8(RopeScalingType::longrope);  // factor is optional for longrope (1 when not given)
    longrope.scaling.originalMaxPositionEmbeddings = 16;
    longrope.scaling.shortFactor = {1, 1, 1, 1};
    CHECK_THROWS_WITH_AS(ropeFrequencies(longrope), "scaling.longFactor is required by 'longrope' scaling", std::invalid_argument);
    longrope.scaling.longFactor = {1, 1, 1, 1};
    CHECK(ropeFrequencies(longrope).attentionScale == 1.0);
}

TEST_CASE("ropeFrequencies refuses a scaling field the type does not take (a given field is not a default)") {
    auto linear = rope8(RopeScalingType::linear);
    linear.scaling.factor = 2;
    linear.scaling.betaFast = 16;
    CHECK_THROWS_WITH_AS(ropeFrequencies(linear), "scaling.betaFast does not apply to 'linear' scaling (it belongs to 'yarn' scaling)",
                         std::invalid_argument);
    auto none = rope8(RopeScalingType::none);
    none.scaling.factor = 2;
    CHECK_THROWS_WITH_AS(ropeFrequencies(none),
                         "scaling.factor does not apply to 'none' scaling (it belongs to 'linear' or 'ntk' or 'dynamic' or 'yarn' or 'llama3' or 'longrope' scaling)",
                         std::invalid_argument);
    auto yarn = rope8(RopeScalingType::yarn);
    yarn.scaling.factor = 2;
    yarn.scaling.originalMaxPositionEmbeddings = 16;
    yarn.scaling.lowFreqFactor = 1;
    CHECK_THROWS_WITH_AS(ropeFrequencies(yarn), "scaling.lowFreqFactor does not apply to 'yarn' scaling (it belongs to 'llama3' scaling)",
                         std::invalid_argument);
}

TEST_CASE("registry::parameterCount: the formulas of the methods' learned tables, sizes checked") {
    auto count = [](const char* method, std::map<std::string, double> values) {
        MapSource s;
        s.values = std::move(values);
        return registry::parameterCount(method, s);
    };
    CHECK(count("rope", {}) == 0);
    CHECK(count("learned", {{"maxPositions", 512}, {"dim", 768}}) == 512.0 * 768);
    CHECK(count("t5", {{"heads", 12}}) == 32.0 * 12);  // numBuckets defaults to T5's 32
    CHECK(count("binary", {{"bits", 9}, {"dim", 16}}) == 9.0 * 16 * 2);
    CHECK(count("binary", {{"bits", 9}, {"dim", 16}, {"learned", 0}}) == 0);
    CHECK(count("shaw", {{"clip", 16}, {"headDim", 64}}) == 33.0 * 64 * 2);
    CHECK(count("fire", {{"heads", 12}, {"hidden", 32}}) == 2.0 * 32 + 33 * 12 + 2);
    CHECK_THROWS_WITH_AS(count("learned", {{"dim", 768}}), "maxPositions is required", std::invalid_argument);
    CHECK_THROWS_WITH_AS(count("learned", {{"maxPositions", 0}, {"dim", 768}}), "maxPositions must be a positive integer (got 0)", std::invalid_argument);
    CHECK_THROWS_WITH_AS(count("binary", {{"bits", 9}, {"dim", 16}, {"radix", 1}}), "radix must be an integer in [2, 2147483647] (got 1)",
                         std::invalid_argument);
}
