#include "posenc/cache/kv_cache.hpp"

#include <algorithm>
#include <cstring>

#include "posenc/common/errors.hpp"
#include "attention/internal.hpp"
#include "attention/positions.hpp"
#include "common/decimal.hpp"
#include "kernels/attention_tile.hpp"
#include "kernels/kv_format.hpp"
#include "rotary/internal.hpp"

namespace posenc {

namespace {
constexpr std::int64_t kMaxPosition = 2147483647;

int formatOf(KVStorage s) { return static_cast<int>(s); }

// The bytes of `slots` slots of one (batch row, kv head): packed keys of hd channels (whole blocks) and
// value rows of vd channels.
std::uint64_t headBytes(KVStorage s, std::uint64_t slots, std::uint64_t hd, std::uint64_t vd) {
    const std::uint64_t blocks = (slots + kernels::kKeyBlock - 1) / kernels::kKeyBlock;
    return blocks * kernels::keyBlockBytes(formatOf(s), static_cast<std::size_t>(hd)) + slots * kernels::valueRowBytes(formatOf(s), static_cast<std::size_t>(vd));
}
}  // namespace

// append's k and v: float32 rows, or f16 / bf16 bit patterns (kvType), read a row at a time as floats.
struct KVCache::Input {
    const void* k;
    const void* v;
    std::size_t kSize, vSize;
    int format;  // kernels::kFormatF32 / F16 / Bf16
    void row(const void* base, std::size_t at, std::size_t hd, float* dst) const {
        if (format == kernels::kFormatF32) {
            std::memcpy(dst, static_cast<const float*>(base) + at, hd * sizeof(float));
            return;
        }
        const auto* p = static_cast<const std::uint16_t*>(base) + at;
        for (std::size_t c = 0; c < hd; ++c) dst[c] = format == kernels::kFormatF16 ? kernels::f16ToFloat(p[c]) : kernels::bf16ToFloat(p[c]);
    }
};

std::uint64_t KVCache::storageBytes(const KVCacheConfig& c) {
    return static_cast<std::uint64_t>(std::max(c.batch, 0)) * static_cast<std::uint64_t>(std::max(c.kvHeads, 0)) *
           headBytes(c.storage, static_cast<std::uint64_t>(std::max(c.capacity, 0)), static_cast<std::uint64_t>(std::max(c.headDim, 0)),
                     static_cast<std::uint64_t>(std::max(c.valueDim != 0 ? c.valueDim : c.headDim, 0)));
}

KVCache::KVCache(const KVCacheConfig& c) : config_(c) {
    requirePositive(c.batch, "batch");
    requireSize(c.kvHeads, "kvHeads", limits::kMaxHeads);
    requireSize(c.headDim, "headDim", limits::kMaxHeadDim);
    detail::requireValueDim(c.valueDim);
    requirePositive(c.capacity, "capacity");
    requireNonNegative(c.window, "window");
    requireNonNegative(c.sinks, "sinks");
    requireNonNegative(c.chunk, "chunk");
    if (c.chunk > 0 && c.sinks > 0) fail("sinks", "must be 0 with chunk: a chunked layer has no attention sinks");
    if (c.window > 0 && c.sinks + c.window > c.capacity)
        fail("capacity", "(" + std::to_string(c.capacity) + ") must hold sinks + window = " + std::to_string(c.sinks + c.window) + " slots");
    if (c.window == 0 && c.sinks > c.capacity) fail("sinks", "must not exceed capacity");
    if (c.rope) {
        RopeConfig rc = c.rope->config;
        rc.headDim = c.headDim;
        freqs_ = ropeFrequencies(rc);
        if (freqs_->rotaryOffset + freqs_->rotaryDim > c.headDim) fail("rope", "rotary channels exceed headDim");
        config_.rope->config = rc;
        tables_.emplace(*freqs_, c.rope->layout);
    }
    if (c.dynamic == KVCacheConfig::DynamicNtk::hf && !(c.rope && c.rope->config.scaling.type == RopeScalingType::dynamic))
        fail("dynamic", "'hf' applies only to a rope with dynamic NTK scaling");
    if (c.storage == KVStorage::q8 && c.headDim % static_cast<int>(kernels::kQ8Block) != 0)
        fail("headDim", "(" + std::to_string(c.headDim) + ") must be a multiple of 32 with storage 'q8': Q8_0 holds blocks of 32 channels");
    const std::size_t slots = elementCount({c.batch, c.capacity}, "capacity");
    elementCount({c.batch, c.kvHeads, c.capacity, std::max(c.headDim, valueChannels())}, "capacity");  // the key and value stores
    if (c.storage == KVStorage::q8 && c.valueDim % static_cast<int>(kernels::kQ8Block) != 0)
        fail("valueDim", "(" + std::to_string(c.valueDim) + ") must be a multiple of 32 with storage 'q8': Q8_0 holds blocks of 32 channels");
    const std::uint64_t bytes = storageBytes(c);
    const auto refuse = [&](const char* why) {
        fail("capacity", "(" + std::to_string(c.capacity) + ") needs " + std::to_string(bytes) + " bytes for keys and values (storage '" +
                             storageName(c.storage) + "', batch " + std::to_string(c.batch) + " x kvHeads " + std::to_string(c.kvHeads) + " x headDim " +
                             std::to_string(c.headDim) + (c.valueDim != 0 ? " / valueDim " + std::to_string(c.valueDim) : std::string()) + "): " + why);
    };
    if (bytes > std::numeric_limits<std::size_t>::max() / 2) refuse("more than this machine can address");
    slots_ = c.capacity;
    try {  // allocated once, every slot (zeros)
        keys_.assign(static_cast<std::size_t>(c.batch) * c.kvHeads * packedSize(), 0);
        values_.assign(slots * c.kvHeads * valueBytes(), 0);
    } catch (const std::bad_alloc&) {
        Bytes().swap(keys_);
        refuse("the allocation failed (out of memory)");
    }
    scratchKey_.resize(static_cast<std::size_t>(std::max(c.headDim, valueChannels())));  // a key or a value row
    scratchRingToken_.assign(static_cast<std::size_t>(c.window), -1);
    pos_.assign(slots, -1);
    occupied_.assign(slots, 0);
    rows_.assign(static_cast<std::size_t>(c.batch), Row{});
    keyNormMax_.assign(static_cast<std::size_t>(c.batch), 0.0);
}

template <class AngleOf, class Rows, class After>
void KVCache::rotate(std::size_t count, double scale, RopeRole role, AngleOf angleOf, int heads, Rows rows, After after) {
    const std::size_t A = static_cast<std::size_t>(axes());
    scratchAxisAngles_.resize(A * count);
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t t = 0; t < count; ++t) scratchAxisAngles_[a * count + t] = angleOf(a, t);
    detail::rotateHeads(*tables_, scratchAxisAngles_.data(), count, count, scale, role, heads, static_cast<std::size_t>(config_.headDim), rows, after);
}

