// Stick-breaking attention (Tan, Shen, Yang, Courville, Panda 2024, "Scaling Stick-Breaking Attention:
// An Efficient Implementation and In-depth Study", arXiv 2410.17980): in place of the softmax, query i
// gives each key j it sees the weight
//   A_ij = σ(z_ij) Π_{j < l < i} (1 − σ(z_il)),   z_ij = scale q_i·k_j (+ score terms, soft-capped),
// the product over the keys the query sees between j and itself: the nearest key breaks the stick
// first, so attention prefers recent keys without any position term. The weights sum to at most 1
// (the rest of the stick weighs no value). Causal only. With attendCurrent the query also sees its own
// position (j ≤ i, the product over j < l ≤ i), as flash-linear-attention's `attend_current`.
// The engine's normaliser is src/attention/stick_breaking.hpp.
#pragma once

namespace posenc {

struct StickBreakingEncoding {
    bool attendCurrent = false;  // the query also sees the key at its own position (reference default: false)
};

}  // namespace posenc
