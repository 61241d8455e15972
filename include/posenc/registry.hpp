// The registry: every encoding kind and every options object of posenc's API — its fields with their
// type, default, choices and required-ness — in one table. It is the single source of these rules: the
// C++ entry points check against it (validateScaling below), and the JavaScript binding builds its
// strict-option tables, defaults and choice lists from it at load (bindings/options.mjs). Defaults are
// read from the C++ option structs themselves, so a struct's member initialiser is the one place a
// default is written.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "posenc/rotary/frequencies.hpp"

namespace posenc::registry {

// A field's default, when it has one: a number, a flag, a string (a choice) or a list of strings.
struct Default {
    enum class Kind { none, number, boolean, string, strings } kind = Kind::none;
    double number = 0;
    bool boolean = false;
    std::string string;
    std::vector<std::string> strings;
};

struct Field {
    std::string name;
    // Spelt as bindings/index.d.ts spells it ('integer' is a number that must be an integer); empty
    // for a closed set of choices, listed in `choices` in the order the C++ enum numbers them.
    std::string type;
    std::vector<std::string> choices;
    bool required = false;
    Default value;
    std::string doc;
    // RopeScaling only: the scaling types that take this field, and those that require it.
    std::vector<std::string> types, requiredBy;
    // Integers: the least and largest valid values (kNoMin: no least value).
    static constexpr int kNoMin = -(1 << 30);
    int min = kNoMin;
    double max = 2147483647.0;
};

struct Table {
    std::string name;       // 'sinusoidal', 'encoding.rope', 'scaling', 'parameterCount.t5', ...
    std::string interface;  // its interface in bindings/index.d.ts; empty = takes no keys
    std::vector<Field> keys;
    const Field* find(std::string_view key) const;
};

const std::vector<Table>& tables();
// The table of that name; throws std::invalid_argument for an unknown one.
const Table& table(std::string_view name);

// Encoding kinds in the order the JS API lists them ('none', 'rope', 'alibi', ...); each has a table
// 'encoding.<kind>' and a describe() row.
const std::vector<std::string>& encodingKinds();
// Scaling type names in RopeScalingType order, and the other names configs use for some of them.
const std::vector<std::string>& scalingTypes();
struct Alias {
    std::string name, type;
};
const std::vector<Alias>& scalingAliases();

// What the 'scaling' table says of a RopeScaling: a field a type requires must be given, a field it
// does not take must be left at its default. Throws std::invalid_argument with the JS API's messages
// ("scaling.factor is required by 'linear' scaling", "scaling.betaFast does not apply to 'linear'
// scaling (...)").
void validateScaling(const RopeScaling& s);
// Whether scaling type `type` ('yarn', ...) takes the scaling field `field` ('betaFast', ...), and
// whether it requires it.
bool scalingTakes(const std::string& type, std::string_view field);
bool scalingRequires(const std::string& type, std::string_view field);

// The whole registry as JSON text ({tables: {name: {interface, keys: {key: {type, required?, doc?,
// default?, types?, requiredBy?}}}}, encodingKinds, scalingTypes, scalingAliases}): what the binding
// hands to JavaScript, one string instead of an object built field by field.
std::string json();

}  // namespace posenc::registry