std::optional<KVCache::DynamicState> KVCache::updateDynamic(std::int64_t maxPosition) {
    if (config_.dynamic != KVCacheConfig::DynamicNtk::hf || maxPosition < 0) return std::nullopt;
    const std::int64_t L0 = config_.rope->config.scaling.originalMaxPositionEmbeddings;
    const std::int64_t seqLen = maxPosition + 1;
    // HF: grow when the call's length passes what the schedule was made for; back to the original
    // schedule when a call is shorter than the original length again.
    std::int64_t want = dynamicLength_;
    if (seqLen > std::max(dynamicLength_, L0)) want = seqLen;
    else if (seqLen < L0 && dynamicLength_ > L0) want = 0;
    if (want == dynamicLength_) return std::nullopt;
    RopeConfig rc = config_.rope->config;
    rc.seqLen = want;
    RopeFrequencies f = ropeFrequencies(rc);
    RopeTables t(f, config_.rope->layout);
    std::optional<DynamicState> before = DynamicState{std::move(freqs_), std::move(tables_), dynamicLength_};
    freqs_ = std::move(f);  // moves: nothing here throws
    tables_.emplace(std::move(t));
    dynamicLength_ = want;
    return before;
}

void KVCache::restoreDynamic(DynamicState& before) noexcept {
    freqs_ = std::move(before.freqs);
    tables_ = std::move(before.tables);
    dynamicLength_ = before.length;
}

int KVCache::slotFor(Row& r) const {
    const KVCacheConfig& c = config_;
    if (r.sinksFilled < c.sinks) return r.sinksFilled++;
    if (c.window == 0) return c.sinks + r.filled++;
    if (r.ringCount < c.window) return c.sinks + (r.ringStart + r.ringCount++) % c.window;
    const int slot = c.sinks + r.ringStart;  // overwrite the oldest
    r.ringStart = (r.ringStart + 1) % c.window;
    return slot;
}

void KVCache::append(View<float> k, View<float> v, int T, View<std::int32_t> positions, View<std::uint8_t> mask,
                     View<std::int32_t> maskPositions, View<float> logForget) {
    appendRows(Input{k.data, v.data, k.size, v.size, kernels::kFormatF32}, T, positions, mask, maskPositions, logForget);
}

void KVCache::append(View<std::uint16_t> k, View<std::uint16_t> v, KVType kvType, int T, View<std::int32_t> positions, View<std::uint8_t> mask,
                     View<std::int32_t> maskPositions, View<float> logForget) {
    appendRows(Input{k.data, v.data, k.size, v.size, formatOf(storageOf(kvType))}, T, positions, mask, maskPositions, logForget);
}

std::size_t KVCache::firstUnstorable(const float* row, std::size_t hd) const {
    const KVCacheConfig& c = config_;
    if (c.storage == KVStorage::q8) {
        for (std::size_t g = 0; g < hd; g += kernels::kQ8Block) {
            unsigned char block[kernels::kQ8BlockBytes];
            kernels::quantizeQ8Block(row + g, block);
            if ((kernels::loadU16(block) & 0x7c00u) == 0x7c00u) return g;  // the fp16 scale overflows
        }
    } else if (c.storage == KVStorage::f16) {
        for (std::size_t i = 0; i < hd; ++i)
            if ((kernels::floatToF16(row[i]) & 0x7c00u) == 0x7c00u) return i;
    } else if (c.storage == KVStorage::bf16) {
        for (std::size_t i = 0; i < hd; ++i)
            if ((kernels::floatToBf16(row[i]) & 0x7f80u) == 0x7f80u) return i;
    }
    return hd;
}

std::string KVCache::unstorable(const float* row, std::size_t channel, const std::string& field) const {
    const KVStorage s = config_.storage;
    if (s == KVStorage::q8) {
        float amax = 0;
        for (std::size_t j = 0; j < kernels::kQ8Block; ++j) amax = std::max(amax, std::fabs(row[channel + j]));
        return "(a block of 32 channels, max |x| = " + detail::formatG17(amax) +
               ") needs a Q8_0 scale max|x| / 127 beyond float16's range (65504): storage 'q8' holds |x| below 8321040; use 'f16', 'bf16' or 'f32', or scale " +
               field + " down";
    }
    return "(" + detail::formatG17(row[channel]) + ") is beyond " + (s == KVStorage::f16 ? "float16's range (65504)" : "bfloat16's range (3.3895314e38)") +
           ": storage '" + storageName(s) + "' cannot hold it; use " + (s == KVStorage::f16 ? "'bf16' or 'f32'" : "'f32'") + ", or scale " + field + " down";
}

