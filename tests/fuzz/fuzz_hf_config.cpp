// libFuzzer target: config.json text into ropeConfigFromHF (and attentionConfigFromHF). Any input either reads or throws
// std::invalid_argument (posenc::WrongType included; never another exception, a crash or a hang); what reads must give
// frequencies and a rotation that are finite. Seeded with tests/fixtures/hf.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <posenc/posenc.hpp>

using namespace posenc;

// attentionConfigFromHF on the same text, for a layer the first byte picks: it plans or throws
// std::invalid_argument; a plan's own parts must be what attention and the cache accept (a cache is built from it).
static void plan(std::string_view text, int layer, const HfConfigOptions& reading) {
    HfConfigOptions options = reading;
    options.layerType.clear();
    AttentionPlan p;
    try {
        p = attentionConfigFromHF(text, layer, options);
    } catch (const std::invalid_argument&) {
        return;
    }
    const AttentionDims& d = p.attention.dims;
    bool bad = d.heads <= 0 || d.kvHeads <= 0 || d.heads % d.kvHeads != 0 || d.headDim <= 0 || !(p.attention.scale > 0) ||
               !std::isfinite(p.attention.scale) || p.attend.heads != d.heads || p.cache.kvHeads != d.kvHeads || p.cache.headDim != d.headDim ||
               p.attention.window < 0 || p.attention.chunk < 0 || (p.attention.softcap && !(*p.attention.softcap > 0));
    if (!bad && d.headDim <= 512 && d.kvHeads <= 64) {
        KVCacheConfig c = p.cache;
        c.capacity = std::max(1, c.window);
        if (c.capacity <= 8192) KVCache cache(c);  // must not throw: the plan's cache options are valid
    }
    if (bad) {
        std::fprintf(stderr, "attentionConfigFromHF planned an invalid layer: %.*s\n", static_cast<int>(text.size()), text.data());
        std::abort();
    }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (size > 0) plan(text, data[0] % 8, HfConfigOptions{});
    HfConfigOptions options;
    if (size > 0 && data[0] % 3 == 0) options.layerType = data[0] % 2 ? "full_attention" : "sliding_attention";
    // unknown model types are errors by default: read some generically, so the generic rules stay fuzzed
    if (size > 0 && data[0] % 5 < 2) options.unknownModelType = HfConfigOptions::UnknownModelType::generic;
    if (size > 0 && data[0] % 7 == 0) options.strict = true;
    HfRopeConfig r;
    try {
        r = ropeConfigFromHF(text, options);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    if (r.rope.headDim > 4096) return 0;  // valid, but too slow to rotate here
    RopeConfig c = r.rope;
    c.seqLen = 1 << 20;
    const auto f = ropeFrequencies(c);  // ropeConfigFromHF ran every check: this must not throw
    bool bad = f.rotaryDim <= 0 || !std::isfinite(f.attentionScale);
    for (double w : f.invFreq) bad |= !std::isfinite(w) || w < 0;
    std::vector<float> x(static_cast<std::size_t>(c.headDim), 0.5f);
    std::vector<std::int32_t> pos(static_cast<std::size_t>(f.axes), 12345);
    applyRope(x.data(), 1, 1, c.headDim, pos.data(), f, r.layout);
    for (float v : x) bad |= !std::isfinite(v);
    if (bad) {
        std::fprintf(stderr, "accepted config gives non-finite frequencies or rotation: %.*s\n", static_cast<int>(size), text.data());
        std::abort();
    }
    return 0;
}
