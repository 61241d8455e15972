// Threads: every heavy call gives the same bytes with 1, 2 and 3 threads (the work is cut the same way
// whatever the thread count), and the pool really runs tasks on several threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include <posenc/posenc.hpp>
#include "common/thread_pool.hpp"
#include "naive_attention.hpp"
#include "reference.hpp"

using namespace posenc;
using namespace attn_ref;

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

// A problem of naive_attention.hpp as a request with its causal flag and window.
AttentionRequest request(const Problem& p, Encoding e, bool causal, int window = 0) {
    AttentionRequest r = p.request(std::move(e));
    r.causal = causal;
    r.window = window;
    return r;
}

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
    const Problem p(8, 2, 32, 700, 700, 5);
    sameWithAnyThreadCount("GQA causal RoPE", [&] { return run(request(p, RopeEncoding{}, true)); });
    sameWithAnyThreadCount("no encoding, bidirectional, weights and scores", [&] { return run(request(p, NoEncoding{}, false), true); });
    sameWithAnyThreadCount("window + ALiBi", [&] { return run(request(p, AlibiEncoding{8, {}, false}, true, 100)); });
    const std::vector<float> t5Table = ref::randomVector(32 * 8, 9);
    sameWithAnyThreadCount("T5 bias", [&] { return run(request(p, T5Encoding{8, t5Table, T5BucketOptions{}}, false)); });
    const std::vector<float> shawK = ref::randomVector(9 * 32, 10), shawV = ref::randomVector(9 * 32, 11);
    sameWithAnyThreadCount("Shaw (a term with per-query state)", [&] { return run(request(p, ShawEncoding{4, shawK, shawV}, true)); });
    // a decode shape: few query rows over 6000 keys, split into fixed chunks and merged
    const Problem dec(8, 2, 64, 1, 6000, 12);
    sameWithAnyThreadCount("decode, RoPE", [&] { return run(request(dec, RopeEncoding{}, true)); });
    sameWithAnyThreadCount("decode, ALiBi, window", [&] { return run(request(dec, AlibiEncoding{8, {}, false}, true, 3000)); });
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

TEST_CASE("RoPE attention: q and k rotated on the pool exactly as applyRope rotates them, for any thread count") {
    // The rotated copies are made in the pool's tasks; they must equal applyRope's (then the scores
    // are those of plain attention on the rotated tensors), bit for bit, with 1, 2 and 3 threads.
    KeepThreadCount keep;
    const Problem p(6, 2, 64, 300, 520, 40);  // GQA, queries at the last 300 of 520 positions
    RopeEncoding e;
    e.config.headDim = 64;
    for (int multi : {0, 1}) {
        if (multi) {  // M-RoPE: three position axes
            e.config.multiAxis = MultiAxis::mrope;
            e.config.sections = {16, 8, 8};
            e.layout = RopeLayout::half;
        } else {
            e.layout = RopeLayout::interleaved;
        }
        const int axes = multi ? 3 : 1;
        std::vector<std::int32_t> qp, kp;
        for (int a = 0; a < axes; ++a) {
            for (int j = 0; j < p.kLen; ++j) kp.push_back(j * (a + 1) % 97 + a);
            qp.insert(qp.end(), kp.end() - p.qLen, kp.end());
        }
        AttentionRequest r = request(p, e, true);
        r.qPositions = qp;
        r.kPositions = kp;
        // the reference: applyRope's rotations, then attention without an encoding at the sequence indexes
        RopeConfig c = e.config;
        const auto f = ropeFrequencies(c);
        std::vector<float> qr = p.q, kr = p.k;
        REQUIRE(setThreadCount(1) == 1);
        applyRope(qr.data(), p.heads, p.qLen, p.headDim, qp.data(), f, e.layout, RopeRole::query);
        applyRope(kr.data(), p.kvHeads, p.kLen, p.headDim, kp.data(), f, e.layout, RopeRole::key);
        AttentionRequest plain = request(p, NoEncoding{}, true);
        plain.q = qr;
        plain.k = kr;
        if (!multi) {
            plain.qPositions = qp;
            plain.kPositions = kp;
        }
        const std::vector<float> want = run(plain, true);
        CAPTURE(multi);
        sameWithAnyThreadCount("RoPE attention", [&] {
            const std::vector<float> got = run(r, true);
            CHECK(sameBytes(got, want));
            return got;
        });
    }
}

