// Query temperature (Llama 4, Ministral 3) and what ropeConfigFromHF reads besides the rotary table:
// keys Hugging Face ignores, the temperature, the attention shape. Expected values come from the
// formulas of HF's modeling code written out here in long double:
//   Ministral 3 (_get_llama_4_attn_scale): 1 + beta * log(1 + floor(p / L0))
//   Llama 4 (attn_temperature_tuning):     log1p(floor((p + 1) / floor_scale)) * attn_scale + 1
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <posenc/posenc.hpp>
#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {

ld ministral(ld beta, ld L0, ld p) { return 1 + beta * std::log(1 + std::floor(p / L0)); }
ld llama4(ld attnScale, ld floorScale, ld p) { return std::log1p(std::floor((p + 1) / floorScale)) * attnScale + 1; }

// Causal GQA attention with an optional rope (half layout, default schedule) and query temperature s(p),
// in long double: out[h, i] = sum_j softmax_j(scale * s(p_i) q_i' . k_j') v_j.
std::vector<ld> reference(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v, int heads, int kvHeads,
                          int d, const std::vector<std::int32_t>& qp, const std::vector<std::int32_t>& kp, bool rope, ld beta, ld length, ld offset) {
    const int qLen = static_cast<int>(qp.size()), kLen = static_cast<int>(kp.size());
    const auto w = ref::defaultInvFreq(d, 10000);
    auto row = [&](const std::vector<float>& x, std::size_t at, ld p) {
        std::vector<ld> r(x.begin() + at, x.begin() + at + d);
        return rope ? ref::rope(r, p, w, true) : r;
    };
    std::vector<ld> out(static_cast<std::size_t>(heads) * qLen * d, 0);
    for (int h = 0; h < heads; ++h) {
        const int g = h / (heads / kvHeads);
        for (int i = 0; i < qLen; ++i) {
            std::vector<ld> qi = row(q, (static_cast<std::size_t>(h) * qLen + i) * d, qp[i]);
            const ld s = 1 + beta * std::log(1 + std::floor((qp[i] + offset) / length));
            for (ld& x : qi) x *= s;
            std::vector<ld> logits;
            std::vector<int> keys;
            for (int j = 0; j < kLen; ++j) {
                if (kp[j] > qp[i]) continue;  // causal
                const std::vector<ld> kj = row(k, (static_cast<std::size_t>(g) * kLen + j) * d, kp[j]);
                ld dot = 0;
                for (int c = 0; c < d; ++c) dot += qi[c] * kj[c];
                logits.push_back(dot / std::sqrt(ld(d)));
                keys.push_back(j);
            }
            ld m = -INFINITY, z = 0;
            for (ld l : logits) m = std::max(m, l);
            for (ld l : logits) z += std::exp(l - m);
            for (std::size_t t = 0; t < keys.size(); ++t) {
                const ld wgt = std::exp(logits[t] - m) / z;
                for (int c = 0; c < d; ++c) out[(static_cast<std::size_t>(h) * qLen + i) * d + c] += wgt * v[(static_cast<std::size_t>(g) * kLen + keys[t]) * d + c];
            }
        }
    }
    return out;
}

ld maxDiff(const std::vector<float>& a, const std::vector<ld>& b) {
    ld m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
    return m;
}

