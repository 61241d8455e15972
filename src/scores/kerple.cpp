#include "posenc/scores/kerple.hpp"

#include <cmath>
#include <string>
#include <tuple>

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD KerpleTerm::KerpleTerm(const KerpleEncoding& e, int heads) : variant_(e.variant) {
    if (e.heads != heads) fail("encoding.heads", "(" + std::to_string(e.heads) + ") must equal heads (" + std::to_string(heads) + ")");
    for (auto [v, name, out] : {std::tuple{&e.r1, "encoding.r1", &r1_}, std::tuple{&e.r2, "encoding.r2", &r2_}}) {
        if (v->size != static_cast<std::size_t>(heads))
            fail(name, "must have one value per head (" + std::to_string(heads) + "), got " + std::to_string(v->size));
        for (std::size_t h = 0; h < v->size; ++h) {
            const double x = (*v)[h];
            const std::string field = std::string(name) + "[" + std::to_string(h) + "]";
            if (!std::isfinite(x) || x <= 0) fail(field, "must be a positive finite number (got " + show(x) + ")");
            out->push_back(x);
        }
    }
    if (variant_ == KerpleVariant::power)
        for (std::size_t h = 0; h < r2_.size(); ++h)
            if (r2_[h] > 2) fail("encoding.r2[" + std::to_string(h) + "]", "must be at most 2 for the power variant (got " + show(r2_[h]) + ")");
}

void KerpleTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const double r1 = r1_[h], r2 = r2_[h];
    for (int j = j0; j < j1; ++j) {
        const double d = std::fabs(static_cast<double>(qPos) - kPos[j]);
        const double b = variant_ == KerpleVariant::log ? -r1 * std::log1p(r2 * d) : -r1 * std::pow(d, r2);
        s[j - j0] += static_cast<float>(b);
    }
}

}  // namespace posenc
