// Stick-breaking attention (Tan et al. 2024; encoding kind 'stickBreaking'), against the reference's
// formula in long double (naive_attention.hpp, NaiveTerms::stickBreaking, written from
// flash-linear-attention fla/ops/stickbreaking_attn/naive.py, naive_stickbreaking_attn) and a hand-worked
// case; the awkward shapes; the KV cache (one call, chunks, token by token); the call's errors.
// Every path and kernel set at 1 and 3 threads: test_parity_grid.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {

NaiveTerms stick(bool attendCurrent = false) {
    NaiveTerms t;
    t.stickBreaking = true;
    t.attendCurrent = attendCurrent;
    return t;
}

Problem causalProblem(int heads, int kvHeads, int headDim, int qLen, int kLen, unsigned seed, std::int32_t base = 0) {
    Problem p(heads, kvHeads, headDim, qLen, kLen, seed);
    p.causal = true;
    for (int j = 0; j < kLen; ++j) p.kPos[j] = base + j;
    for (int i = 0; i < qLen; ++i) p.qPos[i] = base + kLen - qLen + i;
    return p;
}

bool throwsNaming(const std::function<void()>& f, const std::string& name) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return std::string(e.what()).find(name) != std::string::npos;
    }
    return false;
}

}  // namespace

// Hand-worked, headDim 1, scale 1, q = 1: z_ij = k_j, k = (ln 3, 0, −ln 3), so σ(z) = (3/4, 1/2, 1/4);
// v = (1, 10, 100). Without attendCurrent query i sees keys j < i:
//   query 0: nothing -> 0;  query 1: A_10 = σ(ln 3) = 3/4 -> 0.75;
//   query 2: A_21 = σ(0) = 1/2, A_20 = σ(ln 3)(1 − σ(0)) = 3/8 -> 3/8 + 5 = 5.375.
// With attendCurrent query i sees j <= i:
//   query 0: A_00 = 3/4 -> 0.75;  query 1: A_11 = 1/2, A_10 = 3/4 · 1/2 = 3/8 -> 5.375;
//   query 2: A_22 = 1/4, A_21 = 1/2 · 3/4 = 3/8, A_20 = 3/4 · 1/2 · 3/4 = 9/32 -> 9/32 + 30/8 + 25 = 29.03125.
TEST_CASE("stickBreaking: the hand-worked three-token case, with and without attendCurrent") {
    const float ln3 = static_cast<float>(std::log(3.0L));
    const std::vector<float> q = {1, 1, 1}, k = {ln3, 0, -ln3}, v = {1, 10, 100};
    AttentionRequest r;
    r.dims = AttentionDims{1, 1, 1, 3, 3};
    r.q = q;
    r.k = k;
    r.v = v;
    r.causal = true;
    r.scale = 1;
    r.encoding = StickBreakingEncoding{};
    auto got = attention(r, true);
    const std::vector<double> out = {0, 0.75, 5.375}, w = {0, 0, 0, 0.75, 0, 0, 0.375, 0.5, 0};
    for (int i = 0; i < 3; ++i) CHECK(got.out[i] == doctest::Approx(out[i]).epsilon(1e-6));
    for (int i = 0; i < 9; ++i) CHECK(got.weights[i] == doctest::Approx(w[i]).epsilon(1e-6));
    CHECK(got.out[0] == 0.0f);  // a query that sees no key: zeros, never NaN
    r.encoding = StickBreakingEncoding{true};
    got = attention(r, true);
    const std::vector<double> outC = {0.75, 5.375, 29.03125}, wC = {0.75, 0, 0, 0.375, 0.5, 0, 0.28125, 0.375, 0.25};
    for (int i = 0; i < 3; ++i) CHECK(got.out[i] == doctest::Approx(outC[i]).epsilon(1e-6));
    for (int i = 0; i < 9; ++i) CHECK(got.weights[i] == doctest::Approx(wC[i]).epsilon(1e-6));
}

