#include "attention/positions.hpp"

#include <string>

#include "posenc/common/errors.hpp"

namespace posenc {

namespace detail {

std::vector<std::int32_t> defaultKeyPositions(int kLen) {
    std::vector<std::int32_t> p(static_cast<std::size_t>(kLen));
    for (int j = 0; j < kLen; ++j) p[j] = j;
    return p;
}

std::vector<std::int32_t> defaultQueryPositions(int qLen, int kLen) {
    std::vector<std::int32_t> p(static_cast<std::size_t>(qLen));
    const int first = std::max(kLen - qLen, 0);
    for (int i = 0; i < qLen; ++i) p[i] = first + i;
    return p;
}

void requirePositionCount(const char* field, std::size_t got, std::size_t axes, const PositionLayout& l) {
    const std::size_t rows = l.batch > 0 ? static_cast<std::size_t>(l.batch) : 1;
    const std::size_t want = rows * axes * static_cast<std::size_t>(l.len);
    if (got == want) return;
    const std::string len = l.lenName, n = std::to_string(want), g = " (got " + std::to_string(got) + ")";
    if (axes == 1) fail(field, "must have " + (l.batch > 0 ? "batch*" + len : len) + " = " + n + " entries" + g);
    fail(field, (l.batch > 0 ? "must be [batch, axes, " + len + "] = " + n
                             : "must be [axes, " + len + "] = " + std::to_string(axes) + " x " + std::to_string(l.len)) +
                    " entries for multi-axis RoPE" + g);
}

void requireMaskPositionsAllowed(View<std::int32_t> maskPositions, std::size_t axes, const char* positionFields) {
    if (axes == 1 && !maskPositions.empty())
        fail("maskPositions", std::string("apply only to multi-axis RoPE (otherwise ") + positionFields + " are the mask positions)");
}

View<std::int32_t> checkCachePositions(View<std::int32_t> positions, View<std::int32_t> maskPositions, std::size_t axes,
                                       const PositionLayout& layout, const char* field) {
    requireMaskPositionsAllowed(maskPositions, axes, field);
    if (!positions.empty()) requirePositionCount(field, positions.size, axes, layout);
    if (!maskPositions.empty()) requirePositionCount("maskPositions", maskPositions.size, 1, layout);
    return axes == 1 ? positions : maskPositions;
}

namespace {
// One side's rotation positions [axes, len], checked: given, or the default sequence index on every axis.
std::vector<std::int32_t> rotationPositions(View<std::int32_t> given, const std::vector<std::int32_t>& dflt, std::size_t axes,
                                            const PositionLayout& layout, const char* field) {
    if (!given.empty()) requirePositionCount(field, given.size, axes, layout);
    const std::size_t len = static_cast<std::size_t>(layout.len);
    std::vector<std::int32_t> p(axes * len);
    for (std::size_t a = 0; a < axes; ++a)
        for (std::size_t t = 0; t < len; ++t) p[a * len + t] = axisPosition(given.empty() ? nullptr : given.data, len, a, t, dflt[t]);
    requirePositions(p.data(), p.size(), field);
    return p;
}
}  // namespace

AttentionPositions resolveAttentionPositions(const AttentionRequest& r, std::size_t axes) {
    const AttentionDims& d = r.dims;
    const PositionLayout qLayout{0, d.qLen, "qLen"}, kLayout{0, d.kLen, "kLen"};
    const std::vector<std::int32_t> qDefault = defaultQueryPositions(d.qLen, d.kLen), kDefault = defaultKeyPositions(d.kLen);
    AttentionPositions p;
    p.multiAxis = axes > 1;
    p.qRotation = rotationPositions(r.qPositions, qDefault, axes, qLayout, "qPositions");
    p.kRotation = rotationPositions(r.kPositions, kDefault, axes, kLayout, "kPositions");
    requireMaskPositionsAllowed(r.maskPositions, axes, "qPositions / kPositions");
    if (!p.multiAxis) return p;
    if (r.maskPositions.empty()) {
        p.kSequence = kDefault;
        p.qSequence = qDefault;
        return p;
    }
    requirePositionCount("maskPositions", r.maskPositions.size, 1, kLayout);
    if (d.qLen > d.kLen)
        fail("maskPositions", "give the queries theirs as the last qLen keys' (qLen " + std::to_string(d.qLen) + " > kLen " + std::to_string(d.kLen) + ")");
    p.kSequence.assign(r.maskPositions.data, r.maskPositions.data + r.maskPositions.size);
    requirePositions(p.kSequence.data(), p.kSequence.size(), "maskPositions");
    p.qSequence.assign(p.kSequence.end() - d.qLen, p.kSequence.end());
    return p;
}

}  // namespace detail

}  // namespace posenc
