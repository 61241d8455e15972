// DeepSeek V2 / V3 and Kimi K2 attention (multi-head latent attention, MLA; issue 33): q.k over heads of
// qk_nope_head_dim + qk_rope_head_dim channels with RoPE on the trailing qk_rope_head_dim only
// (RopeConfig::rotaryOffset), values and output of v_head_dim channels (AttentionDims::valueDim,
// KVCacheConfig::valueDim).
//
// The reference is transformers' DeepseekV3Attention, src/transformers/models/deepseek_v3/
// modeling_deepseek_v3.py (huggingface/transformers at 00b676f8), written here in long double:
//   l. 390  q_pass, q_rot = torch.split(q_states, [qk_nope_head_dim, qk_rope_head_dim], dim=-1)
//   l. 396  k_pass, value_states = torch.split(k_pass, [qk_nope_head_dim, v_head_dim], dim=-1)
//   l. 401-404  rope_interleave: apply_rotary_pos_emb_interleave (l. 303-311: x.view(..., d/2, 2)
//           .transpose(4, 3) — even channels first, then odd — then q cos + rotate_half(q) sin), else
//           apply_rotary_pos_emb (l. 231-235; rotate_half l. 204-208: cat(-x2, x1))
//   l. 405  k_rot = k_rot.expand(...): one rope key for every head (given here per kv head, expanded)
//   l. 407-408  query_states = cat(q_pass, q_rot), key_states = cat(k_pass, k_rot)
//   l. 263-270  eager_attention_forward: q k^T * scaling + mask, softmax, @ value_states (v_head_dim)
//   l. 364  scaling = qk_head_dim^-0.5
//   l. 77-80  cos, sin of emb = cat(freqs, freqs), freqs = position * inv_freq, inv_freq_i =
//           base^(-2i / qk_rope_head_dim) (configuration_deepseek_v3.py: head_dim = qk_rope_head_dim)
// The interleaved variant returns q_rot in rotate_half's channel order (a permutation of posenc's
// interleaved layout applied to both q and k), so scores, weights and out agree; applyRope's channels
// are compared through that permutation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>

#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
constexpr ld kNegInf = -std::numeric_limits<ld>::infinity();

struct KeepThreadCount {
    int n = threadCount();
    ~KeepThreadCount() { setThreadCount(n); }
};

bool sameBytes(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);  // (no memcmp of null)
}

// apply_rotary_pos_emb(_interleave) on one rope part x[0, d) at position p, in HF's channel order.
std::vector<ld> hfRope(const float* x, int d, ld p, const std::vector<ld>& w, bool interleave) {
    const int h = d / 2;
    std::vector<ld> y(d), out(d);
    for (int i = 0; i < d; ++i) y[i] = interleave ? (i < h ? x[2 * i] : x[2 * (i - h) + 1]) : x[i];  // view(d/2, 2).transpose(4, 3)
    for (int i = 0; i < d; ++i) {
        const ld angle = p * w[i % h];                       // emb = cat(freqs, freqs)
        const ld rotated = i < h ? -y[i + h] : y[i - h];     // rotate_half: cat(-x2, x1)
        out[i] = y[i] * std::cos(angle) + rotated * std::sin(angle);
    }
    return out;
}

// One MLA attention call: q [heads, qLen, nope + rope], k [kvHeads, kLen, nope + rope], v [kvHeads, kLen, vd].
struct Mla {
    int heads, kvHeads, nope, rope, vd, qLen, kLen;
    std::vector<float> q, k, v;
    std::vector<std::int32_t> qPos, kPos;  // empty: keys at 0..kLen-1, queries at the last qLen of them
    Mla(int heads_, int kvHeads_, int nope_, int rope_, int vd_, int qLen_, int kLen_, unsigned seed)
        : heads(heads_), kvHeads(kvHeads_), nope(nope_), rope(rope_), vd(vd_), qLen(qLen_), kLen(kLen_),
          q(ref::randomVector(std::size_t(heads_) * qLen_ * (nope_ + rope_), seed)),
          k(ref::randomVector(std::size_t(kvHeads_) * kLen_ * (nope_ + rope_), seed + 1)),
          v(ref::randomVector(std::size_t(kvHeads_) * kLen_ * vd_, seed + 2)) {}
    int hd() const { return nope + rope; }
    std::int32_t qAt(int i) const { return qPos.empty() ? kAt(kLen - qLen + i) : qPos[i]; }
    std::int32_t kAt(int j) const { return kPos.empty() ? j : kPos[j]; }

