// Helpers shared by attention.cpp and the KV cache; not installed (the library's own code only).
// Positions and multi-axis resolution: attention/positions.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "posenc/attention/attention.hpp"

namespace posenc {

namespace detail {
// The score term an encoding adds (encoding.cpp: one case per alternative of posenc::Encoding), checked
// against the call's positions and mask; null when it adds none (NoPE, or an encoding acting on q / k).
std::unique_ptr<ScoreTerm> makeTerm(const AttentionInputs& in, const Encoding& e);
// Stick-breaking attention's call rules (a no-op for another encoding): causal and no sinkLogits.
// Checked before anything changes.
void requireStickBreakingCall(const Encoding& e, bool causal, bool sinkLogits);
// Runs validated inputs (positions resolved, q/k already in place) with an encoding that is not rope.
// Shared by `attention` and the KV cache.
void runWithEncoding(const AttentionInputs& in, const Encoding& e, const AttentionOutputs& out, AttentionWorkspace* workspace = nullptr);
// Finite inputs can still overflow: |scale q.k| past float range gives an infinite score, and the
// softmax then NaN (or, all scores -inf, a row of zeros). Inputs whose norms allow that are refused
// up front (|q.k| <= |q| |k|); outputs are still checked (runAttention, row by row), for score terms that
// overflow: failNonFiniteResult is that error.
void requireScoresInRange(const float* q, std::size_t qRows, const float* k, std::size_t kRows, std::size_t headDim, double gain);
void requireScoreBound(double qNorm, double kNorm, double gain);  // the same check, the norms known
[[noreturn]] void failNonFiniteResult(float scale);
// sinkLogits: empty, or one finite logit per query head.
void requireSinkLogits(View<float> sinkLogits, int heads);
// valueDim: 0 (= headDim) or a size in [1, limits::kMaxHeadDim].
void requireValueDim(int valueDim);
// softcap: none, or a positive finite number; the engine's value (0 = none).
float checkedSoftcap(const std::optional<double>& softcap);
// The largest Euclidean norm among `rows` vectors of headDim floats.
double maxRowNorm(const float* x, std::size_t rows, std::size_t headDim);
// K / V as f16 or bf16 bit patterns (kv_storage.cpp): the first pattern that is not a finite number is
// refused, naming field[index]; bitsToFloats converts n of them (exactly), on the pool.
void requireFiniteBits(const std::uint16_t* x, std::size_t n, KVStorage s, const char* field);
void bitsToFloats(const std::uint16_t* x, std::size_t n, KVStorage s, float* out);
float bitsToFloat(std::uint16_t bits, KVStorage s);
}  // namespace detail

}  // namespace posenc
