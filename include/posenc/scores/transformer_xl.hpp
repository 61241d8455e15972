// Transformer-XL relative attention (Dai et al. 2019; kimiyoung RelPartialLearnableMultiHeadAttn):
// score = (q_i + u).k_j + (q_i + v).r_{i-j}, with r_d = W_R R_d and R the `concat` sinusoid of
// d_model (sin block then cos block). delta = i - j (query - key); memory keys come first, so a
// query at index i sits at position mlen + i. Either pass the projected r per distance, or W_R and
// dModel and let posenc build R.
#pragma once
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct XlEncoding {
    View<float> u, v;    // [heads, headDim]
    View<float> r;       // [heads, distances, headDim], row d = W_R R_d; or empty when wR is given
    View<float> wR;      // [heads*headDim, dModel] (r_net weight, no bias)
    int dModel = 0;
};

class XlTerm final : public ScoreTerm {
public:
    // maxDistance: the largest i - j the call can need (r is built for 0..maxDistance from wR).
    XlTerm(const XlEncoding& e, int heads, int headDim, std::int64_t maxDistance);
    const float* beginQuery(int slot, int h, std::int32_t qPos, const float* q) override;
    bool hasContent() const override { return true; }
    void addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    int distances() const { return distances_; }

private:
    XlEncoding e_;
    int headDim_, distances_;
    std::vector<float> builtR_;  // [heads, distances, headDim] when built from wR
    const float* r_;
    std::vector<float> qu_, qv_, qr_;  // per slot: q+u, q+v, (q+v).r_d for every d
};

}  // namespace posenc
