#include "cache/kv_cache.hpp"

#include <algorithm>
#include <cstring>

#include "common/errors.hpp"
#include "kernels/attention_tile.hpp"

namespace posenc {

namespace {
constexpr std::int64_t kMaxPosition = 2147483647;
}

KVCache::KVCache(const KVCacheConfig& c) : config_(c) {
    requirePositive(c.batch, "batch");
    requirePositive(c.kvHeads, "kvHeads");
    requirePositive(c.headDim, "headDim");
    requirePositive(c.capacity, "capacity");
    requireNonNegative(c.window, "window");
    requireNonNegative(c.sinks, "sinks");
    if (c.window > 0 && c.sinks + c.window > c.capacity)
        fail("capacity", "(" + std::to_string(c.capacity) + ") must hold sinks + window = " + std::to_string(c.sinks + c.window) + " slots");
    if (c.window == 0 && c.sinks > c.capacity) fail("sinks", "must not exceed capacity");
    if (c.rope) {
        RopeConfig rc = c.rope->config;
        rc.headDim = c.headDim;
        freqs_ = ropeFrequencies(rc);
        if (freqs_->rotaryDim > c.headDim) fail("rope", "rotary dim exceeds headDim");
        config_.rope->config = rc;
        tables_.emplace(*freqs_, c.rope->layout);
    }
    if (c.dynamic == KVCacheConfig::DynamicNtk::hf && !(c.rope && c.rope->config.scaling.type == RopeScalingType::dynamic))
        fail("dynamic", "'hf' applies only to a rope with dynamic NTK scaling");
    const std::size_t slots = elementCount({c.batch, c.capacity}, "capacity");
    elementCount({c.batch, c.kvHeads, c.capacity, c.headDim}, "capacity");  // the key and value stores
    keys_.assign(static_cast<std::size_t>(c.batch) * c.kvHeads * packedSize(), 0.0f);
    values_.assign(slots * c.kvHeads * c.headDim, 0.0f);
    scratchKey_.resize(static_cast<std::size_t>(c.headDim));
    pos_.assign(slots, -1);
    occupied_.assign(slots, 0);
    rows_.assign(static_cast<std::size_t>(c.batch), Row{});
    keyNormMax_.assign(static_cast<std::size_t>(c.batch), 0.0);
}

template <class AngleOf>
void KVCache::buildTables(std::size_t count, double scale, RopeRole role, AngleOf angleOf) {
    const std::size_t A = static_cast<std::size_t>(axes());
    scratchAxisAngles_.resize(A * count);
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t t = 0; t < count; ++t) scratchAxisAngles_[a * count + t] = angleOf(a, t);
    tables_->build(scratchAxisAngles_.data(), count, scale, role, count);
}