TEST_CASE("stickBreaking: the reference on awkward shapes (GQA of 3, odd heads, qLen != kLen, far positions, masks)") {
    for (bool current : {false, true}) {
        CAPTURE(current);
        const StickBreakingEncoding e{current};
        // 6 query heads over 2 kv heads, 13 channels, 5 queries over 150 keys (three key blocks), from 2^24
        Problem p = causalProblem(6, 2, 13, 5, 150, 31, (1 << 24) + 5);
        checkAgainstNaive(p, e, stick(current), 1 / std::sqrt(ld(13)));
        // 3 heads (no GQA), every query a key (qLen == kLen): the first sees nothing without attendCurrent
        checkAgainstNaive(causalProblem(3, 3, 8, 70, 70, 32), e, stick(current), 1 / std::sqrt(ld(8)));
        // padding: a key mask hides keys, which leave the stick unchanged
        p.keyMask.assign(static_cast<std::size_t>(p.kLen), 1);
        for (int j = 0; j < p.kLen; j += 3) p.keyMask[j] = 0;
        p.keyMask[p.kLen - 1] = 0;
        checkAgainstNaive(p, e, stick(current), 1 / std::sqrt(ld(13)));
        // a sliding window on top of the causal mask
        p.keyMask.clear();
        p.window = 40;
        checkAgainstNaive(p, e, stick(current), 1 / std::sqrt(ld(13)));
    }
}

TEST_CASE("stickBreaking: large logits (|z| ~ 80) and tiny ones stay finite and match the reference") {
    for (float gain : {100.0f, 1e-3f}) {
        CAPTURE(gain);
        Problem p = causalProblem(2, 1, 16, 4, 100, 41);
        for (float& x : p.q) x *= gain;
        ld largest = 0;
        for (int i = 0; i < p.qLen; ++i)
            for (int j = 0; j < p.kLen; ++j) largest = std::max(largest, std::fabs(dotLd(p.qv(0, i), p.kv(0, j), 16) / 4));
        if (gain > 1) CHECK(largest > 80);  // the logits this case is about
        checkAgainstNaive(p, StickBreakingEncoding{}, stick(), ld(0.25));
        const auto got = attention(p.request(StickBreakingEncoding{}), true);
        for (float w : got.weights) CHECK(std::isfinite(w));
    }
}

// Two queries of one tile: the first's logits are 20 (σ ≈ 1: its stick is used up after five keys, the
// engine's floor e^−87.3), the second's −8 (σ = 3.4e-4: its stick lasts past all 300 keys, five blocks).
// The engine may stop walking the tile's keys only once both are used up.
TEST_CASE("stickBreaking: rows of one tile whose sticks run out at different keys") {
    Problem p = causalProblem(1, 1, 1, 2, 300, 45);
    p.q = {20.0f, -8.0f};
    std::fill(p.k.begin(), p.k.end(), 1.0f);
    checkAgainstNaive(p, StickBreakingEncoding{}, stick(), 1);
    const auto got = attention(p.request(StickBreakingEncoding{}), true);
    ld sum = 0;
    for (int j = 0; j < p.kLen; ++j) sum += got.weights[static_cast<std::size_t>(p.kLen) + j];
    CHECK(sum > 0.09);  // 1 − (1 − σ(−8))^299: the second row weighs every key
    CHECK(got.weights[static_cast<std::size_t>(p.kLen)] > 0);  // the second row's furthest key too
}

