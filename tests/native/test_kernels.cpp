// The attention engine's SIMD kernels against their scalar twins (bit for bit where the arithmetic is
// the same) and against plain long-double / libm references (so equal twins cannot both be wrong); the
// stored K/V formats' conversions against IEEE 754's definitions and ggml's Q8_0 on hand-worked blocks.
// Compiled with one kernel set's -m flags: see kernel_tests.hpp for what that rules out here (doctest,
// static initialisers, out-of-line code shared with the rest of the program).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "kernels/attention_tile.hpp"
#include "kernels/bias.hpp"
#include "kernels/dot.hpp"
#include "kernels/kv_format.hpp"
#include "kernels/rotate.hpp"
#include "kernels/softcap.hpp"
#include "kernels/stick.hpp"
#include "kernel_tests.hpp"

using namespace posenc;

namespace {
using ld = long double;

// A template instantiated with a type of an unnamed namespace has internal linkage: vectors with this
// allocator are this file's own code, never the copy the linker keeps for the library's std::vector.
template <class T>
struct LocalAllocator {
    using value_type = T;
    LocalAllocator() = default;
    template <class U>
    LocalAllocator(const LocalAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T))); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
    template <class U>
    bool operator==(const LocalAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const LocalAllocator<U>&) const noexcept { return false; }
};
template <class T>
using Vector = std::vector<T, LocalAllocator<T>>;

// doctest::Approx(b).epsilon(eps) == a: |a - b| < eps * (1 + max(|a|, |b|)).
bool approx(double a, double b, double eps) { return std::fabs(a - b) < eps * (1 + std::fmax(std::fabs(a), std::fabs(b))); }

// Uniform floats in [lo, hi) from a seed (splitmix64): inputs for SIMD-equals-scalar comparisons.
Vector<float> randomVector(std::size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
    std::uint64_t state = seed;
    Vector<float> v(n);
    for (auto& x : v) {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        x = lo + (hi - lo) * static_cast<float>(static_cast<double>(z >> 40) / 16777216.0);
    }
    return v;
}

// Distance in units in the last place of the float nearest the exact value.
double ulpError(float got, double exact) {
    const float nearest = static_cast<float>(exact);
    const double ulp = std::nextafter(std::fabs(nearest), std::numeric_limits<float>::infinity()) - std::fabs(nearest);
    return std::fabs(static_cast<double>(got) - exact) / ulp;
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The classic bound for a float sum of n products evaluated in order: |error| <= n u sum|terms|, u = 2^-24.
double sumErrorBound(std::size_t n, ld absSum) { return 1.01 * double(n + 1) * std::ldexp(1.0, -24) * double(absSum) + 1e-30; }

void expApprox() {
    double worst = 0;
    float worstAt = 0;
    Vector<float> xs;
    for (double x = -100.0; x <= 0.0; x += 1.0 / 4099) xs.push_back(static_cast<float>(x));  // ~410k points, not grid-aligned
    for (float x : {0.0f, -0.0f, -1e-30f, -87.0f, -87.5f, -88.0f, -0.34657359f, -0.5f, -std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::max()})
        xs.push_back(x);
    Vector<float> simd(xs.size());
    kernels::expApproxSimd(xs.data(), simd.data(), xs.size());
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const float s = kernels::expApproxScalar(xs[i]);
        if (!sameBits(s, simd[i])) ++mismatches;
        if (xs[i] >= -87.0f) {
            const double e = ulpError(s, std::exp(static_cast<double>(xs[i])));
            if (e > worst) worst = e, worstAt = xs[i];
        } else if (xs[i] <= -88.0f) {
            CHECK(s == 0.0f);
        } else {  // between: 0 or a subnormal no larger than the true value's neighbourhood
            CHECK(s <= 2 * std::exp(static_cast<double>(xs[i])));
        }
    }
    CHECK(mismatches == 0);
    NOTE("worst error in ulp", worst);
    NOTE("at x", worstAt);
    CHECK(worst <= 2.0);
    CHECK(kernels::expApproxScalar(0.0f) == 1.0f);
    CHECK(kernels::expApproxScalar(-std::numeric_limits<float>::infinity()) == 0.0f);
    Vector<float> infs(16, -std::numeric_limits<float>::infinity()), out(16, 1.0f);
    kernels::expApproxSimd(infs.data(), out.data(), 16);
    for (float z : out) CHECK(z == 0.0f);
}

void rowMaxAndExpShift() {
    for (std::size_t n : {1u, 3u, 4u, 15u, 16u, 17u, 64u}) {
        auto x = randomVector(n, 5 + static_cast<unsigned>(n), -30.f, 5.f);
        if (n > 3) x[3] = -std::numeric_limits<float>::infinity();
        CHECK(kernels::rowMaxSimd(x.data(), n) == kernels::rowMaxScalar(x.data(), n));
        ld exact = 0;
        for (float v : x) exact += std::exp(ld(v) - 5);
        auto a = x, b = x;
        const float sa = kernels::expShiftScalar(a.data(), n, 5.0f), sb = kernels::expShiftSimd(b.data(), n, 5.0f);
        for (std::size_t i = 0; i < n; ++i) CHECK(sameBits(a[i], b[i]));
        if (n > 3) CHECK(b[3] == 0.0f);
        CHECK(approx(sb, sa, 1e-6));
        CHECK(approx(double(sa), double(exact), 1e-6));
    }
}

template <std::size_t R>
void checkSoftmaxTile(std::size_t n) {
    auto sc = randomVector(R * kernels::kKeyBlock, 60 + R, -8.f, 8.f);
    const float inf = std::numeric_limits<float>::infinity();
    sc[1] = -inf;  // a masked key
    if (R > 2)
        for (std::size_t t = 0; t < n; ++t) sc[2 * kernels::kKeyBlock + t] = -inf;  // a wholly masked row
    bool live[R];
    for (std::size_t r = 0; r < R; ++r) live[r] = r != 1;  // row 1 skipped
    float m0[R], l0[R];
    for (std::size_t r = 0; r < R; ++r) m0[r] = r == 0 ? -inf : 0.5f * r, l0[r] = r == 0 ? 0.f : 2.f;
    auto a = sc, b = sc;
    float ma[R], la[R], ca[R], mb[R], lb[R], cb[R];
    std::copy(m0, m0 + R, ma), std::copy(l0, l0 + R, la), std::copy(m0, m0 + R, mb), std::copy(l0, l0 + R, lb);
    const bool anyA = kernels::softmaxTileScalar<R>(a.data(), n, live, ma, la, ca);
    const bool anyB = kernels::softmaxTileSimd<R>(b.data(), n, live, mb, lb, cb);
    CHECK(anyA == anyB);
    for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t t = 0; t < n; ++t) CHECK(sameBits(a[r * kernels::kKeyBlock + t], b[r * kernels::kKeyBlock + t]));
        CHECK(sameBits(ma[r], mb[r]));
        CHECK(sameBits(ca[r], cb[r]));
        CHECK(approx(lb[r], la[r], 1e-6));
        // against the definition, in long double
        const bool wholeMasked = !live[r] || (R > 2 && r == 2);
        if (wholeMasked) {
            CHECK(ca[r] == 1.0f);
            CHECK(ma[r] == m0[r]);
            for (std::size_t t = 0; t < n; ++t) CHECK(a[r * kernels::kKeyBlock + t] == 0.0f);
            continue;
        }
        ld mx = -inf;
        for (std::size_t t = 0; t < n; ++t) mx = std::max(mx, ld(sc[r * kernels::kKeyBlock + t]));
        const ld mNew = std::max(ld(m0[r]), mx), corr = std::exp(ld(m0[r]) - mNew);
        ld sum = 0;
        for (std::size_t t = 0; t < n; ++t) {
            const ld p = std::exp(ld(sc[r * kernels::kKeyBlock + t]) - mNew);
            sum += p;
            // 2 ulp for exp, plus the float rounding of s - m (relative 2^-24 |s - m| in the result)
            const double tol = 2.4e-7 + std::ldexp(std::fabs(double(ld(sc[r * kernels::kKeyBlock + t]) - mNew)), -24);
            CHECK(approx(double(a[r * kernels::kKeyBlock + t]), double(p), tol));
        }
        CHECK(double(ma[r]) == double(mNew));
        CHECK(approx(double(ca[r]), double(corr), 3e-7));
        CHECK(approx(double(la[r]), double(ld(l0[r]) * corr + sum), 1e-6));
    }
}

