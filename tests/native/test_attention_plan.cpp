// posenc::attentionConfigFromHF (issue 33): the C++ entry. The per-family checks against each family's
// transformers code run in JS (tests/node/attention-plan.test.mjs, one published config per family); here the
// C++ structs themselves: what a Gemma 2 layer (google/gemma-2-2b-it's config), a gpt-oss layer and a DeepSeek-V2-Lite
// layer plan, held to the long-double eager attention of transformers' modeling_gemma2.py (c49429ed1f: scaling =
// query_pre_attn_scalar**-0.5 at :229, softcap at :203-206, sliding window at :246, masking_utils.py:99
// kv_idx > q_idx - sliding_window) and modeling_deepseek_v2.py (DeepseekV2Attention, yarn_apply_mscale :289-296),
// through attention and the cache built from the plan; refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>

#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
// google/gemma-2-2b-it's config.json (tests/fixtures/hf/gemma-2-2b-it.json), the keys its attention reads
const std::string kGemma2 = R"({"model_type": "gemma2", "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4,
  "head_dim": 256, "num_hidden_layers": 26, "query_pre_attn_scalar": 256, "attn_logit_softcapping": 50.0,
  "final_logit_softcapping": 30.0, "rope_theta": 10000.0, "sliding_window": 4096, "max_position_embeddings": 8192})";

// Gemma 2's eager attention in long double: rotate_half RoPE (base 10000, all 256 channels), repeat_kv,
// q.k * scaling, softcap * tanh(. / softcap), causal + sliding mask, softmax, weights @ v. Queries at positions
// kLen - qLen .. kLen - 1.
std::vector<ld> gemma2Reference(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v, int heads,
                                int kvHeads, int hd, int qLen, int kLen, int window) {
    const auto w = ref::defaultInvFreq(hd, 10000);
    const ld scaling = 1 / std::sqrt(ld(256)), cap = 50;
    std::vector<ld> out(std::size_t(heads) * qLen * hd, 0);
    for (int h = 0; h < heads; ++h) {
        const int g = h / (heads / kvHeads);
        for (int i = 0; i < qLen; ++i) {
            const int pq = kLen - qLen + i;
            std::vector<ld> qr(q.begin() + (std::size_t(h) * qLen + i) * hd, q.begin() + (std::size_t(h) * qLen + i + 1) * hd);
            qr = ref::rope(qr, pq, w, true);
            std::vector<ld> logit(kLen, 0);
            std::vector<bool> ok(kLen, false);
            ld m = -INFINITY;
            for (int j = 0; j < kLen; ++j) {
                ok[j] = j <= pq && (window == 0 || j > pq - window);
                std::vector<ld> kr(k.begin() + (std::size_t(g) * kLen + j) * hd, k.begin() + (std::size_t(g) * kLen + j + 1) * hd);
                kr = ref::rope(kr, j, w, true);
                ld s = 0;
                for (int c = 0; c < hd; ++c) s += qr[c] * kr[c];
                logit[j] = cap * std::tanh(s * scaling / cap);
                if (ok[j]) m = std::max(m, logit[j]);
            }
            ld den = 0;
            for (int j = 0; j < kLen; ++j) den += ok[j] ? std::exp(logit[j] - m) : 0;
            for (int j = 0; j < kLen; ++j)
                if (ok[j])
                    for (int c = 0; c < hd; ++c)
                        out[(std::size_t(h) * qLen + i) * hd + c] += std::exp(logit[j] - m) / den * v[(std::size_t(g) * kLen + j) * hd + c];
        }
    }
    return out;
}

template <class A, class B>
double maxDiff(const A& a, const B& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::fabs(ld(a[i]) - ld(b[i]))));
    return m;
}
}  // namespace

TEST_CASE("attentionConfigFromHF: Gemma 2's sliding layer 0 and global layer 1, as structs to complete") {
    const AttentionPlan p0 = attentionConfigFromHF(kGemma2, 0);
    CHECK(p0.layerInfo.type == "sliding_attention");
    CHECK(p0.attention.dims.heads == 8);
    CHECK(p0.attention.dims.kvHeads == 4);
    CHECK(p0.attention.dims.headDim == 256);
    CHECK(p0.attention.scale == doctest::Approx(1.0 / 16).epsilon(1e-15));
    REQUIRE(p0.attention.softcap);
    CHECK(*p0.attention.softcap == 50);
    CHECK(p0.attention.window == 4096);
    CHECK(p0.attention.causal);
    REQUIRE(std::holds_alternative<RopeEncoding>(p0.attention.encoding));
    CHECK(std::get<RopeEncoding>(p0.attention.encoding).config.base == 10000);
    CHECK(p0.cache.kvHeads == 4);
    CHECK(p0.cache.window == 4096);
    CHECK(p0.cache.rope);
    CHECK(p0.attend.heads == 8);
    CHECK(*p0.attend.softcap == 50);
    CHECK(p0.requires.empty());
    CHECK(p0.scaleRule.find("query_pre_attn_scalar") != std::string::npos);
    const AttentionPlan p1 = attentionConfigFromHF(kGemma2, 1);
    CHECK(p1.layerInfo.type == "full_attention");
    CHECK(p1.attention.window == 0);
    CHECK(p1.cache.window == 0);
    const std::string json = toJson(p0);
    CHECK(json.find(R"("softcap":50)") != std::string::npos);
    CHECK(json.find(R"("requires":[])") != std::string::npos);
}

