// LieRE (Ostmeier et al. 2024, "LieRE: Generalizing Rotary Position Encodings", arXiv 2406.10322): block j
// of a head's rotated channels turns into R(p) x_j with R(p) = exp(sum_a p_a G[a, j]), G skew-symmetric
// generators per axis (multiAxis 'liere'). The references here are written from that definition in long
// double: the closed forms of exp (b = 2: a plane rotation; b = 3: Rodrigues' formula), and rotations in a
// basis where exp is block-diagonal.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <vector>

#include <posenc/posenc.hpp>
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {

// A random b x b skew-symmetric matrix per (axis, block), entries in [-scale, scale], exactly skew in float.
std::vector<float> skewGenerators(int axes, int blocks, int b, unsigned seed, float scale = 1) {
    const auto r = ref::randomVector(static_cast<std::size_t>(axes) * blocks * b * b, seed, -scale, scale);
    std::vector<float> g(r.size(), 0.f);
    for (int m = 0; m < axes * blocks; ++m)
        for (int i = 0; i < b; ++i)
            for (int j = i + 1; j < b; ++j) {
                const std::size_t at = static_cast<std::size_t>(m) * b * b;
                g[at + i * b + j] = r[at + i * b + j];
                g[at + j * b + i] = -r[at + i * b + j];
            }
    return g;
}

RopeConfig liereConfig(int headDim, int b, std::vector<float> g) {
    RopeConfig c;
    c.headDim = headDim;
    c.multiAxis = MultiAxis::liere;
    c.blockSize = b;
    c.generators = std::move(g);
    return c;
}

ld maxErr(const double* got, const std::vector<ld>& want) {
    ld e = 0;
    for (std::size_t i = 0; i < want.size(); ++i) e = std::max(e, std::fabs(ld(got[i]) - want[i]));
    return e;
}

// Q = a signed permutation (exact), D = diag of 2 x 2 blocks theta_k J: G = Q D Q^T is skew-symmetric and
// exp(p G) = Q exp(p D) Q^T, exp(p D) the plane rotations by p theta_k: a closed form for b = 4.
struct Conjugated {
    std::vector<int> perm = {2, 0, 3, 1};
    std::vector<ld> sign = {1, -1, -1, 1};
    std::vector<ld> theta;
    ld Q(int i, int j) const { return perm[j] == i ? sign[j] : 0; }
    std::vector<ld> D(ld p) const {  // exp(p D)
        std::vector<ld> R(16, 0);
        for (int k = 0; k < 2; ++k) {
            const ld c = std::cos(p * theta[k]), s = std::sin(p * theta[k]);
            R[(2 * k) * 4 + 2 * k] = c, R[(2 * k) * 4 + 2 * k + 1] = -s, R[(2 * k + 1) * 4 + 2 * k] = s, R[(2 * k + 1) * 4 + 2 * k + 1] = c;
        }
        return R;
    }
    std::vector<ld> conj(const std::vector<ld>& M) const {  // Q M Q^T
        std::vector<ld> out(16, 0);
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                for (int a = 0; a < 4; ++a)
                    for (int c = 0; c < 4; ++c) out[i * 4 + j] += Q(i, a) * M[a * 4 + c] * Q(j, c);
        return out;
    }
    std::vector<ld> generator() const {  // Q D Q^T with D = blocks theta_k J
        std::vector<ld> d(16, 0);
        for (int k = 0; k < 2; ++k) d[(2 * k + 1) * 4 + 2 * k] = theta[k], d[(2 * k) * 4 + 2 * k + 1] = -theta[k];
        return conj(d);
    }
};

}  // namespace