void KVCache::appendRows(const Input& in, int T, View<std::int32_t> positions, View<std::uint8_t> mask, View<std::int32_t> maskPositions,
                         View<float> logForget) {
    const KVCacheConfig& c = config_;
    requirePositive(T, "T");
    const std::size_t A = static_cast<std::size_t>(axes());
    const std::size_t hd = static_cast<std::size_t>(c.headDim), vd = static_cast<std::size_t>(valueChannels());
    // k's and v's sizes, both within what memory can address when the wider one is
    const std::size_t rows = elementCount({c.batch, c.kvHeads, T, std::max(c.headDim, valueChannels())}, "k") / static_cast<std::size_t>(std::max(c.headDim, valueChannels()));
    const std::size_t n = rows * hd, vn = rows * vd;
    if (in.kSize != n) fail("k", "must be [batch, kvHeads, T, headDim] = " + std::to_string(n) + " elements (got " + std::to_string(in.kSize) + ")");
    if (in.vSize != vn)
        fail("v", std::string("must be [batch, kvHeads, T, ") + (c.valueDim != 0 ? "valueDim" : "headDim") + "] = " + std::to_string(vn) +
                      " elements (got " + std::to_string(in.vSize) + ")");
    const std::size_t bt = static_cast<std::size_t>(c.batch) * T;
    // the sequence index of each token as given (multi-axis: maskPositions; else positions); empty = the row's next
    const View<std::int32_t> seq = detail::checkCachePositions(positions, maskPositions, A, {c.batch, T, "T"}, "positions");
    const char* seqField = A == 1 ? "positions" : "maskPositions";
    if (!mask.empty() && mask.size != bt) fail("mask", "must have batch*T = " + std::to_string(bt) + " entries (got " + std::to_string(mask.size) + ")");
    if (in.format == kernels::kFormatF32) {
        requireFiniteValues(static_cast<const float*>(in.k), n, "k");
        requireFiniteValues(static_cast<const float*>(in.v), vn, "v");
    } else {
        detail::requireFiniteBits(static_cast<const std::uint16_t*>(in.k), n, storageOf(in.format == kernels::kFormatF16 ? KVType::f16 : KVType::bf16), "k");
        detail::requireFiniteBits(static_cast<const std::uint16_t*>(in.v), vn, storageOf(in.format == kernels::kFormatF16 ? KVType::f16 : KVType::bf16), "v");
    }
    // forgetting: logForget [batch, heads, T], heads fixed by the first append
    int gateHeads = 0;
    if (!c.forgetting && !logForget.empty())
        fail("logForget", "is given to a cache created without forgetting: create the cache with forgetting: true to keep forget gates");
    if (c.forgetting) {
        if (logForget.empty())
            fail("logForget", "is required: the cache was created with forgetting, so every append gives [batch, heads, T] log forget gates");
        if (logForget.size % bt != 0 || logForget.size / bt % static_cast<std::size_t>(c.kvHeads) != 0)
            fail("logForget", "must be [batch, heads, T] with heads a multiple of kvHeads (" + std::to_string(c.kvHeads) + "): " + std::to_string(logForget.size) +
                                  " values is not a whole number of heads for batch*T = " + std::to_string(bt));
        const std::size_t h = logForget.size / bt;
        if (forgetHeads_ != 0 && h != static_cast<std::size_t>(forgetHeads_))
            fail("logForget", "must be [batch, heads, T] = " + std::to_string(bt * static_cast<std::size_t>(forgetHeads_)) + " values: the first append gave " +
                                  std::to_string(forgetHeads_) + " heads of gates (got " + std::to_string(logForget.size) + ")");
        if (h > static_cast<std::size_t>(limits::kMaxHeads)) fail("logForget", "has more heads (" + std::to_string(h) + ") than posenc's limit");
        requireLogForget(logForget.data, logForget.size, "logForget");
        gateHeads = static_cast<int>(h);
    }
    if (c.window > 0 && static_cast<std::int64_t>(c.capacity) + T > std::numeric_limits<int>::max())
        fail("T", "(" + std::to_string(T) + ") is too many tokens for one append: split it into calls of at most " +
                       std::to_string(std::numeric_limits<int>::max() - c.capacity) + " tokens");

    // Plan every row first (positions and slots) on copies of the bookkeeping; commit only if all is valid.
    std::vector<Row>& planned = plannedRows_;
    planned = rows_;  // same size every call: no allocation once warm
    scratchPos_.assign(bt, -1);
    scratchSlots_.assign(bt, -1);
    scratchMoves_.clear();
    int held = 0;  // the most keys any row holds past capacity after this call
    for (int b = 0; b < c.batch; ++b) {
        Row& r = planned[b];
        // positions first: which keys this call's queries need depends on its first position
        std::int64_t first = -1;
        for (int t = 0; t < T; ++t) {
            const std::size_t at = static_cast<std::size_t>(b) * T + t;
            if (!mask.empty() && mask[at] > 1) fail("mask[" + std::to_string(at) + "]", "must be 0 or 1 (got " + std::to_string(mask[at]) + ")");
            if (!mask.empty() && mask[at] == 0) continue;  // padding: no position, no slot
            std::int64_t p = seq.empty() ? r.next : seq[at];
            if (p < 0 || p > kMaxPosition)
                fail(seq.empty() ? seqField : std::string(seqField) + "[" + std::to_string(at) + "]",
                     "must be a position in [0, 2^31) (got " + std::to_string(p) + ")");
            if (freqs_ && !freqs_->xposZeta.empty() && p > freqs_->xposMaxPosition)
                fail(positions.empty() ? "positions" : "positions[" + std::to_string(at) + "]",
                     "(" + std::to_string(p) + ") is beyond xPos's range (" + std::to_string(freqs_->xposMaxPosition) + " for this xposScaleBase)");
            scratchPos_[at] = static_cast<std::int32_t>(p);
            first = first < 0 ? p : std::min(first, p);
            r.next = p + 1;
        }
        // then slots. A key the ring pushes out that a query of this call still sees (position >
        // first - window) is held past capacity until the next append; the previous call's are let go.
        r.held = 0;
        for (int t = 0; t < T; ++t) {
            const std::size_t at = static_cast<std::size_t>(b) * T + t;
            if (scratchPos_[at] < 0) continue;
            if (c.window == 0 && r.sinksFilled >= c.sinks && c.sinks + r.filled >= c.capacity)
                fail("capacity", "exceeded: row " + std::to_string(b) + " already holds " + std::to_string(c.capacity) +
                                     " tokens (no window is set, so nothing can be evicted)");
            const bool evicts = c.window > 0 && r.sinksFilled >= c.sinks && r.ringCount == c.window;
            const int slot = slotFor(r);
            if (slot >= c.sinks && c.window > 0) {
                int& owner = scratchRingToken_[static_cast<std::size_t>(slot - c.sinks)];
                if (evicts) {
                    if (owner >= 0) {  // a token of this call: it goes straight to a held slot
                        scratchSlots_[static_cast<std::size_t>(owner)] = c.capacity + r.held++;
                    } else if (pos_[slotIndex(b, slot)] > first - c.window) {  // a cached key this call's queries see
                        scratchMoves_.push_back(Move{b, slot, c.capacity + r.held++});
                    }
                }
                owner = static_cast<int>(at);
            }
            scratchSlots_[at] = slot;
        }
        for (int t = 0; t < T; ++t) {  // reset the ring's owners for the next row / call
            const int slot = scratchSlots_[static_cast<std::size_t>(b) * T + t];
            if (slot >= c.sinks && slot < c.capacity && c.window > 0) scratchRingToken_[static_cast<std::size_t>(slot - c.sinks)] = -1;
        }
        held = std::max(held, r.held);
    }
    // Room for the held keys: the stores grow past capacity when a call needs it, and return to
    // capacity on the first call that holds none (a decode step after a long prefill).
    const int wantSlots = c.capacity + held;
    if (wantSlots > slots_ || (held == 0 && slots_ > c.capacity))
        elementCount({c.batch, c.kvHeads, static_cast<std::int64_t>(c.capacity) + held, std::max(c.headDim, valueChannels())}, "k");
    // multi-axis: each real token's rotation position per axis (given, or its sequence index on every axis)
    if (A > 1) {
        scratchAxisPos_.assign(bt * A, 0);
        for (int b = 0; b < c.batch; ++b)
            for (std::size_t a = 0; a < A; ++a)
                for (int t = 0; t < T; ++t) {
                    const std::size_t at = static_cast<std::size_t>(b) * T + t;
                    if (scratchSlots_[at] < 0) continue;
                    const std::size_t src = (static_cast<std::size_t>(b) * A + a) * T + t;
                    const std::int32_t p = detail::axisPosition(positions.empty() ? nullptr : positions.data + static_cast<std::size_t>(b) * A * T,
                                                                static_cast<std::size_t>(T), a, static_cast<std::size_t>(t), scratchPos_[at]);
                    if (p < 0) fail("positions[" + std::to_string(src) + "]", "must be a position >= 0 (got " + std::to_string(p) + ")");
                    scratchAxisPos_[a * bt + at] = p;
                }
    }

    // The real tokens (their keys are rotated below, before the commit, with one table for all of them).
    scratchCommitted_.clear();  // the real tokens, in order (indices into the call's tokens)
    for (std::size_t at = 0; at < bt; ++at)
        if (scratchSlots_[at] >= 0) scratchCommitted_.push_back(static_cast<int>(at));
    std::optional<DynamicState> before;
    if (config_.dynamic == KVCacheConfig::DynamicNtk::hf) {
        std::int64_t maxPos = -1;
        for (int at : scratchCommitted_) maxPos = std::max<std::int64_t>(maxPos, scratchPos_[at]);
        before = updateDynamic(maxPos);
    }
    // The real tokens' keys, [kvHeads, tokens, headDim] in scratchRows_, rotated at their positions.
    const std::size_t committed = scratchCommitted_.size();
    try {
        scratchRows_.resize(static_cast<std::size_t>(c.kvHeads) * committed * hd);
        for (int h = 0; h < c.kvHeads; ++h)
            for (std::size_t t = 0; t < committed; ++t) {
                const std::size_t at = static_cast<std::size_t>(scratchCommitted_[t]), b = at / T;
                const std::size_t src = ((b * c.kvHeads + h) * T + at % T) * hd;
                in.row(in.k, src, hd, &scratchRows_[(h * committed + t) * hd]);
            }
        if (tables_)
            rotate(
                committed, freqs_->attentionScale, RopeRole::key,
                [&](std::size_t a, std::size_t t) {
                    const std::size_t at = static_cast<std::size_t>(scratchCommitted_[t]);
                    return static_cast<double>(A == 1 ? scratchPos_[at] : scratchAxisPos_[a * bt + at]);
                },
                c.kvHeads,
                [&](int h) {
                    float* rows = scratchRows_.data() + static_cast<std::size_t>(h) * committed * hd;
                    return std::pair<const float*, float*>(rows, rows);
                },
                [](int) {});
        // an element the storage cannot hold (q8: a block of 32) by its index in k or v
        const auto elements = [&](std::size_t i) {
            return c.storage == KVStorage::q8 ? std::to_string(i) + ".." + std::to_string(i + kernels::kQ8Block - 1) : std::to_string(i);
        };
        if (c.storage != KVStorage::f32) {  // what the storage cannot hold is refused before anything changes
            for (int h = 0; h < c.kvHeads; ++h)
                for (std::size_t t = 0; t < committed; ++t) {
                    const std::size_t at = static_cast<std::size_t>(scratchCommitted_[t]), b = at / T;
                    const std::size_t src = ((b * c.kvHeads + h) * T + at % T) * hd, vsrc = ((b * c.kvHeads + h) * T + at % T) * vd;
                    const float* key = &scratchRows_[(h * committed + t) * hd];
                    std::size_t i = firstUnstorable(key, hd);
                    if (i < hd) {
                        fail("k[" + elements(src + i) + "]", (tables_ ? "after RoPE at position " + std::to_string(scratchPos_[at]) + " " : std::string()) + unstorable(key, i, "k"));
                    }
                    in.row(in.v, vsrc, vd, scratchKey_.data());
                    if ((i = firstUnstorable(scratchKey_.data(), vd)) < vd) {
                        fail("v[" + elements(vsrc + i) + "]", unstorable(scratchKey_.data(), i, "v"));
                    }
                }
        }
        if (wantSlots > slots_ || (held == 0 && slots_ > c.capacity)) resizeSlots(wantSlots);  // the last steps that may throw (memory)
        if (c.forgetting && forgetHeads_ == 0) {  // the first append: the gates' heads are known now
            std::vector<double> g(static_cast<std::size_t>(c.batch) * gateHeads * slots_, 0.0), last(static_cast<std::size_t>(c.batch) * gateHeads, 0.0);
            ForgettingTables tables = reservedTables(gateHeads, slots_);
            forget_.swap(g);
            forgetLast_.swap(last);
            std::swap(forgetTables_, tables);
            forgetHeads_ = gateHeads;
        }
    } catch (...) {
        if (before) restoreDynamic(*before);
        throw;
    }
    // Nothing below throws. The previous call's held keys go; keys this call still needs move to held slots.
    for (int b = 0; b < c.batch; ++b)
        for (int s = c.capacity; s < std::min(c.capacity + rows_[b].held, slots_); ++s) {
            pos_[slotIndex(b, s)] = -1;
            occupied_[slotIndex(b, s)] = 0;
        }
    const int format = formatOf(c.storage);
    for (const Move& m : scratchMoves_) {
        for (int h = 0; h < c.kvHeads; ++h) {
            kernels::copyKey(format, packedKeys(m.b, h), static_cast<std::size_t>(m.from), static_cast<std::size_t>(m.to), hd);
            std::memcpy(valueRow(m.b, h, m.to), valueRow(m.b, h, m.from), valueBytes());
        }
        pos_[slotIndex(m.b, m.to)] = pos_[slotIndex(m.b, m.from)];
        occupied_[slotIndex(m.b, m.to)] = 1;
        for (int h = 0; h < forgetHeads_; ++h) forget_[forgetIndex(m.b, h, m.to)] = forget_[forgetIndex(m.b, h, m.from)];
    }
    // Commit: every real token's value and rotated key into its slot.
    std::size_t token = 0;
    for (int b = 0; b < c.batch; ++b) {
        for (int t = 0; t < T; ++t) {
            const std::size_t at = static_cast<std::size_t>(b) * T + t;
            const int slot = scratchSlots_[at];
            if (slot < 0) continue;
            for (int h = 0; h < c.kvHeads; ++h) {
                const std::size_t src = ((static_cast<std::size_t>(b) * c.kvHeads + h) * T + t) * vd;
                unsigned char* const row = valueRow(b, h, slot);
                if (format == kernels::kFormatF32 && in.format == kernels::kFormatF32) {
                    std::memcpy(row, static_cast<const float*>(in.v) + src, vd * sizeof(float));
                } else {
                    in.row(in.v, src, vd, scratchKey_.data());
                    kernels::storeValue(format, scratchKey_.data(), vd, row);
                }
                const float* key = scratchRows_.data() + (h * committed + token) * hd;
                kernels::storeKey(format, key, static_cast<std::size_t>(slot), hd, packedKeys(b, h));
                if (format != kernels::kFormatF32) {  // the norm of the key as stored (the floats attend reads)
                    kernels::loadKey(format, packedKeys(b, h), static_cast<std::size_t>(slot), hd, scratchKey_.data());
                    key = scratchKey_.data();
                }
                keyNormMax_[b] = std::max(keyNormMax_[b], detail::maxRowNorm(key, 1, hd));
            }
            ++token;
            for (int h = 0; h < forgetHeads_; ++h) {  // G continues the row's sum in token order (padding adds nothing)
                double& g = forgetLast_[static_cast<std::size_t>(b) * forgetHeads_ + h];
                g += static_cast<double>(logForget[(static_cast<std::size_t>(b) * forgetHeads_ + h) * T + t]);
                forget_[forgetIndex(b, h, slot)] = g;
            }
            pos_[slotIndex(b, slot)] = scratchPos_[at];
            occupied_[slotIndex(b, slot)] = 1;
        }
    }
    rows_ = planned;
}

