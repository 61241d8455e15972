// p-RoPE (Barbero et al. 2025, "Round and Round We Go! What makes Rotary Positional Encodings useful?",
// ICLR 2025, section 6: rotate only a fraction p of the frequencies, truncating the lowest) and Hugging
// Face's rope_type 'proportional' (transformers src/transformers/modeling_rope_utils.py,
// _compute_proportional_rope_parameters, Gemma 4): rope_angles = int(p * head_dim // 2) pairs at
// base^(-2i/head_dim), the other head_dim/2 - rope_angles at frequency 0, cat((freqs, freqs)) over the
// whole head (the half layout across all channels), divided by `factor`.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <posenc/posenc.hpp>
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {
RopeConfig pRope(int headDim, double p, KeptFrequencies kept = KeptFrequencies::high, double base = 10000) {
    RopeConfig c;
    c.headDim = headDim;
    c.base = base;
    c.frequencyFraction = p;
    c.keptFrequencies = kept;
    return c;
}
}  // namespace

TEST_CASE("p-RoPE frequencies: hand-worked, HF proportional's count, which end is kept, not partialRotaryFactor") {
    // headDim 16, base 10^4, p = 1/4: int(0.25 * 16 // 2) = 2 pairs keep 10^4^(-2i/16): 1, 10^-0.5; six are 0
    const auto f = ropeFrequencies(pRope(16, 0.25));
    REQUIRE(f.invFreq.size() == 8);
    CHECK(f.rotaryDim == 16);
    CHECK(f.invFreq[0] == doctest::Approx(1.0).epsilon(1e-15));
    CHECK(f.invFreq[1] == doctest::Approx(0.31622776601683794).epsilon(1e-15));
    for (int k = 2; k < 8; ++k) CHECK(f.invFreq[k] == 0.0);
    // the lowest kept instead: pairs 6, 7 at 10^4^(-12/16) = 10^-3 and 10^4^(-14/16) = 10^-3.5
    const auto low = ropeFrequencies(pRope(16, 0.25, KeptFrequencies::low));
    for (int k = 0; k < 6; ++k) CHECK(low.invFreq[k] == 0.0);
    CHECK(low.invFreq[6] == doctest::Approx(1e-3).epsilon(1e-14));
    CHECK(low.invFreq[7] == doctest::Approx(3.1622776601683794e-4).epsilon(1e-14));
    // Gemma 4's global layers: head_dim 512, partial_rotary_factor 0.25 -> rope_angles 64 of 256
    const auto gemma = ropeFrequencies(pRope(512, 0.25, KeptFrequencies::high, 1e6));
    int live = 0;
    for (double w : gemma.invFreq) live += w > 0;
    CHECK(live == 64);
    CHECK(gemma.invFreq[63] == doctest::Approx(std::pow(1e6, -126.0 / 512)).epsilon(1e-14));
    // HF's int(p * head_dim // 2) in double: 0.3 * 10 = 3.0000000000000004, // 2 -> 1; 0.7 * 10 -> 3
    int kept = 0;
    for (double w : ropeFrequencies(pRope(10, 0.3)).invFreq) kept += w > 0;
    CHECK(kept == 1);
    kept = 0;
    for (double w : ropeFrequencies(pRope(10, 0.7)).invFreq) kept += w > 0;
    CHECK(kept == 3);
    // p = 0 is NoPE, p = 1 RoPE
    for (double w : ropeFrequencies(pRope(16, 0)).invFreq) CHECK(w == 0.0);
    RopeConfig plain;
    plain.headDim = 16;
    CHECK(ropeFrequencies(pRope(16, 1)).invFreq == ropeFrequencies(plain).invFreq);
    // partialRotaryFactor 0.25 is another table: 4 channels at 10^4^(-2i/4) = 1, 10^-2
    RopeConfig partial = plain;
    partial.partialRotaryFactor = 0.25;
    const auto pf = ropeFrequencies(partial);
    CHECK(pf.rotaryDim == 4);
    CHECK(pf.invFreq[1] == doctest::Approx(0.01).epsilon(1e-15));
}

TEST_CASE("p-RoPE in applyRope: the half layout pairs (i, i + D/2) across the whole head, dropped pairs pass through bit for bit") {
    const int D = 16;
    const auto x = ref::randomVector(2 * 3 * D, 4);
    const std::vector<std::int32_t> pos = {5, 1000, 16777219};
    for (RopeLayout layout : {RopeLayout::half, RopeLayout::interleaved}) {
        const bool half = layout == RopeLayout::half;
        const auto f = ropeFrequencies(pRope(D, 0.25));
        const auto got = applyRope(x, 2, 3, D, pos, f, layout);
        for (int r = 0; r < 6; ++r) {
            const float* row = x.data() + r * D;
            // the reference: RoPE over all 16 channels with frequencies 1, 10^-0.5 and 0 for the rest
            std::vector<ld> w(8, 0);
            w[0] = 1, w[1] = std::pow(ld(10), ld(-0.5));
            const auto want = ref::rope(std::vector<ld>(row, row + D), pos[r % 3], w, half);
            for (int c = 0; c < D; ++c) CHECK(std::fabs(ld(got[r * D + c]) - want[c]) < 1e-6);
            // pairs 2..7 do not move: half: channels 2..7 and 10..15; interleaved: 4..15
            for (int c = 0; c < D; ++c) {
                const bool rotated = half ? (c % 8) < 2 : c < 4;
                if (!rotated) CHECK(got[r * D + c] == row[c]);
            }
        }
    }
}