TEST_CASE("LieRE matrixExp: the plane rotation (b = 2), Rodrigues (b = 3), a conjugated block rotation (b = 4), orthogonality") {
    // b = 2: exp([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]] (hand-worked closed form)
    for (double t : {0.0, 0.3, -2.5, 1000.0, 0.7 * 16777216.0, 0.9 * 2147483648.0}) {
        const double A[4] = {0, -t, t, 0};
        double M[4];
        matrixExp(A, 2, M);
        const ld c = std::cos(ld(t)), s = std::sin(ld(t));
        CAPTURE(t);
        // scaling and squaring: each of its ~log2|t| squarings at most doubles the rounding error, so the
        // error stays within a few ulps of |t| (|t| eps): 2e-9 at 2^24, 3e-7 at 2^31 (see docs/conventions.md)
        CHECK(maxErr(M, {c, -s, s, c}) <= 1e-15 + std::fabs(t) * 8 * 1.1e-16);
    }
    // b = 3: Rodrigues' formula
    const auto g = skewGenerators(1, 1, 3, 5);
    for (double p : {0.0, 1.0, 17.0, 16777219.0}) {
        double A[9];
        ld Al[9];
        for (int e = 0; e < 9; ++e) A[e] = p * g[e], Al[e] = ld(p) * g[e];
        double M[9];
        matrixExp(A, 3, M);
        CAPTURE(p);
        CHECK(maxErr(M, ref::rodrigues(Al)) <= 1e-15 + p * 8 * 1.1e-16);
    }
    // b = 4 at 2^24 + 3: Q exp(p D) Q^T
    Conjugated cj;
    cj.theta = {0.8125L, -0.15625L};  // exact in float and double
    const auto G = cj.generator();
    for (double p : {5.0, 16777219.0}) {
        double A[16], M[16];
        for (int e = 0; e < 16; ++e) A[e] = p * static_cast<double>(G[e]);
        matrixExp(A, 4, M);
        CAPTURE(p);
        CHECK(maxErr(M, cj.conj(cj.D(p))) <= 1e-15 + p * 0.8125 * 16 * 1.1e-16);
    }
    // orthogonality of larger blocks: M M^T = I
    for (int b : {4, 5, 8}) {
        const auto h = skewGenerators(1, 1, b, 40u + static_cast<unsigned>(b), 3);
        std::vector<double> A(static_cast<std::size_t>(b) * b), M(A.size());
        for (std::size_t e = 0; e < A.size(); ++e) A[e] = 37.0 * h[e];
        matrixExp(A.data(), b, M.data());
        double worst = 0;
        for (int i = 0; i < b; ++i)
            for (int j = 0; j < b; ++j) {
                double s = 0;
                for (int m = 0; m < b; ++m) s += M[i * b + m] * M[j * b + m];
                worst = std::max(worst, std::fabs(s - (i == j ? 1.0 : 0.0)));
            }
        CAPTURE(b);
        CHECK(worst < 1e-12);
    }
}

TEST_CASE("LieRE with block size 2 is 2-D axial RoPE (RoPE-ViT), interleaved pairs, at positions up to 2^24") {
    // axial2d, headDim 16, base 16: pair k < 4 turns by x * 2^-k, pair 4 + k by y * 2^-k (w = 16^(-4k/16)).
    // As LieRE: block k (channels 2k, 2k+1) has generator w_k J on its axis, 0 on the other; the
    // frequencies 2^-k are exact in float, so both compute the same angles.
    RopeConfig axial;
    axial.headDim = 16;
    axial.base = 16;
    axial.multiAxis = MultiAxis::axial2d;
    std::vector<float> g(2 * 8 * 4, 0.f);
    for (int k = 0; k < 8; ++k) {
        const int axis = k < 4 ? 0 : 1;
        const float w = std::ldexp(1.f, -(k % 4));
        g[(axis * 8 + k) * 4 + 2] = w;   // G[1][0] = w
        g[(axis * 8 + k) * 4 + 1] = -w;  // G[0][1] = -w
    }
    const RopeConfig lie = liereConfig(16, 2, g);
    const int heads = 2, tokens = 4;
    const auto x = ref::randomVector(static_cast<std::size_t>(heads) * tokens * 16, 3);
    const std::vector<std::int32_t> pos = {0, 7, 1000, 16777219, /* y: */ 5, 0, 123456, 16777216};
    const auto a = applyRope(x, heads, tokens, 16, pos, ropeFrequencies(axial), RopeLayout::interleaved);
    const auto b = applyRope(x, heads, tokens, 16, pos, ropeFrequencies(lie), RopeLayout::interleaved);
    CHECK(maxDiff(a, b) < 1e-6);
    CHECK(ropeFrequencies(lie).axes == 2);
}

