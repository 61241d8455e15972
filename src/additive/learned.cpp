#include "posenc/additive/learned.hpp"

#include <algorithm>
#include <cstring>

#include "posenc/common/errors.hpp"

namespace posenc {

void learned(const std::int32_t* positions, std::size_t count, const LearnedOptions& o, float* out) {
    requireSize(o.dim, "dim", limits::kMaxDim);
    if (o.table.empty() || o.table.size % static_cast<std::size_t>(o.dim) != 0)
        fail("table", "must be [rows, dim]: a positive multiple of dim = " + std::to_string(o.dim) + " elements (got " + std::to_string(o.table.size) + ")");
    requirePositions(positions, count, "positions");
    requireNonNegative(o.interpolateTo, "interpolateTo");
    requireFiniteValues(o.table.data, o.table.size, "table");
    const std::int64_t rows = static_cast<std::int64_t>(o.table.size / o.dim);
    std::int64_t maxPos = 0;
    for (std::size_t t = 0; t < count; ++t) maxPos = std::max<std::int64_t>(maxPos, positions[t]);
    const std::size_t d = static_cast<std::size_t>(o.dim);

    if (o.outOfRange == OutOfRange::error) {
        for (std::size_t t = 0; t < count; ++t)
            if (positions[t] >= rows)
                fail("positions[" + std::to_string(t) + "]", "(" + std::to_string(positions[t]) + ") is past the table's " + std::to_string(rows) +
                                                                 " rows (outOfRange: 'error'; use 'clamp' or 'interpolate')");
    }
    if (o.outOfRange != OutOfRange::interpolate) {
        for (std::size_t t = 0; t < count; ++t) {
            const std::int64_t r = std::min<std::int64_t>(positions[t], rows - 1);
            std::memcpy(out + t * d, o.table.data + static_cast<std::size_t>(r) * d, d * sizeof(float));
        }
        return;
    }
    const std::int64_t target = o.interpolateTo > 0 ? o.interpolateTo : std::max<std::int64_t>(rows, maxPos + 1);
    if (maxPos >= target)
        fail("positions", "reach " + std::to_string(maxPos) + ", past interpolateTo = " + std::to_string(target) + " rows");
    for (std::size_t t = 0; t < count; ++t) {
        // align-corners stretch: row p of `target` rows sits at p * (rows - 1) / (target - 1) of the table
        const double x = target > 1 ? static_cast<double>(positions[t]) * (rows - 1) / (target - 1) : 0.0;
        const std::int64_t r0 = std::min<std::int64_t>(static_cast<std::int64_t>(x), rows - 1), r1 = std::min<std::int64_t>(r0 + 1, rows - 1);
        const double w = x - r0;
        for (std::size_t c = 0; c < d; ++c)
            out[t * d + c] = static_cast<float>((1 - w) * o.table[r0 * d + c] + w * o.table[r1 * d + c]);
    }
}

namespace {
void checkMask(const std::uint8_t* mask, int batch, int length) {
    requirePositive(batch, "batch");
    requirePositive(length, "length");
    for (std::size_t i = 0; i < static_cast<std::size_t>(batch) * length; ++i)
        if (mask[i] > 1) fail("mask[" + std::to_string(i) + "]", "must be 0 or 1 (got " + std::to_string(mask[i]) + ")");
}
}  // namespace

void positionIds(const std::uint8_t* mask, int batch, int length, PositionIdStyle style, int paddingIdx, int past, std::int32_t* out) {
    checkMask(mask, batch, length);
    requireNonNegative(past, "past");
    requireNonNegative(paddingIdx, "paddingIdx");
    for (int b = 0; b < batch; ++b) {
        std::int64_t cum = 0;
        for (int t = 0; t < length; ++t) {
            const std::size_t i = static_cast<std::size_t>(b) * length + t;
            cum += mask[i];
            const std::int64_t id = style == PositionIdStyle::hf ? (mask[i] ? cum - 1 + past : 1) : (cum + past) * mask[i] + paddingIdx;
            if (id > 2147483647) fail("past", "pushes a position id past 2^31 - 1");
            out[i] = static_cast<std::int32_t>(id);
        }
    }
}

void nextPositions(const std::uint8_t* mask, int batch, int length, int past, std::int32_t* out) {
    checkMask(mask, batch, length);
    requireNonNegative(past, "past");
    for (int b = 0; b < batch; ++b) {
        std::int64_t n = past;
        for (int t = 0; t < length; ++t) n += mask[static_cast<std::size_t>(b) * length + t];
        out[b] = static_cast<std::int32_t>(std::min<std::int64_t>(n, 2147483647));
    }
}

void modalityPositions(const std::int32_t* modalities, std::size_t count, View<std::int32_t> offsets, View<std::int32_t> lengths,
                       std::int32_t* out) {
    if (offsets.empty()) fail("offsets", "must name one offset per modality");
    if (!lengths.empty() && lengths.size != offsets.size)
        fail("lengths", "must have one entry per modality (" + std::to_string(offsets.size) + ", got " + std::to_string(lengths.size) + ")");
    for (std::size_t m = 0; m < offsets.size; ++m) requireNonNegative(offsets[m], "offsets");
    std::vector<std::int64_t> seen(offsets.size, 0);
    for (std::size_t t = 0; t < count; ++t) {
        const std::int32_t m = modalities[t];
        if (m < 0 || static_cast<std::size_t>(m) >= offsets.size)
            fail("modalities[" + std::to_string(t) + "]", "must be a modality index in [0, " + std::to_string(offsets.size) + ") (got " + std::to_string(m) + ")");
        if (!lengths.empty() && seen[m] >= lengths[m])
            fail("modalities[" + std::to_string(t) + "]", "is token " + std::to_string(seen[m] + 1) + " of modality " + std::to_string(m) +
                                                               ", whose range holds " + std::to_string(lengths[m]));
        const std::int64_t p = offsets[m] + seen[m]++;
        if (p > 2147483647) fail("offsets", "push a position past 2^31 - 1");
        out[t] = static_cast<std::int32_t>(p);
    }
}

}  // namespace posenc
