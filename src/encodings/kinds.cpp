// The encoding kinds in order: posenc::Encoding's alternatives (include/posenc/attention/encoding.hpp),
// each described by its file in this folder. Nothing here names a kind.
#include <type_traits>
#include <variant>

#include "encodings/kind_spec.hpp"

namespace posenc::kinds {

namespace {
template <std::size_t... I>
std::vector<const KindSpec*> inVariantOrder(std::index_sequence<I...>) {
    std::vector<const KindSpec*> out;
    auto add = [&out](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        if constexpr (!std::is_same_v<T, CombinedEncoding>) out.push_back(&specOf<T>());
    };
    (add(static_cast<std::variant_alternative_t<I, Encoding>*>(nullptr)), ...);
    return out;
}
}  // namespace

const std::vector<const KindSpec*>& standard() {
    static const std::vector<const KindSpec*> kinds = inVariantOrder(std::make_index_sequence<std::variant_size_v<Encoding>>());
    return kinds;
}

std::pair<const KindSpec*, const void*> of(const Encoding& e) {
    return std::visit(
        [](const auto& x) -> std::pair<const KindSpec*, const void*> {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, CombinedEncoding>) return {nullptr, &x};
            else return {&specOf<T>(), &x};
        },
        e);
}

std::string scalarBiasNames() {
    std::string s;
    for (const KindSpec* k : standard())
        if (k->scalarBias) s += (s.empty() ? "'" : ", '") + std::string(k->name) + "'";
    return s;
}

}  // namespace posenc::kinds