TEST_CASE("LieRE block size 3 (Rodrigues) in applyRope: 2 and 3 axes, rotaryOffset, pass-through channels, both layouts") {
    for (int axes : {1, 2, 3}) {
        // headDim 15, rotaryDim 12 from channel 2: four blocks of 3; channels 0, 1 and 14 pass through
        RopeConfig c = liereConfig(15, 3, skewGenerators(axes, 4, 3, 70u + static_cast<unsigned>(axes), 0.5f));
        c.partialRotaryFactor = 0.8;
        c.rotaryOffset = 2;
        const auto f = ropeFrequencies(c);
        REQUIRE(f.rotaryDim == 12);
        const int heads = 2, tokens = 3;
        const auto x = ref::randomVector(static_cast<std::size_t>(heads) * tokens * 15, 9);
        std::vector<std::int32_t> pos;
        const std::int32_t perAxis[3][3] = {{0, 4, 16777219}, {3, 11, 2}, {100000, 1, 8}};
        for (int a = 0; a < axes; ++a) pos.insert(pos.end(), perAxis[a], perAxis[a] + 3);
        for (RopeLayout layout : {RopeLayout::half, RopeLayout::interleaved}) {  // blocks are contiguous channels in either
            const auto got = applyRope(x, heads, tokens, 15, pos, f, layout);
            ld worst = 0;
            for (int h = 0; h < heads; ++h)
                for (int t = 0; t < tokens; ++t) {
                    std::vector<ld> p;
                    for (int a = 0; a < axes; ++a) p.push_back(perAxis[a][t]);
                    const float* row = x.data() + (static_cast<std::size_t>(h) * tokens + t) * 15;
                    const auto want = ref::liere(row, 15, 2, 12, 3, c.generators, p);
                    for (int ch = 0; ch < 15; ++ch) worst = std::max(worst, std::fabs(ld(got[(static_cast<std::size_t>(h) * tokens + t) * 15 + ch]) - want[ch]));
                    CHECK(got[(static_cast<std::size_t>(h) * tokens + t) * 15 + 14] == row[14]);  // pass-through, bit for bit
                    CHECK(got[(static_cast<std::size_t>(h) * tokens + t) * 15 + 0] == row[0]);
                }
            CAPTURE(axes);
            CHECK(worst < 2e-6);
        }
    }
}

TEST_CASE("LieRE relative property: commuting generators give scores that depend on p - p' only; non-commuting ones do not") {
    const int d = 8;
    const auto q = ref::randomVector(d, 1), k = ref::randomVector(d, 2);
    const auto score = [&](const RopeConfig& c, std::vector<std::int32_t> pq, std::vector<std::int32_t> pk) {
        const auto f = ropeFrequencies(c);
        const auto a = applyRope(q, 1, 1, d, pq, f, RopeLayout::half), b = applyRope(k, 1, 1, d, pk, f, RopeLayout::half);
        ld s = 0;
        for (int i = 0; i < d; ++i) s += ld(a[i]) * b[i];
        return s;
    };
    // commuting: per block, the two axes' generators are Q D_a Q^T with D_a of the same 2 x 2 planes
    std::vector<float> g;
    for (int a = 0; a < 2; ++a)
        for (int blk = 0; blk < 2; ++blk) {
            Conjugated cj;
            cj.theta = {a == 0 ? 0.75L : -0.375L, blk == 0 ? 0.5L : 0.09375L};
            for (ld x : cj.generator()) g.push_back(static_cast<float>(x));
        }
    const RopeConfig commuting = liereConfig(d, 4, g);
    CHECK(ropeFrequencies(commuting).generatorsCommute);
    const ld s0 = score(commuting, {3, 5}, {1, 9});
    const ld s1 = score(commuting, {3 + 7, 5 - 2}, {1 + 7, 9 - 2});
    const ld s2 = score(commuting, {3 + 1000, 5 + 20}, {1 + 1000, 9 + 20});
    CHECK(std::fabs(s0 - s1) < 1e-5);
    CHECK(std::fabs(s0 - s2) < 1e-5);
    // non-commuting: random skew generators per axis
    const RopeConfig generic = liereConfig(d, 4, skewGenerators(2, 2, 4, 31));
    CHECK_FALSE(ropeFrequencies(generic).generatorsCommute);
    const ld t0 = score(generic, {3, 5}, {1, 9}), t1 = score(generic, {3 + 7, 5 - 2}, {1 + 7, 9 - 2});
    CHECK(std::fabs(t0 - t1) > 1e-2);
    // one axis: a generator commutes with itself, so every LieRE of one axis is relative
    const RopeConfig one = liereConfig(d, 4, skewGenerators(1, 2, 4, 32));
    CHECK(std::fabs(score(one, {3}, {1}) - score(one, {3 + 500}, {1 + 500})) < 1e-5);
}