TEST_CASE("attentionConfigFromHF: Gemma 2 27B scales by query_pre_attn_scalar^-1/2 = 144^-1/2, not head_dim^-1/2 = 128^-1/2") {
    // google/gemma-2-27b (tests/fixtures/hf/gemma-2-27b.json): head_dim 128, query_pre_attn_scalar 144
    const AttentionPlan p = attentionConfigFromHF(R"({"model_type": "gemma2", "hidden_size": 4608, "num_attention_heads": 32,
      "num_key_value_heads": 16, "head_dim": 128, "num_hidden_layers": 46, "query_pre_attn_scalar": 144, "sliding_window": 4096})", 1);
    CHECK(p.attention.scale == doctest::Approx(1.0 / 12).epsilon(1e-15));
    CHECK(p.attend.scale == doctest::Approx(1.0 / 12).epsilon(1e-15));
    CHECK(*p.attention.softcap == 50);  // attn_logit_softcapping absent: Gemma2Config's default
}

TEST_CASE("attentionConfigFromHF: a Gemma 2 plan computes Gemma 2's eager attention, in attention and in the cache") {
    const int heads = 8, kvHeads = 4, hd = 256, qLen = 3, kLen = 24;
    const auto q = ref::randomVector(std::size_t(heads) * qLen * hd, 71, -5.f, 5.f);
    const auto k = ref::randomVector(std::size_t(kvHeads) * kLen * hd, 72, -5.f, 5.f);
    const auto v = ref::randomVector(std::size_t(kvHeads) * kLen * hd, 73);
    for (int layer : {0, 1}) {
        CAPTURE(layer);
        const AttentionPlan plan = attentionConfigFromHF(kGemma2, layer);
        AttentionRequest r = plan.attention;
        r.dims.qLen = qLen, r.dims.kLen = kLen;
        r.q = View<float>(q.data(), q.size()), r.k = View<float>(k.data(), k.size()), r.v = View<float>(v.data(), v.size());
        const auto got = attention(r).out;
        // the sliding window (4096) is past these 24 keys: both layers are plain causal here
        const auto want = gemma2Reference(q, k, v, heads, kvHeads, hd, qLen, kLen, plan.attention.window);
        CHECK(maxDiff(got, want) < 2e-5);

        KVCacheConfig c = plan.cache;
        c.capacity = std::max(kLen, c.window);
        KVCache cache(c);
        cache.append(View<float>(k.data(), k.size()), View<float>(v.data(), v.size()), kLen);
        std::vector<float> out(q.size());
        cache.attend(View<float>(q.data(), q.size()), plan.attend.heads, qLen, plan.attend.encoding, {}, true, out.data(), plan.attend.scale, {}, {},
                     plan.attend.softcap);
        CHECK(maxDiff(out, want) < 2e-5);
    }
}

TEST_CASE("attentionConfigFromHF: the sliding window is HF's (keys with q - k >= window masked), with a small window") {
    std::string cfg = kGemma2;
    cfg.replace(cfg.find("4096"), 4, "5");  // sliding_window 5
    const int heads = 8, kvHeads = 4, hd = 256, qLen = 2, kLen = 12;
    const auto q = ref::randomVector(std::size_t(heads) * qLen * hd, 81, -5.f, 5.f);
    const auto k = ref::randomVector(std::size_t(kvHeads) * kLen * hd, 82, -5.f, 5.f);
    const auto v = ref::randomVector(std::size_t(kvHeads) * kLen * hd, 83);
    const AttentionPlan plan = attentionConfigFromHF(cfg, 0);
    REQUIRE(plan.attention.window == 5);
    AttentionRequest r = plan.attention;
    r.dims.qLen = qLen, r.dims.kLen = kLen;
    r.q = View<float>(q.data(), q.size()), r.k = View<float>(k.data(), k.size()), r.v = View<float>(v.data(), v.size());
    CHECK(maxDiff(attention(r).out, gemma2Reference(q, k, v, heads, kvHeads, hd, qLen, kLen, 5)) < 2e-5);
}