void KVCache::updateDynamic(std::int64_t maxPosition) {
    if (config_.dynamic != KVCacheConfig::DynamicNtk::hf || maxPosition < 0) return;
    const std::int64_t L0 = config_.rope->config.scaling.originalMaxPositionEmbeddings;
    const std::int64_t seqLen = maxPosition + 1;
    // HF: grow when the call's length passes what the schedule was made for; back to the original
    // schedule when a call is shorter than the original length again.
    std::int64_t want = dynamicLength_;
    if (seqLen > std::max(dynamicLength_, L0)) want = seqLen;
    else if (seqLen < L0 && dynamicLength_ > L0) want = 0;
    if (want == dynamicLength_) return;
    RopeConfig rc = config_.rope->config;
    rc.seqLen = want;
    freqs_ = ropeFrequencies(rc);
    tables_.emplace(*freqs_, config_.rope->layout);
    dynamicLength_ = want;
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
                     View<std::int32_t> maskPositions) {
    const KVCacheConfig& c = config_;
    requirePositive(T, "T");
    const std::size_t A = static_cast<std::size_t>(axes());
    const std::size_t hd = static_cast<std::size_t>(c.headDim);
    const std::size_t n = elementCount({c.batch, c.kvHeads, T, c.headDim}, "k");
    if (k.size != n) fail("k", "must be [batch, kvHeads, T, headDim] = " + std::to_string(n) + " elements (got " + std::to_string(k.size) + ")");
    if (v.size != n) fail("v", "must be [batch, kvHeads, T, headDim] = " + std::to_string(n) + " elements (got " + std::to_string(v.size) + ")");
    const std::size_t bt = static_cast<std::size_t>(c.batch) * T;
    if (A == 1 && !maskPositions.empty()) fail("maskPositions", "apply only to multi-axis RoPE (otherwise positions are the mask positions)");
    if (!positions.empty() && positions.size != bt * A)
        fail("positions", A == 1 ? "must have batch*T = " + std::to_string(bt) + " entries (got " + std::to_string(positions.size) + ")"
                                 : "must be [batch, axes, T] = " + std::to_string(bt * A) + " entries for multi-axis RoPE (got " +
                                       std::to_string(positions.size) + ")");
    if (!maskPositions.empty() && maskPositions.size != bt)
        fail("maskPositions", "must have batch*T = " + std::to_string(bt) + " entries (got " + std::to_string(maskPositions.size) + ")");
    // the sequence index of token `at` as given (multi-axis: maskPositions; else positions), or -1 = the row's next
    View<std::int32_t> seq = A == 1 ? positions : maskPositions;
    const char* seqField = A == 1 ? "positions" : "maskPositions";
    if (!mask.empty() && mask.size != bt) fail("mask", "must have batch*T = " + std::to_string(bt) + " entries (got " + std::to_string(mask.size) + ")");
    requireFiniteValues(k.data, n, "k");
    requireFiniteValues(v.data, n, "v");

    // Plan every row first (positions and slots) on copies of the bookkeeping; commit only if all is valid.
    std::vector<Row>& planned = plannedRows_;
    planned = rows_;  // same size every call: no allocation once warm
    scratchPos_.assign(bt, -1);
    scratchSlots_.assign(bt, -1);
    for (int b = 0; b < c.batch; ++b) {
        Row& r = planned[b];
        for (int t = 0; t < T; ++t) {
            const std::size_t at = static_cast<std::size_t>(b) * T + t;
            if (!mask.empty() && mask[at] > 1) fail("mask[" + std::to_string(at) + "]", "must be 0 or 1 (got " + std::to_string(mask[at]) + ")");
            if (!mask.empty() && mask[at] == 0) continue;  // padding: no position, no slot
            std::int64_t p = seq.empty() ? r.next : seq[at];
            if (p < 0 || p > kMaxPosition)
                fail(seq.empty() ? seqField : std::string(seqField) + "[" + std::to_string(at) + "]",
                     "must be a position in [0, 2^31) (got " + std::to_string(p) + ")");
            if (c.window == 0 && r.sinksFilled >= c.sinks && c.sinks + r.filled >= c.capacity)
                fail("capacity", "exceeded: row " + std::to_string(b) + " already holds " + std::to_string(c.capacity) +
                                     " tokens (no window is set, so nothing can be evicted)");
            if (freqs_ && !freqs_->xposZeta.empty() && p > freqs_->xposMaxPosition)
                fail(positions.empty() ? "positions" : "positions[" + std::to_string(at) + "]",
                     "(" + std::to_string(p) + ") is beyond xPos's range (" + std::to_string(freqs_->xposMaxPosition) + " for this xposScaleBase)");
            scratchPos_[at] = static_cast<std::int32_t>(p);
            scratchSlots_[at] = slotFor(r);
            r.next = p + 1;
        }
    }
    // multi-axis: each real token's rotation position per axis (given, or its sequence index on every axis)
    if (A > 1) {
        scratchAxisPos_.assign(bt * A, 0);
        for (int b = 0; b < c.batch; ++b)
            for (std::size_t a = 0; a < A; ++a)
                for (int t = 0; t < T; ++t) {
                    const std::size_t at = static_cast<std::size_t>(b) * T + t;
                    if (scratchSlots_[at] < 0) continue;
                    const std::size_t src = (static_cast<std::size_t>(b) * A + a) * T + t;
                    const std::int32_t p = positions.empty() ? scratchPos_[at] : positions[src];
                    if (p < 0) fail("positions[" + std::to_string(src) + "]", "must be a position >= 0 (got " + std::to_string(p) + ")");
                    scratchAxisPos_[a * bt + at] = p;
                }
    }

    // Commit: copy (and rotate) every real token into its slot; one rotation table for all of them.
    scratchCommitted_.clear();  // the real tokens, in order (indices into the call's tokens)
    for (std::size_t at = 0; at < bt; ++at)
        if (scratchSlots_[at] >= 0) scratchCommitted_.push_back(static_cast<int>(at));
    if (config_.dynamic == KVCacheConfig::DynamicNtk::hf) {
        std::int64_t maxPos = -1;
        for (int at : scratchCommitted_) maxPos = std::max<std::int64_t>(maxPos, scratchPos_[at]);
        updateDynamic(maxPos);
    }
    if (tables_)
        buildTables(scratchCommitted_.size(), freqs_->attentionScale, RopeRole::key, [&](std::size_t a, std::size_t t) {
            const std::size_t at = static_cast<std::size_t>(scratchCommitted_[t]);
            return static_cast<double>(A == 1 ? scratchPos_[at] : scratchAxisPos_[a * bt + at]);
        });
    std::size_t token = 0;
    for (int b = 0; b < c.batch; ++b) {
        for (int t = 0; t < T; ++t) {
            const std::size_t at = static_cast<std::size_t>(b) * T + t;
            const int slot = scratchSlots_[at];
            if (slot < 0) continue;
            for (int h = 0; h < c.kvHeads; ++h) {
                const std::size_t src = ((static_cast<std::size_t>(b) * c.kvHeads + h) * T + t) * hd;
                const std::size_t dst = ((static_cast<std::size_t>(b) * c.kvHeads + h) * c.capacity + slot) * hd;
                std::memcpy(&values_[dst], v.data + src, hd * sizeof(float));
                float* key = scratchKey_.data();
                std::memcpy(key, k.data + src, hd * sizeof(float));
                if (tables_) tables_->rotate(key, token);
                kernels::packKey(key, static_cast<std::size_t>(slot), hd, packedKeys(b, h));
                keyNormMax_[b] = std::max(keyNormMax_[b], detail::maxRowNorm(key, 1, hd));
            }
            ++token;
            pos_[static_cast<std::size_t>(b) * c.capacity + slot] = scratchPos_[at];
            occupied_[static_cast<std::size_t>(b) * c.capacity + slot] = 1;
        }
    }
    rows_ = planned;
}

