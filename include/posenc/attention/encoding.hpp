// posenc::Encoding: the positional encoding `attention` and the KV cache's `attend` take, one
// alternative per kind (NoPE, RoPE, each score term, the query temperature, a combination), and what
// reads it. What each alternative builds (its score term, or nothing for an encoding acting on q and k)
// is src/attention/encoding.cpp; the rotary part is applied by `attention` (attention.cpp) and by the KV
// cache, which rotate q and k before the engine adds the score terms.
#pragma once
#include <variant>
#include <vector>

#include "posenc/attention/stick_breaking.hpp"
#include "posenc/attention/temperature.hpp"
#include "posenc/rotary/apply.hpp"
#include "posenc/scores/alibi.hpp"
#include "posenc/scores/cope.hpp"
#include "posenc/scores/deberta.hpp"
#include "posenc/scores/fire.hpp"
#include "posenc/scores/forgetting.hpp"
#include "posenc/scores/kerple.hpp"
#include "posenc/scores/relative_key.hpp"
#include "posenc/scores/shaw.hpp"
#include "posenc/scores/swin.hpp"
#include "posenc/scores/t5.hpp"
#include "posenc/scores/transformer_xl.hpp"

namespace posenc {

struct NoEncoding {};
// RoPE inside attention or a KV cache: config.headDim is ignored (the call's or the cache's headDim is used).
struct RopeEncoding {
    RopeConfig config;
    RopeLayout layout = RopeLayout::half;
};

// LieRE inside attention (kind 'liere', Ostmeier et al. 2024): the rope options with multiAxis 'liere'
// (RopeConfig::generators, blockSize, and the rotated channels' partialRotaryFactor / rotaryOffset); it acts
// as that RopeEncoding (ropePart returns it). A KV cache takes it as its `rope` (multiAxis 'liere').
inline RopeEncoding liereRope() {
    RopeEncoding r;
    r.config.multiAxis = MultiAxis::liere;
    return r;
}
struct LiereEncoding {
    RopeEncoding rope = liereRope();
};

struct CombinedEncoding;
using Encoding = std::variant<NoEncoding, RopeEncoding, AlibiEncoding, T5Encoding, SwinEncoding, ShawEncoding, XlEncoding,
                              DebertaEncoding, RelativeKeyEncoding, KerpleEncoding, FireEncoding, CopeEncoding, ForgettingEncoding, CombinedEncoding,
                              TemperatureEncoding, StickBreakingEncoding, LiereEncoding>;
// Several encodings applied together: at most one rotary part (it rotates q and k), the score terms
// add (e.g. RoPE + ALiBi, or T5 + CoPE). Parts are single encodings, not combinations.
struct CombinedEncoding {
    std::vector<Encoding> parts;
};

// The rotary part of an encoding (itself, a liere encoding's rope, or the one of a combination), or null.
const RopeEncoding* ropePart(const Encoding& e);
// The query-temperature part of an encoding (itself, or the one of a combination), validated, or null.
// Two temperature parts are an error.
const TemperatureEncoding* temperaturePart(const Encoding& e);
// The stick-breaking part of an encoding (itself, or the one of a combination), or null. Two are an error.
const StickBreakingEncoding* stickBreakingPart(const Encoding& e);
// The forgetting part of an encoding (itself, or the one of a combination), or null. Two are an error.
const ForgettingEncoding* forgettingPart(const Encoding& e);
// Whether the encoding is (or combines only) scalar biases: alibi, t5, swin, kerple, fire.
bool isScalarBias(const Encoding& e);

// The scale an encoding uses when none is given: 1/sqrt(headDim); T5 1; DeBERTa 1/sqrt(k headDim),
// k = 1 + active position terms. A combination takes its parts' one non-standard default (two different
// ones are an error: give `scale`).
double defaultScale(const Encoding& e, int headDim);

}  // namespace posenc