// NaN and infinities (scores of +inf make inf − inf = NaN in the softmax): every kernel set must treat
// them as the scalar twins do, so that a call is refused, or not, whichever set runs it.
void nonFiniteScores() {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const auto same = [](float a, float b) { return (std::isnan(a) && std::isnan(b)) || sameBits(a, b); };
    Vector<float> xs = {nan, inf, -inf, 0.0f, nan, -1.0f, 88.0f, nan, inf, -100.0f, nan, nan, -0.5f, inf, -inf, nan, 3.0f};
    Vector<float> y(xs.size());
    kernels::expApproxSimd(xs.data(), y.data(), xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        CAPTURE(i);
        CHECK(same(y[i], kernels::expApproxScalar(xs[i])));
        if (std::isnan(xs[i])) CHECK(std::isnan(y[i]));  // NaN stays NaN (it is not clamped to the floor)
    }
    // a NaN anywhere in a row is passed over by the max, first lane included
    for (std::size_t at : {0u, 1u, 7u, 16u, 20u}) {
        Vector<float> row(33);
        for (std::size_t t = 0; t < row.size(); ++t) row[t] = -5.0f + 0.25f * static_cast<float>(t % 7);
        row[at] = nan;
        row[at == 0 ? 9 : 0] = 2.5f;  // the maximum, in the same lane as a NaN for some `at`
        CAPTURE(at);
        CHECK(kernels::rowMaxSimd(row.data(), row.size()) == kernels::rowMaxScalar(row.data(), row.size()));
        CHECK(kernels::rowMaxScalar(row.data(), row.size()) == 2.5f);
    }
    // a row of +inf scores: the same NaN weights from both (the engine's output check then refuses the call)
    Vector<float> a(2 * kernels::kKeyBlock, inf), b = a;
    bool live[2] = {true, true};
    float ma[2] = {-inf, -inf}, la[2] = {0, 0}, ca[2], mb[2] = {-inf, -inf}, lb[2] = {0, 0}, cb[2];
    CHECK(kernels::softmaxTileScalar<2>(a.data(), 5, live, ma, la, ca) == kernels::softmaxTileSimd<2>(b.data(), 5, live, mb, lb, cb));
    for (std::size_t t = 0; t < 5; ++t) CHECK(same(a[t], b[t]));
    CHECK(std::isnan(a[0]));
    for (std::size_t r = 0; r < 2; ++r) CHECK((std::isnan(la[r]) && std::isnan(lb[r])));
}

void tileSoftmax() {
    for (std::size_t n : {1u, 5u, 64u}) {
        checkSoftmaxTile<1>(n);
        checkSoftmaxTile<2>(n);
        checkSoftmaxTile<3>(n);
        checkSoftmaxTile<4>(n);
        checkSoftmaxTile<5>(n);
        checkSoftmaxTile<8>(n);
    }
}

// One row longer than a block (the engine's materialised rows): twins agree, and from the empty state
// the update is the row's max, p = exp(s - max) and their sum, bit for bit as rowMax and expShift give them.
void longRowSoftmax() {
    const float inf = std::numeric_limits<float>::infinity();
    for (std::size_t n : {65u, 150u, 300u}) {
        auto sc = randomVector(n, 90 + static_cast<unsigned>(n), -8.f, 8.f);
        sc[n > 70 ? 70 : n - 1] = -inf;  // past the first block where the row reaches that far
        const bool live = true;
        auto a = sc, b = sc, ref = sc;
        float ma = -inf, la = 0, ca, mb = -inf, lb = 0, cb;
        CHECK(kernels::softmaxTileScalar<1>(a.data(), n, &live, &ma, &la, &ca));
        CHECK(kernels::softmaxTileSimd<1>(b.data(), n, &live, &mb, &lb, &cb));
        const float m = kernels::rowMaxSimd(ref.data(), n), l = kernels::expShiftSimd(ref.data(), n, m);
        CHECK(sameBits(mb, m));
        CHECK(sameBits(lb, l));
        CHECK(cb == 0.0f);
        CHECK(sameBits(ma, mb));
        CHECK(approx(la, lb, 1e-6));
        for (std::size_t t = 0; t < n; ++t) CHECK((sameBits(a[t], b[t]) && sameBits(b[t], ref[t])));
    }
}

void packedKeys() {
    const std::size_t hd = 5, kLen = 70;
    auto K = randomVector(kLen * hd, 3);
    Vector<float> packed(kernels::packedKeysSize(kLen, hd), -1.0f);
    CHECK(packed.size() == 128 * hd);
    kernels::packKeys(K.data(), kLen, hd, packed.data());
    for (std::size_t j = 0; j < kLen; ++j)
        for (std::size_t c = 0; c < hd; ++c) CHECK(packed[j / 64 * hd * 64 + c * 64 + j % 64] == K[j * hd + c]);
    for (std::size_t j = kLen; j < 128; ++j)
        for (std::size_t c = 0; c < hd; ++c) CHECK(packed[64 * hd + c * 64 + j % 64] == 0.0f);
    Vector<float> row(hd), other = randomVector(hd, 4);
    kernels::unpackKey(packed.data(), 66, hd, row.data());
    CHECK(Vector<float>(K.begin() + 66 * hd, K.begin() + 67 * hd) == row);
    kernels::packKey(other.data(), 66, hd, packed.data());
    kernels::unpackKey(packed.data(), 66, hd, row.data());
    CHECK(row == other);
}

