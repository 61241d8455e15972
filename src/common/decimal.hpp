// Decimal text <-> double, exact, without the C library's printf and strtod: those bring musl's
// 128-bit long double arithmetic into the wasm module (docs/package-size.md). Each result is the one
// the C functions give (correctly rounded, ties to even) and none reads the C locale.
#pragma once

#include <string>
#include <string_view>

namespace posenc::detail {

// printf("%.17g", x): 17 significant digits, trailing zeros dropped; reads back as x. Not finite:
// "inf", "nan", with a '-' when the sign bit is set (as musl and glibc print them).
std::string formatG17(double x);
// printf("%f", x) (std::to_string(double)): six decimals, the integer part in full; not finite as above.
std::string formatFixed6(double x);
// The double nearest the decimal number `text` (JSON's grammar: -?digits[.digits][(e|E)[+-]digits]),
// ties to even: what strtod gives. Past a double's range +-infinity, below its smallest subnormal +-0.
double parseDouble(std::string_view text);

}  // namespace posenc::detail
