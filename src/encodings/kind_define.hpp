// The one definition of specOf<T>() (kind_spec.hpp), for the kinds' own files only: src/encodings/<kind>.cpp
// includes this header, defines `KindSpec makeSpec(Tag<T>)` (found by argument-dependent lookup where
// specOf<T> is instantiated) and instantiates `template const KindSpec& specOf<T>();` once. Every other
// file sees only kind_spec.hpp's declaration and uses that instantiation ([temp.pre]: a template used
// where its definition is not visible is fine when the specialisation is explicitly instantiated in some
// translation unit); a kind of posenc::Encoding without such a file is an undefined symbol at link time.
#pragma once
#include "encodings/kind_spec.hpp"

namespace posenc::kinds {

template <class T>
const KindSpec& specOf() {
    static const KindSpec spec = makeSpec(Tag<T>{});
    return spec;
}

}  // namespace posenc::kinds