template <std::size_t R>
void checkScoreTile(std::size_t hd) {
    auto q = randomVector(R * hd, 10 + R);
    const std::size_t kLen = 50;  // a partial block: columns 50..63 are padding
    auto K = randomVector(kLen * hd, 20 + R);
    Vector<float> packed(kernels::packedKeysSize(kLen, hd));
    kernels::packKeys(K.data(), kLen, hd, packed.data());
    Vector<float> qT(R * hd);  // the kernel takes the tile's rows transposed
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < hd; ++c) qT[c * R + r] = q[r * hd + c];
    Vector<float> a(R * kernels::kKeyBlock), b(R * kernels::kKeyBlock);
    kernels::scoreTileScalar<R>(qT.data(), packed.data(), hd, a.data());
    kernels::scoreTileSimd<R>(qT.data(), packed.data(), hd, b.data());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(sameBits(a[i], b[i]));
    for (std::size_t cols : {1u, 9u, 33u}) {  // a diagonal block: only the first `cols` keys are scored
        Vector<float> c(R * kernels::kKeyBlock, -7.0f), e(R * kernels::kKeyBlock, -7.0f);
        kernels::scoreTileScalar<R>(qT.data(), packed.data(), hd, c.data(), cols);
        kernels::scoreTileSimd<R>(qT.data(), packed.data(), hd, e.data(), cols);
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t t = 0; t < cols; ++t) {
                CHECK(sameBits(c[r * kernels::kKeyBlock + t], a[r * kernels::kKeyBlock + t]));
                CHECK(sameBits(e[r * kernels::kKeyBlock + t], a[r * kernels::kKeyBlock + t]));
            }
    }
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t t = 0; t < kernels::kKeyBlock; ++t) {
            ld exact = 0, absSum = 0;
            if (t < kLen)
                for (std::size_t c = 0; c < hd; ++c) {
                    exact += ld(q[r * hd + c]) * K[t * hd + c];
                    absSum += std::fabs(ld(q[r * hd + c]) * K[t * hd + c]);
                }
            CHECK(std::fabs(double(a[r * kernels::kKeyBlock + t] - exact)) <= sumErrorBound(hd, absSum));
        }
}

void scoreTile() {
    for (std::size_t hd : {1u, 3u, 8u, 17u, 40u, 64u, 128u, 192u}) {  // 40, 192: MLA's q.k heads (24 + 16, 128 + 64)
        checkScoreTile<1>(hd);
        checkScoreTile<2>(hd);
        checkScoreTile<3>(hd);
        checkScoreTile<4>(hd);
        checkScoreTile<5>(hd);  // two register blocks where a block is 4 rows: 4 + 1
        checkScoreTile<6>(hd);
        checkScoreTile<7>(hd);
        checkScoreTile<8>(hd);  // every set's whole tile
    }
}

template <std::size_t R>
void checkValueTile(std::size_t hd, std::size_t n) {
    const std::size_t ps = kernels::kKeyBlock;
    auto p = randomVector(R * ps, 30 + R, 0.f, 1.f), V = randomVector(n * hd, 40 + R), o = randomVector(R * hd, 50 + R);
    float corr[R];
    for (std::size_t r = 0; r < R; ++r) corr[r] = r % 4 == 0 ? 0.5f : r % 4 == 1 ? 1.0f : r % 4 == 2 ? 0.0f : 0.25f;
    auto a = o, b = o;
    kernels::valueTileScalar<R>(p.data(), n, V.data(), hd, a.data(), corr);
    kernels::valueTileSimd<R>(p.data(), n, V.data(), hd, b.data(), corr);
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(sameBits(a[i], b[i]));
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < hd; ++c) {
            ld exact = ld(o[r * hd + c]) * corr[r], absSum = std::fabs(exact);
            for (std::size_t t = 0; t < n; ++t) {
                exact += ld(p[r * ps + t]) * V[t * hd + c];
                absSum += std::fabs(ld(p[r * ps + t]) * V[t * hd + c]);
            }
            CHECK(std::fabs(double(a[r * hd + c] - exact)) <= sumErrorBound(n + 1, absSum));
        }
}

void valueTile() {
    // the P.V kernel runs over the values' channels: valueDim when it differs from headDim (MLA: 7, 24, 128)
    for (std::size_t hd : {1u, 5u, 7u, 8u, 20u, 24u, 64u, 128u})
        for (std::size_t n : {1u, 13u, 64u}) {
            checkValueTile<1>(hd, n);
            checkValueTile<2>(hd, n);
            checkValueTile<3>(hd, n);
            checkValueTile<4>(hd, n);
            checkValueTile<5>(hd, n);
            checkValueTile<6>(hd, n);
            checkValueTile<8>(hd, n);
        }
}

void allFinite() {
    for (std::size_t n : {1u, 5u, 16u, 37u}) {
        auto x = randomVector(n, 70);
        CHECK(kernels::allFiniteSimd(x.data(), n));
        x[n / 2] = std::numeric_limits<float>::max();
        x[0] = -std::numeric_limits<float>::max();
        CHECK(kernels::allFiniteSimd(x.data(), n) == kernels::allFiniteScalar(x.data(), n));
        CHECK(kernels::allFiniteSimd(x.data(), n));
        for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})
            for (std::size_t at = 0; at < n; ++at) {
                auto y = x;
                y[at] = bad;
                CHECK(!kernels::allFiniteScalar(y.data(), n));
                CHECK(!kernels::allFiniteSimd(y.data(), n));
            }
    }
}

void dotAxpy() {
    for (std::size_t n : {1u, 7u, 16u, 33u, 128u}) {
        auto a = randomVector(n, 1), b = randomVector(n, 2);
        CHECK(approx(kernels::dotSimd(a.data(), b.data(), n), kernels::dotScalar(a.data(), b.data(), n), 1e-6));
        auto y1 = b, y2 = b;
        kernels::axpyScalar(0.37f, a.data(), y1.data(), n);
        kernels::axpySimd(0.37f, a.data(), y2.data(), n);
        CHECK(y1 == y2);
    }
}

void ropeKernels() {
    for (std::size_t h : {1u, 3u, 4u, 8u, 9u, 16u, 17u, 64u, 67u}) {
        auto x = randomVector(2 * h, static_cast<unsigned>(h));
        auto c = randomVector(2 * h, 100 + static_cast<unsigned>(h));
        auto s = randomVector(2 * h, 200 + static_cast<unsigned>(h));
        auto a = x, b = x;
        kernels::rotateHalfScalar(a.data(), a.data(), c.data(), s.data(), h);
        kernels::rotateHalfSimd(b.data(), b.data(), c.data(), s.data(), h);
        CHECK(a == b);
        a = x, b = x;
        kernels::rotateInterleavedScalar(a.data(), a.data(), c.data(), s.data(), h);
        kernels::rotateInterleavedSimd(b.data(), b.data(), c.data(), s.data(), h);
        CHECK(a == b);
        // from src into a separate dst: the in-place result, src untouched
        Vector<float> d1(2 * h, -7.0f), d2(2 * h, -7.0f), inPlace = x;
        kernels::rotateHalfScalar(inPlace.data(), inPlace.data(), c.data(), s.data(), h);
        kernels::rotateHalfScalar(d1.data(), x.data(), c.data(), s.data(), h);
        kernels::rotateHalfSimd(d2.data(), x.data(), c.data(), s.data(), h);
        CHECK(d1 == inPlace);
        CHECK(d2 == inPlace);
        inPlace = x;
        kernels::rotateInterleavedScalar(inPlace.data(), inPlace.data(), c.data(), s.data(), h);
        kernels::rotateInterleavedScalar(d1.data(), x.data(), c.data(), s.data(), h);
        kernels::rotateInterleavedSimd(d2.data(), x.data(), c.data(), s.data(), h);
        CHECK(d1 == inPlace);
        CHECK(d2 == inPlace);
        CHECK(x == randomVector(2 * h, static_cast<unsigned>(h)));
    }
    // sin/cos tables: exact reduction + xsimd's vector sincos vs libm on the unreduced angle, in double
    Vector<double> w(37);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::pow(10000.0, -2.0 * i / 74);
    for (double p : {0.0, 1.0, 4095.0, 1e6, 2147483647.0, -2147483647.0}) {
        Vector<double> c1(37), s1(37), c2(37), s2(37);
        kernels::sinCosScalar(p, w.data(), w.size(), c1.data(), s1.data());
        kernels::sinCosSimd(p, w.data(), w.size(), c2.data(), s2.data());
        for (std::size_t i = 0; i < w.size(); ++i) {
            CHECK(std::fabs(c1[i] - c2[i]) < 1e-15 * std::max(1.0, std::fabs(p * w[i])));
            CHECK(std::fabs(s1[i] - s2[i]) < 1e-15 * std::max(1.0, std::fabs(p * w[i])));
        }
    }
    // one-position steps: SIMD = scalar bit for bit; 255 steps from p = 1000 stay within 1e-12 of sin/cos(1255 w)
    Vector<double> c(37), s(37), sc(37), ss(37), c0(37), s0(37), cd(37), sd(37);
    kernels::sinCosSimd(1.0, w.data(), w.size(), sc.data(), ss.data());
    kernels::sinCosSimd(1000.0, w.data(), w.size(), c.data(), s.data());
    c0 = c, s0 = s;
    kernels::advanceScalar(c0.data(), s0.data(), sc.data(), ss.data(), 37);
    kernels::advanceSimd(c.data(), s.data(), sc.data(), ss.data(), 37);
    CHECK(c == c0);
    CHECK(s == s0);
    for (int step = 1; step < 255; ++step) kernels::advanceSimd(c.data(), s.data(), sc.data(), ss.data(), 37);
    kernels::sinCosScalar(1255.0, w.data(), w.size(), cd.data(), sd.data());
    for (std::size_t i = 0; i < w.size(); ++i) {
        CHECK(std::fabs(c[i] - cd[i]) < 1e-12);
        CHECK(std::fabs(s[i] - sd[i]) < 1e-12);
    }
}