void KVCache::attend(View<float> q, int heads, int qLen, const Encoding& encoding, View<std::int32_t> qPositions, bool causal,
                     float* out, double scale, View<std::int32_t> maskPositions, View<float> sinkLogits, std::optional<double> softcap) {
    const KVCacheConfig& c = config_;
    const std::size_t A = static_cast<std::size_t>(axes());
    requireSize(heads, "heads", limits::kMaxHeads);
    requirePositive(qLen, "qLen");
    if (heads % c.kvHeads != 0)
        fail("heads", "(" + std::to_string(heads) + ") must be a multiple of the cache's kvHeads (" + std::to_string(c.kvHeads) + ")");
    if (ropePart(encoding))
        fail("encoding.kind", "'rope' is the cache's own: configure `rope` on the cache and attend with 'none' (or a score-term encoding)");
    temperaturePart(encoding);  // checks a temperature encoding before anything changes
    if (forgettingPart(encoding)) {
        if (!c.forgetting)
            fail("encoding.kind", "'forgetting' needs a cache created with forgetting: true (it keeps the log forget gates given to each append)");
        if (!forgettingPart(encoding)->logForget.empty())
            fail("encoding.logForget", "is not given to attend: the cache holds the gates appended with each token");
        if (forgetHeads_ == 0) fail("encoding.kind", "'forgetting': the cache holds no tokens yet (no gates appended)");
        if (heads != forgetHeads_)
            fail("heads", "(" + std::to_string(heads) + ") must equal the heads of the appended forget gates (" + std::to_string(forgetHeads_) + ")");
    }
    const std::size_t perRow = static_cast<std::size_t>(heads) * qLen * c.headDim;
    if (q.size != perRow * c.batch)
        fail("q", "must be [batch, heads, qLen, headDim] = " + std::to_string(perRow * c.batch) + " elements (got " + std::to_string(q.size) + ")");
    const std::size_t bq = static_cast<std::size_t>(c.batch) * qLen;
    const View<std::int32_t> seq = detail::checkCachePositions(qPositions, maskPositions, A, {c.batch, qLen, "qLen"}, "qPositions");
    if (!qPositions.empty()) requirePositions(qPositions.data, qPositions.size, "qPositions");
    if (!maskPositions.empty()) requirePositions(maskPositions.data, maskPositions.size, "maskPositions");
    if (freqs_ && !qPositions.empty()) requireXposRange(*freqs_, qPositions.data, qPositions.size, "qPositions");
    if (!std::isnan(scale)) requireFinite(scale, "scale");
    detail::requireSinkLogits(sinkLogits, heads);
    detail::requireStickBreakingCall(encoding, causal, !sinkLogits.empty());
    const float cap = detail::checkedSoftcap(softcap);
    requireFiniteValues(q.data, q.size, "q");

    std::vector<std::int32_t>& qp = scratchQPos_;
    qp.resize(bq);
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < qLen; ++i)
            qp[static_cast<std::size_t>(b) * qLen + i] = seq.empty() ? detail::cacheQueryPosition(rows_[b].next, qLen, i) : seq[static_cast<std::size_t>(b) * qLen + i];

    std::optional<DynamicState> before;
    if (c.dynamic == KVCacheConfig::DynamicNtk::hf) before = updateDynamic(*std::max_element(qp.begin(), qp.end()));
    try {
        attendRows(q, heads, qLen, encoding, qPositions, causal, out, scale, sinkLogits, cap);
    } catch (...) {
        if (before) restoreDynamic(*before);
        throw;
    }
}

