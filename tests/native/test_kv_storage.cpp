// K/V storage (f16, bf16, q8) in the KV cache, and attention over f16 / bf16 bit patterns (kvType):
//   - the result is float32 attention over the stored values, bit for bit: the same cache holding those
//     values as float32 gives the same bits (every kernel set, 1 and 3 threads, the decode split);
//   - within 1e-4 of max |out| of a long-double attention over the stored values (random and real-scale
//     activations), keys stored after RoPE, re-rotation, GQA, windows;
//   - what a storage cannot hold is refused by name and leaves the cache as it was; bytes as laid out.
// The conversions themselves are held to IEEE 754 and to ggml's Q8_0 in test_kernels.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <posenc/posenc.hpp>

#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {

const KVStorage kStorages[] = {KVStorage::f16, KVStorage::bf16, KVStorage::q8};

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);  // no memcmp of an empty vector's null data()
}

// The floats a storage holds for `x` (rows of hd): each element rounded (f16, bf16), or each 32 channels
// through a Q8_0 block; by the public conversions (tested against IEEE 754 and ggml in test_kernels.cpp).
std::vector<float> stored(KVStorage s, const std::vector<float>& x, int hd) {
    std::vector<float> y(x.size());
    if (s == KVStorage::q8) {
        for (std::size_t i = 0; i < x.size(); i += 32) {
            unsigned char block[34];
            quantizeQ8_0(x.data() + i, block);
            dequantizeQ8_0(block, y.data() + i);
        }
        REQUIRE(hd % 32 == 0);
        return y;
    }
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = s == KVStorage::f16 ? f16ToFloat(floatToF16(x[i])) : bf16ToFloat(floatToBf16(x[i]));
    return y;
}

std::vector<std::uint16_t> bitsOf(KVType t, const std::vector<float>& x) {
    std::vector<std::uint16_t> h(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) h[i] = t == KVType::f16 ? floatToF16(x[i]) : floatToBf16(x[i]);
    return h;
}
std::vector<float> floatsOf(KVType t, const std::vector<std::uint16_t>& h) {
    std::vector<float> x(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) x[i] = t == KVType::f16 ? f16ToFloat(h[i]) : bf16ToFloat(h[i]);
    return x;
}

// Real-scale activations, shaped like a Llama layer's after RoPE: a few outlier channels (keys up to
// ~25, queries up to ~6, aligned, as the "massive activation" channels are), the rest within ±1.5; values
// small. Logits then reach ~20-30, where real models' do.
std::vector<float> realScale(std::size_t n, int hd, unsigned seed, int kind) {  // kind 0 = q, 1 = k, 2 = v
    auto x = ref::randomVector(n, seed, -1.5f, 1.5f);
    for (std::size_t i = 0; i < n; ++i) {
        const int c = static_cast<int>(i % static_cast<std::size_t>(hd));
        const bool outlier = c == 3 || c == hd / 2 + 3;
        if (kind == 0 && outlier) x[i] *= 4;
        if (kind == 1 && outlier) x[i] = x[i] * 8 + 13;
        if (kind == 2) x[i] *= 0.05f;
    }
    return x;
}

// Long-double attention of one decode query row per head over keys / values [kvHeads, n, hd] (GQA:
// query head h reads kv head h / (heads / kvHeads)); scale 1/sqrt(hd); every key visible.
std::vector<ld> referenceDecode(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v, int heads, int kvHeads,
                                int n, int hd) {
    std::vector<ld> out(static_cast<std::size_t>(heads) * hd, 0);
    const ld scale = 1 / std::sqrt(static_cast<ld>(hd));
    for (int h = 0; h < heads; ++h) {
        const int kvh = h / (heads / kvHeads);
        std::vector<ld> s(static_cast<std::size_t>(n));
        ld m = -INFINITY;
        for (int j = 0; j < n; ++j) {
            ld dot = 0;
            for (int c = 0; c < hd; ++c) dot += static_cast<ld>(q[static_cast<std::size_t>(h) * hd + c]) * k[(static_cast<std::size_t>(kvh) * n + j) * hd + c];
            s[j] = dot * scale;
            m = std::max(m, s[j]);
        }
        ld l = 0;
        for (int j = 0; j < n; ++j) l += s[j] = std::exp(s[j] - m);
        for (int j = 0; j < n; ++j)
            for (int c = 0; c < hd; ++c) out[static_cast<std::size_t>(h) * hd + c] += s[j] / l * v[(static_cast<std::size_t>(kvh) * n + j) * hd + c];
    }
    return out;
}

