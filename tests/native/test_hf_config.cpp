// config.json read as Hugging Face reads it, one hand-written fixture per model family (only the
// fields that family uses). Expected values are derived here from each family's modeling code: the
// inverse frequencies from the schedule's definition, the rotary dim from the field the family reads,
// and the rotation from the code construct itself (rotate_half, repeat_interleave, view_as_complex,
// DeepSeek-V3's de-interleave + rotate_half), applied in long double and held to posenc's applyRope.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <posenc/posenc.hpp>
#include "common/json.hpp"
#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {

HfRopeConfig read(const std::string& json, const std::string& layerType = "") {
    HfConfigOptions o;
    o.layerType = layerType;
    return ropeConfigFromHF(json, o);
}

// base^(-2k/R), k < R/2: every family's default schedule (`1 / base ** (arange(0, R, 2) / R)`).
std::vector<ld> defaultInvFreq(int R, ld base) {
    std::vector<ld> w(R / 2);
    for (int k = 0; k < R / 2; ++k) w[k] = std::pow(base, -ld(2 * k) / R);
    return w;
}

void requireInvFreq(const RopeFrequencies& f, const std::vector<ld>& want) {
    REQUIRE(f.invFreq.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) CHECK(std::fabs(f.invFreq[k] - want[k]) <= 1e-12L * want[k]);
}

// The rotation constructs of the modeling files, on the first R channels of x at position p.
enum class Construct {
    rotateHalf,        // Llama: emb = cat(freqs, freqs); x*cos + rotate_half(x)*sin, rotate_half = cat(-x2, x1)
    repeatInterleave,  // Cohere / GLM / Helium: cos = repeat_interleave(freqs, 2); rotate_half = stack(-x[1::2], x[0::2])
    complexPairs,      // DeepSeek-V2 / Llama 4: view_as_complex(x.reshape(-1, 2)) * polar(1, p*w)
    everyTwo,          // GPT-J: rotate_every_two with sin/cos repeat_interleave'd
};

std::vector<ld> hfRotate(const std::vector<ld>& x, int R, ld p, const std::vector<ld>& w, Construct c, ld scale = 1) {
    std::vector<ld> y = x;
    const int half = R / 2;
    for (int i = 0; i < R; ++i) {
        switch (c) {
            case Construct::rotateHalf: {
                const ld a = p * w[i % half];
                const ld rot = i < half ? -x[i + half] : x[i - half];
                y[i] = scale * (x[i] * std::cos(a) + rot * std::sin(a));
                break;
            }
            case Construct::repeatInterleave:
            case Construct::everyTwo: {
                const ld a = p * w[i / 2];
                const ld rot = i % 2 == 0 ? -x[i + 1] : x[i - 1];
                y[i] = scale * (x[i] * std::cos(a) + rot * std::sin(a));
                break;
            }
            case Construct::complexPairs: {
                if (i % 2) break;
                const ld a = p * w[i / 2];
                const ld re = x[i], im = x[i + 1];  // (re + i im) * (cos a + i sin a)
                y[i] = scale * (re * std::cos(a) - im * std::sin(a));
                y[i + 1] = scale * (re * std::sin(a) + im * std::cos(a));
                break;
            }
        }
    }
    return y;
}

// posenc's applyRope of one head vector at position p equals the construct's result (channels past R
// pass through in both).
void requireRotation(const HfRopeConfig& r, Construct c) {
    const auto f = ropeFrequencies(r.rope);
    const int d = r.rope.headDim;
    const auto x = ref::randomVector(static_cast<std::size_t>(d), 31);
    std::vector<ld> w(f.invFreq.begin(), f.invFreq.end());
    for (std::int32_t p : {0, 1, 17, 4099, 1 << 24}) {
        std::vector<float> y(x.begin(), x.end());
        applyRope(y.data(), 1, 1, d, &p, f, r.layout);
        const auto want = hfRotate(std::vector<ld>(x.begin(), x.end()), f.rotaryDim, p, w, c, f.attentionScale);
        for (int i = 0; i < d; ++i) CHECK(std::fabs(ld(y[i]) - want[i]) <= 2e-6L);
    }
}

std::string messageOf(const std::string& json, const std::string& layerType = "") {
    try {
        read(json, layerType);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

bool mentions(const std::string& message, const std::string& part) {
    const bool ok = message.find(part) != std::string::npos;
    if (!ok) MESSAGE(message);
    return ok;
}

}  // namespace

TEST_CASE("hf families: Llama rules (llama, mistral, mixtral, qwen2/3, unknown types)") {
    const auto llama = read(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000})");
    CHECK(llama.rope.headDim == 128);
    CHECK(llama.layout == RopeLayout::half);
    requireInvFreq(ropeFrequencies(llama.rope), defaultInvFreq(128, 500000));
    requireRotation(llama, Construct::rotateHalf);
    // Mistral NeMo: head_dim 128 given, not 5120 / 32 = 160
    CHECK(read(R"({"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32, "head_dim": 128})").rope.headDim == 128);
    // class defaults when config.json leaves rope_theta / head_dim out
    CHECK(read(R"({"model_type": "mixtral", "hidden_size": 4096, "num_attention_heads": 32})").rope.base == 1e6);
    CHECK(read(R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28})").rope.base == 10000);
    CHECK(read(R"({"model_type": "qwen3", "hidden_size": 2560, "num_attention_heads": 32})").rope.headDim == 128);  // not 80
    // an unknown model type follows Llama when asked to (else it is an error: "hf config: unknown model types")
    HfConfigOptions generic;
    generic.unknownModelType = HfConfigOptions::UnknownModelType::generic;
    const auto other = ropeConfigFromHF(R"({"model_type": "some_new_model", "hidden_size": 64, "num_attention_heads": 2})", generic);
    CHECK(other.rope.headDim == 32);
    CHECK(other.layout == RopeLayout::half);
    CHECK(other.warnings.empty());  // asked for
}

