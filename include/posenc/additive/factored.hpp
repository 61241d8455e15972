// Tables built from smaller factors: low-rank (coefficients x basis), sparse (k active basis vectors
// per position), axial (Reformer: mixed-radix digits of p, one table per axis) and two-level
// (segment index + position inside the segment).
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"

namespace posenc {

// PE[p] = coefficients[p] . basis; coefficients [rows, rank], basis [rank, dim].
void lowRank(const std::int32_t* positions, std::size_t count, View<float> coefficients, View<float> basis, int rank, int dim, float* out);

// PE[p] = sum_i values[p][i] basis[indices[p][i]]; indices/values [rows, k], basis [B, dim].
void sparse(const std::int32_t* positions, std::size_t count, View<std::int32_t> indices, View<float> values, int k, View<float> basis, int dim,
            float* out);

enum class AxialCombine { concat, sum };

struct AxialOptions {
    std::vector<int> shape;          // [s0, s1, ...], first axis slowest
    std::vector<View<float>> tables; // W_a: [s_a, d_a]
    std::vector<int> dims;           // d_a
    AxialCombine combine = AxialCombine::concat;
};
int axialWidth(const AxialOptions& o);
void axial(const std::int32_t* positions, std::size_t count, const AxialOptions& o, float* out);

// Two-level: token t in segment s = segments[t] at inner index i (reset when the segment id changes):
// PE = combine(segmentTable[s], innerTable[i]).
void twoLevel(const std::int32_t* segments, std::size_t count, View<float> segmentTable, View<float> innerTable, int segmentDim, int innerDim,
              AxialCombine combine, float* out);

}  // namespace posenc
