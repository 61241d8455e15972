// Exits 0 only if the library works from a consumer's build (compiled with the consumer's own default
// flags): RoPE at position 1 rotates by w = 1, and attention over two keys weighs them by softmax.
#include <cmath>
#include <cstdio>
#include <vector>

#include <posenc/posenc.hpp>

#if defined(XSIMD_VERSION_MAJOR)
#error "posenc's public headers must not include xsimd"
#endif

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
    // One query, two keys at scores 0 and 1 (scale 1): weights 1/(1+e) and e/(1+e), out = their mix of v.
    posenc::AttentionRequest r;
    r.dims = {1, 1, 2, 1, 2};
    const std::vector<float> q = {1.0f, 0.0f}, k = {0.0f, 0.0f, 1.0f, 0.0f}, v = {1.0f, 0.0f, 0.0f, 1.0f};
    r.q = {q.data(), q.size()};
    r.k = {k.data(), k.size()};
    r.v = {v.data(), v.size()};
    r.scale = 1.0;
    const auto a = posenc::attention(r, true);
    const double w1 = std::exp(1.0) / (1.0 + std::exp(1.0));
    const bool attends = a.weights.size() == 2 && std::fabs(a.weights[1] - w1) < 1e-6 && std::fabs(a.out[0] - (1 - w1)) < 1e-6 &&
                         std::fabs(a.out[1] - w1) < 1e-6;
    std::printf("consumer: rope %s, attention %s\n", ok ? "ok" : "wrong values", attends ? "ok" : "wrong values");
    return ok && attends ? 0 : 1;
}