TEST_CASE("hf families: partial rotary from the field each reads, and each class default") {
    struct Case {
        const char* json;
        int rotaryDim;
    };
    const Case cases[] = {
        {R"({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0.25, "rotary_emb_base": 10000})", 24},
        {R"({"model_type": "gpt_neox", "hidden_size": 2048, "num_attention_heads": 8})", 64},  // rotary_pct default 0.25
        {R"({"model_type": "gpt_neox_japanese", "hidden_size": 2048, "num_attention_heads": 16})", 128},
        {R"({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4})", 32},
        {R"({"model_type": "phi", "hidden_size": 2048, "num_attention_heads": 32})", 32},  // default 0.5
        {R"({"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32})", 20},  // default 0.25
        {R"({"model_type": "stablelm_epoch", "hidden_size": 2560, "num_attention_heads": 32, "rope_pct": 0.25, "rope_theta": 10000})", 20},
        {R"({"model_type": "persimmon", "hidden_size": 4096, "num_attention_heads": 64, "rope_theta": 25000})", 32},  // 0.5
        {R"({"model_type": "nemotron", "hidden_size": 6144, "num_attention_heads": 48})", 64},
        {R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24, "partial_rotary_factor": 0.75})", 96},  // Phi-4-mini
        {R"({"model_type": "glm4_moe", "hidden_size": 4096, "num_attention_heads": 96, "head_dim": 128})", 64},
        {R"({"model_type": "moonshine", "hidden_size": 288, "num_attention_heads": 8})", 32},  // int(36 * 0.9)
        {R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64})", 64},
        {R"({"model_type": "codegen", "n_embd": 4096, "n_head": 16})", 64},  // rotary_dim default 64
    };
    for (const Case& c : cases) {
        CAPTURE(c.json);
        const auto r = read(c.json);
        CHECK(ropeFrequencies(r.rope).rotaryDim == c.rotaryDim);
        requireInvFreq(ropeFrequencies(r.rope), defaultInvFreq(c.rotaryDim, r.rope.base));
    }
    // the rotating channels are the first R, rotate_half within them (NeoX, Phi, StableLM)
    requireRotation(read(cases[0].json), Construct::rotateHalf);
    requireRotation(read(cases[6].json), Construct::rotateHalf);
    CHECK(read(cases[7].json).rope.base == 25000);
}

TEST_CASE("hf families: interleaved pairs — GPT-J, Cohere, GLM, Helium, Moonshine, DeepSeek-V2, Llama 4") {
    const auto gptj = read(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64})");
    CHECK(gptj.layout == RopeLayout::interleaved);
    requireRotation(gptj, Construct::everyTwo);

    const auto cohere = read(R"({"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64, "rope_theta": 8000000})");
    CHECK(cohere.layout == RopeLayout::interleaved);
    CHECK(cohere.rope.base == 8000000);
    requireRotation(cohere, Construct::repeatInterleave);

    const auto glm = read(R"({"model_type": "glm", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128})");
    CHECK(glm.layout == RopeLayout::interleaved);
    CHECK(ropeFrequencies(glm.rope).rotaryDim == 64);  // cos[..., :R/2].repeat_interleave(2) over the first half
    requireRotation(glm, Construct::repeatInterleave);
    CHECK(read(R"({"model_type": "glm4", "hidden_size": 4096, "num_attention_heads": 32})").rope.headDim == 128);

    const auto helium = read(R"({"model_type": "helium", "hidden_size": 2560, "num_attention_heads": 20})");
    CHECK(helium.layout == RopeLayout::interleaved);
    CHECK(helium.rope.base == 100000);
    requireRotation(helium, Construct::repeatInterleave);
    requireRotation(read(R"({"model_type": "moonshine", "hidden_size": 288, "num_attention_heads": 8})"), Construct::repeatInterleave);

    // DeepSeek-V2: MLA's rope head of qk_rope_head_dim channels, complex pairs
    const auto v2 = read(R"({"model_type": "deepseek_v2", "hidden_size": 5120, "num_attention_heads": 128, "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128, "rope_theta": 10000})");
    CHECK(v2.rope.headDim == 64);
    CHECK(v2.layout == RopeLayout::interleaved);
    requireRotation(v2, Construct::complexPairs);

    const auto llama4 = read(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120,
        "num_attention_heads": 40, "head_dim": 128, "rope_theta": 500000, "no_rope_layers": [1, 1, 1, 0]}})");
    CHECK(llama4.layout == RopeLayout::interleaved);
    requireRotation(llama4, Construct::complexPairs);
}

