// The positions of a call (src/attention/positions.hpp), shared by `attention` and the KV cache: the
// defaults, the count checks' messages and multi-axis RoPE's rotation rows and sequence index, against
// values worked by hand from the documented rules.
#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/positions.hpp"

using namespace posenc;
using V = std::vector<std::int32_t>;

namespace {
std::string messageOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}
}  // namespace

TEST_CASE("default positions: keys 0..kLen-1; attention's queries the last qLen, the cache's each clamped at 0") {
    CHECK(detail::defaultKeyPositions(4) == V{0, 1, 2, 3});
    CHECK(detail::defaultQueryPositions(2, 5) == V{3, 4});
    CHECK(detail::defaultQueryPositions(5, 5) == V{0, 1, 2, 3, 4});
    CHECK(detail::defaultQueryPositions(4, 2) == V{0, 1, 2, 3});  // more queries than keys: from 0
    // the cache: next - qLen + i, each at least 0 (next 7, qLen 3: 4 5 6; next 2, qLen 4: -2 -1 0 1 -> 0 0 0 1)
    V cache;
    for (int i = 0; i < 3; ++i) cache.push_back(detail::cacheQueryPosition(7, 3, i));
    CHECK(cache == V{4, 5, 6});
    cache.clear();
    for (int i = 0; i < 4; ++i) cache.push_back(detail::cacheQueryPosition(2, 4, i));
    CHECK(cache == V{0, 0, 0, 1});
}

TEST_CASE("position counts: attention's [len] / [axes, len] and the cache's [batch * len] / [batch, axes, len]") {
    const detail::PositionLayout single{0, 5, "qLen"}, batched{2, 3, "T"};
    CHECK(messageOf([&] { detail::requirePositionCount("qPositions", 5, 1, single); }) == "(no error)");
    CHECK(messageOf([&] { detail::requirePositionCount("qPositions", 15, 3, single); }) == "(no error)");
    CHECK(messageOf([&] { detail::requirePositionCount("positions", 18, 3, batched); }) == "(no error)");
    CHECK(messageOf([&] { detail::requirePositionCount("qPositions", 4, 1, single); }) == "qPositions must have qLen = 5 entries (got 4)");
    CHECK(messageOf([&] { detail::requirePositionCount("qPositions", 5, 3, single); }) ==
          "qPositions must be [axes, qLen] = 3 x 5 entries for multi-axis RoPE (got 5)");
    CHECK(messageOf([&] { detail::requirePositionCount("positions", 7, 1, batched); }) == "positions must have batch*T = 6 entries (got 7)");
    CHECK(messageOf([&] { detail::requirePositionCount("positions", 6, 2, batched); }) ==
          "positions must be [batch, axes, T] = 12 entries for multi-axis RoPE (got 6)");
    const V some{1, 2};
    CHECK(messageOf([&] { detail::requireMaskPositionsAllowed(some, 1, "qPositions"); }) ==
          "maskPositions apply only to multi-axis RoPE (otherwise qPositions are the mask positions)");
    CHECK(messageOf([&] { detail::requireMaskPositionsAllowed(some, 2, "qPositions"); }) == "(no error)");
    CHECK(messageOf([&] { detail::requireMaskPositionsAllowed({}, 1, "qPositions"); }) == "(no error)");
}

TEST_CASE("the cache's checks return the sequence index as given: positions with one axis, maskPositions with several") {
    const V pos{5, 6, 7, 8}, axisPos{1, 2, 3, 4, 5, 6, 7, 8}, mask{10, 11, 12, 13};
    const detail::PositionLayout l{2, 2, "qLen"};
    const View<std::int32_t> one = detail::checkCachePositions(pos, {}, 1, l, "qPositions");
    CHECK(one.data == pos.data());
    const View<std::int32_t> several = detail::checkCachePositions(axisPos, mask, 2, l, "qPositions");
    CHECK(several.data == mask.data());
    CHECK(detail::checkCachePositions(axisPos, {}, 2, l, "qPositions").empty());  // the defaults
    CHECK(messageOf([&] { detail::checkCachePositions(pos, mask, 1, l, "qPositions"); }) ==
          "maskPositions apply only to multi-axis RoPE (otherwise qPositions are the mask positions)");
    CHECK(messageOf([&] { detail::checkCachePositions(axisPos, V{1, 2, 3}, 2, l, "qPositions"); }) ==
          "maskPositions must have batch*qLen = 4 entries (got 3)");
}

TEST_CASE("attention's positions: rotation rows per axis (given, or the sequence index on each), masks by the sequence index") {
    AttentionRequest r;
    r.dims = AttentionDims{1, 1, 4, 2, 3};
    SUBCASE("one axis: the positions are both") {
        const auto p = detail::resolveAttentionPositions(r, 1);
        CHECK(p.qRotation == V{1, 2});
        CHECK(p.kRotation == V{0, 1, 2});
        CHECK(p.q() == V{1, 2});
        CHECK(p.k() == V{0, 1, 2});
    }
    SUBCASE("two axes, nothing given: every axis at the default sequence index") {
        const auto p = detail::resolveAttentionPositions(r, 2);
        CHECK(p.qRotation == V{1, 2, 1, 2});
        CHECK(p.kRotation == V{0, 1, 2, 0, 1, 2});
        CHECK(p.q() == V{1, 2});
        CHECK(p.k() == V{0, 1, 2});
    }
    SUBCASE("two axes, rows and maskPositions given: queries take the last qLen of maskPositions") {
        const V q{7, 8, 9, 9}, k{1, 2, 3, 4, 5, 6}, mask{20, 30, 40};
        r.qPositions = q;
        r.kPositions = k;
        r.maskPositions = mask;
        const auto p = detail::resolveAttentionPositions(r, 2);
        CHECK(p.qRotation == q);
        CHECK(p.kRotation == k);
        CHECK(p.q() == V{30, 40});
        CHECK(p.k() == V{20, 30, 40});
    }
    SUBCASE("errors name the field and element") {
        const V negative{7, -1, 9, 9}, mask{20, 30};
        r.qPositions = negative;
        CHECK(messageOf([&] { detail::resolveAttentionPositions(r, 2); }) == "qPositions[1] must be a position >= 0 (got -1)");
        r.qPositions = {};
        r.maskPositions = mask;
        CHECK(messageOf([&] { detail::resolveAttentionPositions(r, 1); }) ==
              "maskPositions apply only to multi-axis RoPE (otherwise qPositions / kPositions are the mask positions)");
        CHECK(messageOf([&] { detail::resolveAttentionPositions(r, 3); }) == "maskPositions must have kLen = 3 entries (got 2)");
    }
}