    RopeEncoding ropeEncoding(bool interleave) const {
        RopeEncoding e;
        e.config.partialRotaryFactor = static_cast<double>(rope) / hd();
        e.config.rotaryOffset = nope;
        e.layout = interleave ? RopeLayout::interleaved : RopeLayout::half;
        return e;
    }
    AttentionRequest request(bool interleave, bool causal) const {
        AttentionRequest r;
        r.dims = AttentionDims{heads, kvHeads, hd(), qLen, kLen, vd};
        r.q = View<float>(q.data(), q.size());
        r.k = View<float>(k.data(), k.size());
        r.v = View<float>(v.data(), v.size());
        if (!qPos.empty()) r.qPositions = View<std::int32_t>(qPos.data(), qPos.size());
        if (!kPos.empty()) r.kPositions = View<std::int32_t>(kPos.data(), kPos.size());
        r.causal = causal;
        r.encoding = ropeEncoding(interleave);
        return r;
    }

    // DeepseekV3Attention.forward's eager path (see the top of the file), from the split q / k / v on.
    struct Result {
        std::vector<ld> out, weights, scores;
    };
    // window > 0: a key is seen when 0 <= qPos - kPos < window (HF / vLLM sliding window)
    Result reference(bool interleave, bool causal, int window = 0, ld base = 10000) const {
        const int D = hd();
        const auto w = ref::defaultInvFreq(rope, base);
        const ld scaling = 1 / std::sqrt(ld(D));
        std::vector<ld> keys(std::size_t(kvHeads) * kLen * D);  // key_states = cat(k_pass, rope(k_rot))
        for (int g = 0; g < kvHeads; ++g)
            for (int j = 0; j < kLen; ++j) {
                const float* x = k.data() + (std::size_t(g) * kLen + j) * D;
                ld* y = keys.data() + (std::size_t(g) * kLen + j) * D;
                std::copy(x, x + nope, y);
                const auto r = hfRope(x + nope, rope, kAt(j), w, interleave);
                std::copy(r.begin(), r.end(), y + nope);
            }
        Result res;
        res.out.assign(std::size_t(heads) * qLen * vd, 0);
        res.weights.assign(std::size_t(heads) * qLen * kLen, 0);
        res.scores.assign(std::size_t(heads) * qLen * kLen, kNegInf);
        for (int h = 0; h < heads; ++h) {
            const int g = h / (heads / kvHeads);  // repeat_kv
            for (int i = 0; i < qLen; ++i) {
                const float* x = q.data() + (std::size_t(h) * qLen + i) * D;
                std::vector<ld> query(x, x + nope);
                const auto r = hfRope(x + nope, rope, qAt(i), w, interleave);
                query.insert(query.end(), r.begin(), r.end());
                const std::size_t row = (std::size_t(h) * qLen + i) * kLen;
                ld m = kNegInf;
                for (int j = 0; j < kLen; ++j) {
                    if (causal && kAt(j) > qAt(i)) continue;
                    if (window > 0 && !(ld(qAt(i)) - kAt(j) >= 0 && ld(qAt(i)) - kAt(j) < window)) continue;
                    ld s = 0;
                    for (int c = 0; c < D; ++c) s += query[c] * keys[(std::size_t(g) * kLen + j) * D + c];
                    res.scores[row + j] = s * scaling;
                    m = std::max(m, res.scores[row + j]);
                }
                ld den = 0;
                for (int j = 0; j < kLen; ++j) den += std::exp(res.scores[row + j] - m);
                for (int j = 0; j < kLen; ++j) {
                    const ld p = std::exp(res.scores[row + j] - m) / den;
                    res.weights[row + j] = p;
                    for (int c = 0; c < vd; ++c) res.out[(std::size_t(h) * qLen + i) * vd + c] += p * v[(std::size_t(g) * kLen + j) * vd + c];
                }
            }
        }
        return res;
    }
};

double worst(const std::vector<float>& got, const std::vector<ld>& want) {
    REQUIRE(got.size() == want.size());
    double w = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isinf(want[i])) {
            if (got[i] != -std::numeric_limits<float>::infinity()) return std::numeric_limits<double>::infinity();
            continue;
        }
        w = std::max(w, double(std::fabs(ld(got[i]) - want[i])));
    }
    return w;
}

