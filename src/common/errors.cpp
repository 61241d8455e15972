#include "posenc/common/errors.hpp"

#include "kernels/kernel_set.hpp"

namespace posenc {

void requireFiniteValues(const float* x, std::size_t n, const char* field) {
    if (kernels::active().allFinite(x, n)) return;  // one vector pass; the scalar search only names the index
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) fail(std::string(field) + "[" + std::to_string(i) + "]", "must be finite (got " + show(x[i]) + ")");
}

}  // namespace posenc