TEST_CASE("hf families: DeepSeek-V3 rope_interleave (default true): de-interleave + rotate_half gives interleaved scores") {
    const std::string base = R"("model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64,
        "max_position_embeddings": 163840, "rope_theta": 10000, "rope_scaling": {"type": "yarn", "factor": 40, "beta_fast": 32,
        "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096})";
    const auto v3 = read("{" + base + "}");
    CHECK(v3.layout == RopeLayout::interleaved);
    CHECK(read("{" + base + R"(, "rope_interleave": false})").layout == RopeLayout::half);
    // apply_rotary_pos_emb_interleave: q.view(d/2, 2).transpose -> [even | odd] channels, then cat(freqs,
    // freqs) and rotate_half. Its output stays in that permuted order, the same for q and k, so q.k is
    // what interleaved pairs give.
    const auto f = ropeFrequencies(v3.rope);
    const int d = 64;
    const auto q = ref::randomVector(d, 5), k = ref::randomVector(d, 6);
    std::vector<ld> w(f.invFreq.begin(), f.invFreq.end());
    auto deinterleaved = [&](const std::vector<float>& x, ld p) {
        std::vector<ld> perm(d);
        for (int i = 0; i < d / 2; ++i) perm[i] = x[2 * i], perm[i + d / 2] = x[2 * i + 1];
        return hfRotate(perm, d, p, w, Construct::rotateHalf, f.attentionScale);
    };
    for (auto [m, n] : {std::pair<int, int>{5, 3}, {70000, 12}, {1 << 24, (1 << 24) - 9}}) {
        const auto qh = deinterleaved(q, m), kh = deinterleaved(k, n);
        ld want = 0;
        for (int i = 0; i < d; ++i) want += qh[i] * kh[i];
        std::vector<float> qo = q, ko = k;
        applyRope(qo.data(), 1, 1, d, &m, f, v3.layout);
        applyRope(ko.data(), 1, 1, d, &n, f, v3.layout);
        ld got = 0;
        for (int i = 0; i < d; ++i) got += ld(qo[i]) * ko[i];
        CHECK(std::fabs(got - want) <= 2e-5L * (1 + std::fabs(want)));
    }
    CHECK(f.attentionScale == doctest::Approx(1.0));  // mscale == mscale_all_dim
    CHECK(v3.rope.scaling.factor == 40);
}

TEST_CASE("hf families: M-RoPE — Qwen2-VL contiguous sections, Qwen3-VL interleaved (apply_interleaved_mrope)") {
    const auto q2 = read(R"({"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})");
    CHECK(q2.rope.base == 1e6);  // Qwen2VLConfig's default
    const auto f2 = ropeFrequencies(q2.rope);
    for (int k = 0; k < 64; ++k) CHECK(f2.axisOfPair[k] == (k < 16 ? 0 : k < 40 ? 1 : 2));

    // Qwen3-VL: text_config, default sections [24, 20, 20], pairs THWTHW... (HF: freqs_t[..., offset:3*section:3] = freqs[axis])
    const auto q3 = read(R"({"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096,
        "num_attention_heads": 32, "head_dim": 128, "rope_theta": 5000000, "rope_scaling": {"rope_type": "default",
        "mrope_section": [24, 20, 20], "mrope_interleaved": true}}})");
    CHECK(q3.rope.mropeInterleaved);
    const auto f3 = ropeFrequencies(q3.rope);
    int moved = 0;
    for (int k = 0; k < 64; ++k) {
        int axis = 0;  // freqs_t starts as the T row; H and W overwrite their slices
        for (int a : {1, 2})
            for (int j = a; j < 3 * q3.rope.sections[a]; j += 3)
                if (j == k) axis = a;
        CHECK(f3.axisOfPair[k] == axis);
        moved += axis != (k < 24 ? 0 : k < 44 ? 1 : 2);  // vs contiguous sections
    }
    CHECK(moved == 43);  // the issue's count: 43 of 64 pairs land on a different axis
    const auto dflt = read(R"({"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32})");
    CHECK(dflt.rope.sections == std::vector<int>{24, 20, 20});
    CHECK(dflt.rope.base == 5e6);
    CHECK(mentions(messageOf(R"({"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
        "rope_scaling": {"mrope_section": [24, 20, 20], "mrope_interleaved": false}})"), "config.rope_scaling.mrope_interleaved is false"));
    // rotating a vector with t, h, w positions = each pair turned by its own axis's position
    std::vector<std::int32_t> pos = {3, 11, 29};  // one token, axes t, h, w
    const auto x = ref::randomVector(128, 8);
    std::vector<float> y = x;
    applyRope(y.data(), 1, 1, 128, pos.data(), f3, q3.layout);
    for (int k = 0; k < 64; ++k) {
        const ld a = ld(pos[f3.axisOfPair[k]]) * f3.invFreq[k];
        CHECK(std::fabs(ld(y[k]) - (x[k] * std::cos(a) - x[k + 64] * std::sin(a))) <= 2e-6L);
    }
}