std::string messageOf(const std::string& json, bool strict = false) {
    HfConfigOptions o;
    o.strict = strict;
    try {
        ropeConfigFromHF(json, o);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}
bool mentions(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("query temperature: each quantity equals HF's formula at 0, L0 - 1, L0, 5 L0, 2^24") {
    const TemperatureEncoding mini{0.1, 16384, 0};   // Ministral 3: llama_4_scaling_beta, original_max_position_embeddings
    const TemperatureEncoding llama{0.1, 8192, 1};   // Llama 4: attn_scale, floor_scale, offset 1
    for (std::int64_t p : {std::int64_t{0}, std::int64_t{16383}, std::int64_t{16384}, std::int64_t{5 * 16384}, std::int64_t{1} << 24}) {
        const ld want = ministral(0.1L, 16384, p);
        CHECK(std::fabs(queryTemperature(mini, p) - want) <= 1e-15L * want);
    }
    for (std::int64_t p : {std::int64_t{0}, std::int64_t{8191}, std::int64_t{8192}, std::int64_t{5 * 8192}, std::int64_t{1} << 24}) {
        const ld want = llama4(0.1L, 8192, p);
        CHECK(std::fabs(queryTemperature(llama, p) - want) <= 1e-15L * want);
    }
    // where the floor steps: 1 below L0 (below L0 - 1 with Llama 4's offset), 1 + beta ln 2 at it
    CHECK(queryTemperature(mini, 16383) == 1.0);
    CHECK(std::fabs(queryTemperature(mini, 16384) - (1 + 0.1 * std::log(2.0))) < 1e-15);
    CHECK(queryTemperature(llama, 8190) == 1.0);
    CHECK(std::fabs(queryTemperature(llama, 8191) - (1 + 0.1 * std::log(2.0))) < 1e-15);
    // the largest position: floor(2147483647 / 16384) = 131071, exact (float32 would round the quotient up to 131072)
    CHECK(std::fabs(queryTemperature(mini, 2147483647) - (1 + 0.1 * std::log(131072.0))) < 1e-14);
    // options
    CHECK_THROWS_WITH_AS(validateTemperature({0.1, 0, 0}), doctest::Contains("encoding.length must be a positive integer"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(validateTemperature({NAN, 8, 0}), doctest::Contains("encoding.beta must be a finite number"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(validateTemperature({0.1, 8, -1}), doctest::Contains("encoding.offset"), std::invalid_argument);
}

TEST_CASE("attention with query temperature = the float64 reference (GQA, causal; alone and with RoPE)") {
    const int heads = 4, kvHeads = 2, d = 8, qLen = 3, kLen = 7;
    const auto q = ref::randomVector(static_cast<std::size_t>(heads) * qLen * d, 1);
    const auto k = ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * d, 2);
    const auto v = ref::randomVector(static_cast<std::size_t>(kvHeads) * kLen * d, 3);
    // far positions, length 2 and beta 0.7: every query gets its own temperature
    std::vector<std::int32_t> kp(kLen), qp(qLen);
    for (int j = 0; j < kLen; ++j) kp[j] = 40000 + j;
    for (int i = 0; i < qLen; ++i) qp[i] = kp[kLen - qLen + i];
    const TemperatureEncoding t{0.7, 2, 1};
    RopeEncoding rope;
    rope.config.headDim = d;
    for (bool withRope : {false, true}) {
        AttentionRequest r;
        r.dims = AttentionDims{heads, kvHeads, d, qLen, kLen};
        r.q = q;
        r.k = k;
        r.v = v;
        r.qPositions = qp;
        r.kPositions = kp;
        r.causal = true;
        if (withRope) r.encoding = CombinedEncoding{{rope, t}};
        else r.encoding = t;
        const auto got = attention(r).out;
        CHECK(maxDiff(got, reference(q, k, v, heads, kvHeads, d, qp, kp, withRope, 0.7L, 2, 1)) < 2e-6L);
        // and it is not the same as without the temperature
        CHECK(maxDiff(got, reference(q, k, v, heads, kvHeads, d, qp, kp, withRope, 0, 2, 1)) > 1e-3L);
    }
    AttentionRequest two;
    two.dims = AttentionDims{heads, kvHeads, d, qLen, kLen};
    two.q = q;
    two.k = k;
    two.v = v;
    two.encoding = CombinedEncoding{{t, t}};
    CHECK_THROWS_WITH_AS(attention(two), doctest::Contains("two 'temperature' parts"), std::invalid_argument);
    two.encoding = TemperatureEncoding{0.1, 0, 0};
    CHECK_THROWS_WITH_AS(attention(two), doctest::Contains("encoding.length"), std::invalid_argument);
}

TEST_CASE("KV cache with query temperature = attention, at the logical position far past the window") {
    const int heads = 4, kvHeads = 2, d = 8, T = 40, sinks = 1, window = 4;
    const auto k = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * d, 11);
    const auto v = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * d, 12);
    const auto q = ref::randomVector(static_cast<std::size_t>(heads) * d, 13);
    RopeEncoding rope;
    rope.config.headDim = d;
    KVCacheConfig c;
    c.kvHeads = kvHeads;
    c.headDim = d;
    c.capacity = sinks + window;
    c.window = window;
    c.sinks = sinks;
    c.rope = rope;
    KVCache cache(c);
    cache.append(k, v, T);
    const TemperatureEncoding t{0.5, 8, 0};
    std::vector<float> out(static_cast<std::size_t>(heads) * d);
    cache.attend(q, heads, 1, t, {}, true, out.data());  // query at position T - 1 = 39: s = 1 + 0.5 ln 5
    // attention over the kept keys (0 and 36..39) at their positions
    const std::vector<int> kept = {0, 36, 37, 38, 39};
    std::vector<float> kk, vv;
    for (int g = 0; g < kvHeads; ++g)
        for (int j : kept) {
            kk.insert(kk.end(), k.begin() + (static_cast<std::size_t>(g) * T + j) * d, k.begin() + (static_cast<std::size_t>(g) * T + j + 1) * d);
            vv.insert(vv.end(), v.begin() + (static_cast<std::size_t>(g) * T + j) * d, v.begin() + (static_cast<std::size_t>(g) * T + j + 1) * d);
        }
    std::vector<std::int32_t> kp(kept.begin(), kept.end()), qp = {T - 1};
    AttentionRequest r;
    r.dims = AttentionDims{heads, kvHeads, d, 1, 5};
    r.q = q;
    r.k = kk;
    r.v = vv;
    r.qPositions = qp;
    r.kPositions = kp;
    r.causal = true;
    r.encoding = CombinedEncoding{{rope, t}};
    const auto want = attention(r).out;
    float diff = 0;
    for (std::size_t i = 0; i < out.size(); ++i) diff = std::max(diff, std::fabs(out[i] - want[i]));
    CHECK(diff < 1e-5f);
    CHECK(maxDiff(out, reference(q, kk, vv, heads, kvHeads, d, qp, kp, true, 0.5L, 8, 0)) < 2e-6L);
    // a bad temperature leaves the cache as it was
    const auto before = cache.positions();
    CHECK_THROWS_AS(cache.attend(q, heads, 1, TemperatureEncoding{0.5, 0, 0}, {}, true, out.data()), std::invalid_argument);
    CHECK(cache.positions() == before);
}

TEST_CASE("hf config: keys Hugging Face's code ignores are ignored and listed; strict refuses them") {
    struct Case {
        std::string json, key, value, strictMessage;
    };
    const Case cases[] = {
        // Qwen2.5 text configs
        {R"({"model_type": "qwen2", "hidden_size": 896, "num_attention_heads": 14, "rope_theta": 1000000.0, "use_mrope": false})",
         "config.use_mrope", "false", "config.use_mrope is ignored: Hugging Face's qwen2 code does not read it (strict refuses"},
        // SmolLM2 (nanotron leftover)
        {R"({"model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "rope_theta": 100000, "rope_interleaved": false})",
         "config.rope_interleaved", "false", "config.rope_interleaved is ignored: Hugging Face's llama code does not read it (strict refuses"},
        // StableLM-epoch remote code reads rope_pct and rope_theta only
        {R"({"model_type": "stablelm_epoch", "hidden_size": 2560, "num_attention_heads": 32, "rope_pct": 0.25, "rotary_scaling_factor": 1.0})",
         "config.rotary_scaling_factor", "1.0", "config.rotary_scaling_factor is ignored: Hugging Face's stablelm_epoch code does not read it"},
        {R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_local_base_freq": 10000})",
         "config.rope_local_base_freq", "10000", "read only for Gemma 3"},
        {R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "rope_interleave": true})",
         "config.rope_interleave", "true", "read only for DeepSeek-V3"},
        {R"({"model_type": "qwen2", "hidden_size": 4096, "num_attention_heads": 32, "no_rope_layers": [1, 0]})",
         "config.no_rope_layers", "[1,0]", "read only for Llama 4 and SmolLM3"},
        {R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rope_theta": 500000})",
         "config.rope_theta", "500000", "config.rope_theta has no effect in gptj"},
        // NousResearch's YaRN Llama configs: a key of their remote code, not a misspelling of a rope field
        {R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_scaling": {"type": "linear", "factor": 2, "finetuned": true}})",
         "config.rope_scaling.finetuned", "true", "config.rope_scaling.finetuned is ignored: no rotary code of Hugging Face reads it"},
        {R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "llama_4_scaling_beta": 0.1}})",
         "config.rope_parameters.llama_4_scaling_beta", "0.1", "config.rope_parameters.llama_4_scaling_beta is ignored: a query temperature read only by Ministral 3's code"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.key);
        const HfRopeConfig r = ropeConfigFromHF(c.json);
        REQUIRE(r.ignored.size() == 1);
        CHECK(r.ignored[0].key == c.key);
        CHECK(r.ignored[0].value == c.value);
        CHECK(!r.ignored[0].reason.empty());
        // the same, visible as a sentence that names the key
        REQUIRE(r.warnings.size() == 1);
        CHECK(r.warnings[0] == c.key + " is ignored: " + r.ignored[0].reason);
        CHECK(!r.temperature);
        CHECK(mentions(messageOf(c.json, true), c.strictMessage));
    }
    // GPT-J: the ignored rope_theta does not change the base its code fixes
    CHECK(ropeConfigFromHF(cases[6].json).rope.base == 10000);
    // Qwen2.5: use_mrope ignored, the table is plain RoPE
    CHECK(ropeConfigFromHF(cases[0].json).rope.multiAxis == MultiAxis::none);
    // a model type posenc does not know, read generically: it cannot tell whether that code reads the key, so it stays an error
    HfConfigOptions generic;
    generic.unknownModelType = HfConfigOptions::UnknownModelType::generic;
    CHECK_THROWS_WITH_AS(ropeConfigFromHF(R"({"model_type": "brand_new", "hidden_size": 64, "num_attention_heads": 2, "use_mrope": false})", generic),
                         doctest::Contains("config.use_mrope may change the rotary embedding, and posenc does not know model_type 'brand_new'"),
                         std::invalid_argument);
    CHECK(mentions(messageOf(R"({"hidden_size": 64, "num_attention_heads": 2, "rotary_emb_fraction": 0.5})"),
                   "config.rotary_emb_fraction may change the rotary embedding, and the config has no model_type"));
    // keys HF reads and posenc does not implement stay errors under the default too
    CHECK(mentions(messageOf(R"({"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
        "head_dim": 128, "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": false}}})"),
                   "always interleaves"));
}

