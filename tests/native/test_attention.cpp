// The attention engine and every score-term encoding against a naive long-double reference written
// here from each reference's definition (sign conventions as in CONVENTIONS.md).
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <limits>

#include <posenc/posenc.hpp>
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using ref::ld;
using namespace attn_ref;

namespace {

// DeBERTa's c2p + p2c written from its definition: random position tables, the bucketed index
// clamp(bucket(i - j) + span, 0, 2 span - 1), q . posKey[h][idx] + k . posQuery[h][idx].
struct DebertaCase {
    const Problem& p;
    int heads, d, span;
    std::vector<float> pk, pq;
    DebertaEncoding e;
    DebertaCase(const Problem& p_, int heads_, int d_, int span_, DebertaBucketOptions buckets, unsigned seed)
        : p(p_), heads(heads_), d(d_), span(span_),
          pk(ref::randomVector(static_cast<std::size_t>(heads_) * 2 * span_ * d_, seed)),
          pq(ref::randomVector(static_cast<std::size_t>(heads_) * 2 * span_ * d_, seed + 1)) {
        e.posKey = pk;
        e.posQuery = pq;
        e.span = span;
        e.buckets = buckets;
    }
    int index(int i, int j) const {
        return int(std::clamp<std::int64_t>(debertaBucket(p.qPos[i] - p.kPos[j], e.buckets) + span, 0, 2 * span - 1));
    }
    NaiveTerms terms() const {
        NaiveTerms t;
        t.content = [this](int h, int i, int j) {
            const std::size_t row = (static_cast<std::size_t>(h) * 2 * span + index(i, j)) * d;
            return dotLd(p.qv(h, i), pk.data() + row, d) + dotLd(p.kv(h, j), pq.data() + row, d);
        };
        return t;
    }
};

ld defaultScale(int d) { return 1 / std::sqrt(ld(d)); }

}  // namespace

TEST_CASE("no encoding: GQA, qLen != kLen, causal / window / keyMask, explicit positions") {
    for (auto [heads, kv] : {std::pair{4, 4}, std::pair{6, 2}, std::pair{6, 1}, std::pair{3, 3}}) {
        Problem p(heads, kv, 16, 5, 150, 10u + heads);  // kLen > block size: several key blocks
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(16));
        p.causal = true;
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(16));
        p.window = 70;
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(16));
        p.causal = false;
        p.window = 0;
        p.keyMask.assign(150, 1);
        for (int j = 0; j < 150; j += 3) p.keyMask[j] = 0;
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(16));
    }
    Problem p(2, 2, 8, 3, 4, 3);
    p.qPos = {1000000, 5, 2147483000};
    p.kPos = {7, 1000000, 3, 2147483000};
    p.causal = true;
    checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(8));
}

TEST_CASE("a fully masked query row gives zeros, never NaN; masked scores are -inf") {
    Problem p(2, 2, 8, 2, 4, 5);
    p.qPos = {0, 3};
    p.kPos = {1, 2, 3, 4};
    p.causal = true;  // query at position 0 sees no key
    auto r = attention(p.request(NoEncoding{}), true, true);
    for (int c = 0; c < 8; ++c) CHECK(r.out[c] == 0.0f);
    for (int j = 0; j < 4; ++j) {
        CHECK(r.weights[j] == 0.0f);
        CHECK(std::isinf(r.scores[j]));
    }
    checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(8));
}

TEST_CASE("explicit scale multiplies content terms only, never scalar biases") {
    Problem p(3, 3, 8, 4, 6, 7);
    p.causal = true;
    auto req = p.request(AlibiEncoding{3, {}, false});
    req.scale = 0.5;
    const auto slopes = alibiSlopes(3);
    NaiveTerms t;
    t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (p.qPos[i] - p.kPos[j]); };
    auto got = attention(req, true, true);
    auto want = naive(p, t, 0.5);
    CHECK(maxDiff(got.scores, want.scores) < 1e-5);
}

TEST_CASE("ALiBi slopes: powers of two and the interleaved rule for n = 3, 6, 12") {
    auto s3 = alibiSlopes(3);
    CHECK(s3 == std::vector<double>{1.0 / 16, 1.0 / 256, 1.0 / 4});
    auto s6 = alibiSlopes(6);
    CHECK(s6 == std::vector<double>{0.25, 0.0625, 1.0 / 64, 1.0 / 256, 0.5, 0.125});
    auto s8 = alibiSlopes(8);
    for (int h = 0; h < 8; ++h) CHECK(s8[h] == std::pow(2.0, -(h + 1)));
    auto s12 = alibiSlopes(12);
    for (int h = 0; h < 8; ++h) CHECK(s12[h] == std::pow(2.0, -(h + 1)));
    for (int k = 0; k < 4; ++k) CHECK(s12[8 + k] == doctest::Approx(std::pow(2.0, -0.5 - k)).epsilon(1e-15));
}

TEST_CASE("ALiBi on the engine: -m(i - j), symmetric variant, n = 3, 6, 12 heads, GQA") {
    for (int heads : {3, 6, 12}) {
        Problem p(heads, heads == 12 ? 4 : heads, 8, 7, 130, 20u + heads);
        p.causal = true;
        const auto slopes = alibiSlopes(heads);
        NaiveTerms t;
        t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (p.qPos[i] - p.kPos[j]); };
        checkAgainstNaive(p, AlibiEncoding{heads, {}, false}, t, defaultScale(8));
        p.causal = false;
        NaiveTerms sym;
        sym.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * std::fabs(ld(p.qPos[i] - p.kPos[j])); };
        checkAgainstNaive(p, AlibiEncoding{heads, {}, true}, sym, defaultScale(8));
    }
    // attentionBias: paper form
    auto b = attentionBias(AlibiEncoding{2, {}, false}, 2, {3}, {0, 1, 3});
    CHECK(b == std::vector<float>{-3 * 0.0625f, -2 * 0.0625f, 0, -3 / 256.0f, -2 / 256.0f, 0});
}

