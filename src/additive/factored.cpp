#include "posenc/additive/factored.hpp"

#include <algorithm>
#include <cstring>

#include "posenc/common/errors.hpp"

namespace posenc {

namespace {
std::int64_t rowsOf(View<float> t, int width, const char* field, const char* shape) {
    if (t.empty() || t.size % static_cast<std::size_t>(width) != 0)
        fail(field, std::string("must be ") + shape + ": a positive multiple of " + std::to_string(width) + " elements (got " + std::to_string(t.size) + ")");
    requireFiniteValues(t.data, t.size, field);
    return static_cast<std::int64_t>(t.size / width);
}
void requireRow(std::int64_t p, std::int64_t rows, std::size_t t, const char* what) {
    if (p >= rows)
        fail("positions[" + std::to_string(t) + "]", "(" + std::to_string(p) + ") is past the " + std::to_string(rows) + " rows of " + what);
}
}  // namespace

void lowRank(const std::int32_t* positions, std::size_t count, View<float> coefficients, View<float> basis, int rank, int dim, float* out) {
    requirePositive(rank, "rank");
    requireSize(dim, "dim", limits::kMaxDim);
    requirePositions(positions, count, "positions");
    const std::int64_t rows = rowsOf(coefficients, rank, "coefficients", "[rows, rank]");
    if (basis.size != static_cast<std::size_t>(rank) * dim)
        fail("basis", "must be [rank, dim] = " + std::to_string(static_cast<std::size_t>(rank) * dim) + " elements (got " + std::to_string(basis.size) + ")");
    for (std::size_t t = 0; t < count; ++t) requireRow(positions[t], rows, t, "coefficients");
    for (std::size_t t = 0; t < count; ++t) {
        float* row = out + t * dim;
        const float* a = coefficients.data + static_cast<std::size_t>(positions[t]) * rank;
        for (int c = 0; c < dim; ++c) {
            double s = 0;
            for (int r = 0; r < rank; ++r) s += static_cast<double>(a[r]) * basis[static_cast<std::size_t>(r) * dim + c];
            row[c] = static_cast<float>(s);
        }
    }
}

void sparse(const std::int32_t* positions, std::size_t count, View<std::int32_t> indices, View<float> values, int k, View<float> basis, int dim,
            float* out) {
    requirePositive(k, "k");
    requireSize(dim, "dim", limits::kMaxDim);
    requirePositions(positions, count, "positions");
    if (indices.empty() || indices.size % static_cast<std::size_t>(k) != 0)
        fail("indices", "must be [rows, k]: a positive multiple of k = " + std::to_string(k) + " entries (got " + std::to_string(indices.size) + ")");
    if (values.size != indices.size) fail("values", "must be [rows, k] like indices (" + std::to_string(indices.size) + " entries, got " + std::to_string(values.size) + ")");
    requireFiniteValues(values.data, values.size, "values");
    const std::int64_t rows = static_cast<std::int64_t>(indices.size / k);
    const std::int64_t B = rowsOf(basis, dim, "basis", "[B, dim]");
    for (std::size_t i = 0; i < indices.size; ++i)
        if (indices[i] < 0 || indices[i] >= B)
            fail("indices[" + std::to_string(i) + "]", "must be a basis row in [0, " + std::to_string(B) + ") (got " + std::to_string(indices[i]) + ")");
    for (std::size_t t = 0; t < count; ++t) requireRow(positions[t], rows, t, "indices");
    for (std::size_t t = 0; t < count; ++t) {
        float* row = out + t * dim;
        std::fill(row, row + dim, 0.0f);
        for (int i = 0; i < k; ++i) {
            const std::size_t at = static_cast<std::size_t>(positions[t]) * k + i;
            const float* e = basis.data + static_cast<std::size_t>(indices[at]) * dim;
            for (int c = 0; c < dim; ++c) row[c] += values[at] * e[c];
        }
    }
}

int axialWidth(const AxialOptions& o) {
    if (o.shape.empty()) fail("shape", "must name at least one axis");
    if (o.tables.size() != o.shape.size()) fail("tables", "must have one table per axis (" + std::to_string(o.shape.size()) + ", got " + std::to_string(o.tables.size()) + ")");
    if (o.dims.size() != o.shape.size()) fail("dims", "must have one width per axis (" + std::to_string(o.shape.size()) + ", got " + std::to_string(o.dims.size()) + ")");
    int width = 0;
    for (std::size_t a = 0; a < o.shape.size(); ++a) {
        requirePositive(o.shape[a], "shape");
        requirePositive(o.dims[a], "dims");
        const std::size_t want = elementCount({o.shape[a], o.dims[a]}, "tables");
        if (o.tables[a].size != want)
            fail("tables[" + std::to_string(a) + "]", "must be [shape[" + std::to_string(a) + "], dims[" + std::to_string(a) + "]] = " + std::to_string(want) +
                                                          " elements (got " + std::to_string(o.tables[a].size) + ")");
        requireFiniteValues(o.tables[a].data, o.tables[a].size, ("tables[" + std::to_string(a) + "]").c_str());
        if (o.combine == AxialCombine::sum && o.dims[a] != o.dims[0]) fail("dims", "must all be equal when combine is 'sum'");
        width = o.combine == AxialCombine::sum ? o.dims[0] : width + o.dims[a];
    }
    return width;
}

void axial(const std::int32_t* positions, std::size_t count, const AxialOptions& o, float* out) {
    const int width = axialWidth(o);
    requirePositions(positions, count, "positions");
    std::int64_t cells = 1;
    for (int s : o.shape) cells = std::min<std::int64_t>(cells * s, std::int64_t{1} << 40);
    for (std::size_t t = 0; t < count; ++t)
        if (positions[t] >= cells)
            fail("shape", "covers " + std::to_string(cells) + " positions (the product of its axes), but positions[" + std::to_string(t) + "] is " +
                              std::to_string(positions[t]));
    const std::size_t axes = o.shape.size();
    std::vector<std::int64_t> digit(axes);
    for (std::size_t t = 0; t < count; ++t) {
        std::int64_t p = positions[t];
        for (std::size_t a = axes; a-- > 0;) {  // last axis fastest
            digit[a] = p % o.shape[a];
            p /= o.shape[a];
        }
        float* row = out + t * width;
        if (o.combine == AxialCombine::sum) std::fill(row, row + width, 0.0f);
        int offset = 0;
        for (std::size_t a = 0; a < axes; ++a) {
            const float* e = o.tables[a].data + static_cast<std::size_t>(digit[a]) * o.dims[a];
            if (o.combine == AxialCombine::concat) {
                std::memcpy(row + offset, e, static_cast<std::size_t>(o.dims[a]) * sizeof(float));
                offset += o.dims[a];
            } else {
                for (int c = 0; c < o.dims[a]; ++c) row[c] += e[c];
            }
        }
    }
}

void twoLevel(const std::int32_t* segments, std::size_t count, View<float> segmentTable, View<float> innerTable, int segmentDim, int innerDim,
              AxialCombine combine, float* out) {
    requirePositive(segmentDim, "segmentDim");
    requirePositive(innerDim, "innerDim");
    if (combine == AxialCombine::sum && segmentDim != innerDim) fail("innerDim", "must equal segmentDim when combine is 'sum'");
    const std::int64_t segRows = rowsOf(segmentTable, segmentDim, "segmentTable", "[segments, segmentDim]");
    const std::int64_t innerRows = rowsOf(innerTable, innerDim, "innerTable", "[innerLength, innerDim]");
    std::vector<std::int64_t> inner(count);
    for (std::size_t t = 0; t < count; ++t) {
        if (segments[t] < 0 || segments[t] >= segRows)
            fail("segments[" + std::to_string(t) + "]", "must be a segment row in [0, " + std::to_string(segRows) + ") (got " + std::to_string(segments[t]) + ")");
        inner[t] = (t > 0 && segments[t] == segments[t - 1]) ? inner[t - 1] + 1 : 0;
        if (inner[t] >= innerRows)
            fail("segments", "has a segment of more than " + std::to_string(innerRows) + " tokens (innerTable rows) ending at token " + std::to_string(t));
    }
    const int width = combine == AxialCombine::concat ? segmentDim + innerDim : segmentDim;
    for (std::size_t t = 0; t < count; ++t) {
        float* row = out + t * width;
        const float* s = segmentTable.data + static_cast<std::size_t>(segments[t]) * segmentDim;
        const float* i = innerTable.data + static_cast<std::size_t>(inner[t]) * innerDim;
        if (combine == AxialCombine::concat) {
            std::memcpy(row, s, static_cast<std::size_t>(segmentDim) * sizeof(float));
            std::memcpy(row + segmentDim, i, static_cast<std::size_t>(innerDim) * sizeof(float));
        } else {
            for (int c = 0; c < segmentDim; ++c) row[c] = s[c] + i[c];
        }
    }
}

}  // namespace posenc
