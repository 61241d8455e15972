// KV-cache position bookkeeping. A cache slot is not a position: every slot carries the logical
// position of the token in it, keys are stored already rotated at that position (as inference
// engines do), and attention runs through the same engine as `attention` with those positions.
//
// Layout per batch row: `sinks` slots kept forever, then either plain slots up to `capacity`
// (no window: appending past capacity is an error) or a ring of `window` slots holding the most
// recent tokens. Padding (mask 0) gets neither a slot nor a position. Every call validates fully
// before it changes anything, so a failed call leaves the cache exactly as it was.
//
// Sliding window (as Hugging Face and vLLM): with `window` W, a query at position p sees the keys
// with p - W < position <= p, plus the sink tokens (the first `sinks` slots; with `causal`, only
// those at or before p) — however the tokens were appended. An append that pushes tokens out of the
// ring while its own tokens still need them under that rule (a prefill longer than the window, in
// one call or in chunks) holds them in slots past `capacity` until the next append or renumber
// (shift moves them with the rest), so `attend` with that append's queries equals sliding-window
// attention over the whole sequence. Those slots take memory only while held; positions(), keys()
// and values() show the `capacity` slots.
//
// Storage (KVCacheConfig::storage, posenc/attention/kv_storage.hpp): keys (after RoPE) and values are held
// as float32, f16, bf16 or ggml's Q8_0, converted once when appended, and attend reads them in that
// format (no float copy of the cache is made). A key or value the storage cannot hold (beyond f16's
// range, a Q8_0 scale beyond f16's) is refused by name, before anything changes. shift / renumber
// re-rotate stored keys by converting them to float, rotating, and converting back.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "posenc/attention/attention.hpp"

namespace posenc {

struct KVCacheConfig {
    int batch = 1;
    int kvHeads = 0;
    int headDim = 0;   // keys' (and queries') channels
    int valueDim = 0;  // values' (and attend's output) channels, when they differ (DeepSeek MLA); 0 = headDim
    int capacity = 0;
    int window = 0;  // 0 = no sliding window
    int sinks = 0;
    // 0 = none; else attend shows a query only the keys of its own chunk, position / chunk (Llama 4's
    // chunked layers). With window = chunk the cache holds one chunk, all a query can see. No sinks.
    int chunk = 0;
    std::optional<RopeEncoding> rope;  // keys are rotated with it on append
    // Dynamic NTK in a cache. fixed: the configured schedule (rope.config.seqLen) for every token, so
    // cached keys and new queries always agree. hf: as Hugging Face's dynamic_rope_update, the base is
    // re-derived from the largest position + 1 of each call once it passes the original length (and
    // reset below it) — new tokens then rotate with a base the cached keys were not rotated with.
    enum class DynamicNtk { fixed, hf } dynamic = DynamicNtk::fixed;
    KVStorage storage = KVStorage::f32;  // how keys and values are held (q8: headDim a multiple of 32)
    // Forgetting attention (posenc/scores/forgetting.hpp): every append gives logForget [batch, heads, T]
    // (heads: the query heads, fixed by the first append), and the cache keeps each slot's cumulative
    // log gate G per head in double, continuing the sum append after append (padding adds nothing).
    // attend with ForgettingEncoding{} (no logForget) uses them. Eviction, shift and renumber keep them:
    // the bias G_i - G_j holds only the gates between the two tokens, and no position enters it.
    bool forgetting = false;
};

class KVCache {
public:
    explicit KVCache(const KVCacheConfig& config);

    // k: raw [batch, kvHeads, T, headDim], v: [batch, kvHeads, T, valueDim] (headDim unless config.valueDim is
    // set). positions: [batch * T] (empty = each row continues from
    // its next position); mask: [batch * T], 1 = real token (empty = all real).
    // With multi-axis RoPE (M-RoPE, 2-D axial) positions are the rotation's [batch, axes, T] and
    // maskPositions [batch * T] the sequence index each slot keeps (masks, score terms, shift and
    // renumber); either empty = the row's next positions (on every axis: text tokens).
    // logForget: [batch, heads, T] log forget gates, each finite and <= 0: required by a cache with
    // `forgetting`, refused by one without.
    void append(View<float> k, View<float> v, int T, View<std::int32_t> positions = {}, View<std::uint8_t> mask = {},
                View<std::int32_t> maskPositions = {}, View<float> logForget = {});
    // The same with k and v as f16 or bf16 bit patterns (kvType): each appended as the float it stands for.
    void append(View<std::uint16_t> k, View<std::uint16_t> v, KVType kvType, int T, View<std::int32_t> positions = {},
                View<std::uint8_t> mask = {}, View<std::int32_t> maskPositions = {}, View<float> logForget = {});

