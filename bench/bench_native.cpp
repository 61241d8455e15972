// Native benchmarks. Prints one JSON object per line; bench/run.mjs collects them with the wasm
// figures measured in the same run. Threads: POSENC_THREADS (bench/run.mjs runs 1 and all).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/thread_pool.hpp"
#include "kernels/rotate.hpp"
#include <posenc/posenc.hpp>
#include "timing.hpp"

using namespace posenc;

namespace {
// The scalar reference with the compiler's auto-vectoriser off, to measure what the explicit SIMD
// kernel buys over plain scalar code (GCC otherwise vectorises the reference loop by itself).
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void rotateHalfScalarNoVec(float* x, const float* c, const float* s, std::size_t h) {
    kernels::rotateHalfScalar(x, x, c, s, h);
}

std::vector<float> randomFloats(std::size_t n) {
    std::mt19937 g(1);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> v(n);
    for (auto& x : v) x = u(g);
    return v;
}

// Copy bandwidth over the same bytes an in-place pass touches (read + write), on posenc's threads
// (POSENC_THREADS) in 1 MiB pieces, as the library's own passes would split it.
double copyGBs(std::size_t floats) {
    std::vector<float> a = randomFloats(floats), b(floats);
    constexpr std::size_t kPiece = std::size_t(1) << 18;
    const double t = bench::bestSeconds([&] {
        detail::parallelFor((floats + kPiece - 1) / kPiece, 16.0 * floats, [&](std::size_t p, int) {
            const std::size_t i = p * kPiece, n = std::min(kPiece, floats - i);
            std::memcpy(b.data() + i, a.data() + i, n * 4);
        });
    });
    return 2.0 * floats * 4 / t / 1e9;
}

void ropeBench() {
    const int heads = 32, tokens = 2048, headDim = 128;
    const std::size_t n = static_cast<std::size_t>(heads) * tokens * headDim;
    auto x = randomFloats(n);
    std::vector<std::int32_t> pos(tokens);
    for (int t = 0; t < tokens; ++t) pos[t] = t;
    RopeConfig c;
    c.headDim = headDim;
    const auto f = ropeFrequencies(c);
    for (auto layout : {RopeLayout::half, RopeLayout::interleaved}) {
        const double t = bench::bestSeconds([&] { applyRope(x.data(), heads, tokens, headDim, pos.data(), f, layout); });
        const double gbs = 2.0 * n * 4 / t / 1e9;
        std::printf("{\"bench\":\"applyRope\",\"target\":\"native\",\"layout\":\"%s\",\"shape\":\"[32,2048,128]\",\"ms\":%.3f,\"GBs\":%.2f}\n",
                    layout == RopeLayout::half ? "half" : "interleaved", t * 1e3, gbs);
    }
    std::printf("{\"bench\":\"copy\",\"target\":\"native\",\"bytes\":%zu,\"GBs\":%.2f}\n", n * 4, copyGBs(n));

    // Kernel alone, SIMD vs scalar, on cached data (one token's tables, all heads x tokens vectors).
    std::vector<float> cs = randomFloats(headDim / 2), sn = randomFloats(headDim / 2);
    auto y = randomFloats(static_cast<std::size_t>(4096) * headDim);
    const double ts = bench::medianSeconds([&] {
        for (std::size_t v = 0; v < 4096; ++v) kernels::rotateHalfScalar(y.data() + v * headDim, y.data() + v * headDim, cs.data(), sn.data(), headDim / 2);
    }, 21);
    const double tv = bench::medianSeconds([&] {
        for (std::size_t v = 0; v < 4096; ++v) kernels::rotateHalfSimd(y.data() + v * headDim, y.data() + v * headDim, cs.data(), sn.data(), headDim / 2);
    }, 21);
    const double tn = bench::medianSeconds([&] {
        for (std::size_t v = 0; v < 4096; ++v) rotateHalfScalarNoVec(y.data() + v * headDim, cs.data(), sn.data(), headDim / 2);
    }, 21);
    std::printf("{\"bench\":\"rotateHalf kernel\",\"target\":\"native\",\"scalar_novec_us\":%.2f,\"scalar_autovec_us\":%.2f,\"simd_us\":%.2f,\"speedup_vs_scalar\":%.2f}\n",
                tn * 1e6, ts * 1e6, tv * 1e6, tn / tv);
}
// Causal self-attention, [heads, T, headDim], with RoPE (ops B, C, C') or ALiBi (B').
bench::Stats attentionStats(int heads, int T, int headDim, bool alibi, int reps) {
    const std::size_t n = static_cast<std::size_t>(heads) * T * headDim;
    auto q = randomFloats(n), k = randomFloats(n), v = randomFloats(n);
    std::vector<float> out(n);
    AttentionRequest r;
    r.dims = AttentionDims{heads, heads, headDim, T, T};
    r.q = q;
    r.k = k;
    r.v = v;
    r.causal = true;
    if (alibi) r.encoding = AlibiEncoding{heads, {}, false};
    else r.encoding = RopeEncoding{};
    return bench::stats([&] { attention(r, out.data()); }, reps);
}

void printAttention(const char* op, int heads, int T, bool alibi, int reps) {
    const auto s = attentionStats(heads, T, 64, alibi, reps);
    std::printf("{\"bench\":\"attention\",\"op\":\"%s\",\"heads\":%d,\"T\":%d,\"encoding\":\"%s\",\"median_ms\":%.3f,\"min_ms\":%.3f}\n", op, heads, T,
                alibi ? "alibi" : "rope", s.median * 1e3, s.min * 1e3);
}

void attentionBench() {
    printAttention("B", 8, 1024, false, 9);
    printAttention("B'", 8, 1024, true, 9);
    printAttention("C", 8, 4096, false, 3);
}

// Peak RSS of one causal RoPE attention at [heads, T, 64]: memory must stay O(T d).
void attentionRss(int heads, int T) {
    const auto s = attentionStats(heads, T, 64, false, 1);
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    const double inputsMiB = 4.0 * heads * T * 64 * 4 / (1 << 20);  // q, k, v, out
    std::printf("{\"bench\":\"attention peak RSS\",\"op\":\"C'\",\"heads\":%d,\"T\":%d,\"ms\":%.0f,\"peakRssMiB\":%.1f,\"tensorsMiB\":%.1f,\"TxT_floatMiB\":%.0f}\n",
                heads, T, s.min * 1e3, ru.ru_maxrss / 1024.0, inputsMiB, 4.0 * heads * T * T / (1 << 20));
}

// Op D: one decode step against a full cache: `heads` query heads on 8 kv heads x 64, `cached`
// tokens, RoPE. Every cached key and value is read once per step.
void cacheBench(int cached, int heads) {
    const int kvHeads = 8, headDim = 64;
    KVCacheConfig c;
    c.kvHeads = kvHeads;
    c.headDim = headDim;
    c.capacity = cached + 1;
    c.rope = RopeEncoding{};
    KVCache cache(c);
    const std::size_t n = static_cast<std::size_t>(kvHeads) * cached * headDim;
    auto k = randomFloats(n), v = randomFloats(n);
    cache.append(k, v, cached);
    auto q = randomFloats(static_cast<std::size_t>(heads) * headDim);
    std::vector<float> out(q.size());
    const auto s = bench::stats([&] { cache.attend(q, heads, 1, NoEncoding{}, {}, true, out.data()); }, 15);
    const double bytes = 2.0 * n * 4;  // every cached key and value read once
    std::printf("{\"bench\":\"decode step\",\"op\":\"D\",\"heads\":%d,\"kvHeads\":%d,\"cached\":%d,\"median_ms\":%.3f,\"min_ms\":%.3f,\"GBs\":%.2f,\"copyGBs\":%.2f}\n",
                heads, kvHeads, cached, s.median * 1e3, s.min * 1e3, bytes / s.min / 1e9, copyGBs(n));
}
// Decode steps against 32768 cached tokens for each K/V storage (issue 34): a step appends one token and
// attends one query (`heads` query heads over 8 kv heads x headDim, RoPE). The storages' caches run
// interleaved, round by round, so a noisy neighbour slows all of them alike. Bytes read per step: every
// cached key and value once, in its stored format.
void decodeBench(int headDim, int heads, int rounds) {
    const int kvHeads = 8, cached = 32768;
    const KVStorage storages[] = {KVStorage::f32, KVStorage::f16, KVStorage::bf16, KVStorage::q8};
    std::vector<std::unique_ptr<KVCache>> caches;
    const std::size_t n = static_cast<std::size_t>(kvHeads) * cached * headDim;
    {
        auto k = randomFloats(n), v = randomFloats(n);
        for (KVStorage s : storages) {
            KVCacheConfig c;
            c.kvHeads = kvHeads;
            c.headDim = headDim;
            c.capacity = cached + rounds + 2;
            c.rope = RopeEncoding{};
            c.storage = s;
            caches.push_back(std::make_unique<KVCache>(c));
            caches.back()->append(k, v, cached);
        }
    }
    auto q = randomFloats(static_cast<std::size_t>(heads) * headDim);
    auto kStep = randomFloats(static_cast<std::size_t>(kvHeads) * headDim), vStep = randomFloats(kStep.size());
    std::vector<float> out(q.size());
    std::vector<std::vector<double>> t(caches.size());
    for (int r = -1; r < rounds; ++r)  // round -1: warm-up
        for (std::size_t i = 0; i < caches.size(); ++i) {
            const auto a = std::chrono::steady_clock::now();
            caches[i]->append(kStep, vStep, 1);
            caches[i]->attend(q, heads, 1, NoEncoding{}, {}, true, out.data());
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
            if (r >= 0) t[i].push_back(s);
        }
    const double copy = copyGBs(n);
    for (std::size_t i = 0; i < caches.size(); ++i) {
        std::sort(t[i].begin(), t[i].end());
        const KVCacheConfig& c = caches[i]->config();
        KVCacheConfig oneBlock = c;  // the bytes of 64 slots (one key block): per token, keys and values
        oneBlock.capacity = 64;
        const double perToken = static_cast<double>(KVCache::storageBytes(oneBlock)) / 64;
        const double read = perToken * cached;
        std::printf("{\"bench\":\"decode step\",\"storage\":\"%s\",\"heads\":%d,\"kvHeads\":%d,\"headDim\":%d,\"cached\":%d,\"bytesPerToken\":%.0f,"
                    "\"median_ms\":%.3f,\"min_ms\":%.3f,\"GBs\":%.2f,\"copyGBs\":%.2f}\n",
                    storageName(c.storage), heads, kvHeads, headDim, cached, perToken, t[i][t[i].size() / 2] * 1e3, t[i][0] * 1e3, read / t[i][0] / 1e9, copy);
    }
}

// Where threads start to pay: `work` dependent scalar multiply-adds (in L1) cut into 8 tasks, run on 1
// thread and on 2 (the pool forced on, workers awake): the one-thread time at which a second thread
// starts to gain sets the threshold in src/common/thread_pool.hpp.
void thresholdBench() {
    std::vector<float> a = randomFloats(1024), b = randomFloats(1024);
    volatile float sink = 0;
    for (double work = 1 << 13; work <= (1 << 22); work *= 2) {
        const std::size_t perTask = static_cast<std::size_t>(work / 8);
        auto task = [&](std::size_t, int) {
            float s = 0;
            for (std::size_t i = 0; i < perTask; ++i) s += a[i & 1023] * b[(i * 7) & 1023];
            sink = sink + s;
        };
        double t[2];
        for (int n : {1, 2}) {
            setThreadCount(n);
            t[n - 1] = bench::medianSeconds([&] { detail::parallelFor(8, 1e18, task); }, 201);
        }
        std::printf("{\"bench\":\"threshold\",\"work\":%.0f,\"t1_us\":%.2f,\"t2_us\":%.2f,\"speedup\":%.2f}\n", work, t[0] * 1e6, t[1] * 1e6, t[0] / t[1]);
    }
}
}  // namespace

int main(int argc, char** argv) {
    const char* which = argc > 1 ? argv[1] : "all";
    if (!std::strcmp(which, "all") || !std::strcmp(which, "rope")) ropeBench();
    if (!std::strcmp(which, "all") || !std::strcmp(which, "attention")) attentionBench();
    if (!std::strcmp(which, "all") || !std::strcmp(which, "cache")) {
        cacheBench(32768, 8);
        cacheBench(32768, 32);
    }
    if (!std::strcmp(which, "decode"))
        for (int headDim : {64, 128})
            for (int heads : {8, 32}) decodeBench(headDim, heads, argc > 2 ? std::atoi(argv[2]) : 15);
    if (!std::strcmp(which, "threshold")) thresholdBench();
    if (!std::strcmp(which, "attention-rss")) attentionRss(argc > 2 ? std::atoi(argv[2]) : 8, argc > 3 ? std::atoi(argv[3]) : 32768);
    return 0;
}
