// Forgetting attention (FoX; Lin et al. 2025, "Forgetting Transformer: Softmax Attention with a Forget
// Gate"): a data-dependent decay. Each token t has, per query head h, a forget gate f_t in (0, 1), given
// as its log (<= 0). With G_t = sum_{l <= t} log f_l over the keys in order, the bias of query i on key j
// is D_ij = G_i - G_j = sum_{l = j+1 .. i} log f_l, added after scaling.
//
// Which G a query takes: that of the last key (in key order) whose position is <= the query's position,
// i.e. min { G_j : kPos_j <= qPos } (G never increases along the keys); for a causal prefill, the
// query's own token. Keys the key mask drops (padding) count as gates of 1 (log f = 0) and are never a
// query's anchor, as the reference's `seq_start` zeroes them. Causal only (the paper's model; the
// reference kernels assert it): a non-causal call is refused.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

struct AttentionInputs;

struct ForgettingEncoding {
    // [heads, kLen]: log f of each key token per query head, finite and <= 0. Empty in a KV cache's
    // attend: the cache's stored cumulative sums are used (KVCacheConfig::forgetting).
    View<float> logForget;
};

// The tables a ForgettingTerm builds for a call (below). A caller that attends again and again (the KV
// cache, a decode step at a time) keeps one and passes it in (AttentionInputs::forgetTables): a call
// whose tables fit the capacity already reserved allocates nothing.
struct ForgettingTables {
    std::vector<std::int32_t> qPositions;  // the call's distinct query positions, sorted
    std::vector<double> anchors;           // [heads, qPositions.size()]
    std::vector<double> blockMin;          // [heads, blocks]: each 64-key block's smallest admitted G (-inf: none)
    std::vector<float> fromMin;            // [heads, kLen]: float(blockMin - G_j)
};

class ForgettingTerm final : public ScoreTerm {
public:
    ForgettingTerm(const ForgettingEncoding& e, const AttentionInputs& in);
    bool hasBias() const override { return true; }
    bool concurrent() const override { return true; }  // constant tables only
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    // The query's cumulative sum G for head h at position qPos (the anchor above).
    double anchor(int h, std::int32_t qPos) const;

private:
    std::vector<double> own_;  // G from logForget [heads, kLen], when the call gives the gates
    const double* g_ = nullptr;
    std::size_t stride_ = 0;                 // G of key j for head h: g_[h * stride_ + j]
    ForgettingTables ownTables_;             // used when the call brings none
    ForgettingTables& t_;                    // the tables: the call's (AttentionInputs::forgetTables) or ownTables_
    bool consecutive_ = false;               // the query positions are consecutive integers
    std::size_t blocks_ = 0, kLen_ = 0;
};

// Checks log forget gates: `count` values, each finite and <= 0, naming field[index] otherwise.
void requireLogForget(const float* x, std::size_t n, const char* field);

}  // namespace posenc