// Restores the thread count a test changed.
struct KeepThreadCount {
    int n = threadCount();
    ~KeepThreadCount() { setThreadCount(n); }
};

double relativeError(const std::vector<float>& got, const std::vector<ld>& want) {
    ld err = 0, top = 0;
    for (std::size_t i = 0; i < got.size(); ++i) err = std::max(err, std::fabs(static_cast<ld>(got[i]) - want[i])), top = std::max(top, std::fabs(want[i]));
    return static_cast<double>(err / top);
}

}  // namespace

TEST_CASE("KV storage: attend equals float32 attention over the stored values, bit for bit (window, sinks, GQA, decode split, 1 and 3 threads)") {
    const int kvHeads = 2, heads = 6, hd = 64, T = 2600;  // 2600 cached keys: the decode split's 2048-key chunks
    const auto k = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 1, -3, 3);
    const auto v = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 2, -3, 3);
    const auto q = ref::randomVector(static_cast<std::size_t>(heads) * 3 * hd, 3);
    const KeepThreadCount keep;
    for (KVStorage s : kStorages) {
        CAPTURE(std::string(storageName(s)));
        for (int window : {0, 700}) {
            CAPTURE(window);
            KVCacheConfig c;
            c.kvHeads = kvHeads;
            c.headDim = hd;
            c.capacity = window ? 704 : T;
            c.window = window;
            c.sinks = window ? 4 : 0;
            c.storage = s;
            KVCacheConfig f = c;
            f.storage = KVStorage::f32;
            KVCache cache(c), same(f);
            const auto ks = stored(s, k, hd), vs = stored(s, v, hd);
            // a prefill (longer than the window: keys held past capacity), then decode steps
            const int prefill = T - 3;
            auto slice = [&](const std::vector<float>& x, int t0, int n) {
                std::vector<float> out;
                for (int h = 0; h < kvHeads; ++h)
                    out.insert(out.end(), x.begin() + (static_cast<std::size_t>(h) * T + t0) * hd, x.begin() + (static_cast<std::size_t>(h) * T + t0 + n) * hd);
                return out;
            };
            cache.append(slice(k, 0, prefill), slice(v, 0, prefill), prefill);
            same.append(slice(ks, 0, prefill), slice(vs, 0, prefill), prefill);
            CHECK(sameBits(cache.keys(), same.keys()));
            CHECK(sameBits(cache.values(), same.values()));
            for (int t = prefill; t < T; ++t) {
                cache.append(slice(k, t, 1), slice(v, t, 1), 1);
                same.append(slice(ks, t, 1), slice(vs, t, 1), 1);
                for (int threads : {1, 3}) {
                    setThreadCount(threads);
                    std::vector<float> a(static_cast<std::size_t>(heads) * hd), b(a.size());
                    cache.attend(View<float>(q.data(), a.size()), heads, 1, NoEncoding{}, {}, true, a.data());
                    same.attend(View<float>(q.data(), a.size()), heads, 1, NoEncoding{}, {}, true, b.data());
                    CHECK(sameBits(a, b));
                    // three queries at once (a tile of several rows per kv head)
                    std::vector<float> a3(q.size()), b3(q.size());
                    cache.attend(q, heads, 3, NoEncoding{}, {}, true, a3.data());
                    same.attend(q, heads, 3, NoEncoding{}, {}, true, b3.data());
                    CHECK(sameBits(a3, b3));
                }
            }
        }
    }
}