TEST_CASE("hf families: per-layer-type tables — Gemma 3 (4.x fields and rope_parameters by layer type), ModernBERT") {
    const std::string g3 = R"({"model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "head_dim": 256,
        "rope_theta": 1000000, "rope_local_base_freq": 10000, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}})";
    CHECK(mentions(messageOf(g3), "'full_attention', 'sliding_attention'"));
    CHECK(mentions(messageOf(g3), "pass layerType"));
    const auto global = read(g3, "full_attention");
    requireInvFreq(ropeFrequencies(global.rope), [] {
        auto w = defaultInvFreq(256, 1e6);
        for (auto& x : w) x /= 8;  // linear: inv_freq / factor
        return w;
    }());
    const auto local = read(g3, "sliding_attention");
    CHECK(local.rope.scaling.type == RopeScalingType::none);
    requireInvFreq(ropeFrequencies(local.rope), defaultInvFreq(256, 10000));
    CHECK(mentions(messageOf(g3, "chunked"), "layerType must be one of 'full_attention', 'sliding_attention'"));

    // transformers 5: rope_parameters keyed by layer type reads the same
    const std::string v5 = R"({"model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "head_dim": 256,
        "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000}}})";
    CHECK(read(v5, "full_attention").rope.base == 1e6);
    CHECK(read(v5, "full_attention").rope.scaling.factor == 8);
    CHECK(read(v5, "sliding_attention").rope.base == 10000);
    CHECK(mentions(messageOf(v5), "one rotary table per layer type"));
    // a config with one table refuses a layerType rather than ignoring it
    CHECK(mentions(messageOf(R"({"head_dim": 64})", "full_attention"), "one rotary table for every layer"));

    const std::string mb = R"({"model_type": "modernbert", "hidden_size": 768, "num_attention_heads": 12, "global_rope_theta": 160000,
        "local_rope_theta": 10000})";
    CHECK(read(mb, "full_attention").rope.base == 160000);
    CHECK(read(mb, "sliding_attention").rope.base == 10000);
}

TEST_CASE("hf families: NoPE layers — Cohere2 and hybrid EXAONE 4 rotate only on sliding layers") {
    const std::string c2 = R"({"model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 50000, "sliding_window": 4096})";
    CHECK(read(c2).layout == RopeLayout::interleaved);
    CHECK(read(c2, "sliding_attention").rope.base == 50000);
    CHECK(mentions(messageOf(c2, "full_attention"), "use no rotary embedding (NoPE)"));
    CHECK(mentions(messageOf(R"({"model_type": "exaone4", "hidden_size": 4096, "num_attention_heads": 32, "sliding_window": 4096})",
                             "full_attention"), "NoPE"));
    CHECK(read(R"({"model_type": "exaone4", "hidden_size": 4096, "num_attention_heads": 32})", "").rope.headDim == 128);
}

