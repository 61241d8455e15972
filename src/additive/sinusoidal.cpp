#include "posenc/additive/sinusoidal.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/common/errors.hpp"

namespace posenc {

void validate(const SinusoidalOptions& o) {
    requireSize(o.dim, "dim", limits::kMaxDim);
    requirePositiveFinite(o.base, "base");
    if (o.base == 1.0) fail("base", "must not be 1 (every frequency would be equal)");
    if (o.paddingIdx < -1) fail("paddingIdx", "must be a position >= 0, or -1 for none (got " + std::to_string(o.paddingIdx) + ")");
}

namespace {

// Column c of the table: which frequency it uses and whether it is a sine, a cosine or padding.
struct Column {
    double freq;
    enum { sine, cosine, zero } kind;
};

std::vector<Column> columns(const SinusoidalOptions& o) {
    const int d = o.dim;
    std::vector<Column> cols(static_cast<std::size_t>(d));
    switch (o.layout) {
        case SinusoidLayout::interleaved:
            // DistilBERT: exponent 2*(j/2)/d for column j; even j sine, odd j cosine (odd d ends on a sine).
            for (int j = 0; j < d; ++j)
                cols[j] = {std::pow(o.base, -2.0 * (j / 2) / d), (j % 2 == 0) ? Column::sine : Column::cosine};
            break;
        case SinusoidLayout::concat: {
            // Marian: ceil(d/2) sine columns, then floor(d/2) cosine columns, exponent 2k/d.
            const int sines = (d + 1) / 2;
            for (int j = 0; j < d; ++j) {
                const int k = j < sines ? j : j - sines;
                cols[j] = {std::pow(o.base, -2.0 * k / d), j < sines ? Column::sine : Column::cosine};
            }
            break;
        }
        case SinusoidLayout::tensor2tensor: {
            // t2t: n = d/2 timescales, log increment ln(base)/max(n-1, 1); odd d gets a zero column.
            const int n = d / 2;
            const double step = std::log(o.base) / std::max(n - 1, 1);
            for (int j = 0; j < d; ++j) {
                if (j >= 2 * n) cols[j] = {0.0, Column::zero};
                else {
                    const int k = j < n ? j : j - n;
                    cols[j] = {std::exp(-step * k), j < n ? Column::sine : Column::cosine};
                }
            }
            break;
        }
    }
    return cols;
}

}  // namespace

void sinusoidal(const std::int32_t* positions, std::size_t count, const SinusoidalOptions& o, float* out) {
    validate(o);
    requirePositions(positions, count, "positions");
    const auto cols = columns(o);
    const std::size_t d = cols.size();
    for (std::size_t t = 0; t < count; ++t) {
        const double p = positions[t];
        float* row = out + t * d;
        if (positions[t] == o.paddingIdx) {  // fairseq zeroes the padding row
            std::fill(row, row + d, 0.0f);
            continue;
        }
        for (std::size_t j = 0; j < d; ++j) {
            const double a = p * cols[j].freq;
            row[j] = cols[j].kind == Column::sine ? static_cast<float>(std::sin(a))
                     : cols[j].kind == Column::cosine ? static_cast<float>(std::cos(a))
                                                      : 0.0f;
        }
    }
}

std::vector<float> sinusoidal(const std::vector<std::int32_t>& positions, const SinusoidalOptions& o) {
    validate(o);
    std::vector<float> out(positions.size() * static_cast<std::size_t>(o.dim));
    sinusoidal(positions.data(), positions.size(), o, out.data());
    return out;
}

}  // namespace posenc
