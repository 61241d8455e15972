// bindings/call.cpp, the wasm module's one entry, called as bindings/heap.mjs calls it: a JSON request
// with tensors as {"@": [address, length]} and options as the caller wrote them; the answer's result tensors, a caller's own output buffer, the status
// of each kind of failure (RangeError / TypeError / internal) and a failed call's empty answer. (Natively
// the addresses are 64-bit: the same code, at wider pointers.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "common/json.hpp"

extern "C" {
int posenc_call(const char* request, std::size_t length) noexcept;
const char* posenc_answer() noexcept;
std::size_t posenc_answer_length() noexcept;
const char* posenc_error() noexcept;
void posenc_release() noexcept;
}

namespace {
int call(const std::string& request) { return posenc_call(request.data(), request.size()); }
posenc::json::Value answer() { return posenc::json::parse(std::string(posenc_answer(), posenc_answer_length())); }
template <class T>
std::string tensor(const T* p, std::size_t n) {
    return "{\"@\":[" + std::to_string(reinterpret_cast<std::uintptr_t>(p)) + "," + std::to_string(n) + "]}";
}
template <class T>
const T* address(const posenc::json::Value& t) {
    return reinterpret_cast<const T*>(static_cast<std::uintptr_t>(t[1].number()));
}
}  // namespace

TEST_CASE("call: a result tensor the core allocates, named by type, address and length") {
    const std::int32_t positions[] = {0, 3};
    REQUIRE(call(R"({"op":"sinusoidal","options":{"dim":4},"positions":)" + tensor(positions, 2) + "}") == 0);
    const posenc::json::Value a = answer();
    const posenc::json::Value& out = *a.find("out");
    REQUIRE(out.size() == 3);
    CHECK(out[0].text() == "f32");
    REQUIRE(out[2].number() == 8);
    const float* got = address<float>(out);
    for (int p = 0; p < 2; ++p) {
        for (int k = 0; k < 2; ++k) {  // interleaved: PE[p, 2k] = sin(p w_k), PE[p, 2k+1] = cos(p w_k), w_k = 10000^(-2k/4)
            const double w = std::pow(10000.0, -2.0 * k / 4), x = positions[p] * w;
            CHECK(got[p * 4 + 2 * k] == doctest::Approx(std::sin(x)).epsilon(1e-6));
            CHECK(got[p * 4 + 2 * k + 1] == doctest::Approx(std::cos(x)).epsilon(1e-6));
        }
    }
    posenc_release();
    CHECK(posenc_answer_length() == 0);
}

TEST_CASE("call: the caller's own output buffer is written where it lies, its length checked") {
    const std::int32_t positions[] = {1};
    float mine[4] = {9, 9, 9, 9};
    REQUIRE(call(R"({"op":"sinusoidal","options":{"dim":4},"positions":)" + tensor(positions, 1) + R"(,"out":)" + tensor(mine, 4) + "}") == 0);
    CHECK(address<float>(*answer().find("out")) == mine);
    CHECK(mine[0] == doctest::Approx(std::sin(1.0)).epsilon(1e-6));
    CHECK(mine[1] == doctest::Approx(std::cos(1.0)).epsilon(1e-6));
    posenc_release();
    REQUIRE(call(R"({"op":"sinusoidal","options":{"dim":4},"positions":)" + tensor(positions, 1) + R"(,"out":)" + tensor(mine, 3) + "}") == 1);
    CHECK(std::string(posenc_error()) == "out must have 4 elements (got 3)");
}

TEST_CASE("call: each failure's status, its message, and no answer left behind") {
    const std::int32_t positions[] = {0};
    REQUIRE(call(R"({"op":"sinusoidal","options":{"dim":4},"positions":)" + tensor(positions, 1) + "}") == 0);
    CHECK(posenc_answer_length() > 0);
    // a value out of range: 1 (RangeError), the field named
    CHECK(call(R"({"op":"sinusoidal","options":{"dim":4,"paddingIdx":-2},"positions":)" + tensor(positions, 1) + "}") == 1);
    CHECK(std::string(posenc_error()) == "paddingIdx must be a non-negative integer (got -2)");
    CHECK(posenc_answer_length() == 0);
    // an option of the wrong type, or one the table lacks: 2 (TypeError)
    CHECK(call(R"({"op":"sinusoidal","options":{"dim":"4"},"positions":)" + tensor(positions, 1) + "}") == 2);
    CHECK(std::string(posenc_error()) == "dim must be a number (got the string \"4\")");
    CHECK(call(R"({"op":"sinusoidal","options":{"dim":4,"bsae":2},"positions":)" + tensor(positions, 1) + "}") == 2);
    CHECK(std::string(posenc_error()) == "unknown option 'bsae' in sinusoidal options (did you mean 'base'?)");
    // a value of the wrong JSON type in a config.json: 2 (TypeError)
    CHECK(call(R"({"op":"ropeConfigFromHF","config":"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_attention_heads\":4,\"rope_theta\":\"big\"}"})") == 2);
    CHECK(std::string(posenc_error()).find("rope_theta") != std::string::npos);
    // what only a broken binding sends: 3 (internal)
    CHECK(call(R"({"op":"nope"})") == 3);
    CHECK(std::string(posenc_error()) == "binding: no operation 'nope'");
    CHECK(call(R"({"op":"parameterCount"})") == 3);
    CHECK(std::string(posenc_error()) == "binding: request lacks 'method'");
    CHECK(call(R"({"op":"parameterCount","method":"toString"})") == 1);  // a registry table's name, never Object's
    CHECK(std::string(posenc_error()).rfind("method must be one of 'sinusoidal', 'rope', ", 0) == 0);
    CHECK(call("{\"op\":") == 3);  // not JSON at all
}

TEST_CASE("call: a KV cache is a handle, refused once deleted") {
    REQUIRE(call(R"({"op":"cache.create","options":{"batch":1,"kvHeads":1,"headDim":4,"capacity":4}})") == 0);
    const std::string handle = std::to_string(static_cast<std::uintptr_t>(answer().find("value")->number()));
    posenc_release();
    REQUIRE(call(R"({"op":"cache.nextPositions","cache":)" + handle + "}") == 0);
    const posenc::json::Value next = *answer().find("value");
    CHECK(next[0].text() == "i32");
    CHECK(address<std::int32_t>(next)[0] == 0);  // nothing appended yet
    posenc_release();
    CHECK(call(R"({"op":"cache.delete","cache":)" + handle + "}") == 0);
    CHECK(call(R"({"op":"cache.delete","cache":)" + handle + "}") == 1);
    CHECK(std::string(posenc_error()) == "cache has been deleted");
}

TEST_CASE("call: the registry's text carries the tables and describe()'s rows") {
    REQUIRE(call(R"({"op":"registry"})") == 0);
    const posenc::json::Value r = *answer().find("value");
    CHECK(r.find("tables")->find("sinusoidal") != nullptr);
    // one row per encoding kind, and one per additive function (the eleven of bindings/index.d.ts)
    std::set<std::string> rows;
    for (const auto& d : r.find("describe")->elements()) rows.insert(d.find("kind")->text());
    for (const auto& kind : r.find("encodingKinds")->elements()) CHECK(rows.count(kind.text()) == 1);
    for (const char* f : {"sinusoidal", "learned", "binary", "lowRank", "sparse", "randomFeatures", "axial", "twoLevel", "sine2d", "sine3d", "resizeGrid"})
        CHECK(rows.count(f) == 1);
    CHECK(rows.size() == r.find("encodingKinds")->size() + 11);
    posenc_release();
}