void alibiLinearBias() {
    // distances of both signs, 0, and the int32 extremes (positions 0 and 2^31 - 1); slopes of the
    // power-of-two schedule, a non-power-of-two head count's, and one whose products overflow float
    const std::int32_t big = std::numeric_limits<std::int32_t>::max();
    const Vector<std::int32_t> keys = {0, 1, 2, 3, 7, 100, 4095, 16777217, big, big - 1, 5, 5, 6, 1 << 30, 12, 13, 11};
    for (std::int32_t q : {0, 5, 4096, 16777216, big})
        for (double m : {0.5, std::pow(2.0, -8.0 / 3), 1.0 / 256, 1e30})
            for (bool symmetric : {false, true})
                for (std::size_t n : {1u, 3u, 4u, 5u, 8u, 17u}) {
                    Vector<float> base(n);
                    for (std::size_t t = 0; t < n; ++t) base[t] = 0.25f * static_cast<float>(t) - 1.0f;
                    auto a = base, b = base;
                    kernels::linearBiasScalar(a.data(), keys.data(), n, q, -m, symmetric);
                    kernels::linearBiasSimd(b.data(), keys.data(), n, q, -m, symmetric);
                    for (std::size_t t = 0; t < n; ++t) {
                        CHECK(sameBits(a[t], b[t]));
                        const double d = static_cast<double>(q) - static_cast<double>(keys[t]);
                        const float want = base[t] + static_cast<float>(-m * (symmetric ? std::fabs(d) : d));
                        CHECK(sameBits(a[t], want));
                    }
                }
}
void softcapKernel() {
    // scores over the range attention produces (and past it), at caps Gemma 2 uses (50, 30) and others
    Vector<float> base = randomVector(1000, 91, -400.f, 400.f);
    // near 0 (where 1 - e cancels; subnormal scores), past the exponential's floor, and infinite scores
    for (float x : {0.0f, -0.0f, 1e-30f, -1e-7f, 1e-3f, -0.5f, 30.0f, -50.0f, 1e6f, -3e38f, 3e38f, 1e-40f, -1.4e-45f, 2e-4f, -3e-6f,
                    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})
        base.push_back(x);
    for (float cap : {50.0f, 30.0f, 1.0f, 0.125f, 1000.0f}) {
        CAPTURE(cap);
        for (std::size_t n : {base.size(), std::size_t(1), std::size_t(3), std::size_t(17)}) {
            Vector<float> a(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(n)), b = a;
            kernels::softcapScalar(a.data(), 1, n, cap);
            kernels::softcapSimd(b.data(), 1, n, cap);
            std::size_t mismatches = 0;
            double worst = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (!sameBits(a[i], b[i])) ++mismatches;
                const double want = double(cap) * std::tanh(double(base[i]) / double(cap));
                worst = std::max(worst, std::fabs(double(a[i]) - want) / double(cap));
                CHECK(std::fabs(a[i]) <= cap);        // never leaves [-cap, cap]
                CHECK(std::signbit(a[i]) == std::signbit(base[i]));  // odd: the sign kept, -0 included
            }
            CHECK(mismatches == 0);
            NOTE("worst error / cap", worst);
            CHECK(worst <= 2e-7);
        }
        // a tile's rows, kKeyBlock apart: each row as capped alone, the floats between rows untouched
        for (std::size_t rows : {std::size_t(1), std::size_t(3), std::size_t(8)})
            for (std::size_t n : {std::size_t(5), std::size_t(50), kernels::kKeyBlock}) {
                Vector<float> tile(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(rows * kernels::kKeyBlock)), scalar = tile;
                kernels::softcapSimd(tile.data(), rows, n, cap);
                kernels::softcapScalar(scalar.data(), rows, n, cap);
                bool same = true;
                for (std::size_t r = 0; r < rows; ++r) {
                    Vector<float> row(base.begin() + static_cast<std::ptrdiff_t>(r * kernels::kKeyBlock),
                                      base.begin() + static_cast<std::ptrdiff_t>(r * kernels::kKeyBlock + n));
                    kernels::softcapScalar(row.data(), 1, n, cap);
                    for (std::size_t i = 0; i < kernels::kKeyBlock; ++i) {
                        const float want = i < n ? row[i] : base[r * kernels::kKeyBlock + i];
                        same = same && sameBits(tile[r * kernels::kKeyBlock + i], want) && sameBits(scalar[r * kernels::kKeyBlock + i], want);
                    }
                }
                CHECK(same);
            }
    }
}