// Attention of an MLA case against the reference: streamed (out only; online softmax block by block)
// and materialised (out, weights, scores; the softmax over each whole row).
void checkAgainstReference(const Mla& m, bool interleave, bool causal) {
    CAPTURE(interleave);
    CAPTURE(causal);
    const AttentionRequest r = m.request(interleave, causal);
    REQUIRE(ropeFrequencies([&] {
                RopeConfig c = m.ropeEncoding(interleave).config;
                c.headDim = m.hd();
                return c;
            }()).rotaryDim == m.rope);
    const Mla::Result want = m.reference(interleave, causal);
    const AttentionResult streamed = attention(r);
    const AttentionResult stored = attention(r, true, true);
    CHECK(streamed.out.size() == std::size_t(m.heads) * m.qLen * m.vd);
    CHECK(worst(streamed.out, want.out) < 2e-5);
    CHECK(worst(stored.out, want.out) < 2e-5);
    CHECK(worst(stored.weights, want.weights) < 2e-6);
    CHECK(worst(stored.scores, want.scores) < 1e-5);
}
}  // namespace

TEST_CASE("MLA attention (valueDim, rotaryOffset) equals DeepseekV3Attention: 16 heads of 128 + 64, values of 128, both layouts") {
    Mla m(16, 16, 128, 64, 128, 5, 9, 11);  // qLen != kLen: queries at positions 4..8
    for (bool interleave : {false, true}) checkAgainstReference(m, interleave, true);
    checkAgainstReference(m, true, false);
}

TEST_CASE("MLA attention, odd sizes: GQA, head 40 = 24 + 16, valueDim 24 and 7, two key blocks, huge positions") {
    for (int vd : {24, 7}) {
        CAPTURE(vd);
        Mla m(6, 2, 24, 16, vd, 70, 75, 20 + vd);  // 70 query rows: 8 full tiles and a partial one; 75 keys: a block of 64 and one of 11
        for (bool interleave : {false, true})
            for (bool causal : {true, false}) checkAgainstReference(m, interleave, causal);
        // positions near 2^31: the angles in double, as the reference's long double
        for (int j = 0; j < m.kLen; ++j) m.kPos.push_back(2147483647 - (m.kLen - 1) + j);
        for (int i = 0; i < m.qLen; ++i) m.qPos.push_back(m.kPos[m.kLen - m.qLen + i]);
        checkAgainstReference(m, true, true);
    }
}

TEST_CASE("MLA attention: the decode split (one query over 4200 keys) equals the reference and is bit-identical on 1 and 3 threads") {
    KeepThreadCount keep;
    Mla m(8, 2, 24, 16, 7, 1, 4200, 31);
    for (bool interleave : {false, true}) {
        CAPTURE(interleave);
        const AttentionRequest r = m.request(interleave, true);
        setThreadCount(1);
        const std::vector<float> one = attention(r).out;
        setThreadCount(3);
        const std::vector<float> three = attention(r).out;
        CHECK(sameBytes(one, three));
        const Mla::Result want = m.reference(interleave, true);
        CHECK(worst(one, want.out) < 2e-5);
        CHECK(worst(attention(r, true, false).weights, want.weights) < 2e-6);  // the stored path (no split)
    }
    // many tiles (prefill-sized), streamed and stored, at 1 and 3 threads
    Mla p(6, 2, 24, 16, 24, 130, 140, 41);
    for (bool stored : {false, true}) {
        CAPTURE(stored);
        const AttentionRequest r = p.request(false, true);
        setThreadCount(1);
        const AttentionResult one = attention(r, stored, stored);
        setThreadCount(3);
        const AttentionResult three = attention(r, stored, stored);
        CHECK(sameBytes(one.out, three.out));
        CHECK(sameBytes(one.weights, three.weights));
    }
}

