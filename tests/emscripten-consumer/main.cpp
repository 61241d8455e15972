// Run under Node by run.cmake: prints "emconsumer: ok" and exits 0 only if every check passes.
// A Llama config.json read by posenc, then RoPE at position 2 of x = (1,1,1,1, 0,0,0,0) (the "half"
// layout pairs i and i+4): headDim 64/8 = 8, base 10000, so the angles are 2·10000^(-2i/8) = 2, 0.2, 0.02,
// 0.002 and x becomes (cos of each, sin of each). Built with -fexceptions (CONSUMER_CATCHES), the
// consumer also catches the std::invalid_argument a refused config throws.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>

int main() {
    const auto hf = posenc::ropeConfigFromHF(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8})");
    const auto f = posenc::ropeFrequencies(hf.rope);
    std::vector<float> x = {1, 1, 1, 1, 0, 0, 0, 0};
    const std::int32_t pos = 2;
    posenc::applyRope(x.data(), 1, 1, hf.rope.headDim, &pos, f, hf.layout);
    // cos and sin of 2, 0.2, 0.02, 0.002 (to 10 digits)
    const double want[8] = {-0.4161468365, 0.9800665778, 0.9998000067, 0.9999980000,
                            0.9092974268, 0.1986693308, 0.0199986667, 0.0019999987};
    bool ok = hf.rope.headDim == 8 && hf.layout == posenc::RopeLayout::half;
    for (int i = 0; i < 8; ++i) {
        if (!(std::fabs(x[i] - want[i]) < 1e-6)) {
            std::printf("emconsumer: x[%d] = %.9f, expected %.9f\n", i, x[i], want[i]);
            ok = false;
        }
    }
#if defined(CONSUMER_CATCHES)
    try {
        posenc::ropeConfigFromHF(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8, "rope_theta": -1})");
        std::printf("emconsumer: rope_theta -1 was accepted\n");
        ok = false;
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        std::printf("emconsumer: caught: %s\n", m.c_str());
        if (m.find("config.rope_theta") == std::string::npos) ok = false;
    }
#endif
    std::printf("emconsumer: kernels %s\n", posenc::activeKernelSet().c_str());
    if (ok) std::printf("emconsumer: ok\n");
    return ok ? 0 : 1;
}
