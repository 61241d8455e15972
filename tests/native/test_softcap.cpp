// Logit soft-capping (Gemma 2, issue 33). The reference is transformers' modeling_gemma2.py
// eager_attention_forward:
//     attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
//     if softcap is not None:
//         attn_weights = attn_weights / softcap; attn_weights = torch.tanh(attn_weights); attn_weights = attn_weights * softcap
//     attn_weights = attn_weights + causal_mask; softmax(attn_weights, dim=-1) @ value_states
// (scaling = query_pre_attn_scalar ** -0.5), written here in long double with std::tanh; every path of
// the engine and the cache checked against it. The kernel's tanh is within 2e-7 * softcap of the exact
// one (test_kernels.cpp), which bounds what these comparisons allow.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <posenc/posenc.hpp>

#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
struct Capped {
    int heads, kvHeads, hd, qLen, kLen;
    double scale, cap;
    std::vector<float> q, k, v;
    Capped(int heads_, int kvHeads_, int hd_, int qLen_, int kLen_, double scale_, double cap_, unsigned seed)
        : heads(heads_), kvHeads(kvHeads_), hd(hd_), qLen(qLen_), kLen(kLen_), scale(scale_), cap(cap_),
          // large enough that many logits pass the cap (|scale q.k| up to ~3 cap)
          q(ref::randomVector(std::size_t(heads_) * qLen_ * hd_, seed, -6.f, 6.f)),
          k(ref::randomVector(std::size_t(kvHeads_) * kLen_ * hd_, seed + 1, -6.f, 6.f)),
          v(ref::randomVector(std::size_t(kvHeads_) * kLen_ * hd_, seed + 2, -1.f, 1.f)) {}

    AttentionRequest request(bool causal, int window = 0) const {
        AttentionRequest r;
        r.dims = {heads, kvHeads, hd, qLen, kLen};
        r.q = View<float>(q.data(), q.size());
        r.k = View<float>(k.data(), k.size());
        r.v = View<float>(v.data(), v.size());
        r.causal = causal;
        r.window = window;
        r.scale = scale;
        r.softcap = cap;
        return r;
    }

    // out and the capped, masked logits (-inf where masked); queries at the last qLen positions.
    void reference(bool causal, int window, std::vector<ld>& out, std::vector<ld>& logits) const {
        out.assign(std::size_t(heads) * qLen * hd, 0);
        logits.assign(std::size_t(heads) * qLen * kLen, -std::numeric_limits<ld>::infinity());
        for (int h = 0; h < heads; ++h) {
            const int g = h / (heads / kvHeads);
            for (int i = 0; i < qLen; ++i) {
                const int qPos = kLen - qLen + i;
                ld m = -std::numeric_limits<ld>::infinity();
                ld* row = logits.data() + (std::size_t(h) * qLen + i) * kLen;
                for (int j = 0; j < kLen; ++j) {
                    if ((causal && j > qPos) || (window > 0 && !(qPos - j >= 0 && qPos - j < window))) continue;
                    ld s = 0;
                    for (int c = 0; c < hd; ++c) s += ld(q[(std::size_t(h) * qLen + i) * hd + c]) * ld(k[(std::size_t(g) * kLen + j) * hd + c]);
                    row[j] = ld(cap) * std::tanh(s * ld(scale) / ld(cap));
                    m = std::max(m, row[j]);
                }
                ld den = 0;
                for (int j = 0; j < kLen; ++j) den += std::exp(row[j] - m);
                for (int j = 0; j < kLen; ++j)
                    for (int c = 0; c < hd; ++c)
                        out[(std::size_t(h) * qLen + i) * hd + c] += std::exp(row[j] - m) / den * ld(v[(std::size_t(g) * kLen + j) * hd + c]);
            }
        }
    }
};

double largestDifference(const std::vector<float>& got, const std::vector<ld>& want) {
    REQUIRE(got.size() == want.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isinf(want[i]) && got[i] == -std::numeric_limits<float>::infinity()) continue;  // masked
        worst = std::max(worst, double(std::fabs(ld(got[i]) - want[i])));
    }
    return worst;
}
}  // namespace

