// FIRE (Li et al., ICLR 2024, "Functional Interpolation for Relative Positions Improves Long Context
// Transformers"): a per-head scalar bias from a small MLP of a progressively normalised log distance,
//   b_h(i, j) = f_h( psi(|i - j|) / (psi(max(L, i)) + eps) ),   psi(x) = log(c x + 1),
//   f(x) = w2 . ReLU(w1 x + b1) + b2   (one output per head)
// i, j the query and key positions. The paper has no eps; the public code adds it to the normaliser's
// log (so i = 0 gives 0 / eps = 0, not 0 / 0), and takes |c (i - j)|, so a non-causal pair (i < j) gets
// the bias of distance j - i.
#pragma once
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct FireEncoding {
    int heads = 0;
    int hidden = 0;
    View<float> w1, b1;  // [hidden]: nn.Linear(1, hidden)
    View<float> w2;      // [heads, hidden]: nn.Linear(hidden, heads).weight, row h = head h
    View<float> b2;      // [heads]
    double c = 1.0;      // > 0
    double L = 0.0;      // >= 0: the normaliser's floor (learned threshold)
    double eps = 1e-6;   // > 0
};

class FireTerm final : public ScoreTerm {
public:
    FireTerm(const FireEncoding& e, int heads);
    bool hasBias() const override { return true; }
    bool concurrent() const override { return true; }  // constant tables only
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    // The MLP's output for head h at normalised distance x (exposed for tests).
    double mlp(int h, double x) const;

private:
    int hidden_;
    std::vector<double> w1_, b1_, w2_, b2_;
    double c_, L_, eps_;
};

}  // namespace posenc
