// The parity grid (in the spirit of ggml's test-backend-ops): every encoding kind, plain, soft-capped,
// with sink logits and with values of their own width (valueDim 7 against q.k's 20: DeepSeek MLA), x every path the engine has — streaming, materialised weights and scores, the decode split over key chunks, the KV cache
// (prefill in two appends, then attend) and attentionBias for scalar biases — x every kernel set this
// build and CPU hold x 1 and 3 threads, each against the long-double reference written here from the
// kind's definition (naive_attention.hpp), and each path bit-identical at 1 and 3 threads.
//
// The kinds come from posenc::Encoding itself: a kind without a `gridCase` overload below does not
// compile, so a new kind enters the grid the day it lands, with its reference.
#include <doctest/doctest.h>

#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

#include <posenc/posenc.hpp>
#include "encodings/kind_spec.hpp"
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {

// Far positions: every kind's positions start at 2^24 + 3 (Swin's are window cells).
constexpr std::int32_t kBase = (1 << 24) + 3;

// One kind on one problem: the encoding `attention` takes, its reference, and what the cache gets.
struct GridCase {
    Encoding encoding;
    NaiveTerms terms;
    ld scale = 0;
    std::optional<RopeEncoding> cacheRope;  // the rotary part goes to the cache's config ...
    Encoding cacheEncoding;                 // ... and the rest to attend
    std::string noDecode;                   // why the decode-split problem does not apply ('' = it does)
    std::string noSinks;                    // why the sink-logit variant does not apply ('' = it does)
    std::vector<float> cacheLogForget;      // [heads, kLen]: a forgetting cache's gates, given with each append (empty: a plain cache)
    std::deque<std::vector<float>> tables;  // storage the encoding's views point into
    const std::vector<float>& table(std::size_t n, unsigned seed, float lo = -1, float hi = 1) {
        tables.push_back(ref::randomVector(n, seed, lo, hi));
        return tables.back();
    }
};

ld rsqrt(int d) { return 1 / std::sqrt(ld(d)); }

std::vector<ld> rotateHalf(const float* x, int headDim, int rotary, ld pos, ld base) {
    std::vector<ld> head(x, x + rotary);
    auto r = ref::rope(head, pos, ref::defaultInvFreq(rotary, base), true);
    std::vector<ld> out(x, x + headDim);
    std::copy(r.begin(), r.end(), out.begin());
    return out;
}

// --- one overload per kind: its encoding and the reference written from its definition ----------------

void gridCase(NoEncoding, const Problem& p, GridCase& c) {
    c.encoding = NoEncoding{};
    c.cacheEncoding = NoEncoding{};
    c.scale = rsqrt(p.headDim);
}

// RoPE (Su et al.; HF rotate_half), partial: the first half of the channels rotate, base 500.
void gridCase(RopeEncoding, const Problem& p, GridCase& c) {
    RopeEncoding rope;
    rope.config.base = 500;
    rope.config.partialRotaryFactor = 0.5;
    c.encoding = rope;
    c.cacheRope = rope;
    c.cacheEncoding = NoEncoding{};
    c.scale = rsqrt(p.headDim);
    const int rotary = p.headDim / 2;
    c.terms.contentDot = [&p, rotary](int h, int i, int j) {
        const auto a = rotateHalf(p.qv(h, i), p.headDim, rotary, p.qPos[i], 500), b = rotateHalf(p.kv(h, j), p.headDim, rotary, p.kPos[j], 500);
        ld s = 0;
        for (int x = 0; x < p.headDim; ++x) s += a[x] * b[x];
        return s;
    };
}

// ALiBi (Press et al.): -m_h (i - j), the slopes of a non-power-of-two head count.
void gridCase(AlibiEncoding, const Problem& p, GridCase& c) {
    c.encoding = c.cacheEncoding = AlibiEncoding{p.heads, {}, false};
    c.scale = rsqrt(p.headDim);
    const auto slopes = alibiSlopes(p.heads);
    c.terms.bias = [&p, slopes](int h, int i, int j) { return -ld(slopes[h]) * (ld(p.qPos[i]) - p.kPos[j]); };
}

// T5 (HF _relative_position_bucket, relative = key - query, causal buckets), no 1/sqrt(d).
void gridCase(T5Encoding, const Problem& p, GridCase& c) {
    const T5BucketOptions o{false, 32, 128};
    const auto& t = c.table(32 * static_cast<std::size_t>(p.heads), 11);
    c.encoding = c.cacheEncoding = T5Encoding{p.heads, t, o};
    c.scale = 1;
    const int heads = p.heads;
    c.terms.bias = [&p, &t, o, heads](int h, int i, int j) { return ld(t[t5Bucket(std::int64_t(p.kPos[j]) - p.qPos[i], o) * heads + h]); };
}

// Swin: table[(dh + wh - 1)(2 ww - 1) + dw + ww - 1, h] over a wh x ww window's cells.
void gridCase(SwinEncoding, const Problem& p, GridCase& c) {
    const int wh = 3, ww = 5;
    const auto& t = c.table(static_cast<std::size_t>(2 * wh - 1) * (2 * ww - 1) * p.heads, 12);
    c.encoding = c.cacheEncoding = SwinEncoding{p.heads, t, wh, ww};
    c.scale = rsqrt(p.headDim);
    c.noDecode = "a Swin window holds wh x ww tokens";
    const int heads = p.heads;
    c.terms.bias = [&p, &t, heads](int h, int i, int j) {
        const int wh = 3, ww = 5;
        const int dh = p.qPos[i] / ww - p.kPos[j] / ww, dw = p.qPos[i] % ww - p.kPos[j] % ww;
        return ld(t[((dh + wh - 1) * (2 * ww - 1) + (dw + ww - 1)) * heads + h]);
    };
}

// Shaw et al.: idx = clip(j - i, -K, K) + K; q . a^K[idx] scaled with q . k, a^V[idx] added to values.
void gridCase(ShawEncoding, const Problem& p, GridCase& c) {
    const int K = 3, d = p.headDim, vd = p.vd();
    const auto& aK = c.table(static_cast<std::size_t>(2 * K + 1) * d, 13);
    const auto& aV = c.table(static_cast<std::size_t>(2 * K + 1) * vd, 14);  // the values' width
    c.encoding = c.cacheEncoding = ShawEncoding{K, aK, aV};
    c.scale = rsqrt(d);
    auto idx = [&p, K](int i, int j) { return int(std::clamp<std::int64_t>(std::int64_t(p.kPos[j]) - p.qPos[i], -K, K) + K); };
    c.terms.content = [&p, &aK, idx, d](int h, int i, int j) { return dotLd(p.qv(h, i), aK.data() + idx(i, j) * d, d); };
    c.terms.valueRow = [&aV, idx, vd](int, int i, int j) { return aV.data() + idx(i, j) * vd; };
}

// Transformer-XL (Dai et al.): (q + u) . k + (q + v) . r[i - j], r given per head for every distance.
void gridCase(XlEncoding, const Problem& p, GridCase& c) {
    const int d = p.headDim, heads = p.heads;
    const std::int64_t distances = std::int64_t(p.qPos.back()) - p.kPos.front() + 1;
    const auto& u = c.table(static_cast<std::size_t>(heads) * d, 15);
    const auto& v = c.table(static_cast<std::size_t>(heads) * d, 16);
    const auto& r = c.table(static_cast<std::size_t>(heads) * distances * d, 17);
    XlEncoding e;
    e.u = u;
    e.v = v;
    e.r = r;
    c.encoding = c.cacheEncoding = e;
    c.scale = rsqrt(d);
    c.terms.contentDot = [&p, &u, d](int h, int i, int j) {
        ld s = 0;
        for (int x = 0; x < d; ++x) s += (ld(p.qv(h, i)[x]) + u[h * d + x]) * p.kv(h, j)[x];
        return s;
    };
    c.terms.content = [&p, &v, &r, d, distances](int h, int i, int j) {
        const std::int64_t delta = std::int64_t(p.qPos[i]) - p.kPos[j];
        ld s = 0;
        for (int x = 0; x < d; ++x) s += (ld(p.qv(h, i)[x]) + v[h * d + x]) * r[(static_cast<std::size_t>(h) * distances + delta) * d + x];
        return s;
    };
}

// DeBERTa (He et al.; HF DisentangledSelfAttention): c2p q . posKey[h][idx] + p2c k . posQuery[h][idx],
// idx = clamp(bucket(i - j) + span, 0, 2 span - 1), scale 1/sqrt(3d).
void gridCase(DebertaEncoding, const Problem& p, GridCase& c) {
    const int d = p.headDim, span = 8;
    const DebertaBucketOptions b{8, 24, DebertaConvention::hf};
    const auto& pk = c.table(static_cast<std::size_t>(p.heads) * 2 * span * d, 18);
    const auto& pq = c.table(static_cast<std::size_t>(p.heads) * 2 * span * d, 19);
    DebertaEncoding e;
    e.posKey = pk;
    e.posQuery = pq;
    e.span = span;
    e.buckets = b;
    c.encoding = c.cacheEncoding = e;
    c.scale = 1 / std::sqrt(ld(3 * d));
    c.terms.content = [&p, &pk, &pq, d, span, b](int h, int i, int j) {
        const int idx = int(std::clamp<std::int64_t>(debertaBucket(std::int64_t(p.qPos[i]) - p.kPos[j], b) + span, 0, 2 * span - 1));
        const std::size_t row = (static_cast<std::size_t>(h) * 2 * span + idx) * d;
        return dotLd(p.qv(h, i), pk.data() + row, d) + dotLd(p.kv(h, j), pq.data() + row, d);
    };
}

// BERT relative_key_query (HF BertSelfAttention): E[i - j + maxPosition - 1] dotted with q and with k.
void gridCase(RelativeKeyEncoding, const Problem& p, GridCase& c) {
    const int d = p.headDim;
    const int maxPosition = static_cast<int>(std::int64_t(p.qPos.back()) - p.kPos.front() + 1);
    const auto& E = c.table(static_cast<std::size_t>(2 * maxPosition - 1) * d, 20);
    c.encoding = c.cacheEncoding = RelativeKeyEncoding{E, maxPosition, true};
    c.scale = rsqrt(d);
    c.terms.content = [&p, &E, d, maxPosition](int h, int i, int j) {
        const float* row = E.data() + (std::int64_t(p.qPos[i]) - p.kPos[j] + maxPosition - 1) * d;
        return dotLd(p.qv(h, i), row, d) + dotLd(p.kv(h, j), row, d);
    };
}

// KERPLE log (Chi et al. 2022): -r1 log(1 + r2 |i - j|) per head.
void gridCase(KerpleEncoding, const Problem& p, GridCase& c) {
    const auto& r1 = c.table(p.heads, 21, 0.1f, 2.0f);
    const auto& r2 = c.table(p.heads, 22, 0.05f, 1.2f);
    c.encoding = c.cacheEncoding = KerpleEncoding{KerpleVariant::log, p.heads, View<float>(r1), View<float>(r2)};
    c.scale = rsqrt(p.headDim);
    c.terms.bias = [&p, &r1, &r2](int h, int i, int j) { return -ld(r1[h]) * std::log(1 + ld(r2[h]) * std::fabs(ld(p.qPos[i]) - p.kPos[j])); };
}

// FIRE (Li et al. 2024): MLP(log(c |i - j| + 1) / (log(c max(L, i) + 1) + eps)) per head.
void gridCase(FireEncoding, const Problem& p, GridCase& c) {
    const int heads = p.heads, hidden = 7;
    const auto& w1 = c.table(hidden, 23), &b1 = c.table(hidden, 24);
    const auto& w2 = c.table(static_cast<std::size_t>(heads) * hidden, 25), &b2 = c.table(heads, 26);
    c.encoding = c.cacheEncoding = FireEncoding{heads, hidden, View<float>(w1), View<float>(b1), View<float>(w2), View<float>(b2), 1.5, 16, 1e-6};
    c.scale = rsqrt(p.headDim);
    c.terms.bias = [&p, &w1, &b1, &w2, &b2, hidden](int h, int i, int j) {
        const ld norm = std::log(ld(1.5) * std::max(ld(16), ld(p.qPos[i])) + 1) + ld(1e-6);
        const ld x = std::log(ld(1.5) * std::fabs(ld(p.qPos[i]) - p.kPos[j]) + 1) / norm;
        ld y = b2[h];
        for (int k = 0; k < hidden; ++k) y += ld(w2[h * hidden + k]) * std::max(ld(0), ld(w1[k]) * x + ld(b1[k]));
        return y;
    };
}

// CoPE (Golovneva et al. 2024): gates sigmoid(scale q . k) over the allowed keys, position of key j =
// sum of the gates of keys j..end, clamped to npos - 1, e(p) interpolated; q . e(p) joins q . k. The
// reverse sums are formed once per query row.
void gridCase(CopeEncoding, const Problem& p, GridCase& c) {
    const int d = p.headDim, npos = 9;
    const auto& emb = c.table(static_cast<std::size_t>(npos) * d, 27);
    c.encoding = c.cacheEncoding = CopeEncoding{npos, View<float>(emb)};
    c.scale = rsqrt(d);
    auto sums = std::make_shared<std::map<std::pair<int, int>, std::vector<ld>>>();
    c.terms.content = [&p, &emb, d, npos, sums](int h, int i, int j) {
        auto& pos = (*sums)[{h, i}];
        if (pos.empty()) {
            pos.assign(p.kLen + 1, 0);
            for (int u = p.kLen - 1; u >= 0; --u)
                pos[u] = pos[u + 1] + (p.allowed(i, u) ? 1 / (1 + std::exp(-rsqrt(d) * dotLd(p.qv(h, i), p.kv(h, u), d))) : 0);
        }
        const ld at = std::min(pos[j], ld(npos - 1));
        const int lo = int(std::floor(at)), hi = int(std::ceil(at));
        return dotLd(p.qv(h, i), emb.data() + hi * d, d) * (at - lo) + dotLd(p.qv(h, i), emb.data() + lo * d, d) * (1 - (at - lo));
    };
}

// Forgetting attention (FoX, Lin et al. 2025): G_t = cumulative sum of the keys' log forget gates
// (fla-org/flash-linear-attention fla/ops/forgetting_attn/naive.py:45 `gc = g.float().cumsum(1)`), the
// bias of query i on key j G_i - G_j (naive.py:51 `ref + gc[q] - gc[k]`) with the query's G that of its
// own token: zhixuan-lin/forgetting-transformer src/forgetting_transformer/ops/forgetting_attention.py
// reads query m's cumulative sum at key index P_SEQ + m (`log_lambda_out_ptrs`). Here: the last key
// whose position is at or before the query's. Gates in [-0.3, 0), per query head ([heads, kLen]).
void gridCase(ForgettingEncoding, const Problem& p, GridCase& c) {
    const auto& gates = c.table(static_cast<std::size_t>(p.heads) * p.kLen, 31, -0.3f, 0.0f);
    c.encoding = ForgettingEncoding{View<float>(gates)};
    c.cacheEncoding = ForgettingEncoding{};
    c.cacheLogForget = gates;
    c.scale = rsqrt(p.headDim);
    auto cum = std::make_shared<std::vector<ld>>();
    for (int h = 0; h < p.heads; ++h) {
        ld g = 0;
        for (int j = 0; j < p.kLen; ++j) cum->push_back(g += ld(gates[static_cast<std::size_t>(h) * p.kLen + j]));
    }
    c.terms.bias = [&p, cum](int h, int i, int j) {
        int own = -1;
        for (int u = 0; u < p.kLen; ++u)
            if (p.kPos[u] <= p.qPos[i]) own = u;
        const ld* G = cum->data() + static_cast<std::size_t>(h) * p.kLen;
        return G[own] - G[j];
    };
}

// RoPE + ALiBi: rotated q . k plus -m (i - j).
void gridCase(CombinedEncoding, const Problem& p, GridCase& c) {
    GridCase rope, alibi;
    gridCase(RopeEncoding{}, p, rope);
    gridCase(AlibiEncoding{}, p, alibi);
    c.encoding = CombinedEncoding{{rope.encoding, alibi.encoding}};
    c.cacheRope = rope.cacheRope;
    c.cacheEncoding = alibi.encoding;
    c.scale = rsqrt(p.headDim);
    c.terms.contentDot = rope.terms.contentDot;
    c.terms.bias = alibi.terms.bias;
}

// Query temperature (Llama 4 / Ministral 3): q times 1 + beta ln(1 + floor((p + offset) / length)).
void gridCase(TemperatureEncoding, const Problem& p, GridCase& c) {
    const TemperatureEncoding t{0.1, 8192, 1};
    c.encoding = c.cacheEncoding = t;
    c.scale = rsqrt(p.headDim);
    c.terms.contentDot = [&p, t](int h, int i, int j) {
        const ld s = 1 + ld(t.beta) * std::log(1 + ld((std::int64_t(p.qPos[i]) + t.offset) / t.length));
        return s * dotLd(p.qv(h, i), p.kv(h, j), p.headDim);
    };
}

// Stick-breaking attention (Tan et al. 2024) in place of the softmax: the reference's formula is
// naive_attention.hpp's (NaiveTerms::stickBreaking, from fla naive_stickbreaking_attn); default scale.
void gridCase(StickBreakingEncoding, const Problem& p, GridCase& c) {
    c.encoding = c.cacheEncoding = StickBreakingEncoding{};
    c.scale = rsqrt(p.headDim);
    c.terms.stickBreaking = true;
    c.noSinks = "sink logits are a softmax option (stickBreaking refuses them)";
}

// p-RoPE, a rope option (frequencyFraction) rather than a kind, in the grid too.
struct PRopeCase {};

// p-RoPE (Barbero et al. 2025; HF rope_type 'proportional'): of 10 pairs over 20 channels, the 7 lowest
// frequencies truncated (p = 0.3: int(0.3 * 20 // 2) = 3 kept), pairs (i, i + 10) across the whole head.
void gridCase(PRopeCase, const Problem& p, GridCase& c) {
    RopeEncoding rope;
    rope.config.base = 500;
    rope.config.frequencyFraction = 0.3;
    c.encoding = rope;
    c.cacheRope = rope;
    c.cacheEncoding = NoEncoding{};
    c.scale = rsqrt(p.headDim);
    const int d = p.headDim;
    std::vector<ld> w(static_cast<std::size_t>(d / 2), 0);
    for (int i = 0; i < int(0.3 * d) / 2; ++i) w[i] = std::pow(ld(500), -ld(2 * i) / d);
    c.terms.contentDot = [&p, w, d](int h, int i, int j) {
        const auto a = ref::rope(std::vector<ld>(p.qv(h, i), p.qv(h, i) + d), p.qPos[i], w, true);
        const auto b = ref::rope(std::vector<ld>(p.kv(h, j), p.kv(h, j) + d), p.kPos[j], w, true);
        ld s = 0;
        for (int x = 0; x < d; ++x) s += a[x] * b[x];
        return s;
    };
}

// LieRE (Ostmeier et al. 2024), one axis, blocks of 3 (Rodrigues) over 18 of the 20 channels.
void gridCase(LiereEncoding, const Problem& p, GridCase& c) {
    const int d = p.headDim, R = 18, blocks = R / 3;
    auto& g = c.tables.emplace_back(static_cast<std::size_t>(blocks) * 9, 0.f);
    const auto r = ref::randomVector(g.size(), 28, -0.7f, 0.7f);
    for (int m = 0; m < blocks; ++m)
        for (int i = 0; i < 3; ++i)
            for (int j = i + 1; j < 3; ++j) g[m * 9 + i * 3 + j] = r[m * 9 + i * 3 + j], g[m * 9 + j * 3 + i] = -r[m * 9 + i * 3 + j];
    RopeEncoding rope;
    rope.config.multiAxis = MultiAxis::liere;
    rope.config.blockSize = 3;
    rope.config.partialRotaryFactor = 0.9;
    rope.config.generators = g;
    c.encoding = LiereEncoding{rope};
    c.cacheRope = rope;
    c.cacheEncoding = NoEncoding{};
    c.scale = rsqrt(d);
    const std::vector<float> gen = g;
    c.terms.contentDot = [&p, gen, d, R](int h, int i, int j) {
        const auto a = ref::liere(p.qv(h, i), d, 0, R, 3, gen, {ld(p.qPos[i])});
        const auto b = ref::liere(p.kv(h, j), d, 0, R, 3, gen, {ld(p.kPos[j])});
        ld s = 0;
        for (int x = 0; x < d; ++x) s += a[x] * b[x];
        return s;
    };
}

// --- the grid -------------------------------------------------------------------------------------

struct KeepSettings {
    std::string set = activeKernelSet();
    int threads = threadCount();
    ~KeepSettings() {
        useKernelSet(set);
        setThreadCount(threads);
    }
};

// Positions 2^24 + 3 onwards (Swin: window cells 0..), queries on the last qLen keys, causal.
Problem problem(int heads, int kvHeads, int headDim, int qLen, int kLen, unsigned seed, bool swin) {
    Problem p(heads, kvHeads, headDim, qLen, kLen, seed);
    p.causal = true;
    const std::int32_t base = swin ? 0 : kBase;
    for (int j = 0; j < kLen; ++j) p.kPos[j] = base + j;
    for (int i = 0; i < qLen; ++i) p.qPos[i] = base + kLen - qLen + i;
    return p;
}

struct Outputs {
    std::vector<float> out, weights, scores;
};

// The KV cache: the keys in two appends at their positions, then the queries at theirs.
std::vector<float> throughCache(const Problem& p, const GridCase& c) {
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.valueDim = p.valueDim;
    config.capacity = p.kLen;
    config.rope = c.cacheRope;
    config.forgetting = !c.cacheLogForget.empty();
    KVCache cache(config);
    const int first = p.kLen - p.qLen;
    for (auto part : {std::pair{0, first}, std::pair{first, p.kLen}}) {
        const int T = part.second - part.first;
        if (T == 0) continue;
        std::vector<float> k, v;
        for (int h = 0; h < p.kvHeads; ++h)
            for (int j = part.first; j < part.second; ++j) {
                const std::size_t at = (static_cast<std::size_t>(h) * p.kLen + j) * p.headDim, vat = (static_cast<std::size_t>(h) * p.kLen + j) * p.vd();
                k.insert(k.end(), p.k.begin() + at, p.k.begin() + at + p.headDim);
                v.insert(v.end(), p.v.begin() + vat, p.v.begin() + vat + p.vd());
            }
        const std::vector<std::int32_t> pos(p.kPos.begin() + part.first, p.kPos.begin() + part.second);
        std::vector<float> gates;  // [heads, T]: this append's columns of [heads, kLen]
        for (int h = 0; h < p.heads && !c.cacheLogForget.empty(); ++h)
            gates.insert(gates.end(), c.cacheLogForget.begin() + h * p.kLen + part.first, c.cacheLogForget.begin() + h * p.kLen + part.second);
        cache.append(k, v, T, pos, {}, {}, gates);
    }
    std::vector<float> out(static_cast<std::size_t>(p.heads) * p.qLen * p.vd());
    std::optional<double> softcap;
    if (p.softcap > 0) softcap = p.softcap;
    cache.attend(p.q, p.heads, p.qLen, c.cacheEncoding, p.qPos, p.causal, out.data(), std::numeric_limits<double>::quiet_NaN(), {},
                 p.sinkLogits, softcap);
    return out;
}

// Runs every path of one kind on one problem under every kernel set and thread count.
void runGrid(const std::string& kind, const Problem& p, const GridCase& c, bool decode) {
    const Naive want = naive(p, c.terms, c.scale);
    const bool scalarBias = isScalarBias(c.encoding);
    std::vector<ld> wantBias;
    if (scalarBias)
        for (int h = 0; h < p.heads; ++h)
            for (int i = 0; i < p.qLen; ++i)
                for (int j = 0; j < p.kLen; ++j) wantBias.push_back(c.terms.bias(h, i, j));
    KeepSettings keep;
    for (const std::string& set : kernelSets()) {
        useKernelSet(set);
        std::optional<Outputs> atOne;
        for (int threads : {1, 3}) {
            setThreadCount(threads);
            CAPTURE(kind);
            CAPTURE(set);
            CAPTURE(threads);
            CAPTURE(decode);
            CAPTURE(p.softcap);
            CAPTURE(p.sinkLogits.size());
            CAPTURE(p.valueDim);
            const AttentionRequest r = p.request(c.encoding);  // the kind's default scale: the reference's
            Outputs got;
            got.out = attention(r).out;  // streaming
            auto full = attention(r, true, true);
            CHECK(maxDiff(got.out, want.out) < 2e-5);
            CHECK(maxDiff(full.out, want.out) < 2e-5);
            CHECK(maxDiff(full.weights, want.weights) < 2e-5);
            CHECK(maxDiff(full.scores, want.scores) < 1e-4);
            got.weights = std::move(full.weights);
            got.scores = std::move(full.scores);
            const auto cached = throughCache(p, c);
            CHECK(maxDiff(cached, want.out) < 2e-5);
            got.out.insert(got.out.end(), cached.begin(), cached.end());
            if (scalarBias) {
                const auto bias = attentionBias(c.encoding, p.heads, p.qPos, p.kPos);
                CHECK(maxDiff(bias, wantBias) < 1e-5);
                got.scores.insert(got.scores.end(), bias.begin(), bias.end());
            }
            if (!atOne) {
                atOne = std::move(got);
                continue;
            }
            // the same bits at any thread count, on every path
            CHECK(got.out == atOne->out);
            CHECK(got.weights == atOne->weights);
            CHECK(got.scores == atOne->scores);
        }
    }
}

// Each kind plain, with Gemma 2's soft-capping, with gpt-oss's sink logits, and with values of 7
// channels (DeepSeek MLA's valueDim; its own case, since a value table has the values' width).
// (c.terms read the caller's problem: the copy differs only in softcap and sinks, which they do not read.)
template <class Kind>
void runVariants(const std::string& kind, Problem p, const GridCase& c, bool decode) {
    runGrid(kind, p, c, decode);
    p.softcap = 5;  // low enough to bend every kind's logits
    runGrid(kind, p, c, decode);
    p.softcap = 0;
    if (c.noSinks.empty()) {
        p.sinkLogits = ref::randomVector(static_cast<std::size_t>(p.heads), 77, -2, 3);
        runGrid(kind, p, c, decode);
        p.sinkLogits.clear();
    }
    p.setValueDim(7);
    GridCase narrow;
    gridCase(Kind{}, p, narrow);
    runGrid(kind, p, narrow, decode);
}

template <class Kind>
void gridKind() {
    std::string kind = "combined";  // a combination has no spec of its own: its parts have
    if constexpr (std::is_same_v<Kind, PRopeCase>) kind = "rope (p-RoPE)";
    else if constexpr (!std::is_same_v<Kind, CombinedEncoding>) kind = kinds::specOf<Kind>().name;
    const bool swin = std::is_same_v<Kind, SwinEncoding>;
    // 6 heads over 2 kv heads (GQA 3, not a power of two), 20 channels, 7 queries over 45 keys (Swin: a 3 x 5 window)
    {
        const Problem p = problem(6, 2, 20, swin ? 15 : 7, swin ? 15 : 45, 1000u + static_cast<unsigned>(kind.size()), swin);
        GridCase c;
        gridCase(Kind{}, p, c);
        runVariants<Kind>(kind, p, c, false);
    }
    // decode: 2 queries over 4500 keys on 2 kv heads, few enough tiles that the engine splits the keys
    // into chunks of kDecodeChunkKeys and merges them
    GridCase probe;
    const Problem small = problem(6, 2, 20, 2, 2, 1, swin);
    gridCase(Kind{}, small, probe);
    if (!probe.noDecode.empty()) {
        MESSAGE(kind << ": no decode problem (" << probe.noDecode << ")");
        return;
    }
    const Problem p = problem(4, 2, 20, 2, 4500, 2000u + static_cast<unsigned>(kind.size()), false);
    GridCase c;
    gridCase(Kind{}, p, c);
    runVariants<Kind>(kind, p, c, true);
}

template <std::size_t... I>
void gridEveryKind(std::index_sequence<I...>) {
    (gridKind<std::variant_alternative_t<I, Encoding>>(), ...);
}

}  // namespace

TEST_CASE("parity grid: every kind x {streaming, weights, decode split, KV cache, attentionBias} x kernel set x {1, 3} threads") {
    gridEveryKind(std::make_index_sequence<std::variant_size_v<Encoding>>{});
}

TEST_CASE("parity grid: p-RoPE (a rope option) x {streaming, weights, decode split, KV cache} x kernel set x {1, 3} threads") {
    gridKind<PRopeCase>();
}
