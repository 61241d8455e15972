#include "posenc/scores/fire.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"

namespace posenc {

namespace {
POSENC_COLD std::vector<double> finiteTable(const View<float>& v, std::size_t n, const char* field, const char* shape) {
    if (v.size != n) fail(field, std::string("must have ") + std::to_string(n) + " values " + shape + " (got " + std::to_string(v.size) + ")");
    std::vector<double> out(v.data, v.data + v.size);
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(out[i])) fail(std::string(field) + "[" + std::to_string(i) + "]", "must be finite (got " + show(out[i]) + ")");
    return out;
}
}  // namespace

POSENC_COLD FireTerm::FireTerm(const FireEncoding& e, int heads) : hidden_(e.hidden), c_(e.c), L_(e.L), eps_(e.eps) {
    if (e.heads != heads) fail("encoding.heads", "(" + std::to_string(e.heads) + ") must equal heads (" + std::to_string(heads) + ")");
    requirePositive(e.hidden, "encoding.hidden");
    if (e.hidden > 4096) fail("encoding.hidden", "must be at most 4096 (got " + std::to_string(e.hidden) + ")");
    const std::size_t H = static_cast<std::size_t>(e.hidden);
    w1_ = finiteTable(e.w1, H, "encoding.w1", "[hidden]");
    b1_ = finiteTable(e.b1, H, "encoding.b1", "[hidden]");
    w2_ = finiteTable(e.w2, H * static_cast<std::size_t>(heads), "encoding.w2", "[heads, hidden]");
    b2_ = finiteTable(e.b2, static_cast<std::size_t>(heads), "encoding.b2", "[heads]");
    if (!std::isfinite(c_) || c_ <= 0) fail("encoding.c", "must be a positive finite number (got " + show(c_) + ")");
    if (!std::isfinite(L_) || L_ < 0) fail("encoding.L", "must be a finite number >= 0 (got " + show(L_) + ")");
    if (!std::isfinite(eps_) || eps_ <= 0) fail("encoding.eps", "must be a positive finite number (got " + show(eps_) + ")");
}

double FireTerm::mlp(int h, double x) const {
    const double* w2 = w2_.data() + static_cast<std::size_t>(h) * hidden_;
    double out = b2_[h];
    for (int k = 0; k < hidden_; ++k) out += w2[k] * std::max(0.0, w1_[k] * x + b1_[k]);
    return out;
}

void FireTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const double norm = std::log(c_ * std::max(L_, static_cast<double>(qPos)) + 1) + eps_;
    for (int j = j0; j < j1; ++j) {
        const double d = std::fabs(static_cast<double>(qPos) - kPos[j]);
        s[j - j0] += static_cast<float>(mlp(h, std::log(c_ * d + 1) / norm));
    }
}

}  // namespace posenc