TEST_CASE("hf families: Phi-3 longrope ('su'/'yarn' rewritten, top-level original wins), PhiMoE mscale, gpt-oss yarn, DBRX, InternLM2") {
    std::string shortF = "[", longF = "[";
    for (int k = 0; k < 48; ++k) {
        shortF += (k ? "," : "") + std::to_string(1.0 + 0.01 * k);
        longF += (k ? "," : "") + std::to_string(1.5 + 0.1 * k);
    }
    shortF += "]", longF += "]";
    const std::string phi = R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_scaling": {"type": "su", "short_factor": )" + shortF + R"(, "long_factor": )" + longF + "}}";
    const auto r = read(phi);
    CHECK(r.rope.scaling.type == RopeScalingType::longrope);
    CHECK(r.rope.scaling.factor == 32);
    CHECK(r.rope.scaling.originalMaxPositionEmbeddings == 4096);
    auto cfgLong = r.rope;
    cfgLong.seqLen = 4097;
    const auto f = ropeFrequencies(cfgLong);
    const auto w = defaultInvFreq(96, 10000);
    for (int k = 0; k < 48; ++k) CHECK(std::fabs(f.invFreq[k] - w[k] / (1.5L + 0.1L * k)) <= 1e-9L * w[k]);
    CHECK(f.attentionScale == doctest::Approx(std::sqrt(1 + std::log(32.0) / std::log(4096.0))));
    std::string yarnPhi = phi;
    yarnPhi.replace(yarnPhi.find("\"su\""), 4, "\"yarn\"");
    CHECK(read(yarnPhi).rope.scaling.type == RopeScalingType::longrope);

    const std::string moe = R"({"model_type": "phimoe", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
        "rope_scaling": {"type": "longrope", "original_max_position_embeddings": 4096, "short_mscale": 1.243, "long_mscale": 1.243,
        "short_factor": )" + shortF.substr(0, shortF.size()) + R"(, "long_factor": )" + longF + "}}";
    // PhiMoE: head 128 -> 64 pairs; give 64-long lists
    std::string s64 = "[", l64 = "[";
    for (int k = 0; k < 64; ++k) s64 += (k ? ",1.0" : "1.0"), l64 += (k ? ",2.0" : "2.0");
    s64 += "]", l64 += "]";
    std::string moe64 = moe;
    moe64.replace(moe64.find(shortF), shortF.size(), s64);
    moe64.replace(moe64.find(longF), longF.size(), l64);
    const auto pm = read(moe64);
    CHECK(ropeFrequencies(pm.rope).attentionScale == doctest::Approx(1.243));
    CHECK(pm.rope.base == 1e6);
    std::string unequal = moe64;
    unequal.replace(unequal.find("\"long_mscale\": 1.243"), 20, "\"long_mscale\": 1.300");
    CHECK(mentions(messageOf(unequal), "short_mscale (1.243) differs from long_mscale (1.3)"));

    const auto oss = read(R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64, "rope_theta": 150000,
        "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
        "truncate": false, "original_max_position_embeddings": 4096}})");
    CHECK(!oss.rope.scaling.truncate);
    CHECK(ropeFrequencies(oss.rope).attentionScale == doctest::Approx(0.1 * std::log(32.0) + 1));

    const auto dbrx = read(R"({"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "attn_config": {"rope_theta": 500000, "kv_n_heads": 8}})");
    CHECK(dbrx.rope.headDim == 128);
    CHECK(dbrx.rope.base == 500000);

    const auto internlm = read(R"({"model_type": "internlm2", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 1000000,
        "max_position_embeddings": 32768, "rope_scaling": {"type": "dynamic", "factor": 2.0}})");
    CHECK(internlm.rope.scaling.type == RopeScalingType::dynamic);
    CHECK(internlm.rope.scaling.originalMaxPositionEmbeddings == 32768);
}

// (Configs without a model_type: posenc cannot know which keys their code reads, so unread rotary keys are errors.)
TEST_CASE("hf config: fields are never silently dropped; errors name the config.json key") {
    const std::string head = R"("hidden_size": 4096, "num_attention_heads": 32)";
    CHECK(mentions(messageOf("{" + head + R"(, "rotary_emb_fraction": 0.5})"), "config.rotary_emb_fraction may change the rotary embedding"));
    CHECK(mentions(messageOf("{" + head + R"(, "rope_scaling": {"type": "linear", "factor": 2, "finetuned": true}})"),
                   "config.rope_scaling.finetuned is not a rotary field posenc knows, and the config has no model_type"));
    CHECK(mentions(messageOf("{" + head + R"(, "rope_local_base_freq": 10000})"), "read only for Gemma 3"));
    CHECK(mentions(messageOf("{" + head + R"(, "rope_interleave": true})"), "read only for DeepSeek-V3"));
    // GPT-J's code fixes base 10000: its rope_theta is ignored and listed, and refused under strict
    const std::string gptj = R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rope_theta": 500000})";
    CHECK((read(gptj).ignored.size() == 1 && read(gptj).ignored[0].key == "config.rope_theta" && read(gptj).rope.base == 10000));
    HfConfigOptions strict;
    strict.strict = true;
    CHECK_THROWS_WITH_AS(ropeConfigFromHF(gptj, strict), doctest::Contains("config.rope_theta has no effect in gptj"), std::invalid_argument);
    CHECK(mentions(messageOf(R"({"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64})"), "config.rope_theta is missing"));
    CHECK(mentions(messageOf(R"({"model_type": "bloom", "hidden_size": 4096, "n_head": 32})"), "uses ALiBi"));
    CHECK(mentions(messageOf(R"({"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "alibi": true})"), "config.alibi is true"));
    // StableLM-epoch's rope_pct is read, not ignored: 20 of 80 channels rotate
    CHECK(ropeFrequencies(read(R"({"model_type": "stablelm_epoch", "hidden_size": 2560, "num_attention_heads": 32, "rope_pct": 0.25})").rope).rotaryDim == 20);
    // values
    CHECK(mentions(messageOf("{" + head + R"(, "rope_theta": "big"})"), "config.rope_theta must be a number (got 'big')"));
    CHECK(mentions(messageOf("{" + head + R"(, "rope_theta": 1})"), "config.rope_theta must be a positive number other than 1"));
    CHECK(mentions(messageOf("{" + head + R"(, "partial_rotary_factor": 0.01})"), "config.partial_rotary_factor (0.01) gives 1 rotary channels"));
    CHECK(mentions(messageOf("{" + head + R"(, "rope_scaling": {"type": "yarn", "factor": 4}})"), "needs original_max_position_embeddings"));
    CHECK(mentions(messageOf("{" + head + R"(, "max_position_embeddings": 4096, "rope_scaling": {"type": "longrope", "short_factor": [1, 1],
        "long_factor": [1, 1], "original_max_position_embeddings": 2048}})"), "config.rope_scaling.short_factor"));  // 2 != 64 pairs
    CHECK(mentions(messageOf("{" + head + R"(, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 20]}})"), "config.rope_scaling.mrope_section must sum"));
    CHECK(mentions(messageOf("{\"hidden_size\": 4096"), "config is not valid JSON"));
    CHECK(mentions(messageOf("[1, 2]"), "config must be a JSON object"));
    CHECK_THROWS_AS(read(R"({"head_dim": "64"})"), WrongType);  // a wrong JSON type: TypeError in JS
}

TEST_CASE("hf config: YaRN factor rule — explicit (default) vs legacy transformers 4.46-4.50") {
    const std::string c = R"({"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}})";
    CHECK(read(c).rope.scaling.factor == 4);
    HfConfigOptions legacy;
    legacy.yarnFactor = HfConfigOptions::YarnFactor::legacy;
    CHECK(ropeConfigFromHF(c, legacy).rope.scaling.factor == 16);  // 131072 / 8192
}

