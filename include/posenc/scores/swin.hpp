// Swin Transformer relative position bias (WindowAttention): tokens of a wh x ww window, position p
// at (p / ww, p % ww); index (dh + wh - 1)(2ww - 1) + (dw + ww - 1) with d = query - key coordinates,
// into a learned [(2wh-1)(2ww-1), heads] table.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

// [N, N] index matrix, N = wh * ww (Swin's relative_position_index).
std::vector<std::int32_t> swinRelativeIndex(int windowH, int windowW);
int swinIndex(std::int32_t qPos, std::int32_t kPos, int windowH, int windowW);

struct SwinEncoding {
    int heads = 0;
    View<float> table;  // [(2wh-1)(2ww-1), heads]
    int windowH = 0, windowW = 0;
};

class SwinTerm final : public ScoreTerm {
public:
    SwinTerm(const SwinEncoding& e, int heads);
    bool hasBias() const override { return true; }
    bool concurrent() const override { return true; }  // constant tables only
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    // Positions must lie inside the window.
    void checkPositions(const std::int32_t* p, int n, const char* field) const;

private:
    SwinEncoding e_;
};

}  // namespace posenc
