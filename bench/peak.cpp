// The machine's multiply-add ceiling, measured with posenc's own SIMD types and madd (fused where the
// target has FMA, multiply + add in wasm): outer-product loops over data resident in L1 in the
// register shapes of the attention micro-kernels (rows broadcast x key vectors: 4x2, 4x3, 8x2, 6x4
// accumulators); the fastest counts (8-12 accumulators suit 16 registers, 16-24 suit AVX-512's 32). Built natively and to wasm by scripts/bench.sh; prints
// one JSON line. Kernel figures in docs/performance.md are fractions of this.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "kernels/simd.hpp"

using namespace posenc::kernels;

namespace {
template <int Rows, int Vecs>
double gflops(long iters) {
    std::vector<float> buf(static_cast<std::size_t>(64 * Vecs * kFloatLanes + 64 * Rows), 0.5f);
    double best = 1e30;
    float sink = 0;
    for (int rep = 0; rep < 7; ++rep) {
#if POSENC_SIMD
        FloatBatch a[Rows][Vecs];
        for (auto& row : a)
            for (auto& x : row) x = FloatBatch(0.0f);
#endif
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < iters; ++i) {
            const float* p = buf.data() + (i & 63) * Vecs * kFloatLanes;
            const float* q = buf.data() + 64 * Vecs * kFloatLanes + (i & 63);
#if POSENC_SIMD
            FloatBatch k[Vecs];
            for (int v = 0; v < Vecs; ++v) k[v] = FloatBatch::load_unaligned(p + v * kFloatLanes);
            for (int r = 0; r < Rows; ++r) {
                const FloatBatch b(q[r]);
                for (int v = 0; v < Vecs; ++v) a[r][v] = madd(b, k[v], a[r][v]);
            }
#else
            (void)p;
            (void)q;
#endif
        }
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
#if POSENC_SIMD
        for (auto& row : a)
            for (auto& x : row) sink += xsimd::hadd(x);
#endif
    }
    if (sink == 12345.0f) std::printf("#");  // keeps the accumulators alive
    return 2.0 * iters * Rows * Vecs * kFloatLanes / best / 1e9;
}
}  // namespace

int main() {
    const long iters = 20000000;
    const double g8 = gflops<4, 2>(iters), g12 = gflops<4, 3>(iters), g16 = gflops<8, 2>(iters), g24 = gflops<6, 4>(iters);
    std::printf("{\"bench\":\"multiply-add peak\",\"lanes\":%zu,\"fma\":%s,\"gflops_4x2\":%.2f,\"gflops_4x3\":%.2f,\"gflops_8x2\":%.2f,\"gflops_6x4\":%.2f,\"gflops\":%.2f}\n",
                kFloatLanes, POSENC_FMA ? "true" : "false", g8, g12, g16, g24, std::max(std::max(g8, g12), std::max(g16, g24)));
    return 0;
}