// attend's work once its arguments are checked and the schedule fits: rotate the queries, run the engine
// row by row (scratchQPos_ holds the queries' positions).
void KVCache::attendRows(View<float> q, int heads, int qLen, const Encoding& encoding, View<std::int32_t> qPositions, bool causal,
                         float* out, double scale, View<float> sinkLogits, float softcap) {
    const KVCacheConfig& c = config_;
    const std::size_t A = static_cast<std::size_t>(axes());
    const std::size_t hd = static_cast<std::size_t>(c.headDim), vd = static_cast<std::size_t>(valueChannels());
    const std::size_t perRow = static_cast<std::size_t>(heads) * qLen * hd, outPerRow = static_cast<std::size_t>(heads) * qLen * vd;
    const std::vector<std::int32_t>& qp = scratchQPos_;
    const TemperatureEncoding* temperature = temperaturePart(encoding);
    int kLen = c.capacity;  // the capacity slots and any held past them
    for (const Row& r : rows_) kLen = std::max(kLen, c.capacity + r.held);
    std::vector<float>& qRot = scratchQ_;
    qRot.assign(q.data, q.data + q.size);
    const float attendScale = static_cast<float>(std::isnan(scale) ? defaultScale(encoding, c.headDim) : scale);
    // every row's queries rotated and checked before any output is written: a failed call leaves `out` as it was
    for (int b = 0; b < c.batch; ++b) {
        float* qb = qRot.data() + perRow * b;
        const std::int32_t* pb = qp.data() + static_cast<std::size_t>(b) * qLen;
        if (tables_) {  // rotate the queries with the cache's own tables (no per-step allocation once warm)
            const std::int32_t* axisPos = A > 1 && !qPositions.empty() ? qPositions.data + static_cast<std::size_t>(b) * A * qLen : nullptr;
            rotate(
                static_cast<std::size_t>(qLen), freqs_->attentionScale, RopeRole::query,
                [&](std::size_t a, std::size_t t) { return static_cast<double>(detail::axisPosition(axisPos, static_cast<std::size_t>(qLen), a, t, pb[t])); },
                heads,
                [&](int h) {
                    float* rows = qb + static_cast<std::size_t>(h) * qLen * hd;
                    return std::pair<const float*, float*>(rows, rows);
                },
                [](int) {});
        }
        if (temperature) applyQueryTemperature(*temperature, qb, heads, qLen, c.headDim, pb);  // at the logical positions
        // cached keys carry the rope scale already, and the queries were just rotated with it
        detail::requireScoresInRange(qb, static_cast<std::size_t>(heads) * qLen, nullptr, 0, hd, std::fabs(attendScale) * keyNormMax_[b]);
    }
    for (int b = 0; b < c.batch; ++b) {
        AttentionInputs in;
        in.dims = AttentionDims{heads, c.kvHeads, c.headDim, qLen, kLen, c.valueDim};
        in.kvStride = static_cast<std::size_t>(slots_);
        in.scale = attendScale;
        in.sinkLogits = sinkLogits.empty() ? nullptr : sinkLogits.data;
        in.softcap = softcap;
        in.q = qRot.data() + perRow * b;
        in.k = nullptr;  // keys are stored packed for the engine's score kernel, in the storage's format
        in.kPacked = packedKeys(b, 0);
        in.v = valueRow(b, 0, 0);
        in.keyStorage = in.valueStorage = c.storage;
        in.qPos = qp.data() + static_cast<std::size_t>(b) * qLen;
        in.kPos = pos_.data() + slotIndex(b, 0);
        // the window by logical position, the sink slots exempt (as it was when the keys were appended)
        in.mask = AttentionMask{causal, c.window, occupied_.data() + slotIndex(b, 0), c.window > 0 ? c.sinks : 0, c.chunk};
        if (forgetHeads_ > 0) {
            in.forgetCumulative = forget_.data() + forgetIndex(b, 0, 0);
            in.forgetTables = &forgetTables_;
        }
        if (c.window > 0 && stickBreakingPart(encoding)) {  // the stick breaks in append order, which the ring's slots do not keep
            in.keyOrder = scratchOrder_;
            in.keyOrderSpans = static_cast<std::size_t>(appendOrder(b, scratchOrder_));
        }
        detail::runWithEncoding(in, encoding, AttentionOutputs{out + outPerRow * b, nullptr, nullptr}, &workspace_);
    }
}

