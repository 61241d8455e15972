// ALiBi (Press et al. 2022): a per-head linear penalty on distance, bias = -m_h * (i - j).
#pragma once
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

// Slopes as in the paper's reference code: n a power of two -> 2^(-8(h+1)/n); otherwise the c = 2^floor(log2 n)
// slopes of c heads followed by the even-indexed slopes of 2c heads. Computed in double.
std::vector<double> alibiSlopes(int heads);

struct AlibiEncoding {
    int heads = 0;
    View<float> slopes;      // empty = alibiSlopes(heads)
    bool symmetric = false;  // bidirectional variant: -m * |i - j|
};

class AlibiTerm final : public ScoreTerm {
public:
    AlibiTerm(const AlibiEncoding& e, int heads);
    // With the call's distances: a table of each head's bias by distance, when it costs less than an
    // eighth of computing every pair's bias, so blocks of consecutive keys add a run of it.
    AlibiTerm(const AlibiEncoding& e, int heads, const CallDistances& call);
    bool hasBias() const override { return true; }
    bool concurrent() const override { return true; }  // constant tables only
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    double slope(int h) const { return slopes_[h]; }

private:
    std::vector<double> slopes_;
    bool symmetric_;
    std::int64_t range_ = 0;          // the table's distances: kPos - qPos in [-range_, range_]
    std::vector<float> byDistance_;   // [heads, 2 range_ + 1], empty = none
};

}  // namespace posenc
