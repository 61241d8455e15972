// KV cache: decoding through the cache equals full attention at the right positions; windows, sinks,
// renumbering; the classic mistakes change the scores; failed calls change nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include <posenc/posenc.hpp>

// Counts heap allocations while `gCountAllocations` is set, and fails the one numbered `gFailAt` (counted
// from 1 since the last reset; 0 = none) as memory exhaustion would (global operator new for this test binary).
static std::atomic<long> gAllocations{0};
static std::atomic<bool> gCountAllocations{false};
static std::atomic<long> gFailAt{0};
static bool failNow() { return gCountAllocations && ++gAllocations == gFailAt; }
void* operator new(std::size_t n) {
    if (failNow()) throw std::bad_alloc();
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
// every form that pairs with the deletes below comes from malloc too (std::stable_sort's temporary
// buffer uses the nothrow form: left to the runtime, ASan reports new-vs-free)
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (failNow()) return nullptr;
    return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#include "reference.hpp"

using namespace posenc;
using ref::ld;

namespace {
constexpr int kvHeads = 2, heads = 4, d = 16;

RopeEncoding rope() {
    RopeEncoding r;
    r.config.base = 10000;
    r.config.partialRotaryFactor = 0.5;
    r.config.scaling.type = RopeScalingType::yarn;  // keys carry an attention scale: re-rotation must not re-apply it
    r.config.scaling.factor = 2;
    r.config.scaling.originalMaxPositionEmbeddings = 16;
    return r;
}

// One batch row of kvHeads x d, keys rotated with rope(): the cache most tests start from.
KVCacheConfig ropeCache(int capacity) {
    KVCacheConfig c;
    c.kvHeads = kvHeads;
    c.headDim = d;
    c.capacity = capacity;
    c.rope = rope();
    return c;
}

// Raw per-token data for one batch row: k, v [kvHeads, T, d], q [heads, T, d].
struct Sequence {
    int T;
    std::vector<float> k, v, q;
    Sequence(int T_, unsigned seed) : T(T_) {
        k = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * d, seed);
        v = ref::randomVector(static_cast<std::size_t>(kvHeads) * T * d, seed + 1);
        q = ref::randomVector(static_cast<std::size_t>(heads) * T * d, seed + 2);
    }
    // token t's slice of a [H, T, d] tensor
    std::vector<float> token(const std::vector<float>& x, int H, int t) const {
        std::vector<float> out(static_cast<std::size_t>(H) * d);
        for (int h = 0; h < H; ++h) std::copy_n(x.begin() + (static_cast<std::size_t>(h) * T + t) * d, d, out.begin() + h * d);
        return out;
    }
    // keys/values of a subset of tokens, [H, n, d]
    std::vector<float> pick(const std::vector<float>& x, int H, const std::vector<int>& tokens) const {
        std::vector<float> out(static_cast<std::size_t>(H) * tokens.size() * d);
        std::size_t o = 0;
        for (int h = 0; h < H; ++h)
            for (int t : tokens) {
                std::copy_n(x.begin() + (static_cast<std::size_t>(h) * T + t) * d, d, out.begin() + o);
                o += d;
            }
        return out;
    }
};

// Full attention for one query token over chosen keys at chosen positions.
std::vector<float> reference(const Sequence& s, int queryToken, std::int32_t qPos, const std::vector<int>& keyTokens,
                             const std::vector<std::int32_t>& kPos, const Encoding& e) {
    AttentionRequest r;
    const auto q = s.token(s.q, heads, queryToken);
    const auto k = s.pick(s.k, kvHeads, keyTokens), v = s.pick(s.v, kvHeads, keyTokens);
    std::vector<std::int32_t> qp = {qPos};
    r.dims = AttentionDims{heads, kvHeads, d, 1, static_cast<int>(keyTokens.size())};
    r.q = q;
    r.k = k;
    r.v = v;
    r.qPositions = qp;
    r.kPositions = kPos;
    r.causal = true;
    r.encoding = e;
    return attention(r).out;
}

double maxDiff(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
    return m;
}

// Interleaves rows' per-token tensors into the [batch, H, 1, d] layout the cache takes.
std::vector<float> stack(const std::vector<std::vector<float>>& rows) {
    std::vector<float> out;
    for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
    return out;
}
}  // namespace

TEST_CASE("decoding token by token = full attention; batch 2 with different left padding; RoPE, ALiBi, T5") {
    const int T = 12;
    const int pad[2] = {0, 3};  // row 1 starts with 3 padding steps
    Sequence rows[2] = {Sequence(T, 10), Sequence(T, 20)};
    auto t5table = ref::randomVector(32 * heads, 5);
    struct Setup {
        const char* name;
        bool cacheRope;
        Encoding enc;
    };
    std::vector<Setup> setups = {{"rope", true, NoEncoding{}}, {"alibi", false, AlibiEncoding{heads, {}, false}},
                                 {"t5", false, T5Encoding{heads, t5table, {false, 32, 128}}}};
    for (auto& setup : setups) {
        INFO(setup.name);
        KVCacheConfig c;
        c.batch = 2;
        c.kvHeads = kvHeads;
        c.headDim = d;
        c.capacity = T;
        if (setup.cacheRope) c.rope = rope();
        KVCache cache(c);
        Encoding refEnc = setup.cacheRope ? Encoding{rope()} : setup.enc;
        for (int step = 0; step < T; ++step) {
            std::vector<std::uint8_t> mask = {1, static_cast<std::uint8_t>(step >= pad[1])};
            std::vector<std::vector<float>> ks, vs, qs;
            for (int b = 0; b < 2; ++b) {
                ks.push_back(rows[b].token(rows[b].k, kvHeads, step));
                vs.push_back(rows[b].token(rows[b].v, kvHeads, step));
                qs.push_back(rows[b].token(rows[b].q, heads, step));
            }
            cache.append(stack(ks), stack(vs), 1, {}, mask);
            std::vector<float> out(2 * heads * d);
            cache.attend(stack(qs), heads, 1, setup.enc, {}, true, out.data());
            for (int b = 0; b < 2; ++b) {
                if (step < pad[b]) continue;
                // the row's real tokens are positions 0.. regardless of padding
                std::vector<int> keys;
                std::vector<std::int32_t> kp;
                for (int t = pad[b]; t <= step; ++t) {
                    keys.push_back(t);
                    kp.push_back(t - pad[b]);
                }
                const auto want = reference(rows[b], step, step - pad[b], keys, kp, refEnc);
                std::vector<float> got(out.begin() + b * heads * d, out.begin() + (b + 1) * heads * d);
                CHECK(maxDiff(got, want) < 1e-5);
            }
        }
        CHECK(cache.nextPositions() == std::vector<std::int32_t>{T, T - pad[1]});
    }
}

