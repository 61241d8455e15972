#include "common/json.hpp"

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace posenc::json {

std::size_t Value::size() const {
    return type_ == Type::array ? elements_.size() : type_ == Type::object ? members_.size() : 0;
}

const Value* Value::find(std::string_view key) const {
    auto it = std::lower_bound(members_.begin(), members_.end(), key, [](const Member& m, std::string_view k) { return m.key < k; });
    return it != members_.end() && it->key == key ? &it->value : nullptr;
}

void Value::setNumber(double x) {
    Writer w;
    w.number(x);
    *this = Value();
    type_ = Type::number, number_ = x, text_ = w.text();
}

Value& Value::insert(std::string_view key) {
    if (Value* v = find(key)) return *v;
    members_.push_back(Member{std::string(key), Value()});  // then moved down to its place in key order
    std::size_t i = members_.size() - 1;
    for (; i > 0 && members_[i - 1].key > key; --i) std::swap(members_[i], members_[i - 1]);
    return members_[i].value;
}

void Writer::separate() {
    if (!afterKey_ && !first_) out_ += ',';
    afterKey_ = false;
    first_ = false;
}

Writer& Writer::key(std::string_view k) {
    if (!first_) out_ += ',';
    first_ = false;
    quoted(k);
    out_ += ':';
    afterKey_ = true;
    return *this;
}

Writer& Writer::raw(std::string_view json) {
    separate();
    out_ += json;
    return *this;
}

Writer& Writer::open(char bracket) {
    separate();
    out_ += bracket;
    first_ = true;
    return *this;
}

Writer& Writer::close(char bracket) {
    out_ += bracket;
    first_ = false;
    return *this;
}

Writer& Writer::number(double x) {
    if (!std::isfinite(x)) return null();
    if (x == std::floor(x) && std::fabs(x) < 1e15 && !(x == 0 && std::signbit(x))) {  // an integer: no printf needed
        char digits[24];
        char* end = digits + sizeof digits;
        char* p = end;
        for (unsigned long long n = static_cast<unsigned long long>(std::fabs(x)); p == end || n; n /= 10) *--p = static_cast<char>('0' + n % 10);
        if (x < 0) *--p = '-';
        return raw(std::string_view(p, static_cast<std::size_t>(end - p)));
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", x);
    const char point = *std::localeconv()->decimal_point;  // a host's LC_NUMERIC may print ','
    if (point != '.') std::replace(text, text + std::strlen(text), point, '.');
    return raw(text);
}

Writer& Writer::string(std::string_view s) {
    separate();
    quoted(s);
    return *this;
}

void Writer::quoted(std::string_view s) {
    out_ += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out_ += "\\\""; break;
            case '\\': out_ += "\\\\"; break;
            case '\b': out_ += "\\b"; break;
            case '\f': out_ += "\\f"; break;
            case '\n': out_ += "\\n"; break;
            case '\r': out_ += "\\r"; break;
            case '\t': out_ += "\\t"; break;
            default:
                if (c < 0x20) {
                    out_ += "\\u00";
                    out_ += "0123456789abcdef"[c >> 4];
                    out_ += "0123456789abcdef"[c & 15];
                } else {
                    out_ += ch;
                }
        }
    }
    out_ += '"';
}

namespace {

void dumpTo(const Value& v, Writer& w) {
    switch (v.type()) {
        case Value::Type::null: w.null(); break;
        case Value::Type::boolean: w.boolean(v.boolean()); break;
        case Value::Type::number: w.raw(v.text()); break;  // as the source wrote it
        case Value::Type::string: w.string(v.text()); break;
        case Value::Type::array:
            w.open('[');
            for (const Value& e : v.elements()) dumpTo(e, w);
            w.close(']');
            break;
        case Value::Type::object:
            w.open('{');
            for (const Value::Member& m : v.members()) dumpTo(m.value, w.key(m.key));
            w.close('}');
            break;
    }
}

// strtod rounds correctly but reads the C library locale's decimal point: under a host program's
// LC_NUMERIC with ',' it would stop at the '.', so the point is swapped for the locale's first.
// Integers of up to 15 digits (sizes, positions, heap offsets: most numbers posenc reads) are exact
// in a double and read directly.
double toDouble(std::string text) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::size_t first = negative ? 1 : 0;
    if (text.size() - first <= 15 && text.find_first_not_of("0123456789", first) == std::string::npos) {
        double x = 0;
        for (std::size_t i = first; i < text.size(); ++i) x = x * 10 + (text[i] - '0');
        return negative ? -x : x;
    }
    const char point = *std::localeconv()->decimal_point;
    if (point != '.') std::replace(text.begin(), text.end(), '.', point);
    return std::strtod(text.c_str(), nullptr);
}