// Row b's keys in the order they were appended, as slot spans: the sinks (the first tokens), the keys
// held past capacity (pushed out of the ring by the last append, in the order they were pushed out),
// then the ring from its oldest slot (ringStart) around to its newest.
int KVCache::appendOrder(int b, KeySpan* spans) const {
    const KVCacheConfig& c = config_;
    const Row& r = rows_[static_cast<std::size_t>(b)];
    int n = 0;
    const auto add = [&](int begin, int end) {
        if (end > begin) spans[n++] = KeySpan{begin, end};
    };
    add(0, r.sinksFilled);
    add(c.capacity, c.capacity + r.held);
    add(c.sinks + r.ringStart, c.sinks + std::min(c.window, r.ringStart + r.ringCount));
    add(c.sinks, c.sinks + std::max(0, r.ringStart + r.ringCount - c.window));
    return n;
}

void KVCache::rotateSlots(int b, const std::vector<int>& slots, const std::vector<double>& angles, const char* field) {
    const bool commit = field == nullptr;
    if (!tables_ || slots.empty()) return;
    const KVCacheConfig& c = config_;
    const std::size_t hd = static_cast<std::size_t>(c.headDim);
    const int format = formatOf(c.storage);
    // keys already carry the attention scale; a delta moves every axis alike. Head by head, the slots'
    // keys are converted to floats in scratchRows_, rotated, and converted back (f32: unpacked and packed).
    scratchRows_.resize(slots.size() * hd);
    float* const rows = scratchRows_.data();
    if (commit) keyNormMax_[b] = 0;  // rotation keeps norms, but xPos rescales (and storage rounds): recomputed over what is cached
    rotate(
        angles.size(), 1.0, RopeRole::key, [&](std::size_t, std::size_t t) { return angles[t]; }, c.kvHeads,
        [&](int h) {
            for (std::size_t s = 0; s < slots.size(); ++s) kernels::loadKey(format, packedKeys(b, h), static_cast<std::size_t>(slots[s]), hd, rows + s * hd);
            return std::pair<const float*, float*>(rows, rows);
        },
        [&](int h) {
            for (std::size_t s = 0; s < slots.size(); ++s) {
                const float* key = rows + s * hd;
                if (!commit) {
                    const std::size_t i = firstUnstorable(key, hd);
                    if (i < hd)
                        fail(field, "re-rotates the key in slot " + std::to_string(slots[s]) + " of row " + std::to_string(b) + ", kv head " + std::to_string(h) +
                                        ", to one storage '" + storageName(c.storage) + "' cannot hold: channel " + std::to_string(i) + " " + unstorable(key, i, "the keys"));
                    continue;
                }
                kernels::storeKey(format, key, static_cast<std::size_t>(slots[s]), hd, packedKeys(b, h));
                if (format != kernels::kFormatF32) {
                    kernels::loadKey(format, packedKeys(b, h), static_cast<std::size_t>(slots[s]), hd, scratchKey_.data());
                    key = scratchKey_.data();
                }
                keyNormMax_[b] = std::max(keyNormMax_[b], detail::maxRowNorm(key, 1, hd));
            }
        });
}

