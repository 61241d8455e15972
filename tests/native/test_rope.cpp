#include <doctest/doctest.h>

#include <algorithm>
#include <limits>

#include <posenc/posenc.hpp>
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


TEST_CASE("M-RoPE (Qwen2-VL): sections t/h/w pick the position axis per pair; equal axes = 1-D RoPE") {
    RopeConfig c = cfg(16);
    c.multiAxis = MultiAxis::mrope;
    c.sections = {2, 3, 3};  // R/2 = 8 pairs: 0-1 t, 2-4 h, 5-7 w
    auto f = ropeFrequencies(c);
    CHECK(f.axes == 3);
    const int T = 3;
    std::vector<int32_t> pos = {5, 6, 7, /*h*/ 1, 2, 3, /*w*/ 9, 0, 4};
    auto x = ref::randomVector(2 * T * 16, 11);
    auto y = applyRope(x, 2, T, 16, pos, f, RopeLayout::half);
    const auto w = ref::defaultInvFreq(16, 10000);
    double worst = 0;
    for (int h = 0; h < 2; ++h)
        for (int t = 0; t < T; ++t) {
            const std::size_t off = (static_cast<std::size_t>(h) * T + t) * 16;
            for (int k = 0; k < 8; ++k) {
                const int axis = k < 2 ? 0 : (k < 5 ? 1 : 2);
                const ld a = ld(pos[axis * T + t]) * w[k];
                const ld e0 = x[off + k] * std::cos(a) - x[off + k + 8] * std::sin(a);
                const ld e1 = x[off + k + 8] * std::cos(a) + x[off + k] * std::sin(a);
                worst = std::max({worst, double(std::fabs(e0 - y[off + k])), double(std::fabs(e1 - y[off + k + 8]))});
            }
        }
    CHECK(worst < 1e-6);
    std::vector<int32_t> same = {4, 5, 6, 4, 5, 6, 4, 5, 6};
    auto a = applyRope(x, 2, T, 16, same, f, RopeLayout::half);
    auto b = applyRope(x, 2, T, 16, {4, 5, 6}, ropeFrequencies(cfg(16)), RopeLayout::half);
    CHECK(a == b);
    c.sections = {2, 3, 2};
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains("sections"), std::invalid_argument);
}

TEST_CASE("2-D axial RoPE (RoPE-ViT axial): x drives the first R/4 pairs, y the rest; scores depend on (dx, dy) only") {
    RopeConfig c = cfg(16, 100);
    c.multiAxis = MultiAxis::axial2d;
    auto f = ropeFrequencies(c);
    CHECK(f.axes == 2);
    CHECK(f.invFreq[1] == doctest::Approx(std::pow(100.0, -4.0 / 16)));
    CHECK(f.invFreq[5] == doctest::Approx(std::pow(100.0, -4.0 / 16)));  // pair 5 = y, frequency index 1
    auto q = ref::randomVector(16, 1), k = ref::randomVector(16, 2);
    auto score = [&](int qx, int qy, int kx, int ky) {
        auto a = applyRope(q, 1, 1, 16, {qx, qy}, f, RopeLayout::interleaved);
        auto b = applyRope(k, 1, 1, 16, {kx, ky}, f, RopeLayout::interleaved);
        double s = 0;
        for (int i = 0; i < 16; ++i) s += double(a[i]) * b[i];
        return s;
    };
    CHECK(std::fabs(score(3, 4, 1, 1) - score(12, 20, 10, 17)) < 1e-5);
    CHECK(std::fabs(score(3, 4, 1, 1) - score(4, 3, 1, 1)) > 1e-4);  // x and y are not interchangeable
}

// q rotated (xPos-scaled up) at m, k at n (scaled down), with `half` pairs: their dot product.
double xposScore(std::vector<float> a, std::vector<float> b, std::int32_t m, std::int32_t n, const RopeFrequencies& f) {
    std::vector<int32_t> pm = {m}, pn = {n};
    applyRope(a.data(), 1, 1, static_cast<int>(a.size()), pm.data(), f, RopeLayout::half, RopeRole::query);
    applyRope(b.data(), 1, 1, static_cast<int>(b.size()), pn.data(), f, RopeLayout::half, RopeRole::key);
    double r = 0;
    for (std::size_t i = 0; i < a.size(); ++i) r += double(a[i]) * b[i];
    return r;
}