TEST_CASE("stickBreaking: after RoPE and with a score term, the logits are scale q.k + terms; softcap before the sigmoid") {
    Problem p = causalProblem(4, 2, 16, 6, 90, 51, 1000);
    RopeEncoding rope;
    rope.config.base = 10000;
    const auto slopes = alibiSlopes(p.heads);
    NaiveTerms t = stick();
    t.bias = [&p, slopes](int h, int i, int j) { return -ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
    t.contentDot = [&p](int h, int i, int j) {
        const auto inv = ref::defaultInvFreq(16, 10000);
        const std::vector<ld> a(p.qv(h, i), p.qv(h, i) + 16), b(p.kv(h, j), p.kv(h, j) + 16);
        const auto ra = ref::rope(a, p.qPos[i], inv, true), rb = ref::rope(b, p.kPos[j], inv, true);
        ld s = 0;
        for (int x = 0; x < 16; ++x) s += ra[x] * rb[x];
        return s;
    };
    const Encoding e = CombinedEncoding{{rope, AlibiEncoding{p.heads, {}, false}, StickBreakingEncoding{}}};
    checkAgainstNaive(p, e, t, ld(0.25));
    p.softcap = 2;
    checkAgainstNaive(p, e, t, ld(0.25));
}

// The KV cache: the whole prefill in one append, in chunks, or token by token, each query attending
// after its own token is appended; every way equal to one attention call over the same tokens.
TEST_CASE("stickBreaking: the KV cache, prefill in one call, in chunks and token by token, equals one attention call") {
    const int heads = 4, kvHeads = 2, hd = 12, T = 75;
    Problem p = causalProblem(heads, kvHeads, hd, T, T, 61);
    for (bool current : {false, true}) {
        CAPTURE(current);
        const StickBreakingEncoding e{current};
        const auto want = attention(p.request(e)).out;
        const auto ref = naive(p, stick(current), 1 / std::sqrt(ld(hd)));
        CHECK(maxDiff(want, ref.out) < 2e-5);
        for (int chunk : {T, 16, 1}) {
            CAPTURE(chunk);
            KVCacheConfig config;
            config.kvHeads = kvHeads;
            config.headDim = hd;
            config.capacity = T;
            KVCache cache(config);
            std::vector<float> got(want.size());
            for (int t0 = 0; t0 < T; t0 += chunk) {
                const int n = std::min(chunk, T - t0);
                std::vector<float> k, v, q;
                for (int h = 0; h < kvHeads; ++h)
                    for (int t = t0; t < t0 + n; ++t) {
                        k.insert(k.end(), p.kv(h * (heads / kvHeads), t), p.kv(h * (heads / kvHeads), t) + hd);
                        v.insert(v.end(), p.vv(h * (heads / kvHeads), t), p.vv(h * (heads / kvHeads), t) + hd);
                    }
                for (int h = 0; h < heads; ++h)
                    for (int t = t0; t < t0 + n; ++t) q.insert(q.end(), p.qv(h, t), p.qv(h, t) + hd);
                cache.append(k, v, n);
                std::vector<float> out(static_cast<std::size_t>(heads) * n * hd);
                cache.attend(q, heads, n, e, {}, true, out.data());
                for (int h = 0; h < heads; ++h)
                    for (int t = 0; t < n; ++t)
                        for (int c = 0; c < hd; ++c) got[(static_cast<std::size_t>(h) * T + t0 + t) * hd + c] = out[(static_cast<std::size_t>(h) * n + t) * hd + c];
            }
            CHECK(maxDiff(got, want) < 1e-6);
            CHECK(maxDiff(got, ref.out) < 2e-5);
        }
    }
}

TEST_CASE("stickBreaking: a non-causal call, sinkLogits and two parts are errors naming them; the cache is unchanged") {
    Problem p = causalProblem(2, 2, 8, 3, 6, 71);
    AttentionRequest r = p.request(StickBreakingEncoding{});
    r.causal = false;
    CHECK(throwsNaming([&] { attention(r); }, "causal"));
    r.causal = true;
    const std::vector<float> sinks = {0.5f, 1.0f};
    r.sinkLogits = sinks;
    CHECK(throwsNaming([&] { attention(r); }, "sinkLogits"));
    r.sinkLogits = {};
    r.encoding = CombinedEncoding{{StickBreakingEncoding{}, StickBreakingEncoding{true}}};
    CHECK(throwsNaming([&] { attention(r); }, "stickBreaking"));

    for (int window : {0, 4}) {
        CAPTURE(window);
        KVCacheConfig config;
        config.kvHeads = 2;
        config.headDim = 8;
        config.capacity = 6;
        config.window = window;
        KVCache cache(config);
        cache.append(View<float>(p.k), View<float>(p.v), 6);
        const std::vector<std::int32_t> positions = cache.positions(), next = cache.nextPositions();
        const std::vector<float> keys = cache.keys();
        std::vector<float> out(2 * 3 * 8, 7.0f);
        const std::vector<float> before = out;
        CHECK(throwsNaming([&] { cache.attend(p.q, 2, 3, StickBreakingEncoding{}, {}, false, out.data()); }, "causal"));
        CHECK(throwsNaming([&] { cache.attend(p.q, 2, 3, StickBreakingEncoding{}, {}, true, out.data(), std::nan(""), {}, sinks); }, "sinkLogits"));
        CHECK(out == before);
        CHECK(cache.positions() == positions);
        CHECK(cache.keys() == keys);
        CHECK(cache.nextPositions() == next);
    }
}

namespace {

// The floats a storage holds for x (rows of 32-multiple width for q8), by the public conversions (held to
// IEEE 754 and to ggml's Q8_0 in test_kernels.cpp): the reference below runs on what the cache stores.
std::vector<float> storedAs(KVStorage s, const std::vector<float>& x) {
    std::vector<float> y(x);
    if (s == KVStorage::q8) {
        for (std::size_t i = 0; i < x.size(); i += 32) {
            unsigned char block[34];
            quantizeQ8_0(x.data() + i, block);
            dequantizeQ8_0(block, y.data() + i);
        }
    } else if (s != KVStorage::f32) {
        for (std::size_t i = 0; i < x.size(); ++i) y[i] = s == KVStorage::f16 ? f16ToFloat(floatToF16(x[i])) : bf16ToFloat(floatToBf16(x[i]));
    }
    return y;
}

struct WindowCase {
    int heads, kvHeads, hd, T, window, sinks, chunk;
    std::vector<float> q, k, v;  // q [heads, T, hd]; k, v [kvHeads, T, hd]
    WindowCase(int heads_, int kvHeads_, int hd_, int T_, int window_, int sinks_, int chunk_, unsigned seed)
        : heads(heads_), kvHeads(kvHeads_), hd(hd_), T(T_), window(window_), sinks(sinks_), chunk(chunk_) {
        q = ref::randomVector(static_cast<std::size_t>(heads) * T * hd, seed, -1.5f, 1.5f);
        k = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, seed + 1, -1.5f, 1.5f);
        v = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * hd, seed + 2);
    }
    // the windowed cache the case runs through: sinks + window slots
    KVCacheConfig cacheConfig(KVStorage storage = KVStorage::f32, int batch = 1) const {
        KVCacheConfig c;
        c.batch = batch;
        c.kvHeads = kvHeads;
        c.headDim = hd;
        c.capacity = sinks + window;
        c.window = window;
        c.sinks = sinks;
        c.chunk = chunk;
        c.storage = storage;
        return c;
    }
    // rows [t0, t0 + n) of x, [rowsPerHead, T, hd] per head
    std::vector<float> slice(const std::vector<float>& x, int headsOf, int t0, int n) const {
        std::vector<float> out;
        for (int h = 0; h < headsOf; ++h)
            out.insert(out.end(), x.begin() + (static_cast<std::size_t>(h) * T + t0) * hd, x.begin() + (static_cast<std::size_t>(h) * T + t0 + n) * hd);
        return out;
    }
    // Stick-breaking attention of token i's query (position i) over the keys a cache of `window` with
    // `sinks` (and `chunk`) holds for it — tokens j < sinks and i - window < j, j < i (j <= i with
    // attendCurrent), in one chunk with i — in token order, in long double, as fla's naive.py
    // (fla/ops/stickbreaking_attn/naive.py, naive_stickbreaking_attn: log A_ij = logsigmoid(z_ij) plus
    // logsigmoid(−z_il) summed over the kept keys l after j; o = Σ_j A_ij v_j), ks / vs the stored floats.
    std::vector<ld> reference(const std::vector<float>& ks, const std::vector<float>& vs, int i, bool current) const {
        std::vector<ld> out(static_cast<std::size_t>(heads) * hd, 0);
        const ld scale = 1 / std::sqrt(ld(hd));
        std::vector<int> kept;
        for (int j = 0; j <= i; ++j)
            if ((j < i || current) && (j < sinks || i - j < window) && (chunk == 0 || j / chunk == i / chunk)) kept.push_back(j);
        for (int h = 0; h < heads; ++h) {
            const int kvh = h / (heads / kvHeads);
            ld after = 0;  // Σ logsigmoid(−z) over the kept keys after j
            for (std::size_t x = kept.size(); x-- > 0;) {
                const int j = kept[x];
                ld z = 0;
                for (int c = 0; c < hd; ++c) z += ld(q[(static_cast<std::size_t>(h) * T + i) * hd + c]) * ks[(static_cast<std::size_t>(kvh) * T + j) * hd + c];
                z *= scale;
                const ld w = std::exp(logSigmoidLd(z) + after);
                for (int c = 0; c < hd; ++c) out[static_cast<std::size_t>(h) * hd + c] += w * vs[(static_cast<std::size_t>(kvh) * T + j) * hd + c];
                after += logSigmoidLd(-z);
            }
        }
        return out;
    }
};