TEST_CASE("attentionConfigFromHF: gpt-oss requires its sink logits; Bloom plans ALiBi; refusals name the key") {
    const std::string oss = R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8,
      "head_dim": 64, "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 128,
      "rope_theta": 150000, "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096,
      "beta_fast": 32.0, "beta_slow": 1.0, "truncate": false}, "max_position_embeddings": 131072})";
    const AttentionPlan p = attentionConfigFromHF(oss, 0);
    CHECK(p.requires == std::vector<std::string>{"sinkLogits"});
    CHECK(p.attention.window == 128);
    CHECK(attentionConfigFromHF(oss, 1).attention.window == 0);

    const AttentionPlan b = attentionConfigFromHF(R"({"model_type": "bloom", "hidden_size": 1024, "n_head": 16, "n_layer": 24})", 3);
    REQUIRE(std::holds_alternative<AlibiEncoding>(b.attention.encoding));
    CHECK(std::get<AlibiEncoding>(b.attention.encoding).heads == 16);
    CHECK(!b.cache.rope);
    CHECK(b.attention.scale == doctest::Approx(1 / std::sqrt(64.0)));

    auto message = [](auto f) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string past = message([&] { attentionConfigFromHF(kGemma2, 26); });
    CHECK(past.find("layer") == 0);
    CHECK(past.find("num_hidden_layers (26)") != std::string::npos);
    CHECK(message([&] { attentionConfigFromHF(kGemma2, -1); }).find("layer") == 0);
    HfConfigOptions withType;
    withType.layerType = "sliding_attention";
    CHECK(message([&] { attentionConfigFromHF(kGemma2, 0, withType); }).find("layerType") == 0);
    CHECK(message([] { attentionConfigFromHF(R"({"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1, "alibi": true})", 0); })
              .find("config.alibi") == 0);
    CHECK(message([] { attentionConfigFromHF(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4})", 0); })
              .find("config.num_hidden_layers") == 0);
    CHECK(message([] { attentionConfigFromHF(R"({"model_type": "gemma2", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1, "query_pre_attn_scalr": 64})", 0); })
              .find("query_pre_attn_scalr") != std::string::npos);
}

namespace {
// deepseek-ai/DeepSeek-V2-Lite's config.json (tests/fixtures/hf/deepseek-v2-lite.json), the keys its attention reads
const std::string kDeepSeekV2Lite = R"({"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27,
  "num_attention_heads": 16, "num_key_value_heads": 16, "rope_theta": 10000.0, "max_position_embeddings": 163840,
  "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
  "rope_scaling": {"type": "yarn", "factor": 40, "beta_fast": 32, "beta_slow": 1, "mscale": 0.707, "mscale_all_dim": 0.707,
  "original_max_position_embeddings": 4096}})";

// DeepseekV2Attention (modeling_deepseek_v2.py) per head in long double, default RoPE: q.k over heads of
// 128 + 64 channels with apply_rotary_emb's view_as_complex pairs (2i, 2i + 1) on the last 64 (base 10000, dim 64),
// scaling qk_head_dim^-0.5, causal softmax, weights @ v of 128 channels. Queries at kLen - qLen .. kLen - 1.
std::vector<ld> deepseekReference(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v, int heads, int qLen,
                                  int kLen) {
    const int nope = 128, rope = 64, hd = nope + rope, vd = 128;
    const auto w = ref::defaultInvFreq(rope, 10000);
    auto rotated = [&](const float* x, int p) {
        std::vector<ld> head(x, x + hd);
        const std::vector<ld> r = ref::rope(std::vector<ld>(head.begin() + nope, head.end()), p, w, false);
        std::copy(r.begin(), r.end(), head.begin() + nope);
        return head;
    };
    std::vector<ld> out(std::size_t(heads) * qLen * vd, 0);
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < qLen; ++i) {
            const int pq = kLen - qLen + i;
            const auto qr = rotated(&q[(std::size_t(h) * qLen + i) * hd], pq);
            std::vector<ld> logit(pq + 1);
            ld m = -INFINITY, den = 0;
            for (int j = 0; j <= pq; ++j) {
                const auto kr = rotated(&k[(std::size_t(h) * kLen + j) * hd], j);
                ld s = 0;
                for (int c = 0; c < hd; ++c) s += qr[c] * kr[c];
                logit[j] = s / std::sqrt(ld(hd));
                m = std::max(m, logit[j]);
            }
            for (int j = 0; j <= pq; ++j) den += std::exp(logit[j] - m);
            for (int j = 0; j <= pq; ++j)
                for (int c = 0; c < vd; ++c)
                    out[(std::size_t(h) * qLen + i) * vd + c] += std::exp(logit[j] - m) / den * v[(std::size_t(h) * kLen + j) * vd + c];
        }
    return out;
}
}  // namespace

