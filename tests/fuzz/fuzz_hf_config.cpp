// libFuzzer target: config.json text into ropeConfigFromHF. Any input either reads or throws
// std::invalid_argument (posenc::WrongType included; never another exception, a crash or a hang); what reads must give
// frequencies and a rotation that are finite. Seeded with tests/fixtures/hf.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <posenc/posenc.hpp>

using namespace posenc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
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