TEST_CASE("LieRE option errors name the field") {
    const auto bad = [](RopeConfig c, const char* field) {
        CAPTURE(field);
        CHECK_THROWS_WITH_AS(ropeFrequencies(c), doctest::Contains(field), std::invalid_argument);
    };
    bad(liereConfig(18, 4, skewGenerators(1, 4, 4, 1)), "blockSize");            // 4 does not divide 18
    bad(liereConfig(16, 0, skewGenerators(1, 8, 2, 1)), "blockSize");            // missing
    bad(liereConfig(16, 4, skewGenerators(1, 3, 4, 1)), "generators");           // 3 blocks of 4, not 4
    bad(liereConfig(16, 4, {}), "generators");
    auto g = skewGenerators(1, 4, 4, 1);
    g[4 + 1] += 1e-3f;  // block 0, G[1][1] no longer 0
    bad(liereConfig(16, 4, g), "generators[5]");
    g = skewGenerators(1, 4, 4, 1);
    g[16 + 1] = 0.5f, g[16 + 4] = 0.5f;  // block 1, G[0][1] = G[1][0]: symmetric
    bad(liereConfig(16, 4, g), "generators[17]");
    g = skewGenerators(1, 4, 4, 1);
    g[2] = 2e4f, g[8] = -2e4f;
    bad(liereConfig(16, 4, g), "generators[2]");
    RopeConfig scaled = liereConfig(16, 2, skewGenerators(1, 8, 2, 1));
    scaled.scaling.type = RopeScalingType::linear;
    scaled.scaling.factor = 2;
    bad(scaled, "scaling.type");
    RopeConfig stray;
    stray.headDim = 16;
    stray.generators = skewGenerators(1, 8, 2, 1);
    bad(stray, "generators");
    stray.generators.clear();
    stray.blockSize = 2;
    bad(stray, "blockSize");
    // a frequency schedule's keys have no effect on LieRE's rotations: refused, not ignored
    RopeConfig based = liereConfig(16, 2, skewGenerators(1, 8, 2, 1));
    based.base = 500;
    bad(based, "base");
    RopeConfig ggml = liereConfig(16, 2, skewGenerators(1, 8, 2, 1));
    ggml.convention = RopeConvention::ggml;
    bad(ggml, "convention");
    RopeConfig sized = liereConfig(16, 2, skewGenerators(1, 8, 2, 1));
    sized.seqLen = 4096;
    bad(sized, "seqLen");
    // within the tolerance (1e-6 of the block's largest entry) a block is accepted and made skew
    g = skewGenerators(1, 4, 4, 1);
    g[1] = -g[4] * (1 + 1e-8f);
    CHECK_NOTHROW(ropeFrequencies(liereConfig(16, 4, g)));
}

