#include "posenc/scores/transformer_xl.hpp"

#include "posenc/additive/sinusoidal.hpp"
#include "posenc/common/errors.hpp"
#include "kernels/kernel_set.hpp"
#include "common/cold.hpp"

namespace posenc {

POSENC_COLD XlTerm::XlTerm(const XlEncoding& e, int heads, int headDim, std::int64_t maxDistance)
    : e_(e), headDim_(headDim), r_(nullptr), qu_(headDim * kQueryTile), qv_(headDim) {
    const std::size_t hd = static_cast<std::size_t>(heads) * headDim;
    if (e.u.size != hd) fail("encoding.u", "must be [heads, headDim] = " + std::to_string(hd) + " elements (got " + std::to_string(e.u.size) + ")");
    if (e.v.size != hd) fail("encoding.v", "must be [heads, headDim] = " + std::to_string(hd) + " elements (got " + std::to_string(e.v.size) + ")");
    requireFiniteValues(e.u.data, hd, "encoding.u");
    requireFiniteValues(e.v.data, hd, "encoding.v");
    if (!e.r.empty()) {
        if (e.r.size % hd != 0 || e.r.size == 0)
            fail("encoding.r", "must be [heads, distances, headDim]: a multiple of heads*headDim = " + std::to_string(hd) +
                                   " elements (got " + std::to_string(e.r.size) + ")");
        requireFiniteValues(e.r.data, e.r.size, "encoding.r");
        distances_ = static_cast<int>(e.r.size / hd);
        r_ = e.r.data;
    } else {
        if (e.wR.empty()) fail("encoding.r", "or encoding.wR (with dModel) is required");
        requirePositive(e.dModel, "encoding.dModel");
        if (e.wR.size != hd * e.dModel)
            fail("encoding.wR", "must be [heads*headDim, dModel] = " + std::to_string(hd * e.dModel) + " elements (got " +
                                    std::to_string(e.wR.size) + ")");
        requireFiniteValues(e.wR.data, e.wR.size, "encoding.wR");
        if (maxDistance >= (1 << 20)) fail("positions", "span more than 2^20 distances; pass encoding.r for such ranges");
        distances_ = static_cast<int>(std::max<std::int64_t>(maxDistance, 0) + 1);
        // R_d: `concat` sinusoid of d_model at distance d, then r_d = W_R R_d for every head.
        std::vector<std::int32_t> ds(static_cast<std::size_t>(distances_));
        for (int d = 0; d < distances_; ++d) ds[d] = d;
        const auto R = sinusoidal(ds, SinusoidalOptions{e.dModel, 10000.0, SinusoidLayout::concat});
        builtR_.resize(hd * distances_);
        for (int h = 0; h < heads; ++h)
            for (int d = 0; d < distances_; ++d)
                for (int c = 0; c < headDim; ++c)
                    builtR_[(static_cast<std::size_t>(h) * distances_ + d) * headDim + c] = kernels::active().dot(
                        e.wR.data + (static_cast<std::size_t>(h) * headDim + c) * e.dModel, R.data() + static_cast<std::size_t>(d) * e.dModel, e.dModel);
        r_ = builtR_.data();
    }
    qr_.resize(static_cast<std::size_t>(distances_) * kQueryTile);
}

const float* XlTerm::beginQuery(int slot, int h, std::int32_t, const float* q) {
    const float* u = e_.u.data + static_cast<std::size_t>(h) * headDim_;
    const float* v = e_.v.data + static_cast<std::size_t>(h) * headDim_;
    float* qu = qu_.data() + static_cast<std::size_t>(slot) * headDim_;
    for (int c = 0; c < headDim_; ++c) {
        qu[c] = q[c] + u[c];
        qv_[c] = q[c] + v[c];
    }
    const float* rh = r_ + static_cast<std::size_t>(h) * distances_ * headDim_;
    float* qr = qr_.data() + static_cast<std::size_t>(slot) * distances_;
    for (int d = 0; d < distances_; ++d) qr[d] = kernels::active().dot(qv_.data(), rh + static_cast<std::size_t>(d) * headDim_, headDim_);
    return qu;
}

void XlTerm::addContent(int slot, std::int32_t qPos, int j0, int j1, const std::int32_t* kPos, float* s) {
    const float* qr = qr_.data() + static_cast<std::size_t>(slot) * distances_;
    for (int j = j0; j < j1; ++j) {
        const std::int64_t d = static_cast<std::int64_t>(qPos) - kPos[j];
        if (d >= 0 && d < distances_) s[j - j0] += qr[static_cast<std::size_t>(d)];  // other pairs are masked (checked up front)
    }
}

}  // namespace posenc
