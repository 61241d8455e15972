#include "posenc/rotary/frequencies.hpp"

#include <algorithm>
#include <cmath>

#include "posenc/common/errors.hpp"
#include "posenc/registry.hpp"

namespace posenc {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kLiereMaxEntry = 1e4;          // |generator entry| bound: keeps exp's scaling and squaring finite at 2^31
constexpr double kLiereSkewTolerance = 1e-6;    // of a block's largest |entry|

void requireOriginalLength(const RopeScaling& s, const char* type) {
    if (s.originalMaxPositionEmbeddings <= 0)
        fail("scaling.originalMaxPositionEmbeddings",
             std::string("is required by '") + type + "' scaling and must be a positive integer (got " +
                 std::to_string(s.originalMaxPositionEmbeddings) + ")");
}

// YaRN: the rotary pair index at which a frequency makes `rotations` turns over the original length.
double yarnCorrectionDim(double rotations, int rotaryDim, double base, double originalLength) {
    return rotaryDim * std::log(originalLength / (rotations * 2 * kPi)) / (2 * std::log(base));
}

double yarnMscale(double factor, double mscale) { return factor <= 1 ? 1.0 : 0.1 * mscale * std::log(factor) + 1.0; }

void applyYarn(const RopeConfig& c, int R, RopeFrequencies& f) {
    const RopeScaling& s = c.scaling;
    requireOriginalLength(s, "yarn");
    requirePositiveFinite(s.betaFast, "scaling.betaFast");
    requirePositiveFinite(s.betaSlow, "scaling.betaSlow");
    const double L0 = static_cast<double>(s.originalMaxPositionEmbeddings);
    double low = yarnCorrectionDim(s.betaFast, R, c.base, L0);
    double high = yarnCorrectionDim(s.betaSlow, R, c.base, L0);
    const bool truncate = c.convention == RopeConvention::ggml ? true : s.truncate;  // ggml always floors/ceils
    if (truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(R - 1));
    const int half = R / 2;
    for (int i = 0; i < half; ++i) {
        double ramp;  // 0 -> keep the original frequency (extrapolate), 1 -> interpolate by 1/factor
        if (c.convention == RopeConvention::hf) {
            // HF linear_ramp_factor: (i - low) / (high - low), with high nudged by 0.001 when equal.
            const double hi = (low == high) ? high + 0.001 : high;
            ramp = std::clamp((i - low) / (hi - low), 0.0, 1.0);
        } else {
            // ggml rope_yarn_ramp: (i - low) / max(0.001, high - low); an inverted range becomes a step.
            ramp = std::clamp((i - low) / std::max(0.001, high - low), 0.0, 1.0);
        }
        const double extrapolation = 1.0 - ramp;
        const double w = f.invFreq[i];
        f.invFreq[i] = (w / s.factor) * (1.0 - extrapolation) + w * extrapolation;
    }
    requireFinite(s.mscale, "scaling.mscale");
    requireFinite(s.mscaleAllDim, "scaling.mscaleAllDim");
    if (c.convention == RopeConvention::ggml) {
        f.attentionScale = 1.0 + 0.1 * std::log(s.factor);
    } else if (!std::isnan(s.attentionFactor)) {
        f.attentionScale = s.attentionFactor;
    } else if (s.mscale != 0 && s.mscaleAllDim != 0) {
        f.attentionScale = yarnMscale(s.factor, s.mscale) / yarnMscale(s.factor, s.mscaleAllDim);
        if (!(std::isfinite(f.attentionScale) && f.attentionScale > 0))
            fail("scaling.mscale", "(" + show(s.mscale) + ") and scaling.mscaleAllDim (" + show(s.mscaleAllDim) +
                                       ") give no positive finite attention scale (0.1 m ln factor + 1 must be positive for both)");
    } else {
        // HF falls back to get_mscale(factor) with mscale = 1 when mscale_all_dim is absent.
        f.attentionScale = yarnMscale(s.factor, 1.0);
    }
}

void applyLlama3(const RopeConfig& c, RopeFrequencies& f) {
    const RopeScaling& s = c.scaling;
    requireOriginalLength(s, "llama3");
    requirePositiveFinite(s.lowFreqFactor, "scaling.lowFreqFactor");
    requirePositiveFinite(s.highFreqFactor, "scaling.highFreqFactor");
    if (!(s.highFreqFactor > s.lowFreqFactor))
        fail("scaling.highFreqFactor", "must be greater than scaling.lowFreqFactor (got " + show(s.highFreqFactor) +
                                           " <= " + show(s.lowFreqFactor) + ")");
    const double L0 = static_cast<double>(s.originalMaxPositionEmbeddings);
    const double lowFreqWavelen = L0 / s.lowFreqFactor;
    const double highFreqWavelen = L0 / s.highFreqFactor;
    for (double& w : f.invFreq) {
        const double wavelen = 2 * kPi / w;
        if (wavelen < highFreqWavelen) continue;  // high frequencies: unchanged
        if (wavelen > lowFreqWavelen) {           // low frequencies: interpolated
            w = w / s.factor;
            continue;
        }
        const double smooth = (L0 / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        w = (1 - smooth) * w / s.factor + smooth * w;
    }
}

void applyLongrope(const RopeConfig& c, int R, RopeFrequencies& f) {
    const RopeScaling& s = c.scaling;
    requireOriginalLength(s, "longrope");
    const std::size_t half = static_cast<std::size_t>(R / 2);
    if (s.shortFactor.size() != half)
        fail("scaling.shortFactor", "must have rotaryDim/2 = " + std::to_string(half) + " entries (got " +
                                        std::to_string(s.shortFactor.size()) + ")");
    if (s.longFactor.size() != half)
        fail("scaling.longFactor", "must have rotaryDim/2 = " + std::to_string(half) + " entries (got " +
                                       std::to_string(s.longFactor.size()) + ")");
    for (std::size_t i = 0; i < half; ++i) {
        requirePositiveFinite(s.shortFactor[i], "scaling.shortFactor");
        requirePositiveFinite(s.longFactor[i], "scaling.longFactor");
    }
    const bool useLong = c.seqLen > s.originalMaxPositionEmbeddings;
    const std::vector<double>& ext = useLong ? s.longFactor : s.shortFactor;
    for (std::size_t i = 0; i < half; ++i) f.invFreq[i] /= ext[i];
    if (!std::isnan(s.attentionFactor)) f.attentionScale = s.attentionFactor;
    else if (std::isnan(s.factor) || s.factor <= 1) f.attentionScale = 1.0;  // no factor given: 1
    else if (s.originalMaxPositionEmbeddings < 2)
        fail("scaling.originalMaxPositionEmbeddings", "must be at least 2 for longrope's attention scale sqrt(1 + ln factor / ln L0) (got " +
                                                          std::to_string(s.originalMaxPositionEmbeddings) + ")");
    else f.attentionScale = std::sqrt(1 + std::log(s.factor) / std::log(static_cast<double>(s.originalMaxPositionEmbeddings)));
}

// p-RoPE: k = floor(fraction * R / 2) pairs keep their frequency, the others get 0 (pass through).
// floor((fraction * R) / 2) as Hugging Face's int(rope_proportion * head_dim // 2)
// (modeling_rope_utils._compute_proportional_rope_parameters), the same double arithmetic.
void applyFrequencyFraction(const RopeConfig& c, int R, RopeFrequencies& f) {
    const double p = c.frequencyFraction;
    if (!(p >= 0 && p <= 1)) fail("frequencyFraction", "must be in [0, 1] (got " + show(p) + ")");
    if (p == 1) {
        if (c.keptFrequencies != KeptFrequencies::high)  // no pair is dropped: which end keeps rotating means nothing
            failType("keptFrequencies", "applies only with p-RoPE's frequencyFraction < 1 (without it every pair keeps its frequency)");
        return;
    }
    if (c.multiAxis != MultiAxis::none)
        fail("frequencyFraction", "applies only to single-axis RoPE (multiAxis 'none'; got a multi-axis table)");
    const std::size_t half = static_cast<std::size_t>(R / 2);
    const std::size_t kept = static_cast<std::size_t>(std::floor((p * R) / 2));
    const std::size_t first = c.keptFrequencies == KeptFrequencies::high ? 0 : half - kept;  // kept pairs [first, first + kept)
    for (std::size_t k = 0; k < half; ++k)
        if (k < first || k >= first + kept) f.invFreq[k] = 0;
}

// LieRE: the generators, checked and made exactly skew-symmetric, in double.
void applyLiere(const RopeConfig& c, int R, RopeFrequencies& f) {
    const int b = c.blockSize;
    if (b < 2 || b > 64) fail("blockSize", "must be an integer in [2, 64] for multiAxis 'liere' (got " + std::to_string(b) + ")");
    if (R % b != 0)
        fail("blockSize", "(" + std::to_string(b) + ") must divide the rotary width rotaryDim = " + std::to_string(R) +
                              " (headDim * partialRotaryFactor)");
    if (c.scaling.type != RopeScalingType::none) fail("scaling.type", "must be 'none' with multiAxis 'liere' (its rotations are learned)");
    if (c.xposScaleBase != 0) fail("xposScaleBase", "cannot be combined with multi-axis RoPE");
    if (c.frequencyFraction != 1) fail("frequencyFraction", "applies only to single-axis RoPE (multiAxis 'none'; got 'liere')");
    // no frequency schedule: its rotations are the generators' (the JS options refuse these keys by name when
    // given at all: checkRopeKeys, src/encodings/rope.cpp)
    const char* unused = c.base != RopeConfig{}.base ? "base" : c.convention != RopeConvention::hf ? "convention" : c.seqLen != 0 ? "seqLen" : nullptr;
    if (unused) fail(unused, "has no effect with multiAxis 'liere': its rotations are the generators' exp(sum p_a G_a), no frequency schedule");
    const std::size_t perAxis = static_cast<std::size_t>(R) * static_cast<std::size_t>(b);  // R/b blocks of b*b
    const std::size_t n = c.generators.size();
    if (n == 0 || n % perAxis != 0 || n / perAxis > 16)
        fail("generators", "must be [axes, rotaryDim/blockSize, blockSize, blockSize] = axes x " + std::to_string(R / b) + " x " +
                               std::to_string(b) + " x " + std::to_string(b) + " floats with 1 <= axes <= 16 (got " + std::to_string(n) + ")");
    const std::size_t bb = static_cast<std::size_t>(b) * static_cast<std::size_t>(b);
    f.axes = static_cast<int>(n / perAxis);
    f.blockSize = b;
    f.generators.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const double g = c.generators[i];
        if (!(std::fabs(g) <= kLiereMaxEntry))
            fail("generators[" + std::to_string(i) + "]", "must be finite with |value| <= 1e4 (got " + show(g) + ")");
    }
    // Skew-symmetry: G[j][i] = -G[i][j] within 1e-6 of the block's largest |entry| (a zero diagonal
    // likewise); the block used is (G - G^T)/2, exactly skew-symmetric.
    for (std::size_t blk = 0; blk < n / bb; ++blk) {
        const float* G = c.generators.data() + blk * bb;
        double* out = f.generators.data() + blk * bb;
        double largest = 0;
        for (std::size_t e = 0; e < bb; ++e) largest = std::max(largest, std::fabs(static_cast<double>(G[e])));
        const double tol = kLiereSkewTolerance * largest;
        for (int i = 0; i < b; ++i)
            for (int j = i; j < b; ++j) {
                const double gij = G[i * b + j], gji = G[j * b + i];
                if (std::fabs(gij + gji) > tol)
                    fail("generators[" + std::to_string(blk * bb + static_cast<std::size_t>(i * b + j)) + "]",
                         "(" + show(gij) + ") must be minus generators[" + std::to_string(blk * bb + static_cast<std::size_t>(j * b + i)) + "] (" + show(gji) +
                             "): each block must be skew-symmetric, G^T = -G, within 1e-6 of its largest entry");
                out[i * b + j] = (gij - gji) / 2;
                out[j * b + i] = (gji - gij) / 2;
            }
    }
    // do the axes' generators commute, block by block?
    const std::size_t blocks = static_cast<std::size_t>(R / b);
    for (std::size_t a = 0; a < static_cast<std::size_t>(f.axes); ++a)
        for (std::size_t a2 = a + 1; a2 < static_cast<std::size_t>(f.axes); ++a2)
            for (std::size_t j = 0; j < blocks; ++j) {
                const double* X = f.generators.data() + (a * blocks + j) * bb;
                const double* Y = f.generators.data() + (a2 * blocks + j) * bb;
                double mx = 0, my = 0, worst = 0;
                for (std::size_t e = 0; e < bb; ++e) mx = std::max(mx, std::fabs(X[e])), my = std::max(my, std::fabs(Y[e]));
                for (int i = 0; i < b; ++i)
                    for (int k = 0; k < b; ++k) {
                        double xy = 0, yx = 0;
                        for (int m = 0; m < b; ++m) xy += X[i * b + m] * Y[m * b + k], yx += Y[i * b + m] * X[m * b + k];
                        worst = std::max(worst, std::fabs(xy - yx));
                    }
                if (worst > 1e-9 * mx * my * b) f.generatorsCommute = false;
            }
    std::fill(f.invFreq.begin(), f.invFreq.end(), 0.0);
}

}  // namespace