TEST_CASE("LieRE in attention and the KV cache: N-D positions, piecewise prefill; shift only for commuting generators") {
    const int heads = 4, kvHeads = 2, d = 12, qLen = 3, kLen = 7;
    for (bool commuting : {false, true}) {
        CAPTURE(commuting);
        // commuting: blocks of 2 (every 2 x 2 skew matrix is a multiple of J); non-commuting: blocks of 3
        const int b = commuting ? 2 : 3;
        const auto g = skewGenerators(2, d / b, b, commuting ? 90 : 91);
        const RopeEncoding rope{liereConfig(d, b, g), RopeLayout::half};
        CHECK(ropeFrequencies(rope.config).generatorsCommute == commuting);
        Problem p(heads, kvHeads, d, qLen, kLen, 500);
        p.causal = true;
        const std::vector<std::int32_t> mask = {20, 21, 22, 23, 24, 25, 26};  // sequence index (masks)
        const std::vector<std::int32_t> kAxis = {0, 0, 1, 1, 2, 2, 40, /* y */ 0, 1, 0, 1, 0, 1, 16777219};
        const std::vector<std::int32_t> qAxis = {1, 2, 40, /* y */ 1, 1, 16777219};
        p.kPos = mask;
        p.qPos = {24, 25, 26};
        NaiveTerms t;
        t.contentDot = [&](int h, int i, int j) {
            const auto a = ref::liere(p.qv(h, i), d, 0, d, b, g, {ld(qAxis[i]), ld(qAxis[qLen + i])});
            const auto c = ref::liere(p.kv(h, j), d, 0, d, b, g, {ld(kAxis[j]), ld(kAxis[kLen + j])});
            ld s = 0;
            for (int x = 0; x < d; ++x) s += a[x] * c[x];
            return s;
        };
        const auto want = naive(p, t, 1 / std::sqrt(ld(d)));
        auto req = p.request(rope);
        req.qPositions = qAxis;
        req.kPositions = kAxis;
        req.maskPositions = mask;
        const auto got = attention(req, true, false);
        CHECK(maxDiff(got.out, want.out) < 2e-5);
        CHECK(maxDiff(got.weights, want.weights) < 2e-5);

        // the cache, keys appended in two pieces with their [axes, T] positions and mask positions
        KVCacheConfig cc;
        cc.kvHeads = kvHeads;
        cc.headDim = d;
        cc.capacity = 8;
        cc.rope = rope;
        KVCache cache(cc);
        const auto piece = [&](const std::vector<float>& x, int t0, int t1) {
            std::vector<float> out;
            for (int h = 0; h < kvHeads; ++h) out.insert(out.end(), x.begin() + (h * kLen + t0) * d, x.begin() + (h * kLen + t1) * d);
            return out;
        };
        const auto axisSlice = [&](int t0, int t1) {
            std::vector<std::int32_t> out;
            for (int a = 0; a < 2; ++a) out.insert(out.end(), kAxis.begin() + a * kLen + t0, kAxis.begin() + a * kLen + t1);
            return out;
        };
        for (auto part : {std::pair{0, 4}, std::pair{4, 7}}) {
            const std::vector<std::int32_t> m(mask.begin() + part.first, mask.begin() + part.second);
            cache.append(piece(p.k, part.first, part.second), piece(p.v, part.first, part.second), part.second - part.first,
                         axisSlice(part.first, part.second), {}, m);
        }
        std::vector<float> out(static_cast<std::size_t>(heads) * qLen * d);
        cache.attend(p.q, heads, qLen, NoEncoding{}, qAxis, true, out.data(), std::numeric_limits<double>::quiet_NaN(), p.qPos);
        CHECK(maxDiff(out, want.out) < 2e-5);
        const auto before = cache.positions();
        if (!commuting) {  // refused, the cache unchanged
            CHECK_THROWS_WITH_AS(cache.shift(3), doctest::Contains("delta"), std::invalid_argument);
            CHECK(cache.positions() == before);
            CHECK_THROWS_WITH_AS(cache.renumber(before), doctest::Contains("newPositions"), std::invalid_argument);
            cache.attend(p.q, heads, qLen, NoEncoding{}, qAxis, true, out.data(), std::numeric_limits<double>::quiet_NaN(), p.qPos);
            CHECK(maxDiff(out, want.out) < 2e-5);
            continue;
        }
        // commuting: a shift by delta moves every axis; queries moved alike see the same scores (relative)
        cache.shift(3);
        auto movedQ = qAxis;
        auto movedQPos = p.qPos;
        for (auto& x : movedQ) x += 3;
        for (auto& x : movedQPos) x += 3;
        std::vector<float> moved(out.size());
        cache.attend(p.q, heads, qLen, NoEncoding{}, movedQ, true, moved.data(), std::numeric_limits<double>::quiet_NaN(), movedQPos);
        CHECK(maxDiff(moved, want.out) < 2e-5);
    }
}