TEST_CASE("few query rows over more keys than one chunk (decode): the keys' chunks merged equal the reference") {
    // 2 kv heads: few enough tiles that the engine splits the 5000 keys into chunks of kDecodeChunkKeys
    // (2048, 2048, 904), runs them apart and merges their softmax states; a window hides the whole first chunk.
    for (int qLen : {1, 3}) {
        Problem p(8, 2, 16, qLen, 5000, 70u + qLen);
        p.causal = true;
        checkAgainstNaive(p, NoEncoding{}, NaiveTerms{}, defaultScale(16));
        std::vector<float> slopes;  // slow decay: keys of every chunk carry weight
        for (double m : alibiSlopes(8)) slopes.push_back(static_cast<float>(m / 64));
        NaiveTerms t;
        t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (p.qPos[i] - p.kPos[j]); };
        checkAgainstNaive(p, AlibiEncoding{8, slopes, false}, t, defaultScale(16));
        p.window = 2500;
        checkAgainstNaive(p, NoEncoding{}, NaiveTerms{}, defaultScale(16));
    }
}

TEST_CASE("chunked attention (Llama 4): a query sees only keys of its own chunk, pos / chunk") {
    // hand-worked: chunk 3, 6 tokens, causal — rows 0..2 see keys 0..row, rows 3..5 see keys 3..row
    {
        Problem p(1, 1, 4, 6, 6, 5);
        p.causal = true;
        p.chunk = 3;
        auto r = attention(p.request(NoEncoding{}), true, false);
        const bool want[6][6] = {{1, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 0},
                                 {0, 0, 0, 1, 0, 0}, {0, 0, 0, 1, 1, 0}, {0, 0, 0, 1, 1, 1}};
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) CHECK_MESSAGE((r.weights[i * 6 + j] > 0) == want[i][j], "row " << i << " key " << j);
    }
    // on the engine: chunks smaller than, equal to and larger than a key block, boundaries inside blocks,
    // GQA, causal and not, with ALiBi (a score term), decode over several chunks of keys, positions near 2^31
    for (int chunk : {5, 64, 100, 4096}) {
        Problem self(6, 2, 16, 300, 300, 30u + chunk);  // every query's chunk: starts on, inside and across key blocks
        self.chunk = chunk;
        self.causal = true;
        checkAgainstNaive(self, NoEncoding{}, {}, defaultScale(16));
        self.causal = false;
        checkAgainstNaive(self, NoEncoding{}, {}, defaultScale(16));
        Problem p(6, 2, 16, 7, 300, 40u + chunk);
        p.chunk = chunk;
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(16));
        p.causal = true;
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(16));
        std::vector<float> slopes;
        for (double m : alibiSlopes(6)) slopes.push_back(static_cast<float>(m));
        NaiveTerms t;
        t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (p.qPos[i] - p.kPos[j]); };
        checkAgainstNaive(p, AlibiEncoding{6, slopes, false}, t, defaultScale(16));
    }
    for (int qLen : {1, 2}) {  // decode: 5000 keys split into the engine's key chunks, chunk boundary at 4096
        Problem p(4, 2, 8, qLen, 5000, 90u + qLen);
        p.causal = true;
        p.chunk = 4096;
        checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(8));
    }
    Problem far(2, 2, 8, 3, 5, 7);
    far.qPos = {2147483000, 2147483646, 100};
    far.kPos = {2147482000, 2147483500, 2147483646, 99, 101};
    far.chunk = 1 << 20;
    far.causal = true;
    checkAgainstNaive(far, NoEncoding{}, {}, defaultScale(8));
    Problem bad(1, 1, 4, 2, 2, 1);
    bad.chunk = -1;
    CHECK_THROWS_WITH_AS(attention(bad.request(NoEncoding{})), doctest::Contains("chunk"), std::invalid_argument);
}

TEST_CASE("T5 buckets, hand-worked (HF _relative_position_bucket, relative = key - query)") {
    T5BucketOptions bi{true, 32, 128};
    CHECK(t5Bucket(0, bi) == 0);
    CHECK(t5Bucket(-3, bi) == 3);
    CHECK(t5Bucket(3, bi) == 19);
    CHECK(t5Bucket(-8, bi) == 8);
    CHECK(t5Bucket(-20, bi) == 10);  // 8 + trunc(ln 2.5 / ln 16 * 8) = 8 + 2
    CHECK(t5Bucket(-128, bi) == 15);
    CHECK(t5Bucket(1000, bi) == 31);
    T5BucketOptions causal{false, 32, 128};
    CHECK(t5Bucket(5, causal) == 0);  // every future key in bucket 0
    CHECK(t5Bucket(-5, causal) == 5);
    CHECK(t5Bucket(-20, causal) == 17);  // 16 + trunc(ln 1.25 / ln 8 * 16) = 16 + 1
    CHECK(t5Bucket(-100000, causal) == 31);
}

TEST_CASE("T5 bias on the engine: table[bucket(j - i), h], no 1/sqrt(d), bidirectional and causal") {
    for (bool bidirectional : {true, false}) {
        Problem p(3, 3, 8, 6, 140, 31);
        p.causal = !bidirectional;
        auto table = ref::randomVector(32 * 3, 99);
        T5BucketOptions o{bidirectional, 32, 128};
        NaiveTerms t;
        t.bias = [&](int h, int i, int j) { return ld(table[t5Bucket(p.kPos[j] - p.qPos[i], o) * 3 + h]); };
        checkAgainstNaive(p, T5Encoding{3, table, o}, t, 1.0L);
    }
}

TEST_CASE("Swin relative index: hand-worked 2x3 window, non-square windows on the engine") {
    auto idx = swinRelativeIndex(2, 3);
    REQUIRE(idx.size() == 36);
    CHECK(idx[4 * 6 + 0] == 13);  // query (1,1), key (0,0): (1+1)*5 + (1+2)
    CHECK(idx[0 * 6 + 5] == 0);   // query (0,0), key (1,2): (-1+1)*5 + (-2+2)
    CHECK(idx[5 * 6 + 0] == 14);
    for (auto window : {std::pair{2, 3}, std::pair{3, 5}, std::pair{4, 4}}) {
        const int wh = window.first, ww = window.second;  // plain ints: lambdas below capture them
        const int n = wh * ww, heads = 3;
        Problem p(heads, heads, 8, n, n, 40u + n);
        auto table = ref::randomVector(static_cast<std::size_t>(2 * wh - 1) * (2 * ww - 1) * heads, 5);
        NaiveTerms t;
        t.bias = [&](int h, int i, int j) {
            const int dh = p.qPos[i] / ww - p.kPos[j] / ww, dw = p.qPos[i] % ww - p.kPos[j] % ww;
            return ld(table[((dh + wh - 1) * (2 * ww - 1) + (dw + ww - 1)) * heads + h]);
        };
        checkAgainstNaive(p, SwinEncoding{heads, table, wh, ww}, t, defaultScale(8));
    }
}

