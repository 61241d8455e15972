// Shaw et al. 2018 relative position representations (tensor2tensor _relative_attention_inner):
// idx = clip(j - i, -K, K) + K (key - query); logits q.k + q.aK[idx]; out += sum_j w_ij aV[idx].
// Tables [2K+1, headDim] (aK) and [2K+1, valueDim] (aV: the values' channels) are shared by all heads.
#pragma once
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct ShawEncoding {
    int clip = 0;            // K
    View<float> keyTable;    // [2K+1, headDim]
    View<float> valueTable;  // optional [2K+1, valueDim] (headDim unless the attention's valueDim differs)
};

class ShawTerm final : public ScoreTerm {
public:
    // valueDim: the values' channels (aV's row length); 0 = headDim.
    ShawTerm(const ShawEncoding& e, int headDim, int valueDim = 0);
    const float* beginQuery(int slot, int h, std::int32_t qPos, const float* q) override;
    bool hasContent() const override { return true; }
    void addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    int valueRows() const override { return e_.valueTable.empty() ? 0 : 2 * e_.clip + 1; }
    const float* valueTable() const override { return e_.valueTable.data; }
    int valueIndex(std::int32_t qPos, std::int32_t kPos) const override;

private:
    ShawEncoding e_;
    int headDim_;
    std::vector<float> qa_;  // [kQueryTile, 2K+1]: q_i . aK[r] for every r, per slot
};

}  // namespace posenc