// Stick-breaking's sigmoids (kernels/stick.hpp): s <- σ(s), rest <- 1 − σ(s), against the definition
// σ(z) = 1 / (1 + e^−z) in long double; masked (−inf) logits exactly 0 and 1.
void stickSigmoidsKernel() {
    Vector<float> base = randomVector(1000, 93, -100.f, 100.f);
    const Vector<float> smallRange = randomVector(300, 94, -6.f, 6.f);
    base.insert(base.end(), smallRange.begin(), smallRange.end());
    for (float x : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -3e-6f, 0.5f, -0.5f, 16.0f, -16.0f, 80.0f, -80.0f, 87.0f, -87.0f, 88.5f, -88.5f,
                    200.0f, -200.0f, 3e38f, -3e38f, -std::numeric_limits<float>::infinity()})
        base.push_back(x);
    for (std::size_t n : {base.size(), std::size_t(1), std::size_t(3), std::size_t(17)}) {
        CAPTURE(n);
        Vector<float> a(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(n)), b = a, ra(n), rb(n);
        kernels::stickSigmoidsScalar(a.data(), ra.data(), 1, n);
        kernels::stickSigmoidsSimd(b.data(), rb.data(), 1, n);
        std::size_t mismatches = 0;
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!sameBits(a[i], b[i]) || !sameBits(ra[i], rb[i])) ++mismatches;
            const ld z = base[i];
            const ld sigma = 1 / (1 + std::exp(-z)), rest = 1 / (1 + std::exp(z));
            CHECK(a[i] >= 0 && a[i] <= 1 && ra[i] >= 0 && ra[i] <= 1);
            if (std::fabs(z) <= 80) {  // both sides normal floats: relative error
                worst = std::max(worst, double(std::fabs((ld(a[i]) - sigma) / sigma)));
                worst = std::max(worst, double(std::fabs((ld(ra[i]) - rest) / rest)));
            } else {  // past e^-80 the small side may flush to 0: absolute error
                CHECK(std::fabs(ld(a[i]) - sigma) <= 1e-34L);
                CHECK(std::fabs(ld(ra[i]) - rest) <= 1e-34L);
            }
        }
        CHECK(mismatches == 0);
        NOTE("worst relative error", worst);
        CHECK(worst <= 6e-7);
    }
    // masked: exactly σ = 0 and 1 − σ = 1
    float m = -std::numeric_limits<float>::infinity(), r = -1;
    kernels::stickSigmoidsSimd(&m, &r, 1, 1);
    CHECK(m == 0.0f && r == 1.0f);
    // a tile's rows, kKeyBlock apart: each row as alone, the floats between rows untouched
    for (std::size_t rows : {std::size_t(1), std::size_t(3), std::size_t(8)})
        for (std::size_t n : {std::size_t(5), std::size_t(50), kernels::kKeyBlock}) {
            Vector<float> tile(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(rows * kernels::kKeyBlock)), scalar = tile;
            Vector<float> restTile(rows * kernels::kKeyBlock, 7.0f), restScalar = restTile;
            kernels::stickSigmoidsSimd(tile.data(), restTile.data(), rows, n);
            kernels::stickSigmoidsScalar(scalar.data(), restScalar.data(), rows, n);
            bool same = true;
            for (std::size_t row = 0; row < rows; ++row) {
                Vector<float> alone(base.begin() + static_cast<std::ptrdiff_t>(row * kernels::kKeyBlock),
                                    base.begin() + static_cast<std::ptrdiff_t>(row * kernels::kKeyBlock + n)), restAlone(n);
                kernels::stickSigmoidsScalar(alone.data(), restAlone.data(), 1, n);
                for (std::size_t i = 0; i < kernels::kKeyBlock; ++i) {
                    const std::size_t at = row * kernels::kKeyBlock + i;
                    const float want = i < n ? alone[i] : base[at], wantRest = i < n ? restAlone[i] : 7.0f;
                    same = same && sameBits(tile[at], want) && sameBits(scalar[at], want) && sameBits(restTile[at], wantRest) && sameBits(restScalar[at], wantRest);
                }
            }
            CHECK(same);
        }
}

