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
// reverse; with AttentionInputs::keyOrder, its spans in reverse: the KV cache's window ring), keeping P = Π (1 − σ(z)) over the keys already walked, the stick left: p_j = σ(z_j)·P, then
// P ← P·(1 − σ(z_j)) — the log-space sum above, exponentiated factor by factor. σ and 1 − σ come from
// one exponential of −|z| and one division (kernels/stick.hpp, a SIMD kernel and its scalar twin), so
// neither cancels, nothing can overflow (every factor is in [0, 1]) and the nearest keys, which carry
// the weight, are computed with the fewest factors. Once P falls below float's smallest normal (e^−87.3)
// the stick is used up: the earlier keys weigh exactly 0 (their true weights are below 1.2e-38), and the
// engine stops walking the tile's keys. A chunk of keys walked alone leaves (P_c, acc_c); chunks
// merge from the last: acc += P_after·acc_c, P_after ← P_after·P_c (stickMerge). The P·V is the value
// tile kernel's (kernels/attention_tile.hpp) with corr = 1 (exact).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "attention/softmax.hpp"  // SoftmaxRow: the row state both normalisers keep
#include "kernels/attention_tile.hpp"
#include "kernels/kernel_set.hpp"

namespace posenc::detail {

// The stick left below which it counts as used up (float's smallest normal, e^−87.3): P is set to 0 and
// every earlier key weighs exactly 0 — no subnormal arithmetic (tens of times slower on x86 and in wasm),
// and the engine stops walking a tile's keys once every row's stick is used up (engine.cpp, runTile).
constexpr float kStickFloor = std::numeric_limits<float>::min();

// The row state is a SoftmaxRow: l holds P (1 before any key), acc the weighted values, wsum the
// value-table weights; m is unused.
inline void stickBegin(SoftmaxRow& s, float* acc, std::size_t hd, float* wsum, std::size_t valueRows) {
    softmaxBegin(s, acc, hd, wsum, valueRows);
    s.l = 1.0f;
}

// One block of n keys (the first at key index j0) for nr rows, walked from its last key: logits s (row r
// at s + r * kKeyBlock; nr = 1: one row of any length), -inf = not seen (its weight 0, the stick
// unchanged); `rest`: scratch of s's layout. The logits become the weights p; then valueTile adds P.V to
// the rows' acc (corr = 1: exact).
template <class ValueIndex>
void stickUpdate(const kernels::KernelSet& K, int valueFormat, int nr, SoftmaxRow* rows, float* s, float* rest, std::size_t n, const bool* live,
                 const void* V, std::size_t hd, int j0, std::size_t valueRows, ValueIndex valueIndex) {
    constexpr std::size_t B = kernels::kKeyBlock;
    float corr[kQueryTile];
    bool contributes = false;
    K.stickSigmoids(s, rest, static_cast<std::size_t>(nr), n);  // s <- σ(z), rest <- 1 − σ(z)
    for (int r = 0; r < nr; ++r) {
        corr[r] = 1.0f;
        float* p = s + static_cast<std::size_t>(r) * B;
        if (!live[r]) {
            std::fill(p, p + n, 0.0f);
            continue;
        }
        const float* q = rest + static_cast<std::size_t>(r) * B;
        SoftmaxRow& row = rows[r];
        float P = row.l;
        for (std::size_t j = n; j-- > 0;) {
            p[j] *= P;
            P *= q[j];
            if (P < kStickFloor) {  // the stick is used up: every key before j weighs 0
                P = 0;
                std::fill(p, p + j, 0.0f);
                break;
            }
        }
        contributes = true;
        row.l = P;
        if (valueRows)
            for (std::size_t j = 0; j < n; ++j) row.wsum[valueIndex(r, j0 + static_cast<int>(j))] += p[j];
    }
    if (contributes) K.kv[valueFormat].value[nr - 1](s, n, V, hd, rows[0].acc, corr);
}

// The decode split's partials: each chunk's (P, acc, wsum) per row, in SoftmaxPartials' layout (its m
// slot unused), merged from the last chunk to the first: a chunk's weights are P_after times what it
// computed alone, P_after the stick the chunks after it left.
inline void stickMerge(const SoftmaxPartials& parts, const kernels::KernelSet& K, const float* partial, std::size_t chunks, std::size_t r,
                       SoftmaxRow& s) {
    const std::size_t per = parts.floats(), rows = parts.rows, hd = parts.hd, valueRows = parts.valueRows;
    float after = 1.0f;
    for (std::size_t c = chunks; c-- > 0 && after != 0.0f;) {  // past a used-up stick the chunks weigh 0
        const float* p = partial + c * per;
        K.axpy(after, p + 2 * rows + r * hd, s.acc, hd);
        const float* ws = p + 2 * rows + rows * hd + r * valueRows;
        for (std::size_t v = 0; v < valueRows; ++v) s.wsum[v] += ws[v] * after;
        after *= p[rows + r];
        if (after < kStickFloor) after = 0;
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