namespace {
std::string typeErrorOf(const std::string& json, const HfConfigOptions& o = {}) {
    try {
        ropeConfigFromHF(json, o);
    } catch (const WrongType& e) {
        return e.what();
    } catch (const std::invalid_argument& e) {
        return std::string("(not a WrongType) ") + e.what();
    }
    return "(no error)";
}
}  // namespace

// Hugging Face loads a config with a misspelt key and ignores the key: `rope_scalling` would silently read
// as no scaling. The misspellings here are of keys each model type's code reads.
TEST_CASE("hf config: a misspelt key is refused, naming the key meant") {
    const std::string llama = R"("model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32)";
    const std::string scaling = R"({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192})";
    CHECK(typeErrorOf("{" + llama + R"(, "rope_scalling": )" + scaling + "}") ==
          "config: unknown key 'rope_scalling': did you mean 'rope_scaling'? (Hugging Face would load the config and ignore the key without a word)");
    struct Case {
        std::string json, message;
    };
    const Case cases[] = {
        {"{" + llama + R"(, "rope_thetta": 500000})", "config: unknown key 'rope_thetta': did you mean 'rope_theta'?"},
        {"{" + llama + R"(, "partial_rotary_factr": 0.5})", "config: unknown key 'partial_rotary_factr': did you mean 'partial_rotary_factor'?"},
        {R"({"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32, "head_dimm": 128})", "config: unknown key 'head_dimm': did you mean 'head_dim'?"},
        {"{" + llama + R"(, "max_position_embedings": 131072})", "config: unknown key 'max_position_embedings': did you mean 'max_position_embeddings'?"},
        {R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "sliding_windw": 4096})", "config: unknown key 'sliding_windw': did you mean 'sliding_window'?"},
        {"{" + llama + R"(, "Rope_Theta": 500000})", "config: unknown key 'Rope_Theta': did you mean 'rope_theta'?"},  // JSON keys are case-sensitive
        {"{" + llama + R"(, "ropescaling": )" + scaling + "}", "config: unknown key 'ropescaling': did you mean 'rope_scaling'?"},
        // inside the rope parameters, and under text_config
        {"{" + llama + R"(, "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "linear", "factr": 8.0}})",
         "config.rope_scaling: unknown key 'factr': did you mean 'factor'?"},
        {"{" + llama + R"(, "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "original_max_position_embedings": 8192}})",
         "config.rope_scaling: unknown key 'original_max_position_embedings': did you mean 'original_max_position_embeddings'?"},
        {"{" + llama + R"(, "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "orignal_max_postion_embeddings": 32768}})",
         "config.rope_scaling: unknown key 'orignal_max_postion_embeddings': did you mean 'original_max_position_embeddings'?"},
        {R"({"model_type": "qwen3", "head_dim": 128, "rope_parameters": {"rope_type": "yarn", "rope_thetta": 1000000.0, "factor": 4.0,
            "original_max_position_embeddings": 32768}})", "config.rope_parameters: unknown key 'rope_thetta': did you mean 'rope_theta'?"},
        {R"({"model_type": "mistral3", "text_config": {"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32,
            "rope_scaling": {"type": "linear", "fctor": 2.0}}})", "config.text_config.rope_scaling: unknown key 'fctor': did you mean 'factor'?"},
        // transformers 5's tables per layer type: each is checked, not only the one asked for
        {R"({"model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
            "sliding_attention": {"rope_type": "default", "rope_thetta": 10000.0}}})",
         "config.rope_parameters.sliding_attention: unknown key 'rope_thetta': did you mean 'rope_theta'?"},
        // keys only some model types read: misspelt where that type reads them
        {R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "rope_interleav": false})",
         "config: unknown key 'rope_interleav': did you mean 'rope_interleave'?"},
        {R"({"model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "rope_local_base_frq": 10000})",
         "config: unknown key 'rope_local_base_frq': did you mean 'rope_local_base_freq'?"},
        {R"({"model_type": "qwen2", "hidden_size": 896, "num_attention_heads": 14, "use_sliding_windows": true})",
         "config: unknown key 'use_sliding_windows': did you mean 'use_sliding_window'?"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.json);
        CHECK(mentions(typeErrorOf(c.json), c.message));
        // not a key HF ignores: strict says the same, not that the key "changes the rotary embedding"
        HfConfigOptions strict;
        strict.strict = true;
        CHECK(mentions(typeErrorOf(c.json, strict), c.message));
    }
    // the same configs with the key spelt right read (so it is the spelling that is refused)
    CHECK(read("{" + llama + R"(, "rope_scaling": )" + scaling + "}").rope.scaling.type == RopeScalingType::llama3);
    CHECK(read(R"({"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32, "head_dim": 128})").rope.headDim == 128);
}