// --- stored K/V formats (kernels/kv_format.hpp) -----------------------------------------------------
// binary16's value from its fields, as IEEE 754 defines it: exponent 0 is subnormal m·2^-24, 1..30
// normal (1024 + m)·2^(e-25), 31 infinity (m = 0) or NaN.
double f16Value(std::uint32_t h) {
    const int e = static_cast<int>((h >> 10) & 31), m = static_cast<int>(h & 1023);
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31) return m ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
    return sign * (e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25));
}
float fromBits(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
bool sameValue(float a, double want) { return std::isnan(want) ? std::isnan(a) : double(a) == want && std::signbit(a) == std::signbit(want); }

void f16Conversions() {
    // float bits -> binary16 bits, worked by hand from round-to-nearest-even (each also what numpy's
    // float16 cast gives); the ties are the interesting rows.
    struct Case {
        std::uint32_t f;
        std::uint16_t h;
    };
    const Case cases[] = {
        {0x00000000, 0x0000}, {0x80000000, 0x8000}, {0x3f800000, 0x3c00} /* 1 */, {0xc0000000, 0xc000} /* -2 */,
        {0x477fe000, 0x7bff} /* 65504, the largest half */, {0x477fefff, 0x7bff} /* 65519.996: below the midpoint to 65536 */,
        {0x477ff000, 0x7c00} /* 65520: the midpoint, to even: infinity */, {0x49742400, 0x7c00} /* 1e6 */, {0x7f800000, 0x7c00}, {0xff800000, 0xfc00},
        {0x38800000, 0x0400} /* 2^-14, the smallest normal */, {0x387fe000, 0x0400} /* 1023.5·2^-24: tie, to even 1024 */,
        {0x387fdfff, 0x03ff} /* just below that tie */, {0x387fc000, 0x03ff} /* 1023·2^-24, the largest subnormal */,
        {0x33800000, 0x0001} /* 2^-24, the smallest subnormal */, {0x33000000, 0x0000} /* 2^-25: tie between 0 and 2^-24, to even 0 */,
        {0x33000001, 0x0001}, {0x32ffffff, 0x0000}, {0x33c00000, 0x0002} /* 1.5·2^-24: tie, to even 2 */, {0x34200000, 0x0002} /* 2.5·2^-24: tie, to even 2 */,
        {0x3f801000, 0x3c00} /* 1 + 2^-11: tie, to even */, {0x3f803000, 0x3c02} /* 1 + 3·2^-11: tie, to even */, {0x3f801001, 0x3c01},
        {0x45001000, 0x6800} /* 2049: tie between 2048 and 2050 */, {0x45003000, 0x6802} /* 2051: tie between 2050 and 2052 */,
        {0x3dcccccd, 0x2e66} /* 0.1f */, {0x3eaaaaab, 0x3555} /* 1/3 */, {0xc2f6e979, 0xd7b7} /* -123.456f */,
    };
    for (const Case& c : cases) {
        CAPTURE(c.f);
        CHECK(kernels::floatToF16(fromBits(c.f)) == c.h);
    }
    const std::uint16_t nan = kernels::floatToF16(std::numeric_limits<float>::quiet_NaN());
    CHECK(((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0));
    CHECK(kernels::floatToF16(-std::numeric_limits<float>::quiet_NaN()) >= 0xfc01);
    // every binary16 pattern: its IEEE value, and back to the same bits (finite ones)
    std::size_t wrongValue = 0, wrongBack = 0;
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const float f = kernels::f16ToFloat(static_cast<std::uint16_t>(h));
        if (!sameValue(f, f16Value(h))) ++wrongValue;
        if (!std::isnan(f) && kernels::floatToF16(f) != h) ++wrongBack;
    }
    CHECK(wrongValue == 0);
    CHECK(wrongBack == 0);
    // every rounding boundary: the float midway between two neighbouring halves (exact: 12 significant
    // bits) goes to the even one, the floats just below and above it to their side; both signs
    std::size_t wrongTie = 0, wrongSide = 0;
    for (std::uint32_t h = 0; h < 0x7bff; ++h) {
        const double mid = (f16Value(h) + f16Value(h + 1)) / 2;
        const float m = static_cast<float>(mid);
        if (double(m) != mid) ++wrongTie;
        for (const float sign : {1.0f, -1.0f}) {
            const std::uint32_t s = sign < 0 ? 0x8000u : 0u;
            if (kernels::floatToF16(sign * m) != (s | (h % 2 == 0 ? h : h + 1))) ++wrongTie;
            if (kernels::floatToF16(sign * std::nextafter(m, 0.0f)) != (s | h)) ++wrongSide;
            if (kernels::floatToF16(sign * std::nextafter(m, 1e30f)) != (s | (h + 1))) ++wrongSide;
        }
    }
    CHECK(wrongTie == 0);
    CHECK(wrongSide == 0);
}

void bf16Conversions() {
    struct Case {
        std::uint32_t f;
        std::uint16_t h;
    };
    const Case cases[] = {
        {0x3f800000, 0x3f80} /* 1 */, {0x3f808000, 0x3f80} /* 1 + 2^-8: tie, to even */, {0x3f818000, 0x3f82} /* tie, to even */,
        {0x3f80ffff, 0x3f81}, {0xbf808001, 0xbf81}, {0x7f7f0000, 0x7f7f} /* the largest bfloat16, 3.3895314e38 */,
        {0x7f7f7fff, 0x7f7f}, {0x7f7f8000, 0x7f80} /* tie above the largest: to even, infinity */, {0x7f7fffff, 0x7f80} /* FLT_MAX: infinity */,
        {0x00008000, 0x0000} /* subnormal tie, to even 0 */, {0x00018000, 0x0002}, {0x80000000, 0x8000}, {0xff800000, 0xff80},
    };
    for (const Case& c : cases) {
        CAPTURE(c.f);
        CHECK(kernels::floatToBf16(fromBits(c.f)) == c.h);
    }
    CHECK(kernels::floatToBf16(fromBits(0x7fc00001)) == 0x7fc0);  // a NaN stays a quiet NaN
    CHECK(kernels::floatToBf16(fromBits(0x7f800001)) == 0x7fc0);  // signalling: quieted (ggml, PyTorch)
    std::size_t wrong = 0;
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const float f = kernels::bf16ToFloat(static_cast<std::uint16_t>(h));
        const std::uint32_t u = h << 16;
        if (std::memcmp(&f, &u, sizeof f) != 0) ++wrong;  // the float whose top half it is
        if (!std::isnan(f) && kernels::floatToBf16(f) != h) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK(kernels::bf16ToFloat(0x0001) == std::ldexp(1.0f, -133));
}

// The vector loads convert every pattern as their scalar twins do, bit for bit (NaN payloads too); the
// kernels' f16 conversion (finite halves only) against IEEE 754's values.
void halfLoads() {
#if POSENC_SIMD
    Vector<std::uint16_t> all(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<std::uint16_t>(h);
    Vector<float> f16(65536), bf16(65536);
    for (std::size_t i = 0; i < all.size(); i += kernels::kFloatLanes) {
        kernels::F16Format::lanes(all.data() + i).store_unaligned(f16.data() + i);
        kernels::Bf16Format::lanes(all.data() + i).store_unaligned(bf16.data() + i);
    }
    std::size_t mismatches = 0;
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const float a = kernels::f16ToFloatFinite(static_cast<std::uint16_t>(h)), b = kernels::bf16ToFloat(static_cast<std::uint16_t>(h));
        mismatches += !sameBits(f16[h], a) + !sameBits(bf16[h], b);
    }
    CHECK(mismatches == 0);
#endif
    // the kernels' f16 conversion is IEEE's for every finite half (the kernels never see another)
    std::size_t wrong = 0;
    for (std::uint32_t h = 0; h < 65536; ++h)
        if ((h & 0x7c00) != 0x7c00 && !sameValue(kernels::f16ToFloatFinite(static_cast<std::uint16_t>(h)), f16Value(h))) ++wrong;
    CHECK(wrong == 0);
#if POSENC_SIMD
    // int8 lanes: every value, sign-extended
    Vector<std::int8_t> bytes(256);
    for (int i = 0; i < 256; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i - 128);
    for (const std::size_t V : {1u, 2u, 4u}) {
        Vector<float> q(256 + 4 * kernels::kFloatLanes);
        for (std::size_t i = 0; i < 256; i += V * kernels::kFloatLanes) {
            kernels::IntBatch qi[4];
            if (V == 1) kernels::loadI8(bytes.data() + i, reinterpret_cast<kernels::IntBatch(&)[1]>(qi));
            if (V == 2) kernels::loadI8(bytes.data() + i, reinterpret_cast<kernels::IntBatch(&)[2]>(qi));
            if (V == 4) kernels::loadI8(bytes.data() + i, qi);
            for (std::size_t v = 0; v < V; ++v) kernels::smallIntToFloat(qi[v]).store_unaligned(q.data() + i + v * kernels::kFloatLanes);
        }
        CAPTURE(V);
        for (int i = 0; i < 256; ++i) CHECK(q[static_cast<std::size_t>(i)] == static_cast<float>(i - 128));
    }
#endif
}

// ggml's Q8_0 (ggml-org/ggml src/ggml-quants.c:276 quantize_row_q8_0_ref, :553 dequantize_row_q8_0, at
// d99724f; block_q8_0 in src/ggml-common.h:251), on blocks worked by hand: amax = max |x|, d = amax / 127,
// the scale stored as fp16(d), q = roundf(x / d) (halves away from zero), a value read back as q · fp16(d).
void q8Blocks() {
    struct Block {
        float x[32];
        std::uint16_t scale;  // fp16 bits
        std::int8_t q[32];
        float back[32];  // q · fp16(d), exact
    };
    Block blocks[3] = {};
    // 1: amax 127, so d = 1 and q = roundf(x): 2.5 -> 3 and -2.5 -> -3 (not to even), 0.49 -> 0, -0.51 -> -1
    const float x1[16] = {127, -127, 2.5f, -2.5f, 0.5f, -0.5f, 0.49f, -0.51f, 1.5f, 3.5f, 100.4f, -100.6f, 0, -0.0f, 126.5f, 64};
    const std::int8_t q1[16] = {127, -127, 3, -3, 1, -1, 0, -1, 2, 4, 100, -101, 0, 0, 127, 64};
    for (int j = 0; j < 32; ++j) {
        blocks[0].x[j] = j < 16 ? x1[j] : static_cast<float>(j - 24);
        blocks[0].q[j] = j < 16 ? q1[j] : static_cast<std::int8_t>(j - 24);
        blocks[0].back[j] = blocks[0].q[j];
    }
    blocks[0].scale = 0x3c00;
    // 2: amax 0.5: d = 0.5 / 127 = 0.0039370079 (float), 1 / d = 254; fp16(d) = 0x1c08 = 2^-8 · 1.0078125 =
    // 0.003936767578125, so 0.5 reads back as 127 · that = 0.499969482421875 (the scale's rounding)
    const float x2[5] = {0.5f, -0.3f, 0.1f, 0.003f, 0.0019f};
    const std::int8_t q2[5] = {127, -76, 25, 1, 0};  // 254 x: 127, -76.2, 25.4, 0.762, 0.4826
    for (int j = 0; j < 5; ++j) blocks[1].x[j] = x2[j], blocks[1].q[j] = q2[j];
    blocks[1].scale = 0x1c08;
    const float back2[5] = {0.499969482421875f, -0.2991943359375f, 0.098419189453125f, 0.003936767578125f, 0.0f};
    for (int j = 0; j < 5; ++j) blocks[1].back[j] = back2[j];
    // 3: all zeros: d = 0, id = 0, every q 0 (blocks[2] as initialised)
    for (const Block& b : blocks) {
        unsigned char got[kernels::kQ8BlockBytes];
        kernels::quantizeQ8Block(b.x, got);
        CHECK(got[0] == (b.scale & 0xff));  // little-endian, as ggml's struct on every platform posenc builds for
        CHECK(got[1] == (b.scale >> 8));
        float back[32];
        kernels::dequantizeQ8Block(got, back);
        for (int j = 0; j < 32; ++j) {
            CAPTURE(j);
            CHECK(static_cast<std::int8_t>(got[2 + j]) == b.q[j]);
            CHECK(sameBits(back[j], b.back[j]) || (back[j] == 0 && b.back[j] == 0));  // -0 · d or 0 · -d: a zero either way
        }
    }
    // a scale beyond fp16: amax 1e7 gives d = 78740.16, fp16 infinity (the cache refuses such a block)
    float big[32] = {1e7f};
    unsigned char got[kernels::kQ8BlockBytes];
    kernels::quantizeQ8Block(big, got);
    CHECK(kernels::loadU16(got) == 0x7c00);
    // below fp16's range: amax 1e-39 (a subnormal float), d = 7.9e-42 whose 1 / d overflows: scale 0, q 0
    float tiny[32] = {1e-39f, -5e-40f};
    kernels::quantizeQ8Block(tiny, got);
    CHECK(kernels::loadU16(got) == 0);
    for (int j = 0; j < 32; ++j) CHECK(got[2 + j] == 0);
}

// Stored keys and values read by the tile kernels: SIMD equals scalar bit for bit, and both equal the
// float kernels over the floats the stored elements stand for (the conversions are exact), so every
// format computes exactly the float32 attention over its stored values.
template <class Fmt>
Vector<std::uint16_t> halfBits(std::size_t n, unsigned seed) {
    auto x = randomVector(n, seed, -4.f, 4.f);
    Vector<std::uint16_t> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = Fmt::id == kernels::kFormatF16 ? kernels::floatToF16(x[i]) : kernels::floatToBf16(x[i]);
    if (n > 3) h[1] = 0x0003, h[2] = 0x8000, h[3] = 0x8201;  // a subnormal (f16; bf16: tiny), -0, a negative subnormal
    return h;
}
template <class Fmt>
Vector<float> halfFloats(const Vector<std::uint16_t>& h) {
    Vector<float> f(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) f[i] = Fmt::at(&h[i]);
    return f;
}

template <std::size_t R, class Fmt>
void checkScoreTileHalf(std::size_t hd) {
    const std::size_t kLen = 50;  // a partial block
    const auto qT = randomVector(R * hd, 110 + R);
    const auto bits = halfBits<Fmt>(kLen * hd, 120 + static_cast<unsigned>(R));
    const auto K = halfFloats<Fmt>(bits);
    Vector<std::uint16_t> packed(kernels::packedKeysSize(kLen, hd));
    Vector<float> packedFloats(kernels::packedKeysSize(kLen, hd));
    kernels::packKeys(bits.data(), kLen, hd, packed.data());
    kernels::packKeys(K.data(), kLen, hd, packedFloats.data());
    for (std::size_t cols : {std::size_t(64), std::size_t(9)}) {
        Vector<float> a(R * kernels::kKeyBlock, -7.f), b = a, c = a;
        kernels::scoreTileScalar<R, Fmt>(qT.data(), packed.data(), hd, a.data(), cols);
        kernels::scoreTileSimd<R, Fmt>(qT.data(), packed.data(), hd, b.data(), cols);
        kernels::scoreTileSimd<R>(qT.data(), packedFloats.data(), hd, c.data(), cols);
        std::size_t mismatches = 0;
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t t = 0; t < cols; ++t) mismatches += !sameBits(a[r * 64 + t], b[r * 64 + t]) + !sameBits(b[r * 64 + t], c[r * 64 + t]);
        CHECK(mismatches == 0);
    }
}

