// The one attention engine. Every score-term encoding runs inside it:
//   score(i, j) = scale * (qc_i . k_j + content(i, j)) + bias(i, j), masked (causal, window, sinks,
//   keyMask: attention/mask.hpp), softmax over j, out_i = sum_j w_ij (v_j + valueTerm(i, j)).
//   (Stick-breaking attention replaces the softmax: AttentionInputs::stickBreaking.)
// q and k have headDim channels, v and out valueDim (AttentionDims: DeepSeek MLA's values are narrower
// than its q.k heads); the score kernel runs over the one, the P.V kernel over the other.
// RoPE is not applied here: q and k arrive already rotated — `attention` (attention.cpp) rotates
// copies of them before calling the engine, and the KV cache rotates keys when they are appended and
// queries when it attends.
// It streams over key blocks with an online softmax, so nothing T x T exists unless weights or scores
// are requested; blocks the causal/window mask removes entirely are skipped.
//
// Work is done FlashAttention-2 style (kernels/attention_tile.hpp): the query rows that read one kv
// head (a GQA group's heads x qLen) run in tiles of kTileRows rows, the softmax scale folded into each
// row once; per key block a register-blocked micro-kernel forms the tile's scores from keys packed
// channel-major, score terms add to them, masks touch only blocks that straddle a boundary, a
// vectorised exp turns them into weights, and a second micro-kernel adds P.V into the tile's outputs.
#pragma once
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "posenc/attention/kv_storage.hpp"
#include "posenc/attention/mask.hpp"
#include "posenc/scores/score_term.hpp"

namespace posenc {

// Key indices [begin, end) (AttentionInputs::keyOrder).
struct ForgettingTables;  // posenc/scores/forgetting.hpp

struct KeySpan {
    int begin = 0, end = 0;
};

struct AttentionInputs {
    AttentionDims dims;
    const float* q = nullptr;  // [heads, qLen, headDim]
    // Keys and values in their stored format (posenc/attention/kv_storage.hpp), read where they lie: float32,
    // f16 / bf16 bit patterns (uint16), or q8 (packed keys and value rows only; kernels/kv_format.hpp).
    KVStorage keyStorage = KVStorage::f32, valueStorage = KVStorage::f32;
    const void* k = nullptr;        // [kvHeads, kLen, headDim] (f32, f16, bf16); may be null when kPacked is given
    const void* kPacked = nullptr;  // optional: keys already packed, [kvHeads][packedKeyBytes(kLen, headDim)] bytes each
    const void* v = nullptr;        // [kvHeads, kLen] rows of valueDim (dims.valueChannels(): headDim unless valueDim is set)
    // Keys per kv head in k, kPacked and v (0 = kLen): the KV cache attends over the first kLen of
    // more slots than that (keys a long append still needs are held past its capacity).
    std::size_t kvStride = 0;
    const std::int32_t* qPos = nullptr;  // [qLen]
    const std::int32_t* kPos = nullptr;  // [kLen]
    AttentionMask mask;
    float scale = 1.0f;
    // [heads] or null: a learned logit per query head that joins each row's softmax denominator and
    // weighs no value (gpt-oss's attention sinks). Rows then sum to less than 1; a row that sees no key
    // gives zeros (all its weight on the sink).
    const float* sinkLogits = nullptr;
    // > 0: Gemma 2's logit soft-capping, every score (scale q.k plus the score terms) becomes
    // softcap * tanh(score / softcap) before the mask; 0: none.
    float softcap = 0;
    // [heads, kvStride] or null: the KV cache's cumulative log forget gates per slot (forgetting
    // attention, posenc/scores/forgetting.hpp), used by a 'forgetting' encoding given no logForget.
    const double* forgetCumulative = nullptr;
    // Optional: where a 'forgetting' term builds its per-call tables (the KV cache's, reused step after step).
    ForgettingTables* forgetTables = nullptr;
    // Stick-breaking attention (Tan et al. 2024; attention/stick_breaking.hpp) in place of the softmax:
    // weights σ(z_ij) Π (1 − σ(z_il)) over the keys l a query sees after j, walked from the last key.
    // Causal masks only (the caller checks); sinkLogits unused.
    bool stickBreaking = false;
    // Stick-breaking only: the order the keys break the stick in, as spans of key indices [begin, end)
    // from the first key to the last (the KV cache's window: the sinks, the keys held past capacity,
    // then the ring from its oldest slot); a key in no span is not seen. Null: key index order. Not
    // with weights or scores (the KV cache's attend asks for neither).
    const KeySpan* keyOrder = nullptr;
    std::size_t keyOrderSpans = 0;
};

struct AttentionOutputs {
    float* out = nullptr;      // [heads, qLen, valueDim] (dims.valueChannels())
    float* weights = nullptr;  // optional [heads, qLen, kLen]
    float* scores = nullptr;   // optional [heads, qLen, kLen], masked = -inf
};

// Scratch memory of the engine. A caller that runs many small attentions (the KV cache, one decode
// step at a time) keeps one and passes it in, so a step allocates nothing once the buffers are warm.
// The work runs as tasks on posenc's thread pool (posenc/threads.hpp): one tile of query rows of one
// kv head each, or for few tiles over many keys (decode) a tile against one fixed chunk of
// kDecodeChunkKeys keys, whose partial softmax states are merged in chunk order. Neither the tiles nor
// the chunks depend on the thread count, so neither does the result.
namespace detail {
// An allocator whose resize() leaves new elements uninitialised: for buffers the pool's tasks write in
// full (no serial zero-fill on the calling thread first).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... A>
    void construct(U* p, A&&... a) {
        ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
    }
};
// An allocator of whole 64-byte cache lines (aligned, size rounded up): buffers that different
// threads write never share a line, so one thread's stores do not evict what another reads (false
// sharing between per-thread tile buffers cost multi-threaded attention about 2 %).
template <class T>
struct CacheLineAllocator {
    using value_type = T;
    static constexpr std::size_t kLine = 64;
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        const std::size_t bytes = (n * sizeof(T) + kLine - 1) / kLine * kLine;
        return static_cast<T*>(::operator new(bytes, std::align_val_t(kLine)));
    }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(kLine)); }
    template <class U>
    bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const CacheLineAllocator<U>&) const noexcept { return false; }
};
}  // namespace detail

