#include <doctest/doctest.h>

#include <limits>

#include "kernels/rotate.hpp"
#include "posenc.hpp"
#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
RopeConfig cfg(int headDim, double base = 10000, double prf = 1) {
    RopeConfig c;
    c.headDim = headDim;
    c.base = base;
    c.partialRotaryFactor = prf;
    return c;
}
std::vector<ld> toLd(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// Max |ours - exact| over heads/tokens for applyRope.
double ropeError(const RopeFrequencies& f, RopeLayout layout, int headDim, const std::vector<int32_t>& pos,
                 int heads = 3) {
    const int T = static_cast<int>(pos.size());
    auto x = ref::randomVector(static_cast<std::size_t>(heads) * T * headDim, 7);
    auto y = applyRope(x, heads, T, headDim, pos, f, layout);
    const auto w = toLd(f.invFreq);
    double worst = 0;
    for (int h = 0; h < heads; ++h)
        for (int t = 0; t < T; ++t) {
            const std::size_t off = (static_cast<std::size_t>(h) * T + t) * headDim;
            std::vector<ld> v(x.begin() + off, x.begin() + off + headDim);
            std::vector<ld> head(v.begin(), v.begin() + f.rotaryDim);
            auto r = ref::rope(head, pos[t], w, layout == RopeLayout::half, f.attentionScale);
            for (int k = 0; k < headDim; ++k) {
                const ld expect = k < f.rotaryDim ? r[k] : v[k];
                worst = std::max(worst, double(std::fabs(expect - ld(y[off + k]))));
            }
        }
    return worst;
}
}  // namespace

TEST_CASE("default schedule: w_i = base^(-2i/R), R = int(D * partial_rotary_factor)") {
    auto f = ropeFrequencies(cfg(8));
    REQUIRE(f.rotaryDim == 8);
    REQUIRE(f.invFreq.size() == 4);
    CHECK(f.invFreq[0] == 1.0);
    CHECK(f.invFreq[1] == doctest::Approx(0.1).epsilon(1e-14));
    CHECK(f.invFreq[3] == doctest::Approx(0.001).epsilon(1e-14));
    CHECK(f.attentionScale == 1.0);
    // GPT-NeoX style: 0.25 of 80 = 20 rotary channels; 0.3 of 10 truncates to 3 -> odd -> error
    CHECK(ropeFrequencies(cfg(80, 10000, 0.25)).rotaryDim == 20);
    CHECK_THROWS_WITH_AS(ropeFrequencies(cfg(10, 10000, 0.3)), doctest::Contains("rotaryDim"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeFrequencies(cfg(7)), doctest::Contains("rotaryDim"), std::invalid_argument);
}

TEST_CASE("applyRope matches an exact rotation at positions 0..4096, 1e6 and 2^31-1, both layouts, partial 0.5") {
    std::vector<int32_t> pos;
    for (int p = 0; p <= 4096; p += 7) pos.push_back(p);
    pos.insert(pos.end(), {4096, 1000000, 16777216, 16777217, 2147483647});
    for (double prf : {1.0, 0.5}) {
        auto f = ropeFrequencies(cfg(64, 10000, prf));
        CHECK(ropeError(f, RopeLayout::half, 64, pos) < 1e-6);
        CHECK(ropeError(f, RopeLayout::interleaved, 64, pos) < 1e-6);
    }
    // head dims that leave SIMD tails: 18 (h = 9), 6 (h = 3)
    for (int d : {18, 6}) {
        auto f = ropeFrequencies(cfg(d, 500000));
        CHECK(ropeError(f, RopeLayout::half, d, pos) < 1e-6);
        CHECK(ropeError(f, RopeLayout::interleaved, d, pos) < 1e-6);
    }
}

TEST_CASE("float32 angle math (as HF computes) is visibly worse at large positions than ours") {
    // Documented contrast: HF forms p*w in float32; at p = 2^24+1 the position itself is not representable.
    const float p32 = static_cast<float>(16777217);
    CHECK(static_cast<double>(p32) != 16777217.0);
    auto f = ropeFrequencies(cfg(64));
    CHECK(ropeError(f, RopeLayout::half, 64, {16777217}) < 1e-6);
}

TEST_CASE("relative property: q_rot(m) . k_rot(n) depends only on n - m (to 1e-5, positions up to 1e6)") {
    auto f = ropeFrequencies(cfg(64));
    auto q = ref::randomVector(64, 1), k = ref::randomVector(64, 2);
    auto score = [&](int m, int n) {
        auto qr = applyRope(q, 1, 1, 64, {m}, f, RopeLayout::half);
        auto kr = applyRope(k, 1, 1, 64, {n}, f, RopeLayout::half);
        double s = 0;
        for (int i = 0; i < 64; ++i) s += double(qr[i]) * kr[i];
        return s;
    };
    for (int delta : {0, 1, 17, 300}) {
        const double s0 = score(0, delta);
        CHECK(score(1000, 1000 + delta) == doctest::Approx(s0).epsilon(0).scale(0).epsilon(1e-5));
        CHECK(std::fabs(score(999000, 999000 + delta) - s0) < 1e-5);
    }
}

TEST_CASE("rotate(-delta) after rotate(delta) returns the input (partial rotary, scaled schedule)") {
    RopeConfig c = cfg(64, 10000, 0.5);
    c.scaling.type = RopeScalingType::yarn;
    c.scaling.factor = 4;
    c.scaling.originalMaxPositionEmbeddings = 4096;
    auto f = ropeFrequencies(c);
    auto x = ref::randomVector(2 * 5 * 64, 3);
    auto y = x;
    std::vector<int64_t> d = {1, -7, 1000000, 2147483647, 12345}, nd;
    for (auto v : d) nd.push_back(-v);
    for (auto layout : {RopeLayout::half, RopeLayout::interleaved}) {
        rotateByDelta(y.data(), 2, 5, 64, d.data(), f, layout);
        rotateByDelta(y.data(), 2, 5, 64, nd.data(), f, layout);
        double worst = 0;
        for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, double(std::fabs(x[i] - y[i])));
        CHECK(worst < 1e-6);
    }
}

