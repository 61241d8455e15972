// The calls' options tables (src/registry.cpp, src/options_tables.hpp): each key declared with the
// member it is read into. Held here: every table whose keys are bound reads exactly its own keys into
// its struct, absent keys keep the defaults the JavaScript API documents (bindings/options.d.ts, which
// the binding used to write out key by key: positionIds' batch 1 and paddingIdx 1, attention's kvHeads =
// heads, binary's dim = bits, attend's causal true), given keys land in their members, and a reader
// that hands a table the wrong struct is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "options_tables.hpp"
#include "posenc/posenc.hpp"
#include "posenc/registry.hpp"

using namespace posenc;
using registry::readTable;

namespace {

// Keys as a checked JSON object would give them (choices as their index, flags as 0 / 1); every key
// asked for is recorded.
struct Given final : registry::Source {
    std::map<std::string, double> numbers_;
    std::map<std::string, std::vector<double>> lists;
    std::map<std::string, std::string> texts_;
    std::map<std::string, std::vector<float>> tensors;
    std::map<std::string, Given> objects;
    mutable std::set<std::string> asked;

    bool has(const char* k) const override {
        asked.insert(k);
        return numbers_.count(k) || lists.count(k) || texts_.count(k) || tensors.count(k) || objects.count(k);
    }
    double number(const char* k) const override { return asked.insert(k), numbers_.at(k); }
    std::string text(const char* k) const override { return asked.insert(k), texts_.at(k); }
    std::vector<double> numbers(const char* k) const override { return asked.insert(k), lists.at(k); }
    std::vector<std::string> texts(const char* k) const override { return asked.insert(k), std::vector<std::string>{}; }
    View<float> floats(const char* k) const override {
        asked.insert(k);
        const std::vector<float>& t = tensors.at(k);
        return View<float>(t.data(), t.size());
    }
    std::unique_ptr<registry::Source> object(const char* k) const override { return asked.insert(k), std::make_unique<Given>(objects.at(k)); }
};

// Every table whose keys are bound, read with its struct from `s`: the keys its reader asked for.
template <class T>
std::set<std::string> askedBy(const char* table, const Given& s = {}) {
    s.asked.clear();
    readTable<T>(table, s);
    return s.asked;
}

using Reader = std::set<std::string> (*)(const char*, const Given&);
const std::map<std::string, Reader>& readers() {
    static const std::map<std::string, Reader> r = {
        {"sinusoidal", askedBy<SinusoidalOptions>},
        {"learned", askedBy<LearnedOptions>},
        {"positionIds", askedBy<registry::PositionIdsCall>},
        {"nextPositions", askedBy<registry::PositionIdsCall>},
        {"binary", askedBy<BinaryOptions>},
        {"codeDistance", askedBy<CodeOptions>},
        {"lowRank", askedBy<registry::LowRankCall>},
        {"sparse", askedBy<registry::SparseCall>},
        {"randomFeatures", askedBy<RandomFeatureOptions>},
        {"axial", askedBy<AxialOptions>},
        {"twoLevel", askedBy<registry::TwoLevelCall>},
        {"sine2d", askedBy<registry::SineCall>},
        {"sine3d", askedBy<registry::SineCall>},
        {"resizeGrid", askedBy<ResizeOptions>},
        {"t5Bucket", askedBy<T5BucketOptions>},
        {"debertaBucket", askedBy<DebertaBucketOptions>},
        {"shape", askedBy<registry::HeadsShape>},
        {"ropeConfigFromHF", askedBy<HfConfigOptions>},
        {"attentionConfigFromHF", askedBy<registry::AttentionConfigCall>},
        {"attention", askedBy<registry::AttentionCall>},
        {"KVCache", askedBy<KVCacheConfig>},
        {"KVCache.append", askedBy<registry::AppendCall>},
        {"KVCache.attend", askedBy<registry::AttendCall>},
    };
    return r;
}

}  // namespace

