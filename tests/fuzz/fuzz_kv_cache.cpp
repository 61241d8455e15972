// libFuzzer target: random sequences of KV-cache operations (append with positions or padding, as floats
// or f16 / bf16 bits, attend, shift, renumber) on a small cache with sinks, a sliding window and RoPE
// (partial, from a drawn rotaryOffset, either layout), values of their own width (valueDim) or headDim's,
// and a K/V storage (f32, f16, bf16, q8; keys or values past what it holds, now and then), and now and then
// forgetting attention (FoX: log forget gates with every append, 2·kvHeads gate heads, a bad gate at times). Checked:
//  - a call that throws leaves positions, next positions, keys, values and the forget gates' sums exactly as they were;
//  - every attend equals attention() over a cache rebuilt from scratch: the raw tokens it should
//    still hold (the first `sinks`, then the last `window`, and the keys the last append pushed out
//    of the window that its own tokens still see) at their current logical positions, each query
//    seeing the keys within `window` positions of it and the sinks (and, with `chunk`, only its own chunk's)
//    (float32 storage; the others round what they hold, checked in tests/native/test_kv_storage.cpp); with
//    forgetting, attend's decay equals attention()'s with gates whose sums are the tokens' G (the rebuilt keys
//    in append order).
#include <algorithm>
#include <memory>

#include "common.hpp"
#include <posenc/posenc.hpp>

using namespace posenc;

