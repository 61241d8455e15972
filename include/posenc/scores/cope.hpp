// CoPE (Golovneva et al. 2024, "Contextual Position Encoding: Learning to Count What's Important";
// facebookresearch/RAM projects/cope): positions counted by the content. With s the attention scale,
//   gate  g_ij = sigmoid(s q_i . k_j) on allowed keys (0 on masked ones),
//   p_ij  = sum over t >= j of g_it, clamped to npos - 1,
//   e(p)  = linear interpolation between e[floor p] and e[ceil p] (rows of `embeddings`, shared by heads),
//   logit = s (q_i . k_j + q_i . e(p_ij)).
// Cost: a query row's positions need its gates over every key first (a reverse cumulative sum), so
// CoPE scores each row twice and cannot skip key blocks ahead of the mask the way a bias can.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/attention/engine.hpp"
#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct CopeEncoding {
    int npos = 0;
    View<float> embeddings;  // [npos, headDim], row p = e[p]
};

class CopeTerm final : public ScoreTerm {
public:
    // The term needs the call's mask, key positions and scale: gates are counted over allowed keys.
    CopeTerm(const CopeEncoding& e, const AttentionInputs& in);
    bool readsKeys() const override { return true; }
    void beginHead(int h, const float* k, const std::int32_t* kPos) override;
    const float* beginQuery(int slot, int h, std::int32_t qPos, const float* q) override;
    bool hasContent() const override { return true; }
    void addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;

private:
    int npos_, headDim_, kLen_;
    const float* e_;
    AttentionMask mask_;
    const std::int32_t* kPos_;
    float scale_;
    const float* k_ = nullptr;            // this kv head's keys, row-major
    std::vector<float> content_;          // [kQueryTile, kLen]: q_i . e(p_ij) of each slot's row
    std::vector<double> qe_;              // [npos]: q . e[p]
};

}  // namespace posenc
