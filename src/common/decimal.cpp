#include "common/decimal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace posenc::detail {

namespace {

// A non-negative integer of any size: base-2^32 limbs, least significant first, no leading zero limb
// (zero is empty). Only what the two conversions need.
using Big = std::vector<std::uint32_t>;

void trim(Big& a) {
    while (!a.empty() && a.back() == 0) a.pop_back();
}

void mulAdd(Big& a, std::uint32_t m, std::uint32_t add) {  // a = a * m + add
    std::uint64_t carry = add;
    for (std::uint32_t& limb : a) {
        carry += static_cast<std::uint64_t>(limb) * m;
        limb = static_cast<std::uint32_t>(carry);
        carry >>= 32;
    }
    if (carry) a.push_back(static_cast<std::uint32_t>(carry));
}

void mulPow(Big& a, std::uint32_t base, long n) {  // a *= base^n, base 5 or 10
    const int chunk = base == 5 ? 13 : 9;  // 5^13 and 10^9 fit in 32 bits
    std::uint32_t full = 1;
    for (int i = 0; i < chunk; ++i) full *= base;
    for (; n >= chunk; n -= chunk) mulAdd(a, full, 0);
    std::uint32_t rest = 1;
    for (; n > 0; --n) rest *= base;
    mulAdd(a, rest, 0);
}

void shiftLeft(Big& a, long bits) {
    if (a.empty()) return;
    a.insert(a.begin(), static_cast<std::size_t>(bits / 32), 0);
    const int b = static_cast<int>(bits % 32);
    if (b == 0) return;
    std::uint32_t carry = 0;
    for (std::uint32_t& limb : a) {
        const std::uint32_t next = limb >> (32 - b);
        limb = (limb << b) | carry;
        carry = next;
    }
    if (carry) a.push_back(carry);
}

void shiftRight1(Big& a) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = (a[i] >> 1) | (i + 1 < a.size() ? a[i + 1] << 31 : 0);
    trim(a);
}

