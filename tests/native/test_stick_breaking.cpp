// Stick-breaking attention (Tan et al. 2024; encoding kind 'stickBreaking'), against the reference's
// formula in long double (naive_attention.hpp, NaiveTerms::stickBreaking, written from
// flash-linear-attention fla/ops/stickbreaking_attn/naive.py, naive_stickbreaking_attn) and a hand-worked
// case; the awkward shapes; the KV cache (one call, chunks, token by token); the call's errors.
// Every path and kernel set at 1 and 3 threads: test_parity_grid.cpp.
#include <doctest/doctest.h>

#include <cmath>
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

TEST_CASE("stickBreaking: a non-causal call, sinkLogits, a cache window and two parts are errors naming them; the cache is unchanged") {
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
        if (window > 0) CHECK(throwsNaming([&] { cache.attend(p.q, 2, 3, StickBreakingEncoding{}, {}, true, out.data()); }, "window"));
        CHECK(throwsNaming([&] { cache.attend(p.q, 2, 3, StickBreakingEncoding{}, {}, false, out.data()); }, "causal"));
        CHECK(throwsNaming([&] { cache.attend(p.q, 2, 3, StickBreakingEncoding{}, {}, true, out.data(), std::nan(""), {}, sinks); }, "sinkLogits"));
        CHECK(out == before);
        CHECK(cache.positions() == positions);
        CHECK(cache.keys() == keys);
        CHECK(cache.nextPositions() == next);
    }
}