    // q: [batch, heads, qLen, headDim] -> out [batch, heads, qLen, valueDim]. qPositions [batch * qLen]
    // (empty = each row's last qLen positions, next - qLen .. next - 1). `encoding` adds score terms
    // (alibi, t5, ...; NoEncoding{} for none); the cache's own rope rotates q, so a RopeEncoding here is an
    // error. causal: a query sees no key past its position. scale: NaN = the encoding's default.
    // With multi-axis RoPE, qPositions are [batch, axes, qLen] (rotation) and maskPositions [batch * qLen].
    // sinkLogits: [heads] learned logits in every row's softmax denominator (gpt-oss; AttentionRequest::sinkLogits).
    // softcap: Gemma 2's logit soft-capping (AttentionRequest::softcap).
    void attend(View<float> q, int heads, int qLen, const Encoding& encoding, View<std::int32_t> qPositions, bool causal,
                float* out, double scale = std::numeric_limits<double>::quiet_NaN(), View<std::int32_t> maskPositions = {},
                View<float> sinkLogits = {}, std::optional<double> softcap = std::nullopt);

    // Moves every cached position by delta and re-rotates the cached keys.
    void shift(std::int64_t delta);
    // New logical positions in positions() order ([batch, capacity]); empty slots must stay -1.
    void renumber(View<std::int32_t> newPositions);

    std::vector<std::int32_t> positions() const;      // [batch, capacity], -1 = empty slot
    std::vector<std::int32_t> nextPositions() const;  // [batch]
    // forgetting: the cumulative log forget gate G of each slot, [batch, heads, capacity] (0 in empty
    // slots), and the heads the first append fixed (0 before it).
    std::vector<double> forgetCumulative() const;
    int forgetHeads() const { return forgetHeads_; }
    const KVCacheConfig& config() const { return config_; }
    // Stored keys (rotated) as [batch, kvHeads, capacity, headDim], unpacked from the engine's layout;
    // values [batch, kvHeads, capacity, valueDim]: the floats attend computes with (the storage's values).
    std::vector<float> keys() const;
    std::vector<float> values() const;
    // Bytes held for keys and values (every slot allocated, and any held past capacity), and with
    // `forgetting`, from the first append: each slot's cumulative log gate per head (double), each row's
    // running sum per head (double), and attend's per-slot forgetting tables (a float per head and slot,
    // a double per head and 64-slot block). Not the per-slot bookkeeping (a position and an occupied flag).
    std::size_t bytes() const;
    // The bytes a cache of this configuration allocates for keys and values: capacity slots per batch row
    // (packed keys in whole blocks of 64 slots). 64-bit: in wasm it may exceed what size_t holds.
    static std::uint64_t storageBytes(const KVCacheConfig& config);

private:
    struct Row {
        int sinksFilled = 0;
        int filled = 0;     // plain slots used (no window)
        int ringStart = 0;  // oldest ring slot (window)
        int ringCount = 0;
        int held = 0;  // keys held past capacity for the latest append's queries: slots capacity .. capacity + held - 1
        std::int64_t next = 0;
    };
    int slotFor(Row& row) const;  // advances the row's bookkeeping
    // Re-rotates the keys of `slots` by `angles`. With a field, only checks that the storage can hold the
    // rotated keys, refusing by that field's name (the first pass of shift / renumber on a converting
    // storage: a failed call changes nothing).
    void rotateSlots(int b, const std::vector<int>& slots, const std::vector<double>& angles, const char* field = nullptr);
    struct Input;  // append's k and v: float32 or 16-bit bit patterns
    void appendRows(const Input& in, int T, View<std::int32_t> positions, View<std::uint8_t> mask, View<std::int32_t> maskPositions,
                    View<float> logForget);
    // What the storage cannot hold: the first channel of `row` (n floats: a key's headDim or a value's
    // valueDim) it cannot (a q8 block: the block's first channel), n when it holds all; and why, for a
    // message about `field`.
    std::size_t firstUnstorable(const float* row, std::size_t n) const;
    std::string unstorable(const float* row, std::size_t channel, const std::string& field) const;
    std::size_t packedSize() const;  // bytes of one (batch row, kv head)'s packed keys
    int valueChannels() const { return config_.valueDim != 0 ? config_.valueDim : config_.headDim; }
    unsigned char* packedKeys(int b, int h);
    const unsigned char* packedKeys(int b, int h) const;
    std::size_t valueBytes() const;  // bytes of one value row (valueChannels() in the storage's format)
    unsigned char* valueRow(int b, int h, int slot);
    std::size_t forgetIndex(int b, int h, int slot) const {
        return (static_cast<std::size_t>(b) * forgetHeads_ + static_cast<std::size_t>(h)) * slots_ + static_cast<std::size_t>(slot);
    }
    std::size_t slotIndex(int b, int slot) const { return static_cast<std::size_t>(b) * slots_ + static_cast<std::size_t>(slot); }
    void resizeSlots(int slots);  // re-lays the stores out with `slots` slots per row (the first min(old, new) kept)
    void dropHeld();              // releases every row's held keys (bookkeeping only)

