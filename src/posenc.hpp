// posenc: transformer positional encodings, exact to their reference implementations.
// Position enters attention in three places, and the source tree follows them:
//   additive/   vectors added to token embeddings (sinusoidal, learned, codes, axial, 2D sine, ...)
//   rotary/     q and k rotated by position (RoPE layouts and frequency schedules)
//   scores/     terms added to the q.k score (ALiBi, T5, Swin, Shaw, Transformer-XL, DeBERTa, ...)
//   attention/  the one engine that composes them;  cache/  KV-cache position bookkeeping.
#pragma once
#include "additive/sinusoidal.hpp"
#include "common/errors.hpp"
#include "rotary/apply.hpp"
#include "rotary/frequencies.hpp"
#include "rotary/hf_config.hpp"
#include "attention/attention.hpp"
#include "attention/engine.hpp"
#include "cache/kv_cache.hpp"
#include "describe.hpp"
#include "additive/codes.hpp"
#include "additive/factored.hpp"
#include "additive/grid_resize.hpp"
#include "additive/learned.hpp"
#include "additive/random_features.hpp"
#include "additive/sine_nd.hpp"
