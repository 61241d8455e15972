// DeBERTa disentangled attention (He et al. 2021; HF DisentangledSelfAttention, microsoft/DeBERTa):
// score = c2c + c2p + p2c with c2p = q_i . posKey[idx], p2c = k_j . posQuery[idx],
// idx = clamp(bucket(i - j) + span, 0, 2 span - 1), delta = i - j (query - key).
// Log bucketing with mid = bucketSize/2. microsoft/DeBERTa clamps |delta| to maxPosition - 1 before
// bucketing, HF does not: they differ for delta <= -maxPosition. Both are offered.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

enum class DebertaConvention { hf, microsoft };

struct DebertaBucketOptions {
    int bucketSize = 256;   // 0 = no log bucketing
    int maxPosition = 512;  // max_relative_positions
    DebertaConvention convention = DebertaConvention::hf;
};

void validate(const DebertaBucketOptions& o);
std::int64_t debertaBucket(std::int64_t relativePosition, const DebertaBucketOptions& o);

struct DebertaEncoding {
    View<float> posKey;    // [heads, 2 span, headDim] (needed by c2p)
    View<float> posQuery;  // [heads, 2 span, headDim] (needed by p2c)
    int span = 0;
    DebertaBucketOptions buckets;
    bool c2p = true, p2c = true;
};

class DebertaTerm final : public ScoreTerm {
public:
    // callDistance: the largest |query - key| position distance the call can ask about.
    DebertaTerm(const DebertaEncoding& e, int heads, int headDim, int kLen, std::int64_t callDistance);
    void beginHead(int h, const float* k, const std::int32_t* kPos) override;
    bool readsKeys() const override { return e_.p2c; }
    bool headSpecificKeyState() const override { return e_.p2c; }  // p2c projects keys on head h's posQuery
    const float* beginQuery(int slot, int h, std::int32_t qPos, const float* q) override;
    bool hasContent() const override { return true; }
    void addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    int index(std::int64_t delta) const;
    int activeTerms() const { return (e_.c2p ? 1 : 0) + (e_.p2c ? 1 : 0); }

private:
    DebertaEncoding e_;
    int headDim_, kLen_;
    std::vector<float> qp_;       // q_i . posKey[h][r]            [kQueryTile, 2 span]
    std::vector<float> kp_;       // k_j . posQuery[h][r]          [kLen, 2 span]
    std::vector<int> lookup_;     // idx for delta in [-L, L]
    int lookupRange_;
};

}  // namespace posenc
