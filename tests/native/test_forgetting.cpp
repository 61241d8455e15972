// Forgetting attention (FoX, Lin et al. 2025): the bias G_i - G_j from cumulative log forget gates,
// against a long-double reference written from the definition (fla-org/flash-linear-attention
// fla/ops/forgetting_attn/naive.py:45 `gc = g.float().cumsum(1)` and :51 `ref + gc[query] - gc[key]`;
// zhixuan-lin/forgetting-transformer src/forgetting_transformer/ops/forgetting_attention.py: query m
// reads the cumulative sum of key P_SEQ + m, its own token, and masked (seq_start) gates are zeroed),
// on awkward shapes, and through the KV cache (one call, chunks, token by token, sliding window, shift and
// renumber, |G| near 1e6). Every path at 1 and 3 threads and every kernel set: test_parity_grid.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include <posenc/posenc.hpp>
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {

// The reference bias: G over the key mask's keys (a dropped key's gate counts 0), a query's G that of
// the last admitted key (in key order) at or before its position.
NaiveTerms forgetTerms(const Problem& p, const std::vector<float>& gates) {
    auto cum = std::make_shared<std::vector<ld>>();
    for (int h = 0; h < p.heads; ++h) {
        ld g = 0;
        for (int j = 0; j < p.kLen; ++j) {
            if (p.keyMask.empty() || p.keyMask[j]) g += ld(gates[static_cast<std::size_t>(h) * p.kLen + j]);
            cum->push_back(g);
        }
    }
    NaiveTerms t;
    t.bias = [&p, cum](int h, int i, int j) {
        int own = -1;
        for (int u = 0; u < p.kLen; ++u)
            if ((p.keyMask.empty() || p.keyMask[u]) && p.kPos[u] <= p.qPos[i]) own = u;
        REQUIRE(own >= 0);
        const ld* G = cum->data() + static_cast<std::size_t>(h) * p.kLen;
        return G[own] - G[j];
    };
    return t;
}

ld rsqrt(int d) { return 1 / std::sqrt(ld(d)); }

}  // namespace

TEST_CASE("forgetting: a hand-worked 3-token case") {
    // One head, headDim 1, q = k = 0 (no content), values 1, 2, 4; log gates -0.5, -1, -0.25:
    // G = -0.5, -1.5, -1.75. Query 2 (own token 2): biases G2 - G0 = -1.25, G2 - G1 = -0.25, 0;
    // weights e^-1.25 : e^-0.25 : 1 = 0.2865048 : 0.7788008 : 1, sum 2.0653056, so
    // out = (0.2865048 + 2 * 0.7788008 + 4) / 2.0653056 = 5.8441064 / 2.0653056 = 2.8296567.
    // Query 1 (own token 1): biases -1, 0 (key 2 masked): out = (e^-1 + 2) / (e^-1 + 1) = 2.3678794 / 1.3678794 = 1.7310586.
    AttentionRequest r;
    r.dims = AttentionDims{1, 1, 1, 2, 3};
    const std::vector<float> q{0, 0}, k{0, 0, 0}, v{1, 2, 4}, g{-0.5f, -1.0f, -0.25f};
    r.q = q, r.k = k, r.v = v;
    r.causal = true;
    r.encoding = ForgettingEncoding{View<float>(g)};
    const auto out = attention(r, true, true);
    CHECK(out.out[0] == doctest::Approx(1.7310586).epsilon(1e-6));
    CHECK(out.out[1] == doctest::Approx(2.8296567).epsilon(1e-6));
    CHECK(out.scores[3] == doctest::Approx(-1.25).epsilon(1e-7));  // query 2's logits are the biases
    CHECK(out.scores[4] == doctest::Approx(-0.25).epsilon(1e-7));
    CHECK(out.scores[5] == 0.0f);
}

