// Reads a Hugging Face config.json, rotates a query and a key with the model's RoPE, and shows the
// property RoPE exists for: the score depends only on how far apart the two positions are.
//   rope_from_config path/to/config.json
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include <posenc/posenc.hpp>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s config.json\n", argv[0]);
        return 2;
    }
    std::ifstream file(argv[1]);
    std::stringstream text;
    text << file.rdbuf();

    posenc::HfRopeConfig model;
    try {
        model = posenc::ropeConfigFromHF(text.str());  // throws std::invalid_argument naming the config key
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
        return 1;
    }
    const posenc::RopeFrequencies f = posenc::ropeFrequencies(model.rope);
    const int d = model.rope.headDim;
    std::printf("head dim %d, rotary dim %d, base %g, %s pairs, attention scale %.6f\n", d, f.rotaryDim, model.rope.base,
                model.layout == posenc::RopeLayout::half ? "rotate-half" : "interleaved", f.attentionScale);

    // One head: q at position m, k at position n, for (m, n) = (7, 3) and (1007, 1003).
    std::vector<float> q(d), k(d);
    for (int i = 0; i < d; ++i) q[i] = std::sin(0.37f * i + 0.1f), k[i] = std::cos(0.53f * i);
    auto score = [&](std::int32_t m, std::int32_t n) {
        std::vector<float> qm = q, kn = k;
        posenc::applyRope(qm.data(), 1, 1, d, &m, f, model.layout);
        posenc::applyRope(kn.data(), 1, 1, d, &n, f, model.layout);
        double s = 0;
        for (int i = 0; i < d; ++i) s += static_cast<double>(qm[i]) * kn[i];
        return s;
    };
    const double near = score(7, 3), far = score(1007, 1003);
    std::printf("q(7).k(3) = %.6f, q(1007).k(1003) = %.6f\n", near, far);
    return std::fabs(near - far) <= 1e-4 * (1 + std::fabs(near)) ? 0 : 1;
}