template <std::size_t R>
void checkScoreTileQ8(std::size_t hd) {
    const std::size_t kLen = 50;
    const auto qT = randomVector(R * hd, 130 + R);
    auto K = randomVector(kLen * hd, 140 + static_cast<unsigned>(R), -3.f, 3.f);
    for (std::size_t c = 0; c < 32; ++c) K[5 * hd + c] = 0;  // a block of zeros (scale 0)
    Vector<unsigned char> packed(kernels::packedKeyBytes(kernels::kFormatQ8, kLen, hd));
    for (std::size_t j = 0; j < kLen; ++j) kernels::storeKey(kernels::kFormatQ8, K.data() + j * hd, j, hd, packed.data());
    Vector<float> decoded(kLen * hd), packedFloats(kernels::packedKeysSize(kLen, hd));
    for (std::size_t j = 0; j < kLen; ++j) kernels::loadKey(kernels::kFormatQ8, packed.data(), j, hd, decoded.data() + j * hd);
    kernels::packKeys(decoded.data(), kLen, hd, packedFloats.data());
    // the stored key is ggml's block of each 32 channels, and reads back as its dequantisation
    unsigned char block[kernels::kQ8BlockBytes];
    float back[32];
    kernels::quantizeQ8Block(K.data() + 7 * hd + 32 * (hd / 32 - 1), block);
    kernels::dequantizeQ8Block(block, back);
    for (std::size_t c = 0; c < 32; ++c) CHECK(sameBits(back[c], decoded[7 * hd + 32 * (hd / 32 - 1) + c]));
    for (std::size_t cols : {std::size_t(64), std::size_t(9)}) {
        Vector<float> a(R * kernels::kKeyBlock, -7.f), b = a, c = a;
        kernels::scoreTileQ8Scalar<R>(qT.data(), packed.data(), hd, a.data(), cols);
        kernels::scoreTileQ8Simd<R>(qT.data(), packed.data(), hd, b.data(), cols);
        kernels::scoreTileSimd<R>(qT.data(), packedFloats.data(), hd, c.data(), cols);
        std::size_t mismatches = 0;
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t t = 0; t < cols; ++t) mismatches += !sameBits(a[r * 64 + t], b[r * 64 + t]) + !sameBits(b[r * 64 + t], c[r * 64 + t]);
        CHECK(mismatches == 0);
    }
}

void scoreTileFormats() {
    for (std::size_t hd : {1u, 3u, 8u, 17u, 64u, 128u}) {
        checkScoreTileHalf<1, kernels::F16Format>(hd), checkScoreTileHalf<2, kernels::F16Format>(hd), checkScoreTileHalf<3, kernels::F16Format>(hd);
        checkScoreTileHalf<4, kernels::F16Format>(hd), checkScoreTileHalf<5, kernels::F16Format>(hd), checkScoreTileHalf<8, kernels::F16Format>(hd);
        checkScoreTileHalf<1, kernels::Bf16Format>(hd), checkScoreTileHalf<4, kernels::Bf16Format>(hd), checkScoreTileHalf<7, kernels::Bf16Format>(hd);
    }
    for (std::size_t hd : {32u, 64u, 96u, 128u}) {
        checkScoreTileQ8<1>(hd), checkScoreTileQ8<2>(hd), checkScoreTileQ8<3>(hd), checkScoreTileQ8<4>(hd);
        checkScoreTileQ8<5>(hd), checkScoreTileQ8<6>(hd), checkScoreTileQ8<8>(hd);
    }
}

