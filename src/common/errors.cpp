#include "posenc/common/errors.hpp"

#include <algorithm>
#include <atomic>

#include "common/decimal.hpp"
#include "common/thread_pool.hpp"
#include "kernels/kernel_set.hpp"

namespace posenc {

std::string show(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    std::string s = detail::formatFixed6(v);  // std::to_string's "%f", without printf
    while (s.back() == '0') s.pop_back();     // it always has a '.'
    if (s.back() == '.') s.pop_back();
    return s;
}

namespace detail {
std::size_t firstNonFinite(const float* x, std::size_t n) {
    // Pieces of 64 KiB: one vector pass each; the first failing piece found by any thread lowers `bad`
    // (a minimum, so the same piece whatever the schedule), and the scalar search names the index in it.
    constexpr std::size_t kPiece = std::size_t(1) << 14;
    const std::size_t pieces = (n + kPiece - 1) / kPiece;
    std::atomic<std::size_t> bad{pieces};
    parallelFor(pieces, 16.0 * static_cast<double>(n), [&](std::size_t p, int) {
        if (p >= bad.load(std::memory_order_relaxed)) return;  // an earlier piece already fails
        const std::size_t i = p * kPiece;
        if (kernels::active().allFinite(x + i, std::min(kPiece, n - i))) return;
        for (std::size_t b = bad.load(std::memory_order_relaxed); p < b && !bad.compare_exchange_weak(b, p, std::memory_order_relaxed);) {
        }
    });
    const std::size_t p = bad.load();
    if (p == pieces) return n;
    std::size_t i = p * kPiece;
    while (std::isfinite(x[i])) ++i;
    return i;
}
}  // namespace detail

void requireFiniteValues(const float* x, std::size_t n, const char* field) {
    const std::size_t i = detail::firstNonFinite(x, n);  // vector passes; the scalar search only names the index
    if (i < n) fail(std::string(field) + "[" + std::to_string(i) + "]", "must be finite (got " + show(x[i]) + ")");
}

}  // namespace posenc
