// posenc/attention/kv_storage.hpp: the storage formats' names and scalar conversions (the kernels'
// own, kernels/kv_format.hpp), and the checks of K / V given as 16-bit bit patterns (attention/internal.hpp).
#include "posenc/attention/kv_storage.hpp"

#include <string>

#include "posenc/common/errors.hpp"
#include "attention/internal.hpp"
#include "common/thread_pool.hpp"
#include "kernels/kv_format.hpp"

namespace posenc {

const char* storageName(KVStorage s) {
    switch (s) {
        case KVStorage::f16: return "f16";
        case KVStorage::bf16: return "bf16";
        case KVStorage::q8: return "q8";
        default: return "f32";
    }
}
const char* kvTypeName(KVType t) { return storageName(storageOf(t)); }

std::uint16_t floatToF16(float x) { return kernels::floatToF16(x); }
float f16ToFloat(std::uint16_t bits) { return kernels::f16ToFloat(bits); }
std::uint16_t floatToBf16(float x) { return kernels::floatToBf16(x); }
float bf16ToFloat(std::uint16_t bits) { return kernels::bf16ToFloat(bits); }
void quantizeQ8_0(const float* x, unsigned char* block) { kernels::quantizeQ8Block(x, block); }
void dequantizeQ8_0(const unsigned char* block, float* x) { kernels::dequantizeQ8Block(block, x); }

namespace detail {

float bitsToFloat(std::uint16_t bits, KVStorage s) { return s == KVStorage::f16 ? kernels::f16ToFloat(bits) : kernels::bf16ToFloat(bits); }

void requireFiniteBits(const std::uint16_t* x, std::size_t n, KVStorage s, const char* field) {
    const std::uint16_t exponent = s == KVStorage::f16 ? 0x7c00 : 0x7f80;  // all ones: infinity or NaN
    for (std::size_t i = 0; i < n; ++i) {
        if ((x[i] & exponent) != exponent) continue;
        static const char* hex = "0123456789abcdef";
        std::string bits = "0x";
        for (int shift = 12; shift >= 0; shift -= 4) bits += hex[(x[i] >> shift) & 15];
        fail(std::string(field) + "[" + std::to_string(i) + "]", std::string("must be finite (got ") + show(bitsToFloat(x[i], s)) + ": " +
                                                                     (s == KVStorage::f16 ? "float16" : "bfloat16") + " bits " + bits + ")");
    }
}

void bitsToFloats(const std::uint16_t* x, std::size_t n, KVStorage s, float* out) {
    constexpr std::size_t kPiece = std::size_t(1) << 14;
    parallelFor((n + kPiece - 1) / kPiece, 4.0 * static_cast<double>(n), [&](std::size_t p, int) {
        const std::size_t end = std::min(n, (p + 1) * kPiece);
        if (s == KVStorage::f16)
            for (std::size_t i = p * kPiece; i < end; ++i) out[i] = kernels::f16ToFloat(x[i]);
        else
            for (std::size_t i = p * kPiece; i < end; ++i) out[i] = kernels::bf16ToFloat(x[i]);
    });
}

}  // namespace detail
}  // namespace posenc
