// Threads: every heavy call gives the same bytes with 1, 2 and 3 threads (the work is cut the same way
// whatever the thread count), and the pool really runs tasks on several threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <posenc/posenc.hpp>
#include "common/thread_pool.hpp"
#include "reference.hpp"

using namespace posenc;

namespace {

// Restores the thread count a test changed.
struct KeepThreadCount {
    int n = threadCount();
    ~KeepThreadCount() { setThreadCount(n); }
};

bool sameBytes(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Runs `f` (returning floats) with 1, 2 and 3 threads: all three results must be the same bytes.
template <class F>
void sameWithAnyThreadCount(const char* what, F&& f) {
    KeepThreadCount keep;
    REQUIRE(setThreadCount(1) == 1);
    const std::vector<float> one = f();
    REQUIRE(!one.empty());
    for (int n : {2, 3}) {
        // a build without threads (the wasm test suite) caps every count at 1: the same code path, still compared
        REQUIRE(setThreadCount(n) == std::min(n, threadLimit()));
        CAPTURE(what);
        CAPTURE(n);
        CHECK(sameBytes(f(), one));
    }
}

struct Qkv {
    int heads, kvHeads, d, qLen, kLen;
    std::vector<float> q, k, v;
    Qkv(int h, int kvh, int d_, int ql, int kl, unsigned seed)
        : heads(h), kvHeads(kvh), d(d_), qLen(ql), kLen(kl),
          q(ref::randomVector(static_cast<std::size_t>(h) * ql * d_, seed)),
          k(ref::randomVector(static_cast<std::size_t>(kvh) * kl * d_, seed + 1)),
          v(ref::randomVector(static_cast<std::size_t>(kvh) * kl * d_, seed + 2)) {}
    AttentionRequest request(Encoding e, bool causal, int window = 0) const {
        AttentionRequest r;
        r.dims = AttentionDims{heads, kvHeads, d, qLen, kLen};
        r.q = q;
        r.k = k;
        r.v = v;
        r.causal = causal;
        r.window = window;
        r.encoding = std::move(e);
        return r;
    }
};

// out, then weights and scores when asked (materialised)
std::vector<float> run(const AttentionRequest& r, bool materialise = false) {
    AttentionResult res = attention(r, materialise, materialise);
    std::vector<float> all = res.out;
    all.insert(all.end(), res.weights.begin(), res.weights.end());
    all.insert(all.end(), res.scores.begin(), res.scores.end());
    return all;
}

}  // namespace

TEST_CASE("thread count: set, capped, invalid counts refused") {
    KeepThreadCount keep;
    CHECK(threadCount() >= 1);
    const int three = std::min(3, threadLimit());  // 1 in a build without threads
    CHECK(setThreadCount(3) == three);
    CHECK(threadCount() == three);
    CHECK(setThreadCount(threadLimit() + 5) == threadLimit());
    CHECK_THROWS_AS(setThreadCount(0), std::invalid_argument);
    CHECK_THROWS_WITH(setThreadCount(-2), doctest::Contains("threads"));
    CHECK(threadCount() == threadLimit());  // a refused call changes nothing
}

TEST_CASE("the pool runs a large call's tasks on several threads, a small call on the caller alone") {
    KeepThreadCount keep;
    setThreadCount(2);
    std::mutex lock;
    std::set<std::thread::id> ran;
    std::atomic<int> done{0};
    auto task = [&](std::size_t, int slot) {
        CHECK(slot >= 0);
        CHECK(slot < 2);
        {
            std::lock_guard<std::mutex> lk(lock);
            ran.insert(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // long enough for a sleeping worker to wake
        ++done;
    };
    detail::parallelFor(64, 1e9, task);
    CHECK(done == 64);
    CHECK(ran.size() == static_cast<std::size_t>(std::min(2, threadLimit())));
    ran.clear();
    detail::parallelFor(64, detail::kParallelMinWork / 2, task);
    CHECK(ran.size() == 1);
    CHECK((*ran.begin() == std::this_thread::get_id()));
    // an exception in a task reaches the caller, and the pool keeps working
    CHECK_THROWS_AS(detail::parallelFor(16, 1e9, [](std::size_t t, int) { if (t == 7) throw std::invalid_argument("task 7"); }), std::invalid_argument);
    done = 0;
    detail::parallelFor(64, 1e9, task);
    CHECK(done == 64);
}

TEST_CASE("attention: the same bytes with 1, 2 and 3 threads (GQA, causal, window, score terms, weights, decode)") {
    const Qkv p(8, 2, 32, 700, 700, 5);
    sameWithAnyThreadCount("GQA causal RoPE", [&] { return run(p.request(RopeEncoding{}, true)); });
    sameWithAnyThreadCount("no encoding, bidirectional, weights and scores", [&] { return run(p.request(NoEncoding{}, false), true); });
    sameWithAnyThreadCount("window + ALiBi", [&] { return run(p.request(AlibiEncoding{8, {}, false}, true, 100)); });
    const std::vector<float> t5Table = ref::randomVector(32 * 8, 9);
    sameWithAnyThreadCount("T5 bias", [&] { return run(p.request(T5Encoding{8, t5Table, T5BucketOptions{}}, false)); });
    const std::vector<float> shawK = ref::randomVector(9 * 32, 10), shawV = ref::randomVector(9 * 32, 11);
    sameWithAnyThreadCount("Shaw (a term with per-query state)", [&] { return run(p.request(ShawEncoding{4, shawK, shawV}, true)); });
    // a decode shape: few query rows over 6000 keys, split into fixed chunks and merged
    const Qkv dec(8, 2, 64, 1, 6000, 12);
    sameWithAnyThreadCount("decode, RoPE", [&] { return run(dec.request(RopeEncoding{}, true)); });
    sameWithAnyThreadCount("decode, ALiBi, window", [&] { return run(dec.request(AlibiEncoding{8, {}, false}, true, 3000)); });
}

TEST_CASE("KVCache::attend over a long cache: the same bytes with 1, 2 and 3 threads") {
    KVCacheConfig c;
    c.batch = 2;
    c.kvHeads = 2;
    c.headDim = 64;
    c.capacity = 7000;
    c.rope = RopeEncoding{};
    KVCache cache(c);
    const int T = 6500;
    const auto k = ref::randomVector(static_cast<std::size_t>(c.batch) * c.kvHeads * T * c.headDim, 20);
    const auto v = ref::randomVector(k.size(), 21);
    cache.append(k, v, T);
    for (int heads : {2, 8}) {
        const auto q = ref::randomVector(static_cast<std::size_t>(c.batch) * heads * 2 * c.headDim, 22);
        sameWithAnyThreadCount("attend", [&] {
            std::vector<float> out(q.size());
            cache.attend(q, heads, 2, NoEncoding{}, {}, true, out.data());
            return out;
        });
    }
}

TEST_CASE("applyRope: the same bytes with 1, 2 and 3 threads") {
    RopeConfig rc;
    rc.headDim = 64;
    const auto f = ropeFrequencies(rc);
    const auto x = ref::randomVector(4 * 1000 * 64, 30);
    std::vector<std::int32_t> pos(1000);
    for (int t = 0; t < 1000; ++t) pos[t] = 3 * t + 7;
    for (auto layout : {RopeLayout::half, RopeLayout::interleaved})
        sameWithAnyThreadCount("applyRope", [&] {
            std::vector<float> y = x;
            applyRope(y.data(), 4, 1000, 64, pos.data(), f, layout);
            return y;
        });
}
