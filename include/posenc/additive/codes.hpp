// Position codes: the position written in radix r with `bits` digits (binary, or Gray code so that
// neighbouring positions differ in exactly one digit), turned into a vector either by learned
// per-digit vectors e_{k, digit} (summed) or, without a table, by the fixed code 2 d/(r-1) - 1 (+-1 for binary).
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"

namespace posenc {

enum class CodeKind { binary, gray };

struct CodeOptions {
    int bits = 0;  // digits
    int radix = 2;
    CodeKind code = CodeKind::binary;
};

void validate(const CodeOptions& o);
// Digits of p, least significant first, into digits[0 .. bits-1]. Gray: binary-reflected for radix 2 (p ^ (p >> 1)); for radix > 2
// the modular Gray code g_k = (d_k - d_{k+1}) mod r (neighbours differ in one digit).
void codeDigits(std::int64_t p, const CodeOptions& o, int* digits);
// Number of digits in which the codes of a and b differ.
int codeDistance(std::int64_t a, std::int64_t b, const CodeOptions& o);

struct BinaryOptions {
    int dim = 0;
    CodeOptions code;
    View<float> table;  // [bits, radix, dim]; empty = fixed code (dim must equal bits)
};

// out [count, dim].
void binaryEncoding(const std::int32_t* positions, std::size_t count, const BinaryOptions& o, float* out);

}  // namespace posenc
