// Fixed sinusoidal tables added to token embeddings (Vaswani et al. 2017 and its descendants).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace posenc {

enum class SinusoidLayout {
    interleaved,    // paper / HF DistilBERT: PE[p,2k]=sin(p w_k), PE[p,2k+1]=cos(p w_k), w_k=b^(-2k/d)
    concat,         // Transformer-XL / HF Marian: all sines, then all cosines, same w_k
    tensor2tensor,  // t2t get_timing_signal_1d / fairseq: concat with w_k=b^(-k/(d/2-1)); odd d -> zero column
};

struct SinusoidalOptions {
    int dim = 0;
    double base = 10000.0;
    SinusoidLayout layout = SinusoidLayout::interleaved;
    int paddingIdx = -1;  // fairseq: the row of this position is all zeros (-1 = none)
};

void validate(const SinusoidalOptions& o);

// Writes [count, dim] row-major into out. Angles are formed in double precision so that large
// positions keep full float32 accuracy (float32 p*w is already ~1e-3 off at p=65535).
void sinusoidal(const std::int32_t* positions, std::size_t count, const SinusoidalOptions& o, float* out);
std::vector<float> sinusoidal(const std::vector<std::int32_t>& positions, const SinusoidalOptions& o);

}  // namespace posenc