TEST_CASE("Shaw: clip(j - i, -K, K) + K, key and value tables, queries at the last positions") {
    for (int K : {0, 2, 5}) {
        Problem p(2, 2, 8, 4, 11, 50u + K);
        auto aK = ref::randomVector(static_cast<std::size_t>(2 * K + 1) * 8, 7);
        auto aV = ref::randomVector(static_cast<std::size_t>(2 * K + 1) * 8, 8);
        auto idx = [&](int i, int j) { return std::clamp(p.kPos[j] - p.qPos[i], -K, K) + K; };
        NaiveTerms t;
        t.content = [&](int h, int i, int j) { return dotLd(p.qv(h, i), aK.data() + idx(i, j) * 8, 8); };
        t.valueRow = [&](int, int i, int j) { return aV.data() + idx(i, j) * 8; };
        checkAgainstNaive(p, ShawEncoding{K, aK, aV}, t, defaultScale(8));
        NaiveTerms keyOnly = t;
        keyOnly.valueRow = nullptr;
        p.causal = true;
        checkAgainstNaive(p, ShawEncoding{K, aK, {}}, keyOnly, defaultScale(8));
    }
}

TEST_CASE("Transformer-XL: ((q+u).k + (q+v).r_{i-j}) / sqrt(d), memory keys first; r given or built from W_R") {
    const int heads = 2, d = 8, mlen = 6, qlen = 5, klen = mlen + qlen, dModel = 12;
    Problem p(heads, heads, d, qlen, klen, 60);
    for (int i = 0; i < qlen; ++i) p.qPos[i] = mlen + i;
    p.causal = true;
    auto u = ref::randomVector(heads * d, 1), v = ref::randomVector(heads * d, 2);
    auto r = ref::randomVector(static_cast<std::size_t>(heads) * klen * d, 3);
    NaiveTerms t;
    t.contentDot = [&](int h, int i, int j) {
        ld s = 0;
        for (int c = 0; c < d; ++c) s += (ld(p.qv(h, i)[c]) + u[h * d + c]) * p.kv(h, j)[c];
        return s;
    };
    t.content = [&](int h, int i, int j) {
        const int delta = p.qPos[i] - p.kPos[j];
        ld s = 0;
        for (int c = 0; c < d; ++c) s += (ld(p.qv(h, i)[c]) + v[h * d + c]) * r[(static_cast<std::size_t>(h) * klen + delta) * d + c];
        return s;
    };
    XlEncoding withR;
    withR.u = u;
    withR.v = v;
    withR.r = r;
    checkAgainstNaive(p, withR, t, defaultScale(d));

    // W_R with the concat sinusoid of d_model: R_delta = [sin(delta w_k)..., cos(delta w_k)...], w_k = 1e4^(-2k/dModel)
    auto wR = ref::randomVector(static_cast<std::size_t>(heads) * d * dModel, 4);
    NaiveTerms tw = t;
    tw.content = [&](int h, int i, int j) {
        const int delta = p.qPos[i] - p.kPos[j];
        ld s = 0;
        for (int c = 0; c < d; ++c) {
            ld rc = 0;
            for (int m = 0; m < dModel; ++m) {
                const int kk = m % (dModel / 2);
                const ld a = delta * std::pow(10000.0L, -2.0L * kk / dModel);
                rc += ld(wR[(static_cast<std::size_t>(h) * d + c) * dModel + m]) * (m < dModel / 2 ? std::sin(a) : std::cos(a));
            }
            s += (ld(p.qv(h, i)[c]) + v[h * d + c]) * rc;
        }
        return s;
    };
    XlEncoding withW;
    withW.u = u;
    withW.v = v;
    withW.wR = wR;
    withW.dModel = dModel;
    checkAgainstNaive(p, withW, tw, defaultScale(d));
    // future keys without a mask have no r row: a clear error
    p.causal = false;
    CHECK_THROWS_WITH_AS(attention(p.request(withR)), doctest::Contains("xl"), std::invalid_argument);
}

TEST_CASE("DeBERTa buckets, hand-worked; HF and microsoft differ only for delta <= -maxPosition") {
    DebertaBucketOptions hf{256, 512, DebertaConvention::hf}, ms{256, 512, DebertaConvention::microsoft};
    for (auto o : {hf, ms}) {
        CHECK(debertaBucket(100, o) == 100);
        CHECK(debertaBucket(128, o) == 128);
        CHECK(debertaBucket(200, o) == 169);  // ceil(ln(200/128)/ln(511/128)*127) + 128
        CHECK(debertaBucket(-200, o) == -169);
        CHECK(debertaBucket(511, o) == 255);
    }
    CHECK(debertaBucket(-600, hf) == -270);
    CHECK(debertaBucket(-600, ms) == -255);
    CHECK(debertaBucket(-100000, ms) == -255);
    CHECK(debertaBucket(7, DebertaBucketOptions{0, 512, DebertaConvention::hf}) == 7);
}

TEST_CASE("DeBERTa on the engine: c2p + p2c, 1/sqrt(3d), both conventions beyond max_position") {
    const int heads = 2, d = 8, span = 8;
    for (auto conv : {DebertaConvention::hf, DebertaConvention::microsoft}) {
        Problem p(heads, heads, d, 6, 7, 70);
        p.qPos = {0, 3, 40, 41, 100, 6};
        p.kPos = {0, 1, 2, 60, 99, 100, 5};
        DebertaCase c(p, heads, d, span, DebertaBucketOptions{8, 24, conv}, 1);  // mid 4, maxPosition 24: deltas up to 100 exceed it
        DebertaEncoding& e = c.e;
        auto& pk = c.pk;
        auto idx = [&](int i, int j) { return c.index(i, j); };
        checkAgainstNaive(p, e, c.terms(), 1 / std::sqrt(ld(3 * d)));
        e.p2c = false;  // c2p only: k = 2
        NaiveTerms c2p;
        c2p.content = [&](int h, int i, int j) { return dotLd(p.qv(h, i), pk.data() + (static_cast<std::size_t>(h) * 2 * span + idx(i, j)) * d, d); };
        checkAgainstNaive(p, e, c2p, 1 / std::sqrt(ld(2 * d)));
    }
}