TEST_CASE("softcap: attention equals Gemma 2's capped logits (scale by query_pre_attn_scalar, tanh cap, then the mask)") {
    // Gemma 2 9B's numbers: 16 query heads over 8 kv heads of 256, query_pre_attn_scalar 256, softcap 50;
    // here fewer heads and a smaller head, an odd one, the same GQA ratio
    const Capped p(4, 2, 33, 6, 90, 1.0 / std::sqrt(256.0), 50.0, 61);
    for (int window : {0, 16}) {
        CAPTURE(window);
        std::vector<ld> wantOut, wantLogits;
        p.reference(true, window, wantOut, wantLogits);
        const AttentionResult streamed = attention(p.request(true, window));
        const AttentionResult stored = attention(p.request(true, window), true, true);
        // a logit's error is at most 2e-7 cap = 1e-5; the softmax turns it into a relative error of the weights
        CHECK(largestDifference(stored.scores, wantLogits) <= 2e-7 * p.cap + 1e-5);
        CHECK(largestDifference(streamed.out, wantOut) <= 3e-5);
        CHECK(largestDifference(stored.out, wantOut) <= 3e-5);
        for (float s : stored.scores) CHECK((s == -std::numeric_limits<float>::infinity() || std::fabs(s) <= 50.0f));  // masked stays -inf
    }
    // the cap binds: without it the same call differs
    AttentionRequest uncapped = p.request(true);
    uncapped.softcap.reset();
    std::vector<ld> wantOut, wantLogits;
    p.reference(true, 0, wantOut, wantLogits);
    CHECK(largestDifference(attention(uncapped).out, wantOut) > 1e-2);
}

TEST_CASE("softcap with score terms: the bias is capped too (ALiBi added before the cap)") {
    const Capped p(2, 2, 8, 4, 12, 0.5, 3.0, 71);
    AttentionRequest r = p.request(true);
    AlibiEncoding alibi;
    alibi.heads = 2;
    r.encoding = alibi;
    const AttentionResult got = attention(r, false, true);
    const std::vector<double> slopes = alibiSlopes(2);
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < p.qLen; ++i) {
            const int qPos = p.kLen - p.qLen + i;
            for (int j = 0; j <= qPos; ++j) {
                ld s = 0;
                for (int c = 0; c < p.hd; ++c) s += ld(p.q[(std::size_t(h) * p.qLen + i) * p.hd + c]) * ld(p.k[(std::size_t(h) * p.kLen + j) * p.hd + c]);
                const ld want = ld(p.cap) * std::tanh((s * ld(p.scale) - ld(slopes[std::size_t(h)]) * (qPos - j)) / ld(p.cap));
                CHECK(double(std::fabs(ld(got.scores[(std::size_t(h) * p.qLen + i) * p.kLen + j]) - want)) <= 2e-7 * p.cap + 2e-6);
            }
        }
}

TEST_CASE("softcap: the decode split, threads, and the KV cache give the same result") {
    const Capped p(4, 2, 16, 1, 4500, 0.25, 30.0, 81);
    std::vector<ld> wantOut, wantLogits;
    p.reference(true, 0, wantOut, wantLogits);
    const int before = threadCount();
    setThreadCount(1);
    const std::vector<float> one = attention(p.request(true)).out;
    setThreadCount(3);
    const std::vector<float> three = attention(p.request(true)).out;
    setThreadCount(before);
    CHECK(largestDifference(one, wantOut) <= 3e-5);
    CHECK(one == three);

    KVCacheConfig c;
    c.kvHeads = p.kvHeads;
    c.headDim = p.hd;
    c.capacity = 4608;
    KVCache cache(c);
    cache.append(View<float>(p.k.data(), p.k.size()), View<float>(p.v.data(), p.v.size()), p.kLen);
    std::vector<float> out(p.q.size());
    cache.attend(View<float>(p.q.data(), p.q.size()), p.heads, 1, NoEncoding{}, {}, true, out.data(), p.scale, {}, {}, p.cap);
    CHECK(out == one);
}

TEST_CASE("softcap: a positive finite number, else std::invalid_argument naming softcap") {
    const Capped p(1, 1, 4, 1, 2, 0.5, 1.0, 91);
    for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), 1e39}) {
        AttentionRequest r = p.request(false);
        r.softcap = bad;
        CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("softcap must be"), std::invalid_argument);
    }
}
