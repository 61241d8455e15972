// Sink logits (gpt-oss, issue 33): a learned logit per query head joins every row's softmax and is then
// dropped. The reference is transformers' modeling_gpt_oss.py eager_attention_forward:
//     sinks = module.sinks.reshape(1, -1, 1, 1).expand(b, -1, q_len, -1)
//     combined_logits = torch.cat([attn_weights, sinks], dim=-1)          # attn_weights = q k^T * scaling + mask
//     combined_logits = combined_logits - combined_logits.max(dim=-1, keepdim=True).values
//     probs = softmax(combined_logits, dim=-1); scores = probs[..., :-1]   # the sink column dropped
//     attn_output = scores @ value_states
// written here in long double over the keys each query may see, every path of the engine checked
// against it: streaming, materialised weights, the decode split, GQA, threads, the KV cache.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <posenc/posenc.hpp>

#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
struct Problem {
    int heads, kvHeads, hd, qLen, kLen;
    std::vector<float> q, k, v, sinks;
    Problem(int heads_, int kvHeads_, int hd_, int qLen_, int kLen_, std::vector<float> sinks_, unsigned seed)
        : heads(heads_), kvHeads(kvHeads_), hd(hd_), qLen(qLen_), kLen(kLen_),
          q(ref::randomVector(std::size_t(heads_) * qLen_ * hd_, seed, -1.5f, 1.5f)),
          k(ref::randomVector(std::size_t(kvHeads_) * kLen_ * hd_, seed + 1, -1.5f, 1.5f)),
          v(ref::randomVector(std::size_t(kvHeads_) * kLen_ * hd_, seed + 2, -1.f, 1.f)),
          sinks(std::move(sinks_)) {}

    AttentionRequest request(bool causal) const {
        AttentionRequest r;
        r.dims = {heads, kvHeads, hd, qLen, kLen};
        r.q = View<float>(q.data(), q.size());
        r.k = View<float>(k.data(), k.size());
        r.v = View<float>(v.data(), v.size());
        r.causal = causal;
        r.sinkLogits = View<float>(sinks.data(), sinks.size());
        return r;
    }

    // out [heads, qLen, hd] and weights [heads, qLen, kLen] by the definition above (queries at the last
    // qLen key positions; a key is visible when causal allows it and keyMask, if any, admits it).
    void reference(bool causal, const std::vector<std::uint8_t>& keyMask, std::vector<ld>& out, std::vector<ld>& weights) const {
        out.assign(std::size_t(heads) * qLen * hd, 0);
        weights.assign(std::size_t(heads) * qLen * kLen, 0);
        const ld scale = 1 / std::sqrt(ld(hd));
        for (int h = 0; h < heads; ++h) {
            const int kvh = h / (heads / kvHeads);
            for (int i = 0; i < qLen; ++i) {
                const int qPos = kLen - qLen + i;
                std::vector<ld> logit(std::size_t(kLen), -std::numeric_limits<ld>::infinity());
                ld m = sinks[std::size_t(h)];
                for (int j = 0; j < kLen; ++j) {
                    if ((causal && j > qPos) || (!keyMask.empty() && !keyMask[std::size_t(j)])) continue;
                    ld s = 0;
                    for (int c = 0; c < hd; ++c)
                        s += ld(q[(std::size_t(h) * qLen + i) * hd + c]) * ld(k[(std::size_t(kvh) * kLen + j) * hd + c]);
                    logit[std::size_t(j)] = s * scale;
                    m = std::max(m, logit[std::size_t(j)]);
                }
                ld den = std::exp(ld(sinks[std::size_t(h)]) - m);
                for (int j = 0; j < kLen; ++j) den += std::exp(logit[std::size_t(j)] - m);
                for (int j = 0; j < kLen; ++j) {
                    const ld w = std::exp(logit[std::size_t(j)] - m) / den;
                    weights[(std::size_t(h) * qLen + i) * kLen + j] = w;
                    for (int c = 0; c < hd; ++c) out[(std::size_t(h) * qLen + i) * hd + c] += w * ld(v[(std::size_t(kvh) * kLen + j) * hd + c]);
                }
            }
        }
    }
};

void requireClose(const std::vector<float>& got, const std::vector<ld>& want, double tol) {
    REQUIRE(got.size() == want.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, double(std::fabs(ld(got[i]) - want[i])));
    INFO("largest difference " << worst);
    CHECK(worst <= tol);
}
}  // namespace

TEST_CASE("sink logits: attention equals gpt-oss's softmax over the keys and the sink, sink column dropped") {
    // 6 query heads over 2 kv heads (GQA 3), odd head dim, qLen != kLen; sinks from below the scores to
    // far above them (30: nearly all weight on the sink, exp(30 - m) would overflow nothing only because
    // the larger of the row maximum and the sink is subtracted first)
    const Problem p(6, 2, 13, 5, 70, {-3.0f, 0.0f, 0.5f, 2.0f, 8.0f, 30.0f}, 11);
    for (bool causal : {false, true}) {
        CAPTURE(causal);
        std::vector<ld> wantOut, wantW;
        p.reference(causal, {}, wantOut, wantW);
        const AttentionResult streamed = attention(p.request(causal));
        requireClose(streamed.out, wantOut, 2e-6);
        const AttentionResult weighed = attention(p.request(causal), true, true);
        requireClose(weighed.out, wantOut, 2e-6);
        requireClose(weighed.weights, wantW, 2e-7);
        // the weights no longer sum to 1: what is missing is the sink's share
        for (int h = 0; h < p.heads; ++h) {
            double sum = 0, want = 0;
            for (int j = 0; j < p.kLen; ++j) sum += weighed.weights[std::size_t(h) * p.qLen * p.kLen + j], want += double(wantW[std::size_t(h) * p.qLen * p.kLen + j]);
            CHECK(sum == doctest::Approx(want).epsilon(1e-5));
            CHECK(sum < 1.0);
        }
        // scores are the logits before the softmax: the sink does not appear among them
        CHECK(weighed.scores.size() == std::size_t(p.heads) * p.qLen * p.kLen);
    }
    // without sinks the same call is plain attention, bit for bit
    AttentionRequest plain = p.request(true);
    plain.sinkLogits = {};
    AttentionRequest lowSinks = p.request(true);
    const std::vector<float> veryLow(6, -1e30f);  // exp(-1e30 - m) = 0: the sink takes no weight
    lowSinks.sinkLogits = View<float>(veryLow.data(), veryLow.size());
    CHECK(attention(plain).out == attention(lowSinks).out);
}