TEST_CASE("MLA: applyRope with rotaryOffset rotates only the rotaryDim channels from the offset, as apply_rotary_pos_emb(_interleave)") {
    const int heads = 3, tokens = 7, nope = 128, rope = 64, D = nope + rope;
    const auto x0 = ref::randomVector(std::size_t(heads) * tokens * D, 51);
    std::vector<std::int32_t> pos = {0, 1, 2, 100, 4097, 65536, 2147483647};
    const auto w = ref::defaultInvFreq(rope, 10000);
    for (bool interleave : {false, true}) {
        CAPTURE(interleave);
        RopeConfig c;
        c.headDim = D;
        c.partialRotaryFactor = double(rope) / D;
        c.rotaryOffset = nope;
        const RopeFrequencies f = ropeFrequencies(c);
        REQUIRE(f.rotaryDim == rope);
        CHECK(f.rotaryOffset == nope);
        auto x = x0;
        applyRope(x.data(), heads, tokens, D, pos.data(), f, interleave ? RopeLayout::interleaved : RopeLayout::half);
        double err = 0;
        bool passed = true;
        for (int h = 0; h < heads; ++h)
            for (int t = 0; t < tokens; ++t) {
                const std::size_t at = (std::size_t(h) * tokens + t) * D;
                passed = passed && std::memcmp(x.data() + at, x0.data() + at, nope * sizeof(float)) == 0;  // q_pass untouched
                const auto want = hfRope(x0.data() + at + nope, rope, pos[t], w, interleave);
                for (int i = 0; i < rope; ++i) {
                    // HF's channel i is posenc's i (half) or, interleaved, the even channels then the odd ones
                    const int ours = interleave ? (i < rope / 2 ? 2 * i : 2 * (i - rope / 2) + 1) : i;
                    err = std::max(err, double(std::fabs(ld(x[at + nope + ours]) - want[i])));
                }
            }
        CHECK(passed);
        CHECK(err < 2e-6);
    }
}

TEST_CASE("rotaryOffset with partial rotary, every scaling, xPos and multi-axis: the rotated range is rotated as a head of its own") {
    // Channels [8, 24) of a 40-channel head (16 pass through before it and 16 after) rotate exactly as a
    // 16-channel head does: same frequencies (they depend on rotaryDim only), same scale, same kernels.
    const int heads = 2, tokens = 9, D = 40, off = 8, R = 16;
    auto base = [&](RopeScaling s) {
        RopeConfig c;
        c.scaling = s;
        return c;
    };
    std::vector<std::pair<const char*, RopeConfig>> configs;
    configs.push_back({"none", base({})});
    RopeScaling s;
    s.type = RopeScalingType::linear, s.factor = 4;
    configs.push_back({"linear", base(s)});
    s = {}, s.type = RopeScalingType::ntk, s.factor = 2;
    configs.push_back({"ntk", base(s)});
    s = {}, s.type = RopeScalingType::dynamic, s.factor = 2, s.originalMaxPositionEmbeddings = 4;
    configs.push_back({"dynamic", base(s)});
    configs.back().second.seqLen = 300;
    s = {}, s.type = RopeScalingType::yarn, s.factor = 40, s.originalMaxPositionEmbeddings = 64, s.mscale = 1, s.mscaleAllDim = 0.707;
    configs.push_back({"yarn (DeepSeek's mscale / mscaleAllDim)", base(s)});
    s = {}, s.type = RopeScalingType::llama3, s.factor = 8, s.lowFreqFactor = 1, s.highFreqFactor = 4, s.originalMaxPositionEmbeddings = 64;
    configs.push_back({"llama3", base(s)});
    s = {}, s.type = RopeScalingType::longrope, s.factor = 16, s.originalMaxPositionEmbeddings = 8;
    for (int i = 0; i < R / 2; ++i) s.shortFactor.push_back(1 + 0.25 * i), s.longFactor.push_back(2 + 0.5 * i);
    configs.push_back({"longrope", base(s)});
    configs.back().second.seqLen = 100;
    configs.push_back({"xPos", base({})});
    configs.back().second.xposScaleBase = 512;
    configs.push_back({"mrope [2, 3, 3]", base({})});
    configs.back().second.multiAxis = MultiAxis::mrope, configs.back().second.sections = {2, 3, 3};
    RopeConfig interleavedMrope = configs.back().second;
    interleavedMrope.mropeInterleaved = true;
    interleavedMrope.sections = {3, 3, 2};  // pairs 1, 4, 7 on axis 1, pairs 2, 5 on axis 2 (Qwen3-VL's rule)
    configs.push_back({"mrope interleaved", interleavedMrope});
    configs.push_back({"axial2d", base({})});
    configs.back().second.multiAxis = MultiAxis::axial2d;
    const auto x0 = ref::randomVector(std::size_t(heads) * tokens * D, 61);
    for (const auto& entry : configs) {
        const char* const name = entry.first;  // (a structured binding cannot be captured before C++20: CAPTURE is a lambda)
        const RopeConfig& config = entry.second;
        CAPTURE(name);
        RopeConfig wide = config, narrow = config;
        wide.headDim = D, wide.partialRotaryFactor = 0.4, wide.rotaryOffset = off;
        narrow.headDim = R, narrow.partialRotaryFactor = 1;
        const RopeFrequencies fw = ropeFrequencies(wide), fn = ropeFrequencies(narrow);
        REQUIRE(fw.rotaryDim == R);
        REQUIRE(fw.invFreq == fn.invFreq);
        REQUIRE(fw.axes == fn.axes);
        std::vector<std::int32_t> pos(std::size_t(tokens) * fw.axes);
        for (std::size_t t = 0; t < pos.size(); ++t) pos[t] = std::int32_t(3 * t + t % 4);
        for (RopeLayout layout : {RopeLayout::half, RopeLayout::interleaved}) {
            CAPTURE(int(layout));
            std::vector<float> part(std::size_t(heads) * tokens * R), want = x0;
            for (std::size_t row = 0; row < std::size_t(heads) * tokens; ++row)
                std::copy_n(x0.data() + row * D + off, R, part.data() + row * R);
            applyRope(part.data(), heads, tokens, R, pos.data(), fn, layout);
            for (std::size_t row = 0; row < std::size_t(heads) * tokens; ++row) std::copy_n(part.data() + row * R, R, want.data() + row * D + off);
            auto got = x0;
            applyRope(got.data(), heads, tokens, D, pos.data(), fw, layout);
            CHECK(sameBytes(got, want));
            if (fw.axes == 1) {  // rotateByDelta, the cache's re-rotation
                std::vector<std::int64_t> deltas(tokens);
                for (int t = 0; t < tokens; ++t) deltas[t] = 5 - 3 * t;
                rotateByDelta(part.data(), heads, tokens, R, deltas.data(), fn, layout);
                for (std::size_t row = 0; row < std::size_t(heads) * tokens; ++row) std::copy_n(part.data() + row * R, R, want.data() + row * D + off);
                rotateByDelta(got.data(), heads, tokens, D, deltas.data(), fw, layout);
                CHECK(sameBytes(got, want));
            }
        }
    }
}

