// A naive long-double attention written from the definition, and the random problem it runs on:
// score(i, j) = scale * (q_i . k_j + content) + bias, masked (key mask, causal, window, chunk), softmax
// over j (with any sink logit in the denominator), out_i = sum_j w_ij (v_j + valueRow); soft-capping
// (tanh) between the score and the mask. Values (and out) may have their own width, valueDim (DeepSeek
// MLA), the q.k product running over headDim. Each encoding's part (NaiveTerms) is written by the test
// from that encoding's reference. Shared by test_attention.cpp and test_parity_grid.cpp.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include <posenc/posenc.hpp>
#include "reference.hpp"

namespace attn_ref {
using namespace posenc;
using ref::ld;

struct Problem {
    int heads = 4, kvHeads = 4, headDim = 16, qLen = 5, kLen = 9;
    std::vector<float> q, k, v;
    std::vector<std::int32_t> qPos, kPos;
    std::vector<std::uint8_t> keyMask;
    bool causal = false;
    int window = 0;
    int chunk = 0;
    std::vector<float> sinkLogits;  // [heads] or empty: gpt-oss's per-head sink logit in every softmax
    double softcap = 0;             // > 0: Gemma 2's logit soft-capping, before the mask
    int valueDim = 0;               // v's and out's channels; 0 = headDim (setValueDim draws v anew)
    unsigned seed = 0;

    Problem(int heads_, int kvHeads_, int headDim_, int qLen_, int kLen_, unsigned seed)
        : heads(heads_), kvHeads(kvHeads_), headDim(headDim_), qLen(qLen_), kLen(kLen_), seed(seed) {
        q = ref::randomVector(static_cast<std::size_t>(heads) * qLen * headDim, seed);
        k = ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * headDim, seed + 1);
        v = ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * headDim, seed + 2);
        for (int j = 0; j < kLen; ++j) kPos.push_back(j);
        for (int i = 0; i < qLen; ++i) qPos.push_back(std::max(kLen - qLen, 0) + i);
    }
    int vd() const { return valueDim != 0 ? valueDim : headDim; }
    void setValueDim(int d) {
        valueDim = d;
        v = ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * vd(), seed + 3);
    }
    AttentionRequest request(Encoding e) const {
        AttentionRequest r;
        r.dims = AttentionDims{heads, kvHeads, headDim, qLen, kLen, valueDim};
        r.q = q;
        r.k = k;
        r.v = v;
        r.qPositions = qPos;
        r.kPositions = kPos;
        r.keyMask = keyMask;
        r.causal = causal;
        r.window = window;
        r.chunk = chunk;
        r.encoding = std::move(e);
        r.sinkLogits = sinkLogits;
        if (softcap > 0) r.softcap = softcap;
        return r;
    }
    const float* qv(int h, int i) const { return q.data() + (static_cast<std::size_t>(h) * qLen + i) * headDim; }
    const float* kv(int h, int j) const { return k.data() + (static_cast<std::size_t>(h / (heads / kvHeads)) * kLen + j) * headDim; }
    const float* vv(int h, int j) const { return v.data() + (static_cast<std::size_t>(h / (heads / kvHeads)) * kLen + j) * vd(); }
    bool allowed(int i, int j) const {
        if (!keyMask.empty() && !keyMask[j]) return false;
        const long d = long(qPos[i]) - kPos[j];
        if (causal && d < 0) return false;
        if (window > 0 && (d < 0 || d >= window)) return false;
        // HF masking_utils.chunked_overlay: kv_idx // chunk_size == q_idx // chunk_size (indices without padding)
        if (chunk > 0 && kPos[j] / chunk != qPos[i] / chunk) return false;
        return true;
    }
};

inline ld dotLd(const float* a, const float* b, int n) {
    ld s = 0;
    for (int i = 0; i < n; ++i) s += ld(a[i]) * b[i];
    return s;
}

// What an encoding adds, written from its definition: content (scaled with q.k), bias (unscaled),
// optional value row, optional replacement of q in the content dot product.
struct NaiveTerms {
    std::function<ld(int h, int i, int j)> content = [](int, int, int) { return ld(0); };
    std::function<ld(int h, int i, int j)> bias = [](int, int, int) { return ld(0); };
    std::function<const float*(int h, int i, int j)> valueRow;
    std::function<ld(int h, int i, int j)> contentDot;  // default q_i . k_j
    // Stick-breaking attention (Tan et al. 2024) in place of the softmax, as flash-linear-attention's
    // fla/ops/stickbreaking_attn/naive.py (naive_stickbreaking_attn, lines 63-68 of its 2026 version):
    // mask = j < i (j <= i with attend_current); log_om_beta = logsigmoid(-z) on the mask, 0 off it;
    // log A = logsigmoid(z) + (reverse cumsum of log_om_beta) - log_om_beta, i.e. logsigmoid(z_ij) plus
    // log(1 - sigmoid(z_il)) summed over the visible keys l after j; A = exp(log A) on the mask, 0 off it.
    // Here "j < i" is kPos < qPos (the queries are the last qLen keys), and the problem's own mask
    // (causal, key mask, window) hides keys as fla's mask does: a hidden key leaves the stick unchanged.
    bool stickBreaking = false, attendCurrent = false;
};