TEST_CASE("BERT relative_key and relative_key_query: row (i - j) + max_pos - 1") {
    const int heads = 3, d = 8, maxPos = 12;
    for (bool keyQuery : {false, true}) {
        Problem p(heads, heads, d, 5, 12, 80);
        auto E = ref::randomVector(static_cast<std::size_t>(2 * maxPos - 1) * d, 9);
        NaiveTerms t;
        t.content = [&](int h, int i, int j) {
            const float* row = E.data() + (p.qPos[i] - p.kPos[j] + maxPos - 1) * d;
            return dotLd(p.qv(h, i), row, d) + (keyQuery ? dotLd(p.kv(h, j), row, d) : 0);
        };
        checkAgainstNaive(p, RelativeKeyEncoding{E, maxPos, keyQuery}, t, defaultScale(d));
    }
    Problem p(1, 1, 8, 2, 20, 3);
    auto E = ref::randomVector(static_cast<std::size_t>(2 * 4 - 1) * 8, 9);
    CHECK_THROWS_WITH_AS(attention(p.request(RelativeKeyEncoding{E, 4, false})), doctest::Contains("maxPosition"), std::invalid_argument);
}

TEST_CASE("RoPE on the engine equals rotating q and k by hand, GQA, partial rotary, large positions") {
    Problem p(4, 2, 16, 3, 70, 90);
    p.qPos = {1000000, 1000001, 1000069};
    for (int j = 0; j < 70; ++j) p.kPos[j] = 1000000 + j;
    p.causal = true;
    RopeEncoding rope;
    rope.config.partialRotaryFactor = 0.5;
    rope.config.base = 500000;
    const auto w = ref::defaultInvFreq(8, 500000);
    auto rot = [&](const float* x, int pos) {
        std::vector<ld> head(x, x + 8);
        auto r = ref::rope(head, pos, w, true);
        std::vector<ld> out(x, x + 16);
        std::copy(r.begin(), r.end(), out.begin());
        return out;
    };
    NaiveTerms t;
    t.contentDot = [&](int h, int i, int j) {
        auto a = rot(p.qv(h, i), p.qPos[i]), b = rot(p.kv(h, j), p.kPos[j]);
        ld s = 0;
        for (int c = 0; c < 16; ++c) s += a[c] * b[c];
        return s;
    };
    checkAgainstNaive(p, rope, t, defaultScale(16));
}

