// The option rules of src/registry_check.cpp, held to the messages the JS API documents (bindings/
// index.d.ts, README "Errors"): which error type, and the text naming the key, where it was found and
// what was meant. tests/node/strict-options.test.mjs runs every table through the JS API; here each rule
// is checked once, directly, with its hand-written expected message.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "common/json.hpp"
#include "posenc/common/errors.hpp"
#include "posenc/registry.hpp"
#include "registry_check.hpp"

using posenc::json::Value;
using posenc::registry::CallShape;
using posenc::registry::check;
using posenc::registry::optionsOf;
using posenc::registry::Place;

namespace {
// The message of the error check() throws for `text` against `table`; "TypeError: " or "RangeError: " first.
std::string failure(const std::string& text, const std::string& table, const Place& at, CallShape call = {}) {
    Value v = posenc::json::parse(text);
    try {
        check(v, table, at, call);
    } catch (const posenc::WrongType& e) {
        return std::string("TypeError: ") + e.what();
    } catch (const std::invalid_argument& e) {
        return std::string("RangeError: ") + e.what();
    }
    return "ok";
}
std::string failure(const std::string& text, const std::string& table) { return failure(text, table, optionsOf(table)); }
Value checked(const std::string& text, const std::string& table, const Place& at, CallShape call = {}) {
    Value v = posenc::json::parse(text);
    check(v, table, at, call);
    return v;
}
const Place kArgs{"args", "attention args", ""};
}  // namespace

TEST_CASE("registry check: unknown keys name the nearest known key, or where they belong") {
    CHECK(failure(R"({"dim":4,"bsae":2})", "sinusoidal") == "TypeError: unknown option 'bsae' in sinusoidal options (did you mean 'base'?)");
    // config.json spellings find their camelCase key; a config.json key gets its own pointer
    CHECK(failure(R"({"head_dim":8})", "ropeFrequencies") == "TypeError: unknown option 'head_dim' in ropeFrequencies options (did you mean 'headDim'?)");
    CHECK(failure(R"({"headDim":8,"rope_theta":1e4})", "ropeFrequencies") ==
          "TypeError: unknown option 'rope_theta' in ropeFrequencies options ('rope_theta' is a config.json key: pass its value as 'base', or the "
          "whole config to pe.ropeConfigFromHF(config))");
    // a short name far from every key: no suggestion
    CHECK(failure(R"({"q":{},"k":{},"v":{},"heads":1,"headDim":4,"qLen":1,"kLen":1,"x":1})", "attention", kArgs) ==
          "TypeError: unknown option 'x' in attention args");
    // keys of a nested object, one level too high or too low
    CHECK(failure(R"({"headDim":8,"factor":2})", "ropeFrequencies") == "TypeError: unknown option 'factor' in ropeFrequencies options (it belongs in scaling)");
    CHECK(failure(R"({"headDim":8,"scaling":{"type":"linear","factor":2,"base":5}})", "ropeFrequencies") ==
          "TypeError: unknown option 'base' in scaling (it belongs in ropeFrequencies options, next to scaling)");
    CHECK(failure(R"({"q":{},"k":{},"v":{},"heads":1,"headDim":4,"qLen":1,"kLen":1,"slopes":[1]})", "attention", kArgs) ==
          "TypeError: unknown option 'slopes' in attention args (it belongs in encoding)");
    CHECK(failure(R"({"kvHeads":1,"headDim":4,"capacity":2,"base":10})", "KVCache") == "TypeError: unknown option 'base' in KVCache options (it belongs in rope)");
    CHECK(failure(R"({"kvHeads":1,"headDim":4,"capacity":2,"rope":{"factor":2}})", "KVCache") ==
          "TypeError: unknown option 'factor' in rope (it belongs in rope.scaling)");
    // another encoding kind's key
    CHECK(failure(R"({"q":{},"k":{},"v":{},"heads":1,"headDim":4,"qLen":1,"kLen":1,"encoding":{"kind":"alibi","table":{}}})", "attention", kArgs) ==
          "TypeError: unknown option 'table' in encoding (it belongs to kind 't5', 'swin', 'relativeKey', not 'alibi')");
}

