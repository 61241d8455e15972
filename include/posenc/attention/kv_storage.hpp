// How keys and values are held: the KV cache's storage (KVCacheConfig::storage) and the element type of
// K / V given to `attention` or `KVCache::append` as 16-bit bit patterns (AttentionRequest::kvType).
//   f32   float32, as given
//   f16   IEEE binary16, rounded to nearest even from float32
//   bf16  bfloat16 (the top 16 bits of a float32), rounded to nearest even
//   q8    ggml's Q8_0: blocks of 32 consecutive channels of one key or value row, each one fp16 scale
//         d = max|x| / 127 and 32 int8 q = round(x / d) (ggml src/ggml-quants.c, quantize_row_q8_0_ref);
//         a value reads back as q * d. The head dimension must be a multiple of 32.
// The attention kernels read every format where it lies, converting a block of keys or values in
// registers (kernels/kv_format.hpp); a stored value reads back as exactly the float the conversions
// below give, so attention over a cache of any storage equals attention over those floats.
#pragma once
#include <cstddef>
#include <cstdint>

namespace posenc {

enum class KVStorage { f32, f16, bf16, q8 };
// The 16-bit formats K and V may arrive in (Uint16Array bit patterns in JS).
enum class KVType { f16, bf16 };

const char* storageName(KVStorage s);
const char* kvTypeName(KVType t);
inline KVStorage storageOf(KVType t) { return t == KVType::f16 ? KVStorage::f16 : KVStorage::bf16; }

// Scalar conversions, exact to the formats' definitions (round to nearest, ties to even). A finite float
// beyond the format's range gives infinity (f16: |x| >= 65520; bf16: |x| >= 0x1.fffp127): posenc's
// cache and attention refuse such values (RangeError naming the tensor) rather than store them.
std::uint16_t floatToF16(float x);
float f16ToFloat(std::uint16_t bits);
std::uint16_t floatToBf16(float x);
float bf16ToFloat(std::uint16_t bits);
// One Q8_0 block (ggml's block_q8_0, 34 bytes: the fp16 scale, little-endian, then 32 int8) from 32
// floats, and back.
void quantizeQ8_0(const float* x, unsigned char* block);
void dequantizeQ8_0(const unsigned char* block, float* x);

}  // namespace posenc
