// libFuzzer target: attention with drawn shapes, positions, masks, scale and encoding (none, RoPE,
// ALiBi, T5, Shaw, BERT relative_key, DeBERTa). Accepted calls give finite outputs and weight rows
// summing to 1 (or 0 for a fully masked row), and streaming equals the materialized run.
#include "common.hpp"
#include <posenc/posenc.hpp>

using namespace posenc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    AttentionRequest r;
    const int kvHeads = in.ConsumeIntegralInRange<int>(1, 3);
    r.dims = AttentionDims{kvHeads * in.ConsumeIntegralInRange<int>(1, 4), kvHeads, in.ConsumeIntegralInRange<int>(1, 20),
                           in.ConsumeIntegralInRange<int>(1, 9), in.ConsumeIntegralInRange<int>(1, 140)};
    const AttentionDims& d = r.dims;
    const float range = in.ConsumeBool() ? 4.0f : 1e19f;
    auto q = fuzz::floats(in, static_cast<std::size_t>(d.heads) * d.qLen * d.headDim, range);
    auto k = fuzz::floats(in, static_cast<std::size_t>(d.kvHeads) * d.kLen * d.headDim, range);
    auto v = fuzz::floats(in, static_cast<std::size_t>(d.kvHeads) * d.kLen * d.headDim, 4.0f);
    r.q = q;
    r.k = k;
    r.v = v;
    std::vector<std::int32_t> qp, kp;
    std::vector<std::uint8_t> mask;
    if (in.ConsumeBool()) {
        const std::int32_t base = in.ConsumeBool() ? 0 : 2147483647 - 400;
        for (int i = 0; i < d.qLen; ++i) qp.push_back(base + in.ConsumeIntegralInRange<std::int32_t>(0, 300));
        for (int j = 0; j < d.kLen; ++j) kp.push_back(base + in.ConsumeIntegralInRange<std::int32_t>(0, 300));
        r.qPositions = qp;
        r.kPositions = kp;
    }
    if (in.ConsumeBool())
        for (int j = 0; j < d.kLen; ++j) mask.push_back(in.ConsumeBool());
    r.keyMask = mask;
    r.causal = in.ConsumeBool();
    r.window = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 200) : 0;
    r.chunk = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 100) : 0;
    if (in.ConsumeBool()) r.scale = fuzz::number(in, -2, 2);
    std::vector<float> t1, t2;
    switch (in.ConsumeIntegralInRange<int>(0, 6)) {
        case 0: r.encoding = NoEncoding{}; break;
        case 1: {
            RopeEncoding e;
            e.config.base = fuzz::number(in, 2, 1e6);
            e.config.partialRotaryFactor = in.ConsumeBool() ? 1.0 : 0.5;
            if (in.ConsumeBool()) e.config.xposScaleBase = 512;
            e.layout = in.ConsumeBool() ? RopeLayout::half : RopeLayout::interleaved;
            r.encoding = e;
            break;
        }
        case 2: r.encoding = AlibiEncoding{d.heads, {}, in.ConsumeBool()}; break;
        case 3: {
            T5BucketOptions o{in.ConsumeBool(), in.ConsumeIntegralInRange<int>(2, 40), in.ConsumeIntegralInRange<int>(2, 200)};
            t1 = fuzz::floats(in, static_cast<std::size_t>(o.numBuckets) * d.heads, 3.0f);
            r.encoding = T5Encoding{d.heads, t1, o};
            break;
        }
        case 4: {
            const int clip = in.ConsumeIntegralInRange<int>(0, 6);
            t1 = fuzz::floats(in, static_cast<std::size_t>(2 * clip + 1) * d.headDim, 1.0f);
            if (in.ConsumeBool()) t2 = fuzz::floats(in, t1.size(), 1.0f);
            r.encoding = ShawEncoding{clip, t1, t2};
            break;
        }
        case 5: {
            const int maxPos = in.ConsumeIntegralInRange<int>(1, 200);
            t1 = fuzz::floats(in, static_cast<std::size_t>(2 * maxPos - 1) * d.headDim, 1.0f);
            r.encoding = RelativeKeyEncoding{t1, maxPos, in.ConsumeBool()};
            break;
        }
        default: {
            DebertaEncoding e;
            e.span = in.ConsumeIntegralInRange<int>(1, 8);
            t1 = fuzz::floats(in, static_cast<std::size_t>(d.heads) * 2 * e.span * d.headDim, 1.0f);
            t2 = fuzz::floats(in, t1.size(), 1.0f);
            e.posKey = t1;
            e.posQuery = t2;
            e.p2c = in.ConsumeBool();
            e.buckets = DebertaBucketOptions{in.ConsumeIntegralInRange<int>(0, 16), in.ConsumeIntegralInRange<int>(1, 64),
                                             in.ConsumeBool() ? DebertaConvention::hf : DebertaConvention::microsoft};
            r.encoding = e;
        }
    }
    AttentionResult streamed, full;
    try {
        streamed = attention(r);
        full = attention(r, true, true);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    fuzz::requireFinite(streamed.out, "output");
    fuzz::requireFinite(full.weights, "weights");
    for (std::size_t i = 0; i < streamed.out.size(); ++i)
        if (std::fabs(streamed.out[i] - full.out[i]) > 1e-3f * (1.0f + std::fabs(full.out[i]))) std::abort();
    for (std::size_t row = 0; row < full.weights.size() / d.kLen; ++row) {
        double s = 0;
        for (int j = 0; j < d.kLen; ++j) s += full.weights[row * d.kLen + j];
        if (!(std::fabs(s - 1) < 1e-4 || s == 0)) std::abort();
    }
    return 0;
}