ld maxDiffLd(const std::vector<float>& got, const std::vector<ld>& want) {
    ld m = 0;
    for (std::size_t i = 0; i < got.size(); ++i) m = std::max(m, std::fabs(ld(got[i]) - want[i]));
    return m;
}

struct KeepThreads {
    int n = threadCount();
    ~KeepThreads() { setThreadCount(n); }
};

// attend at 1 and 3 threads (bit-identical), returns the result
std::vector<float> attendBoth(KVCache& cache, const std::vector<float>& q, int heads, int n, const Encoding& e) {
    std::vector<float> one(q.size()), three(q.size());
    setThreadCount(1);
    cache.attend(q, heads, n, e, {}, true, one.data());
    setThreadCount(3);
    cache.attend(q, heads, n, e, {}, true, three.data());
    CHECK(std::memcmp(one.data(), three.data(), one.size() * sizeof(float)) == 0);
    return one;
}

}  // namespace

// A cache with a sliding window keeps the sinks and the last `window` tokens in a ring whose slots are not
// in token order once it wraps, and keys a long append pushes out are held past capacity: the stick
// breaks over exactly the kept keys in the order they were appended, whatever the slots.
TEST_CASE("stickBreaking over a windowed KV cache: the kept keys (sinks + the last window) in append order; every storage, one call, chunks, tokens; 1 and 3 threads") {
    const KeepThreads keep;
    struct Shape {
        int window, sinks, chunk;
    };
    // window 21 over 90 tokens: the ring wraps four times, at slots that are not block boundaries; sinks
    // 0 and 3; Llama 4's chunked layer (window = chunk, no sinks)
    for (const Shape shape : {Shape{21, 0, 0}, Shape{21, 3, 0}, Shape{21, 0, 21}}) {
        CAPTURE(shape.window);
        CAPTURE(shape.sinks);
        CAPTURE(shape.chunk);
        const WindowCase w(6, 2, 32, 90, shape.window, shape.sinks, shape.chunk, 81);
        for (KVStorage s : {KVStorage::f32, KVStorage::f16, KVStorage::bf16, KVStorage::q8}) {
            CAPTURE(std::string(storageName(s)));
            const std::vector<float> ks = storedAs(s, w.k), vs = storedAs(s, w.v);
            for (bool current : {false, true}) {
                CAPTURE(current);
                const StickBreakingEncoding e{current};
                for (int step : {w.T, 16, 1}) {
                    CAPTURE(step);
                    KVCache cache(w.cacheConfig(s));
                    ld worst = 0;
                    for (int t0 = 0; t0 < w.T; t0 += step) {
                        const int n = std::min(step, w.T - t0);
                        cache.append(w.slice(w.k, w.kvHeads, t0, n), w.slice(w.v, w.kvHeads, t0, n), n);
                        const std::vector<float> got = attendBoth(cache, w.slice(w.q, w.heads, t0, n), w.heads, n, e);
                        for (int t = 0; t < n; ++t) {
                            const std::vector<ld> want = w.reference(ks, vs, t0 + t, current);
                            std::vector<float> row;
                            for (int h = 0; h < w.heads; ++h)
                                row.insert(row.end(), got.begin() + (static_cast<std::size_t>(h) * n + t) * w.hd, got.begin() + (static_cast<std::size_t>(h) * n + t + 1) * w.hd);
                            worst = std::max(worst, maxDiffLd(row, want));
                        }
                    }
                    CHECK(worst < 2e-5L);
                }
            }
        }
    }
}