namespace {
// LieRE with several axes moves a key from p to p + delta (every axis) by one rotation only when its
// generators commute; otherwise the key's own per-axis positions would be needed, which the cache keeps
// as one sequence position per slot.
void requireMovable(const std::optional<RopeFrequencies>& f, const char* field) {
    if (f && f->blockSize > 0 && !f->generatorsCommute)
        fail(field, "cannot re-rotate cached keys of a 'liere' rope whose generators do not commute across axes: "
                    "exp(sum p_a G_a) is then no product of per-axis turns; append the keys again at their new positions");
}
}  // namespace

void KVCache::shift(std::int64_t delta) {
    const KVCacheConfig& c = config_;
    requireMovable(freqs_, "delta");
    for (std::size_t i = 0; i < pos_.size(); ++i) {  // held keys move too
        if (!occupied_[i]) continue;
        const std::int64_t p = pos_[i] + delta;
        const std::size_t slot = i % static_cast<std::size_t>(slots_), row = i / static_cast<std::size_t>(slots_);
        const std::string which = slot < static_cast<std::size_t>(c.capacity) ? "the token in slot " + std::to_string(slot)
                                                                                : std::string("a key held for the last append");
        if (freqs_ && !freqs_->xposZeta.empty() && p > freqs_->xposMaxPosition)
            fail("delta", "moves " + which + " to position " + std::to_string(p) + ", beyond xPos's range (" + std::to_string(freqs_->xposMaxPosition) + ")");
        if (p < 0 || p > kMaxPosition)
            fail("delta", "moves " + which + " of row " + std::to_string(row) + " to position " + std::to_string(p) + ", outside [0, 2^31)");
    }
    for (const Row& r : rows_)
        if (r.next + delta < 0 || r.next + delta > kMaxPosition + 1) fail("delta", "moves the next position outside [0, 2^31)");
    const auto occupiedSlots = [&](int b) {
        std::vector<int> slots;
        for (int s = 0; s < slots_; ++s)
            if (occupied_[slotIndex(b, s)]) slots.push_back(s);
        return slots;
    };
    if (c.storage != KVStorage::f32 && tables_)  // a first pass: every re-rotated key storable, before anything changes
        for (int b = 0; b < c.batch; ++b) {
            const std::vector<int> slots = occupiedSlots(b);
            rotateSlots(b, slots, std::vector<double>(slots.size(), static_cast<double>(delta)), "delta");
        }
    for (int b = 0; b < c.batch; ++b) {
        std::vector<int> slots;
        for (int s = 0; s < slots_; ++s)
            if (occupied_[slotIndex(b, s)]) {
                slots.push_back(s);
                pos_[slotIndex(b, s)] += static_cast<std::int32_t>(delta);
            }
        rotateSlots(b, slots, std::vector<double>(slots.size(), static_cast<double>(delta)));
        rows_[b].next += delta;
    }
}

void KVCache::renumber(View<std::int32_t> np) {
    const KVCacheConfig& c = config_;
    const std::size_t n = static_cast<std::size_t>(c.batch) * c.capacity;
    if (np.size != n)
        fail("newPositions", "must have batch*capacity = " + std::to_string(n) + " entries in positions() order (got " + std::to_string(np.size) + ")");
    if (freqs_) requireXposRange(*freqs_, np.data, np.size, "newPositions");
    requireMovable(freqs_, "newPositions");
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t slot = slotIndex(static_cast<int>(i / c.capacity), static_cast<int>(i % c.capacity));
        if (occupied_[slot] && np[i] < 0)
            fail("newPositions[" + std::to_string(i) + "]", "must be a position >= 0 for an occupied slot (got " + std::to_string(np[i]) + ")");
        if (!occupied_[slot] && np[i] != -1)
            fail("newPositions[" + std::to_string(i) + "]", "must stay -1: the slot is empty (got " + std::to_string(np[i]) + ")");
    }
    // each row's occupied capacity slots and their position deltas
    const auto plan = [&](int b, std::vector<int>& slots, std::vector<double>& deltas) {
        for (int s = 0; s < c.capacity; ++s) {
            const std::size_t i = static_cast<std::size_t>(b) * c.capacity + s, slot = slotIndex(b, s);
            if (!occupied_[slot]) continue;
            slots.push_back(s);
            deltas.push_back(static_cast<double>(np[i]) - pos_[slot]);
        }
    };
    if (c.storage != KVStorage::f32 && tables_)  // a first pass: every re-rotated key storable, before anything changes
        for (int b = 0; b < c.batch; ++b) {
            std::vector<int> slots;
            std::vector<double> deltas;
            plan(b, slots, deltas);
            rotateSlots(b, slots, deltas, "newPositions");
        }
    dropHeld();  // keys held for the last append have no entry in newPositions: they go
    for (int b = 0; b < c.batch; ++b) {
        std::vector<int> slots;
        std::vector<double> deltas;
        plan(b, slots, deltas);
        std::int64_t maxPos = -1;
        for (const int s : slots) {
            const std::size_t i = static_cast<std::size_t>(b) * c.capacity + s;
            pos_[slotIndex(b, s)] = np[i];
            maxPos = std::max<std::int64_t>(maxPos, np[i]);
        }
        rotateSlots(b, slots, deltas);
        if (maxPos >= 0) rows_[b].next = maxPos + 1;
    }
}

std::size_t KVCache::packedSize() const {
    return kernels::packedKeyBytes(formatOf(config_.storage), static_cast<std::size_t>(slots_), static_cast<std::size_t>(config_.headDim));
}
std::size_t KVCache::valueBytes() const { return kernels::valueRowBytes(formatOf(config_.storage), static_cast<std::size_t>(valueChannels())); }

