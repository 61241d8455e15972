#include "posenc/scores/swin.hpp"

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"

namespace posenc {

int swinIndex(std::int32_t qPos, std::int32_t kPos, int wh, int ww) {
    const int dh = qPos / ww - kPos / ww, dw = qPos % ww - kPos % ww;
    return (dh + wh - 1) * (2 * ww - 1) + (dw + ww - 1);
}

POSENC_COLD std::vector<std::int32_t> swinRelativeIndex(int wh, int ww) {
    requirePositive(wh, "windowSize[0]");
    requirePositive(ww, "windowSize[1]");
    const std::int64_t n = static_cast<std::int64_t>(wh) * ww;
    if (n > 1 << 14) fail("windowSize", "gives " + std::to_string(n) + " tokens per window; at most 16384 supported");
    std::vector<std::int32_t> idx(static_cast<std::size_t>(n * n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) idx[static_cast<std::size_t>(i) * n + j] = swinIndex(i, j, wh, ww);
    return idx;
}

POSENC_COLD SwinTerm::SwinTerm(const SwinEncoding& e, int heads) : e_(e) {
    requirePositive(e.windowH, "encoding.windowSize[0]");
    requirePositive(e.windowW, "encoding.windowSize[1]");
    if (e.heads != heads) fail("encoding.heads", "(" + std::to_string(e.heads) + ") must equal heads (" + std::to_string(heads) + ")");
    const std::size_t want = elementCount({2 * static_cast<std::int64_t>(e.windowH) - 1, 2 * static_cast<std::int64_t>(e.windowW) - 1, heads}, "encoding.windowSize");
    if (e.table.size != want)
        fail("encoding.table", "must have (2wh-1)(2ww-1)*heads = " + std::to_string(want) + " elements (got " +
                                   std::to_string(e.table.size) + ")");
    requireFiniteValues(e.table.data, want, "encoding.table");
}

POSENC_COLD void SwinTerm::checkPositions(const std::int32_t* p, int n, const char* field) const {
    const std::int64_t cells = static_cast<std::int64_t>(e_.windowH) * e_.windowW;
    for (int i = 0; i < n; ++i)
        if (p[i] >= cells)
            fail(std::string(field) + "[" + std::to_string(i) + "]", "must lie inside the " + std::to_string(e_.windowH) + "x" +
                                                                        std::to_string(e_.windowW) + " window (< " + std::to_string(cells) +
                                                                        ", got " + std::to_string(p[i]) + ")");
}

void SwinTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    for (int j = j0; j < j1; ++j)
        s[j - j0] += e_.table[static_cast<std::size_t>(swinIndex(qPos, kPos[j], e_.windowH, e_.windowW)) * e_.heads + h];
}

}  // namespace posenc