TEST_CASE("KV storage: keys are stored after RoPE (rotated, then rounded); shift re-rotates through float and stays within the storage's rounding") {
    const int kvHeads = 2, heads = 4, hd = 64, T = 40;
    RopeEncoding rope;
    rope.config.base = 10000;
    rope.config.partialRotaryFactor = 0.5;  // partial rotary: the other half passes through
    const auto k = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 11, -2, 2);
    const auto v = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 12, -2, 2);
    KVCacheConfig f;
    f.kvHeads = kvHeads;
    f.headDim = hd;
    f.capacity = T;
    f.rope = rope;
    KVCache exact(f);
    exact.append(k, v, T);
    for (KVStorage s : kStorages) {
        CAPTURE(std::string(storageName(s)));
        KVCacheConfig c = f;
        c.storage = s;
        KVCache cache(c);
        cache.append(k, v, T);
        // the float32 cache's rotated keys, rounded as the storage rounds them
        CHECK(sameBits(cache.keys(), stored(s, exact.keys(), hd)));
        CHECK(sameBits(cache.values(), stored(s, exact.values(), hd)));
        // shift +5 then -5: each re-rotation rounds once more; the keys stay within a few of the storage's steps
        const auto before = cache.keys();
        cache.shift(5);
        cache.shift(-5);
        const auto after = cache.keys();
        double worst = 0, top = 0;
        for (std::size_t i = 0; i < after.size(); ++i) worst = std::max(worst, std::fabs(double(after[i]) - before[i])), top = std::max(top, std::fabs(double(before[i])));
        const double step = s == KVStorage::f16 ? std::ldexp(1.0, -11) : s == KVStorage::bf16 ? std::ldexp(1.0, -8) : 1.0 / 127;
        CHECK(worst <= 2 * step * top);
        CHECK(cache.positions() == exact.positions());
        // a shifted cache still attends as float32 attention over what it now stores
        const auto q = ref::randomVector(static_cast<std::size_t>(heads) * hd, 13);
        std::vector<float> out(q.size());
        cache.attend(q, heads, 1, NoEncoding{}, {}, true, out.data());
        for (float x : out) CHECK(std::isfinite(x));
    }
}

TEST_CASE("KV storage: within 1e-4 of max |out| of a long-double attention over the stored values (random and real-scale activations, GQA 4, RoPE)") {
    const int kvHeads = 2, heads = 8, T = 3000;
    for (int hd : {64, 128}) {
        for (bool real : {false, true}) {
            CAPTURE(hd);
            CAPTURE(real);
            const auto k = real ? realScale(static_cast<std::size_t>(kvHeads) * T * hd, hd, 21, 1) : ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 21, -2, 2);
            const auto v = real ? realScale(static_cast<std::size_t>(kvHeads) * T * hd, hd, 22, 2) : ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 22, -2, 2);
            const auto q = real ? realScale(static_cast<std::size_t>(heads) * hd, hd, 23, 0) : ref::randomVector(static_cast<std::size_t>(heads) * hd, 23, -2, 2);
            for (KVStorage s : {KVStorage::f32, KVStorage::f16, KVStorage::bf16, KVStorage::q8}) {
                CAPTURE(std::string(storageName(s)));
                KVCacheConfig c;
                c.kvHeads = kvHeads;
                c.headDim = hd;
                c.capacity = T + 1;
                c.rope = RopeEncoding{};
                c.storage = s;
                KVCache cache(c);
                cache.append(k, v, T);
                // the query rotated at its position T - 1 in long double (RoPE half layout, base 10000; the
                // cache's keys() are its stored, rotated keys)
                std::vector<float> qRot(q.size());
                const auto w = ref::defaultInvFreq(hd, 10000);
                for (int h = 0; h < heads; ++h) {
                    std::vector<ld> x(q.begin() + h * hd, q.begin() + (h + 1) * hd);
                    const auto y = ref::rope(x, T - 1, w, true);
                    for (int ch = 0; ch < hd; ++ch) qRot[static_cast<std::size_t>(h) * hd + ch] = static_cast<float>(y[ch]);
                }
                const auto keys = cache.keys(), values = cache.values();
                std::vector<float> kk, vv;  // the T filled slots of capacity T + 1
                for (int h = 0; h < kvHeads; ++h) {
                    kk.insert(kk.end(), keys.begin() + static_cast<std::size_t>(h) * (T + 1) * hd, keys.begin() + (static_cast<std::size_t>(h) * (T + 1) + T) * hd);
                    vv.insert(vv.end(), values.begin() + static_cast<std::size_t>(h) * (T + 1) * hd, values.begin() + (static_cast<std::size_t>(h) * (T + 1) + T) * hd);
                }
                const auto want = referenceDecode(qRot, kk, vv, heads, kvHeads, T, hd);
                std::vector<float> out(q.size());
                cache.attend(q, heads, 1, NoEncoding{}, {}, true, out.data());
                const double err = relativeError(out, want);
                CAPTURE(err);
                MESSAGE(doctest::String((std::string(storageName(s)) + " hd " + std::to_string(hd) + (real ? " real" : " random") + " err " + std::to_string(err)).c_str()));
                CHECK(err < 1e-4);
            }
        }
    }
}