struct AttentionWorkspace {
    using BlockRange = KeyBlockRange;
    // One thread's scratch (slot 0 = the calling thread), on cache lines of its own (the struct and
    // its buffers).
    struct alignas(64) Slot {
        std::vector<float, detail::CacheLineAllocator<float>> qTile, scores, content, acc, wsum, rows;
        std::vector<float, detail::CacheLineAllocator<float>> rest;  // stick-breaking: 1 − σ of the scores being walked
        float sink = 0;
        int kvHead = -1, begunHead = -1;  // the score term's head state this slot last set up
        bool nonFinite = false;           // an output row this slot's thread wrote is not all finite
    };
    struct TileRows {
        int kvHead, row0, rows;
    };
    std::vector<BlockRange> blocks;
    // The walk: key block `block`'s keys [begin, end), in walking order (one step per block in index
    // order, or the blocks each AttentionInputs::keyOrder span overlaps, span by span).
    struct Step {
        int block, begin, end;
    };
    std::vector<Step> steps;
    std::vector<Slot> slots;
    std::vector<TileRows> tiles;
    // packed keys, bytes in the keys' stored format: written in full by packKeys, in the pool's tasks
    std::vector<unsigned char, detail::DefaultInitAllocator<unsigned char>> packedKeys;
    std::vector<float> keyRows, partials;
    std::vector<std::int64_t> runStart;  // per key block, under a causal-only mask (engine.cpp)
    float sink = 0;
};

// Keys per chunk of a split (decode) run: fixed, never derived from the thread count.
constexpr int kDecodeChunkKeys = 2048;

// Shapes and pointers are assumed validated (see attention/attention.hpp for the checked entry).
// A query whose every key is masked gets out = 0 and weights = 0 (never NaN). Returns whether every
// value of out is finite (each row is checked by the task that writes it).
bool runAttention(const AttentionInputs& in, ScoreTerm& term, const AttentionOutputs& out, AttentionWorkspace* workspace = nullptr);

}  // namespace posenc