TEST_CASE("forgetting: the long-double reference on awkward shapes (odd heads, GQA, qLen != kLen, positions from 2^24, padding, windows, unordered keys)") {
    constexpr std::int32_t base = (1 << 24) + 5;
    SUBCASE("5 heads, headDim 7, 3 queries over 11 keys at 2^24 +") {
        Problem p(5, 5, 7, 3, 11, 41);
        p.causal = true;
        for (int j = 0; j < p.kLen; ++j) p.kPos[j] = base + j;
        for (int i = 0; i < p.qLen; ++i) p.qPos[i] = base + p.kLen - p.qLen + i;
        const auto g = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 42, -0.6f, 0.0f);
        checkAgainstNaive(p, ForgettingEncoding{View<float>(g)}, forgetTerms(p, g), rsqrt(p.headDim));
    }
    SUBCASE("6 heads over 3 kv heads, 4 queries over 13 keys, left padding and a dropped key inside the window, window 5") {
        Problem p(6, 3, 8, 4, 13, 43);
        p.causal = true;
        p.window = 5;
        p.keyMask.assign(p.kLen, 1);
        p.keyMask[0] = p.keyMask[1] = p.keyMask[10] = 0;  // key 10's gate counts 0 (the reference's seq_start zeroes masked gates)
        for (int j = 0; j < p.kLen; ++j) p.kPos[j] = base + j;
        for (int i = 0; i < p.qLen; ++i) p.qPos[i] = base + p.kLen - p.qLen + i;
        const auto g = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 44, -0.6f, 0.0f);
        checkAgainstNaive(p, ForgettingEncoding{View<float>(g)}, forgetTerms(p, g), rsqrt(p.headDim));
    }
    SUBCASE("keys not in position order, queries between them; combined with ALiBi") {
        Problem p(3, 1, 5, 4, 9, 45);
        p.causal = true;
        p.kPos = {40, 10, 30, 20, 70, 50, 60, 80, 90};
        p.qPos = {25, 55, 75, 95};
        const auto g = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 46, -0.6f, 0.0f);
        checkAgainstNaive(p, ForgettingEncoding{View<float>(g)}, forgetTerms(p, g), rsqrt(p.headDim));
        NaiveTerms both = forgetTerms(p, g);
        const auto slopes = alibiSlopes(p.heads);
        const auto fox = both.bias;
        both.bias = [&p, fox, slopes](int h, int i, int j) { return fox(h, i, j) - ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
        checkAgainstNaive(p, CombinedEncoding{{ForgettingEncoding{View<float>(g)}, AlibiEncoding{p.heads, {}, false}}}, both, rsqrt(p.headDim));
    }
    SUBCASE("strong gates: the decay reaches -200 within the call") {
        Problem p(2, 2, 4, 6, 40, 47);
        p.causal = true;
        const auto g = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 48, -10.0f, 0.0f);
        checkAgainstNaive(p, ForgettingEncoding{View<float>(g)}, forgetTerms(p, g), rsqrt(p.headDim));
    }
}

TEST_CASE("forgetting: with RoPE, the gates add to RoPE's logits (an encoding array)") {
    Problem p(4, 2, 8, 5, 12, 49);
    p.causal = true;
    const auto g = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 50, -0.6f, 0.0f);
    RopeEncoding rope;
    rope.config.base = 100;
    const auto plain = attention(p.request(rope), false, true);
    const auto both = attention(p.request(CombinedEncoding{{rope, ForgettingEncoding{View<float>(g)}}}), false, true);
    const NaiveTerms t = forgetTerms(p, g);
    double worst = 0;
    for (int h = 0; h < p.heads; ++h)
        for (int i = 0; i < p.qLen; ++i)
            for (int j = 0; j < p.kLen; ++j) {
                if (!p.allowed(i, j)) continue;
                const std::size_t at = (static_cast<std::size_t>(h) * p.qLen + i) * p.kLen + j;
                worst = std::max(worst, std::fabs(double(both.scores[at]) - double(plain.scores[at]) - double(t.bias(h, i, j))));
            }
    CHECK(worst < 2e-6);
}