TEST_CASE("refused inputs: the same message for any thread count, the first bad index named, nothing written") {
    KeepThreadCount keep;
    RopeConfig rc;
    rc.headDim = 64;
    const auto f = ropeFrequencies(rc);
    // large enough for the finiteness scan to run in many pieces; NaN / inf in several of them
    auto x = ref::randomVector(8 * 2000 * 64, 50);
    x[900000] = std::numeric_limits<float>::quiet_NaN();
    x[70001] = std::numeric_limits<float>::infinity();
    x[500000] = -std::numeric_limits<float>::infinity();
    std::vector<std::int32_t> pos(2000);
    for (int t = 0; t < 2000; ++t) pos[t] = t;
    for (int n : {1, 2, 3}) {
        setThreadCount(n);
        CAPTURE(n);
        std::vector<float> y = x;
        CHECK_THROWS_WITH_AS(applyRope(y.data(), 8, 2000, 64, pos.data(), f, RopeLayout::half), "x[70001] must be finite (got Infinity)",
                             std::invalid_argument);
        CHECK(std::memcmp(y.data(), x.data(), x.size() * sizeof(float)) == 0);  // nothing rotated
    }
    // attention: a non-finite value far into v; a q row whose norm lets scores overflow (checked on the
    // rotated copies, in pieces of rows)
    Problem p(8, 8, 64, 1000, 1000, 51);
    p.v[400000] = std::numeric_limits<float>::quiet_NaN();
    std::string bigMessage;
    for (int n : {1, 2, 3}) {
        setThreadCount(n);
        CAPTURE(n);
        std::vector<float> out(p.q.size(), 7.0f);
        CHECK_THROWS_WITH_AS(attention(request(p, RopeEncoding{}, true), out.data()), "v[400000] must be finite (got NaN)", std::invalid_argument);
        CHECK(std::all_of(out.begin(), out.end(), [](float o) { return o == 7.0f; }));
        Problem big = p;
        big.v[400000] = 0.5f;
        for (int c = 0; c < 64; ++c) big.q[(static_cast<std::size_t>(5) * 1000 + 777) * 64 + c] = 3e37f;
        std::string message;
        try {
            attention(request(big, RopeEncoding{}, true), out.data());
        } catch (const std::invalid_argument& e) {
            message = e.what();
        }
        CHECK(message.find("to overflow float scores") != std::string::npos);
        if (n == 1) bigMessage = message;
        CHECK(message == bigMessage);
        CHECK(std::all_of(out.begin(), out.end(), [](float o) { return o == 7.0f; }));
    }
}

TEST_CASE("RoPE attention's one pass (scans, rotated copies, norms, packed keys): errors in the order of the checks, for any thread count") {
    // With RoPE, q, k and v are scanned for non-finite values inside the pass that rotates q and k; the
    // error must still name the first bad value of q, then k, then v, as the checks do in order, and a
    // later check (window, positions) must not be reported before a non-finite input.
    KeepThreadCount keep;
    const Problem p(8, 4, 64, 900, 900, 60);  // GQA; 900 tokens: the last 128-token chunk and key block partial
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (int n : {1, 2, 3}) {
        setThreadCount(n);
        CAPTURE(n);
        std::vector<float> out(p.q.size(), 7.0f);
        const auto untouched = [&] { return std::all_of(out.begin(), out.end(), [](float o) { return o == 7.0f; }); };
        Problem bad = p;
        bad.q[400000] = nan;  // late in q (a chunk of the last heads)
        bad.q[300001] = -inf;
        bad.k[5] = inf;       // early in k: q is still reported first
        bad.v[1] = nan;
        CHECK_THROWS_WITH_AS(attention(request(bad, RopeEncoding{}, true), out.data()), "q[300001] must be finite (got -Infinity)", std::invalid_argument);
        bad.q = p.q;
        CHECK_THROWS_WITH_AS(attention(request(bad, RopeEncoding{}, true), out.data()), "k[5] must be finite (got Infinity)", std::invalid_argument);
        bad.k = p.k;
        CHECK_THROWS_WITH_AS(attention(request(bad, RopeEncoding{}, true), out.data()), "v[1] must be finite (got NaN)", std::invalid_argument);
        // a check after the scans fails too: the non-finite input is still what is reported
        CHECK_THROWS_WITH_AS(attention(request(bad, RopeEncoding{}, true, -1), out.data()), "v[1] must be finite (got NaN)", std::invalid_argument);
        AttentionRequest badPositions = request(bad, RopeEncoding{}, true);
        badPositions.qPositions = std::vector<std::int32_t>(3, 0);  // wrong length
        CHECK_THROWS_WITH_AS(attention(badPositions, out.data()), "v[1] must be finite (got NaN)", std::invalid_argument);
        // with finite inputs, the later checks' own errors
        CHECK_THROWS_WITH_AS(attention(request(p, RopeEncoding{}, true, -1), out.data()), "window must be >= 1 (got -1)", std::invalid_argument);
        AttentionRequest goodBadPositions = request(p, RopeEncoding{}, true);
        goodBadPositions.qPositions = std::vector<std::int32_t>(3, 0);
        CHECK_THROWS_AS(attention(goodBadPositions, out.data()), std::invalid_argument);
        CHECK(untouched());
    }
}

