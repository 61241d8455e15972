// Finite inputs wherever a tensor enters (issue 20): NaN or ±Infinity is refused by field and index,
// spelled as JavaScript spells it, before anything is computed.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <posenc/posenc.hpp>

using namespace posenc;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("applyRope and rotateByDelta: a non-finite x is refused by index; x is left as it was") {
    RopeConfig c;
    c.headDim = 4;
    const auto f = ropeFrequencies(c);
    std::vector<float> x(8, 0.5f);
    x[5] = kNaN;
    const std::vector<std::int32_t> pos = {0, 1};
    CHECK_THROWS_WITH_AS(applyRope(x.data(), 1, 2, 4, pos.data(), f, RopeLayout::half), "x[5] must be finite (got NaN)", std::invalid_argument);
    x[5] = kInf;
    CHECK_THROWS_WITH_AS(applyRope(x.data(), 1, 2, 4, pos.data(), f, RopeLayout::half), "x[5] must be finite (got Infinity)", std::invalid_argument);
    CHECK(x[0] == 0.5f);  // refused before rotating anything
    x[5] = -kInf;
    const std::vector<std::int64_t> d = {1, 1};
    CHECK_THROWS_WITH_AS(rotateByDelta(x.data(), 1, 2, 4, d.data(), f, RopeLayout::half), "x[5] must be finite (got -Infinity)", std::invalid_argument);
}

TEST_CASE("encodings that take tensors refuse non-finite entries by field and index") {
    const std::vector<std::int32_t> pos = {0, 1};
    std::vector<float> table = {0, 1, 2, kInf};  // [2 rows, dim 2]
    LearnedOptions lo;
    lo.table = table;
    lo.dim = 2;
    std::vector<float> out(4);
    CHECK_THROWS_WITH_AS(learned(pos.data(), 2, lo, out.data()), "table[3] must be finite (got Infinity)", std::invalid_argument);

    // score-term tables, through attention: q, k, v are fine, the table is not
    AttentionRequest r;
    r.dims = {1, 1, 2, 2, 2};
    const std::vector<float> q = {0.1f, 0.2f, 0.3f, 0.4f};
    r.q = q;
    r.k = q;
    r.v = q;
    std::vector<float> t5 = {0.5f, kNaN, 0.5f, 0.5f};  // [numBuckets 4, heads 1]
    T5Encoding e;
    e.heads = 1;
    e.buckets.numBuckets = 4;
    e.buckets.maxDistance = 8;
    e.table = t5;
    r.encoding = e;
    CHECK_THROWS_WITH_AS(attention(r), "encoding.table[1] must be finite (got NaN)", std::invalid_argument);

    std::vector<float> keyTable = {0, 0, 0, 0, 0, -kInf};  // [2K+1 = 3, headDim 2]
    ShawEncoding s;
    s.clip = 1;
    s.keyTable = keyTable;
    r.encoding = s;
    CHECK_THROWS_WITH_AS(attention(r), "encoding.keyTable[5] must be finite (got -Infinity)", std::invalid_argument);
}

TEST_CASE("show() spells non-finite numbers as JavaScript does") {
    CHECK(show(std::numeric_limits<double>::infinity()) == "Infinity");
    CHECK(show(-std::numeric_limits<double>::infinity()) == "-Infinity");
    CHECK(show(std::numeric_limits<double>::quiet_NaN()) == "NaN");
    CHECK(show(0.25) == "0.25");
}