TEST_CASE("forgetting: errors name the field") {
    Problem p(2, 2, 4, 2, 3, 51);
    p.causal = true;
    std::vector<float> g(6, -0.1f);
    CHECK_THROWS_WITH_AS(attention(p.request(ForgettingEncoding{})), doctest::Contains("encoding.logForget is required"), std::invalid_argument);
    std::vector<float> shortG(5, -0.1f);
    CHECK_THROWS_WITH_AS(attention(p.request(ForgettingEncoding{View<float>(shortG)})), doctest::Contains("encoding.logForget must be [heads, kLen] = 6"),
                         std::invalid_argument);
    g[4] = 0.5f;
    CHECK_THROWS_WITH_AS(attention(p.request(ForgettingEncoding{View<float>(g)})), doctest::Contains("encoding.logForget[4] must be a log forget gate"),
                         std::invalid_argument);
    g[4] = std::nanf("");
    CHECK_THROWS_WITH_AS(attention(p.request(ForgettingEncoding{View<float>(g)})), doctest::Contains("encoding.logForget[4]"), std::invalid_argument);
    g[4] = -0.1f;
    p.causal = false;
    CHECK_THROWS_WITH_AS(attention(p.request(ForgettingEncoding{View<float>(g)})), doctest::Contains("causal must be true"), std::invalid_argument);
    p.causal = true;
    CHECK_THROWS_WITH_AS(attention(p.request(CombinedEncoding{{ForgettingEncoding{View<float>(g)}, ForgettingEncoding{View<float>(g)}}})),
                         doctest::Contains("two 'forgetting' parts"), std::invalid_argument);
}

namespace {

// Tokens [t0, t1) of a problem's keys, values ([kvHeads, T, d]) and gates ([heads, T]).
struct Slice {
    std::vector<float> k, v, g;
    std::vector<std::int32_t> pos;
};
Slice slice(const Problem& p, const std::vector<float>& gates, int t0, int t1) {
    Slice s;
    for (int h = 0; h < p.kvHeads; ++h)
        for (int j = t0; j < t1; ++j) {
            s.k.insert(s.k.end(), p.kv(h * (p.heads / p.kvHeads), j), p.kv(h * (p.heads / p.kvHeads), j) + p.headDim);
            s.v.insert(s.v.end(), p.vv(h * (p.heads / p.kvHeads), j), p.vv(h * (p.heads / p.kvHeads), j) + p.vd());
        }
    for (int h = 0; h < p.heads; ++h) s.g.insert(s.g.end(), gates.begin() + h * p.kLen + t0, gates.begin() + h * p.kLen + t1);
    s.pos.assign(p.kPos.begin() + t0, p.kPos.begin() + t1);
    return s;
}

// Queries [i0, i1) of a problem whose queries are one per key (qLen = kLen).
std::vector<float> queries(const Problem& p, int i0, int i1) {
    std::vector<float> q;
    for (int h = 0; h < p.heads; ++h) q.insert(q.end(), p.qv(h, i0), p.qv(h, i0) + static_cast<std::size_t>(i1 - i0) * p.headDim);
    return q;
}

// The reference for queries [i0, i1): long double over the whole sequence (their rows of it).
std::vector<ld> wantRows(const Problem& p, const std::vector<float>& gates, int i0, int i1) {
    const Naive n = naive(p, forgetTerms(p, gates), rsqrt(p.headDim));
    std::vector<ld> out;
    for (int h = 0; h < p.heads; ++h)
        out.insert(out.end(), n.out.begin() + (static_cast<std::size_t>(h) * p.qLen + i0) * p.vd(), n.out.begin() + (static_cast<std::size_t>(h) * p.qLen + i1) * p.vd());
    return out;
}

Problem sequence(int heads, int kvHeads, int hd, int T, unsigned seed, std::int32_t first) {
    Problem p(heads, kvHeads, hd, T, T, seed);
    p.causal = true;
    for (int j = 0; j < T; ++j) p.kPos[j] = p.qPos[j] = first + j;
    return p;
}

std::vector<float> attendRows(KVCache& cache, const Problem& p, int i0, int i1) {
    std::vector<float> out(static_cast<std::size_t>(p.heads) * (i1 - i0) * p.vd());
    const std::vector<std::int32_t> qp(p.qPos.begin() + i0, p.qPos.begin() + i1);
    cache.attend(queries(p, i0, i1), p.heads, i1 - i0, ForgettingEncoding{}, qp, true, out.data());
    return out;
}

}  // namespace