template <std::size_t R, class Fmt>
void checkValueTileHalf(std::size_t hd, std::size_t n) {
    auto p = randomVector(R * 64 > n ? R * 64 : n, 150 + R, 0.f, 1.f), o = randomVector(R * hd, 160 + R);
    const auto bits = halfBits<Fmt>(n * hd, 170 + static_cast<unsigned>(R));
    const auto V = halfFloats<Fmt>(bits);
    float corr[R];
    for (std::size_t r = 0; r < R; ++r) corr[r] = r % 3 == 0 ? 0.5f : r % 3 == 1 ? 1.0f : 0.0f;
    auto a = o, b = o, c = o;
    kernels::valueTileScalar<R, Fmt>(p.data(), n, bits.data(), hd, a.data(), corr);
    kernels::valueTileSimd<R, Fmt>(p.data(), n, bits.data(), hd, b.data(), corr);
    kernels::valueTileSimd<R>(p.data(), n, V.data(), hd, c.data(), corr);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < a.size(); ++i) mismatches += !sameBits(a[i], b[i]) + !sameBits(b[i], c[i]);
    CHECK(mismatches == 0);
}

template <std::size_t R>
void checkValueTileQ8(std::size_t hd, std::size_t n) {
    auto p = randomVector(R * 64 > n ? R * 64 : n, 180 + R, 0.f, 1.f), o = randomVector(R * hd, 190 + R);
    const auto raw = randomVector(n * hd, 200 + static_cast<unsigned>(R), -2.f, 2.f);
    const std::size_t row = kernels::valueRowBytes(kernels::kFormatQ8, hd);
    Vector<unsigned char> V(n * row);
    Vector<float> decoded(n * hd);
    for (std::size_t t = 0; t < n; ++t) {
        kernels::storeValue(kernels::kFormatQ8, raw.data() + t * hd, hd, V.data() + t * row);
        kernels::loadValue(kernels::kFormatQ8, V.data() + t * row, hd, decoded.data() + t * hd);
    }
    float corr[R];
    for (std::size_t r = 0; r < R; ++r) corr[r] = r % 3 == 0 ? 0.25f : r % 3 == 1 ? 1.0f : 0.0f;
    auto a = o, b = o, c = o;
    kernels::valueTileQ8Scalar<R>(p.data(), n, V.data(), hd, a.data(), corr);
    kernels::valueTileQ8Simd<R>(p.data(), n, V.data(), hd, b.data(), corr);
    kernels::valueTileSimd<R>(p.data(), n, decoded.data(), hd, c.data(), corr);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < a.size(); ++i) mismatches += !sameBits(a[i], b[i]) + !sameBits(b[i], c[i]);
    CHECK(mismatches == 0);
    // a value row is ggml's blocks, byte for byte
    unsigned char block[kernels::kQ8BlockBytes];
    kernels::quantizeQ8Block(raw.data() + (n - 1) * hd + hd - 32, block);
    CHECK(std::memcmp(block, V.data() + (n - 1) * row + row - kernels::kQ8BlockBytes, sizeof block) == 0);
}

void valueTileFormats() {
    for (std::size_t hd : {1u, 5u, 8u, 20u, 64u})
        for (std::size_t n : {1u, 13u, 64u}) {
            checkValueTileHalf<1, kernels::F16Format>(hd, n), checkValueTileHalf<2, kernels::F16Format>(hd, n), checkValueTileHalf<3, kernels::F16Format>(hd, n);
            checkValueTileHalf<4, kernels::F16Format>(hd, n), checkValueTileHalf<5, kernels::F16Format>(hd, n), checkValueTileHalf<8, kernels::F16Format>(hd, n);
            checkValueTileHalf<1, kernels::Bf16Format>(hd, n), checkValueTileHalf<4, kernels::Bf16Format>(hd, n), checkValueTileHalf<6, kernels::Bf16Format>(hd, n);
        }
    for (std::size_t hd : {3u, 24u}) checkValueTileHalf<1, kernels::F16Format>(hd, 150);  // one row longer than a block (the materialised path)
    for (std::size_t hd : {32u, 64u, 96u, 128u})
        for (std::size_t n : {1u, 13u, 64u}) {
            checkValueTileQ8<1>(hd, n), checkValueTileQ8<2>(hd, n), checkValueTileQ8<3>(hd, n), checkValueTileQ8<4>(hd, n);
            checkValueTileQ8<5>(hd, n), checkValueTileQ8<8>(hd, n);
        }
    checkValueTileQ8<1>(64, 150);
    checkValueTileQ8<1>(2048, 150);  // rows' scales in passes of 32 rows (64 blocks per row)
    checkValueTileQ8<2>(2048, 64);
}
}  // namespace

// The cases above, registered with doctest by kernel_tests_register.cpp (compiled with the default
// flags): this table is constant-initialised, so this file runs nothing before main() asks the CPU.
extern const KernelTestCase kKernelTestCases[] = {
    {"expApprox: within 2 ulp of exp on [-87, 0], exactly 0 from -88 and at -inf; SIMD equals scalar bit for bit", expApprox},
    {"row max and exp-shift: SIMD equals scalar (exponentials bit for bit, sums to float rounding)", rowMaxAndExpShift},
    {"exp, row max and tile softmax on NaN and infinite scores: SIMD equals scalar", nonFiniteScores},
    {"tile softmax (online max, rescale, weights): SIMD equals scalar, both equal the definition", tileSoftmax},
    {"tile softmax of one row longer than a block: SIMD equals scalar, and equals row max + exp-shift from the empty state", longRowSoftmax},
    {"packed keys: key j channel c at block(j)*hd*64 + c*64 + j mod 64, zero padding, round trip", packedKeys},
    {"score tile (Q.K^T micro-kernel): SIMD equals scalar bit for bit, for 1..8 rows and odd head dims", scoreTile},
    {"value tile (O = O.corr + P.V micro-kernel): SIMD equals scalar bit for bit, for 1..8 rows and odd head dims", valueTile},
    {"all-finite check: SIMD equals scalar for NaN, +-inf and the largest finite floats at every position", allFinite},
    {"dot / axpy SIMD kernels equal their scalar references", dotAxpy},
    {"RoPE kernels (rotations, sin/cos tables, one-position steps): SIMD equals scalar", ropeKernels},
    {"ALiBi linear bias: SIMD equals scalar bit for bit, both the double-product definition, symmetric or not", alibiLinearBias},
    {"logit soft-capping: SIMD equals scalar bit for bit, both within 2e-7 cap of cap tanh(s / cap), odd, bounded; a tile's rows each as alone", softcapKernel},
    {"stick-breaking sigmoids: SIMD equals scalar bit for bit, both within 6e-7 of 1/(1 + e^-z) and 1/(1 + e^z), masked exactly 0 and 1; a tile's rows each as alone", stickSigmoidsKernel},
    {"float16 conversions: hand-worked ties, every pattern's IEEE value, every rounding boundary", f16Conversions},
    {"bfloat16 conversions: hand-worked ties, overflow to infinity, every pattern", bf16Conversions},
    {"f16 / bf16 / int8 vector loads convert every pattern as their scalar twins, bit for bit; the kernels' f16 is IEEE's for every finite half", halfLoads},
    {"Q8_0 blocks as ggml's quantize_row_q8_0_ref / dequantize_row_q8_0, on hand-worked blocks", q8Blocks},
    {"score tile over f16 / bf16 / q8 keys: SIMD equals scalar equals the float kernel over the stored values", scoreTileFormats},
    {"value tile over f16 / bf16 / q8 values: SIMD equals scalar equals the float kernel over the stored values", valueTileFormats},
};
extern const std::size_t kKernelTestCaseCount = sizeof kKernelTestCases / sizeof kKernelTestCases[0];
