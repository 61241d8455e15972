// Function-generated encodings: PE[p] = f(p) for a fixed, seeded random function, reproducible on
// every platform. The generator is splitmix64 (Steele et al. 2014) from `seed`; uniforms take the top
// 53 bits, normals come from Box-Muller (cos branch), drawn in a documented order.
//   fourier: PE[p][k] = sqrt(2/dim) cos(w_k x + b_k), x = p / scale, w_k ~ N(0, sigma^2), b_k ~ U[0, 2pi)
//            (draws: w_0..w_{dim-1}, then b_0..b_{dim-1})
//   mlp:     PE[p] = W2 tanh(W1 x + b1), W1, b1 ~ N(0, 1) [hidden], W2 ~ N(0, 1/hidden) [dim, hidden]
//            (draws: W1, then b1, then W2 row-major)
#pragma once
#include <cstdint>
#include <vector>

namespace posenc {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();
    double uniform();  // [0, 1)
    double normal();   // N(0, 1)

private:
    std::uint64_t state_;
};

enum class RandomFeatureKind { fourier, mlp };

struct RandomFeatureOptions {
    int dim = 0;
    std::uint64_t seed = 0;
    RandomFeatureKind kind = RandomFeatureKind::fourier;
    double sigma = 1.0;  // fourier: frequency spread
    double scale = 1.0;  // x = p / scale
    int hidden = 64;     // mlp
};

void randomFeatures(const std::int32_t* positions, std::size_t count, const RandomFeatureOptions& o, float* out);

}  // namespace posenc
