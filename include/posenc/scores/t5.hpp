// T5 relative attention bias (HF T5Attention._relative_position_bucket): relative position
// j - i (key - query) mapped to a bucket; a learned [numBuckets, heads] table gives the bias.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct T5BucketOptions {
    bool bidirectional = true;
    int numBuckets = 32;
    int maxDistance = 128;
};

void validate(const T5BucketOptions& o);
// Buckets: bidirectional halves them and offsets r > 0; causal puts every future key in bucket 0;
// exact below N'/2, log-spaced up to maxDistance (float32 log, truncation, as HF).
int t5Bucket(std::int64_t relativePosition, const T5BucketOptions& o);

struct T5Encoding {
    int heads = 0;
    View<float> table;  // [numBuckets, heads]
    T5BucketOptions buckets;
};

class T5Term final : public ScoreTerm {
public:
    // callDistance: the largest |key - query| position distance the call can ask about.
    T5Term(const T5Encoding& e, int heads, std::int64_t callDistance);
    // The same, told whether the call's keys increase (blocks of consecutive keys add a run of the table).
    T5Term(const T5Encoding& e, int heads, const CallDistances& call);
    bool hasBias() const override { return true; }
    bool concurrent() const override { return true; }  // constant tables only
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    int bucket(std::int64_t rel) const;

private:
    const float* table_;
    T5BucketOptions o_;
    int range_ = 0;            // min(maxDistance, the call's largest distance)
    std::vector<int> lookup_;  // buckets for rel in [-range_, range_]
    std::vector<float> biasByDistance_;  // [heads, 2 range_ + 1]: table[lookup_[rel], h]
    bool keysIncrease_ = false;
};

}  // namespace posenc