// STRING (Schenck et al. 2025, "Learning the RoPEs: Better 2D and 3D Position Encodings with STRING",
// arXiv 2502.02562): R(r) = exp(Σₐ rₐ·Lₐ) with commuting skew-symmetric Lₐ, which the paper shows is
// always P·RoPE(r)·Pᵀ — RoPE's plane rotations by Σₐ θ_{a,k}·rₐ in a basis changed by one orthogonal P
// (Cayley-STRING learns P = (I − S)(I + S)⁻¹, S antisymmetric). Built here from that definition in long
// double (P by Cayley's formula, RoPE by cos / sin); posenc computes it as LieRE with one block over the
// rotated width and generators Gₐ = P·Bₐ·Pᵀ, Bₐ = ⊕ₖ θ_{a,k}·J (J the plane generator [[0, −1], [1, 0]]).
// Errors allowed: the generators rounded to float (6e-8 relative, times |r|·|G| <= 60) and float outputs.
TEST_CASE("STRING (P·RoPE·Pᵀ, Cayley P) is LieRE with generators P·Bₐ·Pᵀ: equal to the definition in long double, and relative") {
    const int d = 8, K = d / 2, axes = 2;
    // S antisymmetric, P = (I − S)(I + S)^-1 by Gauss-Jordan in long double
    const auto sr = ref::randomVector(d * d, 41, -0.6f, 0.6f);
    std::vector<ld> S(d * d, 0), A(d * d), B(d * d), P(d * d, 0);
    for (int i = 0; i < d; ++i)
        for (int j = i + 1; j < d; ++j) S[i * d + j] = sr[i * d + j], S[j * d + i] = -ld(sr[i * d + j]);
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) A[i * d + j] = (i == j) + S[i * d + j], B[i * d + j] = (i == j) - S[i * d + j];  // A = I + S, B = I − S
    std::vector<ld> inv(d * d, 0);
    for (int i = 0; i < d; ++i) inv[i * d + i] = 1;
    for (int c = 0; c < d; ++c) {  // I + S is invertible (S's eigenvalues are imaginary): no pivoting needed beyond the diagonal
        int piv = c;
        for (int r = c + 1; r < d; ++r)
            if (std::fabs(A[r * d + c]) > std::fabs(A[piv * d + c])) piv = r;
        for (int j = 0; j < d; ++j) std::swap(A[c * d + j], A[piv * d + j]), std::swap(inv[c * d + j], inv[piv * d + j]);
        const ld p = A[c * d + c];
        for (int j = 0; j < d; ++j) A[c * d + j] /= p, inv[c * d + j] /= p;
        for (int r = 0; r < d; ++r)
            if (r != c) {
                const ld f = A[r * d + c];
                for (int j = 0; j < d; ++j) A[r * d + j] -= f * A[c * d + j], inv[r * d + j] -= f * inv[c * d + j];
            }
    }
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
            for (int m = 0; m < d; ++m) P[i * d + j] += B[i * d + m] * inv[m * d + j];
    for (int i = 0; i < d; ++i)  // P is orthogonal
        for (int j = 0; j < d; ++j) {
            ld s = 0;
            for (int m = 0; m < d; ++m) s += P[m * d + i] * P[m * d + j];
            CHECK(std::fabs(s - (i == j)) < 1e-15L);
        }
    // RoPE's angles per axis and plane (2-D: every plane turns with both axes, at its own rates)
    const ld theta[axes][K] = {{1.0L, 0.31L, 0.1L, 0.031L}, {-0.47L, 0.2L, 0.066L, -0.013L}};
    std::vector<float> g;  // [axes, 1 block, d, d]: P·Bₐ·Pᵀ
    for (int a = 0; a < axes; ++a) {
        std::vector<ld> Ba(d * d, 0);
        for (int k = 0; k < K; ++k) Ba[(2 * k + 1) * d + 2 * k] = theta[a][k], Ba[(2 * k) * d + 2 * k + 1] = -theta[a][k];
        for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j) {
                ld s = 0;
                for (int m = 0; m < d; ++m)
                    for (int n = 0; n < d; ++n) s += P[i * d + m] * Ba[m * d + n] * P[j * d + n];
                g.push_back(static_cast<float>(s));
            }
    }
    // STRING's R(r) x = P·RoPE(r)·Pᵀ x, in long double
    const auto string = [&](const std::vector<float>& x, ld r0, ld r1) {
        std::vector<ld> y(d, 0), z(d, 0), out(d, 0);
        for (int i = 0; i < d; ++i)
            for (int m = 0; m < d; ++m) y[i] += P[m * d + i] * x[m];  // Pᵀ x
        for (int k = 0; k < K; ++k) {
            const ld phi = theta[0][k] * r0 + theta[1][k] * r1, c = std::cos(phi), s = std::sin(phi);
            z[2 * k] = c * y[2 * k] - s * y[2 * k + 1];
            z[2 * k + 1] = s * y[2 * k] + c * y[2 * k + 1];
        }
        for (int i = 0; i < d; ++i)
            for (int m = 0; m < d; ++m) out[i] += P[i * d + m] * z[m];
        return out;
    };
    const RopeConfig c = liereConfig(d, d, g);
    // (rounded to float, the Gₐ commute only to float precision: ropeFrequencies' commute test, 1e-9 relative,
    // calls them non-commuting, so a KV cache refuses shift / renumber for them; the rotations themselves are
    // STRING's, below)
    const RopeFrequencies f = ropeFrequencies(c);
    const auto q = ref::randomVector(d, 42), k = ref::randomVector(d, 43);
    const std::vector<std::array<std::int32_t, 2>> at = {{0, 0}, {3, 5}, {0, 17}, {29, 2}, {30, 30}, {13, 27}};
    for (const auto& p : at) {
        CAPTURE(p[0]);
        CAPTURE(p[1]);
        const auto got = applyRope(q, 1, 1, d, {p[0], p[1]}, f, RopeLayout::half);
        const auto want = string(q, p[0], p[1]);
        for (int i = 0; i < d; ++i) CHECK(std::fabs(ld(got[i]) - want[i]) < 1e-5L);
    }
    // relative: q(p)·k(p') = qᵀ R(p' − p) k, the same after moving both by any (Δ0, Δ1)
    const auto score = [&](std::array<std::int32_t, 2> pq, std::array<std::int32_t, 2> pk) {
        const auto a = applyRope(q, 1, 1, d, {pq[0], pq[1]}, f, RopeLayout::half), b = applyRope(k, 1, 1, d, {pk[0], pk[1]}, f, RopeLayout::half);
        ld s = 0;
        for (int i = 0; i < d; ++i) s += ld(a[i]) * b[i];
        return s;
    };
    const auto rel = string(k, 9 - 4, 2 - 11);  // R(p' − p) k for p = (4, 11), p' = (9, 2)
    ld want = 0;
    for (int i = 0; i < d; ++i) want += ld(q[i]) * rel[i];
    for (const std::array<std::int32_t, 2> delta : {std::array<std::int32_t, 2>{0, 0}, {7, 3}, {25, 40}, {-3, 37}}) {
        CAPTURE(delta[0]);
        CAPTURE(delta[1]);
        CHECK(std::fabs(score({4 + delta[0], 11 + delta[1]}, {9 + delta[0], 2 + delta[1]}) - want) < 3e-5L);
    }
}
