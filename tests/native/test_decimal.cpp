// Decimal text <-> double without printf / strtod (src/common/decimal.hpp): against values worked by
// definition (exact powers of two and five written out digit by digit, C++ literals, which the compiler
// rounds correctly), and against the C library's own "%.17g", "%f" and strtod (glibc natively, musl in
// the wasm build of this suite), which round correctly too, over many doubles of every magnitude.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "common/decimal.hpp"
#include "posenc/common/errors.hpp"

using posenc::detail::formatFixed6;
using posenc::detail::formatG17;
using posenc::detail::parseDouble;

namespace {

// Decimal digit strings multiplied by a small factor, digit by digit (schoolbook), for exact powers.
std::string times(std::string digits, int factor) {
    int carry = 0;
    for (std::size_t i = digits.size(); i-- > 0;) {
        const int d = (digits[i] - '0') * factor + carry;
        digits[i] = static_cast<char>('0' + d % 10);
        carry = d / 10;
    }
    while (carry) digits.insert(digits.begin(), static_cast<char>('0' + carry % 10)), carry /= 10;
    return digits;
}
std::string power(int base, int n, std::string start = "1") {
    for (int i = 0; i < n; ++i) start = times(start, base);
    return start;
}

std::string cFormat(const char* format, double x) {
    char text[512];
    std::snprintf(text, sizeof text, format, x);
    return text;
}

double fromBits(std::uint64_t bits) {
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("parseDouble: values worked by definition") {
    CHECK(parseDouble("0") == 0);
    CHECK(std::signbit(parseDouble("-0.0e5")));
    CHECK(parseDouble("0.1") == 0.1);
    CHECK(parseDouble("1e23") == 1e23);  // between two doubles, nearer the lower (a naive 1 * 10^23 is one above)
    CHECK(parseDouble("1e23") == 0x1.52d02c7e14af6p+76);
    CHECK(parseDouble("8.9884656743115795e307") == 8.9884656743115795e307);
    CHECK(parseDouble("123.456e-2") == 1.23456);
    CHECK(parseDouble("-0.000001e+6") == -1);
    // 2^53 + 1 and 2^53 + 3: halfway, ties to even
    CHECK(parseDouble("9007199254740993") == 9007199254740992.0);
    CHECK(parseDouble("9007199254740995") == 9007199254740996.0);
    CHECK(parseDouble("9007199254740993.0000000000000001") == 9007199254740994.0);
    // beyond 800 digits the rest still decides a tie
    const std::string zeros(1000, '0');
    CHECK(parseDouble("9007199254740993." + zeros) == 9007199254740992.0);
    CHECK(parseDouble("9007199254740993." + zeros + "1") == 9007199254740994.0);
    CHECK(parseDouble("9007199254740993" + zeros + "e-1000") == 9007199254740992.0);
    CHECK(parseDouble("0." + zeros + "9007199254740993e1016") == 9007199254740992.0);
    // subnormals and the bottom of the range: 2^-1075 = 5^1075 x 10^-1075 is half the smallest subnormal
    const double tiny = std::numeric_limits<double>::denorm_min();
    const std::string half = "0." + std::string(1075 - power(5, 1075).size(), '0') + power(5, 1075);
    CHECK(parseDouble(half) == 0);  // a tie: to the even neighbour, 0
    CHECK(parseDouble(half + "1") == tiny);
    CHECK(parseDouble("4.9406564584124654e-324") == tiny);
    CHECK(parseDouble("2.4703282292062327e-324") == 0);
    CHECK(parseDouble("2.4703282292062328e-324") == tiny);
    CHECK(parseDouble("1e-320") == 1e-320);
    CHECK(parseDouble("2.2250738585072011e-308") == 2.2250738585072011e-308);
    CHECK(parseDouble("2.2250738585072014e-308") == DBL_MIN);
    CHECK(parseDouble("2.2250738585072009e-308") == DBL_MIN - tiny);
    CHECK(parseDouble("1e-400") == 0);
    CHECK(std::signbit(parseDouble("-1e-999999999999")));
    CHECK(parseDouble("0e999999999999") == 0);
    // the top: (2^1024 + DBL_MAX) / 2 = 2^970 (2^54 - 1) is the tie between DBL_MAX (odd) and 2^1024
    const std::string top = power(2, 970, "18014398509481983");
    CHECK(parseDouble("1.7976931348623157e308") == DBL_MAX);
    CHECK(parseDouble("1.7976931348623158e308") == DBL_MAX);
    CHECK(parseDouble(top.substr(0, top.size() - 1) + "1") == DBL_MAX);  // just under the tie
    CHECK(std::isinf(parseDouble(top)));
    CHECK(parseDouble("-" + top) == -HUGE_VAL);
    CHECK(std::isinf(parseDouble("1e309")));
    CHECK(std::isinf(parseDouble("1e999999999999")));
}

TEST_CASE("formatG17 and formatFixed6: values worked by hand") {
    CHECK(formatG17(0.1) == "0.10000000000000001");
    CHECK(formatG17(-0.0) == "-0");
    CHECK(formatG17(1.5) == "1.5");
    CHECK(formatG17(1e15) == "1000000000000000");
    CHECK(formatG17(1e17) == "1e+17");
    CHECK(formatG17(1e23) == "9.9999999999999992e+22");
    CHECK(formatG17(0.0001) == "0.0001");
    CHECK(formatG17(0.00001) == "1.0000000000000001e-05");
    CHECK(formatG17(-2.5e-300) == "-2.5e-300");
    CHECK(formatG17(std::numeric_limits<double>::denorm_min()) == "4.9406564584124654e-324");
    CHECK(formatG17(DBL_MAX) == "1.7976931348623157e+308");
    CHECK(formatFixed6(0) == "0.000000");
    CHECK(formatFixed6(-0.0) == "-0.000000");
    CHECK(formatFixed6(0.25) == "0.250000");
    CHECK(formatFixed6(-1e-9) == "-0.000000");
    CHECK(formatFixed6(0.0000005) == "0.000000");  // 5e-7 is a little under its decimal: rounds down
    CHECK(formatFixed6(0.0000015) == "0.000002");  // a little over
    CHECK(formatFixed6(0.5) == "0.500000");
    CHECK(formatFixed6(2.5) == "2.500000");
    CHECK(formatFixed6(0x1p-21) == "0.000000");    // 4.76837158203125e-7, under half of 1e-6
    CHECK(formatFixed6(9999999.9999996) == "10000000.000000");
    CHECK(formatFixed6(1e22) == "10000000000000000000000.000000");
    CHECK(formatFixed6(0x1p70) == power(2, 70) + ".000000");
    CHECK(formatFixed6(DBL_MAX) == power(2, 971, "9007199254740991") + ".000000");  // (2^53 - 1) 2^971
    for (const double x : {HUGE_VAL, -HUGE_VAL, std::nan(""), -std::nan("")}) {
        CHECK(formatG17(x) == cFormat("%.17g", x));
        CHECK(formatFixed6(x) == std::to_string(x));
    }
    CHECK(formatFixed6(-HUGE_VAL) == "-inf");
    CHECK(posenc::show(0.25) == "0.25");
    CHECK(posenc::show(-0.0) == "-0");
    CHECK(posenc::show(3) == "3");
    CHECK(posenc::show(1e-7) == "0");
    CHECK(posenc::show(123456.7890125) == "123456.789012");  // the double is under ...0125
}

TEST_CASE("decimal conversions agree with the C library's %.17g, %f and strtod") {
    std::mt19937_64 rng(20261203);
    int checked = 0;
    for (int i = 0; i < 30000; ++i) {
        // every exponent alike: random bit patterns (NaN and infinity skipped), and small integers and simple fractions
        double x = fromBits(rng());
        if (i % 3 == 1) x = static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000) / static_cast<double>(1 + rng() % 64);
        if (!std::isfinite(x)) continue;
        ++checked;
        CAPTURE(cFormat("%a", x));
        const std::string g17 = cFormat("%.17g", x);
        REQUIRE(formatG17(x) == g17);
        REQUIRE(same(parseDouble(g17), x));
        const std::string g = cFormat(i % 2 ? "%.15g" : "%.16g", x);  // fewer digits: a rounding for the reader to do
        REQUIRE(same(parseDouble(g), std::strtod(g.c_str(), nullptr)));
        if (std::fabs(x) < 1e30 || i % 50 == 0) REQUIRE(formatFixed6(x) == std::to_string(x));
    }
    CHECK(checked > 25000);
    // decimal text of random digits and exponents, across the range and past both ends
    for (int i = 0; i < 20000; ++i) {
        std::string text = rng() % 2 ? "-" : "";
        const int digits = 1 + static_cast<int>(rng() % 30);
        for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + rng() % 10);
        if (rng() % 2) text.insert(text.size() - rng() % digits, ".");
        if (text.back() == '.') text += '0';
        text += "e" + std::to_string(static_cast<int>(rng() % 700) - 350);
        CAPTURE(text);
        REQUIRE(same(parseDouble(text), std::strtod(text.c_str(), nullptr)));
    }
}
