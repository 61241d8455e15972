#include "posenc/scores/alibi.hpp"

#include <cmath>
#include <cstdlib>

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"

namespace posenc {

namespace {
POSENC_COLD std::vector<double> powerOfTwoSlopes(int n) {
    std::vector<double> s(static_cast<std::size_t>(n));
    for (int h = 0; h < n; ++h) s[h] = std::pow(2.0, -8.0 * (h + 1) / n);
    return s;
}
}  // namespace

POSENC_COLD std::vector<double> alibiSlopes(int heads) {
    requirePositive(heads, "heads");
    int c = 1;
    while (c * 2 <= heads) c *= 2;
    std::vector<double> s = powerOfTwoSlopes(c);
    if (c == heads) return s;
    const std::vector<double> extra = alibiSlopes(2 * c);
    for (int k = 0; static_cast<int>(s.size()) < heads; k += 2) s.push_back(extra[k]);
    return s;
}

POSENC_COLD AlibiTerm::AlibiTerm(const AlibiEncoding& e, int heads) : symmetric_(e.symmetric) {
    if (e.heads != heads)
        fail("encoding.heads", "(" + std::to_string(e.heads) + ") must equal heads (" + std::to_string(heads) + ")");
    if (e.slopes.empty()) {
        slopes_ = alibiSlopes(heads);
    } else {
        if (e.slopes.size != static_cast<std::size_t>(heads))
            fail("encoding.slopes", "must have one slope per head (" + std::to_string(heads) + "), got " + std::to_string(e.slopes.size));
        for (std::size_t h = 0; h < e.slopes.size; ++h) {
            requireFinite(e.slopes[h], ("encoding.slopes[" + std::to_string(h) + "]").c_str());
            slopes_.push_back(e.slopes[h]);
        }
    }
}

void AlibiTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const double m = slopes_[h];
    if (symmetric_) {
        for (int j = j0; j < j1; ++j) s[j - j0] += static_cast<float>(-m * std::fabs(static_cast<double>(qPos) - kPos[j]));
    } else {
        for (int j = j0; j < j1; ++j) s[j - j0] += static_cast<float>(-m * (static_cast<double>(qPos) - kPos[j]));
    }
}

}  // namespace posenc
