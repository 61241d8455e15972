// Strict checks of an options object as a caller wrote it (JSON: the JavaScript API's requests,
// bindings/call.cpp) against its registry table: the one implementation of the API's option rules.
// An unknown key is an error naming the nearest known key or where it belongs, null is not "absent",
// a required key must be there, and every value has its table's type and range; the scaling types'
// own keys, an encoding's kind and combinations, and a rope headDim that must agree with the call's
// are checked here too. Messages are the JS API's (TypeError for wrong types, unknown keys and nulls:
// posenc::WrongType; RangeError for values: std::invalid_argument).
//
// What arrives: plain JSON values; tensors as {"@": [offset, length]} (placed by the caller, not
// looked into); values JSON cannot carry tagged by the caller: {"$number": "NaN"} for a non-finite
// number, {"$js": "<description>"} for anything else (a function, a typed array, undefined in a list).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace posenc::registry {

// How messages name an options object: `field` names the object itself ("options", "encoding[1]"),
// `where` is where an unknown key was found ("sinusoidal options"), `prefix` goes before its keys
// ("rope.").
struct Place {
    std::string field = "options", where, prefix;
};
// A top-level options object of `what` ("sinusoidal" -> "sinusoidal options").
inline Place optionsOf(const std::string& what) { return {"options", what + " options", ""}; }

// What the call fixes for the objects nested in it: an encoding's heads default to `heads`; a rope
// headDim, when given, must equal `headDim` (named by `headDimOf`: "the shape's headDim"), else it is
// set to it. 0 = not fixed.
struct CallShape {
    int heads = 0, headDim = 0;
    std::string headDimOf;
};

// Checks `options` against table `table` and rewrites each choice as its index (what registry::read
// takes; scaling type aliases as their type), and fills in what the call fixes.
void check(json::Value& options, const std::string& table, const Place& at, CallShape call = {});

// The index of `value` in `choices`, or std::invalid_argument "<field> must be one of 'a', 'b' (got 'x')".
std::size_t choose(const std::string& value, const std::string& field, const std::vector<std::string>& choices);

// The scaling types' own keys (Hugging Face's rope validation), for scaling type `type`: a field
// given (`given(name)`) must be one the type takes (else WrongType), a field the type requires must
// be given (else std::invalid_argument). `prefix` names the fields ("scaling.", "encoding.scaling.").
// The one implementation behind validateScaling (posenc's structs) and check() (JSON options).
void checkScalingKeys(const std::string& type, const std::function<bool(const std::string&)>& given, const std::string& prefix);

// An `encoding` value: one encoding object, or an array of them applied together.
void checkEncoding(json::Value& encoding, const std::string& field, const CallShape& call);

}  // namespace posenc::registry