TEST_CASE("hf config: Ministral 3 and Llama 4 temperatures and attention shapes") {
    // Ministral-3-8B text config (transformers 5 rope_parameters), inside Mistral 3's multimodal config
    const std::string ministral = R"({"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
      "text_config": {"head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
        "max_position_embeddings": 262144, "model_type": "ministral3", "num_attention_heads": 32, "num_hidden_layers": 34,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
        "rope_parameters": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 16.0, "llama_4_scaling_beta": 0.1, "mscale": 1.0,
          "mscale_all_dim": 1.0, "original_max_position_embeddings": 16384, "rope_theta": 1000000.0, "rope_type": "yarn", "type": "yarn"},
        "sliding_window": null, "vocab_size": 131072}})";
    const HfRopeConfig m = ropeConfigFromHF(ministral);
    REQUIRE(m.temperature);
    CHECK(m.temperature->beta == 0.1);
    CHECK(m.temperature->length == 16384);
    CHECK(m.temperature->offset == 0);
    CHECK(m.ignored.empty());
    CHECK(m.rope.scaling.type == RopeScalingType::yarn);
    CHECK(m.attention.heads == 32);
    CHECK(m.attention.kvHeads == 8);
    CHECK(m.attention.headDim == 128);
    CHECK(m.attention.slidingWindow == 0);
    REQUIRE(m.attention.layers.size() == 34);
    for (const HfLayer& l : m.attention.layers) CHECK((l.type == "full_attention" && l.rope && l.window == 0 && l.temperature));
    // HF reads both keys: without them its code fails, so does posenc (naming them)
    std::string noBeta = ministral;
    noBeta.erase(noBeta.find("\"llama_4_scaling_beta\": 0.1, "), std::string("\"llama_4_scaling_beta\": 0.1, ").size());
    CHECK(mentions(messageOf(noBeta), "config.text_config.rope_parameters.llama_4_scaling_beta is required"));

    // Llama-4-Scout-17B-16E text config (as published: attn_temperature_tuning 4, no_rope_layers every 4th 0)
    std::string nope = "[", moe = "[";
    for (int i = 0; i < 48; ++i) nope += std::string(i ? "," : "") + ((i + 1) % 4 ? "1" : "0"), moe += std::string(i ? "," : "") + std::to_string(i);
    nope += "]", moe += "]";
    const std::string scout = R"({"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4", "text_config": {
        "attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0, "attn_scale": 0.1, "attn_temperature_tuning": 4,
        "floor_scale": 8192, "head_dim": 128, "hidden_size": 5120, "interleave_moe_layer_step": 1, "max_position_embeddings": 262144,
        "model_type": "llama4_text", "moe_layers": )" + moe + R"(, "no_rope_layers": )" + nope + R"(, "num_attention_heads": 40,
        "num_hidden_layers": 48, "num_key_value_heads": 8, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0, "use_qk_norm": true}})";
    const HfRopeConfig l = ropeConfigFromHF(scout);
    REQUIRE(l.temperature);
    CHECK(l.temperature->beta == 0.1);
    CHECK(l.temperature->length == 8192);
    CHECK(l.temperature->offset == 1);
    CHECK(l.layout == RopeLayout::interleaved);
    CHECK(l.attention.heads == 40);
    CHECK(l.attention.kvHeads == 8);
    CHECK(l.attention.headDim == 128);
    REQUIRE(l.attention.layers.size() == 48);
    for (int i = 0; i < 48; ++i) {
        const HfLayer& x = l.attention.layers[i];
        const bool nopeLayer = (i + 1) % 4 == 0;
        CHECK(x.rope == !nopeLayer);
        CHECK(x.temperature == nopeLayer);
        CHECK(x.type == (nopeLayer ? "full_attention" : "chunked_attention"));
        CHECK(x.chunk == (nopeLayer ? 0 : 8192));
    }
    std::string off = scout;
    off.replace(off.find("\"attn_temperature_tuning\": 4"), 28, "\"attn_temperature_tuning\": false");
    const HfRopeConfig lo = ropeConfigFromHF(off);
    CHECK(!lo.temperature);
    CHECK(!lo.attention.layers[3].temperature);
}

