#include "posenc/attention/temperature.hpp"

#include <cmath>
#include <vector>

#include "posenc/common/errors.hpp"

namespace posenc {

void validateTemperature(const TemperatureEncoding& t, const std::string& prefix) {
    if (!std::isfinite(t.beta)) fail(prefix + "beta", "must be a finite number (got " + show(t.beta) + ")");
    if (t.length < 1) fail(prefix + "length", "must be a positive integer (got " + std::to_string(t.length) + ")");
    if (t.offset < 0 || t.offset > (std::int64_t{1} << 53))
        fail(prefix + "offset", "must be an integer in [0, 2^53] (got " + std::to_string(t.offset) + ")");
}

double queryTemperature(const TemperatureEncoding& t, std::int64_t position) {
    const std::int64_t steps = (position + t.offset) / t.length;  // both >= 0: integer division is the floor
    return 1.0 + t.beta * std::log1p(static_cast<double>(steps));
}

void applyQueryTemperature(const TemperatureEncoding& t, float* q, int heads, int qLen, int headDim, const std::int32_t* positions) {
    if (t.beta == 0) return;
    std::vector<float> s(static_cast<std::size_t>(qLen));
    for (int i = 0; i < qLen; ++i) s[i] = static_cast<float>(queryTemperature(t, positions[i]));
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < qLen; ++i) {
            if (s[i] == 1.0f) continue;
            float* row = q + (static_cast<std::size_t>(h) * qLen + i) * headDim;
            for (int c = 0; c < headDim; ++c) row[c] *= s[i];
        }
}

}  // namespace posenc
