// Resizing a 2-D grid of position embeddings (ViT interpolate_pos_encoding): PyTorch's bicubic
// (Keys kernel A = -0.75, align_corners=False, border-clamped taps, no antialias) or bilinear
// (align_corners=False, source clamped at 0). Prefix tokens (CLS, registers) are copied unchanged.
// Source coordinate mappings:
//   size:        src = (o + 0.5) * in/out - 0.5            (current HF, interpolate(size=...))
//   scaleFactor: src = (o + 0.5) / sf - 0.5, sf = (out + 0.1) / in   (DINO, older HF, scale_factor=...)
#pragma once
#include <cstdint>

#include "posenc/common/view.hpp"

namespace posenc {

enum class ResizeMode { bicubic, bilinear };
enum class ResizeMapping { size, scaleFactor };

struct ResizeOptions {
    int fromH = 0, fromW = 0, toH = 0, toW = 0, dim = 0;
    ResizeMode mode = ResizeMode::bicubic;
    ResizeMapping mapping = ResizeMapping::size;
    int prefixTokens = 0;
};

// grid [prefix + fromH*fromW, dim] -> out [prefix + toH*toW, dim]
void resizeGrid(View<float> grid, const ResizeOptions& o, float* out);

}  // namespace posenc