unsigned char* KVCache::packedKeys(int b, int h) { return keys_.data() + (static_cast<std::size_t>(b) * config_.kvHeads + h) * packedSize(); }
const unsigned char* KVCache::packedKeys(int b, int h) const {
    return keys_.data() + (static_cast<std::size_t>(b) * config_.kvHeads + h) * packedSize();
}
unsigned char* KVCache::valueRow(int b, int h, int slot) {
    return values_.data() + ((static_cast<std::size_t>(b) * config_.kvHeads + h) * static_cast<std::size_t>(slots_) + static_cast<std::size_t>(slot)) * valueBytes();
}

void KVCache::resizeSlots(int slots) {
    const KVCacheConfig& c = config_;
    const std::size_t hd = static_cast<std::size_t>(c.headDim), bh = static_cast<std::size_t>(c.batch) * c.kvHeads;
    const std::size_t keep = static_cast<std::size_t>(std::min(slots, slots_));
    const int format = formatOf(c.storage);
    const std::size_t oldPacked = packedSize(), newPacked = kernels::packedKeyBytes(format, static_cast<std::size_t>(slots), hd), row = valueBytes();
    // the new stores are built whole before any member changes (std::bad_alloc leaves the cache as it was)
    Bytes keys(bh * newPacked, 0), values(bh * slots * row, 0);
    std::vector<std::int32_t> pos(static_cast<std::size_t>(c.batch) * slots, -1);
    std::vector<std::uint8_t> occupied(pos.size(), 0);
    std::vector<double> forget(static_cast<std::size_t>(c.batch) * forgetHeads_ * slots, 0.0);
    for (std::size_t i = 0; i < static_cast<std::size_t>(c.batch) * forgetHeads_; ++i)
        std::copy_n(forget_.data() + i * slots_, keep, forget.data() + i * slots);
    const std::size_t keptPacked = kernels::packedKeyBytes(format, keep, hd);  // whole blocks: a slot's place in a block does not depend on the total
    for (std::size_t i = 0; i < bh; ++i) {
        std::copy_n(keys_.data() + i * oldPacked, keptPacked, keys.data() + i * newPacked);
        std::copy_n(values_.data() + i * slots_ * row, keep * row, values.data() + i * slots * row);
    }
    for (std::size_t b = 0; b < static_cast<std::size_t>(c.batch); ++b) {
        std::copy_n(pos_.data() + b * slots_, keep, pos.data() + b * slots);
        std::copy_n(occupied_.data() + b * slots_, keep, occupied.data() + b * slots);
    }
    ForgettingTables tables = forgetHeads_ > 0 ? reservedTables(forgetHeads_, slots) : ForgettingTables{};
    keys_.swap(keys);
    values_.swap(values);
    pos_.swap(pos);
    occupied_.swap(occupied);
    forget_.swap(forget);
    std::swap(forgetTables_, tables);
    slots_ = slots;
}

ForgettingTables KVCache::reservedTables(int heads, int slots) {
    const std::size_t h = static_cast<std::size_t>(heads), n = static_cast<std::size_t>(slots);
    ForgettingTables t;
    t.qPositions.reserve(1);
    t.anchors.reserve(h);
    t.blockMin.reserve(h * ((n + kernels::kKeyBlockKeys - 1) / kernels::kKeyBlockKeys));
    t.fromMin.reserve(h * n);
    return t;
}

std::size_t KVCache::bytes() const {
    return keys_.size() + values_.size() + (forget_.size() + forgetLast_.size()) * sizeof(double) +
           forgetTables_.blockMin.capacity() * sizeof(double) + forgetTables_.fromMin.capacity() * sizeof(float);
}

void KVCache::dropHeld() {
    for (int b = 0; b < config_.batch; ++b) {
        for (int s = config_.capacity; s < config_.capacity + rows_[b].held; ++s) {
            pos_[slotIndex(b, s)] = -1;
            occupied_[slotIndex(b, s)] = 0;
        }
        rows_[b].held = 0;
    }
}

std::vector<float> KVCache::keys() const {
    const KVCacheConfig& c = config_;
    const std::size_t hd = static_cast<std::size_t>(c.headDim);
    std::vector<float> rows(static_cast<std::size_t>(c.batch) * c.kvHeads * c.capacity * hd);
    for (int b = 0; b < c.batch; ++b)
        for (int h = 0; h < c.kvHeads; ++h)
            for (std::size_t s = 0; s < static_cast<std::size_t>(c.capacity); ++s)
                kernels::loadKey(formatOf(c.storage), packedKeys(b, h), s, hd, rows.data() + ((static_cast<std::size_t>(b) * c.kvHeads + h) * c.capacity + s) * hd);
    return rows;
}

std::vector<float> KVCache::values() const {
    const KVCacheConfig& c = config_;
    const std::size_t vd = static_cast<std::size_t>(valueChannels()), bh = static_cast<std::size_t>(c.batch) * c.kvHeads, row = valueBytes();
    std::vector<float> rows(bh * c.capacity * vd);
    for (std::size_t i = 0; i < bh; ++i)
        for (std::size_t s = 0; s < static_cast<std::size_t>(c.capacity); ++s)
            kernels::loadValue(formatOf(c.storage), values_.data() + (i * slots_ + s) * row, vd, rows.data() + (i * c.capacity + s) * vd);
    return rows;
}

std::vector<std::int32_t> KVCache::positions() const {
    std::vector<std::int32_t> p(static_cast<std::size_t>(config_.batch) * config_.capacity);
    for (int b = 0; b < config_.batch; ++b) std::copy_n(pos_.data() + slotIndex(b, 0), config_.capacity, p.data() + static_cast<std::size_t>(b) * config_.capacity);
    return p;
}

std::vector<double> KVCache::forgetCumulative() const {
    std::vector<double> g(static_cast<std::size_t>(config_.batch) * forgetHeads_ * config_.capacity, 0.0);
    for (int b = 0; b < config_.batch; ++b)
        for (int h = 0; h < forgetHeads_; ++h)
            for (int s = 0; s < config_.capacity; ++s)
                if (occupied_[slotIndex(b, s)]) g[(static_cast<std::size_t>(b) * forgetHeads_ + h) * config_.capacity + s] = forget_[forgetIndex(b, h, s)];
    return g;
}

std::vector<std::int32_t> KVCache::nextPositions() const {
    std::vector<std::int32_t> n;
    for (const Row& r : rows_) n.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(r.next, kMaxPosition)));
    return n;
}

}  // namespace posenc