TEST_CASE("SIMD kernels equal their scalar references bit for bit") {
    for (std::size_t h : {1u, 3u, 4u, 8u, 9u, 16u, 17u, 64u, 67u}) {
        auto x = ref::randomVector(2 * h, static_cast<unsigned>(h));
        auto c = ref::randomVector(2 * h, 100 + static_cast<unsigned>(h));
        auto s = ref::randomVector(2 * h, 200 + static_cast<unsigned>(h));
        auto a = x, b = x;
        kernels::rotateHalfScalar(a.data(), c.data(), s.data(), h);
        kernels::rotateHalfSimd(b.data(), c.data(), s.data(), h);
        CHECK(a == b);
        a = x, b = x;
        kernels::rotateInterleavedScalar(a.data(), c.data(), s.data(), h);
        kernels::rotateInterleavedSimd(b.data(), c.data(), s.data(), h);
        CHECK(a == b);
    }
    // sin/cos tables: xsimd's vector sincos vs libm, both in double, rounded to float.
    std::vector<double> w(37);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::pow(10000.0, -2.0 * i / 74);
    for (double p : {0.0, 1.0, 4095.0, 1e6, 2147483647.0, -2147483647.0}) {
        std::vector<float> c1(37), s1(37), c2(37), s2(37);
        kernels::sinCosScalar(p, w.data(), w.size(), 1.25, c1.data(), s1.data());
        kernels::sinCosSimd(p, w.data(), w.size(), 1.25, c2.data(), s2.data());
        for (std::size_t i = 0; i < w.size(); ++i) {
            CHECK(std::fabs(c1[i] - c2[i]) <= std::numeric_limits<float>::epsilon() * 1.25f);
            CHECK(std::fabs(s1[i] - s2[i]) <= std::numeric_limits<float>::epsilon() * 1.25f);
        }
    }
}