TEST_CASE("options tables: each bound table's reader asks for its own keys only, and for every key with a member") {
    std::set<std::string> bound;
    for (const registry::Table& t : registry::tables())
        if (registry::tableOwner(t.name)) bound.insert(t.name);
    std::set<std::string> listed;
    for (const auto& [name, read] : readers()) listed.insert(name);
    CHECK(bound == listed);  // a new bound table is read here too

    // Keys read by name by the binding (tensors of integers, tensor lists, encodings, the JS side's inPlace,
    // the caller's out buffer): in the table, without a member.
    const std::set<std::string> byName = {"out", "offsets", "lengths", "indices", "tables", "mask", "attention.k", "attention.v", "qPositions", "kPositions",
                                          "maskPositions", "keyMask", "encoding", "positions"};
    for (const auto& entry : readers()) {  // not a structured binding: CAPTURE's lambda may not capture one in C++17 (clang)
        const std::string& name = entry.first;
        const Reader& read = entry.second;
        CAPTURE(name);
        const registry::Table& t = registry::table(name);
        const std::set<std::string> asked = read(name.c_str(), Given{});
        for (const std::string& k : asked) {
            CAPTURE(k);
            CHECK(t.find(k) != nullptr);
        }
        for (const registry::Field& f : t.keys) {
            CAPTURE(f.name);
            CHECK((asked.count(f.name) == 1) != (byName.count(f.name) + byName.count(name + "." + f.name) == 1));
        }
    }
}

TEST_CASE("options tables: absent keys keep the API's documented defaults") {
    const Given none;
    const auto ids = readTable<registry::PositionIdsCall>("positionIds", none);
    CHECK(ids.batch == 1);
    CHECK(ids.paddingIdx == 1);  // fairseq / RoBERTa's padding_idx
    CHECK(ids.past == 0);
    CHECK(ids.style == PositionIdStyle::hf);
    CHECK(readTable<registry::AttendCall>("KVCache.attend", none).causal);  // a cache decodes causally unless told
    CHECK(std::isnan(readTable<registry::AttendCall>("KVCache.attend", none).scale));
    CHECK(!readTable<registry::AttendCall>("KVCache.attend", none).softcap);
    CHECK(!readTable<registry::AttentionCall>("attention", none).request.causal);
    CHECK(readTable<KVCacheConfig>("KVCache", none).batch == 1);
    CHECK(readTable<SinusoidalOptions>("sinusoidal", none).paddingIdx == -1);  // none
    CHECK(!readTable<registry::AppendCall>("KVCache.append", none).kvType);

    Given g;
    g.numbers_ = {{"heads", 8}, {"bits", 5}};
    CHECK(readTable<registry::AttentionCall>("attention", g).request.dims.kvHeads == 8);  // kvHeads = heads
    CHECK(readTable<BinaryOptions>("binary", g).dim == 5);                                 // dim = bits
}

