#include "posenc/rotary/apply.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "posenc/common/errors.hpp"
#include "common/thread_pool.hpp"
#include "kernels/kernel_set.hpp"
#include "kernels/rotate.hpp"  // toFloatScaled (scalar)
#include "rotary/internal.hpp"

namespace posenc {

RopeTables::RopeTables(const RopeFrequencies& f, RopeLayout layout)
    : invFreq_(f.invFreq), axisOfPair_(f.axisOfPair), xposScaleBase_(f.xposScaleBase), layout_(layout), rotaryDim_(f.rotaryDim),
      offset_(static_cast<std::size_t>(std::max(f.rotaryOffset, 0))), width_(static_cast<std::size_t>(f.rotaryDim / 2)) {
    if (f.rotaryDim <= 0 || f.rotaryDim % 2 != 0 || f.invFreq.size() != static_cast<std::size_t>(f.rotaryDim / 2))
        fail("rotaryDim", "must be even and match invFreq (got " + std::to_string(f.rotaryDim) + ")");
    if (f.rotaryOffset < 0) fail("rotaryOffset", "must be a non-negative integer (got " + std::to_string(f.rotaryOffset) + ")");
    for (double z : f.xposZeta) logZeta_.push_back(std::log(z));
    if (f.blockSize > 0) {
        block_ = f.blockSize;
        axes_ = static_cast<std::size_t>(f.axes);
        generators_ = f.generators;
        return;  // no frequencies: the blocks' rotations are built per token
    }
    cd_.resize(width_);
    sd_.resize(width_);
    stepC_.resize(width_);
    stepS_.resize(width_);
    kernels::active().sinCos(1.0, invFreq_.data(), width_, stepC_.data(), stepS_.data());
}

void RopeTables::buildLiere(const double* positions, std::size_t count, double scale, std::size_t stride) {
    const std::size_t b = static_cast<std::size_t>(block_), bb = b * b, blocks = static_cast<std::size_t>(rotaryDim_) / b;
    blockRot_.resize(count * blocks * bb);
    std::vector<double> A(bb);
    for (std::size_t t = 0; t < count; ++t)
        for (std::size_t j = 0; j < blocks; ++j) {
            // A = sum_a p_a G[a, j]: each product exact to double rounding (|p| < 2^31, G from float)
            std::fill(A.begin(), A.end(), 0.0);
            for (std::size_t a = 0; a < axes_; ++a) {
                const double p = positions[a * stride + t];
                const double* G = generators_.data() + (a * blocks + j) * bb;
                for (std::size_t e = 0; e < bb; ++e) A[e] += p * G[e];
            }
            double* M = blockRot_.data() + (t * blocks + j) * bb;
            if (b == 2) {
                // a plane rotation by theta = A[1][0]: cos and sin of the double angle (std::cos / std::sin
                // reduce it exactly), as RoPE's pair (x0, x1) -> (x0 cos - x1 sin, x1 cos + x0 sin)
                const double c = std::cos(A[2]), s = std::sin(A[2]);
                M[0] = c, M[1] = -s, M[2] = s, M[3] = c;
            } else {
                matrixExp(A.data(), block_, M);
            }
            for (std::size_t e = 0; e < bb; ++e) M[e] *= scale;
        }
}

void RopeTables::rotateLiere(float* dst, const float* src, std::size_t t) const noexcept {
    const std::size_t b = static_cast<std::size_t>(block_), bb = b * b, blocks = static_cast<std::size_t>(rotaryDim_) / b;
    double x[64];
    for (std::size_t j = 0; j < blocks; ++j) {
        const double* M = blockRot_.data() + (t * blocks + j) * bb;
        const float* from = src + offset_ + j * b;
        float* to = dst + offset_ + j * b;
        for (std::size_t i = 0; i < b; ++i) x[i] = from[i];  // (src may be dst)
        for (std::size_t i = 0; i < b; ++i) {
            double acc = 0;
            for (std::size_t m = 0; m < b; ++m) acc += M[i * b + m] * x[m];
            to[i] = static_cast<float>(acc);
        }
    }
}

void RopeTables::build(const double* positions, std::size_t count, double scale, RopeRole role, std::size_t stride) {
    if (stride == 0) stride = count;
    if (block_ > 0) {
        buildLiere(positions, count, scale, stride);
        return;
    }
    c_.resize(count * width_);
    s_.resize(count * width_);
    constexpr int kMaxSteps = 256;  // re-anchor the angle-addition recurrence this often
    int steps = kMaxSteps;
    for (std::size_t t = 0; t < count; ++t) {
        float* c = c_.data() + t * width_;
        float* s = s_.data() + t * width_;
        if (axisOfPair_.empty()) {
            // consecutive positions (the common case) advance by one step instead of a fresh sin/cos
            if (t > 0 && positions[t] == positions[t - 1] + 1 && steps < kMaxSteps) {
                kernels::active().advance(cd_.data(), sd_.data(), stepC_.data(), stepS_.data(), width_);
                ++steps;
            } else {
                kernels::active().sinCos(positions[t], invFreq_.data(), width_, cd_.data(), sd_.data());
                steps = 0;
            }
        } else {  // runs of pairs driven by the same axis
            for (std::size_t k0 = 0; k0 < width_;) {
                std::size_t k1 = k0;
                while (k1 < width_ && axisOfPair_[k1] == axisOfPair_[k0]) ++k1;
                kernels::active().sinCos(positions[static_cast<std::size_t>(axisOfPair_[k0]) * stride + t], invFreq_.data() + k0, k1 - k0,
                                    cd_.data() + k0, sd_.data() + k0);
                k0 = k1;
            }
        }
        kernels::toFloatScaled(cd_.data(), sd_.data(), width_, scale, c, s);
        if (!logZeta_.empty()) {  // xPos: zeta_k^(+-p/gamma)
            const double e = (role == RopeRole::query ? 1.0 : -1.0) * positions[t] / xposScaleBase_;
            for (std::size_t k = 0; k < width_; ++k) {
                const float g = static_cast<float>(std::exp(e * logZeta_[k]));
                c[k] *= g;
                s[k] *= g;
            }
        }
    }
}

void RopeTables::rotate(float* v, std::size_t t) const noexcept {
    const float* c = c_.data() + t * width_;
    const float* s = s_.data() + t * width_;
    if (block_ > 0) {
        rotateLiere(v, v, t);
        return;
    }
    float* x = v + offset_;  // the rotated channels: [offset, offset + rotaryDim)
    if (layout_ == RopeLayout::half) kernels::active().rotateHalf(x, x, c, s, width_);
    else kernels::active().rotateInterleaved(x, x, c, s, width_);
}

void RopeTables::rotateRows(float* dst, const float* src, std::size_t rows, std::size_t stride) const noexcept {
    // one kernel for the whole run of rows (tokens 0..rows-1 of these tables); the rotated channels are
    // [offset_, end), the rest of a row (partial rotary, or an offset range) copied when dst != src
    const kernels::KernelSet& k = kernels::active();
    const auto kernel = layout_ == RopeLayout::half ? k.rotateHalf : k.rotateInterleaved;
    const std::size_t end = offset_ + 2 * width_;
    for (std::size_t t = 0; t < rows; ++t) {
        const float* from = src + t * stride;
        float* to = dst + t * stride;
        if (block_ > 0) rotateLiere(to, from, t);
        else kernel(to + offset_, from + offset_, c_.data() + t * width_, s_.data() + t * width_, width_);
        if (dst != src) {
            std::copy(from, from + offset_, to);
            std::copy(from + end, from + stride, to + end);
        }
    }
}

namespace {
void checkShape(int heads, int tokens, int headDim, const RopeFrequencies& f) {
    requireSize(heads, "heads", limits::kMaxHeads);
    requirePositive(tokens, "tokens");
    requireSize(headDim, "headDim", limits::kMaxHeadDim);
    if (f.rotaryDim > headDim)
        fail("rotaryDim", "(" + std::to_string(f.rotaryDim) + ") exceeds headDim (" + std::to_string(headDim) + ")");
    if (f.rotaryOffset < 0 || f.rotaryOffset > headDim - f.rotaryDim)
        fail("rotaryOffset", "(" + std::to_string(f.rotaryOffset) + ") + rotaryDim (" + std::to_string(f.rotaryDim) + ") exceeds headDim (" +
                                 std::to_string(headDim) + ")");
}

// One rotation of a pass: src [heads, tokens, headDim] rotated by angle multipliers m ([axes, tokens]:
// positions or deltas) into dst (src == dst: in place).
struct Job {
    const float* src;
    float* dst;
    int heads, tokens;
    const double* m;
    RopeRole role;
};

// Runs the jobs, tokens in chunks of 128, each chunk's cos/sin tables built afresh (so they stay in L1,
// no large buffer is allocated per call, and a chunk's result does not depend on which thread ran it
// or what it ran before); the chunks of all jobs are the tasks of one pass on posenc's thread pool. A
// copy is made chunk by chunk in the task that rotates it (the rows are then in cache).
// Threshold: the pool's (kParallelMinWork at 16 units per float: calls under 31250 floats, and calls of
// one chunk, stay on the calling thread). From about 32K floats up, 2 threads beat 1 natively and in
// wasm, except near one core's L2 size, where rows change cores between calls and the gain can vanish.
// The finiteness scan runs on the pool too: as a serial read of all of x it capped large calls near 1.1x.
void rotateAll(const Job* jobs, std::size_t count, int headDim, double scale, const RopeFrequencies& f, RopeLayout layout,
               const detail::RopeCopyHooks* hooks = nullptr) {
    constexpr int kChunk = detail::kRopeChunk;
    std::size_t firstChunk[3] = {0, 0, 0};  // of each job (at most 2), and the total
    double work = 0;
    for (std::size_t j = 0; j < count; ++j) {
        firstChunk[j + 1] = firstChunk[j] + static_cast<std::size_t>((jobs[j].tokens + kChunk - 1) / kChunk);
        work += 16.0 * jobs[j].heads * jobs[j].tokens * headDim;  // memory-bound: 16 units per float (common/thread_pool.hpp)
    }
    std::vector<std::unique_ptr<RopeTables>> tables(static_cast<std::size_t>(std::max(threadCount(), 1)));  // one per thread, made on first use
    const std::size_t hd = static_cast<std::size_t>(headDim);
    const std::size_t extraTasks = hooks ? hooks->extraTasks : 0;
    if (hooks) work += hooks->extraWork;
    detail::parallelFor(firstChunk[count] + extraTasks, work, [&](std::size_t task, int slot) {
        if (task >= firstChunk[count]) {
            hooks->extra(task - firstChunk[count]);
            return;
        }
        const std::size_t j = task >= firstChunk[1] ? 1 : 0;
        const Job& job = jobs[j];
        auto& t = tables[static_cast<std::size_t>(slot)];
        if (!t) t = std::make_unique<RopeTables>(f, layout);
        const int t0 = static_cast<int>(task - firstChunk[j]) * kChunk, n = std::min(kChunk, job.tokens - t0);
        detail::rotateHeads(
            *t, job.m + t0, static_cast<std::size_t>(n), static_cast<std::size_t>(job.tokens), scale, job.role, job.heads, hd,
            [&](int h) {
                const std::size_t at = (static_cast<std::size_t>(h) * job.tokens + t0) * hd;
                return std::pair<const float*, float*>(job.src + at, job.dst + at);
            },
            [&](int h) {
                if (hooks && hooks->rows) hooks->rows(j, h, t0, n);
            });
    });
}

void rotateAll(float* x, int heads, int tokens, int headDim, const double* m, double scale, const RopeFrequencies& f,
               RopeLayout layout, RopeRole role) {
    const Job job{x, x, heads, tokens, m, role};
    rotateAll(&job, 1, headDim, scale, f, layout);
}
}  // namespace

void applyRope(float* x, int heads, int tokens, int headDim, const std::int32_t* positions, const RopeFrequencies& f,
               RopeLayout layout, RopeRole role) {
    checkShape(heads, tokens, headDim, f);
    const std::size_t n = static_cast<std::size_t>(tokens) * f.axes;
    requirePositions(positions, n, "positions");
    requireXposRange(f, positions, n, "positions");
    requireFiniteValues(x, static_cast<std::size_t>(heads) * tokens * headDim, "x");  // NaN or ±Infinity in, none out
    std::vector<double> p(positions, positions + n);
    rotateAll(x, heads, tokens, headDim, p.data(), f.attentionScale, f, layout, role);
}

std::vector<float> applyRope(const std::vector<float>& x, int heads, int tokens, int headDim,
                             const std::vector<std::int32_t>& positions, const RopeFrequencies& f, RopeLayout layout) {
    checkShape(heads, tokens, headDim, f);
    if (x.size() != static_cast<std::size_t>(heads) * tokens * headDim) fail("x", "must have heads*tokens*headDim elements");
    std::vector<float> out = x;
    if (positions.size() != static_cast<std::size_t>(tokens) * f.axes) fail("positions", "must have axes*tokens entries");
    applyRope(out.data(), heads, tokens, headDim, positions.data(), f, layout);
    return out;
}

void rotateByDelta(float* x, int heads, int tokens, int headDim, const std::int64_t* deltas, const RopeFrequencies& f,
                   RopeLayout layout, RopeRole role) {
    checkShape(heads, tokens, headDim, f);
    if (f.axes != 1) fail("rope", "rotation by a delta needs single-axis RoPE");
    requireXposRange(f, deltas, static_cast<std::size_t>(tokens), "deltas");
    requireFiniteValues(x, static_cast<std::size_t>(heads) * tokens * headDim, "x");
    std::vector<double> d(deltas, deltas + tokens);
    rotateAll(x, heads, tokens, headDim, d.data(), 1.0, f, layout, role);
}

namespace detail {
void ropeCopies(const RopeCopy* copies, std::size_t count, int headDim, const RopeFrequencies& f, RopeLayout layout,
                const RopeCopyHooks* hooks) {
    if (count > 2) fail("ropeCopies", "takes at most 2 copies");
    std::vector<double> m[2];
    Job jobs[2];
    for (std::size_t j = 0; j < count; ++j) {
        const RopeCopy& c = copies[j];
        m[j].assign(c.positions, c.positions + static_cast<std::size_t>(c.tokens) * f.axes);
        jobs[j] = Job{c.src, c.dst, c.heads, c.tokens, m[j].data(), c.role};
    }
    rotateAll(jobs, count, headDim, f.attentionScale, f, layout, hooks);
}
}  // namespace detail

}  // namespace posenc