TEST_CASE("attention: an output that is not finite is refused (each row checked as it is written), for any thread count") {
    // Rows are checked for finite values by the task that writes them. Two cases whose output overflows
    // float range whatever the kernels: values of 3e38 that every key weighs fully (q = 0: all scores
    // equal, so the accumulated sum passes 3.4e38; plain attention, on the pool), and Shaw's value table
    // of 3e38 added to values of 3e38 (a term on the calling thread).
    KeepThreadCount keep;
    Problem p(8, 8, 32, 600, 600, 61);
    std::fill(p.q.begin(), p.q.end(), 0.0f);
    std::fill(p.v.begin(), p.v.end(), 3e38f);
    const std::vector<float> shawK(3 * 32, 0.0f), shawV(3 * 32, 3e38f);
    std::string first[2];
    for (int n : {1, 2, 3}) {
        setThreadCount(n);
        CAPTURE(n);
        for (int c = 0; c < 2; ++c) {
            CAPTURE(c);
            std::string message;
            try {
                attention(c ? request(p, ShawEncoding{1, shawK, shawV}, true) : request(p, NoEncoding{}, false));
            } catch (const std::invalid_argument& e) {
                message = e.what();
            }
            CHECK(message.find("gives scores beyond float range") != std::string::npos);
            if (n == 1) first[c] = message;
            CHECK(message == first[c]);
        }
    }
    // the same values without the overflow: one visible key per query (a window of 1), and with Shaw a
    // value table of zeros: every output is 3e38 itself
    const std::vector<float> zeros(3 * 32, 0.0f);
    for (int c = 0; c < 2; ++c) {
        const AttentionResult r = attention(c ? request(p, ShawEncoding{1, shawK, zeros}, true, 1) : request(p, NoEncoding{}, true, 1));
        CHECK(std::all_of(r.out.begin(), r.out.end(), [](float o) { return o == 3e38f; }));
    }
}

TEST_CASE("PoolHold: idle workers stay awake while a large call holds the pool, and sleep again after") {
    KeepThreadCount keep;
    setThreadCount(2);
    if (threadLimit() < 2) return;  // a build without threads has no workers
    detail::parallelFor(64, 1e9, [](std::size_t, int) {});  // a worker exists (more if a test before used more threads)
    const int workers = detail::startedWorkers();
    REQUIRE(workers >= 1);
    const auto until = [](auto pred) {  // waits up to 2 s for pred
        for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2); std::chrono::steady_clock::now() < end;) {
            if (pred()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return pred();
    };
    CHECK(until([&] { return detail::sleepingWorkers() == workers; }));  // idle past the 200 us spin: asleep
    {
        const detail::PoolHold small(detail::kParallelMinWork / 2);  // a small call holds nothing
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        CHECK(detail::sleepingWorkers() == workers);
    }
    {
        const detail::PoolHold hold(1e9);
        CHECK(until([] { return detail::sleepingWorkers() == 0; }));  // woken by the hold
        std::this_thread::sleep_for(std::chrono::milliseconds(20));   // far past the spin time
        CHECK(detail::sleepingWorkers() == 0);
        std::atomic<int> done{0};
        detail::parallelFor(64, 1e9, [&](std::size_t, int) { ++done; });
        CHECK(done == 64);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        CHECK(detail::sleepingWorkers() == 0);  // still held between passes
    }
    CHECK(until([&] { return detail::sleepingWorkers() == workers; }));  // released: asleep again
    // a thread count of 1 holds nothing
    setThreadCount(1);
    const detail::PoolHold one(1e9);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(detail::sleepingWorkers() == workers);
}

TEST_CASE("causal attention: visible keys counted from consecutive positions give the bytes of the key-by-key mask, for any thread count") {
    // A causal-only mask over key blocks at consecutive positions takes each row's visible prefix by
    // count; a window wider than every distance admits the same keys but goes key by key. Both must
    // give the same bytes, with uneven tiles (qLen not a multiple of the tile) and blocks (kLen not a
    // multiple of 64), positions offset, a gap inside one block, and repeated query positions.
    KeepThreadCount keep;
    const Problem p(6, 2, 32, 301, 301, 70);
    std::vector<std::int32_t> pos(301);
    for (int j = 0; j < 301; ++j) pos[j] = 37 + j + (j >= 150 ? 5 : 0);  // a gap of 5 inside block 2
    std::vector<std::int32_t> qpos = pos;
    qpos[200] = qpos[199];  // two queries at one position
    for (int e = 0; e < 2; ++e) {
        const Encoding enc = e ? Encoding(AlibiEncoding{6, {}, false}) : Encoding(RopeEncoding{});
        AttentionRequest fast = request(p, enc, true), slow = request(p, enc, true, 100000);
        for (AttentionRequest* r : {&fast, &slow}) {
            r->qPositions = qpos;
            r->kPositions = pos;
        }
        std::vector<float> want;
        {
            REQUIRE(setThreadCount(1) == 1);
            want = run(slow, true);
        }
        CAPTURE(e);
        sameWithAnyThreadCount("causal, counted", [&] {
            const std::vector<float> got = run(fast, true);
            CHECK(sameBytes(got, want));
            return got;
        });
        sameWithAnyThreadCount("causal, counted, out only", [&] { return run(fast); });
        CHECK(sameBytes(run(fast), run(slow)));
    }
}
