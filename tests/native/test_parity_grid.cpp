// The parity grid (in the spirit of ggml's test-backend-ops): every encoding kind, plain, soft-capped,
// with sink logits and with values of their own width (valueDim 7 against q.k's 20: DeepSeek MLA), x every path the engine has — streaming, materialised weights and scores, the decode split over key chunks, the KV cache
// (prefill in two appends, then attend) and attentionBias for scalar biases — x every kernel set this
// build and CPU hold x 1 and 3 threads, each against the long-double reference written here from the
// kind's definition (naive_attention.hpp), and each path bit-identical at 1 and 3 threads.
//
// The kinds come from posenc::Encoding itself; each kind's reference is in its own file,
// tests/native/kinds/<kind>.cpp (parity_grid.hpp): a kind without one leaves gridCase<Kind> undefined and
// this binary does not link, so a new kind enters the grid the day it lands, with its reference.
#include <doctest/doctest.h>

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <posenc/posenc.hpp>
#include "encodings/kind_spec.hpp"
#include "parity_grid.hpp"

using namespace posenc;
using namespace attn_ref;
using ref::ld;

namespace {

// --- the grid -------------------------------------------------------------------------------------

struct KeepSettings {
    std::string set = activeKernelSet();
    int threads = threadCount();
    ~KeepSettings() {
        useKernelSet(set);
        setThreadCount(threads);
    }
};

// Positions 2^24 + 3 onwards (Swin: window cells 0..), queries on the last qLen keys, causal.
Problem problem(int heads, int kvHeads, int headDim, int qLen, int kLen, unsigned seed, bool swin) {
    Problem p(heads, kvHeads, headDim, qLen, kLen, seed);
    p.causal = true;
    const std::int32_t base = swin ? 0 : kGridBase;
    for (int j = 0; j < kLen; ++j) p.kPos[j] = base + j;
    for (int i = 0; i < qLen; ++i) p.qPos[i] = base + kLen - qLen + i;
    return p;
}

struct Outputs {
    std::vector<float> out, weights, scores;
};

// The KV cache: the keys in two appends at their positions, then the queries at theirs.
std::vector<float> throughCache(const Problem& p, const GridCase& c) {
    KVCacheConfig config;
    config.kvHeads = p.kvHeads;
    config.headDim = p.headDim;
    config.valueDim = p.valueDim;
    config.capacity = p.kLen;
    config.rope = c.cacheRope;
    config.forgetting = !c.cacheLogForget.empty();
    KVCache cache(config);
    const int first = p.kLen - p.qLen;
    for (auto part : {std::pair{0, first}, std::pair{first, p.kLen}}) {
        const int T = part.second - part.first;
        if (T == 0) continue;
        std::vector<float> k, v;
        for (int h = 0; h < p.kvHeads; ++h)
            for (int j = part.first; j < part.second; ++j) {
                const std::size_t at = (static_cast<std::size_t>(h) * p.kLen + j) * p.headDim, vat = (static_cast<std::size_t>(h) * p.kLen + j) * p.vd();
                k.insert(k.end(), p.k.begin() + at, p.k.begin() + at + p.headDim);
                v.insert(v.end(), p.v.begin() + vat, p.v.begin() + vat + p.vd());
            }
        const std::vector<std::int32_t> pos(p.kPos.begin() + part.first, p.kPos.begin() + part.second);
        std::vector<float> gates;  // [heads, T]: this append's columns of [heads, kLen]
        for (int h = 0; h < p.heads && !c.cacheLogForget.empty(); ++h)
            gates.insert(gates.end(), c.cacheLogForget.begin() + h * p.kLen + part.first, c.cacheLogForget.begin() + h * p.kLen + part.second);
        cache.append(k, v, T, pos, {}, {}, gates);
    }
    std::vector<float> out(static_cast<std::size_t>(p.heads) * p.qLen * p.vd());
    std::optional<double> softcap;
    if (p.softcap > 0) softcap = p.softcap;
    cache.attend(p.q, p.heads, p.qLen, c.cacheEncoding, p.qPos, p.causal, out.data(), std::numeric_limits<double>::quiet_NaN(), {},
                 p.sinkLogits, softcap);
    return out;
}

// Runs every path of one kind on one problem under every kernel set and thread count.
void runGrid(const std::string& kind, const Problem& p, const GridCase& c, bool decode) {
    const Naive want = naive(p, c.terms, c.scale);
    const bool scalarBias = isScalarBias(c.encoding);
    std::vector<ld> wantBias;
    if (scalarBias)
        for (int h = 0; h < p.heads; ++h)
            for (int i = 0; i < p.qLen; ++i)
                for (int j = 0; j < p.kLen; ++j) wantBias.push_back(c.terms.bias(h, i, j));
    KeepSettings keep;
    for (const std::string& set : kernelSets()) {
        useKernelSet(set);
        std::optional<Outputs> atOne;
        for (int threads : {1, 3}) {
            setThreadCount(threads);
            CAPTURE(kind);
            CAPTURE(set);
            CAPTURE(threads);
            CAPTURE(decode);
            CAPTURE(p.softcap);
            CAPTURE(p.sinkLogits.size());
            CAPTURE(p.valueDim);
            const AttentionRequest r = p.request(c.encoding);  // the kind's default scale: the reference's
            Outputs got;
            got.out = attention(r).out;  // streaming
            auto full = attention(r, true, true);
            CHECK(maxDiff(got.out, want.out) < 2e-5);
            CHECK(maxDiff(full.out, want.out) < 2e-5);
            CHECK(maxDiff(full.weights, want.weights) < 2e-5);
            CHECK(maxDiff(full.scores, want.scores) < 1e-4);
            got.weights = std::move(full.weights);
            got.scores = std::move(full.scores);
            const auto cached = throughCache(p, c);
            CHECK(maxDiff(cached, want.out) < 2e-5);
            got.out.insert(got.out.end(), cached.begin(), cached.end());
            if (scalarBias) {
                const auto bias = attentionBias(c.encoding, p.heads, p.qPos, p.kPos);
                CHECK(maxDiff(bias, wantBias) < 1e-5);
                got.scores.insert(got.scores.end(), bias.begin(), bias.end());
            }
            if (!atOne) {
                atOne = std::move(got);
                continue;
            }
            // the same bits at any thread count, on every path
            CHECK(got.out == atOne->out);
            CHECK(got.weights == atOne->weights);
            CHECK(got.scores == atOne->scores);
        }
    }
}

// Each kind plain, with Gemma 2's soft-capping, with gpt-oss's sink logits, and with values of 7
// channels (DeepSeek MLA's valueDim; its own case, since a value table has the values' width).
// (c.terms read the caller's problem: the copy differs only in softcap and sinks, which they do not read.)
template <class Kind>
void runVariants(const std::string& kind, Problem p, const GridCase& c, bool decode) {
    runGrid(kind, p, c, decode);
    p.softcap = 5;  // low enough to bend every kind's logits
    runGrid(kind, p, c, decode);
    p.softcap = 0;
    if (c.noSinks.empty()) {
        p.sinkLogits = ref::randomVector(static_cast<std::size_t>(p.heads), 77, -2, 3);
        runGrid(kind, p, c, decode);
        p.sinkLogits.clear();
    }
    p.setValueDim(7);
    GridCase narrow;
    gridCase<Kind>(p, narrow);
    runGrid(kind, p, narrow, decode);
}

template <class Kind>
void gridKind() {
    std::string kind = "combined";  // a combination has no spec of its own: its parts have
    if constexpr (std::is_same_v<Kind, PRopeCase>) kind = "rope (p-RoPE)";
    else if constexpr (!std::is_same_v<Kind, CombinedEncoding>) kind = kinds::specOf<Kind>().name;
    const bool swin = std::is_same_v<Kind, SwinEncoding>;
    // 6 heads over 2 kv heads (GQA 3, not a power of two), 20 channels, 7 queries over 45 keys (Swin: a 3 x 5 window)
    {
        const Problem p = problem(6, 2, 20, swin ? 15 : 7, swin ? 15 : 45, 1000u + static_cast<unsigned>(kind.size()), swin);
        GridCase c;
        gridCase<Kind>(p, c);
        runVariants<Kind>(kind, p, c, false);
    }
    // decode: 2 queries over 4500 keys on 2 kv heads, few enough tiles that the engine splits the keys
    // into chunks of kDecodeChunkKeys and merges them
    GridCase probe;
    const Problem small = problem(6, 2, 20, 2, 2, 1, swin);
    gridCase<Kind>(small, probe);
    if (!probe.noDecode.empty()) {
        MESSAGE(kind << ": no decode problem (" << probe.noDecode << ")");
        return;
    }
    const Problem p = problem(4, 2, 20, 2, 4500, 2000u + static_cast<unsigned>(kind.size()), false);
    GridCase c;
    gridCase<Kind>(p, c);
    runVariants<Kind>(kind, p, c, true);
}

template <std::size_t... I>
void gridEveryKind(std::index_sequence<I...>) {
    (gridKind<std::variant_alternative_t<I, Encoding>>(), ...);
}

}  // namespace

TEST_CASE("parity grid: every kind x {streaming, weights, decode split, KV cache, attentionBias} x kernel set x {1, 3} threads") {
    gridEveryKind(std::make_index_sequence<std::variant_size_v<Encoding>>{});
}

TEST_CASE("parity grid: p-RoPE (a rope option) x {streaming, weights, decode split, KV cache} x kernel set x {1, 3} threads") {
    gridKind<PRopeCase>();
}