void matrixExp(const double* A, int b, double* out) {
    const std::size_t n = static_cast<std::size_t>(b);
    double norm = 0;  // the 1-norm (largest column sum)
    for (std::size_t j = 0; j < n; ++j) {
        double col = 0;
        for (std::size_t i = 0; i < n; ++i) col += std::fabs(A[i * n + j]);
        norm = std::max(norm, col);
    }
    // A / 2^s with norm <= 1/2: the Taylor series then converges fast (18 terms below 1e-17 relative)
    int s = 0;
    if (norm > 0.5) s = std::max(0, static_cast<int>(std::ceil(std::log2(norm / 0.5))));
    const double scale = std::ldexp(1.0, -s);
    std::vector<double> X(n * n), term(n * n), next(n * n), sum(n * n, 0.0);
    for (std::size_t e = 0; e < n * n; ++e) X[e] = A[e] * scale;
    for (std::size_t i = 0; i < n; ++i) term[i * n + i] = 1, sum[i * n + i] = 1;
    for (int k = 1; k <= 30; ++k) {  // term_k = term_{k-1} X / k
        double largest = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double acc = 0;
                for (std::size_t m = 0; m < n; ++m) acc += term[i * n + m] * X[m * n + j];
                next[i * n + j] = acc / k;
                largest = std::max(largest, std::fabs(next[i * n + j]));
            }
        term.swap(next);
        for (std::size_t e = 0; e < n * n; ++e) sum[e] += term[e];
        if (largest < 1e-18) break;
    }
    for (int q = 0; q < s; ++q) {  // exp(A) = exp(A / 2^s)^(2^s)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double acc = 0;
                for (std::size_t m = 0; m < n; ++m) acc += sum[i * n + m] * sum[m * n + j];
                next[i * n + j] = acc;
            }
        sum.swap(next);
    }
    std::copy(sum.begin(), sum.end(), out);
}