TEST_CASE("sink logits: a row that sees no key gives zeros (all weight on the sink), never NaN") {
    const Problem p(2, 1, 8, 3, 9, {0.25f, -1.0f}, 21);
    AttentionRequest r = p.request(false);
    const std::vector<std::uint8_t> none(9, 0);
    r.keyMask = View<std::uint8_t>(none.data(), none.size());
    const AttentionResult got = attention(r, true);
    for (float x : got.out) CHECK(x == 0.0f);
    for (float w : got.weights) CHECK(w == 0.0f);
}

TEST_CASE("sink logits: the decode split (one query over thousands of keys, merged chunk by chunk) and threads") {
    // qLen 1 over 5000 keys: few tiles over many keys, so the keys run in chunks whose softmax states are
    // merged; the sink enters once, at the finish
    const Problem p(4, 2, 16, 1, 5000, {1.0f, -2.0f, 4.0f, 0.0f}, 31);
    std::vector<ld> wantOut, wantW;
    p.reference(true, {}, wantOut, wantW);
    const int before = threadCount();
    setThreadCount(1);
    const std::vector<float> one = attention(p.request(true)).out;
    setThreadCount(3);
    const std::vector<float> three = attention(p.request(true)).out;
    setThreadCount(before);
    requireClose(one, wantOut, 2e-6);
    CHECK(one == three);  // bit-identical at any thread count
}

TEST_CASE("sink logits: KV cache attend equals attention with the same sinks, prefilled at once or token by token") {
    const Problem p(4, 2, 8, 1, 40, {0.5f, -0.5f, 3.0f, -4.0f}, 41);
    KVCacheConfig c;
    c.kvHeads = p.kvHeads;
    c.headDim = p.hd;
    c.capacity = 64;
    KVCache once(c), steps(c);
    once.append(View<float>(p.k.data(), p.k.size()), View<float>(p.v.data(), p.v.size()), p.kLen);
    for (int t = 0; t < p.kLen; ++t) {  // token by token: [kvHeads, 1, hd] each
        std::vector<float> kt, vt;
        for (int h = 0; h < p.kvHeads; ++h)
            for (int x = 0; x < p.hd; ++x)
                kt.push_back(p.k[(std::size_t(h) * p.kLen + t) * p.hd + x]), vt.push_back(p.v[(std::size_t(h) * p.kLen + t) * p.hd + x]);
        steps.append(View<float>(kt.data(), kt.size()), View<float>(vt.data(), vt.size()), 1);
    }
    const View<float> sinks(p.sinks.data(), p.sinks.size());
    std::vector<float> a(p.q.size()), b(p.q.size());
    once.attend(View<float>(p.q.data(), p.q.size()), p.heads, 1, NoEncoding{}, {}, true, a.data(), std::numeric_limits<double>::quiet_NaN(), {}, sinks);
    steps.attend(View<float>(p.q.data(), p.q.size()), p.heads, 1, NoEncoding{}, {}, true, b.data(), std::numeric_limits<double>::quiet_NaN(), {}, sinks);
    CHECK(a == attention(p.request(true)).out);
    CHECK(b == a);
}

TEST_CASE("sink logits: one finite logit per query head, or std::invalid_argument naming sinkLogits; the cache unchanged") {
    const Problem p(4, 2, 8, 1, 6, {0.0f, 0.0f, 0.0f}, 51);  // 3 sinks for 4 heads
    CHECK_THROWS_WITH_AS(attention(p.request(true)), "sinkLogits must have one logit per query head: heads = 4 (got 3)", std::invalid_argument);
    std::vector<float> bad = {0.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f};
    AttentionRequest r = p.request(true);
    r.sinkLogits = View<float>(bad.data(), bad.size());
    CHECK_THROWS_WITH_AS(attention(r), "sinkLogits[1] must be finite (got NaN)", std::invalid_argument);

    KVCacheConfig c;
    c.kvHeads = 2;
    c.headDim = 8;
    c.capacity = 8;
    KVCache cache(c);
    cache.append(View<float>(p.k.data(), p.k.size()), View<float>(p.v.data(), p.v.size()), p.kLen);
    const auto keys = cache.keys();
    const auto positions = cache.positions(), next = cache.nextPositions();
    std::vector<float> out(p.q.size(), 7.0f);
    CHECK_THROWS_WITH_AS(cache.attend(View<float>(p.q.data(), p.q.size()), 4, 1, NoEncoding{}, {}, true, out.data(), std::numeric_limits<double>::quiet_NaN(),
                                      {}, View<float>(p.sinks.data(), p.sinks.size())),
                         "sinkLogits must have one logit per query head: heads = 4 (got 3)", std::invalid_argument);
    CHECK(cache.keys() == keys);
    CHECK(cache.positions() == positions);
    CHECK(cache.nextPositions() == next);
    for (float x : out) CHECK(x == 7.0f);  // out untouched
}
