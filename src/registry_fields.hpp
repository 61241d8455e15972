// The registry's field descriptions as constant data (src/registry.cpp's tables and each encoding
// kind's spec, src/encodings/): a name, a type or choices, required-ness, a default read from an option
// struct's member initialiser, a range. Internal: the public view is posenc/registry.hpp's Field.
#pragma once
#include "posenc/registry.hpp"

namespace posenc::registry {

constexpr int kNoMin = Field::kNoMin;
constexpr double kIntMax = 2147483647.0;

struct Raw {
    const char* name;
    const char* type = "";     // "" = a closed set of choices
    const char* choices = "";  // "a|b|c", in enum order
    bool required = false;
    Default::Kind kind = Default::Kind::none;
    // A number or flag default, or a choice default's enum value: read from the option struct's
    // member initialiser by a function, so that the arrays stay constant data.
    double (*value)() = nullptr;
    const char* text = "";     // a list-of-strings default, "a|b"
    const char* types = "";    // scaling only: "linear|ntk|..."
    const char* requiredBy = "";
    int min = 1;               // integers: the least valid value (kNoMin: any); positive unless said
    double max = kIntMax;      // integers: the largest valid value
};
#define POSENC_DEFAULT(expr) [] { return static_cast<double>(expr); }

constexpr Raw req(const char* name, const char* type, const char* /*doc*/ = "") { return {name, type, "", true}; }
constexpr Raw opt(const char* name, const char* type, const char* /*doc*/ = "") { return {name, type}; }
constexpr Raw num(const char* name, const char* type, const char* /*doc*/, double (*value)()) {
    return {name, type, "", false, Default::Kind::number, value};
}
constexpr Raw flag(const char* name, const char* /*doc*/, double (*value)()) { return {name, "boolean", "", false, Default::Kind::boolean, value}; }
constexpr Raw pick(const char* name, const char* choices, const char* /*doc*/, double (*value)()) {
    return {name, "", choices, false, Default::Kind::string, value};
}
constexpr Raw pickRequired(const char* name, const char* choices, const char* /*doc*/) { return {name, "", choices, true}; }
// An integer field whose values start at `min` (0: a non-negative integer; kNoMin: any integer);
// integer fields are positive unless they say so.
constexpr Raw atLeast(int min, Raw r) {
    r.min = min;
    return r;
}
constexpr Raw upTo(double max, Raw r) {
    r.max = max;
    return r;
}
constexpr Raw scaling(Raw r, const char* types, const char* requiredBy = "") {
    r.types = types;
    r.requiredBy = requiredBy;
    return r;
}

}  // namespace posenc::registry