namespace {
// An MLA cache: 2 kv heads of 40 = 24 + 16 (RoPE on the last 16), values of 7.
KVCacheConfig mlaCache(bool interleave, int capacity, int window = 0) {
    KVCacheConfig c;
    c.kvHeads = 2;
    c.headDim = 40;
    c.valueDim = 7;
    c.capacity = capacity;
    c.window = window;
    RopeEncoding e;
    e.config.partialRotaryFactor = 0.4;
    e.config.rotaryOffset = 24;
    e.layout = interleave ? RopeLayout::interleaved : RopeLayout::half;
    c.rope = e;
    return c;
}

// Rows [t0, t0 + n) of x [heads, T, width] as [heads, n, width].
std::vector<float> tokensOf(const std::vector<float>& x, int heads, int T, int width, int t0, int n) {
    std::vector<float> out;
    for (int h = 0; h < heads; ++h)
        out.insert(out.end(), x.begin() + (std::size_t(h) * T + t0) * width, x.begin() + (std::size_t(h) * T + t0 + n) * width);
    return out;
}

struct CacheSnapshot {
    std::vector<std::int32_t> positions, next;
    std::vector<float> keys, values;
    explicit CacheSnapshot(const KVCache& c) : positions(c.positions()), next(c.nextPositions()), keys(c.keys()), values(c.values()) {}
    bool operator==(const CacheSnapshot& o) const {
        return positions == o.positions && next == o.next && sameBytes(keys, o.keys) && sameBytes(values, o.values);
    }
};
}  // namespace