TEST_CASE("forgetting KV cache: prefill in one call, in chunks and token by token equal the reference") {
    const Problem p = sequence(4, 2, 8, 23, 61, (1 << 24) + 1);
    const auto gates = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 62, -0.8f, 0.0f);
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.capacity = p.kLen;
    config.forgetting = true;
    SUBCASE("one call") {
        KVCache cache(config);
        const Slice s = slice(p, gates, 0, p.kLen);
        cache.append(s.k, s.v, p.kLen, s.pos, {}, {}, s.g);
        CHECK(maxDiff(attendRows(cache, p, 0, p.kLen), wantRows(p, gates, 0, p.kLen)) < 2e-5);
    }
    SUBCASE("chunks of 5, 1, 9, 8, each chunk's queries attending") {
        KVCache cache(config);
        int t0 = 0;
        for (int n : {5, 1, 9, 8}) {
            const Slice s = slice(p, gates, t0, t0 + n);
            cache.append(s.k, s.v, n, s.pos, {}, {}, s.g);
            CHECK(maxDiff(attendRows(cache, p, t0, t0 + n), wantRows(p, gates, t0, t0 + n)) < 2e-5);
            t0 += n;
        }
    }
    SUBCASE("token by token") {
        KVCache cache(config);
        for (int t = 0; t < p.kLen; ++t) {
            const Slice s = slice(p, gates, t, t + 1);
            cache.append(s.k, s.v, 1, s.pos, {}, {}, s.g);
            CHECK(maxDiff(attendRows(cache, p, t, t + 1), wantRows(p, gates, t, t + 1)) < 2e-5);
        }
        // the stored sums are the gates' running sums (double), per query head and slot
        const auto G = cache.forgetCumulative();
        for (int h = 0; h < p.heads; ++h) {
            ld g = 0;
            for (int t = 0; t < p.kLen; ++t) {
                g += ld(gates[static_cast<std::size_t>(h) * p.kLen + t]);
                CHECK(std::fabs(double(G[static_cast<std::size_t>(h) * p.kLen + t] - g)) < 1e-12);
            }
        }
    }
}

TEST_CASE("forgetting KV cache: a sliding window evicts keys and keeps the bias (the gates between key and query only)") {
    const Problem p = sequence(2, 1, 4, 40, 63, 100);
    const auto gates = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 64, -0.2f, 0.0f);
    Problem windowed = p;
    windowed.window = 7;
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.capacity = 7;
    config.window = 7;
    config.forgetting = true;
    SUBCASE("token by token past the window") {
        KVCache cache(config);
        for (int t = 0; t < p.kLen; ++t) {
            const Slice s = slice(p, gates, t, t + 1);
            cache.append(s.k, s.v, 1, s.pos, {}, {}, s.g);
            CHECK(maxDiff(attendRows(cache, windowed, t, t + 1), wantRows(windowed, gates, t, t + 1)) < 2e-5);
        }
    }
    SUBCASE("appends of 12 tokens, longer than the window (held keys)") {
        KVCache cache(config);
        for (int t0 = 0; t0 < p.kLen; t0 += 12) {
            const int t1 = std::min(p.kLen, t0 + 12);
            const Slice s = slice(p, gates, t0, t1);
            cache.append(s.k, s.v, t1 - t0, s.pos, {}, {}, s.g);
            CHECK(maxDiff(attendRows(cache, windowed, t0, t1), wantRows(windowed, gates, t0, t1)) < 2e-5);
        }
    }
}

