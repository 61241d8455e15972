// The one definition of gridCase<Kind> (parity_grid.hpp), for the kinds' test files only: each defines
// `gridReference(GridTag<Kind>, ...)` (found by argument-dependent lookup where gridCase<Kind> is
// instantiated) and then `template void gridCase<Kind>(const attn_ref::Problem&, GridCase&);`.
#pragma once
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "../parity_grid.hpp"

template <class Kind>
void gridCase(const attn_ref::Problem& p, GridCase& c) {
    gridReference(GridTag<Kind>{}, p, c);
}