TEST_CASE("KV storage: bytes held, q8's headDim, and what a storage cannot hold (refused by name, the cache unchanged)") {
    KVCacheConfig c;
    c.kvHeads = 2;
    c.headDim = 64;
    c.capacity = 100;  // two key blocks of 64 slots
    // f32: keys 2 heads x 128 slots x 64 x 4 bytes, values 2 x 100 x 64 x 4
    CHECK(KVCache(c).bytes() == 2 * 128 * 64 * 4 + 2 * 100 * 64 * 4);
    c.storage = KVStorage::f16;
    CHECK(KVCache(c).bytes() == 2 * 128 * 64 * 2 + 2 * 100 * 64 * 2);
    c.storage = KVStorage::bf16;
    CHECK(KVCache(c).bytes() == 2 * 128 * 64 * 2 + 2 * 100 * 64 * 2);
    c.storage = KVStorage::q8;  // per 32 channels: 32 int8 + a 2-byte scale
    CHECK(KVCache(c).bytes() == 2 * 128 * 2 * 34 + 2 * 100 * 2 * 34);
    CHECK(KVCache::storageBytes(c) == KVCache(c).bytes());
    c.headDim = 48;
    CHECK_THROWS_WITH_AS(KVCache{c}, doctest::Contains("headDim (48) must be a multiple of 32 with storage 'q8'"), std::invalid_argument);

    // one token of kvHeads 2 x headDim 64, with chosen values at element 0 (kv head 0, channel 0) and
    // 127 (kv head 1, channel 63: RoPE's slowest pair, which one position turns by 1.3e-4 radians)
    auto token = [](float at0, float at127) {
        std::vector<float> x(128, 0.25f);
        x[0] = at0;
        x[127] = at127;
        return x;
    };
    const auto ok = token(1, 1);
    for (KVStorage s : kStorages) {
        CAPTURE(std::string(storageName(s)));
        KVCacheConfig cc;
        cc.kvHeads = 2;
        cc.headDim = 64;
        cc.capacity = 8;
        cc.storage = s;
        cc.rope = RopeEncoding{};
        KVCache cache(cc);
        cache.append(ok, ok, 1);
        const auto k0 = cache.keys(), v0 = cache.values();
        const auto p0 = cache.positions();
        const std::size_t b0 = cache.bytes();
        auto unchanged = [&] {
            CHECK(sameBits(cache.keys(), k0));
            CHECK(sameBits(cache.values(), v0));
            CHECK(cache.positions() == p0);
            CHECK(cache.bytes() == b0);
        };
        // f16: past 65504; bf16: past 3.3895e38 (3.4e38 rounds to infinity); q8: a block whose scale max|x|/127 passes 65504
        const float big = s == KVStorage::f16 ? 70000.0f : s == KVStorage::bf16 ? 3.4e38f : 1e7f;
        CHECK_THROWS_WITH_AS(cache.append(token(1, big), ok, 1),
                             doctest::Contains(s == KVStorage::q8 ? "k[96..127] after RoPE at position 1 (a block of 32 channels, max |x| = 10000000) needs a Q8_0 scale"
                                                                  : "k[127] after RoPE at position 1 ("),
                             std::invalid_argument);
        unchanged();
        CHECK_THROWS_WITH_AS(cache.append(ok, token(big, 1), 1),
                             doctest::Contains(s == KVStorage::q8 ? "v[0..31] (a block of 32 channels, max |x| = 10000000)" : "v[0] ("), std::invalid_argument);
        unchanged();
        if (s == KVStorage::f16) CHECK_THROWS_WITH_AS(cache.append(ok, token(70000, 1), 1), doctest::Contains("v[0] (70000) is beyond float16's range (65504): storage 'f16' cannot hold it"), std::invalid_argument);
        // 16-bit input that is not finite
        std::vector<std::uint16_t> bits(128, 0x3c00);
        bits[7] = 0x7c00;
        CHECK_THROWS_WITH_AS(cache.append(bits, std::vector<std::uint16_t>(128, 0x3c00), KVType::f16, 1),
                             doctest::Contains("k[7] must be finite (got Infinity: float16 bits 0x7c00)"), std::invalid_argument);
        unchanged();
        cache.append(ok, ok, 1);  // still usable
        CHECK(cache.nextPositions()[0] == 2);
    }
}

