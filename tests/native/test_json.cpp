// The config.json reader's JSON parser (src/common/json.hpp) against RFC 8259 and RFC 3629: values the
// grammar defines, worked by hand; text the grammar refuses (cases after JSONTestSuite's n_* files).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "common/json.hpp"

using posenc::json::parse;
using posenc::json::ParseError;
using posenc::json::Value;

namespace {
std::string errorOf(const std::string& text) {
    try {
        parse(text);
    } catch (const ParseError& e) {
        return e.what();
    }
    return "(parsed)";
}
}  // namespace

TEST_CASE("json: scalars, numbers as doubles with their source text") {
    CHECK(parse("null").isNull());
    CHECK(parse(" true ").boolean());
    CHECK_FALSE(parse("false").boolean());
    CHECK(parse("\"a\"").text() == "a");
    CHECK(parse("0").number() == 0);
    CHECK(std::signbit(parse("-0").number()));
    CHECK(parse("500000").number() == 500000);
    CHECK(parse("1E2").number() == 100);
    CHECK(parse("2.5e-3").number() == 0.0025);             // strtod: the double nearest 2.5e-3, as a C++ literal is
    CHECK(parse("0.1").number() == 0.1);
    CHECK(parse("9007199254740993").number() == 9007199254740992.0);  // 2^53 + 1 rounds to even
    CHECK(parse("1e-400").number() == 0);                  // underflow is zero, as JSON.parse gives
    CHECK(parse("1E2").text() == "1E2");
    CHECK(parse("[1.50, -2]").dump() == "[1.50,-2]");
}

TEST_CASE("json: strings, escapes and UTF-8") {
    CHECK(parse(R"("\"\\\/\b\f\n\r\t")").text() == "\"\\/\b\f\n\r\t");
    CHECK(parse(R"("\u0041\u00e9\u20AC")").text() == "A\xC3\xA9\xE2\x82\xAC");   // A, é (C3 A9), € (E2 82 AC)
    CHECK(parse(R"("\ud83d\ude00")").text() == "\xF0\x9F\x98\x80");              // U+1F600 from its surrogate pair
    CHECK(parse("\"\xC3\xA9\xF0\x9F\x98\x80\"").text() == "\xC3\xA9\xF0\x9F\x98\x80");  // raw UTF-8 kept
    CHECK(parse("\xEF\xBB\xBF{}").isObject());                                   // a byte order mark is skipped
    // dump escapes what JSON requires and nothing else
    CHECK(parse(R"(["a\"b\\c\n\u0001\u00e9"])").dump() == "[\"a\\\"b\\\\c\\n\\u0001\xC3\xA9\"]");
}

TEST_CASE("json: objects sorted by key, the last of duplicate keys kept; arrays in order") {
    const Value v = parse(R"({"b": 1, "a": [true, null, "x"], "c": {"z": 0}, "b": 2})");
    REQUIRE(v.isObject());
    CHECK(v.size() == 3);
    CHECK(v.members()[0].key == "a");
    CHECK(v.members()[1].key == "b");
    CHECK(v.members()[2].key == "c");
    CHECK(v.find("b")->number() == 2);
    CHECK(v.find("d") == nullptr);
    CHECK(parse("[]").find("a") == nullptr);
    const Value& a = *v.find("a");
    REQUIRE(a.size() == 3);
    CHECK(a[0].boolean());
    CHECK(a[1].isNull());
    CHECK(a[2].text() == "x");
    CHECK(v.dump() == R"({"a":[true,null,"x"],"b":2,"c":{"z":0}})");
    CHECK(parse("{}").empty());
    CHECK(parse(" [ ] ").isArray());
}