// Past 2048 kept keys a decode step is split into fixed chunks of keys merged in order (engine.cpp); the
// ring's order then crosses chunks too. Window 2100 with 2 sinks after 2200 tokens: the ring's oldest
// slot is then near slot 100 (mid-block: that block is walked in two steps).
TEST_CASE("stickBreaking over a windowed KV cache: decode steps over 2100 kept keys (the decode split), f32 and q8, 1 and 3 threads") {
    const KeepThreads keep;
    WindowCase w(4, 2, 32, 2205, 2100, 2, 0, 91);
    // logits near −8 (σ ≈ 3e-4): the stick lasts over all 2100 keys (about half of it is left at the
    // oldest), so every key's place in the order matters — the sinks' and the ring's oldest too
    for (std::size_t r = 0; r < w.k.size() / 32; ++r) w.k[r * 32] = 1.0f;
    for (std::size_t r = 0; r < w.q.size() / 32; ++r) w.q[r * 32] = -8.0f * std::sqrt(32.0f);
    for (KVStorage s : {KVStorage::f32, KVStorage::q8}) {
        CAPTURE(std::string(storageName(s)));
        const std::vector<float> ks = storedAs(s, w.k), vs = storedAs(s, w.v);
        KVCache cache(w.cacheConfig(s));
        const int prefill = 2195;
        cache.append(w.slice(w.k, w.kvHeads, 0, prefill), w.slice(w.v, w.kvHeads, 0, prefill), prefill);
        ld worst = 0;
        for (int t = prefill - 1; t < w.T; ++t) {
            if (t >= prefill) cache.append(w.slice(w.k, w.kvHeads, t, 1), w.slice(w.v, w.kvHeads, t, 1), 1);
            const std::vector<float> got = attendBoth(cache, w.slice(w.q, w.heads, t, 1), w.heads, 1, StickBreakingEncoding{});
            worst = std::max(worst, maxDiffLd(got, w.reference(ks, vs, t, false)));
        }
        CHECK(worst < 2e-5L);
    }
}