TEST_CASE("MLA KV cache: prefill at once and in chunks, decode steps, shift and renumber equal attention and DeepseekV3Attention") {
    const int heads = 6, T = 75, steps = 3, total = T + steps;
    Mla all(heads, 2, 24, 16, 7, total, total, 71);  // every token's q, k, v
    for (bool interleave : {false, true}) {
        CAPTURE(interleave);
        // reference and attention over the first `n` tokens, queries = the last `qLen` of them
        auto expect = [&](int n, int qLen, const std::vector<std::int32_t>& positions) {
            Mla m(heads, 2, 24, 16, 7, qLen, n, 71);
            m.q = tokensOf(all.q, heads, total, 40, n - qLen, qLen);
            m.k = tokensOf(all.k, 2, total, 40, 0, n);
            m.v = tokensOf(all.v, 2, total, 7, 0, n);
            m.kPos.assign(positions.begin(), positions.begin() + n);
            m.qPos.assign(positions.begin() + (n - qLen), positions.begin() + n);
            return m;
        };
        std::vector<std::int32_t> positions(total);
        for (int t = 0; t < total; ++t) positions[t] = t;

        KVCache once(mlaCache(interleave, 96)), chunks(mlaCache(interleave, 96));
        const std::vector<float> k75 = tokensOf(all.k, 2, total, 40, 0, T), v75 = tokensOf(all.v, 2, total, 7, 0, T);
        once.append(k75, v75, T);
        for (auto [t0, n] : {std::pair{0, 30}, {30, 25}, {55, 20}})
            chunks.append(tokensOf(all.k, 2, total, 40, t0, n), tokensOf(all.v, 2, total, 7, t0, n), n);
        CHECK(CacheSnapshot(once) == CacheSnapshot(chunks));
        // values are stored as given, valueDim channels; keys' first 24 channels pass through the rotation
        const std::vector<float> values = once.values(), keys = once.keys();
        REQUIRE(values.size() == std::size_t(2) * 96 * 7);
        bool kept = true, passed = true, rotated = false;
        for (int g = 0; g < 2; ++g)
            for (int t = 0; t < T; ++t) {
                kept = kept && std::memcmp(&values[(std::size_t(g) * 96 + t) * 7], &v75[(std::size_t(g) * T + t) * 7], 7 * sizeof(float)) == 0;
                passed = passed && std::memcmp(&keys[(std::size_t(g) * 96 + t) * 40], &k75[(std::size_t(g) * T + t) * 40], 24 * sizeof(float)) == 0;
                rotated = rotated || (t > 0 && std::memcmp(&keys[(std::size_t(g) * 96 + t) * 40 + 24], &k75[(std::size_t(g) * T + t) * 40 + 24], 16 * sizeof(float)) != 0);
            }
        CHECK(kept);
        CHECK(passed);
        CHECK(rotated);

        const int qLen = 5;
        Mla prefill = expect(T, qLen, positions);
        std::vector<float> out(std::size_t(heads) * qLen * 7);
        once.attend(prefill.q, heads, qLen, NoEncoding{}, {}, true, out.data());
        CHECK(sameBytes(out, attention(prefill.request(interleave, true)).out));
        CHECK(worst(out, prefill.reference(interleave, true).out) < 2e-5);
        std::vector<float> outChunks(out.size());
        chunks.attend(prefill.q, heads, qLen, NoEncoding{}, {}, true, outChunks.data());
        CHECK(sameBytes(out, outChunks));

        for (int s = 0; s < steps; ++s) {  // decode steps: one token appended, its query attended
            const int n = T + s + 1;
            once.append(tokensOf(all.k, 2, total, 40, n - 1, 1), tokensOf(all.v, 2, total, 7, n - 1, 1), 1);
            Mla step = expect(n, 1, positions);
            std::vector<float> o(std::size_t(heads) * 7);
            once.attend(step.q, heads, 1, NoEncoding{}, {}, true, o.data());
            CHECK(sameBytes(o, attention(step.request(interleave, true)).out));
            CHECK(worst(o, step.reference(interleave, true).out) < 2e-5);
        }

        // shift: every key re-rotated to p + 1000; the query at its own (shifted) position
        once.shift(1000);
        std::vector<std::int32_t> shifted(positions);
        for (auto& p : shifted) p += 1000;
        Mla moved = expect(total, 1, shifted);
        std::vector<float> o(std::size_t(heads) * 7);
        const std::int32_t qp = shifted[total - 1];
        once.attend(moved.q, heads, 1, NoEncoding{}, View<std::int32_t>(&qp, 1), true, o.data());
        CHECK(worst(o, moved.reference(interleave, true).out) < 2e-5);

        // renumber: the tokens in reverse order of position (non-causal: every key seen)
        std::vector<std::int32_t> renumbered = once.positions();
        for (int t = 0; t < total; ++t) renumbered[t] = 5000 - 7 * t;
        once.renumber(View<std::int32_t>(renumbered.data(), renumbered.size()));
        Mla back = expect(total, 1, renumbered);
        const std::int32_t q2 = 4321;
        back.qPos = {q2};
        once.attend(back.q, heads, 1, NoEncoding{}, View<std::int32_t>(&q2, 1), false, o.data());
        CHECK(worst(o, back.reference(interleave, false).out) < 2e-5);
    }
}

