#include "posenc/additive/random_features.hpp"

#include <cmath>

#include "posenc/common/errors.hpp"

namespace posenc {

std::uint64_t SplitMix64::next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

double SplitMix64::normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

void randomFeatures(const std::int32_t* positions, std::size_t count, const RandomFeatureOptions& o, float* out) {
    requireSize(o.dim, "dim", limits::kMaxDim);
    requirePositiveFinite(o.sigma, "sigma");
    requirePositiveFinite(o.scale, "scale");
    requirePositions(positions, count, "positions");
    SplitMix64 rng(o.seed);
    const std::size_t d = static_cast<std::size_t>(o.dim);
    if (o.kind == RandomFeatureKind::fourier) {
        std::vector<double> w(d), b(d);
        for (auto& x : w) x = o.sigma * rng.normal();
        for (auto& x : b) x = 2.0 * 3.14159265358979323846 * rng.uniform();
        const double amp = std::sqrt(2.0 / o.dim);
        for (std::size_t t = 0; t < count; ++t) {
            const double x = positions[t] / o.scale;
            for (std::size_t k = 0; k < d; ++k) out[t * d + k] = static_cast<float>(amp * std::cos(w[k] * x + b[k]));
        }
        return;
    }
    requirePositive(o.hidden, "hidden");
    const std::size_t H = static_cast<std::size_t>(o.hidden);
    std::vector<double> w1(H), b1(H), w2(elementCount({static_cast<std::int64_t>(d), o.hidden}, "hidden"));
    for (auto& x : w1) x = rng.normal();
    for (auto& x : b1) x = rng.normal();
    const double s2 = 1.0 / std::sqrt(static_cast<double>(H));
    for (auto& x : w2) x = s2 * rng.normal();
    std::vector<double> h(H);
    for (std::size_t t = 0; t < count; ++t) {
        const double x = positions[t] / o.scale;
        for (std::size_t j = 0; j < H; ++j) h[j] = std::tanh(w1[j] * x + b1[j]);
        for (std::size_t k = 0; k < d; ++k) {
            double s = 0;
            for (std::size_t j = 0; j < H; ++j) s += w2[k * H + j] * h[j];
            out[t * d + k] = static_cast<float>(s);
        }
    }
}

}  // namespace posenc