TEST_CASE("p-RoPE with rotaryOffset, a scaling schedule, and the KV cache's shift") {
    // rotaryOffset 4, partialRotaryFactor 0.5 of 16: channels 4..11 rotate as a width of 8, p = 0.5 keeps 2 of 4 pairs,
    // linear scaling by 4 divides them: 1/4 and 10^4^(-2/8)/4
    RopeConfig c = pRope(16, 0.5);
    c.partialRotaryFactor = 0.5;
    c.rotaryOffset = 4;
    c.scaling.type = RopeScalingType::linear;
    c.scaling.factor = 4;
    const auto f = ropeFrequencies(c);
    REQUIRE(f.invFreq.size() == 4);
    CHECK(f.invFreq[0] == doctest::Approx(0.25).epsilon(1e-15));
    CHECK(f.invFreq[1] == doctest::Approx(0.1 / 4).epsilon(1e-15));
    CHECK(f.invFreq[2] == 0.0);
    CHECK(f.invFreq[3] == 0.0);
    // the cache: keys at 100.., shifted by -60, attend as attention at the moved positions
    const int heads = 2, kvHeads = 1, d = 16, T = 5;
    Problem p(heads, kvHeads, d, 2, T, 71);
    p.causal = true;
    for (int j = 0; j < T; ++j) p.kPos[j] = 100 + j;
    p.qPos = {103, 104};
    RopeEncoding rope{pRope(d, 0.5, KeptFrequencies::low), RopeLayout::half};
    KVCacheConfig cc;
    cc.kvHeads = kvHeads;
    cc.headDim = d;
    cc.capacity = T;
    cc.rope = rope;
    KVCache cache(cc);
    cache.append(p.k, p.v, T, p.kPos);
    cache.shift(-60);
    std::vector<float> out(static_cast<std::size_t>(heads) * 2 * d);
    const std::vector<std::int32_t> qMoved = {43, 44};
    cache.attend(p.q, heads, 2, NoEncoding{}, qMoved, true, out.data());
    // reference: pairs 4..7 of 8 at 10^4^(-2k/16), from the definition, at the moved positions
    std::vector<ld> w(8, 0);
    for (int k = 4; k < 8; ++k) w[k] = std::pow(ld(10000), ld(-2 * k) / 16);
    NaiveTerms t;
    t.contentDot = [&](int h, int i, int j) {
        const auto a = ref::rope(std::vector<ld>(p.qv(h, i), p.qv(h, i) + d), qMoved[i], w, true);
        const auto b = ref::rope(std::vector<ld>(p.kv(h, j), p.kv(h, j) + d), p.kPos[j] - 60, w, true);
        ld s = 0;
        for (int x = 0; x < d; ++x) s += a[x] * b[x];
        return s;
    };
    Problem moved = p;
    moved.qPos = qMoved;
    for (auto& x : moved.kPos) x -= 60;
    const auto want = naive(moved, t, 1 / std::sqrt(ld(d)));
    CHECK(maxDiff(out, want.out) < 2e-5);
}

TEST_CASE("p-RoPE option errors name the field; HF rope_type 'proportional' is read as frequencyFraction") {
    CHECK_THROWS_WITH_AS(ropeFrequencies(pRope(16, 1.5)), doctest::Contains("frequencyFraction"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeFrequencies(pRope(16, -0.1)), doctest::Contains("frequencyFraction"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeFrequencies(pRope(16, 1, KeptFrequencies::low)), doctest::Contains("keptFrequencies"), std::invalid_argument);
    RopeConfig m = pRope(16, 0.5);
    m.multiAxis = MultiAxis::axial2d;
    CHECK_THROWS_WITH_AS(ropeFrequencies(m), doctest::Contains("frequencyFraction"), std::invalid_argument);

    const auto r = ropeConfigFromHF(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2, "head_dim": 32,
        "rope_parameters": {"rope_type": "proportional", "rope_theta": 1000000.0, "partial_rotary_factor": 0.25}})");
    CHECK(r.rope.partialRotaryFactor == 1.0);
    CHECK(r.rope.frequencyFraction == 0.25);
    CHECK(r.rope.scaling.type == RopeScalingType::none);
    CHECK(r.isGiven("frequencyFraction"));
    CHECK_FALSE(r.isGiven("partialRotaryFactor"));
    const auto f = ropeFrequencies(r.rope);
    CHECK(f.invFreq.size() == 16);
    CHECK(f.invFreq[3] == doctest::Approx(std::pow(1e6, -6.0 / 32)).epsilon(1e-14));
    CHECK(f.invFreq[4] == 0.0);
    CHECK(toJson(r).find("\"frequencyFraction\":0.25") != std::string::npos);
    const auto scaled = ropeConfigFromHF(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2, "head_dim": 32,
        "rope_parameters": {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.5, "factor": 8.0}})");
    CHECK(scaled.rope.scaling.type == RopeScalingType::linear);
    CHECK(scaled.rope.scaling.factor == 8.0);
    CHECK(ropeFrequencies(scaled.rope).invFreq[0] == doctest::Approx(1.0 / 8).epsilon(1e-15));
    // a fraction whose int(p * head_dim) is odd (partial rotary would refuse it): head_dim 10, p = 0.3 -> 1 pair kept
    const auto odd = ropeConfigFromHF(R"({"model_type": "llama", "hidden_size": 20, "num_attention_heads": 2, "head_dim": 10,
        "rope_parameters": {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.3}})");
    const auto of = ropeFrequencies(odd.rope);
    CHECK(of.rotaryDim == 10);
    CHECK(of.invFreq[0] == 1.0);
    for (int k = 1; k < 5; ++k) CHECK(of.invFreq[k] == 0.0);
}