TEST_CASE("hf config: attention shape per family (layer types, sliding windows, NoPE layers)") {
    // Gemma 3: every 6th layer global; local layers slide
    const auto g = ropeConfigFromHF(R"({"model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 256, "num_hidden_layers": 12, "sliding_window": 1024, "rope_theta": 1000000, "rope_local_base_freq": 10000})",
                                    [] { HfConfigOptions o; o.layerType = "full_attention"; return o; }());
    REQUIRE(g.attention.layers.size() == 12);
    for (int i = 0; i < 12; ++i) CHECK(g.attention.layers[i].window == ((i + 1) % 6 ? 1024 : 0));
    CHECK(g.attention.slidingWindow == 1024);
    CHECK(g.attention.kvHeads == 4);
    // Qwen2: sliding only with use_sliding_window, from max_window_layers on
    const std::string qwen = R"({"model_type": "qwen2", "hidden_size": 896, "num_attention_heads": 14, "num_key_value_heads": 2,
        "num_hidden_layers": 4, "max_window_layers": 2, "sliding_window": 4096, "use_sliding_window": false})";
    for (const HfLayer& x : ropeConfigFromHF(qwen).attention.layers) CHECK(x.window == 0);
    std::string on = qwen;
    on.replace(on.find("\"use_sliding_window\": false"), 27, "\"use_sliding_window\": true");
    const auto qw = ropeConfigFromHF(on).attention;
    CHECK(qw.headDim == 64);
    CHECK((qw.layers[0].window == 0 && qw.layers[1].window == 0 && qw.layers[2].window == 4096 && qw.layers[3].window == 4096));
    // Mistral: sliding_window on every layer
    for (const HfLayer& x : ropeConfigFromHF(R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 2, "sliding_window": 4096})").attention.layers) CHECK(x.window == 4096);
    // layer_types wins; Cohere2's global layers are NoPE
    const auto co = ropeConfigFromHF(R"({"model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 4,
        "sliding_window": 4096, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]})").attention;
    CHECK((co.layers[0].rope && !co.layers[3].rope && co.layers[3].window == 0));
    // DeepSeek MLA: q.k channels are nope + rope
    CHECK(ropeConfigFromHF(R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64, "num_hidden_layers": 1})").attention.headDim == 192);
    CHECK(mentions(messageOf(R"({"model_type": "llama", "hidden_size": 96, "num_attention_heads": 6, "num_key_value_heads": 4})"), "num_key_value_heads"));
}
