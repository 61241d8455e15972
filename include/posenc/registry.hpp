// The registry: every encoding kind and every options object of posenc's API — its fields with their
// type, default, choices and required-ness — in one table. It is the single source of these rules: the
// C++ entry points check against it (validateScaling below), options objects written as JSON are checked
// against it with the JS API's messages (src/registry_check.hpp: the binding's requests), and the
// JavaScript binding reads each key's type from it at load to place tensors (bindings/options.mjs). Defaults are
// read from the C++ option structs themselves, so a struct's member initialiser is the one place a
// default is written.
#pragma once
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memory>

#include "posenc/attention/attention.hpp"
#include "posenc/common/view.hpp"
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
    // Spelt as bindings/options.d.ts spells it but for the names scripts/gen-types.mjs maps ('integer': a
    // number that must be an integer; 'KVInput': floats or f16 / bf16 bits); empty for a closed set of
    // choices, listed in `choices` in the order the C++ enum numbers them.
    std::string type;
    std::vector<std::string> choices;
    bool required = false;
    Default value;
    // RopeScaling only: the scaling types that take this field, and those that require it.
    std::vector<std::string> types, requiredBy;
    // Integers: the least and largest valid values (kNoMin: no least value).
    static constexpr int kNoMin = -(1 << 30);
    int min = kNoMin;
    double max = 2147483647.0;
    std::string doc;  // an encoding kind's fields: one line for the docs (empty elsewhere)
};

struct Table {
    std::string name;       // 'sinusoidal', 'encoding.rope', 'scaling', 'parameterCount.t5', ...
    std::string interface;  // its interface in bindings/options.d.ts (generated); empty = takes no keys
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

// The whole registry as JSON text ({tables: {name: {interface, keys: {key: {type, required?, default?,
// min?, max?, types?, requiredBy?, doc?}}}}, encodingKinds, scalingTypes, scalingAliases, describe: [the
// describe() rows], methods: {kind: {paper, code, example, scalarBias?, perQueryState?}}}): what the
// binding hands to JavaScript, one string instead of an object built field by field.
std::string json();

// Where option values come from when an options object is read into posenc's structs (the JS
// binding's requests, bindings/call.cpp; any other reader). Keys are the registry's; a key that is
// not there leaves the member's initialiser, so the structs hold every default. Values arrive
// checked (the binding runs src/registry_check.hpp's check first): choices as their index (the enum
// value), flags as 0 / 1.
class Source {
public:
    virtual ~Source() = default;
    virtual bool has(const char* key) const = 0;
    virtual double number(const char* key) const = 0;
    virtual std::string text(const char* key) const = 0;
    virtual std::vector<double> numbers(const char* key) const = 0;
    virtual std::vector<std::string> texts(const char* key) const = 0;
    virtual View<float> floats(const char* key) const = 0;  // a tensor the source keeps alive
    virtual std::unique_ptr<Source> object(const char* key) const = 0;
};

// Sets `member` from key `key` of `s` when given (a flag from 0 / 1, an enum from its index, a list of
// numbers as one); leaves the member's initialiser otherwise.
template <class T>
void read(const Source& s, const char* key, T& member) {
    if (!s.has(key)) return;
    if constexpr (std::is_same_v<T, bool>) member = s.number(key) != 0;
    else if constexpr (std::is_same_v<T, std::vector<double>>) member = s.numbers(key);
    else if constexpr (std::is_same_v<T, std::vector<int>>) {
        const std::vector<double> n = s.numbers(key);
        member.assign(n.begin(), n.end());
    } else if constexpr (std::is_enum_v<T>) member = static_cast<T>(static_cast<int>(s.number(key)));
    else member = static_cast<T>(s.number(key));
}

// A rope encoding from the keys of 'encoding.rope' (scaling read from the nested 'scaling' object).
RopeEncoding ropeFrom(const Source& s);
// An encoding from the keys of 'encoding.<kind>', the kind named by `kind`.
Encoding encodingFrom(const Source& s);

// The learned parameters of `method` (a table 'parameterCount.<method>') for the shapes `s` gives;
// absent keys take the table's defaults. Each size is checked against the table (a positive integer
// unless it says otherwise). Computed in double: the binding refuses counts past 2^53.
double parameterCount(const std::string& method, const Source& s);

}  // namespace posenc::registry
