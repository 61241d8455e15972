// Errors the library throws. Every message names the offending field the way the JS API spells it,
// so a binding can forward it unchanged.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

#include "posenc/common/limits.hpp"

namespace posenc {

// Bad values are std::invalid_argument (RangeError in JS); wrong JS types are caught by the JS layer
// before they reach C++ (TypeError).
[[noreturn]] inline void fail(const std::string& field, const std::string& what) {
    throw std::invalid_argument(field + " " + what);
}

// A value of the wrong type where C++ parses it itself (config.json): still std::invalid_argument for
// C++ callers; the binding maps it to TypeError.
struct WrongType : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};
[[noreturn]] inline void failType(const std::string& field, const std::string& what) {
    throw WrongType(field + " " + what);
}

// A number in a message: NaN and infinities as JavaScript spells them (so C++ and JS messages read the
// same), else std::to_string's six decimals without trailing zeros ("0.25", "3", "-0").
std::string show(double v);

inline void requirePositive(std::int64_t v, const char* field) {
    if (v <= 0) fail(field, "must be a positive integer (got " + std::to_string(v) + ")");
}
// A size in [1, max]: posenc's limits (posenc/common/limits.hpp) say so in the message.
inline void requireSize(std::int64_t v, const char* field, std::int64_t max) {
    requirePositive(v, field);
    if (v > max) fail(field, "must be at most " + std::to_string(max) + ", posenc's limit (got " + std::to_string(v) + ")");
}
inline void requireNonNegative(std::int64_t v, const char* field) {
    if (v < 0) fail(field, "must be a non-negative integer (got " + std::to_string(v) + ")");
}
inline void requireFinite(double v, const char* field) {
    if (!std::isfinite(v)) fail(field, "must be a finite number (got " + show(v) + ")");
}
inline void requirePositiveFinite(double v, const char* field) {
    if (!std::isfinite(v) || v <= 0) fail(field, "must be a positive finite number (got " + show(v) + ")");
}
// Positions are logical token indices: integers in [0, 2^31).
inline void requirePositions(const std::int32_t* p, std::size_t n, const char* field) {
    for (std::size_t i = 0; i < n; ++i)
        if (p[i] < 0)
            fail(std::string(field) + "[" + std::to_string(i) + "]",
                 "must be a position >= 0 (got " + std::to_string(p[i]) + ")");
}

// The element count a x b x ... of a shape, checked: in wasm size_t is 32 bits, and a product that
// wrapped could match a small buffer and pass a size check. Past what memory can address it is an error
// naming the field.
inline std::size_t elementCount(std::initializer_list<std::int64_t> factors, const std::string& field) {
    constexpr std::uint64_t limit = std::numeric_limits<std::size_t>::max() / sizeof(double);
    std::uint64_t n = 1;
    for (std::int64_t f : factors) {
        if (f < 0) fail(field, "has a negative dimension (" + std::to_string(f) + ")");
        if (f != 0 && n > limit / static_cast<std::uint64_t>(f)) fail(field, "is too large: its shape has more elements than memory can address");
        n *= static_cast<std::uint64_t>(f);
    }
    return static_cast<std::size_t>(n);
}

// Tensors fed to attention hold finite values: a NaN or infinity there would reach every weight of
// its row (and, as a key or value, of every row that sees it), so it is refused up front, by index.
void requireFiniteValues(const float* x, std::size_t n, const char* field);

}  // namespace posenc
