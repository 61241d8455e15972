// A non-owning view of caller memory (pointer + element count), so sizes can be validated.
#pragma once
#include <cstddef>
#include <vector>

namespace posenc {
template <class T>
struct View {
    const T* data = nullptr;
    std::size_t size = 0;
    View() = default;
    View(const T* d, std::size_t n) : data(d), size(n) {}
    View(const std::vector<T>& v) : data(v.data()), size(v.size()) {}  // NOLINT: implicit on purpose
    bool empty() const { return size == 0; }
    const T& operator[](std::size_t i) const { return data[i]; }
};
}  // namespace posenc