TEST_CASE("forgetting KV cache: shift and renumber move positions, not the bias") {
    const Problem p = sequence(2, 2, 4, 9, 65, 10);
    const auto gates = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 66, -0.5f, 0.0f);
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.capacity = 12;
    config.forgetting = true;
    KVCache cache(config);
    const Slice s = slice(p, gates, 0, p.kLen);
    cache.append(s.k, s.v, p.kLen, s.pos, {}, {}, s.g);
    const auto want = wantRows(p, gates, 6, 9);
    CHECK(maxDiff(attendRows(cache, p, 6, 9), want) < 2e-5);
    cache.shift(1000);
    Problem moved = p;
    for (auto& x : moved.qPos) x += 1000;
    CHECK(maxDiff(attendRows(cache, moved, 6, 9), want) < 2e-5);
    // renumber to positions 2 apart: the same order, so the same keys are visible to the same queries
    std::vector<std::int32_t> np(12, -1);
    for (int t = 0; t < p.kLen; ++t) np[t] = 5000 + 2 * t;
    cache.renumber(np);
    for (int t = 0; t < p.kLen; ++t) moved.qPos[t] = 5000 + 2 * t;
    CHECK(maxDiff(attendRows(cache, moved, 6, 9), want) < 2e-5);
}

TEST_CASE("forgetting KV cache: cumulative sums near -1e6 keep differences of 1e-3 (double storage)") {
    // A first token with log f = -1e6 puts every later G near -1e6, where float32 is 0.0625 apart: the
    // later gates (about -1e-3 .. -0.2) would vanish from a float32 G_i - G_j. The bias between two later
    // tokens must not see the first one at all.
    const Problem p = sequence(2, 1, 4, 30, 67, 0);
    auto gates = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 68, -0.2f, -1e-3f);
    for (int h = 0; h < p.heads; ++h) gates[static_cast<std::size_t>(h) * p.kLen] = -1e6f;
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.capacity = p.kLen;
    config.forgetting = true;
    KVCache cache(config);
    for (int t = 0; t < p.kLen; ++t) {
        const Slice s = slice(p, gates, t, t + 1);
        cache.append(s.k, s.v, 1, s.pos, {}, {}, s.g);
    }
    CHECK(cache.forgetCumulative()[5] < -999999.0);
    CHECK(maxDiff(attendRows(cache, p, 20, 30), wantRows(p, gates, 20, 30)) < 2e-5);
}

