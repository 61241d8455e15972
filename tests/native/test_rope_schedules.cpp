// Each RoPE schedule against values derived from its reference definition (HF modeling_rope_utils;
// llama.cpp/ggml ggml_rope_yarn_corr_dims + rope_yarn_ramp for the ggml convention).
#include <doctest/doctest.h>

#include <algorithm>

#include <posenc/posenc.hpp>
#include "reference.hpp"

using namespace posenc;

namespace {
RopeConfig base8(RopeScalingType type, double factor) {
    RopeConfig c;
    c.headDim = 8;
    c.base = 10000;
    c.scaling.type = type;
    if (type != RopeScalingType::none) c.scaling.factor = factor;  // 'none' takes no factor
    return c;
}
void checkFreqs(const RopeFrequencies& f, std::vector<double> expect, double rel = 1e-12) {
    REQUIRE(f.invFreq.size() == expect.size());
    for (std::size_t i = 0; i < expect.size(); ++i) {
        INFO("pair " << i);
        CHECK(f.invFreq[i] == doctest::Approx(expect[i]).epsilon(rel));
    }
}
}  // namespace

TEST_CASE("linear (Position Interpolation): every frequency divided by factor") {
    auto f = ropeFrequencies(base8(RopeScalingType::linear, 4));
    checkFreqs(f, {0.25, 0.025, 0.0025, 0.00025});
    CHECK(f.attentionScale == 1.0);
}

TEST_CASE("NTK-aware: base * factor^(R/(R-2))") {
    auto f = ropeFrequencies(base8(RopeScalingType::ntk, 4));
    const double b = 10000 * std::pow(4.0, 8.0 / 6.0);
    checkFreqs(f, {1, std::pow(b, -0.25), std::pow(b, -0.5), std::pow(b, -0.75)});
}

TEST_CASE("dynamic NTK: default at or below Lmax, base grows above it") {
    auto c = base8(RopeScalingType::dynamic, 2);
    c.scaling.originalMaxPositionEmbeddings = 2048;
    const auto plain = ropeFrequencies(base8(RopeScalingType::none, 1));
    for (std::int64_t L : {0, 100, 2048}) {
        c.seqLen = L;
        checkFreqs(ropeFrequencies(c), plain.invFreq);
    }
    c.seqLen = 4096;  // base * (2*4096/2048 - 1)^(8/6) = base * 3^(4/3)
    const double b = 10000 * std::pow(3.0, 8.0 / 6.0);
    checkFreqs(ropeFrequencies(c), {1, std::pow(b, -0.25), std::pow(b, -0.5), std::pow(b, -0.75)});
    c.scaling.originalMaxPositionEmbeddings = 0;
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("originalMaxPositionEmbeddings"), std::invalid_argument);
}

TEST_CASE("YaRN, hand-worked: R=8, base 1e4, L0 4096, factor 4, beta 32/1") {
    // cd(32) = 8 ln(4096/(64 pi)) / (2 ln 1e4) = 1.309 -> floor 1; cd(1) = 2.814 -> ceil 3.
    // ramp = clamp((i-1)/2) = 0, 0, .5, 1 -> w = 1, .1, .5*.01/4 + .5*.01, .001/4
    auto c = base8(RopeScalingType::yarn, 4);
    c.scaling.originalMaxPositionEmbeddings = 4096;
    for (auto conv : {RopeConvention::hf, RopeConvention::ggml}) {
        c.convention = conv;
        auto f = ropeFrequencies(c);
        checkFreqs(f, {1, 0.1, 0.00625, 0.00025});
        CHECK(f.attentionScale == doctest::Approx(1 + 0.1 * std::log(4.0)));
    }
}

TEST_CASE("YaRN truncate=false uses the raw correction dims (HF only)") {
    auto c = base8(RopeScalingType::yarn, 4);
    c.scaling.originalMaxPositionEmbeddings = 4096;
    c.scaling.truncate = false;
    const double pi = 3.14159265358979323846;
    const double lo = 8 * std::log(4096 / (32 * 2 * pi)) / (2 * std::log(10000.0));
    const double hi = 8 * std::log(4096 / (1 * 2 * pi)) / (2 * std::log(10000.0));
    std::vector<double> expect;
    for (int i = 0; i < 4; ++i) {
        const double w = std::pow(10000.0, -i / 4.0);
        const double ramp = std::clamp((i - lo) / (hi - lo), 0.0, 1.0);
        expect.push_back(w / 4 * ramp + w * (1 - ramp));
    }
    checkFreqs(ropeFrequencies(c), expect);
    c.convention = RopeConvention::ggml;  // ggml always floors/ceils
    checkFreqs(ropeFrequencies(c), {1, 0.1, 0.00625, 0.00025});
}