TEST_CASE("registry check: null, required keys, types and ranges") {
    CHECK(failure(R"({"dim":4,"paddingIdx":null})", "sinusoidal") == "TypeError: paddingIdx must not be null (leave it out for the default)");
    CHECK(failure(R"({"dim":null})", "sinusoidal") == "TypeError: dim is required (got null)");
    CHECK(failure(R"({})", "sinusoidal") == "TypeError: dim is required");
    CHECK(failure(R"([1])", "sinusoidal") == "TypeError: options must be an object (got an array)");
    CHECK(failure(R"({"$js":"Float32Array"})", "sinusoidal") == "TypeError: options must be an object (got Float32Array)");
    CHECK(failure(R"({"dim":true})", "sinusoidal") == "TypeError: dim must be a number (got boolean true)");
    CHECK(failure(R"({"dim":"a string longer than twenty units"})", "sinusoidal") ==
          "TypeError: dim must be a number (got the string \"a string longer than…\")");
    CHECK(failure(R"({"dim":{"$number":"NaN"}})", "sinusoidal") == "RangeError: dim must be a finite number (got NaN)");
    CHECK(failure(R"({"dim":2.5})", "sinusoidal") == "RangeError: dim must be an integer (got 2.5)");
    CHECK(failure(R"({"dim":0})", "sinusoidal") == "RangeError: dim must be a positive integer (got 0)");
    CHECK(failure(R"({"dim":3e9})", "sinusoidal") == "RangeError: dim must be a positive integer no larger than 1048576 (got 3e9)");
    CHECK(failure(R"({"dim":4,"paddingIdx":-1})", "sinusoidal") == "RangeError: paddingIdx must be a non-negative integer (got -1)");
    CHECK(failure(R"({"dim":4,"layout":"sideways"})", "sinusoidal") ==
          "RangeError: layout must be one of 'interleaved', 'concat', 'tensor2tensor' (got 'sideways')");
    CHECK(failure(R"({"dim":4,"layout":3})", "sinusoidal") == "TypeError: layout must be a string (got number 3)");
    CHECK(failure(R"({"from":[2],"to":[3,3],"dim":1})", "resizeGrid") == "TypeError: from must be [h, w] (got an array)");
    CHECK(failure(R"({"from":[2,0],"to":[3,3],"dim":1})", "resizeGrid") == "RangeError: from[1] must be a positive integer (got 0)");
}

TEST_CASE("registry check: choices become their index; the call's shape fills and binds rope and encodings") {
    Value v = checked(R"({"dim":4,"layout":"tensor2tensor"})", "sinusoidal", optionsOf("sinusoidal"));
    CHECK(v.find("layout")->number() == 2);
    // a scaling alias is its type: 'su' = 'longrope' (index 6)
    v = checked(R"({"headDim":8,"scaling":{"type":"su","originalMaxPositionEmbeddings":4,"shortFactor":[1,1],"longFactor":[1,1]}})", "ropeFrequencies",
                optionsOf("ropeFrequencies"));
    CHECK(v.find("scaling")->find("type")->number() == 6);
    // applyRope: the shape's headDim is the rope's, and a given one must agree
    v = checked("{}", "applyRope", optionsOf("applyRope"), {0, 8, "the shape's headDim"});
    CHECK(v.find("headDim")->number() == 8);
    CHECK(failure(R"({"headDim":4})", "applyRope", optionsOf("applyRope"), {0, 8, "the shape's headDim"}) ==
          "RangeError: headDim (4) must equal the shape's headDim (8)");
    // attention: an encoding's heads default to the call's; its rope's headDim is the call's
    v = checked(R"({"q":{},"k":{},"v":{},"heads":3,"headDim":4,"qLen":1,"kLen":1,"encoding":[{"kind":"alibi"},{"kind":"rope"}]})", "attention", kArgs);
    CHECK(v.find("encoding")->elements()[0].find("heads")->number() == 3);
    CHECK(v.find("encoding")->elements()[1].find("headDim")->number() == 4);
    CHECK(failure(R"({"q":{},"k":{},"v":{},"heads":1,"headDim":4,"qLen":1,"kLen":1,"encoding":{"kind":"rope","headDim":16}})", "attention", kArgs) ==
          "RangeError: encoding.headDim (16) must equal the attention's headDim (4)");
    CHECK(failure(R"({"kvHeads":1,"headDim":4,"capacity":2,"rope":{"headDim":8}})", "KVCache") ==
          "RangeError: rope.headDim (8) must equal the cache's headDim (4)");
}