TEST_CASE("sliding window with sinks = attention over the kept keys at their original positions") {
    const int T = 30, sinks = 2, window = 5;
    Sequence s(T, 30);
    KVCacheConfig c;
    c.kvHeads = kvHeads;
    c.headDim = d;
    c.capacity = sinks + window;
    c.window = window;
    c.sinks = sinks;
    c.rope = rope();
    KVCache cache(c);
    cache.append(s.k, s.v, T);  // one prefill call: the ring keeps the last 5
    CHECK(cache.nextPositions()[0] == T);  // position = tokens seen, not slots used
    auto pos = cache.positions();
    std::vector<std::int32_t> sorted(pos.begin(), pos.end());
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == std::vector<std::int32_t>{0, 1, 25, 26, 27, 28, 29});
    // one more token: position 30, evicting 25
    Sequence next(1, 40);
    cache.append(next.k, next.v, 1);
    std::vector<float> out(heads * d);
    cache.attend(next.q, heads, 1, NoEncoding{}, {}, true, out.data());
    // reference: keys 0, 1, 26..29 from s plus the new token
    std::vector<float> k = s.pick(s.k, kvHeads, {0, 1, 26, 27, 28, 29}), v = s.pick(s.v, kvHeads, {0, 1, 26, 27, 28, 29});
    std::vector<float> kk, vv;
    for (int h = 0; h < kvHeads; ++h) {
        kk.insert(kk.end(), k.begin() + h * 6 * d, k.begin() + (h + 1) * 6 * d);
        kk.insert(kk.end(), next.k.begin() + h * d, next.k.begin() + (h + 1) * d);
        vv.insert(vv.end(), v.begin() + h * 6 * d, v.begin() + (h + 1) * 6 * d);
        vv.insert(vv.end(), next.v.begin() + h * d, next.v.begin() + (h + 1) * d);
    }
    std::vector<std::int32_t> kp = {0, 1, 26, 27, 28, 29, 30}, qp = {30};
    AttentionRequest r;
    r.dims = AttentionDims{heads, kvHeads, d, 1, 7};
    r.q = next.q;
    r.k = kk;
    r.v = vv;
    r.kPositions = kp;
    r.qPositions = qp;
    r.causal = true;
    r.encoding = rope();
    CHECK(maxDiff(out, attention(r).out) < 1e-5);

    // Mistake 1: using the slot count (7) as the new token's position changes the scores.
    std::vector<float> wrong(heads * d);
    std::vector<std::int32_t> slotPos = {7};
    cache.attend(next.q, heads, 1, NoEncoding{}, slotPos, true, wrong.data());
    CHECK(maxDiff(wrong, out) > 1e-3);
}

TEST_CASE("renumbering (context shift) re-rotates keys: equals keys rotated from scratch at the new positions") {
    const int T = 10;
    Sequence s(T, 50);
    KVCacheConfig c = ropeCache(16);
    KVCache cache(c);
    cache.append(s.k, s.v, T);
    // keep the first two tokens (sinks) where they are, move the rest by +100
    auto np = cache.positions();
    for (int slot = 2; slot < T; ++slot) np[slot] = slot + 100;
    cache.renumber(np);
    CHECK(cache.nextPositions()[0] == 110);  // 1 + the largest new position
    Sequence qs(1, 60);
    std::vector<float> out(heads * d);
    std::vector<std::int32_t> qp = {110};
    cache.attend(qs.q, heads, 1, NoEncoding{}, qp, true, out.data());
    std::vector<std::int32_t> kp(np.begin(), np.begin() + T);
    AttentionRequest r;
    r.dims = AttentionDims{heads, kvHeads, d, 1, T};
    r.q = qs.q;
    r.k = s.k;
    r.v = s.v;
    r.kPositions = kp;
    r.qPositions = qp;
    r.causal = true;
    r.encoding = rope();
    const auto fromScratch = attention(r).out;
    CHECK(maxDiff(out, fromScratch) < 1e-5);

    // Mistake 2: renumbering positions without re-rotating the cached keys changes the scores:
    // attention at the new positions with keys still rotated at the old ones.
    KVCacheConfig plain = c;
    plain.rope.reset();
    KVCache stale(plain);
    // keys rotated at the OLD positions 0..9, stored as-is
    std::vector<float> kOld = s.k;
    std::vector<std::int32_t> oldPos;
    for (int t = 0; t < T; ++t) oldPos.push_back(t);
    RopeConfig rc = rope().config;
    rc.headDim = d;
    const auto f = ropeFrequencies(rc);
    applyRope(kOld.data(), kvHeads, T, d, oldPos.data(), f, RopeLayout::half);
    stale.append(kOld, s.v, T, kp);  // labelled with the new positions, never re-rotated
    std::vector<float> qRot = qs.q;
    applyRope(qRot.data(), heads, 1, d, qp.data(), f, RopeLayout::half);
    std::vector<float> bad(heads * d);
    stale.attend(qRot, heads, 1, NoEncoding{}, qp, true, bad.data());
    CHECK(maxDiff(bad, out) > 1e-3);

    // shift(delta) then shift(-delta) returns the cache's keys to float tolerance
    const auto before = cache.keys();
    cache.shift(1000003);
    cache.shift(-1000003);
    CHECK(maxDiff(cache.keys(), before) < 1e-5);
}

