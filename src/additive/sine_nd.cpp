#include "posenc/additive/sine_nd.hpp"

#include <cmath>
#include <vector>

#include "posenc/common/errors.hpp"

namespace posenc {

namespace {
void checkOptions(const SineNdOptions& o) {
    requirePositive(o.numPosFeats, "numPosFeats");
    if (o.numPosFeats % 2 != 0) fail("numPosFeats", "must be even (sin/cos pairs) (got " + std::to_string(o.numPosFeats) + ")");
    requirePositiveFinite(o.temperature, "temperature");
    requireFinite(o.scale, "scale");
}

// Writes the F channels for one embedded coordinate e.
void channels(double e, const SineNdOptions& o, const std::vector<double>& dimT, float* out) {
    for (int k = 0; k < o.numPosFeats; ++k) {
        const double a = e / dimT[k];
        out[k] = static_cast<float>(k % 2 == 0 ? std::sin(a) : std::cos(a));
    }
}

std::vector<double> dimTable(const SineNdOptions& o) {
    std::vector<double> t(static_cast<std::size_t>(o.numPosFeats));
    for (int k = 0; k < o.numPosFeats; ++k) t[k] = std::pow(o.temperature, 2.0 * (k / 2) / o.numPosFeats);
    return t;
}

// Cumulative counts along each axis of a [dims...] mask (row-major), 1-based; then normalised.
void run(const std::vector<int>& dims, View<std::uint8_t> mask, const SineNdOptions& o, float* out) {
    checkOptions(o);
    std::size_t cells = 1;
    for (int n : dims) cells *= static_cast<std::size_t>(n);
    if (!mask.empty() && mask.size != cells)
        fail("mask", "must have " + std::to_string(cells) + " entries (got " + std::to_string(mask.size) + ")");
    for (std::size_t i = 0; i < mask.size; ++i)
        if (mask[i] > 1) fail("mask[" + std::to_string(i) + "]", "must be 0 or 1 (got " + std::to_string(mask[i]) + ")");
    const std::size_t axes = dims.size(), F = static_cast<std::size_t>(o.numPosFeats);
    std::vector<std::size_t> stride(axes, 1);
    for (std::size_t a = axes - 1; a-- > 0;) stride[a] = stride[a + 1] * dims[a + 1];
    const auto dimT = dimTable(o);
    std::vector<double> embed(cells * axes);
    for (std::size_t a = 0; a < axes; ++a) {
        // cumulative sum along axis a, for every line of cells parallel to it
        for (std::size_t c = 0; c < cells; ++c) {
            const std::size_t idx = (c / stride[a]) % dims[a];
            const double v = mask.empty() ? 1.0 : mask[c];
            embed[c * axes + a] = v + (idx > 0 ? embed[(c - stride[a]) * axes + a] : 0.0);
        }
        if (o.normalize)  // in increasing order, so each line's last (raw) value is read before it is normalised
            for (std::size_t c = 0; c < cells; ++c) {
                const std::size_t idx = (c / stride[a]) % dims[a];
                const std::size_t last = c + (dims[a] - 1 - idx) * stride[a];
                embed[c * axes + a] = embed[c * axes + a] / (embed[last * axes + a] + 1e-6) * o.scale;
            }
    }
    for (std::size_t c = 0; c < cells; ++c)
        for (std::size_t a = 0; a < axes; ++a) channels(embed[c * axes + a], o, dimT, out + c * axes * F + a * F);
}
}  // namespace

void sine2d(int height, int width, View<std::uint8_t> mask, const SineNdOptions& o, float* out) {
    requirePositive(height, "height");
    requirePositive(width, "width");
    run({height, width}, mask, o, out);
}

void sine3d(int frames, int height, int width, View<std::uint8_t> mask, const SineNdOptions& o, float* out) {
    requirePositive(frames, "frames");
    requirePositive(height, "height");
    requirePositive(width, "width");
    run({frames, height, width}, mask, o, out);
}

}  // namespace posenc