TEST_CASE("registry check: scaling types take their own keys and require Hugging Face's") {
    CHECK(failure(R"({"headDim":8,"scaling":{"factor":2}})", "ropeFrequencies") ==
          "TypeError: scaling.type is required (one of 'none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'default', 'su', 'ntk_aware')");
    CHECK(failure(R"({"headDim":8,"scaling":{"type":"linear"}})", "ropeFrequencies") == "RangeError: scaling.factor is required by 'linear' scaling");
    CHECK(failure(R"({"headDim":8,"scaling":{"type":"llama3","factor":8,"originalMaxPositionEmbeddings":8192,"highFreqFactor":4}})", "ropeFrequencies") ==
          "RangeError: scaling.lowFreqFactor is required by 'llama3' scaling");
    CHECK(failure(R"({"headDim":8,"scaling":{"type":"linear","factor":2,"betaFast":3}})", "ropeFrequencies") ==
          "TypeError: scaling.betaFast does not apply to 'linear' scaling (it belongs to 'yarn' scaling)");
    CHECK(failure(R"({"headDim":8,"scaling":{"type":"bogus"}})", "ropeFrequencies") ==
          "RangeError: scaling.type must be one of 'none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope' (got 'bogus')");
    CHECK(failure(R"({"headDim":8,"scaling":{"type":"longrope","originalMaxPositionEmbeddings":4,"shortFactor":[1,{"$number":"Infinity"}],"longFactor":[1,1]}})",
                  "ropeFrequencies") == "RangeError: scaling.shortFactor[1] must be a finite number (got Infinity)");
}

TEST_CASE("registry check: encodings name their kind, combine without nesting, at most one rope") {
    const std::string base = R"("q":{},"k":{},"v":{},"heads":2,"headDim":4,"qLen":1,"kLen":1)";
    std::string kinds;  // every registered kind, in the registry's order (a new kind joins the list)
    for (const std::string& k : posenc::registry::encodingKinds()) kinds += (kinds.empty() ? "'" : ", '") + k + "'";
    CHECK(kinds.rfind("'none', 'rope', 'alibi', 't5', 'swin', 'shaw', 'xl', 'deberta', 'relativeKey', 'kerple', 'fire', 'cope', ", 0) == 0);
    CHECK(failure("{" + base + R"(,"encoding":{"type":"rope"}})", "attention", kArgs) == "TypeError: encoding.kind is required (one of " + kinds + ")");
    CHECK(failure("{" + base + R"(,"encoding":{"kind":"nope"}})", "attention", kArgs).rfind("RangeError: encoding.kind must be one of 'none', 'rope',", 0) == 0);
    CHECK(failure("{" + base + R"(,"encoding":[]})", "attention", kArgs) == "RangeError: encoding must not be an empty array (leave it out for no encoding)");
    CHECK(failure("{" + base + R"(,"encoding":[[{"kind":"none"}]]})", "attention", kArgs) ==
          "TypeError: encoding[0] must be an encoding object, not an array (combinations do not nest)");
    CHECK(failure("{" + base + R"(,"encoding":[{"kind":"rope"},{"kind":"rope"}]})", "attention", kArgs) ==
          "RangeError: encoding combines two 'rope' entries: at most one rotary encoding");
    CHECK(failure("{" + base + R"(,"encoding":[{"kind":"alibi"},{"kind":"t5","table":{},"bsae":1}]})", "attention", kArgs) ==
          "TypeError: unknown option 'bsae' in encoding[1]");
    CHECK(failure("{" + base + R"(,"encoding":{"kind":"deberta","span":2,"terms":["c2q"]}})", "attention", kArgs) ==
          "RangeError: encoding.terms must be an array of 'c2p' and/or 'p2c' (got an array)");
}