TEST_CASE("bad attention input: clear errors naming the field") {
    Problem p(4, 4, 8, 2, 3, 1);
    auto req = p.request(NoEncoding{});
    req.dims.kvHeads = 3;
    CHECK_THROWS_WITH_AS(attention(req), doctest::Contains("kvHeads"), std::invalid_argument);
    req = p.request(NoEncoding{});
    req.window = -1;
    CHECK_THROWS_WITH_AS(attention(req), doctest::Contains("window"), std::invalid_argument);
    req = p.request(NoEncoding{});
    req.k = View<float>(p.k.data(), p.k.size() - 1);
    CHECK_THROWS_WITH_AS(attention(req), doctest::Contains("k must have"), std::invalid_argument);
    std::vector<float> table(5);
    CHECK_THROWS_WITH_AS(attention(p.request(T5Encoding{4, table, {}})), doctest::Contains("encoding.table"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(attention(p.request(ShawEncoding{-1, table, {}})), doctest::Contains("clip"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(attention(p.request(AlibiEncoding{3, {}, false})), doctest::Contains("encoding.heads"), std::invalid_argument);
    std::vector<std::int32_t> bad = {0, -1};
    req = p.request(NoEncoding{});
    req.qPositions = bad;
    CHECK_THROWS_WITH_AS(attention(req), doctest::Contains("qPositions[1]"), std::invalid_argument);
}

TEST_CASE("tiles: rows of several query heads (GQA decode), partial tiles and blocks, odd head dims, windows") {
    // qLen 1..5 against kLen spanning several key blocks with a partial last one; group sizes 1..4 so
    // tiles hold rows of one head, of several heads, or a remainder of 1..3 rows.
    for (int headDim : {17, 64})
        for (auto [heads, kv] : {std::pair{8, 2}, std::pair{6, 2}, std::pair{3, 1}, std::pair{5, 5}})
            for (int qLen : {1, 2, 5}) {
                Problem p(heads, kv, headDim, qLen, 197, 300u + heads * 7 + qLen);
                p.causal = true;
                checkAgainstNaive(p, NoEncoding{}, {}, defaultScale(headDim));
                p.window = 90;
                const auto slopes = alibiSlopes(heads);
                NaiveTerms t;
                t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (p.qPos[i] - p.kPos[j]); };
                checkAgainstNaive(p, AlibiEncoding{heads, {}, false}, t, defaultScale(headDim));
            }
}

TEST_CASE("tiles: a term whose key state depends on the query head (DeBERTa p2c) under GQA") {
    const int heads = 4, kvHeads = 2, d = 8, span = 8;
    for (int qLen : {1, 3, 6}) {
        Problem p(heads, kvHeads, d, qLen, 70, 90u + qLen);
        p.causal = true;
        DebertaCase c(p, heads, d, span, DebertaBucketOptions{8, 24, DebertaConvention::hf}, 11);
        checkAgainstNaive(p, c.e, c.terms(), 1 / std::sqrt(ld(3 * d)));
    }
}

TEST_CASE("numerics: NaN or infinity in q, k or v is refused by index; huge but finite logits give the exact one-hot limit") {
    Problem p(2, 2, 8, 3, 5, 200);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (auto [field, value] : {std::pair{"q", nan}, std::pair{"k", inf}, std::pair{"v", -inf}}) {
        Problem bad = p;
        auto& x = std::string(field) == "q" ? bad.q : std::string(field) == "k" ? bad.k : bad.v;
        x[11] = value;
        const std::string where = std::string(field) + "[11]";
        CHECK_THROWS_WITH_AS(attention(bad.request(NoEncoding{})), doctest::Contains(where.c_str()), std::invalid_argument);
    }
    // logits of 1e30: the softmax is one-hot on the largest score (long-double reference agrees)
    Problem big = p;
    for (auto& x : big.q) x *= 1e30f;
    const auto r = attention(big.request(NoEncoding{}), true, true);
    const auto n = naive(big, {}, defaultScale(8));
    CHECK(maxDiff(r.out, n.out) < 2e-5);
    CHECK(maxDiff(r.weights, n.weights) < 2e-5);
    for (std::size_t i = 0; i < r.scores.size(); ++i)  // scores of magnitude 1e30: relative
        CHECK(double(r.scores[i]) == doctest::Approx(double(n.scores[i])).epsilon(1e-5));
    for (float o : r.out) CHECK(std::isfinite(o));
    // |q| |k| beyond float range: refused, not a softmax of infinities
    Problem huge = p;
    for (auto& x : huge.q) x *= 1e20f;
    for (auto& x : huge.k) x *= 1e20f;
    CHECK_THROWS_WITH_AS(attention(huge.request(NoEncoding{})), doctest::Contains("overflow"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(attention(huge.request(RopeEncoding{})), doctest::Contains("overflow"), std::invalid_argument);
}

TEST_CASE("numerics: positions near 2^31 - 1 with ALiBi, T5 and Shaw match their definitions") {
    Problem p(3, 3, 8, 3, 6, 210);
    p.qPos = {2147483645, 2147483646, 2147483647};
    p.kPos = {2147483000, 2147483640, 2147483641, 2147483645, 2147483646, 2147483647};
    p.causal = true;
    const auto slopes = alibiSlopes(3);
    NaiveTerms alibi;
    alibi.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
    checkAgainstNaive(p, AlibiEncoding{3, {}, false}, alibi, defaultScale(8));
    auto table = ref::randomVector(32 * 3, 98);
    T5BucketOptions o{false, 32, 128};
    NaiveTerms t5;
    t5.bias = [&](int h, int i, int j) { return ld(table[t5Bucket(std::int64_t(p.kPos[j]) - p.qPos[i], o) * 3 + h]); };
    checkAgainstNaive(p, T5Encoding{3, table, o}, t5, 1.0L);
    const int K = 4;
    auto aK = ref::randomVector((2 * K + 1) * 8, 97);
    NaiveTerms shaw;
    shaw.content = [&](int h, int i, int j) {
        const auto d = std::clamp<std::int64_t>(std::int64_t(p.kPos[j]) - p.qPos[i], -K, K) + K;
        return dotLd(p.qv(h, i), aK.data() + d * 8, 8);
    };
    checkAgainstNaive(p, ShawEncoding{K, aK, {}}, shaw, defaultScale(8));
}

TEST_CASE("fuzzer finds, kept as regressions: sizes that wrap a 32-bit size_t are errors; T5 / DeBERTa cost follows the call") {
    // (the same suite runs compiled to wasm, where size_t is 32 bits and these products used to wrap)
    Problem p(1, 1, 8, 1, 2, 220);
    std::vector<float> small(8, 0.5f);
    CHECK_THROWS_AS(attention(p.request(ShawEncoding{1 << 30, small, {}})), std::invalid_argument);
    std::vector<float> out(4);
    ResizeOptions o;
    o.fromH = o.fromW = 65536;
    o.toH = o.toW = 1;
    o.dim = 1;
    CHECK_THROWS_AS(resizeGrid(View<float>(), o, out.data()), std::invalid_argument);
    o.dim = 2;
    o.prefixTokens = 1;
    std::vector<float> two = {1, 2};
    CHECK_THROWS_AS(resizeGrid(two, o, out.data()), std::invalid_argument);
    // a configuration allowing distances up to 2^28 on a 2-token call: tables sized by the call
    auto table = ref::randomVector(32 * 1, 5);
    T5BucketOptions t5{true, 32, 1 << 28};
    NaiveTerms t;
    t.bias = [&](int h, int i, int j) { return ld(table[t5Bucket(p.kPos[j] - p.qPos[i], t5) + h]); };
    checkAgainstNaive(p, T5Encoding{1, table, t5}, t, 1.0L);
}

// --- KERPLE, FIRE, CoPE and combined encodings, each against its paper's definition ----------------

namespace {
std::vector<float> positiveVector(std::size_t n, unsigned seed, float lo, float hi) { return ref::randomVector(n, seed, lo, hi); }
}  // namespace

TEST_CASE("KERPLE log and power (Chi et al. 2022): -r1 log(1 + r2 |i-j|), -r1 |i-j|^r2, per head") {
    for (auto shape : {std::pair{4, 2}, std::pair{12, 4}, std::pair{3, 3}}) {
        const int heads = shape.first, kvHeads = shape.second;  // (clang 14 lambdas cannot capture structured bindings)
        for (bool causal : {false, true}) {
            Problem p(heads, kvHeads, 16, 5, 11, 40 + heads);
            p.causal = causal;
            p.kPos = {0, 3, 4, 9, 10, 17, 30, 31, 32, 60, 61};
            p.qPos = {31, 32, 40, 61, 62};
            // moderate r2 here: scores stay O(100) where float resolves 1e-4 (large biases: attentionBias below)
            const auto r1 = positiveVector(heads, 7, 0.1f, 2.0f), r2 = positiveVector(heads, 8, 0.05f, 1.2f);
            for (KerpleVariant variant : {KerpleVariant::log, KerpleVariant::power}) {
                CAPTURE(heads);
                CAPTURE(causal);
                KerpleEncoding e{variant, heads, View<float>(r1), View<float>(r2)};
                NaiveTerms t;
                t.bias = [&](int h, int i, int j) {
                    const ld d = std::fabs(ld(p.qPos[i]) - p.kPos[j]);
                    return variant == KerpleVariant::log ? -ld(r1[h]) * std::log(1 + ld(r2[h]) * d) : -ld(r1[h]) * std::pow(d, ld(r2[h]));
                };
                checkAgainstNaive(p, e, t, 1 / std::sqrt(ld(16)));
                // attentionBias gives the same bias as a [heads, qLen, kLen] tensor
                const auto bias = attentionBias(e, heads, p.qPos, p.kPos);
                for (int h = 0; h < heads; ++h)
                    for (int i = 0; i < p.qLen; ++i)
                        for (int j = 0; j < p.kLen; ++j)
                            CHECK(std::fabs(bias[(static_cast<std::size_t>(h) * p.qLen + i) * p.kLen + j] - t.bias(h, i, j)) <= 1e-5L * (1 + std::fabs(t.bias(h, i, j))));
            }
        }
    }
    // r2 up to 2 (power's limit) and distances up to 1000: relative precision of the float bias
    const std::vector<float> r1s = {1.0f, 0.3f}, r2s = {2.0f, 1.9f};
    const std::vector<std::int32_t> qs = {1000, 500}, ks = {0, 1, 499, 1000};
    const auto powerBias = attentionBias(KerpleEncoding{KerpleVariant::power, 2, View<float>(r1s), View<float>(r2s)}, 2, qs, ks);
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 4; ++j) {
                const ld want = -ld(r1s[h]) * std::pow(std::fabs(ld(qs[i]) - ks[j]), ld(r2s[h]));
                CHECK(std::fabs(powerBias[(h * 2 + i) * 4 + j] - want) <= 1e-6L * (1 + std::fabs(want)));
            }
    // huge positions: the bias of a distance, not of the positions
    const std::vector<float> r1 = {0.5f}, r2 = {1.0f};
    const KerpleEncoding e{KerpleVariant::log, 1, View<float>(r1), View<float>(r2)};
    const std::int32_t big = 1 << 24;
    const auto b = attentionBias(e, 1, std::vector<std::int32_t>{big + 7}, std::vector<std::int32_t>{big, big + 7});
    CHECK(b[0] == doctest::Approx(-0.5 * std::log(8.0)));
    CHECK(b[1] == 0.0f);
}

TEST_CASE("KERPLE / FIRE: bad parameters are errors naming the field") {
    const std::vector<float> ok = {0.5f, 0.5f}, one = {0.5f}, neg = {0.5f, -1.0f}, big = {0.5f, 2.5f};
    auto bias = [](const Encoding& e) { return attentionBias(e, 2, std::vector<std::int32_t>{1}, std::vector<std::int32_t>{0}); };
    auto message = [&](const Encoding& e) {
        try {
            bias(e);
        } catch (const std::invalid_argument& x) {
            return std::string(x.what());
        }
        return std::string("(no error)");
    };
    CHECK(message(KerpleEncoding{KerpleVariant::log, 2, View<float>(one), View<float>(ok)}).find("encoding.r1 must have one value per head (2)") == 0);
    CHECK(message(KerpleEncoding{KerpleVariant::log, 2, View<float>(ok), View<float>(neg)}).find("encoding.r2[1] must be a positive") == 0);
    CHECK(message(KerpleEncoding{KerpleVariant::power, 2, View<float>(ok), View<float>(big)}).find("encoding.r2[1] must be at most 2") == 0);
    CHECK(message(KerpleEncoding{KerpleVariant::log, 2, View<float>(ok), View<float>(big)}) == "(no error)");  // log allows r2 > 2
    CHECK(message(KerpleEncoding{KerpleVariant::log, 3, View<float>(ok), View<float>(ok)}).find("encoding.heads (3) must equal heads (2)") == 0);
    const std::vector<float> w1 = {1, 2, 3}, b1 = {0, 0, 0}, w2 = {1, 1, 1, 1, 1, 1}, b2 = {0, 0};
    FireEncoding f{2, 3, View<float>(w1), View<float>(b1), View<float>(w2), View<float>(b2)};
    CHECK(message(f) == "(no error)");
    FireEncoding shortW2 = f;
    shortW2.w2 = View<float>(w1);
    CHECK(message(shortW2).find("encoding.w2 must have 6 values [heads, hidden]") == 0);
    FireEncoding badC = f;
    badC.c = 0;
    CHECK(message(badC).find("encoding.c must be a positive") == 0);
    FireEncoding badL = f;
    badL.L = -1;
    CHECK(message(badL).find("encoding.L must be") == 0);
}

TEST_CASE("FIRE (Li et al. 2024): MLP of log(c|i-j| + 1) / (log(c max(L, i) + 1) + eps), per head") {
    for (auto shape : {std::tuple{4, 2, 8}, std::tuple{6, 6, 5}}) {
        const int heads = std::get<0>(shape), kvHeads = std::get<1>(shape), hidden = std::get<2>(shape);
        for (bool causal : {true, false}) {
            Problem p(heads, kvHeads, 8, 4, 9, 70 + heads);
            p.causal = causal;
            p.kPos = {0, 1, 2, 5, 8, 13, 21, 34, 55};
            // i = 0 with L = 0 divides by eps: only its own key (distance 0, x = 0) is sensible, as in causal use
            p.qPos = {causal ? 0 : 1, 21, 34, 1000};
            const auto w1 = ref::randomVector(hidden, 1), b1 = ref::randomVector(hidden, 2);
            const auto w2 = ref::randomVector(static_cast<std::size_t>(heads) * hidden, 3), b2 = ref::randomVector(heads, 4);
            for (double L : {0.0, 16.0}) {
                FireEncoding e{heads, hidden, View<float>(w1), View<float>(b1), View<float>(w2), View<float>(b2), 1.5, L, 1e-6};
                NaiveTerms t;
                t.bias = [&](int h, int i, int j) {
                    const ld norm = std::log(ld(1.5) * std::max(ld(L), ld(p.qPos[i])) + 1) + ld(1e-6);
                    const ld x = std::log(ld(1.5) * std::fabs(ld(p.qPos[i]) - p.kPos[j]) + 1) / norm;
                    ld y = b2[h];
                    for (int k = 0; k < hidden; ++k) y += ld(w2[h * hidden + k]) * std::max(ld(0), ld(w1[k]) * x + ld(b1[k]));
                    return y;
                };
                CAPTURE(L);
                checkAgainstNaive(p, e, t, 1 / std::sqrt(ld(8)));
            }
        }
    }
}

TEST_CASE("CoPE (Golovneva et al. 2024): gates sigmoid(s q.k), positions = reverse cumulative sums, interpolated e(p)") {
    for (auto shape : {std::tuple{4, 2, 6}, std::tuple{3, 3, 40}, std::tuple{2, 1, 3}}) {
        const int heads = std::get<0>(shape), kvHeads = std::get<1>(shape), npos = std::get<2>(shape);
        for (int mode = 0; mode < 3; ++mode) {  // causal; window 4; a key mask
            Problem p(heads, kvHeads, 8, 6, 10, 90 + heads);
            p.qPos = {4, 5, 6, 7, 8, 9};
            if (mode == 0) p.causal = true;
            if (mode == 1) p.window = 4;
            if (mode == 2) p.keyMask = {1, 1, 0, 1, 1, 1, 0, 1, 1, 1};
            // scaled up so gates spread over (0, 1) and positions reach the clamp for small npos
            for (auto& x : p.q) x *= 3;
            const auto emb = ref::randomVector(static_cast<std::size_t>(npos) * 8, 17);
            const ld s = 1 / std::sqrt(ld(8));
            CopeEncoding e{npos, View<float>(emb)};
            NaiveTerms t;
            t.content = [&](int h, int i, int j) {
                ld pos = 0;
                for (int u = j; u < p.kLen; ++u)
                    if (p.allowed(i, u)) pos += 1 / (1 + std::exp(-s * dotLd(p.qv(h, i), p.kv(h, u), 8)));
                pos = std::min(pos, ld(npos - 1));
                const int lo = int(std::floor(pos)), hi = int(std::ceil(pos));
                const ld w = pos - lo;
                return dotLd(p.qv(h, i), emb.data() + hi * 8, 8) * w + dotLd(p.qv(h, i), emb.data() + lo * 8, 8) * (1 - w);
            };
            CAPTURE(mode);
            CAPTURE(npos);
            checkAgainstNaive(p, e, t, s);
        }
    }
    const std::vector<float> emb(5 * 8, 0.1f);
    Problem p(2, 2, 8, 2, 4, 3);
    CHECK_THROWS_WITH_AS(attention(p.request(CopeEncoding{4, View<float>(emb)})), doctest::Contains("encoding.embeddings must have npos x headDim = 32"), std::invalid_argument);
}

TEST_CASE("combined encodings: RoPE rotates, score terms add (RoPE + ALiBi, T5 + KERPLE, CoPE + ALiBi)") {
    Problem p(4, 2, 16, 5, 9, 123);
    p.causal = true;
    // RoPE + ALiBi: the score of rotated q, k plus -m (i - j)
    RopeConfig rc;
    rc.headDim = 16;
    rc.base = 100;
    const auto f = ropeFrequencies(rc);
    const std::vector<ld> w(f.invFreq.begin(), f.invFreq.end());
    const auto slopes = alibiSlopes(4);
    CombinedEncoding ra{{RopeEncoding{rc, RopeLayout::half}, AlibiEncoding{4, {}, false}}};
    NaiveTerms t;
    t.contentDot = [&](int h, int i, int j) {
        const auto qr = ref::rope(std::vector<ld>(p.qv(h, i), p.qv(h, i) + 16), p.qPos[i], w, true);
        const auto kr = ref::rope(std::vector<ld>(p.kv(h, j), p.kv(h, j) + 16), p.kPos[j], w, true);
        ld s = 0;
        for (int c = 0; c < 16; ++c) s += qr[c] * kr[c];
        return s;
    };
    t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
    checkAgainstNaive(p, ra, t, 1 / std::sqrt(ld(16)));

    // T5 + KERPLE: two biases add; the combination takes T5's default scale 1
    const auto table = ref::randomVector(32 * 4, 5);
    const std::vector<float> r1 = {0.5f, 1, 1.5f, 2}, r2 = {0.5f, 0.5f, 1, 1};
    CombinedEncoding tk{{T5Encoding{4, View<float>(table), {}}, KerpleEncoding{KerpleVariant::log, 4, View<float>(r1), View<float>(r2)}}};
    NaiveTerms t2;
    const T5BucketOptions bo;
    t2.bias = [&](int h, int i, int j) {
        return ld(table[t5Bucket(std::int64_t(p.kPos[j]) - p.qPos[i], bo) * 4 + h]) - ld(r1[h]) * std::log(1 + ld(r2[h]) * std::fabs(ld(p.qPos[i]) - p.kPos[j]));
    };
    checkAgainstNaive(p, tk, t2, 1);
    CHECK(defaultScale(tk, 16) == 1.0);
    const auto sum = attentionBias(tk, 4, p.qPos, p.kPos);
    const auto onlyT5 = attentionBias(T5Encoding{4, View<float>(table), {}}, 4, p.qPos, p.kPos);
    const auto onlyK = attentionBias(tk.parts[1], 4, p.qPos, p.kPos);
    for (std::size_t x = 0; x < sum.size(); ++x) CHECK(sum[x] == doctest::Approx(onlyT5[x] + onlyK[x]).epsilon(1e-6));

    // CoPE + ALiBi
    const auto emb = ref::randomVector(6 * 16, 9);
    CombinedEncoding ca{{CopeEncoding{6, View<float>(emb)}, AlibiEncoding{4, {}, false}}};
    const ld s = 1 / std::sqrt(ld(16));
    NaiveTerms t3;
    t3.content = [&](int h, int i, int j) {
        ld pos = 0;
        for (int u = j; u < p.kLen; ++u)
            if (p.allowed(i, u)) pos += 1 / (1 + std::exp(-s * dotLd(p.qv(h, i), p.kv(h, u), 16)));
        pos = std::min(pos, ld(5));
        const int lo = int(std::floor(pos)), hi = int(std::ceil(pos));
        return dotLd(p.qv(h, i), emb.data() + hi * 16, 16) * (pos - lo) + dotLd(p.qv(h, i), emb.data() + lo * 16, 16) * (1 - (pos - lo));
    };
    t3.bias = t.bias;
    checkAgainstNaive(p, ca, t3, s);

    // what cannot be combined
    CombinedEncoding twoRopes{{RopeEncoding{rc, RopeLayout::half}, RopeEncoding{rc, RopeLayout::half}}};
    CHECK_THROWS_WITH_AS(attention(p.request(twoRopes)), doctest::Contains("two 'rope' parts"), std::invalid_argument);
    const auto pk = ref::randomVector(2 * 8 * 16, 3);
    CombinedEncoding t5deberta{{T5Encoding{4, View<float>(table), {}}, DebertaEncoding{}}};
    CHECK_THROWS_WITH_AS(defaultScale(t5deberta, 16), doctest::Contains("scale is required"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(attentionBias(ca, 4, p.qPos, p.kPos), doctest::Contains("must be a scalar-bias encoding"), std::invalid_argument);
}

TEST_CASE("multi-axis RoPE in attention: pair k turns by its axis's position; masks and ALiBi use maskPositions") {
    for (bool interleaved : {false, true}) {
        Problem p(4, 2, 16, 3, 6, 321);
        p.causal = true;
        RopeConfig rc;
        rc.headDim = 16;
        rc.base = 100;
        rc.multiAxis = MultiAxis::mrope;
        rc.sections = interleaved ? std::vector<int>{3, 3, 2} : std::vector<int>{2, 3, 3};
        rc.mropeInterleaved = interleaved;
        const auto f = ropeFrequencies(rc);
        const std::vector<std::int32_t> kAxis = {10, 11, 11, 11, 11, 13, 10, 11, 11, 12, 12, 13, 10, 11, 12, 11, 12, 13};
        const std::vector<std::int32_t> qAxis = {11, 11, 13, 11, 12, 13, 12, 12, 13};
        const std::vector<std::int32_t> mask = {10, 11, 12, 13, 14, 15};
        p.kPos = mask;
        p.qPos = {13, 14, 15};
        // the rotation written from the definition: pair k of a half-layout vector turns by pos[axisOfPair[k]] * w_k
        auto rotate = [&](const float* x, const std::vector<std::int32_t>& axisPos, int len, int t) {
            std::vector<ld> y(x, x + 16);
            for (int k = 0; k < 8; ++k) {
                int axis = 0;
                if (!interleaved) axis = k < rc.sections[0] ? 0 : k < rc.sections[0] + rc.sections[1] ? 1 : 2;
                else axis = (k % 3 == 1 && k < 3 * rc.sections[1]) ? 1 : (k % 3 == 2 && k < 3 * rc.sections[2]) ? 2 : 0;
                const ld a = ld(axisPos[axis * len + t]) * std::pow(ld(100), -ld(2 * k) / 16);
                y[k] = x[k] * std::cos(a) - x[k + 8] * std::sin(a);
                y[k + 8] = x[k + 8] * std::cos(a) + x[k] * std::sin(a);
            }
            return y;
        };
        const auto slopes = alibiSlopes(4);
        NaiveTerms t;
        t.contentDot = [&](int h, int i, int j) {
            const auto q = rotate(p.qv(h, i), qAxis, 3, i), k = rotate(p.kv(h, j), kAxis, 6, j);
            ld s = 0;
            for (int c = 0; c < 16; ++c) s += q[c] * k[c];
            return s;
        };
        t.bias = [&](int h, int i, int j) { return -ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
        auto req = p.request(CombinedEncoding{{RopeEncoding{rc, RopeLayout::half}, AlibiEncoding{4, {}, false}}});
        req.qPositions = qAxis;
        req.kPositions = kAxis;
        req.maskPositions = mask;
        const auto got = attention(req, true, false);
        const auto want = naive(p, t, 1 / std::sqrt(ld(16)));
        CHECK(maxDiff(got.out, want.out) < 2e-5);
        CHECK(maxDiff(got.weights, want.weights) < 2e-5);
        CHECK(f.axes == 3);
    }
}

// T5 and ALiBi add a block of consecutive keys as one run of a per-head table by distance (T5: the
// distances past its table, where buckets stop growing, as the edge entries); any other block goes key
// by key (ALiBi: the linear-bias kernel; T5: the clamped lookup). The two must add the same floats —
// the table path against the per-key one, and both against the definition.
TEST_CASE("ALiBi and T5 biases by distance: a run of the table equals the per-key path bit for bit") {
    const int heads = 3, kLen = 300;
    std::vector<std::int32_t> keys(kLen), gapped(kLen);
    for (int j = 0; j < kLen; ++j) keys[j] = 5 + j, gapped[j] = 5 + j + (j >= 100 ? 7 : 0);  // a gap after key 99
    const std::vector<std::pair<int, int>> blocks = {{0, 64}, {64, 128}, {90, 110}, {250, 300}, {10, 11}};
    const auto same = [](const std::vector<float>& a, const std::vector<float>& b) { return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0); };
    for (bool symmetric : {false, true}) {
        AlibiEncoding e;
        e.heads = heads;
        e.symmetric = symmetric;
        for (const auto* k : {&keys, &gapped}) {
            const CallDistances call{420, k == &keys, 1e9};  // largest |qPos - kPos| of the queries below
            AlibiTerm perKey(e, heads), table(e, heads, call);
            for (int h = 0; h < heads; ++h)
                for (std::int32_t q : {0, 5, 150, 304, 420})
                    for (auto [j0, j1] : blocks) {
                        std::vector<float> base(static_cast<std::size_t>(j1 - j0));
                        for (std::size_t t = 0; t < base.size(); ++t) base[t] = 0.125f * static_cast<float>(t) - 3.0f;
                        auto a = base, b = base;
                        perKey.addBias(h, q, j0, j1, k->data(), a.data());
                        table.addBias(h, q, j0, j1, k->data(), b.data());
                        CHECK(same(a, b));
                        for (std::size_t t = 0; t < base.size(); ++t) {
                            const double d = static_cast<double>(q) - (*k)[static_cast<std::size_t>(j0) + t];
                            CHECK(a[t] == base[t] + static_cast<float>(-perKey.slope(h) * (symmetric ? std::fabs(d) : d)));
                        }
                    }
        }
    }
    // T5: maxDistance 40 < the call's distances: blocks wholly or partly past +-40 from the query add
    // the edge buckets' biases (q = 304 against keys 5..68: all below; against 255..304: partly)
    std::vector<float> t5table(32 * heads);
    for (std::size_t i = 0; i < t5table.size(); ++i) t5table[i] = std::sin(0.7f * static_cast<float>(i)) * 3.0f;
    T5Encoding t5;
    t5.heads = heads;
    t5.table = {t5table.data(), t5table.size()};
    t5.buckets = {true, 32, 40};
    for (const auto* k : {&keys, &gapped}) {
        T5Term perKey(t5, heads, CallDistances{420, false, 0}), table(t5, heads, CallDistances{420, k == &keys, 0});
        for (int h = 0; h < heads; ++h)
            for (std::int32_t q : {0, 30, 100, 304, 420})
                for (auto [j0, j1] : blocks) {
                    std::vector<float> a(static_cast<std::size_t>(j1 - j0), 1.5f), b = a;
                    perKey.addBias(h, q, j0, j1, k->data(), a.data());
                    table.addBias(h, q, j0, j1, k->data(), b.data());
                    CHECK(same(a, b));
                    for (std::size_t t = 0; t < a.size(); ++t)
                        CHECK(a[t] == 1.5f + t5table[static_cast<std::size_t>(t5Bucket(static_cast<std::int64_t>((*k)[static_cast<std::size_t>(j0) + t]) - q, t5.buckets)) * heads + h]);
                }
    }
}