struct Naive {
    std::vector<ld> out, weights, scores;
};

// log sigmoid(z) = -log(1 + e^-z), stable for either sign (torch.nn.functional.logsigmoid)
inline ld logSigmoidLd(ld z) { return z >= 0 ? -std::log1p(std::exp(-z)) : z - std::log1p(std::exp(z)); }

inline Naive naive(const Problem& p, const NaiveTerms& t, ld scale) {
    Naive n;
    const ld inf = std::numeric_limits<ld>::infinity();
    const int vd = p.vd();
    n.out.assign(static_cast<std::size_t>(p.heads) * p.qLen * vd, 0);
    n.weights.assign(static_cast<std::size_t>(p.heads) * p.qLen * p.kLen, 0);
    n.scores.assign(n.weights.size(), -inf);
    for (int h = 0; h < p.heads; ++h)
        for (int i = 0; i < p.qLen; ++i) {
            const std::size_t row = (static_cast<std::size_t>(h) * p.qLen + i) * p.kLen;
            // the keys this query sees: the problem's mask, and for stick-breaking j < i (j <= i with attendCurrent)
            const auto visible = [&](int j) { return p.allowed(i, j) && (!t.stickBreaking || t.attendCurrent || p.kPos[j] < p.qPos[i]); };
            ld m = -inf;
            for (int j = 0; j < p.kLen; ++j) {
                if (!visible(j)) continue;
                const ld c = t.contentDot ? t.contentDot(h, i, j) : dotLd(p.qv(h, i), p.kv(h, j), p.headDim);
                ld s = scale * (c + t.content(h, i, j)) + t.bias(h, i, j);
                // HF Gemma 2: attn_weights / softcap, tanh, * softcap, then the mask
                if (p.softcap > 0) s = ld(p.softcap) * std::tanh(s / ld(p.softcap));
                n.scores[row + j] = s;
                m = std::max(m, s);
            }
            if (t.stickBreaking) {
                std::vector<ld> logOmBeta(p.kLen, 0), after(p.kLen + 1, 0);  // after[j] = sum of logOmBeta over l > j
                for (int j = 0; j < p.kLen; ++j)
                    if (visible(j)) logOmBeta[j] = logSigmoidLd(-n.scores[row + j]);
                for (int j = p.kLen - 1; j >= 0; --j) after[j] = after[j + 1] + logOmBeta[j];
                for (int j = 0; j < p.kLen; ++j) {
                    if (!visible(j)) continue;
                    const ld w = std::exp(logSigmoidLd(n.scores[row + j]) + after[j + 1]);
                    n.weights[row + j] = w;
                    for (int c = 0; c < vd; ++c) {
                        ld add = p.vv(h, j)[c];
                        if (t.valueRow) add += t.valueRow(h, i, j)[c];
                        n.out[(static_cast<std::size_t>(h) * p.qLen + i) * vd + c] += w * add;
                    }
                }
                continue;
            }
            // HF gpt-oss: softmax(cat(scores, sink))[..., :-1], the sink's column weighs no value
            const ld sink = p.sinkLogits.empty() ? -inf : ld(p.sinkLogits[h]);
            m = std::max(m, sink);
            if (m == -inf) continue;
            ld l = p.sinkLogits.empty() ? 0 : std::exp(sink - m);
            for (int j = 0; j < p.kLen; ++j) l += visible(j) ? std::exp(n.scores[row + j] - m) : 0;
            for (int j = 0; j < p.kLen; ++j) {
                if (!visible(j)) continue;
                const ld w = std::exp(n.scores[row + j] - m) / l;
                n.weights[row + j] = w;
                for (int c = 0; c < vd; ++c) {
                    ld add = p.vv(h, j)[c];
                    if (t.valueRow) add += t.valueRow(h, i, j)[c];
                    n.out[(static_cast<std::size_t>(h) * p.qLen + i) * vd + c] += w * add;
                }
            }
        }
    return n;
}

template <class A, class B>
inline double maxDiff(const A& a, const B& b) {
    REQUIRE(a.size() == b.size());
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isinf(double(a[i])) || std::isinf(double(b[i]))) {
            if (double(a[i]) != double(b[i])) return std::numeric_limits<double>::infinity();
            continue;
        }
        m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
    }
    return m;
}

// Runs the engine both ways (streaming; materialized with weights and scores) and compares with the
// naive reference and with each other.
inline void checkAgainstNaive(const Problem& p, const Encoding& e, const NaiveTerms& t, ld scale, double tol = 2e-5) {
    const auto req = p.request(e);
    const auto streamed = attention(req);
    const auto full = attention(req, true, true);
    const auto n = naive(p, t, scale);
    CHECK(maxDiff(streamed.out, n.out) < tol);
    CHECK(maxDiff(full.out, n.out) < tol);
    CHECK(maxDiff(full.weights, n.weights) < tol);
    CHECK(maxDiff(full.scores, n.scores) < 1e-4);
    CHECK(maxDiff(streamed.out, full.out) < 1e-5);  // streaming == materialized
}

}  // namespace attn_ref
