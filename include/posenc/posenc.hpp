// posenc: transformer positional encodings, exact to their reference implementations.
// Position enters attention in three places, and the source tree follows them:
//   additive/   vectors added to token embeddings (sinusoidal, learned, codes, axial, 2D sine, ...)
//   rotary/     q and k rotated by position (RoPE layouts and frequency schedules)
//   scores/     terms added to the q.k score (ALiBi, T5, Swin, Shaw, Transformer-XL, DeBERTa, ...)
//   attention/  the one engine that composes them;  cache/  KV-cache position bookkeeping.
#pragma once
#include "posenc/additive/sinusoidal.hpp"
#include "posenc/common/errors.hpp"
#include "posenc/rotary/apply.hpp"
#include "posenc/rotary/frequencies.hpp"
#include "posenc/rotary/hf_config.hpp"
#include "posenc/attention/attention.hpp"
#include "posenc/attention/encoding.hpp"
#include "posenc/attention/engine.hpp"
#include "posenc/attention/hf_plan.hpp"
#include "posenc/cache/kv_cache.hpp"
#include "posenc/describe.hpp"
#include "posenc/kernels.hpp"
#include "posenc/registry.hpp"
#include "posenc/scores/combined.hpp"
#include "posenc/threads.hpp"
#include "posenc/additive/codes.hpp"
#include "posenc/additive/factored.hpp"
#include "posenc/additive/grid_resize.hpp"
#include "posenc/additive/learned.hpp"
#include "posenc/additive/random_features.hpp"
#include "posenc/additive/sine_nd.hpp"