void KVCache::attend(View<float> q, int heads, int qLen, const Encoding& encoding, View<std::int32_t> qPositions, bool causal,
                     float* out, double scale, View<std::int32_t> maskPositions) {
    const KVCacheConfig& c = config_;
    const std::size_t A = static_cast<std::size_t>(axes());
    requirePositive(heads, "heads");
    requirePositive(qLen, "qLen");
    if (heads % c.kvHeads != 0)
        fail("heads", "(" + std::to_string(heads) + ") must be a multiple of the cache's kvHeads (" + std::to_string(c.kvHeads) + ")");
    if (ropePart(encoding))
        fail("encoding.kind", "'rope' is the cache's own: configure `rope` on the cache and attend with 'none' (or a score-term encoding)");
    const TemperatureEncoding* temperature = temperaturePart(encoding);  // validated before anything changes
    const std::size_t hd = static_cast<std::size_t>(c.headDim);
    const std::size_t perRow = static_cast<std::size_t>(heads) * qLen * hd;
    if (q.size != perRow * c.batch)
        fail("q", "must be [batch, heads, qLen, headDim] = " + std::to_string(perRow * c.batch) + " elements (got " + std::to_string(q.size) + ")");
    const std::size_t bq = static_cast<std::size_t>(c.batch) * qLen;
    if (A == 1 && !maskPositions.empty()) fail("maskPositions", "apply only to multi-axis RoPE (otherwise qPositions are the mask positions)");
    if (!qPositions.empty() && qPositions.size != bq * A)
        fail("qPositions", A == 1 ? "must have batch*qLen = " + std::to_string(bq) + " entries (got " + std::to_string(qPositions.size) + ")"
                                  : "must be [batch, axes, qLen] = " + std::to_string(bq * A) + " entries for multi-axis RoPE (got " +
                                        std::to_string(qPositions.size) + ")");
    if (!maskPositions.empty() && maskPositions.size != bq)
        fail("maskPositions", "must have batch*qLen = " + std::to_string(bq) + " entries (got " + std::to_string(maskPositions.size) + ")");
    if (!qPositions.empty()) requirePositions(qPositions.data, qPositions.size, "qPositions");
    if (!maskPositions.empty()) requirePositions(maskPositions.data, maskPositions.size, "maskPositions");
    if (freqs_ && !qPositions.empty()) requireXposRange(*freqs_, qPositions.data, qPositions.size, "qPositions");
    View<std::int32_t> seq = A == 1 ? qPositions : maskPositions;
    if (!std::isnan(scale)) requireFinite(scale, "scale");
    requireFiniteValues(q.data, q.size, "q");

    std::vector<std::int32_t>& qp = scratchQPos_;
    qp.resize(bq);
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < qLen; ++i)
            qp[static_cast<std::size_t>(b) * qLen + i] = seq.empty()
                ? static_cast<std::int32_t>(std::max<std::int64_t>(rows_[b].next - qLen + i, 0))
                : seq[static_cast<std::size_t>(b) * qLen + i];

    if (c.dynamic == KVCacheConfig::DynamicNtk::hf) updateDynamic(*std::max_element(qp.begin(), qp.end()));
    std::vector<float>& qRot = scratchQ_;
    qRot.assign(q.data, q.data + q.size);
    for (int b = 0; b < c.batch; ++b) {
        float* qb = qRot.data() + perRow * b;
        const std::int32_t* pb = qp.data() + static_cast<std::size_t>(b) * qLen;
        if (tables_) {  // rotate the queries with the cache's own tables (no per-step allocation once warm)
            const std::int32_t* axisPos = A > 1 && !qPositions.empty() ? qPositions.data + static_cast<std::size_t>(b) * A * qLen : nullptr;
            buildTables(static_cast<std::size_t>(qLen), freqs_->attentionScale, RopeRole::query, [&](std::size_t a, std::size_t t) {
                return static_cast<double>(axisPos ? axisPos[a * qLen + t] : pb[t]);
            });
            for (int h = 0; h < heads; ++h)
                for (int t = 0; t < qLen; ++t) tables_->rotate(qb + (static_cast<std::size_t>(h) * qLen + t) * hd, static_cast<std::size_t>(t));
        }
        if (temperature) applyQueryTemperature(*temperature, qb, heads, qLen, c.headDim, pb);  // at the logical positions
        AttentionInputs in;
        in.dims = AttentionDims{heads, c.kvHeads, c.headDim, qLen, c.capacity};
        in.scale = static_cast<float>(std::isnan(scale) ? defaultScale(encoding, c.headDim) : scale);
        // cached keys carry the rope scale already, and the queries were just rotated with it
        detail::requireScoresInRange(qb, static_cast<std::size_t>(heads) * qLen, nullptr, 0, hd, std::fabs(in.scale) * keyNormMax_[b]);
        in.q = qb;
        in.k = nullptr;  // keys are stored packed for the engine's score kernel
        in.kPacked = packedKeys(b, 0);
        in.v = values_.data() + static_cast<std::size_t>(b) * c.kvHeads * c.capacity * hd;
        in.qPos = pb;
        in.kPos = pos_.data() + static_cast<std::size_t>(b) * c.capacity;
        in.mask = AttentionMask{causal, 0, occupied_.data() + static_cast<std::size_t>(b) * c.capacity};
        detail::runWithEncoding(in, encoding, AttentionOutputs{out + perRow * b, nullptr, nullptr}, &workspace_);
    }
}

