// The machine's multiply-add ceiling, measured with posenc's own SIMD types and madd (fused where the
// target has FMA, multiply + add in wasm): an outer-product loop over data resident in L1, the same
// register shape as the attention micro-kernels (4 broadcasts x 2 vectors = 8 accumulators) and a
// 12-accumulator variant; the faster counts. Built natively and to wasm by scripts/bench.sh; prints
// one JSON line. Kernel figures in the README are fractions of this.
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
    const double g8 = gflops<4, 2>(iters), g12 = gflops<4, 3>(iters);
    std::printf("{\"bench\":\"multiply-add peak\",\"lanes\":%zu,\"fma\":%s,\"gflops_8acc\":%.2f,\"gflops_12acc\":%.2f,\"gflops\":%.2f}\n", kFloatLanes,
                POSENC_FMA ? "true" : "false", g8, g12, std::max(g8, g12));
    return 0;
}
