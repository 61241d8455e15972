// A registry made from a list of encoding kinds (src/encodings/): its tables, kind names, describe()
// rows and JSON. posenc's own is registry::standard() (every kinds::standard() kind), behind the free
// functions of posenc/registry.hpp; a test can build one with a kind of its own and see where it appears.
#pragma once
#include <string>
#include <vector>

#include "encodings/kind_spec.hpp"
#include "posenc/describe.hpp"
#include "posenc/registry.hpp"
#include "registry_check.hpp"

namespace posenc::registry {

using Kinds = std::vector<const kinds::KindSpec*>;

struct Built {
    Kinds kinds;
    std::vector<std::string> kindNames;  // in the order of `kinds`
    std::vector<Table> tables;
};

Built build(const Kinds& kinds);
// describe()'s rows: NoPE first, the additive functions, then the kinds by family (rotary, query, score).
std::vector<MethodDescription> describeRows(const Kinds& kinds);
std::string json(const Built& registry);
const Built& standard();
// checkEncoding (registry_check.hpp) against `registry`'s kinds and tables (a test's registry of its own).
void checkEncoding(const Built& registry, json::Value& encoding, const std::string& field, const CallShape& call = {});
// An options object read into kind `k`'s struct (std::logic_error for a kind outside posenc::Encoding).
Encoding encodingFrom(const kinds::KindSpec& k, const Source& s);

}  // namespace posenc::registry