namespace {
struct Token {
    std::vector<float> k, v;  // [kvHeads, headDim] raw, [kvHeads, valueDim]
    std::int64_t pos;
    int call = 0;  // which append brought it
    std::vector<double> g;  // forgetting: the cumulative log gate per gate head after this token
    long order = 0;         // its place in the sequence of real tokens
};

struct Snapshot {
    std::vector<std::int32_t> positions, next;
    std::vector<float> keys, values;
    std::vector<double> forget;
    bool operator==(const Snapshot& o) const {
        return positions == o.positions && next == o.next && keys == o.keys && values == o.values && forget == o.forget;
    }
};
Snapshot snapshot(const KVCache& c) { return {c.positions(), c.nextPositions(), c.keys(), c.values(), c.forgetCumulative()}; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    KVCacheConfig c;
    c.kvHeads = in.ConsumeIntegralInRange<int>(1, 2);
    c.headDim = 2 * in.ConsumeIntegralInRange<int>(1, 4);
    c.capacity = in.ConsumeIntegralInRange<int>(1, 12);
    c.window = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 10) : 0;
    c.sinks = in.ConsumeIntegralInRange<int>(0, 3);
    c.chunk = c.sinks == 0 && in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(1, 8) : 0;  // Llama 4's chunked layers
    c.valueDim = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(-1, 9) : 0;  // MLA: values of their own width (-1: refused)
    const bool rope = in.ConsumeBool();
    if (rope) {
        RopeEncoding e;
        e.config.partialRotaryFactor = in.ConsumeBool() ? 1.0 : 0.5;
        e.config.rotaryOffset = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(-1, c.headDim) : 0;  // past the head: refused
        e.layout = in.ConsumeBool() ? RopeLayout::half : RopeLayout::interleaved;
        if (in.ConsumeIntegralInRange<int>(0, 3) == 0) e.config.frequencyFraction = fuzz::number(in, 0, 1);  // p-RoPE
        if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // LieRE on one axis: shift / renumber re-rotate by exp(delta G)
            e.config.multiAxis = MultiAxis::liere;
            e.config.blockSize = 2;
            e.config.generators = fuzz::floats(in, static_cast<std::size_t>(c.headDim) * 2, 1.0f);
            for (std::size_t m = 0; m + 4 <= e.config.generators.size(); m += 4)
                e.config.generators[m] = e.config.generators[m + 3] = 0, e.config.generators[m + 2] = -e.config.generators[m + 1];
        }
        c.rope = e;
    }
    c.storage = static_cast<KVStorage>(in.ConsumeIntegralInRange<int>(0, 3));
    if (c.storage == KVStorage::q8 && in.ConsumeBool()) c.headDim = 32, c.valueDim = in.ConsumeBool() ? 64 : 0;  // else refused: q8 needs multiples of 32
    c.forgetting = in.ConsumeIntegralInRange<int>(0, 3) == 0;
    const int gateHeads = 2 * c.kvHeads;
    const bool exact = c.storage == KVStorage::f32;
    std::unique_ptr<KVCache> cache;
    try {
        cache = std::make_unique<KVCache>(c);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    const std::size_t hd = static_cast<std::size_t>(c.headDim), vd = static_cast<std::size_t>(c.valueDim > 0 ? c.valueDim : c.headDim);
    std::vector<Token> kept;  // the model: tokens in append order that the cache should still hold
    std::vector<Token> held;  // pushed out of the window by the last append, still seen by its tokens
    std::int64_t next = 0;
    std::vector<double> running(static_cast<std::size_t>(gateHeads), 0.0);  // forgetting: G after the last real token
    long order = 0;
    bool model = true;  // false once the model cannot follow (renumber with repeated positions)

    for (int step = 0; step < 24 && in.remaining_bytes() > 0; ++step) {
        const Snapshot before = snapshot(*cache);
        const int op = in.ConsumeIntegralInRange<int>(0, 5);
        try {
            if (op <= 1) {  // append T tokens
                const int T = in.ConsumeIntegralInRange<int>(1, 4);
                auto k = fuzz::floats(in, static_cast<std::size_t>(c.kvHeads) * T * hd, 2.0f);
                auto v = fuzz::floats(in, static_cast<std::size_t>(c.kvHeads) * T * vd, 2.0f);
                if (!exact && in.ConsumeIntegralInRange<int>(0, 5) == 0) {  // past f16 (7e4), past a Q8_0 scale (1e7), near bf16's top (3.39e38)
                    const float big[] = {7e4f, 1e7f, 3.39e38f};
                    const float x = big[in.ConsumeIntegralInRange<int>(0, 2)];
                    if (in.ConsumeBool()) k[in.ConsumeIntegralInRange<std::size_t>(0, k.size() - 1)] = x;
                    else v[in.ConsumeIntegralInRange<std::size_t>(0, v.size() - 1)] = x;
                }
                std::vector<float> gates;  // forgetting: [gateHeads, T], now and then one that is refused
                if (c.forgetting || in.ConsumeIntegralInRange<int>(0, 15) == 0) {
                    for (int i = 0; i < gateHeads * T; ++i) gates.push_back(-static_cast<float>(in.ConsumeFloatingPointInRange<double>(0, 3)));
                    if (in.ConsumeIntegralInRange<int>(0, 9) == 0) gates[in.ConsumeIntegralInRange<std::size_t>(0, gates.size() - 1)] = static_cast<float>(fuzz::number(in, 0, 1));
                    if (in.ConsumeIntegralInRange<int>(0, 19) == 0) gates.pop_back();
                }
                std::vector<std::int32_t> pos;
                std::vector<std::uint8_t> mask;
                if (in.ConsumeBool())
                    for (int t = 0; t < T; ++t) pos.push_back(in.ConsumeIntegralInRange<std::int32_t>(-2, 5000));
                if (in.ConsumeBool())
                    for (int t = 0; t < T; ++t) mask.push_back(in.ConsumeIntegralInRange<int>(0, 4) != 0);
                if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // as f16 / bf16 bits: the floats they stand for replace k and v
                    const KVType type = in.ConsumeBool() ? KVType::f16 : KVType::bf16;
                    std::vector<std::uint16_t> kb(k.size()), vb(v.size());
                    const auto toBits = [&](std::vector<float>& x, std::vector<std::uint16_t>& bits) {
                        for (std::size_t i = 0; i < x.size(); ++i) {
                            bits[i] = type == KVType::f16 ? floatToF16(x[i]) : floatToBf16(x[i]);
                            x[i] = type == KVType::f16 ? f16ToFloat(bits[i]) : bf16ToFloat(bits[i]);
                        }
                    };
                    toBits(k, kb), toBits(v, vb);
                    cache->append(kb, vb, type, T, pos, mask, {}, gates);
                } else {
                    cache->append(k, v, T, pos, mask, {}, gates);
                }
                held.clear();
                std::int64_t first = -1;  // the call's smallest position
                {
                    std::int64_t p = next;
                    for (int t = 0; t < T; ++t) {
                        if (!mask.empty() && !mask[t]) continue;
                        p = pos.empty() ? p : pos[t];
                        first = first < 0 ? p : std::min(first, p);
                        ++p;
                    }
                }
                for (int t = 0; t < T; ++t) {
                    if (!mask.empty() && !mask[t]) continue;
                    Token tok{std::vector<float>(static_cast<std::size_t>(c.kvHeads) * hd), std::vector<float>(static_cast<std::size_t>(c.kvHeads) * vd),
                              pos.empty() ? next : pos[t], step};
                    for (int h = 0; h < c.kvHeads; ++h) {
                        for (std::size_t x = 0; x < hd; ++x) tok.k[h * hd + x] = k[(static_cast<std::size_t>(h) * T + t) * hd + x];
                        for (std::size_t x = 0; x < vd; ++x) tok.v[h * vd + x] = v[(static_cast<std::size_t>(h) * T + t) * vd + x];
                    }
                    next = tok.pos + 1;
                    if (c.forgetting)
                        for (int h = 0; h < gateHeads; ++h) running[h] += static_cast<double>(gates[static_cast<std::size_t>(h) * T + t]);
                    tok.g = running;
                    tok.order = order++;
                    kept.push_back(tok);
                    if (c.window > 0 && static_cast<int>(kept.size()) > c.sinks + c.window) {
                        const Token& out = kept[static_cast<std::size_t>(c.sinks)];
                        if (out.call == step || out.pos > first - c.window) held.push_back(out);
                        kept.erase(kept.begin() + c.sinks);
                    }
                }
            } else if (op == 2) {
                const std::int64_t delta = in.ConsumeIntegralInRange<std::int64_t>(-3000, 3000);
                cache->shift(delta);
                for (auto& t : kept) t.pos += delta;
                for (auto& t : held) t.pos += delta;
                next += delta;
            } else if (op == 3) {
                auto np = cache->positions();
                std::vector<std::int64_t> old;
                for (auto p : np)
                    if (p >= 0) old.push_back(p);
                std::sort(old.begin(), old.end());
                if (std::adjacent_find(old.begin(), old.end()) != old.end()) model = false;
                std::vector<std::int32_t> fresh = np;
                for (auto& p : fresh)
                    if (p >= 0 || in.ConsumeIntegralInRange<int>(0, 9) == 0) p = in.ConsumeIntegralInRange<std::int32_t>(-1, 6000);
                cache->renumber(fresh);
                held.clear();
                std::int64_t maxPos = -1;
                for (auto& t : kept)  // each kept token moves to its slot's new position (old positions unique)
                    for (std::size_t s = 0; s < np.size(); ++s)
                        if (np[s] >= 0 && np[s] == t.pos) {
                            t.pos = fresh[s];
                            break;
                        }
                for (std::size_t s = 0; s < np.size(); ++s)
                    if (np[s] >= 0) maxPos = std::max<std::int64_t>(maxPos, fresh[s]);
                if (maxPos >= 0) next = maxPos + 1;
            } else {  // attend, compared with attention() over the rebuilt cache
                const int heads = c.kvHeads * in.ConsumeIntegralInRange<int>(1, 2), qLen = in.ConsumeIntegralInRange<int>(1, 3);
                auto q = fuzz::floats(in, static_cast<std::size_t>(heads) * qLen * hd, 2.0f);
                std::vector<std::int32_t> qp;
                for (int i = 0; i < qLen; ++i) qp.push_back(in.ConsumeIntegralInRange<std::int32_t>(0, 9000));
                const bool causal = in.ConsumeBool();
                // stick-breaking where it is allowed (causal): the kept keys in append order (a window's ring too)
                const bool stick = causal && in.ConsumeBool();
                const StickBreakingEncoding stickEncoding{stick && in.ConsumeBool()};
                std::vector<float> out(static_cast<std::size_t>(heads) * qLen * vd);
                // forgetting (causal, heads = the gates'): the decay; a wrong call now and then (refused)
                const bool fox = c.forgetting && in.ConsumeIntegralInRange<int>(0, 3) != 0;
                Encoding attendEncoding = NoEncoding{};
                if (fox && stick) attendEncoding = CombinedEncoding{{ForgettingEncoding{}, stickEncoding}};
                else if (fox) attendEncoding = ForgettingEncoding{};
                else if (stick) attendEncoding = stickEncoding;
                cache->attend(q, heads, qLen, attendEncoding, qp, causal, out.data());
                fuzz::requireFinite(out, "attend output");
                if (!model || !exact) continue;
                std::vector<Token> keys = kept;
                keys.insert(keys.end(), held.begin(), held.end());
                // in append order, so that a gate sequence's sums can be the tokens' G: log f_j = G_j - G_{j-1}
                std::sort(keys.begin(), keys.end(), [](const Token& a, const Token& b) { return a.order < b.order; });
                const int n = static_cast<int>(keys.size());
                std::vector<float> k(static_cast<std::size_t>(c.kvHeads) * std::max(n, 1) * hd), v(static_cast<std::size_t>(c.kvHeads) * std::max(n, 1) * vd);
                std::vector<std::int32_t> kp;
                for (int j = 0; j < n; ++j) {
                    kp.push_back(static_cast<std::int32_t>(keys[j].pos));
                    for (int h = 0; h < c.kvHeads; ++h) {
                        for (std::size_t x = 0; x < hd; ++x) k[(static_cast<std::size_t>(h) * n + j) * hd + x] = keys[j].k[h * hd + x];
                        for (std::size_t x = 0; x < vd; ++x) v[(static_cast<std::size_t>(h) * n + j) * vd + x] = keys[j].v[h * vd + x];
                    }
                }
                // one query at a time: the window and sinks as a key mask written from the definition. FoX's
                // anchor (the query's G: the last key at or before it, in the window or not) sees keys outside
                // the window, which a key mask hides from it: without sinks the window goes to attention()'s
                // own `window` instead (its anchor, like the cache's, then counts them); with sinks it cannot,
                // and a stick-breaking call with FoX (no softmax for the anchor to cancel in) is not compared.
                const bool ownWindow = c.sinks == 0;
                if (fox && stick && c.window > 0 && !ownWindow) continue;
                for (int i = 0; i < qLen; ++i) {
                    std::vector<std::uint8_t> keyMask;
                    bool any = false;
                    for (int j = 0; j < n; ++j) {
                        const std::int64_t d = static_cast<std::int64_t>(qp[i]) - keys[j].pos;
                        const bool sink = j < c.sinks && j < static_cast<int>(kept.size());  // the sinks come first in append order too
                        const bool ok = !(causal && d < 0) && (c.window == 0 || sink || (d >= 0 && d < c.window)) &&
                                        (c.chunk == 0 || keys[j].pos / c.chunk == qp[i] / c.chunk);
                        keyMask.push_back(ok);
                        any |= ok;
                    }
                    std::vector<float> want(static_cast<std::size_t>(heads) * vd, 0.0f);  // no visible key: zeros
                    std::vector<float> qi;
                    for (int h = 0; h < heads; ++h) qi.insert(qi.end(), q.begin() + (static_cast<std::size_t>(h) * qLen + i) * hd, q.begin() + (static_cast<std::size_t>(h) * qLen + i + 1) * hd);
                    if (any) {
                        std::vector<std::int32_t> qpi = {qp[i]};
                        AttentionRequest r;
                        r.dims = AttentionDims{heads, c.kvHeads, c.headDim, 1, n, c.valueDim};
                        r.q = qi;
                        r.k = k;
                        r.v = v;
                        r.qPositions = qpi;
                        r.kPositions = kp;
                        if (ownWindow) r.window = c.window, r.chunk = c.chunk;  // the same rule by position (no sinks)
                        else r.keyMask = keyMask;
                        r.causal = causal;
                        if (rope) r.encoding = *c.rope;
                        // [heads, n]: attention() counts a masked key's gate as 0, so each admitted key's gate is its G
                        // less the previous admitted key's (the cache's occupied slots all count)
                        std::vector<float> logForget;
                        if (fox)
                            for (int h = 0; h < heads; ++h) {
                                double before = 0;
                                for (int j = 0; j < n; ++j) {
                                    const bool counted = ownWindow || keyMask[j];  // without a key mask every key's gate counts
                                    logForget.push_back(counted ? static_cast<float>(keys[j].g[h] - before) : 0.0f);
                                    if (counted) before = keys[j].g[h];
                                }
                            }
                        if (fox || stick) {
                            CombinedEncoding parts;
                            if (rope) parts.parts.push_back(*c.rope);
                            if (fox) parts.parts.push_back(ForgettingEncoding{View<float>(logForget)});
                            if (stick) parts.parts.push_back(stickEncoding);
                            r.encoding = parts;
                        }
                        want = attention(r).out;
                    }
                    for (int h = 0; h < heads; ++h)
                        for (std::size_t x = 0; x < vd; ++x) {
                            const float got = out[(static_cast<std::size_t>(h) * qLen + i) * vd + x], w = want[h * vd + x];
                            if (std::fabs(got - w) > 1e-3f * (1.0f + std::fabs(w))) {
                                std::fprintf(stderr, "attend differs from the rebuilt cache (query %d, head %d): %g vs %g\n", i, h, got, w);
                                std::abort();
                            }
                        }
                }
            }
            if (model) {  // the cache holds exactly the model's tokens, at the model's positions
                std::vector<std::int64_t> a, b;
                for (auto p : cache->positions())
                    if (p >= 0) a.push_back(p);
                for (const auto& t : kept) b.push_back(t.pos);
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                if (a != b || cache->nextPositions()[0] != std::min<std::int64_t>(next, 2147483647)) {
                    std::fprintf(stderr, "cache positions differ from the model\n");
                    std::abort();
                }
            }
        } catch (const std::invalid_argument&) {
            if (!(snapshot(*cache) == before)) {
                std::fprintf(stderr, "a failed call changed the cache\n");
                std::abort();
            }
        }
    }
    return 0;
}
