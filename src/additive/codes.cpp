#include "posenc/additive/codes.hpp"

#include <algorithm>

#include "posenc/common/errors.hpp"

namespace posenc {

void validate(const CodeOptions& o) {
    requirePositive(o.bits, "bits");
    if (o.radix < 2) fail("radix", "must be an integer >= 2 (got " + std::to_string(o.radix) + ")");
    if (o.bits > 62) fail("bits", "must be at most 62 (got " + std::to_string(o.bits) + ")");
}

namespace {
// r^bits, saturated
std::int64_t capacityOf(const CodeOptions& o) {
    std::int64_t c = 1;
    for (int k = 0; k < o.bits; ++k) {
        if (c > (std::int64_t{1} << 40) / o.radix) return std::int64_t{1} << 40;
        c *= o.radix;
    }
    return c;
}
}  // namespace

void codeDigits(std::int64_t p, const CodeOptions& o, int* digits) {
    std::int64_t x = p;
    for (int k = 0; k < o.bits; ++k) {
        digits[k] = static_cast<int>(x % o.radix);
        x /= o.radix;
    }
    if (o.code == CodeKind::gray)  // digit k minus the next more significant digit, mod r
        for (int k = 0; k < o.bits; ++k) {
            const int next = k + 1 < o.bits ? digits[k + 1] : 0;
            digits[k] = ((digits[k] - next) % o.radix + o.radix) % o.radix;
        }
}

int codeDistance(std::int64_t a, std::int64_t b, const CodeOptions& o) {
    validate(o);
    std::vector<int> da(static_cast<std::size_t>(o.bits)), db(da.size());
    codeDigits(a, o, da.data());
    codeDigits(b, o, db.data());
    int n = 0;
    for (std::size_t k = 0; k < da.size(); ++k) n += da[k] != db[k];
    return n;
}

void binaryEncoding(const std::int32_t* positions, std::size_t count, const BinaryOptions& o, float* out) {
    validate(o.code);
    requireSize(o.dim, "dim", limits::kMaxDim);
    requirePositions(positions, count, "positions");
    const std::int64_t cap = capacityOf(o.code);
    for (std::size_t t = 0; t < count; ++t)
        if (positions[t] >= cap)
            fail("bits", "(" + std::to_string(o.code.bits) + " digits of radix " + std::to_string(o.code.radix) + ") cannot represent position " +
                             std::to_string(positions[t]) + "; they cover 0.." + std::to_string(cap - 1));
    const std::size_t d = static_cast<std::size_t>(o.dim), bits = static_cast<std::size_t>(o.code.bits);
    if (o.table.empty()) {
        if (o.dim != o.code.bits) fail("dim", "must equal bits (" + std::to_string(o.code.bits) + ") for the fixed code without a table");
    } else if (o.table.size != bits * o.code.radix * d) {
        fail("table", "must be [bits, radix, dim] = " + std::to_string(bits * o.code.radix * d) + " elements (got " + std::to_string(o.table.size) + ")");
    }
    requireFiniteValues(o.table.data, o.table.size, "table");
    std::vector<int> digits(bits);
    for (std::size_t t = 0; t < count; ++t) {
        codeDigits(positions[t], o.code, digits.data());
        float* row = out + t * d;
        if (o.table.empty()) {
            for (std::size_t k = 0; k < bits; ++k) row[k] = 2.0f * digits[k] / (o.code.radix - 1) - 1.0f;
            continue;
        }
        std::fill(row, row + d, 0.0f);
        for (std::size_t k = 0; k < bits; ++k) {
            const float* e = o.table.data + (k * o.code.radix + digits[k]) * d;
            for (std::size_t c = 0; c < d; ++c) row[c] += e[c];
        }
    }
}

}  // namespace posenc
