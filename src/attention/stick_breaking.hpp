// The attention engine's stick-breaking normaliser (Tan et al. 2024, encoding kind 'stickBreaking'),
// softmax.hpp's sibling: the update over a block of keys, the decode split's partials and their merge,
// the finish and the weights. The engine runs one of the two on every path (engine.cpp).
//
// Query i gives each key j it sees the weight A_ij = σ(z_ij) Π_l (1 − σ(z_il)), the product over the
// keys l it sees after j (in key order), z the logits (scale q·k + score terms, soft-capped); no
// softmax, and the weights sum to at most 1 (the rest of the stick weighs no value). Which keys a query
// sees is the mask's: causal, and without `attendCurrent` not the key at its own position
// (AttentionMask::strict), as flash-linear-attention's `naive_stickbreaking_attn` (attend_current=False
// by default). In log space, with softplus(z) = log(1 + e^z):
//   log A_ij = z_ij − softplus(z_ij) − Σ_{l after j} softplus(z_il)
// The engine walks a row's keys from the last to the first (blocks in reverse, each block's keys in
// reverse), keeping L = Σ softplus over the keys already walked: p_j = exp(z_j − softplus(z_j) − L),
// then L += softplus(z_j). Every exponent is ≤ 0, so nothing overflows and nothing needs rescaling
// (the kernels' corr is 1); the keys that carry the weight, the nearest, are computed with the smallest
// L, so the most precisely. A chunk of keys walked alone leaves (L_c, acc_c); chunks merge from the last:
// acc += exp(−L_after) acc_c, L_after += L_c (merge below).
// The float work per logit is two scalar transcendental calls (std::exp, std::log1p) and an exp:
// the P.V is the value tile kernel's (kernels/attention_tile.hpp) with corr = 1.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "attention/softmax.hpp"  // SoftmaxRow: the row state both normalisers keep
#include "kernels/attention_tile.hpp"
#include "kernels/kernel_set.hpp"

namespace posenc::detail {

// log σ(z) and softplus(z) = −log(1 − σ(z)), stable for any finite z: with e = exp(−|z|) ∈ (0, 1],
// softplus(z) = max(z, 0) + log1p(e) and log σ(z) = min(z, 0) − log1p(e). For z ≫ 0: z + e and −e;
// for z ≪ 0: e^z and z − e^z (e^z underflows to 0 below z ≈ −104: exactly z and 0).
inline void stickTerms(float z, float& logSigma, float& softplus) {
    const float l1 = std::log1p(std::exp(-std::fabs(z)));
    softplus = std::max(z, 0.0f) + l1;
    logSigma = std::min(z, 0.0f) - l1;
}

// The row state is a SoftmaxRow begun by softmaxBegin: l holds L, the softplus sum over the keys
// walked (the keys after the next one), acc the weighted values, wsum the value-table weights; m is unused.

// One block of n keys (the first at key index j0) for nr rows, walked from its last key: scores s (row r
// at s + r * kKeyBlock; nr = 1: one row of any length), -inf = not seen (its weight 0, the stick
// unchanged). The scores become the weights p; then valueTile adds P.V to the rows' acc (corr = 1: exact).
template <class ValueIndex>
void stickUpdate(const kernels::KernelSet& K, int valueFormat, int nr, SoftmaxRow* rows, float* s, std::size_t n, const bool* live, const void* V,
                 std::size_t hd, int j0, std::size_t valueRows, ValueIndex valueIndex) {
    constexpr std::size_t B = kernels::kKeyBlock;
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    float corr[kQueryTile];
    bool contributes = false;
    for (int r = 0; r < nr; ++r) {
        corr[r] = 1.0f;
        float* p = s + static_cast<std::size_t>(r) * B;
        if (!live[r]) {
            std::fill(p, p + n, 0.0f);
            continue;
        }
        SoftmaxRow& row = rows[r];
        float L = row.l;
        for (std::size_t j = n; j-- > 0;) {
            if (p[j] == kNegInf) {
                p[j] = 0.0f;
                continue;
            }
            float logSigma, softplus;
            stickTerms(p[j], logSigma, softplus);
            p[j] = std::exp(logSigma - L);
            L += softplus;
            contributes = true;
        }
        row.l = L;
        if (valueRows)
            for (std::size_t j = 0; j < n; ++j) row.wsum[valueIndex(r, j0 + static_cast<int>(j))] += p[j];
    }
    if (contributes) K.kv[valueFormat].value[nr - 1](s, n, V, hd, rows[0].acc, corr);
}

// The decode split's partials: each chunk's (L, acc, wsum) per row, in SoftmaxPartials' layout (its m
// slot unused), merged from the last chunk to the first: a chunk's weights are exp(−L_after) times
// what it computed alone, L_after the softplus sum of the chunks after it. std::exp, like softmax's merge.
inline void stickMerge(const SoftmaxPartials& parts, const kernels::KernelSet& K, const float* partial, std::size_t chunks, std::size_t r,
                       SoftmaxRow& s) {
    const std::size_t per = parts.floats(), rows = parts.rows, hd = parts.hd, valueRows = parts.valueRows;
    float after = 0;
    for (std::size_t c = chunks; c-- > 0;) {
        const float* p = partial + c * per;
        const float w = std::exp(-after);
        K.axpy(w, p + 2 * rows + r * hd, s.acc, hd);
        const float* ws = p + 2 * rows + rows * hd + r * valueRows;
        for (std::size_t v = 0; v < valueRows; ++v) s.wsum[v] += ws[v] * w;
        after += p[rows + r];
    }
    s.l = after;
}

// The finish: o = acc plus each value-table row by its weight (no division: the weights are final).
// A row that saw no key gives zeros.
inline void stickFinish(const kernels::KernelSet& K, const SoftmaxRow& s, std::size_t hd, std::size_t valueRows, const float* valueTable, float* o) {
    std::copy(s.acc, s.acc + hd, o);
    for (std::size_t v = 0; v < valueRows; ++v)
        if (s.wsum[v] != 0.0f) K.axpy(s.wsum[v], valueTable + v * hd, o, hd);
}

}  // namespace posenc::detail