// Keys that published configs of some family carry are not misspellings, however close to a key read here:
// Hugging Face's code for this type ignores them, and so does posenc (listing the rotary ones).
TEST_CASE("hf config: real keys of other families are not taken for misspellings") {
    const std::string head = R"("model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000)";
    const HfRopeConfig plain = read("{" + head + "}");
    // one edit from n_embd, hidden_size, mrope_interleaved / head_dim's neighbours; none read by Llama's code
    for (const char* extra : {R"("n_embed": 4096)", R"("hidden_sizes": [64, 128])", R"("d_head": 128)", R"("v_head_dim": 128)",
                              R"("n_head_kv": 8)", R"("sliding_window_size": 4096)"}) {
        CAPTURE(extra);
        const HfRopeConfig r = read("{" + head + ", " + extra + "}");
        CHECK(r.rope.headDim == plain.rope.headDim);
        CHECK(r.rope.base == plain.rope.base);
        CHECK(r.ignored.empty());
        CHECK(r.warnings.empty());
    }
    // SmolLM2's rope_interleaved (one edit from mrope_interleaved) and Gemma 3's rope_local_base_freq in a Llama
    // config: ignored as Llama's code ignores them, with a true reason
    const HfRopeConfig smol = read("{" + head + R"(, "rope_interleaved": false})");
    REQUIRE(smol.warnings.size() == 1);
    CHECK(smol.warnings[0] == "config.rope_interleaved is ignored: Hugging Face's llama code does not read it");
    HfConfigOptions strict;
    strict.strict = true;
    const std::string strictMessage = messageOf("{" + head + R"(, "rope_interleaved": false})", "");
    CHECK(strictMessage == "(no error)");
    try {
        ropeConfigFromHF("{" + head + R"(, "rope_interleaved": false})", strict);
        FAIL("strict accepted an ignored key");
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        CHECK(mentions(m, "config.rope_interleaved is ignored: Hugging Face's llama code does not read it (strict refuses"));
        CHECK(m.find("changes the rotary embedding") == std::string::npos);
    }
}

TEST_CASE("hf config: unknown model types are refused with the nearest known ones; 'generic' reads them as Llama") {
    const std::string rest = R"("hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "rope_theta": 10000)";
    // DeepSeek-V3's interleaved pairs must not silently become Llama's rotate_half
    CHECK(typeErrorOf(R"({"model_type": "deepseekv3", )" + rest + "}") ==
          "config.model_type 'deepseekv3' is not a model type posenc knows, and Hugging Face's AutoConfig refuses it too. Did you mean 'deepseek_v3'? "
          "(To read it with the generic Llama rules anyway, pass unknownModelType: 'generic'.)");
    CHECK(read(R"({"model_type": "deepseek_v3", )" + rest + "}").layout == RopeLayout::interleaved);
    // Gemma 2's sliding window must not silently become 0
    CHECK(mentions(typeErrorOf(R"({"model_type": "gemma-2", "hidden_size": 3584, "num_attention_heads": 16, "num_hidden_layers": 42})"),
                   "config.model_type 'gemma-2' is not a model type posenc knows, and Hugging Face's AutoConfig refuses it too. Did you mean 'gemma2'?"));
    CHECK(read(R"({"model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16, "num_hidden_layers": 42})").attention.slidingWindow == 4096);
    CHECK(mentions(typeErrorOf(R"({"model_type": "llama-3", "hidden_size": 4096, "num_attention_heads": 32})"), "Did you mean 'llama' or 'llama4'?"));
    CHECK(mentions(typeErrorOf(R"({"model_type": "Qwen2", "hidden_size": 896, "num_attention_heads": 14})"), "Did you mean 'qwen2'?"));
    CHECK(mentions(typeErrorOf(R"({"model_type": "mistral3", "text_config": {"model_type": "mistrall", "hidden_size": 4096, "num_attention_heads": 32}})"),
                   "config.text_config.model_type 'mistrall' is not a model type posenc knows"));
    // nothing close: no suggestion
    CHECK(mentions(typeErrorOf(R"({"model_type": "zzzzzzzz", "hidden_size": 64, "num_attention_heads": 2})"), "refuses it too. (To read it"));

    HfConfigOptions generic;
    generic.unknownModelType = HfConfigOptions::UnknownModelType::generic;
    const HfRopeConfig g = ropeConfigFromHF(R"({"model_type": "deepseekv3", )" + rest + "}", generic);
    CHECK(g.layout == RopeLayout::half);  // the Llama rules, as asked
    CHECK(g.rope.headDim == 64);
    CHECK(g.warnings.empty());
    // a misspelt key is refused under the generic rules too
    CHECK(mentions(typeErrorOf(R"({"model_type": "new_model", "hidden_size": 64, "num_attention_heads": 2, "rope_thetta": 5})", generic),
                   "unknown key 'rope_thetta': did you mean 'rope_theta'?"));
    // a text_config without model_type: the one its multimodal class fills in (LlavaConfig: llama)
    const HfRopeConfig llava = read(R"({"model_type": "llava", "text_config": {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000}})");
    CHECK(llava.modelType == "llama");
    CHECK(llava.warnings.empty());
}

