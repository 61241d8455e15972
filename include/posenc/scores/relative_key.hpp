// BERT relative_key / relative_key_query (HF BertSelfAttention, Huang et al. 2020):
// E = distance_embedding [2 maxPosition - 1, headDim] shared by all heads, row (i - j) + maxPosition - 1.
// relative_key adds q_i . E[row]; relative_key_query also adds k_j . E[row]. All divided by sqrt(d).
#pragma once
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct RelativeKeyEncoding {
    View<float> table;  // [2 maxPosition - 1, headDim]
    int maxPosition = 0;
    bool keyQuery = false;
};

class RelativeKeyTerm final : public ScoreTerm {
public:
    // qMin, qMax: the range of the call's query positions (the rows k . E[r] a key can need).
    RelativeKeyTerm(const RelativeKeyEncoding& e, int headDim, int kLen, std::int64_t qMin, std::int64_t qMax);
    void beginHead(int h, const float* k, const std::int32_t* kPos) override;
    bool readsKeys() const override { return e_.keyQuery; }
    const float* beginQuery(int slot, int h, std::int32_t qPos, const float* q) override;
    bool hasContent() const override { return true; }
    void addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    int rows() const { return 2 * e_.maxPosition - 1; }

private:
    RelativeKeyEncoding e_;
    int headDim_, kLen_;
    std::vector<float> qe_;  // [kQueryTile, rows]: q_i . E[r]
    // relative_key_query: k_j . E[r] for the rows the call's queries can reach from key j, [kLen, keyRows_]
    // from row keyRow0_[j]. Those rows are qMax - qMin + 1 (at most all of E): a decode step of a few
    // queries over many keys forms a few dots per key, not one per row of E.
    std::vector<float> ke_;
    std::vector<int> keyRow0_;
    int keyRows_ = 0;
    std::int64_t qMin_ = 0;
};

}  // namespace posenc
