// The attention engine's softmax, in one place for every path: the online update (block by block when
// streaming; a stored row as one block when weights or scores are materialised), the partial states of
// the decode split and their merge, and the finish (out = acc / l, weights = p / l).
// The float work on scores (max, exp, sums, P.V) is the tile kernels' (kernels/attention_tile.hpp:
// softmaxTile, valueTile, each a SIMD and scalar twin); this is the bookkeeping around them.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/attention_tile.hpp"  // kKeyBlock
#include "kernels/kernel_set.hpp"

namespace posenc::detail {

// One query row's softmax so far: m the largest score seen, l = sum_j exp(s_j - m), and the keys'
// contributions weighted by p_j = exp(s_j - m): acc = sum_j p_j v_j, wsum[v] = sum of p_j over the keys
// whose value-table row (Shaw's a^V) is v.
struct SoftmaxRow {
    float m = -std::numeric_limits<float>::infinity(), l = 0;
    float* acc = nullptr;   // [valueDim] (the values' channels)
    float* wsum = nullptr;  // [valueRows]
};

// A row that has seen no key, accumulating into acc and wsum.
inline void softmaxBegin(SoftmaxRow& s, float* acc, std::size_t hd, float* wsum, std::size_t valueRows) {
    s.m = -std::numeric_limits<float>::infinity();
    s.l = 0;
    s.acc = acc;
    s.wsum = wsum;
    std::fill(acc, acc + hd, 0.0f);
    std::fill(wsum, wsum + valueRows, 0.0f);
}

// The online update of nr rows by one block of n keys (the first at key index j0): scores s, row r at
// s + r * kKeyBlock (nr = 1: one row of any length). The tile kernel raises each live row's m and l and
// turns its scores into p (zeros for a row that is not live or sees only -inf); then each row's value
// weights are rescaled and take the block's p, and valueTile rescales acc and adds P.V (V: the block's
// value rows of hd channels: the values' channels, valueDim). The rows' acc are consecutive (row r at
// rows[0].acc + r * hd). valueIndex(r, j): the value-table row of key j for row r (called only when
// valueRows > 0). V is in the values' stored format `valueFormat` (kernels/kv_format.hpp), read by that
// format's kernel.
template <class ValueIndex>
void softmaxUpdate(const kernels::KernelSet& K, int valueFormat, int nr, SoftmaxRow* rows, float* s, std::size_t n, const bool* live, const void* V,
                   std::size_t hd, int j0, std::size_t valueRows, ValueIndex valueIndex) {
    constexpr std::size_t B = kernels::kKeyBlock;
    float m[kQueryTile], l[kQueryTile], corr[kQueryTile];
    for (int r = 0; r < nr; ++r) m[r] = rows[r].m, l[r] = rows[r].l;
    const bool contributes = K.softmaxTile[nr - 1](s, n, live, m, l, corr);
    for (int r = 0; r < nr; ++r) {
        SoftmaxRow& row = rows[r];
        row.m = m[r];
        row.l = l[r];
        if (valueRows && live[r]) {
            for (std::size_t v = 0; v < valueRows; ++v) row.wsum[v] *= corr[r];
            for (std::size_t j = 0; j < n; ++j) row.wsum[valueIndex(r, j0 + static_cast<int>(j))] += s[r * B + j];
        }
    }
    if (contributes) K.kv[valueFormat].value[nr - 1](s, n, V, hd, rows[0].acc, corr);
}

// The decode split: each chunk of keys leaves every row's state as floats (m, l, acc, wsum), merged
// afterwards in chunk order, so the result does not depend on which thread ran which chunk.
struct SoftmaxPartials {
    std::size_t rows, hd, valueRows;  // rows per tile (the kernel set's tileRows); hd: the values' channels (valueDim)
    std::size_t floats() const { return rows * (2 + hd + valueRows); }  // one (tile, chunk)
    void store(const SoftmaxRow& s, std::size_t r, float* p) const {
        p[r] = s.m;
        p[rows + r] = s.l;
        std::copy(s.acc, s.acc + hd, p + 2 * rows + r * hd);
        std::copy(s.wsum, s.wsum + valueRows, p + 2 * rows + rows * hd + r * valueRows);
    }
    // Row r of `chunks` consecutive partials merged into s (begun empty): m the largest chunk maximum,
    // each chunk's l, acc and wsum weighted by exp(m_c - m). std::exp here, not the kernels' expApprox:
    // a few per row, and the split's results are defined by it.
    void merge(const kernels::KernelSet& K, const float* partial, std::size_t chunks, std::size_t r, SoftmaxRow& s) const {
        const float kNegInf = -std::numeric_limits<float>::infinity();
        const std::size_t per = floats();
        float m = kNegInf;
        for (std::size_t c = 0; c < chunks; ++c) m = std::max(m, partial[c * per + r]);
        s.m = m;
        if (m == kNegInf) return;
        for (std::size_t c = 0; c < chunks; ++c) {
            const float* p = partial + c * per;
            if (p[r] == kNegInf) continue;  // no key of this chunk seen
            const float w = std::exp(p[r] - m);
            s.l += p[rows + r] * w;
            K.axpy(w, p + 2 * rows + r * hd, s.acc, hd);
            const float* ws = p + 2 * rows + rows * hd + r * valueRows;
            for (std::size_t v = 0; v < valueRows; ++v) s.wsum[v] += ws[v] * w;
        }
    }
};

// 1 / the row's softmax denominator, in units of its p = exp(s - m): 1 / l, or with a sink logit σ
// (gpt-oss: softmax over the keys and σ, σ weighing no value) exp(m - m') / (l exp(m - m') + exp(σ - m')),
// m' = max(m, σ), so that neither exponential overflows. σ = -inf: no sink (exactly 1 / l).
inline float softmaxNorm(const SoftmaxRow& s, float sink) {
    if (sink == -std::numeric_limits<float>::infinity()) return 1.0f / s.l;
    const float top = std::max(s.m, sink);
    const float keep = std::exp(s.m - top);
    return keep / (s.l * keep + std::exp(sink - top));
}

// The finish: o = acc / l plus each value-table row by its weight / l (l with the sink's term when
// there is one); zeros for a row that saw no key (l = 0: never NaN; with a sink, all weight is on it).
inline void softmaxFinish(const kernels::KernelSet& K, const SoftmaxRow& s, std::size_t hd, std::size_t valueRows, const float* valueTable, float* o,
                          float sink = -std::numeric_limits<float>::infinity()) {
    if (s.l == 0) {
        std::fill(o, o + hd, 0.0f);
        return;
    }
    const float inv = softmaxNorm(s, sink);
    for (std::size_t t = 0; t < hd; ++t) o[t] = s.acc[t] * inv;
    for (std::size_t v = 0; v < valueRows; ++v)
        if (s.wsum[v] != 0.0f) K.axpy(s.wsum[v] * inv, valueTable + v * hd, o, hd);
}

// The weights of a materialised row: w = p / l over its n keys (zeros when no key was seen); with a
// sink logit they sum to less than 1.
inline void softmaxWeights(const SoftmaxRow& s, const float* p, std::size_t n, float* w, float sink = -std::numeric_limits<float>::infinity()) {
    const float inv = s.l > 0 ? softmaxNorm(s, sink) : 0.0f;
    for (std::size_t j = 0; j < n; ++j) w[j] = p[j] * inv;
}

}  // namespace posenc::detail