TEST_CASE("hf config: a config without model_type is read with the Llama rules and says so") {
    const std::string json = R"({"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000})";
    const HfRopeConfig r = read(json);
    CHECK(r.rope.headDim == 128);
    CHECK(r.layout == RopeLayout::half);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].rfind("config.model_type is missing, so the config is read with the generic Llama rules", 0) == 0);
    CHECK(r.ignored.empty());  // no key was ignored: the warning is about the rules
    HfConfigOptions strict;
    strict.strict = true;
    CHECK_THROWS_WITH_AS(ropeConfigFromHF(json, strict), doctest::Contains("config.model_type is missing"), std::invalid_argument);
    HfConfigOptions generic;
    generic.strict = true;
    generic.unknownModelType = HfConfigOptions::UnknownModelType::generic;
    CHECK(ropeConfigFromHF(json, generic).warnings.empty());  // asked for: nothing to warn about, nothing strict refuses
}

TEST_CASE("hf config: a multimodal model type without its text_config, and a huge unknown key, are plain errors") {
    CHECK(mentions(typeErrorOf(R"({"model_type": "llava", "hidden_size": 4096, "num_attention_heads": 32})"),
                   "config.model_type 'llava' is a multimodal model type: its language model's fields belong in text_config"));
    // a key far longer than any key read is no misspelling, and costs no quadratic edit-distance table
    const std::string huge = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_attention_heads\": 2, \"" + std::string(1 << 20, 'r') + "\": 1}";
    CHECK(read(huge).rope.headDim == 32);
}

// The result's "rope" object echoes each rope_scaling field the config set, under its posenc name, with
// the config's value (the reader and the echo walk the registry's scaling keys: src/rotary/hf_config.cpp).
TEST_CASE("config.json: every scaling field read is echoed under its posenc name with the config's value") {
    const auto scalingOf = [](const std::string& text) { return *json::parse(toJson(read(text))).find("rope")->find("scaling"); };
    const json::Value yarn = scalingOf(R"({"model_type": "deepseek_v3", "hidden_size": 64, "num_attention_heads": 4, "qk_rope_head_dim": 8,
        "max_position_embeddings": 163840, "rope_theta": 10000, "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
        "beta_fast": 31, "beta_slow": 2, "mscale": 0.75, "mscale_all_dim": 0.5, "attention_factor": 1.25, "truncate": false}})");
    CHECK(yarn.find("type")->text() == "yarn");
    CHECK(yarn.find("factor")->number() == 40);
    CHECK(yarn.find("originalMaxPositionEmbeddings")->number() == 4096);
    CHECK(yarn.find("betaFast")->number() == 31);
    CHECK(yarn.find("betaSlow")->number() == 2);
    CHECK(yarn.find("mscale")->number() == 0.75);
    CHECK(yarn.find("mscaleAllDim")->number() == 0.5);
    CHECK(yarn.find("attentionFactor")->number() == 1.25);
    REQUIRE(yarn.find("truncate"));
    CHECK(yarn.find("truncate")->isBoolean());
    CHECK_FALSE(yarn.find("truncate")->boolean());
    const json::Value llama3 = scalingOf(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8, "rope_theta": 500000,
        "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8, "original_max_position_embeddings": 8192,
        "low_freq_factor": 1.5, "high_freq_factor": 4.5}})");
    CHECK(llama3.find("lowFreqFactor")->number() == 1.5);
    CHECK(llama3.find("highFreqFactor")->number() == 4.5);
    CHECK_FALSE(llama3.find("betaFast"));  // only what the config set
    const json::Value longrope = scalingOf(R"({"model_type": "phi3", "hidden_size": 32, "num_attention_heads": 4, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_scaling": {"type": "longrope", "short_factor": [1, 1.1, 1.2, 1.3], "long_factor": [1, 2, 3, 4]}})");
    REQUIRE(longrope.find("shortFactor"));
    REQUIRE(longrope.find("longFactor"));
    CHECK(longrope.find("shortFactor")->size() == 4);
    CHECK(longrope.find("shortFactor")->elements()[3].number() == 1.3);
    CHECK(longrope.find("longFactor")->elements()[1].number() == 2);
}