// Two batch rows whose rings wrap at different steps (the second row's padding takes no slot): each row's
// stick breaks over its own kept keys in its own order (the spans are per row).
TEST_CASE("stickBreaking over a windowed KV cache: two batch rows with their own rings (padding in one), token by token") {
    const int heads = 2, kvHeads = 1, hd = 8, T = 40, window = 6, sinks = 1;
    const WindowCase w(heads, kvHeads, hd, T, window, sinks, 0, 97);
    KVCache cache(w.cacheConfig(KVStorage::f32, 2));
    std::vector<int> real[2];  // each row's real tokens, in order (their positions are their indices here)
    ld worst = 0;
    for (int t = 0; t < T; ++t) {
        const bool pad = t % 5 == 2 || t % 7 == 3;  // the second row's padding
        std::vector<float> k, v, q;
        for (int b = 0; b < 2; ++b) {
            const auto kt = w.slice(w.k, kvHeads, t, 1), vt = w.slice(w.v, kvHeads, t, 1), qt = w.slice(w.q, heads, t, 1);
            k.insert(k.end(), kt.begin(), kt.end());
            v.insert(v.end(), vt.begin(), vt.end());
            q.insert(q.end(), qt.begin(), qt.end());
        }
        const std::vector<std::uint8_t> mask = {1, static_cast<std::uint8_t>(pad ? 0 : 1)};
        cache.append(k, v, 1, {}, mask);
        real[0].push_back(t);
        if (!pad) real[1].push_back(t);
        std::vector<float> out(2 * heads * hd);
        cache.attend(q, heads, 1, StickBreakingEncoding{}, {}, true, out.data());
        for (int b = 0; b < 2; ++b) {
            // the query (token t's q) at the row's last position i; its kept keys j < i: sinks or i - j < window
            const std::vector<int>& r = real[b];
            const int i = static_cast<int>(r.size()) - 1;
            for (int h = 0; h < heads; ++h) {
                ld after = 0;
                std::vector<ld> want(hd, 0);
                for (int j = i - 1; j >= 0; --j) {
                    if (!(j < sinks || i - j < window)) continue;
                    ld z = 0;
                    for (int c = 0; c < hd; ++c) z += ld(w.q[(static_cast<std::size_t>(h) * T + t) * hd + c]) * w.k[static_cast<std::size_t>(r[j]) * hd + c];
                    z /= std::sqrt(ld(hd));
                    const ld a = std::exp(logSigmoidLd(z) + after);
                    for (int c = 0; c < hd; ++c) want[c] += a * w.v[static_cast<std::size_t>(r[j]) * hd + c];
                    after += logSigmoidLd(-z);
                }
                for (int c = 0; c < hd; ++c)
                    worst = std::max(worst, std::fabs(ld(out[(static_cast<std::size_t>(b) * heads + h) * hd + c]) - want[c]));
            }
        }
    }
    CHECK(worst < 2e-6L);
}

