#include "posenc/scores/alibi.hpp"

#include <cmath>
#include <cstdlib>

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"
#include "kernels/bias.hpp"  // the bias of one distance (no instruction-set code used here)
#include "kernels/kernel_set.hpp"
#include "scores/distance_row.hpp"

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

POSENC_COLD AlibiTerm::AlibiTerm(const AlibiEncoding& e, int heads, const CallDistances& call) : AlibiTerm(e, heads) {
    // Each table entry is the bias the kernel below forms for that distance, so both paths add the
    // same floats. Built only where it pays — for keys that increase, at most an eighth of the pairs —
    // and at most 2^22 floats (16 MiB) in all.
    const std::int64_t span = 2 * call.largest + 1;
    if (!call.keysIncrease || static_cast<double>(span) > call.pairsPerHead / 8 || span * heads > (std::int64_t(1) << 22)) return;
    range_ = call.largest;
    byDistance_.resize(static_cast<std::size_t>(span * heads));
    for (int h = 0; h < heads; ++h)
        for (std::int64_t r = -range_; r <= range_; ++r)  // r = kPos - qPos: a key at r from a query at 0
            byDistance_[static_cast<std::size_t>(h * span + r + range_)] =
                kernels::linearBiasOf(kernels::biasDistance(0, static_cast<std::int32_t>(r), symmetric_), -slopes_[h]);
}

void AlibiTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    // s[j - j0] += float(-m * (qPos - kPos[j])), the distance's absolute value when symmetric
    if (!byDistance_.empty()) {
        const float* row = byDistance_.data() + static_cast<std::size_t>(h) * static_cast<std::size_t>(2 * range_ + 1) + range_;
        if (detail::addConsecutiveDistances(row, range_, false, true, qPos, j0, j1, kPos, s)) return;
    }
    if (j1 > j0) kernels::active().linearBias(s, kPos + j0, static_cast<std::size_t>(j1 - j0), qPos, -slopes_[h], symmetric_);
}

}  // namespace posenc
