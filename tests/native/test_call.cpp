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

// The binding reads each options object only by its table's keys (bindings/call.cpp's Args refuses any
// other: a misspelt key would otherwise be a silent default). Each operation that reads keys by name
// (integer tensors, tensor lists, masks, encodings) once, on inputs whose results are worked out by hand.
TEST_CASE("call: the operations that read keys by name read only their table's keys") {
    auto ok = [](const std::string& request) {
        const int status = call(request);
        INFO(std::string(posenc_error()));
        REQUIRE(status == 0);
        return answer();
    };
    auto floats = [](const posenc::json::Value& a, const char* key) {
        const posenc::json::Value& t = *a.find(key);
        const float* p = address<float>(t);
        return std::vector<float>(p, p + static_cast<std::size_t>(t[2].number()));
    };
    const std::int32_t zero[] = {0}, three[] = {3};
    // sparse: row 0 = 1·basis[0] = [3, 4]
    const std::int32_t indices[] = {0};
    const float values[] = {1}, basis[] = {3, 4};
    CHECK(floats(ok(R"({"op":"sparse","options":{"indices":)" + tensor(indices, 1) + R"(,"values":)" + tensor(values, 1) + R"(,"k":1,"basis":)" +
                    tensor(basis, 2) + R"(,"dim":2},"positions":)" + tensor(zero, 1) + "}"),
                 "out") == std::vector<float>{3, 4});
    // axial over a 2×2 grid: position 3 = (1, 1) -> [t0[1], t1[1]]
    const float t0[] = {10, 11}, t1[] = {20, 21};
    CHECK(floats(ok(R"({"op":"axial","options":{"shape":[2,2],"dims":[1,1],"tables":[)" + tensor(t0, 2) + "," + tensor(t1, 2) + R"(]},"positions":)" +
                    tensor(three, 1) + "}"),
                 "out") == std::vector<float>{11, 21});
    // modality positions: offsets given, lengths not
    const std::int32_t offsets[] = {0}, modalities[] = {0};
    ok(R"({"op":"modalityPositions","options":{"offsets":)" + tensor(offsets, 1) + R"(},"modalities":)" + tensor(modalities, 1) + "}");
    // sine2d with a mask over one cell
    const std::uint8_t one[] = {1};
    ok(R"({"op":"sine2d","options":{"height":1,"width":1,"numPosFeats":2,"mask":)" + tensor(one, 1) + "}}");
    // attention over one key: the output is its value
    const float q[] = {1, 0}, k[] = {1, 0}, v[] = {5, 6};
    CHECK(floats(ok(R"({"op":"attention","options":{"q":)" + tensor(q, 2) + R"(,"k":)" + tensor(k, 2) + R"(,"v":)" + tensor(v, 2) +
                    R"(,"heads":1,"headDim":2,"qLen":1,"kLen":1,"keyMask":)" + tensor(one, 1) + R"(,"encoding":{"kind":"alibi"}}})"),
                 "out") == std::vector<float>{5, 6});
    // a cache: append one token (positions, mask given), attend to it
    const std::string handle = std::to_string(static_cast<std::uintptr_t>(
        ok(R"({"op":"cache.create","options":{"kvHeads":1,"headDim":2,"capacity":4}})").find("value")->number()));
    posenc_release();
    ok(R"({"op":"cache.append","cache":)" + handle + R"(,"k":)" + tensor(k, 2) + R"(,"v":)" + tensor(v, 2) + R"(,"options":{"positions":)" +
       tensor(zero, 1) + R"(,"mask":)" + tensor(one, 1) + "}}");
    CHECK(floats(ok(R"({"op":"cache.attend","cache":)" + handle + R"(,"q":)" + tensor(q, 2) + R"(,"options":{"heads":1,"encoding":{"kind":"alibi"}}})"),
                 "out") == std::vector<float>{5, 6});
    CHECK(call(R"({"op":"cache.delete","cache":)" + handle + "}") == 0);
}