TEST_CASE("MLA KV cache with a window: prefills longer than the window, at once and in two appends (held keys and values), equal windowed attention") {
    const int heads = 6, T = 75, window = 16;
    Mla m(heads, 2, 24, 16, 7, T, T, 81);
    KVCache cache(mlaCache(true, window, window));
    cache.append(m.k, m.v, T);
    std::vector<float> out(std::size_t(heads) * T * 7);
    cache.attend(m.q, heads, T, NoEncoding{}, {}, true, out.data());
    AttentionRequest r = m.request(true, true);
    r.window = window;
    // the ring holds keys out of position order, so the sums run in another order: equal to rounding
    CHECK(worst(out, m.reference(true, true, window).out) < 2e-5);
    const std::vector<float> direct = attention(r).out;
    double diff = 0;
    for (std::size_t i = 0; i < out.size(); ++i) diff = std::max(diff, double(std::fabs(out[i] - direct[i])));
    CHECK(diff < 1e-5);
    CHECK(cache.values().size() == std::size_t(2) * window * 7);

    // in two appends: the second pushes out keys (and values) of the first that its queries still see,
    // which move to held slots
    KVCache chunked(mlaCache(false, window, window));
    chunked.append(tokensOf(m.k, 2, T, 40, 0, 40), tokensOf(m.v, 2, T, 7, 0, 40), 40);
    chunked.append(tokensOf(m.k, 2, T, 40, 40, 35), tokensOf(m.v, 2, T, 7, 40, 35), 35);
    Mla last = m;
    last.qLen = 35;
    last.q = tokensOf(m.q, heads, T, 40, 40, 35);
    std::vector<float> out35(std::size_t(heads) * 35 * 7);
    chunked.attend(last.q, heads, 35, NoEncoding{}, {}, true, out35.data());
    CHECK(worst(out35, last.reference(false, true, window).out) < 2e-5);
}

TEST_CASE("MLA refusals: valueDim, rotaryOffset, v's size; a refused cache call changes nothing") {
    Mla m(2, 1, 24, 16, 7, 3, 5, 91);
    AttentionRequest r = m.request(false, true);
    r.dims.valueDim = -1;
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("valueDim must be a positive integer"), std::invalid_argument);
    r.dims.valueDim = 65537;
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("valueDim must be at most 65536"), std::invalid_argument);
    r.dims.valueDim = 8;  // v holds 7 channels per key
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("v must have 40 elements [kvHeads, kLen, valueDim] (got 35)"), std::invalid_argument);
    r.dims.valueDim = 0;  // = headDim 40: v is too short
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("v must have 200 elements [kvHeads, kLen, headDim]"), std::invalid_argument);
    r = m.request(false, true);
    std::get<RopeEncoding>(r.encoding).config.rotaryOffset = 25;  // 25 + 16 > 40
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("rotaryOffset must be in [0, headDim - rotaryDim] = [0, 24]"), std::invalid_argument);
    std::get<RopeEncoding>(r.encoding).config.rotaryOffset = -1;
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("rotaryOffset must be in [0, headDim - rotaryDim]"), std::invalid_argument);
    std::get<RopeEncoding>(r.encoding).config.rotaryOffset = 24;
    CHECK_NOTHROW(attention(r));

    RopeConfig c;
    c.headDim = 40, c.partialRotaryFactor = 0.4, c.rotaryOffset = 24;
    const RopeFrequencies f = ropeFrequencies(c);
    std::vector<float> x(32, 0.5f);
    const std::int32_t p = 3;
    CHECK_THROWS_WITH_AS(applyRope(x.data(), 1, 1, 32, &p, f, RopeLayout::half), doctest::Contains("rotaryOffset (24) + rotaryDim (16) exceeds headDim (32)"),
                         std::invalid_argument);

    KVCacheConfig bad = mlaCache(false, 8);
    bad.valueDim = -3;
    CHECK_THROWS_WITH_AS(KVCache{bad}, doctest::Contains("valueDim must be a positive integer"), std::invalid_argument);
    bad = mlaCache(false, 8);
    bad.rope->config.rotaryOffset = 30;
    CHECK_THROWS_WITH_AS(KVCache{bad}, doctest::Contains("rotaryOffset must be in [0, headDim - rotaryDim] = [0, 24]"), std::invalid_argument);

    KVCache cache(mlaCache(true, 8));
    const auto k = ref::randomVector(2 * 3 * 40, 92), v7 = ref::randomVector(2 * 3 * 7, 93), v40 = ref::randomVector(2 * 3 * 40, 94);
    cache.append(k, v7, 3);
    const CacheSnapshot before(cache);
    CHECK_THROWS_WITH_AS(cache.append(k, v40, 3), doctest::Contains("v must be [batch, kvHeads, T, valueDim] = 42 elements (got 240)"), std::invalid_argument);
    CHECK(CacheSnapshot(cache) == before);
    auto vBad = v7;
    vBad[41] = std::numeric_limits<float>::quiet_NaN();  // the last value of the call
    CHECK_THROWS_WITH_AS(cache.append(k, vBad, 3), doctest::Contains("v[41]"), std::invalid_argument);
    CHECK(CacheSnapshot(cache) == before);
}