int rotaryDimOf(int headDim, double partialRotaryFactor) {
    requireSize(headDim, "headDim", limits::kMaxHeadDim);
    if (!std::isfinite(partialRotaryFactor) || partialRotaryFactor <= 0 || partialRotaryFactor > 1)
        fail("partialRotaryFactor", "must be in (0, 1] (got " + show(partialRotaryFactor) + ")");
    const int R = static_cast<int>(headDim * partialRotaryFactor);  // truncates, as int() in HF
    if (R == 0) fail("partialRotaryFactor", "leaves no rotary channels (headDim " + std::to_string(headDim) + ")");
    if (R % 2 != 0)
        fail("rotaryDim", "must be even (int(headDim * partialRotaryFactor) = " + std::to_string(R) + ")");
    return R;
}

RopeFrequencies ropeFrequencies(const RopeConfig& c) {
    const int R = rotaryDimOf(c.headDim, c.partialRotaryFactor);
    requirePositiveFinite(c.base, "base");
    if (c.base == 1.0) fail("base", "must not be 1");
    requireNonNegative(c.seqLen, "seqLen");
    const RopeScaling& s = c.scaling;
    registry::validateScaling(s);
    if (s.type != RopeScalingType::none && !std::isnan(s.factor)) {
        requirePositiveFinite(s.factor, "scaling.factor");
        if (s.factor < 1) fail("scaling.factor", "must be >= 1 (got " + show(s.factor) + ")");
        if (!std::isnan(s.attentionFactor)) requirePositiveFinite(s.attentionFactor, "scaling.attentionFactor");
    }

    double base = c.base;
    if (s.type == RopeScalingType::ntk) {
        if (R <= 2) fail("rotaryDim", "must be > 2 for NTK scaling");
        base = base * std::pow(s.factor, static_cast<double>(R) / (R - 2));
    } else if (s.type == RopeScalingType::dynamic) {
        requireOriginalLength(s, "dynamic");
        if (R <= 2) fail("rotaryDim", "must be > 2 for dynamic NTK scaling");
        const double Lmax = static_cast<double>(s.originalMaxPositionEmbeddings);
        const double L = std::max(static_cast<double>(c.seqLen), Lmax);
        // HF writes factor L / Lmax - (factor - 1); the same number as 1 + factor (L / Lmax - 1) without
        // the cancellation that turns a huge factor's "1" into 0 at L = Lmax
        base = base * std::pow(1 + s.factor * (L / Lmax - 1), static_cast<double>(R) / (R - 2));
    }

    // the rotated channels must lie within the head (rotaryDimOf checked headDim)
    if (c.rotaryOffset < 0 || c.rotaryOffset > c.headDim - R)
        fail("rotaryOffset", "must be in [0, headDim - rotaryDim] = [0, " + std::to_string(c.headDim - R) + "] (got " + std::to_string(c.rotaryOffset) + ")");

    RopeFrequencies f;
    f.rotaryDim = R;
    f.rotaryOffset = c.rotaryOffset;
    f.invFreq.resize(static_cast<std::size_t>(R / 2));
    for (int i = 0; i < R / 2; ++i) f.invFreq[i] = 1.0 / std::pow(base, 2.0 * i / R);

    switch (s.type) {
        case RopeScalingType::none:
        case RopeScalingType::ntk:
        case RopeScalingType::dynamic: break;
        case RopeScalingType::linear:
            for (double& w : f.invFreq) w /= s.factor;
            break;
        case RopeScalingType::yarn: applyYarn(c, R, f); break;
        case RopeScalingType::llama3: applyLlama3(c, f); break;
        case RopeScalingType::longrope: applyLongrope(c, R, f); break;
    }

    if (c.multiAxis == MultiAxis::mrope) {
        if (c.sections.empty()) fail("sections", "are required by M-RoPE (pairs per axis, e.g. [16, 24, 24])");
        int total = 0;
        for (int sct : c.sections) {
            requirePositive(sct, "sections");
            total += sct;
        }
        if (total != R / 2) fail("sections", "must sum to rotaryDim/2 = " + std::to_string(R / 2) + " (got " + std::to_string(total) + ")");
        f.axes = static_cast<int>(c.sections.size());
        if (!c.mropeInterleaved) {
            for (int a = 0; a < f.axes; ++a) f.axisOfPair.insert(f.axisOfPair.end(), static_cast<std::size_t>(c.sections[a]), a);
        } else {
            if (f.axes != 3) fail("sections", "must be three (t, h, w) for interleaved M-RoPE (got " + std::to_string(f.axes) + ")");
            std::vector<int> count(3, 0);
            for (int k = 0; k < R / 2; ++k) {
                const int a = (k % 3 == 1 && k < 3 * c.sections[1]) ? 1 : (k % 3 == 2 && k < 3 * c.sections[2]) ? 2 : 0;
                f.axisOfPair.push_back(a);
                ++count[a];
            }
            // Sections too large to interleave (e.g. [2, 10, 10] over 22 pairs) would silently give an
            // axis fewer pairs than asked for.
            for (int a = 0; a < 3; ++a)
                if (count[a] != c.sections[a])
                    fail("sections", "cannot be interleaved over " + std::to_string(R / 2) + " pairs: axis " + std::to_string(a) + " gets " +
                                         std::to_string(count[a]) + " pairs, not " + std::to_string(c.sections[a]));
        }
    } else if (c.multiAxis == MultiAxis::axial2d) {
        if (R % 4 != 0) fail("rotaryDim", "must be a multiple of 4 for 2-D axial RoPE (got " + std::to_string(R) + ")");
        if (s.type != RopeScalingType::none) fail("scaling.type", "must be 'none' with 2-D axial RoPE");
        f.axes = 2;
        const int quarter = R / 4;
        for (int k = 0; k < R / 2; ++k) {
            f.invFreq[k] = std::pow(base, -4.0 * (k % quarter) / R);
            f.axisOfPair.push_back(k < quarter ? 0 : 1);
        }
    } else if (c.multiAxis == MultiAxis::liere) {
        applyLiere(c, R, f);
    } else if (!c.sections.empty()) {
        fail("sections", "only apply to multiAxis 'mrope'");
    }
    if (c.multiAxis != MultiAxis::liere && (!c.generators.empty() || c.blockSize != 0))
        fail(c.generators.empty() ? "blockSize" : "generators", "only apply to multiAxis 'liere'");
    applyFrequencyFraction(c, R, f);
    if (c.mropeInterleaved && c.multiAxis != MultiAxis::mrope) {
        failType("mropeInterleaved", "applies only to multiAxis 'mrope'");
    }
    if (c.xposScaleBase != 0) {
        requirePositiveFinite(c.xposScaleBase, "xposScaleBase");
        if (f.axes != 1) fail("xposScaleBase", "cannot be combined with multi-axis RoPE");
        f.xposScaleBase = c.xposScaleBase;
        for (int k = 0; k < R / 2; ++k) f.xposZeta.push_back((2.0 * k + 0.4 * R) / (1.4 * R));
        // (capped at 2^31: beyond that no position reaches the limit)
        f.xposMaxPosition = static_cast<std::int64_t>(std::min(std::floor(80.0 * c.xposScaleBase / -std::log(f.xposZeta[0])), 2147483648.0));
    }
    for (double w : f.invFreq)
        if (!(std::isfinite(w) && w >= 0))
            fail("scaling.factor", "(" + show(s.factor) + ") with base " + show(c.base) + " gives a frequency of " + show(w) + ": out of range");
    // The scale multiplies every rotated channel; real schedules give 1 to 2. A derived scale far
    // outside that (mscale / mscaleAllDim / attentionFactor gone wrong) would overflow float outputs.
    if (!(f.attentionScale > 0 && f.attentionScale <= 1e4))
        fail("scaling", "gives an attention scale of " + show(f.attentionScale) + "; it must lie in (0, 1e4] (models use about 1 to 2)");
    return f;
}

namespace {
template <class T>
void checkXpos(const RopeFrequencies& f, const T* p, std::size_t n, const std::string& field) {
    if (f.xposZeta.empty()) return;
    for (std::size_t i = 0; i < n; ++i)
        if (p[i] > f.xposMaxPosition || p[i] < -f.xposMaxPosition)
            fail(field + "[" + std::to_string(i) + "]",
                 "(" + std::to_string(p[i]) + ") is beyond xPos's range: with xposScaleBase " + show(f.xposScaleBase) +
                     " the scales zeta^(+-p/gamma) leave float range past " + std::to_string(f.xposMaxPosition));
}
}  // namespace

void requireXposRange(const RopeFrequencies& f, const std::int32_t* p, std::size_t n, const std::string& field) { checkXpos(f, p, n, field); }
void requireXposRange(const RopeFrequencies& f, const std::int64_t* p, std::size_t n, const std::string& field) { checkXpos(f, p, n, field); }

}  // namespace posenc