TEST_CASE("YaRN inverted correction range: HF and ggml disagree, both reproduced") {
    // beta_fast 0.5 < beta_slow 32: low = floor(cd(0.5)) = floor(3.115) = 3, high = ceil(cd(32)) = 2.
    auto c = base8(RopeScalingType::yarn, 4);
    c.scaling.originalMaxPositionEmbeddings = 4096;
    c.scaling.betaFast = 0.5;
    c.scaling.betaSlow = 32;
    // HF: ramp = clamp((i-3)/(2-3)) = 1,1,1,0 -> interpolate pairs 0..2
    checkFreqs(ropeFrequencies(c), {0.25, 0.025, 0.0025, 0.001});
    // ggml: (i-3)/max(0.001, -1) -> <= 0 everywhere -> ramp 0 -> nothing interpolated
    c.convention = RopeConvention::ggml;
    checkFreqs(ropeFrequencies(c), {1, 0.1, 0.01, 0.001});
}

TEST_CASE("YaRN attention factor: mscale ratio, explicit attention_factor, ggml") {
    auto c = base8(RopeScalingType::yarn, 40);
    c.scaling.originalMaxPositionEmbeddings = 4096;
    auto m = [](double f, double s) { return 0.1 * s * std::log(f) + 1; };
    c.scaling.mscale = 0.707;
    c.scaling.mscaleAllDim = 0.707;  // DeepSeek-V2: ratio of equal terms = 1
    CHECK(ropeFrequencies(c).attentionScale == doctest::Approx(1.0));
    c.scaling.mscale = 1.0;
    c.scaling.mscaleAllDim = 0.5;
    CHECK(ropeFrequencies(c).attentionScale == doctest::Approx(m(40, 1) / m(40, 0.5)));
    c.scaling.mscaleAllDim = 0;  // unset: HF uses get_mscale(factor) with mscale 1
    c.scaling.mscale = 3;
    CHECK(ropeFrequencies(c).attentionScale == doctest::Approx(m(40, 1)));
    c.scaling.attentionFactor = 0.8;
    CHECK(ropeFrequencies(c).attentionScale == doctest::Approx(0.8));
    c.convention = RopeConvention::ggml;  // ggml: always 1 + 0.1 ln(factor)
    CHECK(ropeFrequencies(c).attentionScale == doctest::Approx(m(40, 1)));
    c.convention = RopeConvention::hf;
    c.scaling.factor = 1;  // factor 1: no interpolation, no extra scale
    c.scaling.attentionFactor = std::numeric_limits<double>::quiet_NaN();
    auto f = ropeFrequencies(c);
    checkFreqs(f, {1, 0.1, 0.01, 0.001});
    CHECK(f.attentionScale == 1.0);
}

TEST_CASE("llama3: three wavelength bands (Llama 3.1: factor 8, low 1, high 4)") {
    auto c = base8(RopeScalingType::llama3, 8);
    c.scaling.originalMaxPositionEmbeddings = 1024;
    c.scaling.lowFreqFactor = 1;
    c.scaling.highFreqFactor = 4;
    // wavelengths 2pi/w: 6.3, 62.8 (< 256: kept), 628.3 (between 256 and 1024: blended), 6283 (> 1024: /8)
    const double pi = 3.14159265358979323846;
    const double smooth = (1024 / (2 * pi / 0.01) - 1) / 3;
    checkFreqs(ropeFrequencies(c), {1, 0.1, (1 - smooth) * 0.01 / 8 + smooth * 0.01, 0.001 / 8});
    CHECK(ropeFrequencies(c).attentionScale == 1.0);
    c.scaling.highFreqFactor = 1;
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("highFreqFactor"), std::invalid_argument);
    // both factors are required, as Hugging Face reads them without a default and the JS API demands them
    auto missing = base8(RopeScalingType::llama3, 8);
    missing.scaling.originalMaxPositionEmbeddings = 1024;
    missing.scaling.highFreqFactor = 4;
    CHECK_THROWS_WITH_AS(ropeFrequencies(missing), "scaling.lowFreqFactor is required by 'llama3' scaling", std::invalid_argument);
    missing.scaling.lowFreqFactor = 1;
    missing.scaling.highFreqFactor = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS(ropeFrequencies(missing), "scaling.highFreqFactor is required by 'llama3' scaling", std::invalid_argument);
}

