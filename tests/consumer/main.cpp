// Exits 0 only if the library works from a consumer's build: RoPE at position 1 rotates by w = 1.
#include <cmath>
#include <cstdio>
#include <vector>

#include "posenc.hpp"

int main() {
    posenc::RopeConfig c;
    c.headDim = 2;
    const auto f = posenc::ropeFrequencies(c);
    std::vector<float> x = {1.0f, 0.0f};
    std::vector<std::int32_t> pos = {1};
    posenc::applyRope(x.data(), 1, 1, 2, pos.data(), f, posenc::RopeLayout::half);
    const bool ok = std::fabs(x[0] - std::cos(1.0)) < 1e-6 && std::fabs(x[1] - std::sin(1.0)) < 1e-6;
    try {
        c.headDim = 3;
        posenc::ropeFrequencies(c);
        return 1;  // an odd rotary dim must throw
    } catch (const std::invalid_argument&) {
    }
    std::printf("consumer: %s\n", ok ? "ok" : "wrong values");
    return ok ? 0 : 1;
}
