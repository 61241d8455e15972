// KERPLE (Chi et al. 2022, "KERPLE: Kernelized Relative Positional Embedding for Length
// Extrapolation"): a per-head scalar bias from a conditionally positive definite kernel of |i - j|,
//   log:   b = -r1 * log(1 + r2 |i - j|)
//   power: b = -r1 * |i - j|^r2            (r1 > 0; r2 > 0, and r2 <= 2 for power)
// r1, r2 are learned per head (the paper's code keeps them positive by clamping).
#pragma once
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

enum class KerpleVariant { log, power };

struct KerpleEncoding {
    KerpleVariant variant = KerpleVariant::log;
    int heads = 0;
    View<float> r1, r2;  // [heads] each
};

class KerpleTerm final : public ScoreTerm {
public:
    KerpleTerm(const KerpleEncoding& e, int heads);
    bool hasBias() const override { return true; }
    bool concurrent() const override { return true; }  // constant tables only
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;

private:
    KerpleVariant variant_;
    std::vector<double> r1_, r2_;
};

}  // namespace posenc