TEST_CASE("KV storage: a re-rotation the storage cannot hold is refused by shift and renumber, before anything changes") {
    KVCacheConfig c;
    c.kvHeads = 1;
    c.headDim = 32;
    c.capacity = 4;
    c.storage = KVStorage::f16;
    c.rope = RopeEncoding{};  // pair (0, 16) turns by the position at frequency 1
    KVCache cache(c);
    std::vector<float> k(32, 0.0f), v(32, 1.0f);
    k[0] = 50000, k[16] = 50000;  // at position 0 stored as they are (both fit f16)
    cache.append(k, v, 1);
    const auto k0 = cache.keys();
    // turned by 1 radian: (50000 cos 1 - 50000 sin 1, 50000 sin 1 + 50000 cos 1) = (-15058, 69088): beyond f16
    CHECK_THROWS_WITH_AS(cache.shift(1), doctest::Contains("delta re-rotates the key in slot 0 of row 0, kv head 0, to one storage 'f16' cannot hold"),
                         std::invalid_argument);
    CHECK(sameBits(cache.keys(), k0));
    CHECK(cache.positions()[0] == 0);
    std::vector<std::int32_t> np = {1, -1, -1, -1};
    CHECK_THROWS_WITH_AS(cache.renumber(np), doctest::Contains("newPositions re-rotates the key in slot 0"), std::invalid_argument);
    CHECK(sameBits(cache.keys(), k0));
    CHECK(cache.positions()[0] == 0);
    cache.shift(3);  // by 3 radians: (-56449, -42434) fits
    CHECK(cache.positions()[0] == 3);
}

