#include "posenc/scores/combined.hpp"

#include "posenc/common/errors.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD CombinedTerm::CombinedTerm(std::vector<std::unique_ptr<ScoreTerm>> parts) : parts_(std::move(parts)) {
    for (auto& p : parts_) {
        readsKeys_ |= p->readsKeys();
        headSpecific_ |= p->headSpecificKeyState();
        hasContent_ |= p->hasContent();
        hasBias_ |= p->hasBias();
        concurrent_ &= p->concurrent();
        if (p->valueRows() > 0) {
            if (valueTerm_) fail("encoding", "combines two value-side terms (Shaw with a valueTable): at most one is allowed");
            valueTerm_ = p.get();
        }
    }
}

void CombinedTerm::beginHead(int h, const float* k, const std::int32_t* kPos) {
    for (auto& p : parts_) p->beginHead(h, k, kPos);
}

const float* CombinedTerm::beginQuery(int slot, int h, std::int32_t qPos, const float* q) {
    // Every part sees the query itself; the one that may change the content query (checked when the
    // encoding is built) decides it.
    const float* content = q;
    for (auto& p : parts_) {
        const float* c = p->beginQuery(slot, h, qPos, q);
        if (c != q) content = c;
    }
    return content;
}

void CombinedTerm::addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    for (auto& p : parts_)
        if (p->hasContent()) p->addContent(slot, qPos, j0, j1, kPos, s);
}

void CombinedTerm::addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    for (auto& p : parts_)
        if (p->hasBias()) p->addBias(h, qPos, j0, j1, kPos, s);
}

}  // namespace posenc