void KVCache::rotateSlots(int b, const std::vector<int>& slots, const std::vector<double>& angles) {
    if (!tables_ || slots.empty()) return;
    const KVCacheConfig& c = config_;
    const std::size_t hd = static_cast<std::size_t>(c.headDim);
    // keys already carry the attention scale; a delta moves every axis alike
    buildTables(angles.size(), 1.0, RopeRole::key, [&](std::size_t, std::size_t t) { return angles[t]; });
    float* key = scratchKey_.data();
    keyNormMax_[b] = 0;  // rotation keeps norms, but xPos rescales: recomputed over what is cached
    for (int h = 0; h < c.kvHeads; ++h)
        for (std::size_t s = 0; s < slots.size(); ++s) {
            kernels::unpackKey(packedKeys(b, h), static_cast<std::size_t>(slots[s]), hd, key);
            tables_->rotate(key, s);
            kernels::packKey(key, static_cast<std::size_t>(slots[s]), hd, packedKeys(b, h));
            keyNormMax_[b] = std::max(keyNormMax_[b], detail::maxRowNorm(key, 1, hd));
        }
}

void KVCache::shift(std::int64_t delta) {
    const KVCacheConfig& c = config_;
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        if (!occupied_[i]) continue;
        const std::int64_t p = pos_[i] + delta;
        if (freqs_ && !freqs_->xposZeta.empty() && p > freqs_->xposMaxPosition)
            fail("delta", "moves the token in slot " + std::to_string(i % c.capacity) + " to position " + std::to_string(p) +
                              ", beyond xPos's range (" + std::to_string(freqs_->xposMaxPosition) + ")");
        if (p < 0 || p > kMaxPosition)
            fail("delta", "moves the token in slot " + std::to_string(i % c.capacity) + " of row " + std::to_string(i / c.capacity) +
                              " to position " + std::to_string(p) + ", outside [0, 2^31)");
    }
    for (const Row& r : rows_)
        if (r.next + delta < 0 || r.next + delta > kMaxPosition + 1) fail("delta", "moves the next position outside [0, 2^31)");
    for (int b = 0; b < c.batch; ++b) {
        std::vector<int> slots;
        for (int s = 0; s < c.capacity; ++s)
            if (occupied_[static_cast<std::size_t>(b) * c.capacity + s]) {
                slots.push_back(s);
                pos_[static_cast<std::size_t>(b) * c.capacity + s] += static_cast<std::int32_t>(delta);
            }
        rotateSlots(b, slots, std::vector<double>(slots.size(), static_cast<double>(delta)));
        rows_[b].next += delta;
    }
}

