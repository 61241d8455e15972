// Sine encodings of image (DETR PositionEmbeddingSine) and video (time + 2D) coordinates.
// Each axis: 1-based cumulative count of valid cells along it; optional normalize e / (e_last + 1e-6) * scale;
// dim_t[k] = temperature^(2 floor(k/2) / F); channel 2m = sin(e / dim_t[2m]), 2m+1 = cos(e / dim_t[2m+1]).
// Output rows are cells in row-major order; channels: (t,) y, then x. Padded cells are not zeroed (as DETR).
#pragma once
#include <cstdint>

#include "posenc/common/view.hpp"

namespace posenc {

struct SineNdOptions {
    int numPosFeats = 64;  // F per axis
    double temperature = 10000;
    bool normalize = false;
    double scale = 6.283185307179586;  // 2 pi
};

// mask [height, width], 1 = valid pixel (HF polarity); empty = all valid. out [height*width, 2F].
void sine2d(int height, int width, View<std::uint8_t> mask, const SineNdOptions& o, float* out);
// mask [frames, height, width]; out [frames*height*width, 3F] (t, y, x channels).
void sine3d(int frames, int height, int width, View<std::uint8_t> mask, const SineNdOptions& o, float* out);

}  // namespace posenc