TEST_CASE("json: malformed text is a ParseError naming line and column") {
    CHECK(errorOf("{\"hidden_size\": 4096") == "expected ',' or '}' in an object at line 1, column 21");
    CHECK(errorOf("{\n  \"a\": tru\n}") == "invalid value: expected an object, array, string, number, true, false or null at line 2, column 8");
    for (const char* bad : {"", " ", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "{'a':1}", "01", "1.", ".5", "-", "+1",
                            "1e", "1e+", "0x10", "NaN", "Infinity", "[-Infinity]", "\"abc", "\"a\tb\"", "\"\\x\"", "\"\\u12\"",
                            "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "[1]]", "{} {}", "nul", "truex", "[", "{\"a\":"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(parse(bad), ParseError);
    }
    CHECK(errorOf("[8e1515]") == "number 8e1515 is beyond the range of a double at line 1, column 2");
    // invalid UTF-8: a lone continuation byte, an overlong '/', an encoded surrogate, past U+10FFFF, truncated
    for (const char* bad : {"\"\x80\"", "\"\xC0\xAF\"", "\"\xE0\x80\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xC3\""}) {
        CAPTURE(bad);
        CHECK(errorOf(bad).rfind("invalid UTF-8 in a string", 0) == 0);
    }
}

TEST_CASE("json: nesting is limited, not a stack overflow") {
    const int limit = posenc::json::kMaxDepth;
    CHECK(parse(std::string(limit, '[') + std::string(limit, ']')).isArray());
    CHECK(errorOf(std::string(limit + 1, '[') + std::string(limit + 1, ']')).rfind("nesting deeper than", 0) == 0);
    CHECK(errorOf(std::string(100000, '[')).rfind("nesting deeper than", 0) == 0);
}

TEST_CASE("json: integers read exactly without strtod, longer numbers through it") {
    CHECK(parse("123456789012345").number() == 123456789012345.0);  // 15 digits: the direct path
    CHECK(parse("-987654321098765").number() == -987654321098765.0);
    CHECK(std::signbit(parse("-0").number()));
    CHECK(parse("9007199254740993").number() == 9007199254740992.0);  // 16 digits: strtod rounds to even
    CHECK(parse("0.1").number() == 0.1);
    CHECK(parse("[5247000, 1]")[0].number() == 5247000.0);
}

TEST_CASE("json: objects of any size sorted by key, the last of duplicate keys kept") {
    for (const int n : {3, 32, 33, 100}) {  // up to 32 keys sorted in place, more by stable_sort
        CAPTURE(n);
        std::string text = "{";
        for (int i = n - 1; i >= 0; --i) text += "\"k" + std::to_string(1000 + i) + "\":" + std::to_string(i) + ",";
        text += "\"k1000\":-1}";  // a duplicate of the first key, given last
        const Value v = parse(text);
        REQUIRE(v.members().size() == static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) CHECK(v.members()[static_cast<std::size_t>(i)].key == "k" + std::to_string(1000 + i));
        CHECK(v.find("k1000")->number() == -1);
        CHECK(v.find("k" + std::to_string(1000 + n - 1))->number() == n - 1);
    }
}

TEST_CASE("json: Writer places commas, escapes strings, writes numbers that read back") {
    posenc::json::Writer w;
    w.open('{').key("a").number(1).key("b").open('[').number(2).string("x").boolean(true).null().open('[').close(']').close(']');
    w.key("c").open('{').close('}').key("d").numbers(std::vector<int>{-3, 0}).key("e").strings(std::vector<std::string>{"p", "q"}).close('}');
    CHECK(w.text() == R"({"a":1,"b":[2,"x",true,null,[]],"c":{},"d":[-3,0],"e":["p","q"]})");

    w.clear();
    w.open('[').string("q\"b\\s\n\t\r\b\f\x01\xC3\xA9").close(']');
    CHECK(w.text() == "[\"q\\\"b\\\\s\\n\\t\\r\\b\\f\\u0001\xC3\xA9\"]");
    CHECK(parse(w.text())[0].text() == "q\"b\\s\n\t\r\b\f\x01\xC3\xA9");

    // integers below 1e15 as digits; everything else as the shortest %.17g text, which reads back exactly
    const double values[] = {0, -7, 5247000, 999999999999999, 1e15, 9007199254740992.0, 0.1, 1.5, -2.5e-300, 1e300, 1.0 / 3, -0.0};
    w.clear();
    w.open('[');
    for (const double x : values) w.number(x);
    w.number(std::nan("")).number(INFINITY).close(']');
    CHECK(w.text().rfind("[0,-7,5247000,999999999999999,", 0) == 0);
    const Value back = parse(w.text());
    REQUIRE(back.size() == std::size(values) + 2);
    for (std::size_t i = 0; i < std::size(values); ++i) {
        CAPTURE(i);
        CHECK(back[i].number() == values[i]);
        CHECK(std::signbit(back[i].number()) == std::signbit(values[i]));
    }
    CHECK(back[std::size(values)].isNull());  // not finite: null
    CHECK(back[std::size(values) + 1].isNull());
}

TEST_CASE("json: a parsed value changed in place — a number set, members inserted in key order") {
    Value v = parse(R"({"b":1,"d":"x"})");
    v.find("d")->setNumber(2.5);
    CHECK(v.find("d")->number() == 2.5);
    CHECK(v.find("d")->text() == "2.5");  // its text as written back
    v.insert("c").setNumber(3);
    v.insert("a").setNumber(0);
    v.insert("e").becomeObject();
    CHECK(&v.insert("b") == v.find("b"));  // present: the same member, unchanged
    CHECK(v.find("b")->number() == 1);
    CHECK(v.dump() == R"({"a":0,"b":1,"c":3,"d":2.5,"e":{}})");
}