// Forgetting attention's decay under stick-breaking in a windowed cache with sinks: the logits are
// scale·q·k + (G_i − G_j), G_t = Σ_{l <= t} log f_l over every token (kept or not: FoX's D_ij = Σ_{l=j+1..i}
// log f_l, Lin et al. 2025), then the stick breaks over the kept keys in token order (fla's naive.py).
// No softmax cancels G_i here, so a query's anchor must be its own token's G whatever the window hides.
TEST_CASE("stickBreaking + forgetting over a windowed KV cache with sinks: FoX's decay over every token between, the kept keys in order") {
    const int heads = 4, kvHeads = 2, hd = 8, T = 50, window = 9, sinks = 2;
    const WindowCase w(heads, kvHeads, hd, T, window, sinks, 0, 99);
    const auto gates = ref::randomVector(static_cast<std::size_t>(heads) * T, 100, -0.6f, 0.0f);  // [heads, T] log f
    const Encoding e = CombinedEncoding{{ForgettingEncoding{}, StickBreakingEncoding{}}};
    for (int step : {1, 7, T}) {
        CAPTURE(step);
        KVCacheConfig config = w.cacheConfig();
        config.forgetting = true;
        KVCache cache(config);
        ld worst = 0;
        for (int t0 = 0; t0 < T; t0 += step) {
            const int n = std::min(step, T - t0);
            std::vector<float> g;
            for (int h = 0; h < heads; ++h) g.insert(g.end(), gates.begin() + h * T + t0, gates.begin() + h * T + t0 + n);
            cache.append(w.slice(w.k, kvHeads, t0, n), w.slice(w.v, kvHeads, t0, n), n, {}, {}, {}, g);
            std::vector<float> out(static_cast<std::size_t>(heads) * n * hd);
            cache.attend(w.slice(w.q, heads, t0, n), heads, n, e, {}, true, out.data());
            for (int t = 0; t < n; ++t) {
                const int i = t0 + t;
                for (int h = 0; h < heads; ++h) {
                    const int kvh = h / (heads / kvHeads);
                    std::vector<ld> G(static_cast<std::size_t>(i) + 1);
                    for (int l = 0; l <= i; ++l) G[l] = (l ? G[l - 1] : 0) + ld(gates[static_cast<std::size_t>(h) * T + l]);
                    ld after = 0;
                    std::vector<ld> want(hd, 0);
                    for (int j = i - 1; j >= 0; --j) {
                        if (!(j < sinks || i - j < window)) continue;
                        ld z = 0;
                        for (int c = 0; c < hd; ++c) z += ld(w.q[(static_cast<std::size_t>(h) * T + i) * hd + c]) * w.k[(static_cast<std::size_t>(kvh) * T + j) * hd + c];
                        z = z / std::sqrt(ld(hd)) + (G[i] - G[j]);
                        const ld a = std::exp(logSigmoidLd(z) + after);
                        for (int c = 0; c < hd; ++c) want[c] += a * w.v[(static_cast<std::size_t>(kvh) * T + j) * hd + c];
                        after += logSigmoidLd(-z);
                    }
                    for (int c = 0; c < hd; ++c) worst = std::max(worst, std::fabs(ld(out[(static_cast<std::size_t>(h) * n + t) * hd + c]) - want[c]));
                }
            }
        }
        CHECK(worst < 2e-6L);
    }
}
