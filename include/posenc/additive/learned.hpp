// Learned absolute tables and the position ids that index them.
#pragma once
#include <cstdint>
#include <vector>

#include "posenc/common/view.hpp"

namespace posenc {

enum class OutOfRange {
    error,        // a position >= table rows is an error (BERT/GPT-2 would index out of bounds)
    clamp,        // use the last row
    interpolate,  // stretch the table linearly to `interpolateTo` rows (align-corners), then look up
};

struct LearnedOptions {
    View<float> table;  // [rows, dim]
    int dim = 0;
    OutOfRange outOfRange = OutOfRange::error;
    int interpolateTo = 0;  // rows after stretching; 0 = max(rows, max position + 1)
};

void learned(const std::int32_t* positions, std::size_t count, const LearnedOptions& o, float* out);

enum class PositionIdStyle {
    hf,       // cumsum(mask) - 1 + past, pad slots set to 1 (HF generate)
    roberta,  // (cumsum(mask) + past) * mask + paddingIdx (fairseq make_positions)
};

// mask [batch, length], 1 = real token -> ids [batch, length]. paddingIdx is used by the roberta style
// only (still checked >= 0); past: tokens already processed before this mask (a continued generation).
void positionIds(const std::uint8_t* mask, int batch, int length, PositionIdStyle style, int paddingIdx, int past, std::int32_t* out);
// past + real tokens per row.
void nextPositions(const std::uint8_t* mask, int batch, int length, int past, std::int32_t* out);

// Modality position offsets: token t of modality m gets offsets[m] + (its index among m's tokens);
// lengths[m] (optional) bounds each range, e.g. text 0-127, image 128-255.
void modalityPositions(const std::int32_t* modalities, std::size_t count, View<std::int32_t> offsets, View<std::int32_t> lengths,
                       std::int32_t* out);

}  // namespace posenc