TEST_CASE("valueDim with a value-side term: Shaw's a^V has valueDim channels (tensor2tensor _relative_attention_inner)") {
    // logits_ij = (q_i.k_j + q_i.aK[idx]) * scale, out_i = sum_j w_ij (v_j + aV[idx]), idx = clip(j - i, -K, K) + K
    const int heads = 2, kvHeads = 1, hd = 8, vd = 5, K = 2, qLen = 3, kLen = 6;
    const auto q = ref::randomVector(std::size_t(heads) * qLen * hd, 101), k = ref::randomVector(std::size_t(kvHeads) * kLen * hd, 102);
    const auto v = ref::randomVector(std::size_t(kvHeads) * kLen * vd, 103);
    const auto aK = ref::randomVector(std::size_t(2 * K + 1) * hd, 104), aV = ref::randomVector(std::size_t(2 * K + 1) * vd, 105);
    AttentionRequest r;
    r.dims = AttentionDims{heads, kvHeads, hd, qLen, kLen, vd};
    r.q = q, r.k = k, r.v = v;
    r.encoding = ShawEncoding{K, View<float>(aK), View<float>(aV)};
    const auto got = attention(r).out;
    std::vector<ld> want(std::size_t(heads) * qLen * vd, 0);
    const ld scale = 1 / std::sqrt(ld(hd));
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < qLen; ++i) {
            const int qp = kLen - qLen + i;
            std::vector<ld> s(kLen);
            ld m = kNegInf, den = 0;
            for (int j = 0; j < kLen; ++j) {
                const int idx = std::clamp(j - qp, -K, K) + K;
                ld dot = 0;
                for (int c = 0; c < hd; ++c) dot += ld(q[(std::size_t(h) * qLen + i) * hd + c]) * (ld(k[std::size_t(j) * hd + c]) + aK[std::size_t(idx) * hd + c]);
                s[j] = dot * scale;
                m = std::max(m, s[j]);
            }
            for (int j = 0; j < kLen; ++j) den += std::exp(s[j] - m);
            for (int j = 0; j < kLen; ++j) {
                const int idx = std::clamp(j - qp, -K, K) + K;
                for (int c = 0; c < vd; ++c)
                    want[(std::size_t(h) * qLen + i) * vd + c] += std::exp(s[j] - m) / den * (ld(v[std::size_t(j) * vd + c]) + aV[std::size_t(idx) * vd + c]);
            }
        }
    CHECK(worst(got, want) < 1e-5);
    const auto aV8 = ref::randomVector(std::size_t(2 * K + 1) * hd, 106);  // headDim's rows: refused
    r.encoding = ShawEncoding{K, View<float>(aK), View<float>(aV8)};
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("encoding.valueTable must be [2*clip+1, valueDim] = 25 elements (got 40)"), std::invalid_argument);
}