TEST_CASE("padding gets no position and no slot; counting it is the third classic mistake") {
    Sequence s(4, 70);
    KVCacheConfig c = ropeCache(8);
    KVCache cache(c);
    std::vector<std::uint8_t> mask = {0, 0, 1, 1};  // left padding
    cache.append(s.k, s.v, 4, {}, mask);
    auto pos = cache.positions();
    CHECK(pos[0] == 0);
    CHECK(pos[1] == 1);
    CHECK(pos[2] == -1);
    CHECK(cache.nextPositions()[0] == 2);
    // the real tokens' keys sit at positions 0 and 1; pretending the padding counted (2 and 3) differs
    Sequence qs(1, 71);
    std::vector<float> right(heads * d), wrong(heads * d);
    cache.attend(qs.q, heads, 1, NoEncoding{}, {}, true, right.data());
    KVCache counted(c);
    std::vector<std::int32_t> padPos = {0, 1, 2, 3};
    counted.append(s.k, s.v, 4, padPos, mask);
    std::vector<std::int32_t> q4 = {4};
    counted.attend(qs.q, heads, 1, NoEncoding{}, q4, true, wrong.data());
    CHECK(maxDiff(right, wrong) > 1e-3);
}

TEST_CASE("a failed call leaves the cache byte for byte unchanged") {
    Sequence s(6, 80);
    KVCacheConfig c = ropeCache(6);
    KVCache cache(c);
    cache.append(s.pick(s.k, kvHeads, {0, 1, 2, 3}), s.pick(s.v, kvHeads, {0, 1, 2, 3}), 4);
    const auto k0 = cache.keys(), v0 = cache.values();
    const auto p0 = cache.positions(), n0 = cache.nextPositions();
    auto unchanged = [&] {
        CHECK(cache.keys() == k0);
        CHECK(cache.values() == v0);
        CHECK(cache.positions() == p0);
        CHECK(cache.nextPositions() == n0);
    };
    // capacity: 4 held + 3 more > 6, no window
    CHECK_THROWS_WITH_AS(cache.append(s.pick(s.k, kvHeads, {0, 1, 2}), s.pick(s.v, kvHeads, {0, 1, 2}), 3), doctest::Contains("capacity"), std::invalid_argument);
    unchanged();
    CHECK_THROWS_WITH_AS(cache.append(s.pick(s.k, kvHeads, {0}), s.pick(s.v, kvHeads, {0, 1}), 1), doctest::Contains("v must"), std::invalid_argument);
    unchanged();
    std::vector<std::int32_t> badPos = {-5};
    CHECK_THROWS_WITH_AS(cache.append(s.pick(s.k, kvHeads, {0}), s.pick(s.v, kvHeads, {0}), 1, badPos), doctest::Contains("positions[0]"), std::invalid_argument);
    unchanged();
    std::vector<std::uint8_t> badMask = {2};
    CHECK_THROWS_WITH_AS(cache.append(s.pick(s.k, kvHeads, {0}), s.pick(s.v, kvHeads, {0}), 1, {}, badMask), doctest::Contains("mask[0]"), std::invalid_argument);
    unchanged();
    CHECK_THROWS_WITH_AS(cache.shift(-3), doctest::Contains("delta"), std::invalid_argument);
    unchanged();
    std::vector<std::int32_t> np = p0;
    np[5] = 9;  // an empty slot
    CHECK_THROWS_WITH_AS(cache.renumber(np), doctest::Contains("newPositions[5]"), std::invalid_argument);
    unchanged();
    std::vector<float> out(heads * d);
    CHECK_THROWS_WITH_AS(cache.attend(s.q, heads, 1, NoEncoding{}, {}, true, out.data()), doctest::Contains("q must"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(cache.attend(s.token(s.q, heads, 0), heads, 1, rope(), {}, true, out.data()), doctest::Contains("rope"), std::invalid_argument);
    unchanged();
    // a valid call still works afterwards
    cache.append(s.pick(s.k, kvHeads, {4, 5}), s.pick(s.v, kvHeads, {4, 5}), 2);
    CHECK(cache.nextPositions()[0] == 6);
}

TEST_CASE("memory running out at any allocation of a call leaves the cache as it was, dynamic NTK schedule included") {
    // A dynamic-NTK cache ('hf'): the call that passes the original length moves the schedule, then builds
    // rotation tables and grows storage, each of which may fail. Failing every allocation of such a call in
    // turn: each failure must leave keys, values, positions and the schedule (seen through attend) as they were.
    KVCacheConfig c = ropeCache(40);
    c.rope->config.scaling.type = RopeScalingType::dynamic;
    c.rope->config.scaling.factor = 2;
    c.rope->config.scaling.originalMaxPositionEmbeddings = 16;
    c.dynamic = KVCacheConfig::DynamicNtk::hf;
    Sequence s(40, 90);
    std::vector<int> first(12), second(20);
    for (int t = 0; t < 12; ++t) first[static_cast<std::size_t>(t)] = t;
    for (int t = 0; t < 20; ++t) second[static_cast<std::size_t>(t)] = 12 + t;  // reaches position 31 > 16: the schedule moves
    const auto q = s.token(s.q, heads, 39);
    auto outputAfterSecond = [&](KVCache& cache) {
        cache.append(s.pick(s.k, kvHeads, second), s.pick(s.v, kvHeads, second), 20);
        std::vector<float> out(heads * d);
        cache.attend(q, heads, 1, NoEncoding{}, {}, true, out.data());
        return out;
    };
    // a query at position 19 (length 20, between the original 16 and the 32 the failed call would have
    // moved the schedule to): its schedule depends on whether that call's move stuck
    auto outputAt19 = [&](KVCache& cache) {
        std::vector<float> out(heads * d);
        const std::vector<std::int32_t> at19 = {19};
        cache.attend(q, heads, 1, NoEncoding{}, at19, true, out.data());
        return out;
    };
    KVCache twin(c), twin19(c);
    twin.append(s.pick(s.k, kvHeads, first), s.pick(s.v, kvHeads, first), 12);
    twin19.append(s.pick(s.k, kvHeads, first), s.pick(s.v, kvHeads, first), 12);
    const std::vector<float> want = outputAfterSecond(twin), want19 = outputAt19(twin19);
    int failures = 0;
    for (long failAt = 1;; ++failAt) {
        CAPTURE(failAt);
        KVCache cache(c);
        cache.append(s.pick(s.k, kvHeads, first), s.pick(s.v, kvHeads, first), 12);
        const auto k0 = cache.keys(), v0 = cache.values();
        const auto p0 = cache.positions(), n0 = cache.nextPositions();
        const auto k2 = s.pick(s.k, kvHeads, second), v2 = s.pick(s.v, kvHeads, second);
        bool failed = false;
        gAllocations = 0;
        gFailAt = failAt;
        gCountAllocations = true;
        try {
            cache.append(k2, v2, 20);
        } catch (const std::bad_alloc&) {
            failed = true;
        }
        gCountAllocations = false;
        gFailAt = 0;
        if (!failed) break;  // every allocation of the call has been failed once
        ++failures;
        CHECK(cache.keys() == k0);
        CHECK(cache.values() == v0);
        CHECK(cache.positions() == p0);
        CHECK(cache.nextPositions() == n0);
        KVCache copy = cache;
        CHECK(outputAt19(copy) == want19);
        CHECK(outputAfterSecond(cache) == want);  // the same call again gives what it gives on a cache that never failed
    }
    CHECK(failures > 0);
    // attend moves the schedule too (a query at 25: length 26) before the score terms are built; a term
    // that refuses its arguments then must not leave the move behind
    KVCache cache(c);
    cache.append(s.pick(s.k, kvHeads, first), s.pick(s.v, kvHeads, first), 12);
    std::vector<float> out(heads * d), shortTable(3);  // T5 needs [numBuckets = 32, heads] = 128 values
    T5Encoding t5;
    t5.heads = heads;
    t5.table = View<float>(shortTable.data(), shortTable.size());
    const std::vector<std::int32_t> at25 = {25};
    CHECK_THROWS_WITH_AS(cache.attend(q, heads, 1, t5, at25, true, out.data()), doctest::Contains("encoding.table"), std::invalid_argument);
    CHECK(outputAt19(cache) == want19);
}

TEST_CASE("a decode step (append one token, attend) allocates nothing once the cache is warm") {
    KVCacheConfig c = ropeCache(64);
    c.window = 48;
    KVCache cache(c);
    Sequence s(1, 90);
    std::vector<float> out(heads * d);
    for (int warm = 0; warm < 3; ++warm) {
        cache.append(s.k, s.v, 1);
        cache.attend(s.q, heads, 1, NoEncoding{}, {}, true, out.data());
    }
    gAllocations = 0;
    gCountAllocations = true;
    for (int step = 0; step < 100; ++step) {  // also wraps the window ring
        cache.append(s.k, s.v, 1);
        cache.attend(s.q, heads, 1, NoEncoding{}, {}, true, out.data());
    }
    gCountAllocations = false;
    CHECK(gAllocations == 0);
    CHECK(cache.nextPositions()[0] == 103);
    // the counter does count: a score term with tables (ALiBi slopes) is built per call
    gCountAllocations = true;
    cache.attend(s.q, heads, 1, AlibiEncoding{heads, {}, false}, {}, true, out.data());
    gCountAllocations = false;
    CHECK(gAllocations > 0);
}

// Forgetting attention's tables (the query anchors, each block's smallest G, each key's float(G_min − G_j))
// live in the cache, reserved when its stores are sized; stick-breaking over a window walks the ring in
// append order from a fixed array of spans. Neither allocates in a warm decode step.
TEST_CASE("a decode step allocates nothing once warm: forgetting, and stick-breaking over a window (with and without forgetting)") {
    const std::vector<float> gate(heads, -0.25f);  // [batch 1, heads, T 1]
    struct Case {
        const char* name;
        bool forgetting;
        int window;
        Encoding encoding;
    };
    const Case cases[] = {
        {"forgetting", true, 0, ForgettingEncoding{}},
        {"forgetting, window", true, 48, ForgettingEncoding{}},
        {"stickBreaking, window", false, 48, StickBreakingEncoding{}},
        {"forgetting + stickBreaking, window", true, 48, CombinedEncoding{{ForgettingEncoding{}, StickBreakingEncoding{}}}},
    };
    for (const Case& k : cases) {
        CAPTURE(std::string(k.name));
        KVCacheConfig c = ropeCache(200);
        c.window = k.window;
        c.forgetting = k.forgetting;
        KVCache cache(c);
        Sequence s(1, 91);
        std::vector<float> out(heads * d);
        const View<float> g = k.forgetting ? View<float>(gate) : View<float>();
        for (int warm = 0; warm < 3; ++warm) {
            cache.append(s.k, s.v, 1, {}, {}, {}, g);
            cache.attend(s.q, heads, 1, k.encoding, {}, true, out.data());
        }
        gAllocations = 0;
        gCountAllocations = true;
        for (int step = 0; step < 150; ++step) {  // past 64 keys (a second block), and around the window's ring
            cache.append(s.k, s.v, 1, {}, {}, {}, g);
            cache.attend(s.q, heads, 1, k.encoding, {}, true, out.data());
        }
        gCountAllocations = false;
        CHECK(gAllocations.load() == 0);
        CHECK(cache.nextPositions()[0] == 153);
    }
}

// bytes(): keys (packed in whole blocks of 64 slots) and values, and a forgetting cache's state from its
// first append (the gates' heads are known then): G per head and slot and the running sum per head
// (doubles), attend's per-slot tables (a float per head and slot, a double per head and 64-slot block).
TEST_CASE("bytes() counts a forgetting cache's stored sums and tables, by hand; a failed append leaves them as they were") {
    KVCacheConfig c;
    c.batch = 2;
    c.kvHeads = 2;
    c.headDim = 32;
    c.capacity = 100;
    c.forgetting = true;
    KVCache cache(c);
    const std::size_t kv = 2 * 2 * (128 * 32 * 4) + 2 * 2 * 100 * 32 * 4;  // keys: 2 blocks of 64 x 32 floats; values 100 x 32 floats
    CHECK(cache.bytes() == kv);
    const int gateHeads = 4, T = 3;
    const auto k = ref::randomVector(2 * 2 * T * 32, 5), v = ref::randomVector(2 * 2 * T * 32, 6);
    const std::vector<float> gates(2 * gateHeads * T, -0.5f);
    cache.append(k, v, T, {}, {}, {}, gates);
    const std::size_t fox = 2 * 4 * 100 * 8    // G: batch 2 x heads 4 x 100 slots, double
                            + 2 * 4 * 8        // the running sums: batch 2 x heads 4, double
                            + 4 * 100 * 4      // float(G_min - G_j): heads 4 x 100 slots, float
                            + 4 * 2 * 8;       // G_min: heads 4 x 2 blocks, double
    CHECK(cache.bytes() == kv + fox);
    // a window cache holding keys past capacity for a long append: its stores grow, and so do the tables
    KVCacheConfig w = c;
    w.batch = 1;
    w.window = 70;
    w.capacity = 70;
    KVCache ring(w);
    const int L = 100;  // 100 tokens through a 70-slot ring: the first query sees 70 keys, 30 held past capacity
    const auto kl = ref::randomVector(2 * L * 32, 7), vl = ref::randomVector(2 * L * 32, 8);
    const std::vector<float> gl(gateHeads * L, -0.5f);
    ring.append(kl, vl, L, {}, {}, {}, gl);
    const std::size_t slots = 70 + 30;
    CHECK(ring.bytes() == 2 * (128 * 32 * 4) + 2 * slots * 32 * 4 + (4 * slots + 4) * 8 + 4 * slots * 4 + 4 * 2 * 8);
    const std::size_t held = ring.bytes();
    // a bad gate leaves everything as it was
    std::vector<float> bad = {-0.5f, 0.5f, -0.5f, -0.5f};
    CHECK_THROWS_WITH_AS(ring.append(ref::randomVector(2 * 32, 9), ref::randomVector(2 * 32, 10), 1, {}, {}, {}, bad), doctest::Contains("logForget[1]"),
                         std::invalid_argument);
    CHECK(ring.bytes() == held);
    // the next single-token append holds nothing: back to 70 slots (2 blocks still)
    ring.append(ref::randomVector(2 * 32, 9), ref::randomVector(2 * 32, 10), 1, {}, {}, {}, std::vector<float>(4, -0.5f));
    CHECK(ring.bytes() == 2 * (128 * 32 * 4) + 2 * 70 * 32 * 4 + (4 * 70 + 4) * 8 + 4 * 70 * 4 + 4 * 2 * 8);
}

// Every allocation of a forgetting cache's first append (its sums and tables are allocated then) and of an
// append that grows the stores fails in turn: the call throws std::bad_alloc and the cache is as it was.
TEST_CASE("a forgetting cache's appends under memory exhaustion leave it exactly as it was (bytes too)") {
    KVCacheConfig c = ropeCache(40);
    c.window = 30;
    c.forgetting = true;
    Sequence s(60, 95);
    std::vector<int> first(5), second(40);
    for (int t = 0; t < 5; ++t) first[t] = t;
    for (int t = 0; t < 40; ++t) second[t] = 5 + t;
    for (int which : {0, 1}) {
        CAPTURE(which);
        int failures = 0;
        for (long failAt = 1;; ++failAt) {
            CAPTURE(failAt);
            KVCache cache(c);
            if (which == 1) cache.append(s.pick(s.k, kvHeads, first), s.pick(s.v, kvHeads, first), 5, {}, {}, {}, std::vector<float>(heads * 5, -0.1f));
            const auto k0 = cache.keys(), v0 = cache.values();
            const auto p0 = cache.positions(), n0 = cache.nextPositions();
            const auto g0 = cache.forgetCumulative();
            const std::size_t b0 = cache.bytes();
            const int h0 = cache.forgetHeads();
            const auto& tokens = which == 0 ? first : second;
            const int n = static_cast<int>(tokens.size());
            const auto kn = s.pick(s.k, kvHeads, tokens), vn = s.pick(s.v, kvHeads, tokens);
            const std::vector<float> gn(static_cast<std::size_t>(heads) * n, -0.2f);
            bool failed = false;
            gAllocations = 0;
            gFailAt = failAt;
            gCountAllocations = true;
            try {
                cache.append(kn, vn, n, {}, {}, {}, gn);
            } catch (const std::bad_alloc&) {
                failed = true;
            }
            gCountAllocations = false;
            gFailAt = 0;
            if (!failed) break;
            ++failures;
            CHECK(cache.keys() == k0);
            CHECK(cache.values() == v0);
            CHECK(cache.positions() == p0);
            CHECK(cache.nextPositions() == n0);
            CHECK(cache.forgetCumulative() == g0);
            CHECK(cache.forgetHeads() == h0);
            CHECK(cache.bytes() == b0);
        }
        CHECK(failures > 0);
    }
}

TEST_CASE("numerics in the cache: non-finite keys or values refused (cache unchanged); queries that could overflow refused") {
    KVCacheConfig c;
    c.kvHeads = 1;
    c.headDim = 4;
    c.capacity = 8;
    c.rope = RopeEncoding{};
    KVCache cache(c);
    std::vector<float> k = {1, 2, 3, 4}, v = {1, 1, 1, 1};
    cache.append(k, v, 1);
    const auto keys = cache.keys(), values = cache.values();
    const auto pos = cache.positions();
    std::vector<float> bad = {1, std::numeric_limits<float>::quiet_NaN(), 3, 4};
    CHECK_THROWS_WITH_AS(cache.append(bad, v, 1), doctest::Contains("k[1]"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(cache.append(k, bad, 1), doctest::Contains("v[1]"), std::invalid_argument);
    CHECK(cache.keys() == keys);
    CHECK(cache.values() == values);
    CHECK(cache.positions() == pos);
    std::vector<float> out(4);
    std::vector<float> q = {1e37f, 1e37f, 1e37f, 1e37f};
    CHECK_THROWS_WITH_AS(cache.attend(q, 1, 1, NoEncoding{}, {}, true, out.data()), doctest::Contains("overflow"), std::invalid_argument);
    q = {1, 0, 0, 0};
    cache.attend(q, 1, 1, NoEncoding{}, {}, true, out.data());
    for (float o : out) CHECK(o == doctest::Approx(1.0f));  // one key: its value
}

TEST_CASE("a refused attend leaves the caller's output untouched: batch row 1's queries fail after row 0's would have run") {
    KVCacheConfig c;
    c.batch = 2;
    c.kvHeads = 1;
    c.headDim = 4;
    c.capacity = 4;
    c.rope = RopeEncoding{};
    KVCache cache(c);
    const std::vector<float> k = {1, 2, 3, 4, 4, 3, 2, 1}, v = {1, 1, 1, 1, 2, 2, 2, 2};  // [batch 2, kvHeads 1, T 1, 4]
    cache.append(k, v, 1);
    std::vector<float> out(8, -7.0f);
    const std::vector<float> q = {1, 0, 0, 0, 1e37f, 1e37f, 1e37f, 1e37f};  // row 0 fine, row 1 overflows q.k
    CHECK_THROWS_WITH_AS(cache.attend(q, 1, 1, NoEncoding{}, {}, true, out.data()), doctest::Contains("overflow"), std::invalid_argument);
    for (float o : out) CHECK(o == -7.0f);
    const std::vector<float> fine = {1, 0, 0, 0, 0, 1, 0, 0};
    cache.attend(fine, 1, 1, NoEncoding{}, {}, true, out.data());
    for (int i = 0; i < 8; ++i) CHECK(out[i] == doctest::Approx(i < 4 ? 1.0f : 2.0f));  // one key per row: its value
}

// ---- sliding window + sinks, whatever the append sizes ------------------------------------------
// The reference is written here from the definition (Hugging Face / vLLM sliding window, StreamingLLM
// sinks): a query at position p sees key position j iff j <= p and (j < sinks or p - j < window), in
// long double with its own RoPE; and, independently, posenc::attention over the whole sequence with
// that mask given per query as a key mask.
namespace {
struct WindowSetup {
    static constexpr int kv = 2, H = 6, D = 15, W = 60, S = 4;  // GQA group of 3, odd head dim
    static RopeEncoding rope() {
        RopeEncoding r;
        r.config.base = 10000;
        r.config.partialRotaryFactor = 0.8;  // int(15 * 0.8) = 12 rotary channels, 3 pass through
        return r;
    }
    static bool visible(std::int64_t p, std::int64_t j) { return j <= p && (j < S || p - j < W); }
};
using Visible = bool (*)(std::int64_t p, std::int64_t j);  // whether the query at p sees the key at j

// Raw per-token data of one batch row in these dimensions: k, v [kv, T, D], q [H, T, D].
struct WSeq {
    using WS = WindowSetup;
    int T;
    std::vector<float> k, v, q;
    WSeq(int T_, unsigned seed) : T(T_) {
        k = ref::randomVector(static_cast<std::size_t>(WS::kv) * T * WS::D, seed);
        v = ref::randomVector(static_cast<std::size_t>(WS::kv) * T * WS::D, seed + 1);
        q = ref::randomVector(static_cast<std::size_t>(WS::H) * T * WS::D, seed + 2);
    }
    // tokens of a [H, T, D] tensor, [H, n, D]
    std::vector<float> pick(const std::vector<float>& x, int H, const std::vector<int>& tokens) const {
        std::vector<float> out(static_cast<std::size_t>(H) * tokens.size() * WS::D);
        std::size_t o = 0;
        for (int h = 0; h < H; ++h)
            for (int t : tokens) {
                std::copy_n(x.begin() + (static_cast<std::size_t>(h) * T + t) * WS::D, WS::D, out.begin() + o);
                o += WS::D;
            }
        return out;
    }
    // the row without its first `pad` tokens
    WSeq dropFirst(int pad) const {
        WSeq r(T - pad, 1);
        std::vector<int> tokens;
        for (int t = pad; t < T; ++t) tokens.push_back(t);
        r.k = pick(k, WS::kv, tokens);
        r.v = pick(v, WS::kv, tokens);
        r.q = pick(q, WS::H, tokens);
        return r;
    }
};

// Token t's output for one batch row whose real tokens are raw k/v/q of `s` at positions 0..n-1.
std::vector<ld> windowReference(const WSeq& s, int p, Visible visible = WindowSetup::visible) {
    using WS = WindowSetup;
    const auto w = ref::defaultInvFreq(12, 10000);
    const int group = WS::H / WS::kv;
    std::vector<ld> out(static_cast<std::size_t>(WS::H) * WS::D, 0);
    const ld scale = 1 / std::sqrt(ld(WS::D));
    auto rot = [&](const float* x, int pos) {
        std::vector<ld> v(x, x + WS::D);
        std::vector<ld> r(v.begin(), v.begin() + 12);
        r = ref::rope(r, pos, w, true);
        std::copy(r.begin(), r.end(), v.begin());
        return v;
    };
    for (int h = 0; h < WS::H; ++h) {
        const auto q = rot(s.q.data() + (static_cast<std::size_t>(h) * s.T + p) * WS::D, p);
        std::vector<ld> sc;
        std::vector<int> keys;
        for (int j = 0; j <= p; ++j) {
            if (!visible(p, j)) continue;
            const auto k = rot(s.k.data() + (static_cast<std::size_t>(h / group) * s.T + j) * WS::D, j);
            ld dot = 0;
            for (int c = 0; c < WS::D; ++c) dot += q[c] * k[c];
            sc.push_back(scale * dot);
            keys.push_back(j);
        }
        const ld m = *std::max_element(sc.begin(), sc.end());
        ld sum = 0;
        for (auto& x : sc) sum += (x = std::exp(x - m));
        for (std::size_t n = 0; n < keys.size(); ++n)
            for (int c = 0; c < WS::D; ++c)
                out[static_cast<std::size_t>(h) * WS::D + c] += sc[n] / sum * s.v[(static_cast<std::size_t>(h / group) * s.T + keys[n]) * WS::D + c];
    }
    return out;
}

// posenc::attention over the row's first p + 1 tokens for the query at p, the window + sinks as a key mask.
std::vector<float> windowByAttention(const WSeq& s, int p, Visible visible = WindowSetup::visible) {
    using WS = WindowSetup;
    std::vector<int> tokens;
    for (int j = 0; j <= p; ++j) tokens.push_back(j);
    const auto k = s.pick(s.k, WS::kv, tokens), v = s.pick(s.v, WS::kv, tokens);
    const auto q = s.pick(s.q, WS::H, {p});
    std::vector<std::uint8_t> keyMask;
    for (int j = 0; j <= p; ++j) keyMask.push_back(visible(p, j));
    std::vector<std::int32_t> qp = {p};
    AttentionRequest r;
    r.dims = AttentionDims{WS::H, WS::kv, WS::D, 1, p + 1};
    r.q = q;
    r.k = k;
    r.v = v;
    r.qPositions = qp;
    r.keyMask = keyMask;
    r.causal = true;
    r.encoding = WS::rope();
    return attention(r).out;
}

// Appends tokens [from, from + n) of each row (row b's first pad[b] tokens are padding), attends with
// those tokens' queries, and checks each real one against both references.
void appendAndCheck(KVCache& cache, const std::vector<WSeq>& rows, const std::vector<int>& pad, int from, int n,
                    Visible visible = WindowSetup::visible) {
    using WS = WindowSetup;
    const int B = static_cast<int>(rows.size());
    std::vector<float> k, v, q;
    std::vector<std::uint8_t> mask;
    std::vector<std::int32_t> qp;
    for (int b = 0; b < B; ++b) {
        std::vector<int> tokens;
        for (int t = from; t < from + n; ++t) tokens.push_back(t);
        const auto kb = rows[b].pick(rows[b].k, WS::kv, tokens), vb = rows[b].pick(rows[b].v, WS::kv, tokens);
        const auto qb = rows[b].pick(rows[b].q, WS::H, tokens);
        k.insert(k.end(), kb.begin(), kb.end());
        v.insert(v.end(), vb.begin(), vb.end());
        q.insert(q.end(), qb.begin(), qb.end());
        for (int t : tokens) {
            mask.push_back(t >= pad[b]);
            qp.push_back(std::max(t - pad[b], 0));  // a padding query's position is not checked
        }
    }
    cache.append(k, v, n, {}, mask);
    std::vector<float> out(q.size());
    cache.attend(q, WS::H, n, NoEncoding{}, qp, true, out.data());
    for (int b = 0; b < B; ++b) {
        const WSeq real = rows[b].dropFirst(pad[b]);  // the row's real tokens as their own sequence, positions 0..
        for (int i = 0; i < n; ++i) {
            const int t = from + i;
            if (t < pad[b]) continue;
            const int p = t - pad[b];
            std::vector<float> got(static_cast<std::size_t>(WS::H) * WS::D);
            for (int h = 0; h < WS::H; ++h)
                std::copy_n(out.begin() + ((static_cast<std::size_t>(b) * WS::H + h) * n + i) * WS::D, WS::D, got.begin() + h * WS::D);
            const auto want = windowReference(real, p, visible);
            double err = 0;
            for (std::size_t x = 0; x < got.size(); ++x) err = std::max(err, double(std::fabs(ld(got[x]) - want[x])));
            INFO("row " << b << " query at position " << p);
            CHECK(err < 1e-5);
            CHECK(maxDiff(got, windowByAttention(real, p, visible)) < 1e-5);
        }
    }
}
}  // namespace

TEST_CASE("window 60 + 4 sinks: one append of 100 tokens, chunked prefills and decode steps all equal sliding-window attention") {
    using WS = WindowSetup;
    const int N = 100, steps = 6;
    const std::vector<std::vector<int>> plans = {{N}, {7, 33, 60}, {50, 30, 20}, {64, 1, 35}};
    for (int capacity : {WS::S + WS::W, WS::S + WS::W + 9}) {  // capacity may exceed sinks + window
        for (const auto& plan : plans) {
            INFO("capacity " << capacity << ", chunks of " << plan.front() << " first");
            // batch 2: row 1 starts with 10 padding tokens, so the rows hold different numbers of keys
            const std::vector<WSeq> rows = {WSeq(N + steps, 300), WSeq(N + steps, 400)};
            const std::vector<int> pad = {0, 10};
            KVCacheConfig c;
            c.batch = 2;
            c.kvHeads = WS::kv;
            c.headDim = WS::D;
            c.capacity = capacity;
            c.window = WS::W;
            c.sinks = WS::S;
            c.rope = WS::rope();
            KVCache cache(c);
            int from = 0;
            for (int n : plan) {
                appendAndCheck(cache, rows, pad, from, n);
                from += n;
            }
            // positions() shows the capacity slots: the sinks and the last `window` tokens
            const auto pos = cache.positions();
            REQUIRE(pos.size() == static_cast<std::size_t>(2 * capacity));
            for (int b = 0; b < 2; ++b) {
                std::vector<std::int32_t> row(pos.begin() + b * capacity, pos.begin() + (b + 1) * capacity), want;
                row.erase(std::remove(row.begin(), row.end(), -1), row.end());
                std::sort(row.begin(), row.end());
                const int real = N - pad[b];
                for (int p = 0; p < WS::S; ++p) want.push_back(p);
                for (int p = real - WS::W; p < real; ++p) want.push_back(p);
                CHECK(row == want);
            }
            for (int step = 0; step < steps; ++step) appendAndCheck(cache, rows, pad, from++, 1);
        }
    }
}

TEST_CASE("window: a failed append keeps the held keys; the cache's outputs are bit-identical before and after") {
    using WS = WindowSetup;
    WSeq s(100, 500);
    KVCacheConfig c;
    c.kvHeads = WS::kv;
    c.headDim = WS::D;
    c.capacity = WS::S + WS::W;
    c.window = WS::W;
    c.sinks = WS::S;
    c.rope = WS::rope();
    KVCache cache(c);
    cache.append(s.k, s.v, 100);
    std::vector<float> before(s.q.size()), after(s.q.size());
    cache.attend(s.q, WS::H, 100, NoEncoding{}, {}, true, before.data());
    const auto p0 = cache.positions(), n0 = cache.nextPositions();
    auto bad = s.pick(s.k, WS::kv, {0});
    bad[3] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH_AS(cache.append(bad, s.pick(s.v, WS::kv, {0}), 1), doctest::Contains("k[3]"), std::invalid_argument);
    std::vector<std::uint8_t> badMask = {3};
    CHECK_THROWS_WITH_AS(cache.append(s.pick(s.k, WS::kv, {0}), s.pick(s.v, WS::kv, {0}), 1, {}, badMask), doctest::Contains("mask[0]"),
                         std::invalid_argument);
    cache.attend(s.q, WS::H, 100, NoEncoding{}, {}, true, after.data());
    CHECK(after == before);
    CHECK(cache.positions() == p0);
    CHECK(cache.nextPositions() == n0);
    // a renumber lets the held keys go (they have no entry in newPositions); shift moves them along
    cache.shift(5);
    cache.attend(s.q, WS::H, 100, NoEncoding{}, {}, true, after.data());  // queries at 5..104: the same relative picture
    CHECK(maxDiff(after, before) < 1e-5);
}

// Llama 4's chunked layers (HF chunked_overlay): a query sees the keys of its own chunk, j / C == p / C. With
// window = chunk the cache holds one chunk's keys, which is all a query can see.
TEST_CASE("chunked cache (window = chunk = 16): prefill in one call or in pieces, then decode across chunk boundaries") {
    using WS = WindowSetup;
    constexpr int C = 16;
    const Visible sameChunk = [](std::int64_t p, std::int64_t j) { return j <= p && j / C == p / C; };
    const int N = 40, steps = 20;
    for (int capacity : {C, C + 9}) {
        for (const std::vector<int>& plan : {std::vector<int>{N}, {7, 13, 20}, {16, 16, 8}, {1, 30, 9}}) {
            INFO("capacity " << capacity << ", chunks of " << plan.front() << " first");
            const std::vector<WSeq> rows = {WSeq(N + steps, 700), WSeq(N + steps, 800)};
            const std::vector<int> pad = {0, 5};  // row 1's chunks start 5 tokens later: positions count real tokens
            KVCacheConfig c;
            c.batch = 2;
            c.kvHeads = WS::kv;
            c.headDim = WS::D;
            c.capacity = capacity;
            c.window = C;
            c.chunk = C;
            c.rope = WS::rope();
            KVCache cache(c);
            int from = 0;
            for (int n : plan) {
                appendAndCheck(cache, rows, pad, from, n, sameChunk);
                from += n;
            }
            for (int step = 0; step < steps; ++step) appendAndCheck(cache, rows, pad, from++, 1, sameChunk);
        }
    }
    // without a window the cache keeps every key and the chunk mask alone decides
    const std::vector<WSeq> rows = {WSeq(50, 900)};
    KVCacheConfig c;
    c.kvHeads = WS::kv;
    c.headDim = WS::D;
    c.capacity = 64;
    c.chunk = C;
    c.rope = WS::rope();
    KVCache cache(c);
    appendAndCheck(cache, rows, {0}, 0, 37, sameChunk);
    for (int t = 37; t < 50; ++t) appendAndCheck(cache, rows, {0}, t, 1, sameChunk);
    c.chunk = -1;
    CHECK_THROWS_WITH_AS(KVCache{c}, doctest::Contains("chunk"), std::invalid_argument);
    c.chunk = C;
    c.window = C;
    c.sinks = 2;
    c.capacity = C + 2;
    CHECK_THROWS_WITH_AS(KVCache{c}, doctest::Contains("sinks"), std::invalid_argument);
}