TEST_CASE("xPos: q pairs scaled by zeta^(m/gamma), k pairs by zeta^(-n/gamma); q.k depends on m - n only") {
    RopeConfig c = cfg(8);
    c.xposScaleBase = 512;
    auto f = ropeFrequencies(c);
    REQUIRE(f.xposZeta.size() == 4);
    CHECK(f.xposZeta[1] == doctest::Approx((2.0 + 0.4 * 8) / (1.4 * 8)));
    auto x = ref::randomVector(8, 3);
    auto q = applyRope(x, 1, 1, 8, {100}, f, RopeLayout::interleaved);
    auto k = x;
    std::vector<int32_t> p = {100};
    applyRope(k.data(), 1, 1, 8, p.data(), f, RopeLayout::interleaved, RopeRole::key);
    const auto w = ref::defaultInvFreq(8, 10000);
    auto plain = ref::rope(std::vector<ld>(x.begin(), x.end()), 100, w, false);
    for (int i = 0; i < 8; ++i) {
        const ld z = std::pow(ld(f.xposZeta[i / 2]), ld(100) / 512);
        CHECK(double(q[i]) == doctest::Approx(double(plain[i] * z)).epsilon(1e-5));
        CHECK(double(k[i]) == doctest::Approx(double(plain[i] / z)).epsilon(1e-5));
    }
    auto qv = ref::randomVector(8, 4), kv = ref::randomVector(8, 5);
    auto s = [&](int m, int n) { return xposScore(qv, kv, m, n, f); };
    CHECK(std::fabs(s(10, 3) - s(110, 103)) < 1e-5);
}

TEST_CASE("xPos at its range limit (63.8 gamma) still gives the exact score; past it a clear error, never NaN") {
    RopeConfig c = cfg(8);
    c.xposScaleBase = 512;
    auto f = ropeFrequencies(c);
    // zeta_0 = 0.4R / 1.4R = 2/7 for every R: the scales stay within e^(+-80) up to 80 gamma / ln 3.5
    const std::int64_t limit = static_cast<std::int64_t>(std::floor(80.0L * 512 / std::log(3.5L)));
    CHECK(f.xposMaxPosition == limit);
    auto qv = ref::randomVector(8, 4), kv = ref::randomVector(8, 5);
    auto s = [&](std::int32_t m, std::int32_t n) { return xposScore(qv, kv, m, n, f); };
    // the reference: rotate at n - m, weight pair k by zeta_k^((m - n)/gamma), in long double
    auto exact = [&](std::int64_t m, std::int64_t n) {
        const auto w = ref::defaultInvFreq(8, 10000);
        auto a = ref::rope(std::vector<ld>(qv.begin(), qv.end()), ld(m), w, true);
        auto b = ref::rope(std::vector<ld>(kv.begin(), kv.end()), ld(n), w, true);
        ld r = 0;
        for (int i = 0; i < 8; ++i) r += a[i] * b[i] * std::pow(ld(f.xposZeta[i % 4]), ld(m - n) / 512);
        return double(r);
    };
    const auto L = static_cast<std::int32_t>(limit);
    for (auto [m, n] : {std::pair{L, L}, std::pair{L, L - 7}, std::pair{L - 3000, L - 3100}}) {
        const double got = s(m, n);
        CHECK(std::isfinite(got));
        CHECK(got == doctest::Approx(exact(m, n)).epsilon(1e-4).scale(1e-4));
    }
    std::vector<float> x(8, 0.5f);
    std::vector<int32_t> past = {L + 1};
    CHECK_THROWS_WITH_AS(applyRope(x.data(), 1, 1, 8, past.data(), f, RopeLayout::half, RopeRole::key), doctest::Contains("xPos"), std::invalid_argument);

    // attention and the KV cache refuse the same positions (the cache unchanged)
    AttentionRequest r;
    r.dims = AttentionDims{1, 1, 8, 1, 1};
    r.q = qv;
    r.k = kv;
    r.v = kv;
    std::vector<std::int32_t> far = {40000};
    r.qPositions = far;
    r.kPositions = far;
    r.encoding = RopeEncoding{c, RopeLayout::half};
    CHECK_THROWS_WITH_AS(attention(r), doctest::Contains("qPositions[0]"), std::invalid_argument);
    KVCacheConfig kc;
    kc.kvHeads = 1;
    kc.headDim = 8;
    kc.capacity = 4;
    kc.rope = RopeEncoding{c, RopeLayout::half};
    KVCache cache(kc);
    std::vector<std::int32_t> ok = {L};
    cache.append(kv, kv, 1, ok);
    const auto before = cache.positions();
    CHECK_THROWS_WITH_AS(cache.append(kv, kv, 1, far), doctest::Contains("xPos"), std::invalid_argument);
    CHECK(cache.positions() == before);
    CHECK_THROWS_WITH_AS(cache.shift(10), doctest::Contains("xPos"), std::invalid_argument);
    CHECK(cache.positions() == before);
    std::vector<float> out(8);
    std::vector<std::int32_t> qp = {L};
    cache.attend(qv, 1, 1, NoEncoding{}, qp, true, out.data());
    for (float o : out) CHECK(std::isfinite(o));
}