TEST_CASE("forgetting KV cache: a wrong append or attend is an error naming the field, and changes nothing") {
    const Problem p = sequence(4, 2, 4, 6, 69, 0);
    const auto gates = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 70, -0.5f, 0.0f);
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.capacity = 8;
    config.forgetting = true;
    KVCache cache(config);
    const Slice a = slice(p, gates, 0, 4), b = slice(p, gates, 4, 6);
    CHECK_THROWS_WITH_AS(attendRows(cache, p, 0, 1), doctest::Contains("no tokens yet"), std::invalid_argument);
    cache.append(a.k, a.v, 4, a.pos, {}, {}, a.g);
    const auto before = attendRows(cache, p, 2, 4);
    const auto G = cache.forgetCumulative();
    const auto pos = cache.positions();
    CHECK_THROWS_WITH_AS(cache.append(b.k, b.v, 2, b.pos), doctest::Contains("logForget is required"), std::invalid_argument);
    std::vector<float> wrong(b.g.begin(), b.g.begin() + 4);  // 2 heads' worth: not the 4 the first append gave
    CHECK_THROWS_WITH_AS(cache.append(b.k, b.v, 2, b.pos, {}, {}, wrong), doctest::Contains("logForget must be [batch, heads, T] = 8"), std::invalid_argument);
    std::vector<float> odd(b.g.begin(), b.g.begin() + 6);  // 3 heads: not a multiple of kvHeads
    CHECK_THROWS_WITH_AS(cache.append(b.k, b.v, 2, b.pos, {}, {}, odd), doctest::Contains("heads a multiple of kvHeads"), std::invalid_argument);
    std::vector<float> positive = b.g;
    positive[3] = 1e-3f;
    CHECK_THROWS_WITH_AS(cache.append(b.k, b.v, 2, b.pos, {}, {}, positive), doctest::Contains("logForget[3] must be a log forget gate"), std::invalid_argument);
    std::vector<float> out(static_cast<std::size_t>(p.heads) * p.headDim);
    CHECK_THROWS_WITH_AS(cache.attend(queries(p, 3, 4), p.heads, 1, ForgettingEncoding{View<float>(a.g)}, {}, true, out.data()),
                         doctest::Contains("encoding.logForget is not given to attend"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(cache.attend(queries(p, 3, 4), p.heads, 1, ForgettingEncoding{}, {}, false, out.data()), doctest::Contains("causal must be true"),
                         std::invalid_argument);
    std::vector<float> q2(2 * p.headDim);
    CHECK_THROWS_WITH_AS(cache.attend(q2, 2, 1, ForgettingEncoding{}, {}, true, out.data()), doctest::Contains("heads (2) must equal the heads of the appended forget gates (4)"),
                         std::invalid_argument);
    CHECK(cache.forgetCumulative() == G);
    CHECK(cache.positions() == pos);
    CHECK(attendRows(cache, p, 2, 4) == before);

    config.forgetting = false;
    KVCache plain(config);
    CHECK_THROWS_WITH_AS(plain.append(a.k, a.v, 4, a.pos, {}, {}, a.g), doctest::Contains("logForget is given to a cache created without forgetting"),
                         std::invalid_argument);
    CHECK(plain.positions() == std::vector<std::int32_t>(8, -1));
    plain.append(a.k, a.v, 4, a.pos);
    CHECK_THROWS_WITH_AS(attendRows(plain, p, 2, 4), doctest::Contains("'forgetting' needs a cache created with forgetting: true"), std::invalid_argument);
}

TEST_CASE("forgetting KV cache: padding adds no gate; each batch row keeps its own sum") {
    const Problem p = sequence(2, 1, 4, 8, 71, 0);
    Problem padded = p;  // row 1: tokens 2 and 5 are padding (no slot; their gates, -5 here, count 0)
    padded.keyMask = {1, 1, 0, 1, 1, 0, 1, 1};
    auto gates = ref::randomVector(static_cast<std::size_t>(p.heads) * p.kLen, 72, -0.5f, 0.0f);
    KVCacheConfig config;
    config.batch = 2;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.capacity = p.kLen;
    config.forgetting = true;
    KVCache cache(config);
    const Slice s = slice(p, gates, 0, p.kLen);
    std::vector<float> k = s.k, v = s.v, g = s.g;
    k.insert(k.end(), s.k.begin(), s.k.end());
    v.insert(v.end(), s.v.begin(), s.v.end());
    std::vector<float> g1 = s.g;
    for (int h = 0; h < p.heads; ++h) g1[static_cast<std::size_t>(h) * p.kLen + 2] = g1[static_cast<std::size_t>(h) * p.kLen + 5] = -5.0f;
    g.insert(g.end(), g1.begin(), g1.end());
    std::vector<std::int32_t> pos = s.pos;
    pos.insert(pos.end(), s.pos.begin(), s.pos.end());
    std::vector<std::uint8_t> mask(8, 1);
    mask.insert(mask.end(), padded.keyMask.begin(), padded.keyMask.end());
    cache.append(k, v, p.kLen, pos, mask, {}, g);
    const std::vector<float> q0 = queries(p, 0, p.kLen);
    std::vector<float> q = q0;
    q.insert(q.end(), q0.begin(), q0.end());
    std::vector<std::int32_t> qp = p.qPos;
    qp.insert(qp.end(), p.qPos.begin(), p.qPos.end());
    std::vector<float> out(q.size());
    cache.attend(q, p.heads, p.kLen, ForgettingEncoding{}, qp, true, out.data());
    const std::size_t half = out.size() / 2;
    CHECK(maxDiff(std::vector<float>(out.begin(), out.begin() + half), wantRows(p, gates, 0, p.kLen)) < 2e-5);
    CHECK(maxDiff(std::vector<float>(out.begin() + half, out.end()), wantRows(padded, g1, 0, p.kLen)) < 2e-5);
}
