// libFuzzer target: RoPE configurations and schedules, then applyRope with drawn shapes and positions.
// Accepted configurations must give finite, positive frequencies within the head (rotaryOffset +
// rotaryDim <= headDim) and finite rotations that leave every channel outside the rotated range as it was.
#include "common.hpp"
#include <posenc/posenc.hpp>

#include <algorithm>
#include <cstring>
#include <string>

using namespace posenc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    RopeConfig c;
    c.headDim = in.ConsumeIntegralInRange<int>(-2, 80);
    c.base = fuzz::number(in, 1.0, 1e7);
    c.partialRotaryFactor = fuzz::number(in, 0.0, 1.5);
    c.scaling.type = static_cast<RopeScalingType>(in.ConsumeIntegralInRange<int>(0, 6));
    // Each field is drawn, then kept only where the type takes it (the registry's 'scaling' table):
    // a field given to a type that does not take it is refused before any schedule runs.
    const std::string type = registry::scalingTypes()[static_cast<std::size_t>(c.scaling.type)];
    auto takes = [&](const char* key) {
        const auto& types = registry::table("scaling").find(key)->types;
        return std::find(types.begin(), types.end(), type) != types.end();
    };
    RopeScaling s = c.scaling;
    s.factor = fuzz::number(in, 0.5, 64);
    s.originalMaxPositionEmbeddings = in.ConsumeIntegralInRange<std::int64_t>(-4, 1 << 20);
    s.betaFast = fuzz::number(in, 0, 64);
    s.betaSlow = fuzz::number(in, 0, 8);
    s.mscale = fuzz::number(in, 0, 2);
    s.mscaleAllDim = fuzz::number(in, 0, 2);
    s.truncate = in.ConsumeBool();
    if (in.ConsumeBool()) s.attentionFactor = fuzz::number(in, 0, 4);
    s.lowFreqFactor = fuzz::number(in, 0, 8);
    s.highFreqFactor = fuzz::number(in, 0, 8);
    const int pairs = in.ConsumeIntegralInRange<int>(0, 40);
    for (int i = 0; i < pairs; ++i) s.shortFactor.push_back(fuzz::number(in, 0.5, 8));
    for (int i = 0; i < pairs; ++i) s.longFactor.push_back(fuzz::number(in, 0.5, 8));
    if (takes("factor")) c.scaling.factor = s.factor;
    if (takes("originalMaxPositionEmbeddings")) c.scaling.originalMaxPositionEmbeddings = s.originalMaxPositionEmbeddings;
    if (takes("betaFast")) c.scaling.betaFast = s.betaFast, c.scaling.betaSlow = s.betaSlow, c.scaling.mscale = s.mscale,
                           c.scaling.mscaleAllDim = s.mscaleAllDim, c.scaling.truncate = s.truncate;  // the YaRN fields
    if (takes("attentionFactor")) c.scaling.attentionFactor = s.attentionFactor;
    if (takes("lowFreqFactor")) c.scaling.lowFreqFactor = s.lowFreqFactor, c.scaling.highFreqFactor = s.highFreqFactor;
    if (takes("shortFactor")) c.scaling.shortFactor = s.shortFactor, c.scaling.longFactor = s.longFactor;
    c.seqLen = in.ConsumeIntegralInRange<std::int64_t>(-4, 1 << 22);
    c.convention = in.ConsumeBool() ? RopeConvention::hf : RopeConvention::ggml;
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) c.xposScaleBase = fuzz::number(in, 1, 2048);
    if (in.ConsumeBool()) c.rotaryOffset = in.ConsumeIntegralInRange<int>(-2, 82);  // MLA's trailing rope channels; past the head: refused
    // p-RoPE: a fraction of the pairs keep their frequency (outside [0, 1], or with multi-axis: refused)
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        c.frequencyFraction = fuzz::number(in, -0.2, 1.2);
        c.keptFrequencies = in.ConsumeBool() ? KeptFrequencies::high : KeptFrequencies::low;
    }
    // LieRE: blocks of 2..5 channels, 1..3 axes of generators, skew-symmetric or (refused) not
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        c.multiAxis = MultiAxis::liere;
        c.blockSize = in.ConsumeIntegralInRange<int>(0, 5);
        const int axes = in.ConsumeIntegralInRange<int>(1, 3), n = in.ConsumeIntegralInRange<int>(0, 3 * 80 * 5);
        const bool skew = in.ConsumeBool();
        const float range = in.ConsumeBool() ? 2.0f : 3e4f;  // past 1e4: refused
        c.generators = fuzz::floats(in, static_cast<std::size_t>(n), range);
        const int b = std::max(c.blockSize, 1);
        if (skew && c.blockSize > 0 && c.generators.size() % static_cast<std::size_t>(b * b) == 0)
            for (std::size_t m = 0; m < c.generators.size(); m += static_cast<std::size_t>(b * b))
                for (int i = 0; i < b; ++i) {
                    c.generators[m + static_cast<std::size_t>(i * b + i)] = 0;
                    for (int j = i + 1; j < b; ++j) c.generators[m + static_cast<std::size_t>(j * b + i)] = -c.generators[m + static_cast<std::size_t>(i * b + j)];
                }
        (void)axes;
    }
    RopeFrequencies f;
    try {
        f = ropeFrequencies(c);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    bool bad = f.rotaryDim <= 0 || f.rotaryDim % 2 || f.rotaryDim > c.headDim || !std::isfinite(f.attentionScale) || f.attentionScale <= 0;
    bad |= f.rotaryOffset != c.rotaryOffset || f.rotaryOffset < 0 || f.rotaryOffset + f.rotaryDim > c.headDim;
    for (double w : f.invFreq) bad |= !std::isfinite(w) || w < 0;
    if (bad) {
        std::fprintf(stderr, "accepted config gives bad frequencies: headDim %d base %g partial %g scaling %d factor %g L0 %lld seqLen %lld -> rotaryDim %d scale %g invFreq[0] %g\n",
                     c.headDim, c.base, c.partialRotaryFactor, static_cast<int>(c.scaling.type), c.scaling.factor,
                     static_cast<long long>(c.scaling.originalMaxPositionEmbeddings), static_cast<long long>(c.seqLen), f.rotaryDim,
                     f.attentionScale, f.invFreq.empty() ? 0.0 : f.invFreq[0]);
        std::abort();
    }

    const int heads = in.ConsumeIntegralInRange<int>(1, 3), tokens = in.ConsumeIntegralInRange<int>(1, 6);
    std::vector<std::int32_t> positions(static_cast<std::size_t>(tokens) * static_cast<std::size_t>(f.axes));
    for (auto& p : positions) p = in.ConsumeIntegral<std::int32_t>();
    auto x = fuzz::floats(in, static_cast<std::size_t>(heads) * tokens * c.headDim, 100.0f);
    const auto x0 = x;
    const auto layout = in.ConsumeBool() ? RopeLayout::half : RopeLayout::interleaved;
    const auto role = in.ConsumeBool() ? RopeRole::query : RopeRole::key;
    try {
        applyRope(x.data(), heads, tokens, c.headDim, positions.data(), f, layout, role);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
        const int channel = static_cast<int>(i % static_cast<std::size_t>(c.headDim));
        const bool rotated = channel >= f.rotaryOffset && channel < f.rotaryOffset + f.rotaryDim;
        if (!rotated && std::memcmp(&x[i], &x0[i], sizeof(float)) != 0) {
            std::fprintf(stderr, "channel %d outside the rotated range [%d, %d) changed\n", channel, f.rotaryOffset, f.rotaryOffset + f.rotaryDim);
            std::abort();
        }
    }
    if (f.blockSize > 0) {  // LieRE rotates: every head vector keeps its norm, within exp's stated accuracy
        // (docs/conventions.md: about 4 ||A|| 2^-53 for A = sum_a p_a G_a; bounded here by max|p| sum_a max|G_a| b)
        double maxPos = 0, gSum = 0;
        for (auto p : positions) maxPos = std::max(maxPos, std::fabs(double(p)));
        const std::size_t perAxis = f.generators.size() / static_cast<std::size_t>(f.axes);
        for (int a = 0; a < f.axes; ++a) {
            double m = 0;
            for (std::size_t e = 0; e < perAxis; ++e) m = std::max(m, std::fabs(f.generators[static_cast<std::size_t>(a) * perAxis + e]));
            gSum += m;
        }
        const double tol = 1e-4 + 16 * maxPos * gSum * f.blockSize * std::ldexp(1.0, -53);
        for (std::size_t r = 0; r < x.size(); r += static_cast<std::size_t>(c.headDim)) {
            double a = 0, b = 0;
            for (int ch = 0; ch < c.headDim; ++ch) a += double(x[r + ch]) * x[r + ch], b += double(x0[r + ch]) * x0[r + ch];
            if (std::fabs(std::sqrt(a) - std::sqrt(b)) > tol * std::sqrt(b) + 1e-30) {
                std::fprintf(stderr, "LieRE changed a norm: %g -> %g (block %d, axes %d)\n", std::sqrt(b), std::sqrt(a), f.blockSize, f.axes);
                std::abort();
            }
        }
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