void KVCache::renumber(View<std::int32_t> np) {
    const KVCacheConfig& c = config_;
    if (np.size != pos_.size())
        fail("newPositions", "must have batch*capacity = " + std::to_string(pos_.size()) + " entries in positions() order (got " + std::to_string(np.size) + ")");
    if (freqs_) requireXposRange(*freqs_, np.data, np.size, "newPositions");
    for (std::size_t i = 0; i < pos_.size(); ++i) {
        if (occupied_[i] && np[i] < 0)
            fail("newPositions[" + std::to_string(i) + "]", "must be a position >= 0 for an occupied slot (got " + std::to_string(np[i]) + ")");
        if (!occupied_[i] && np[i] != -1)
            fail("newPositions[" + std::to_string(i) + "]", "must stay -1: the slot is empty (got " + std::to_string(np[i]) + ")");
    }
    for (int b = 0; b < c.batch; ++b) {
        std::vector<int> slots;
        std::vector<double> deltas;
        std::int64_t maxPos = -1;
        for (int s = 0; s < c.capacity; ++s) {
            const std::size_t i = static_cast<std::size_t>(b) * c.capacity + s;
            if (!occupied_[i]) continue;
            slots.push_back(s);
            deltas.push_back(static_cast<double>(np[i]) - pos_[i]);
            pos_[i] = np[i];
            maxPos = std::max<std::int64_t>(maxPos, np[i]);
        }
        rotateSlots(b, slots, deltas);
        if (maxPos >= 0) rows_[b].next = maxPos + 1;
    }
}

std::size_t KVCache::packedSize() const {
    return kernels::packedKeysSize(static_cast<std::size_t>(config_.capacity), static_cast<std::size_t>(config_.headDim));
}

float* KVCache::packedKeys(int b, int h) { return keys_.data() + (static_cast<std::size_t>(b) * config_.kvHeads + h) * packedSize(); }

std::vector<float> KVCache::keys() const {
    const KVCacheConfig& c = config_;
    const std::size_t hd = static_cast<std::size_t>(c.headDim);
    std::vector<float> rows(static_cast<std::size_t>(c.batch) * c.kvHeads * c.capacity * hd);
    for (std::size_t bh = 0; bh < static_cast<std::size_t>(c.batch) * c.kvHeads; ++bh)
        for (std::size_t s = 0; s < static_cast<std::size_t>(c.capacity); ++s)
            kernels::unpackKey(keys_.data() + bh * packedSize(), s, hd, rows.data() + (bh * c.capacity + s) * hd);
    return rows;
}

std::vector<std::int32_t> KVCache::positions() const { return pos_; }

std::vector<std::int32_t> KVCache::nextPositions() const {
    std::vector<std::int32_t> n;
    for (const Row& r : rows_) n.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(r.next, kMaxPosition)));
    return n;
}

}  // namespace posenc