int compare(const Big& a, const Big& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (std::size_t i = a.size(); i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

void subtract(Big& a, const Big& b) {  // a -= b, a >= b
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::int64_t d = static_cast<std::int64_t>(a[i]) - (i < b.size() ? b[i] : 0) - borrow;
        a[i] = static_cast<std::uint32_t>(d);
        borrow = d < 0;
    }
    trim(a);
}

long bitLength(const Big& a) {
    if (a.empty()) return 0;
    long n = 32 * static_cast<long>(a.size() - 1);
    for (std::uint32_t top = a.back(); top; top >>= 1) ++n;
    return n;
}

// |x| = 0.digits x 10^point exactly, for a finite nonzero x; digits has no leading or trailing zero.
// x = m 2^e: m 2^e itself when e >= 0, else m 5^-e x 10^e.
struct Exact {
    std::string digits;
    long point = 0;
};

Exact exact(double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7FF);
    std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
    int e = -1074;
    if (biased) m |= std::uint64_t(1) << 52, e = biased - 1075;
    Big b{static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
    trim(b);
    long point = 0;
    if (e >= 0) shiftLeft(b, e);
    else mulPow(b, 5, -e), point = e;
    Exact out;
    while (!b.empty()) {  // nine decimal digits at a time, least significant first
        std::uint64_t rem = 0;
        for (std::size_t i = b.size(); i-- > 0;) {
            const std::uint64_t cur = (rem << 32) | b[i];
            b[i] = static_cast<std::uint32_t>(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        trim(b);
        for (int k = 0; k < 9; ++k, rem /= 10) out.digits += static_cast<char>('0' + rem % 10);
    }
    while (out.digits.back() == '0') out.digits.pop_back();  // the leading zeros of the last group
    std::reverse(out.digits.begin(), out.digits.end());
    out.point = static_cast<long>(out.digits.size()) + point;
    const std::size_t last = out.digits.find_last_not_of('0');
    out.digits.resize(last + 1);
    return out;
}

// Keeps the first `keep` digits (0 or fewer: none), rounding the exact rest half to even.
void roundTo(Exact& x, long keep) {
    const long n = static_cast<long>(x.digits.size());
    if (keep >= n) return;
    bool up = false;
    if (keep >= 0) {
        const char next = x.digits[static_cast<std::size_t>(keep)];
        const bool odd = keep > 0 && (x.digits[static_cast<std::size_t>(keep - 1)] - '0') % 2 == 1;
        up = next > '5' || (next == '5' && (n > keep + 1 || odd));  // no trailing zeros: more digits are > 0
    }
    x.digits.resize(static_cast<std::size_t>(std::max(keep, 0L)));
    if (up) {
        long i = keep - 1;
        for (; i >= 0 && x.digits[static_cast<std::size_t>(i)] == '9'; --i) x.digits[static_cast<std::size_t>(i)] = '0';
        if (i < 0) x.digits.insert(x.digits.begin(), '1'), ++x.point;
        else ++x.digits[static_cast<std::size_t>(i)];
    }
    const std::size_t last = x.digits.find_last_not_of('0');
    x.digits.resize(last == std::string::npos ? 0 : last + 1);
}

// printf's spelling of infinity and NaN, with the sign
bool nonFinite(double x, std::string& out) {
    if (std::isfinite(x)) return false;
    out += std::isnan(x) ? "nan" : "inf";
    return true;
}

}  // namespace

std::string formatG17(double x) {
    std::string out = std::signbit(x) ? "-" : "";
    if (nonFinite(x, out)) return out;
    if (x == 0) return out + "0";
    Exact e = exact(x);
    roundTo(e, 17);
    const long X = e.point - 1;  // the decimal exponent of the first digit
    const std::string& d = e.digits;
    const auto n = static_cast<long>(d.size());
    if (X < -4 || X >= 17) {
        out += d[0];
        if (n > 1) out.append(".").append(d, 1, std::string::npos);
        out += X < 0 ? "e-" : "e+";
        if (std::labs(X) < 10) out += '0';
        out += std::to_string(std::labs(X));
    } else if (e.point <= 0) {
        out.append("0.").append(static_cast<std::size_t>(-e.point), '0').append(d);
    } else if (n <= e.point) {
        out.append(d).append(static_cast<std::size_t>(e.point - n), '0');
    } else {
        out.append(d, 0, static_cast<std::size_t>(e.point)).append(".").append(d, static_cast<std::size_t>(e.point), std::string::npos);
    }
    return out;
}

std::string formatFixed6(double x) {
    std::string out = std::signbit(x) ? "-" : "";
    if (nonFinite(x, out)) return out;
    Exact e;
    if (x != 0) {
        e = exact(x);
        roundTo(e, e.point + 6);
    }
    const auto digit = [&](long i) { return i >= 0 && i < static_cast<long>(e.digits.size()) ? e.digits[static_cast<std::size_t>(i)] : '0'; };
    if (e.point <= 0) out += '0';
    for (long i = 0; i < e.point; ++i) out += digit(i);
    out += '.';
    for (long i = e.point; i < e.point + 6; ++i) out += digit(i);
    return out;
}

double parseDouble(std::string_view text) {
    std::size_t i = 0;
    const bool negative = i < text.size() && text[i] == '-';
    if (negative) ++i;
    // the significant digits D and the exponent: value = D x 10^exp10
    std::string digits;
    long exp10 = 0;
    bool fraction = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.') {
            fraction = true;
        } else if (c >= '0' && c <= '9') {
            if (fraction) --exp10;
            if (!digits.empty() || c != '0') digits += c;
        } else {
            break;
        }
    }
    if (i < text.size()) {  // e or E
        ++i;
        const bool minus = i < text.size() && text[i] == '-';
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
        long e = 0;
        for (; i < text.size(); ++i)
            if (e < 100000000) e = e * 10 + (text[i] - '0');  // far past any double; no overflow
        exp10 += minus ? -e : e;
    }
    const std::size_t last = digits.find_last_not_of('0');
    exp10 += static_cast<long>(digits.size()) - static_cast<long>(last == std::string::npos ? 0 : last + 1);
    digits.resize(last == std::string::npos ? 0 : last + 1);
    const double zero = negative ? -0.0 : 0.0, inf = negative ? -HUGE_VAL : HUGE_VAL;
    if (digits.empty()) return zero;
    // 800 digits decide the rounding (a midpoint between doubles has at most 767 significant digits):
    // the rest, not zero, becomes one nonzero digit after them
    if (digits.size() > 800) {
        exp10 += static_cast<long>(digits.size()) - 801;
        digits.resize(801);
        digits.back() = '1';
    }
    const long n = static_cast<long>(digits.size());
    if (n + exp10 - 1 > 309) return inf;   // >= 1e310
    if (n + exp10 < -324) return zero;     // < 1e-325, under half the smallest subnormal
    // value = num / den exactly
    Big num, den{1};
    for (std::size_t k = 0; k < digits.size(); k += 9) {
        const std::size_t len = std::min<std::size_t>(9, digits.size() - k);
        std::uint32_t chunk = 0, scale = 1;
        for (std::size_t j = 0; j < len; ++j) chunk = chunk * 10 + static_cast<std::uint32_t>(digits[k + j] - '0'), scale *= 10;
        mulAdd(num, scale, chunk);
    }
    mulPow(exp10 >= 0 ? num : den, 10, std::labs(exp10));
    // q = floor(value 2^s) with s chosen so that 2^53 <= q < 2^55, by long division; the remainder is sticky
    const long s = 54 - (bitLength(num) - bitLength(den));
    shiftLeft(s >= 0 ? num : den, std::labs(s));
    Big t = den;
    shiftLeft(t, 54);
    std::uint64_t q = 0;
    for (int bit = 54; bit >= 0; --bit, shiftRight1(t)) {
        if (compare(num, t) >= 0) subtract(num, t), q |= std::uint64_t(1) << bit;
    }
    int length = 0;
    for (std::uint64_t v = q; v; v >>= 1) ++length;
    const long E = length - 1 - s;              // value in [2^E, 2^(E+1))
    const long ulp = std::max(E - 52, -1074L);  // the last bit a double keeps here (subnormals: fewer bits)
    const long r = ulp + s;                     // low bits of q dropped, >= 1
    if (r >= 64) return zero;                   // under half the smallest subnormal
    std::uint64_t m = q >> r;
    const bool half = (q >> (r - 1)) & 1;
    const bool rest = (q & ((std::uint64_t(1) << (r - 1)) - 1)) != 0 || !num.empty();
    if (half && (rest || (m & 1))) ++m;
    const double v = std::ldexp(static_cast<double>(m), static_cast<int>(ulp));  // exact, or infinity past the range
    return negative ? -v : v;
}

}  // namespace posenc::detail
