// Several score terms applied together (e.g. ALiBi + CoPE, or T5 buckets beside a rotary encoding):
// their content terms and biases add. One term at most may change the content query (Transformer-XL's
// q + u) and one at most may add a value-side term (Shaw's aV): two would be ambiguous.
#pragma once
#include <memory>
#include <vector>

#include "posenc/scores/score_term.hpp"

namespace posenc {

class CombinedTerm final : public ScoreTerm {
public:
    explicit CombinedTerm(std::vector<std::unique_ptr<ScoreTerm>> parts);
    void beginHead(int h, const float* k, const std::int32_t* kPos) override;
    bool readsKeys() const override { return readsKeys_; }
    bool headSpecificKeyState() const override { return headSpecific_; }
    const float* beginQuery(int slot, int h, std::int32_t qPos, const float* q) override;
    void addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    void addBias(int h, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) override;
    bool hasContent() const override { return hasContent_; }
    bool hasBias() const override { return hasBias_; }
    bool concurrent() const override { return concurrent_; }
    int valueRows() const override { return valueTerm_ ? valueTerm_->valueRows() : 0; }
    const float* valueTable() const override { return valueTerm_ ? valueTerm_->valueTable() : nullptr; }
    int valueIndex(std::int32_t qPos, std::int32_t kPos) const override { return valueTerm_ ? valueTerm_->valueIndex(qPos, kPos) : 0; }

private:
    std::vector<std::unique_ptr<ScoreTerm>> parts_;
    ScoreTerm* valueTerm_ = nullptr;
    bool readsKeys_ = false, headSpecific_ = false, hasContent_ = false, hasBias_ = false, concurrent_ = true;
};

}  // namespace posenc
