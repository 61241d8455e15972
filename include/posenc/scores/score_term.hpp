// The interface every relative ("score term") encoding implements for the attention engine.
//
// score(i, j) = scale * (qc_i . k_j + content(i, j)) + bias(i, j)
//   qc_i        the content query (q_i itself, or q_i + u for Transformer-XL)
//   content     content x position terms (Shaw q.aK, XL (q+v).r, DeBERTa c2p + p2c, BERT relative_key)
//   bias        scalar biases, never scaled (ALiBi, T5, Swin)
// and optionally a value-side term: out_i += sum_j w_ij * valueTable[valueIndex(i, j)] (Shaw aV).
//
// The engine calls beginHead once per query head, beginQuery once per query row, then the add*
// functions on blocks of keys. Implementations precompute per head / per query (e.g. q_i projected
// onto every distance row once) so a block costs a gather, never a [T, T, d] intermediate.
// Queries run in tiles of kQueryTile rows: `slot` (0..kQueryTile-1) says which row of the tile a
// per-query state belongs to, so a term keeps one state per slot. A tile may hold rows of several
// query heads that share one kv head (a GQA group, e.g. the heads of one decode step), unless the
// term's key state depends on the query head (headSpecificKeyState).
#pragma once
#include <cstddef>
#include <cstdint>

namespace posenc {

// Every size is required: kvHeads too (0 is an error, not "same as heads"; kvHeads < heads is GQA).
// headDim is q's and k's channels (the q.k dot product); valueDim v's and the output's, when they
// differ (DeepSeek MLA: q.k over 192 channels, values of 128): 0 = headDim.
struct AttentionDims {
    int heads = 0, kvHeads = 0, headDim = 0, qLen = 0, kLen = 0;
    int valueDim = 0;
    // The value / output channels: valueDim, or headDim when it is 0.
    int valueChannels() const { return valueDim != 0 ? valueDim : headDim; }
};

// Most query rows a tile holds (8 on every kernel set). Per-slot state is sized for this many rows.
constexpr std::size_t kQueryTile = 8;

// What a call's positions tell a distance-only bias term before it runs (T5 and ALiBi keep tables of
// biases by key - query distance): the largest |qPos - kPos| over all pairs; whether the key positions
// strictly increase (then a block whose last and first keys lie count - 1 apart holds consecutive
// positions, and its biases for one query are one contiguous run of such a table); and how many
// (query, key) pairs each head scores.
struct CallDistances {
    std::int64_t largest = 0;
    bool keysIncrease = false;
    double pairsPerHead = 0;
};

class ScoreTerm {
public:
    virtual ~ScoreTerm() = default;
    // Called before the first query of head h. k: this head's keys [kLen, headDim] (null unless
    // readsKeys()).
    virtual void beginHead(int /*h*/, const float* /*k*/, const std::int32_t* /*kPos*/) {}
    // Whether beginHead reads the keys (the engine then supplies them row-major).
    virtual bool readsKeys() const { return false; }
    // Whether what beginHead sets up differs between query heads of one kv head; if so, a tile never
    // mixes query heads.
    virtual bool headSpecificKeyState() const { return false; }
    // Called before the keys of query row i; returns the content query (q itself unless overridden).
    virtual const float* beginQuery(int /*slot*/, int /*h*/, std::int32_t /*qPos*/, const float* q) { return q; }
    // s[j - j0] += content(i, j) for keys j0..j1-1 (before scaling), i the query begun in `slot`.
    virtual void addContent(int /*slot*/, std::int32_t /*qPos*/, int /*j0*/, int /*j1*/, const std::int32_t* /*kPos*/, float* /*s*/) {}
    // s[j - j0] += bias(i, j) (after scaling).
    virtual void addBias(int /*h*/, std::int32_t /*qPos*/, int /*j0*/, int /*j1*/, const std::int32_t* /*kPos*/, float* /*s*/) {}
    virtual bool hasContent() const { return false; }
    virtual bool hasBias() const { return false; }
    // Value-side term: rows of a [valueRows, valueChannels()] table, selected per (query, key).
    virtual int valueRows() const { return 0; }
    virtual const float* valueTable() const { return nullptr; }
    virtual int valueIndex(std::int32_t /*qPos*/, std::int32_t /*kPos*/) const { return 0; }
    // Whether the engine may call this term from several threads at once: true only for terms that keep
    // no per-head or per-query state (beginHead / beginQuery not overridden, add* reading constant tables).
    // Other terms run on the calling thread.
    virtual bool concurrent() const { return false; }
};

// The term of an attention without one: nothing added, any thread.
class NoScoreTerm final : public ScoreTerm {
public:
    bool concurrent() const override { return true; }
};

}  // namespace posenc
