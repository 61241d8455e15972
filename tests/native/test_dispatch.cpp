// Run-time choice of the SIMD kernels (include/posenc/kernels.hpp): every set this machine runs gives
// the same RoPE rotation and attention as a long-double reference, and forcing a set is checked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <posenc/kernels.hpp>
#include <posenc/posenc.hpp>
#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
// Restores the set in use when a test ends.
struct KeepSet {
    std::string name = activeKernelSet();
    ~KeepSet() { useKernelSet(name); }
};
}  // namespace

TEST_CASE("kernel sets: the build's sets for this CPU, the widest in use by default, forcing one by name") {
    KeepSet keep;
    const auto sets = kernelSets();
    REQUIRE(!sets.empty());
#if defined(__x86_64__) && !defined(__wasm__)
    // an x86-64 library without -march=native holds SSE2 (any x86-64), SSE4.1, AVX2 and AVX-512
    if (sets.front() == "sse2") {
        CHECK(sets.front() == "sse2");
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
            CHECK(std::find(sets.begin(), sets.end(), "avx512") != sets.end());
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) CHECK(std::find(sets.begin(), sets.end(), "avx2") != sets.end());
    }
#endif
    for (const auto& s : sets) {
        useKernelSet(s);
        CHECK(activeKernelSet() == s);
    }
    CHECK_THROWS_WITH_AS(useKernelSet("avx1024"), doctest::Contains("no kernel set named 'avx1024'"), std::invalid_argument);
}

TEST_CASE("every kernel set: RoPE and causal attention equal the long-double reference") {
    KeepSet keep;
    const int heads = 3, T = 70, hd = 20;  // 70 keys: one full block of 64 and a partial one; 3 rows: a partial tile
    const auto q0 = ref::randomVector(std::size_t(heads) * T * hd, 1), k0 = ref::randomVector(std::size_t(heads) * T * hd, 2),
               v = ref::randomVector(std::size_t(heads) * T * hd, 3);
    RopeConfig c;
    c.headDim = hd;
    const auto f = ropeFrequencies(c);
    std::vector<std::int32_t> pos(T);
    for (int t = 0; t < T; ++t) pos[t] = t;
    for (const auto& set : kernelSets()) {
        CAPTURE(set);
        useKernelSet(set);
        auto q = q0, k = k0;
        applyRope(q.data(), heads, T, hd, pos.data(), f, RopeLayout::half);
        applyRope(k.data(), heads, T, hd, pos.data(), f, RopeLayout::half);
        double worstRope = 0;
        const auto w = ref::defaultInvFreq(hd, 10000);
        for (int h = 0; h < heads; ++h)
            for (int t = 0; t < T; ++t) {
                std::vector<ld> x(q0.begin() + (h * T + t) * hd, q0.begin() + (h * T + t + 1) * hd);
                const auto r = ref::rope(x, t, w, true);
                for (int i = 0; i < hd; ++i) worstRope = std::max(worstRope, double(std::fabs(r[i] - ld(q[(h * T + t) * hd + i]))));
            }
        CHECK(worstRope < 1e-6);

        AttentionRequest r;
        r.dims = {heads, heads, hd, T, T};
        r.q = q;
        r.k = k;
        r.v = v;
        r.causal = true;
        const auto got = attention(r);
        double worst = 0;
        const ld scale = 1 / std::sqrt(ld(hd));
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < T; ++i) {
                std::vector<ld> s(i + 1);
                ld m = -1e300L, l = 0;
                for (int j = 0; j <= i; ++j) {
                    ld dot = 0;
                    for (int x = 0; x < hd; ++x) dot += ld(q[(h * T + i) * hd + x]) * k[(h * T + j) * hd + x];
                    s[j] = dot * scale;
                    m = std::max(m, s[j]);
                }
                for (int j = 0; j <= i; ++j) l += (s[j] = std::exp(s[j] - m));
                for (int x = 0; x < hd; ++x) {
                    ld o = 0;
                    for (int j = 0; j <= i; ++j) o += s[j] / l * v[(h * T + j) * hd + x];
                    worst = std::max(worst, double(std::fabs(o - ld(got.out[(h * T + i) * hd + x]))));
                }
            }
        CHECK(worst < 1e-5);
    }
}
