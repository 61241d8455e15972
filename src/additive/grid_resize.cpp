#include "posenc/additive/grid_resize.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "posenc/common/errors.hpp"

namespace posenc {

namespace {
constexpr double kA = -0.75;

double cubicNear(double x) { return ((kA + 2) * x - (kA + 3)) * x * x + 1; }        // |x| <= 1
double cubicFar(double x) { return ((kA * x - 5 * kA) * x + 8 * kA) * x - 4 * kA; }  // 1 < |x| < 2

// Taps and weights of one output coordinate along one axis.
struct Taps {
    int index[4];
    double weight[4];
    int count;
};

Taps taps(int o, int in, int out, const ResizeOptions& opt) {
    const double scale = opt.mapping == ResizeMapping::size ? static_cast<double>(in) / out
                                                            : 1.0 / ((out + 0.1) / in);  // scale_factor = (out + 0.1) / in
    double src = (o + 0.5) * scale - 0.5;
    Taps t{};
    if (opt.mode == ResizeMode::bicubic) {
        const double f = std::floor(src);
        const double x = src - f;
        const int i0 = static_cast<int>(f);
        t.count = 4;
        const double w[4] = {cubicFar(x + 1), cubicNear(x), cubicNear(1 - x), cubicFar(2 - x)};
        for (int k = 0; k < 4; ++k) {
            t.index[k] = std::clamp(i0 - 1 + k, 0, in - 1);
            t.weight[k] = w[k];
        }
    } else {
        src = std::max(src, 0.0);
        const int i0 = std::min(static_cast<int>(std::floor(src)), in - 1);
        const int i1 = std::min(i0 + 1, in - 1);
        const double l = src - i0;
        t.count = 2;
        t.index[0] = i0;
        t.index[1] = i1;
        t.weight[0] = 1 - l;
        t.weight[1] = l;
    }
    return t;
}
}  // namespace

void resizeGrid(View<float> grid, const ResizeOptions& o, float* out) {
    requirePositive(o.fromH, "from[0]");
    requirePositive(o.fromW, "from[1]");
    requirePositive(o.toH, "to[0]");
    requirePositive(o.toW, "to[1]");
    requireSize(o.dim, "dim", limits::kMaxDim);
    requireNonNegative(o.prefixTokens, "prefixTokens");
    const std::size_t d = static_cast<std::size_t>(o.dim), prefix = static_cast<std::size_t>(o.prefixTokens);
    const std::size_t want = elementCount({static_cast<std::int64_t>(elementCount({o.fromH, o.fromW}, "from")) + o.prefixTokens, o.dim}, "grid");
    elementCount({static_cast<std::int64_t>(elementCount({o.toH, o.toW}, "to")) + o.prefixTokens, o.dim}, "to");
    if (grid.size != want)
        fail("grid", "must be [prefixTokens + from[0]*from[1], dim] = " + std::to_string(want) + " elements (got " + std::to_string(grid.size) + ")");
    requireFiniteValues(grid.data, grid.size, "grid");
    std::memcpy(out, grid.data, prefix * d * sizeof(float));
    const float* src = grid.data + prefix * d;
    float* dst = out + prefix * d;
    std::vector<Taps> ty(static_cast<std::size_t>(o.toH)), tx(static_cast<std::size_t>(o.toW));
    for (int y = 0; y < o.toH; ++y) ty[y] = taps(y, o.fromH, o.toH, o);
    for (int x = 0; x < o.toW; ++x) tx[x] = taps(x, o.fromW, o.toW, o);
    std::vector<double> acc(d);
    for (int y = 0; y < o.toH; ++y)
        for (int x = 0; x < o.toW; ++x) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int a = 0; a < ty[y].count; ++a)
                for (int b = 0; b < tx[x].count; ++b) {
                    const double w = ty[y].weight[a] * tx[x].weight[b];
                    const float* cell = src + (static_cast<std::size_t>(ty[y].index[a]) * o.fromW + tx[x].index[b]) * d;
                    for (std::size_t c = 0; c < d; ++c) acc[c] += w * cell[c];
                }
            float* row = dst + (static_cast<std::size_t>(y) * o.toW + x) * d;
            for (std::size_t c = 0; c < d; ++c) row[c] = static_cast<float>(acc[c]);
        }
}

}  // namespace posenc