TEST_CASE("longrope: short factors at or below L0, long above; attention sqrt(1 + ln f / ln L0)") {
    auto c = base8(RopeScalingType::longrope, 32);
    c.scaling.originalMaxPositionEmbeddings = 4096;
    c.scaling.shortFactor = {1, 1.5, 2, 4};
    c.scaling.longFactor = {1, 2, 8, 16};
    c.seqLen = 4096;
    auto s = ropeFrequencies(c);
    checkFreqs(s, {1, 0.1 / 1.5, 0.01 / 2, 0.001 / 4});
    CHECK(s.attentionScale == doctest::Approx(std::sqrt(1 + std::log(32.0) / std::log(4096.0))));
    c.seqLen = 4097;
    checkFreqs(ropeFrequencies(c), {1, 0.1 / 2, 0.01 / 8, 0.001 / 16});
    c.scaling.longFactor = {1, 2, 3};
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("longFactor"), std::invalid_argument);
}

TEST_CASE("bad scaling configs are clear errors") {
    auto c = base8(RopeScalingType::linear, 0.5);
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("scaling.factor"), std::invalid_argument);
    c = base8(RopeScalingType::yarn, 4);
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("originalMaxPositionEmbeddings"), std::invalid_argument);
    c = base8(RopeScalingType::none, 1);
    c.base = 0;
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("base"), std::invalid_argument);
}

TEST_CASE("fuzzer finds, kept as regressions: YaRN mscale / mscaleAllDim and longrope edge values are errors, never NaN or a huge scale") {
    RopeConfig c;
    c.headDim = 20;
    c.base = 7.37e6;
    c.partialRotaryFactor = 0.2;
    c.scaling.type = RopeScalingType::yarn;
    c.scaling.factor = 9.2;
    c.scaling.originalMaxPositionEmbeddings = 205589;
    c.scaling.mscale = std::nan("");
    c.scaling.mscaleAllDim = 1;
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("scaling.mscale"), std::invalid_argument);
    c.scaling.mscale = 1;
    c.scaling.mscaleAllDim = -1 / (0.1 * std::log(9.2));  // 0.1 m ln f + 1 = 0: division by zero
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("scaling.mscale"), std::invalid_argument);
    c.scaling.mscaleAllDim = 1;
    c.scaling.attentionFactor = 1e300;  // finite but astronomically large: every rotated channel would overflow
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("(0, 1e4]"), std::invalid_argument);
    RopeConfig l;
    l.headDim = 8;
    l.scaling.type = RopeScalingType::longrope;
    l.scaling.factor = 4;
    l.scaling.originalMaxPositionEmbeddings = 1;  // ln L0 = 0 in sqrt(1 + ln f / ln L0)
    l.scaling.shortFactor = {1, 1, 1, 1};
    l.scaling.longFactor = {2, 2, 2, 2};
    CHECK_THROWS_WITH_AS(ropeFrequencies(l), doctest::Contains("originalMaxPositionEmbeddings"), std::invalid_argument);
    RopeConfig x;
    x.headDim = 8;
    x.xposScaleBase = 1e300;  // the position limit no longer fits an integer: capped, no overflow
    CHECK(ropeFrequencies(x).xposMaxPosition == 2147483648LL);
}

TEST_CASE("fuzzer find, kept as a regression: dynamic NTK with a huge factor at L = Lmax is the default schedule, not a zero base") {
    RopeConfig c;
    c.headDim = 54;
    c.base = 1.76e6;
    c.scaling.type = RopeScalingType::dynamic;
    c.scaling.factor = 4.18e298;
    c.scaling.originalMaxPositionEmbeddings = 196603;
    c.seqLen = 24684;  // below Lmax: HF leaves the frequencies alone
    const auto f = ropeFrequencies(c);
    for (int i = 0; i < 27; ++i) CHECK(f.invFreq[i] == doctest::Approx(std::pow(1.76e6, -2.0 * i / 54)).epsilon(1e-12));
}
