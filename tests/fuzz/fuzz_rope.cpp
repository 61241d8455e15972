// libFuzzer target: RoPE configurations and schedules, then applyRope with drawn shapes and positions.
// Accepted configurations must give finite, positive frequencies and finite rotations.
#include "common.hpp"
#include <posenc/posenc.hpp>

using namespace posenc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    RopeConfig c;
    c.headDim = in.ConsumeIntegralInRange<int>(-2, 80);
    c.base = fuzz::number(in, 1.0, 1e7);
    c.partialRotaryFactor = fuzz::number(in, 0.0, 1.5);
    c.scaling.type = static_cast<RopeScalingType>(in.ConsumeIntegralInRange<int>(0, 6));
    c.scaling.factor = fuzz::number(in, 0.5, 64);
    c.scaling.originalMaxPositionEmbeddings = in.ConsumeIntegralInRange<std::int64_t>(-4, 1 << 20);
    c.scaling.betaFast = fuzz::number(in, 0, 64);
    c.scaling.betaSlow = fuzz::number(in, 0, 8);
    c.scaling.mscale = fuzz::number(in, 0, 2);
    c.scaling.mscaleAllDim = fuzz::number(in, 0, 2);
    c.scaling.truncate = in.ConsumeBool();
    if (in.ConsumeBool()) c.scaling.attentionFactor = fuzz::number(in, 0, 4);
    c.scaling.lowFreqFactor = fuzz::number(in, 0, 8);
    c.scaling.highFreqFactor = fuzz::number(in, 0, 8);
    const int pairs = in.ConsumeIntegralInRange<int>(0, 40);
    for (int i = 0; i < pairs; ++i) c.scaling.shortFactor.push_back(fuzz::number(in, 0.5, 8));
    for (int i = 0; i < pairs; ++i) c.scaling.longFactor.push_back(fuzz::number(in, 0.5, 8));
    c.seqLen = in.ConsumeIntegralInRange<std::int64_t>(-4, 1 << 22);
    c.convention = in.ConsumeBool() ? RopeConvention::hf : RopeConvention::ggml;
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) c.xposScaleBase = fuzz::number(in, 1, 2048);
    RopeFrequencies f;
    try {
        f = ropeFrequencies(c);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    bool bad = f.rotaryDim <= 0 || f.rotaryDim % 2 || f.rotaryDim > c.headDim || !std::isfinite(f.attentionScale) || f.attentionScale <= 0;
    for (double w : f.invFreq) bad |= !std::isfinite(w) || w < 0;
    if (bad) {
        std::fprintf(stderr, "accepted config gives bad frequencies: headDim %d base %g partial %g scaling %d factor %g L0 %lld seqLen %lld -> rotaryDim %d scale %g invFreq[0] %g\n",
                     c.headDim, c.base, c.partialRotaryFactor, static_cast<int>(c.scaling.type), c.scaling.factor,
                     static_cast<long long>(c.scaling.originalMaxPositionEmbeddings), static_cast<long long>(c.seqLen), f.rotaryDim,
                     f.attentionScale, f.invFreq.empty() ? 0.0 : f.invFreq[0]);
        std::abort();
    }

    const int heads = in.ConsumeIntegralInRange<int>(1, 3), tokens = in.ConsumeIntegralInRange<int>(1, 6);
    std::vector<std::int32_t> positions(static_cast<std::size_t>(tokens));
    for (auto& p : positions) p = in.ConsumeIntegral<std::int32_t>();
    auto x = fuzz::floats(in, static_cast<std::size_t>(heads) * tokens * c.headDim, 100.0f);
    const auto layout = in.ConsumeBool() ? RopeLayout::half : RopeLayout::interleaved;
    const auto role = in.ConsumeBool() ? RopeRole::query : RopeRole::key;
    try {
        applyRope(x.data(), heads, tokens, c.headDim, positions.data(), f, layout, role);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    for (float v : x)
        if (!std::isfinite(v)) {
            std::fprintf(stderr, "non-finite rotation: headDim %d base %g partial %g scaling %d factor %g scale %g xpos %g positions",
                         c.headDim, c.base, c.partialRotaryFactor, static_cast<int>(c.scaling.type), c.scaling.factor, f.attentionScale, c.xposScaleBase);
            for (auto p : positions) std::fprintf(stderr, " %d", p);
            std::fprintf(stderr, "\n");
            std::abort();
        }
    return 0;
}