TEST_CASE("attentionConfigFromHF: DeepSeek-V2-Lite's MLA plans heads of 128 + 64 rotated from 128 on, values of 128, scale x mscale^2") {
    const AttentionPlan p = attentionConfigFromHF(kDeepSeekV2Lite, 0);
    CHECK(p.attention.dims.heads == 16);
    CHECK(p.attention.dims.kvHeads == 16);
    CHECK(p.attention.dims.headDim == 192);
    CHECK(p.attention.dims.valueDim == 128);
    CHECK(p.cache.headDim == 192);
    CHECK(p.cache.valueDim == 128);
    REQUIRE(std::holds_alternative<RopeEncoding>(p.attention.encoding));
    const RopeEncoding& e = std::get<RopeEncoding>(p.attention.encoding);
    CHECK(e.layout == RopeLayout::interleaved);
    CHECK(e.config.rotaryOffset == 128);
    CHECK(rotaryDimOf(e.config.headDim, e.config.partialRotaryFactor) == 64);
    REQUIRE(p.cache.rope);
    CHECK(p.cache.rope->config.rotaryOffset == 128);
    // yarn_apply_mscale (modeling_deepseek_v2.py:289-296): 192^-0.5 * (0.1 * 0.707 * ln 40 + 1)^2
    const double m = 0.1 * 0.707 * std::log(40.0) + 1;
    CHECK(p.attention.scale == doctest::Approx(m * m / std::sqrt(192.0)).epsilon(1e-14));
    CHECK(p.attend.scale == p.attention.scale);

    // without rope_scaling (default RoPE, scale 192^-0.5): the plan computes DeepseekV2Attention, in attention and the cache
    std::string plain = kDeepSeekV2Lite;
    plain.erase(plain.find(",\n  \"rope_scaling\""), std::string::npos);
    plain += "}";
    const AttentionPlan d = attentionConfigFromHF(plain, 26);
    CHECK(d.attention.scale == doctest::Approx(1 / std::sqrt(192.0)).epsilon(1e-15));
    const int heads = 16, qLen = 3, kLen = 20;
    const auto q = ref::randomVector(std::size_t(heads) * qLen * 192, 91, -2.f, 2.f);
    const auto k = ref::randomVector(std::size_t(heads) * kLen * 192, 92, -2.f, 2.f);
    const auto v = ref::randomVector(std::size_t(heads) * kLen * 128, 93);
    const auto want = deepseekReference(q, k, v, heads, qLen, kLen);
    AttentionRequest r = d.attention;
    r.dims.qLen = qLen, r.dims.kLen = kLen;
    r.q = View<float>(q.data(), q.size()), r.k = View<float>(k.data(), k.size()), r.v = View<float>(v.data(), v.size());
    const auto got = attention(r).out;
    REQUIRE(got.size() == want.size());
    CHECK(maxDiff(got, want) < 2e-5);

    KVCacheConfig c = d.cache;
    c.capacity = kLen;
    KVCache cache(c);
    cache.append(View<float>(k.data(), k.size()), View<float>(v.data(), v.size()), kLen);
    std::vector<float> out(want.size());
    cache.attend(View<float>(q.data(), q.size()), d.attend.heads, qLen, d.attend.encoding, {}, true, out.data(), d.attend.scale, {}, {}, d.attend.softcap);
    CHECK(maxDiff(out, want) < 2e-5);
}

TEST_CASE("attentionConfigFromHF: MLA keys outside DeepSeek V2 / V3 are refused; DeepSeek without v_head_dim names it") {
    auto message = [](const std::string& json) {
        try {
            HfConfigOptions o;
            o.unknownModelType = HfConfigOptions::UnknownModelType::generic;
            attentionConfigFromHF(json, 0, o);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    std::string kimi = kDeepSeekV2Lite;
    kimi.replace(kimi.find("deepseek_v2"), 11, "kimi_k2");
    const std::string k = message(kimi);
    CHECK(k.find("config.") == 0);
    CHECK(k.find("'deepseek_v2' and 'deepseek_v3' only") != std::string::npos);
    std::string noV = kDeepSeekV2Lite;
    noV.erase(noV.find("\"v_head_dim\": 128,"), 18);
    CHECK(message(noV).find("config.v_head_dim is required") == 0);
}
