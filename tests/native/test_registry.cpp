// The registry (posenc/registry.hpp) is the one list of kinds, fields, defaults and choices, and the
// C++ entry points refuse what it forbids with the JS API's messages (tests/node/strict-options.test.mjs
// checks the same rules and messages from JavaScript).
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include <posenc/posenc.hpp>

using namespace posenc;

namespace {
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
