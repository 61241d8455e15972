// A small JSON reader (RFC 8259) for config.json: parse text into a tree of values, look values up,
// write a value back as compact JSON. Written for posenc (it replaced nlohmann-json, which was a quarter
// of the wasm module).
// - Objects keep one value per key (the last given, as JSON.parse does) and list members sorted by key.
// - Numbers are doubles (strtod: correctly rounded) and keep their source text, so that messages and
//   dump() show what the file says; a number beyond a double's range is an error.
// - Text must be UTF-8 (checked inside strings; a leading byte order mark is skipped); nesting deeper
//   than kMaxDepth levels is an error, so that no input can exhaust the stack.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace posenc::json {

constexpr int kMaxDepth = 512;

// Malformed text; what() says what was expected and where (line, column).
struct ParseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Value {
public:
    enum class Type { null, boolean, number, string, array, object };
    struct Member;

    Type type() const { return type_; }
    bool isNull() const { return type_ == Type::null; }
    bool isBoolean() const { return type_ == Type::boolean; }
    bool isNumber() const { return type_ == Type::number; }
    bool isString() const { return type_ == Type::string; }
    bool isArray() const { return type_ == Type::array; }
    bool isObject() const { return type_ == Type::object; }

    bool boolean() const { return boolean_; }
    double number() const { return number_; }
    // A string's value, or a number's source text.
    const std::string& text() const { return text_; }
    const std::vector<Value>& elements() const { return elements_; }
    const std::vector<Member>& members() const { return members_; }
    // Elements of an array, members of an object, 0 otherwise.
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    const Value& operator[](std::size_t i) const { return elements_[i]; }
    // The object's member `key` (null included), or nullptr when absent or this is not an object.
    const Value* find(std::string_view key) const;
    // Compact JSON text (numbers as written in the source).
    std::string dump() const;

    // Changing a parsed value (the binding's option checks write each choice as its index and fill in
    // values the call fixes). An object's members stay sorted by key.
    Value* find(std::string_view key) { return const_cast<Value*>(static_cast<const Value&>(*this).find(key)); }
    std::vector<Value>& elements() { return elements_; }
    std::vector<Member>& members() { return members_; }
    void setNumber(double x);             // becomes the number x (its text as Writer writes it)
    void becomeObject() { *this = Value(), type_ = Type::object; }  // an empty object
    Value& insert(std::string_view key);  // this object's member `key`, added as null when absent

private:
    friend class Parser;
    Type type_ = Type::null;
    bool boolean_ = false;
    double number_ = 0;
    std::string text_;
    std::vector<Value> elements_;
    std::vector<Member> members_;
};

struct Value::Member {
    std::string key;
    Value value;
};

// The one JSON value `text` holds (surrounding whitespace allowed); throws ParseError.
Value parse(std::string_view text);

// Compact JSON text written value by value; the writer places the commas. In an object, key() comes
// before each value: w.open('{').key("a").number(1).key("b").open('[').number(2).close(']').close('}').
class Writer {
public:
    Writer& key(std::string_view k);
    Writer& number(double x);  // shortest text that reads back as x ("%.17g"); not finite: null
    Writer& string(std::string_view s);
    Writer& boolean(bool b) { return raw(b ? "true" : "false"); }
    Writer& null() { return raw("null"); }
    Writer& raw(std::string_view json);  // a value already written as JSON
    Writer& open(char bracket);          // '{' or '['
    Writer& close(char bracket);         // '}' or ']'
    template <class List>
    Writer& numbers(const List& xs) {
        open('[');
        for (const auto& x : xs) number(static_cast<double>(x));
        return close(']');
    }
    template <class List>
    Writer& strings(const List& xs) {
        open('[');
        for (const auto& x : xs) string(x);
        return close(']');
    }
    const std::string& text() const { return out_; }
    void clear() { out_.clear(), first_ = true, afterKey_ = false; }

private:
    void separate();  // the comma before a value that is not the first of its array
    void quoted(std::string_view s);
    std::string out_;
    bool first_ = true, afterKey_ = false;
};

}  // namespace posenc::json
