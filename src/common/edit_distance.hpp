// How far a misspelt name is from a known one: the options checker (src/registry_check.cpp) and the
// config.json reader (src/rotary/hf_config.cpp) suggest the name meant with it.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace posenc {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions: "bsae" -> "base" is 1).
inline std::size_t editDistance(std::string_view a, std::string_view b) {
    const std::size_t w = b.size() + 1;
    std::vector<std::size_t> d((a.size() + 1) * w);  // d[i * w + j]: a's first i characters against b's first j
    for (std::size_t i = 0; i <= a.size(); ++i)
        for (std::size_t j = 0; j <= b.size(); ++j) {
            std::size_t& x = d[i * w + j];
            if (i == 0 || j == 0) {
                x = i + j;
                continue;
            }
            x = std::min(std::min(d[(i - 1) * w + j], d[i * w + j - 1]) + 1, d[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]));
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) x = std::min(x, d[(i - 2) * w + j - 2] + 1);
        }
    return d.back();
}

}  // namespace posenc