void appendUtf8(std::uint32_t cp, std::string& out) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace

// Recursive descent over the grammar of RFC 8259; pos_ is the next unread byte.
class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    Value document() {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
        Value v = value(0);
        skipSpace();
        if (pos_ != s_.size()) error("unexpected text after the JSON value");
        return v;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;

    [[noreturn]] void error(const std::string& what) const {
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
            if (s_[i] == '\n') ++line, column = 1;
            else ++column;
        }
        throw ParseError(what + " at line " + std::to_string(line) + ", column " + std::to_string(column));
    }
    bool atEnd() const { return pos_ >= s_.size(); }
    void skipSpace() {
        while (!atEnd() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
    }
    bool consume(char c) {
        if (atEnd() || s_[pos_] != c) return false;
        ++pos_;
        return true;
    }
    bool consumeWord(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }
    std::size_t digits() {
        const std::size_t start = pos_;
        while (!atEnd() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        return pos_ - start;
    }

    Value value(int depth) {
        skipSpace();
        if (atEnd()) error("unexpected end of text: expected a value");
        Value v;
        const char c = s_[pos_];
        if (c == '{' || c == '[') {
            if (depth == kMaxDepth) error("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
            ++pos_;
            if (c == '{') object(v, depth + 1);
            else array(v, depth + 1);
        } else if (c == '"') {
            v.type_ = Value::Type::string;
            v.text_ = string();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            number(v);
        } else if (consumeWord("true") || consumeWord("false")) {
            v.type_ = Value::Type::boolean;
            v.boolean_ = c == 't';
        } else if (!consumeWord("null")) {
            error("invalid value: expected an object, array, string, number, true, false or null");
        }
        return v;
    }

    void object(Value& v, int depth) {
        v.type_ = Value::Type::object;
        skipSpace();
        if (consume('}')) return;
        std::vector<Value::Member>& members = v.members_;
        members.reserve(8);
        do {
            skipSpace();
            if (atEnd() || s_[pos_] != '"') error("expected a string key in an object");
            std::string key = string();
            skipSpace();
            if (!consume(':')) error("expected ':' after an object key");
            members.push_back({std::move(key), value(depth)});
            skipSpace();
        } while (consume(','));
        if (!consume('}')) error("expected ',' or '}' in an object");
        // sorted by key, stably (equal keys stay in document order): insertion sort for objects of up to 32 keys
        // of a call, which allocates nothing; then of equal keys the last one given stays
        const auto byKey = [](const Value::Member& a, const Value::Member& b) { return a.key < b.key; };
        if (members.size() > 32) {
            std::stable_sort(members.begin(), members.end(), byKey);
        } else {
            for (std::size_t i = 1; i < members.size(); ++i) {
                if (!byKey(members[i], members[i - 1])) continue;
                Value::Member m = std::move(members[i]);
                std::size_t j = i;
                for (; j > 0 && byKey(m, members[j - 1]); --j) members[j] = std::move(members[j - 1]);
                members[j] = std::move(m);
            }
        }
        std::size_t kept = 0;
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (kept > 0 && members[kept - 1].key == members[i].key) members[kept - 1].value = std::move(members[i].value);
            else if (kept++ != i) members[kept - 1] = std::move(members[i]);
        }
        members.erase(members.begin() + static_cast<std::ptrdiff_t>(kept), members.end());
    }

    void array(Value& v, int depth) {
        v.type_ = Value::Type::array;
        skipSpace();
        if (consume(']')) return;
        do {
            v.elements_.push_back(value(depth));
            skipSpace();
        } while (consume(','));
        if (!consume(']')) error("expected ',' or ']' in an array");
    }

    void number(Value& v) {
        const std::size_t start = pos_;
        consume('-');
        if (!consume('0') && digits() == 0) error("invalid number: expected a digit");
        if (consume('.') && digits() == 0) error("invalid number: expected a digit after '.'");
        if (consume('e') || consume('E')) {
            if (!consume('+')) consume('-');
            if (digits() == 0) error("invalid number: expected a digit in the exponent");
        }
        v.type_ = Value::Type::number;
        v.text_ = std::string(s_.substr(start, pos_ - start));
        v.number_ = toDouble(v.text_);
        if (!std::isfinite(v.number_)) {
            pos_ = start;
            error("number " + v.text_ + " is beyond the range of a double");
        }
    }

    // A string, from its opening quote; returns its value as UTF-8.
    std::string string() {
        ++pos_;
        std::string out;
        for (;;) {
            if (atEnd()) error("unterminated string");
            const auto c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (c < 0x20) error("control character in a string: write it as an escape");
            if (c == '\\') {
                ++pos_;
                escape(out);
            } else if (c < 0x80) {
                out += static_cast<char>(c);
                ++pos_;
            } else {
                utf8Character(out);
            }
        }
    }

    void escape(std::string& out) {
        if (atEnd()) error("unterminated string");
        const char e = s_[pos_++];
        switch (e) {
            case '"': case '\\': case '/': out += e; return;
            case 'b': out += '\b'; return;
            case 'f': out += '\f'; return;
            case 'n': out += '\n'; return;
            case 'r': out += '\r'; return;
            case 't': out += '\t'; return;
            case 'u': break;
            default: --pos_; error("invalid escape in a string");
        }
        std::uint32_t cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) error("a lone UTF-16 low surrogate in a \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: the low half must follow
            if (!consumeWord("\\u")) error("a UTF-16 high surrogate not followed by a \\u low surrogate");
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) error("a UTF-16 high surrogate not followed by a \\u low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(cp, out);
    }

    std::uint32_t hex4() {
        std::uint32_t cp = 0;
        for (int i = 0; i < 4; ++i, ++pos_) {
            const char h = atEnd() ? '\0' : s_[pos_];
            const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (d < 0) error("\\u must be followed by 4 hex digits");
            cp = cp * 16 + static_cast<std::uint32_t>(d);
        }
        return cp;
    }

    // One multi-byte UTF-8 character, checked as RFC 3629 requires: continuation bytes where they
    // belong, no overlong form, no surrogate, nothing past U+10FFFF.
    void utf8Character(std::string& out) {
        const auto lead = static_cast<unsigned char>(s_[pos_]);
        std::size_t more = 0;
        std::uint32_t cp = 0, least = 0;
        if (lead >= 0xC2 && lead <= 0xDF) more = 1, cp = lead & 0x1F, least = 0x80;
        else if (lead >= 0xE0 && lead <= 0xEF) more = 2, cp = lead & 0x0F, least = 0x800;
        else if (lead >= 0xF0 && lead <= 0xF4) more = 3, cp = lead & 0x07, least = 0x10000;
        else error("invalid UTF-8 in a string");
        for (std::size_t i = 1; i <= more; ++i) {
            const auto b = pos_ + i < s_.size() ? static_cast<unsigned char>(s_[pos_ + i]) : 0;
            if ((b & 0xC0) != 0x80) error("invalid UTF-8 in a string");
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) error("invalid UTF-8 in a string");
        out.append(s_.data() + pos_, more + 1);
        pos_ += more + 1;
    }
};

Value parse(std::string_view text) {
    return Parser(text).document();
}

std::string Value::dump() const {
    Writer w;
    dumpTo(*this, w);
    return w.text();
}

}  // namespace posenc::json