TEST_CASE("options tables: given keys land in their members") {
    Given g;
    g.numbers_ = {{"heads", 8}, {"kvHeads", 2}, {"headDim", 64}, {"qLen", 3}, {"kLen", 5}, {"valueDim", 32}, {"causal", 1},
                  {"window", 4}, {"chunk", 6}, {"scale", 0.25}, {"softcap", 30}, {"kvType", 1}, {"returnScores", 1}};
    g.tensors = {{"q", std::vector<float>(8 * 3 * 64)}, {"sinkLogits", std::vector<float>(8)}};
    const auto a = readTable<registry::AttentionCall>("attention", g);
    CHECK(a.request.dims.heads == 8);
    CHECK(a.request.dims.kvHeads == 2);
    CHECK(a.request.dims.headDim == 64);
    CHECK(a.request.dims.qLen == 3);
    CHECK(a.request.dims.kLen == 5);
    CHECK(a.request.dims.valueDim == 32);
    CHECK(a.request.causal);
    CHECK(a.request.window == 4);
    CHECK(a.request.chunk == 6);
    CHECK(a.request.scale == 0.25);
    REQUIRE(a.request.softcap);
    CHECK(*a.request.softcap == 30);
    REQUIRE(a.request.kvType);
    CHECK(*a.request.kvType == KVType::bf16);  // index 1 of 'f16|bf16'
    CHECK(a.request.q.size == 8u * 3 * 64);
    CHECK(a.request.sinkLogits.size == 8u);
    CHECK(!a.returnWeights);
    CHECK(a.returnScores);

    Given r;
    r.lists = {{"from", {3, 4}}, {"to", {6, 8}}};
    r.numbers_ = {{"dim", 16}, {"mode", 1}, {"mapping", 1}, {"prefixTokens", 1}};
    const auto grid = readTable<ResizeOptions>("resizeGrid", r);
    CHECK(grid.fromH == 3);
    CHECK(grid.fromW == 4);
    CHECK(grid.toH == 6);
    CHECK(grid.toW == 8);
    CHECK(grid.dim == 16);
    CHECK(grid.mode == ResizeMode::bilinear);
    CHECK(grid.mapping == ResizeMapping::scaleFactor);
    CHECK(grid.prefixTokens == 1);

    Given c;
    c.numbers_ = {{"kvHeads", 2}, {"headDim", 64}, {"capacity", 16}, {"sinks", 4}, {"storage", 3}, {"forgetting", 1}};
    c.objects["rope"].numbers_ = {{"base", 500000}};
    const auto cache = readTable<KVCacheConfig>("KVCache", c);
    CHECK(cache.kvHeads == 2);
    CHECK(cache.capacity == 16);
    CHECK(cache.sinks == 4);
    CHECK(cache.storage == KVStorage::q8);
    CHECK(cache.forgetting);
    REQUIRE(cache.rope);
    CHECK(cache.rope->config.base == 500000);

    Given h;
    h.numbers_ = {{"layer", 3}, {"strict", 1}, {"unknownModelType", 1}};
    const auto plan = readTable<registry::AttentionConfigCall>("attentionConfigFromHF", h);
    CHECK(plan.layer == 3);
    CHECK(plan.reader.strict);
    CHECK(plan.reader.unknownModelType == HfConfigOptions::UnknownModelType::generic);
    h.texts_ = {{"layerType", "sliding_attention"}};
    CHECK(readTable<HfConfigOptions>("ropeConfigFromHF", h).layerType == "sliding_attention");

    Given s;
    s.numbers_ = {{"frames", 2}, {"height", 3}, {"width", 4}, {"numPosFeats", 8}, {"normalize", 1}};
    const auto sine = readTable<registry::SineCall>("sine3d", s);
    CHECK(sine.frames == 2);
    CHECK(sine.height == 3);
    CHECK(sine.width == 4);
    CHECK(sine.sine.numPosFeats == 8);
    CHECK(sine.sine.normalize);
    CHECK(readTable<registry::SineCall>("sine2d", s).frames == 0);  // not a sine2d key

    Given f;
    f.numbers_ = {{"dim", 4}, {"seed", 9007199254740991.0}};
    CHECK(readTable<RandomFeatureOptions>("randomFeatures", f).seed == 9007199254740991ull);  // 2^53 - 1, exact
}

TEST_CASE("options tables: a table read into the wrong struct, or one not read through a struct, is the reader's error") {
    const Given none;
    CHECK_THROWS_AS(readTable<T5BucketOptions>("sinusoidal", none), std::logic_error);
    CHECK_THROWS_AS(readTable<SinusoidalOptions>("no such table", none), std::logic_error);
    CHECK_THROWS_AS(readTable<SinusoidalOptions>("applyRope", none), std::logic_error);  // rope tables: registry::ropeFrom
    CHECK_THROWS_AS(readTable<SinusoidalOptions>("encoding.alibi", none), std::logic_error);
    CHECK(registry::tableOwner("modalityPositions") == nullptr);  // tensors only: read by name
}