    KVCacheConfig config_;
    int slots_ = 0;  // slots per row in the stores: capacity, plus room for held keys
    std::optional<RopeFrequencies> freqs_;
    std::optional<RopeTables> tables_;  // cos/sin for the tokens of one call, reused
    using Bytes = std::vector<unsigned char, detail::CacheLineAllocator<unsigned char>>;
    Bytes keys_;    // per (batch row, kv head): packed for the score kernel in the storage's format (kernels/kv_format.hpp)
    Bytes values_;  // [batch, kvHeads, slots_] rows of valueDim in the storage's format
    std::vector<std::int32_t> pos_;        // [batch, slots_]
    std::vector<std::uint8_t> occupied_;   // [batch, slots_]
    std::vector<Row> rows_;
    // forgetting: G per (batch row, query head, slot) and each row's running sum per head (the G of its
    // last real token); forgetHeads_ fixed by the first append
    int forgetHeads_ = 0;
    std::vector<double> forget_;      // [batch, forgetHeads_, slots_]
    std::vector<double> forgetLast_;  // [batch, forgetHeads_]
    // attend's forgetting tables, reserved for slots_ keys and one query per head whenever the stores are
    // (re)sized, so a decode step allocates nothing (posenc/scores/forgetting.hpp)
    ForgettingTables forgetTables_;
    static ForgettingTables reservedTables(int heads, int slots);
    std::vector<double> keyNormMax_;  // per batch row: the largest norm of a key appended (bounds q.k before attending)
    std::vector<Row> plannedRows_;
    // scratch reused across calls (no allocation per decode step once warm)
    std::vector<std::int32_t> scratchPos_;
    std::vector<int> scratchSlots_;     // per token of an append: the slot it goes to (-1 = padding)
    struct Move {
        int b, from, to;
    };
    std::vector<Move> scratchMoves_;    // cached keys pushed out of the ring by an append but still needed: to held slots
    std::vector<int> scratchRingToken_; // [window]: which token of the append a ring slot holds while planning (-1 = a cached one)
    std::vector<int> scratchCommitted_;
    std::vector<float> scratchQ_;
    std::vector<float> scratchKey_;  // one key row being moved
    std::vector<float> scratchRows_; // key rows being rotated: an append's [kvHeads, tokens, headDim], or one head's moved slots
    std::vector<std::int32_t> scratchQPos_;
    std::vector<std::int32_t> scratchAxisPos_;  // multi-axis: rotation positions of the call's tokens [batch, axes, T]
    std::vector<double> scratchAxisAngles_;     // [axes, tokens] for one table build
    KeySpan scratchOrder_[4];                   // stick-breaking over a window: one row's keys in append order (keyOrder)
    int appendOrder(int b, KeySpan* spans) const;  // those spans for row b; returns how many
    int axes() const { return freqs_ ? freqs_->axes : 1; }
    // dynamic 'hf': re-derives the schedule for a call whose largest position is maxPosition.
    std::int64_t dynamicLength_ = 0;  // the sequence length the current schedule was derived for (0 = configured)
    // The dynamic-NTK schedule as it was before a call moved it: a call that fails after moving it puts
    // it back, so that a failed call changes nothing.
    struct DynamicState {
        std::optional<RopeFrequencies> freqs;
        std::optional<RopeTables> tables;
        std::int64_t length = 0;
    };
    // Moves the schedule to fit maxPosition (all that may throw done first); returns the state before
    // (nullopt: nothing moved).
    std::optional<DynamicState> updateDynamic(std::int64_t maxPosition);
    void restoreDynamic(DynamicState& before) noexcept;
    void attendRows(View<float> q, int heads, int qLen, const Encoding& encoding, View<std::int32_t> qPositions, bool causal, float* out,
                    double scale, View<float> sinkLogits, float softcap);
    // Rotates rows with the cache's rope (detail::rotateHeads): `count` tokens whose angle multiplier on
    // axis a is angleOf(a, t), head by head rows(h) = {src, dst}, then after(h).
    template <class AngleOf, class Rows, class After>
    void rotate(std::size_t count, double scale, RopeRole role, AngleOf angleOf, int heads, Rows rows, After after);
    AttentionWorkspace workspace_;
};

}  // namespace posenc