TEST_CASE("attention with kvType: K and V as f16 / bf16 bits equal attention over the floats they stand for, bit for bit") {
    const KeepThreadCount keep;
    for (KVType t : {KVType::f16, KVType::bf16}) {
        CAPTURE(std::string(kvTypeName(t)));
        for (int hd : {17, 18, 64}) {
            for (bool rope : {false, true}) {
                if (rope && hd % 2) continue;  // RoPE needs an even rotary dim
                for (bool weights : {false, true}) {
                    CAPTURE(hd);
                    CAPTURE(rope);
                    const int heads = 6, kvHeads = 2, qLen = 5, kLen = rope ? 2300 : 90;  // qLen != kLen; 2300: the decode split
                    const auto q = ref::randomVector(static_cast<std::size_t>(heads) * qLen * hd, 31);
                    const auto kb = bitsOf(t, ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * hd, 32, -3, 3));
                    const auto vb = bitsOf(t, ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * hd, 33, -3, 3));
                    const auto kf = floatsOf(t, kb), vf = floatsOf(t, vb);
                    AttentionRequest a;
                    a.dims = AttentionDims{heads, kvHeads, hd, qLen, kLen};
                    a.q = q;
                    a.causal = true;
                    if (rope) a.encoding = RopeEncoding{};
                    else a.encoding = AlibiEncoding{heads, {}, false};
                    AttentionRequest b = a;
                    a.kvType = t;
                    a.kBits = kb;
                    a.vBits = vb;
                    b.k = kf;
                    b.v = vf;
                    for (int threads : {1, 3}) {
                        setThreadCount(threads);
                        const auto ra = attention(a, weights), rb = attention(b, weights);
                        CHECK(sameBits(ra.out, rb.out));
                        CHECK(sameBits(ra.weights, rb.weights));
                    }
                }
            }
        }
    }
    // refused by name: bits that are not finite, a size that does not fit, both floats and bits
    const std::vector<float> q(8, 0.5f), kf(8, 0.5f);
    std::vector<std::uint16_t> kb(8, 0x3f80), vb(8, 0x3f80);
    AttentionRequest r;
    r.dims = AttentionDims{1, 1, 8, 1, 1};
    r.q = q;
    r.kvType = KVType::bf16;
    r.kBits = kb;
    r.vBits = vb;
    CHECK(attention(r).out == std::vector<float>(8, 1.0f));  // 0x3f80 = 1
    vb[3] = 0xffc0;
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("v[3] must be finite (got NaN: bfloat16 bits 0xffc0)"), std::invalid_argument);
    r.vBits = View<std::uint16_t>(vb.data(), 7);
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("v must have 8 elements"), std::invalid_argument);
    r.vBits = vb;
    r.k = kf;
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("given as floats and as kvType bits"), std::invalid_argument);
}

TEST_CASE("KV storage with values of their own width (valueDim, DeepSeek MLA): attend equals a float32 cache holding the stored values") {
    const int kvHeads = 2, heads = 4, hd = 64, vd = 32, T = 150;
    const auto k = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, 41, -2, 2);
    const auto v = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * vd, 42, -2, 2);
    const auto q = ref::randomVector(static_cast<std::size_t>(heads) * 2 * hd, 43);
    for (KVStorage s : kStorages) {
        CAPTURE(std::string(storageName(s)));
        KVCacheConfig c;
        c.kvHeads = kvHeads;
        c.headDim = hd;
        c.valueDim = vd;
        c.capacity = T;
        c.storage = s;
        KVCacheConfig f = c;
        f.storage = KVStorage::f32;
        KVCache cache(c), same(f);
        cache.append(k, v, T);
        same.append(stored(s, k, hd), stored(s, v, vd), T);
        CHECK(sameBits(cache.values(), same.values()));
        std::vector<float> a(static_cast<std::size_t>(heads) * 2 * vd), b(a.size());
        cache.attend(q, heads, 2, NoEncoding{}, {}, true, a.data());
        same.attend(q, heads, 2, NoEncoding{}, {}, true, b.data());
        CHECK(sameBits(a, b));
        // bytes: keys of hd channels in 3 blocks of 64 slots, value rows of vd
        const std::size_t keyBytes = s == KVStorage::q8 ? hd / 32 * 34 : 2 * hd, valueBytes = s == KVStorage::q8 ? vd / 32 * 34 : 2 * vd;
        CHECK(cache.bytes() == kvHeads * (192 * keyBytes + T * valueBytes));
    }
    KVCacheConfig c;
    c.kvHeads = 1, c.headDim = 64, c.valueDim = 48, c.capacity = 4, c.storage = KVStorage::q8;
    CHECK_THROWS_WITH_AS(KVCache{c}, doctest::Contains("valueDim (48) must be a multiple of 32 with storage 'q8'"), std::invalid_argument);
}
