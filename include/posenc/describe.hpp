// What posenc implements, in one table: every encoding kind `attention` accepts and every additive
// function, with its family, learned parameters, length behaviour, KV-cache friendliness and the
// reference whose numbers it reproduces. The single source of the demo's comparison table and the docs.
#pragma once
#include <string>
#include <vector>

namespace posenc {

struct MethodDescription {
    std::string kind;          // the option name: an encoding kind ('rope', 'alibi', ...) or an additive function
    std::string family;        // 'additive' | 'rotary' | 'score' | 'none' (NoPE)
    std::string encodes;       // what the position enters as
    std::string parameters;    // learned parameters, a formula in the dims ("0" for fixed functions)
    std::string parameterMethod;  // parameterCount's method for it ('' = same as kind; '-' = none)
    bool extrapolates;         // whether the method is defined (gives values) past the trained length; not
                               // whether a model trained with it generalises there (that is measured: docs/lab.md)
    std::string extrapolation; // how, or why not
    bool kvCacheFriendly;      // cached keys stay valid as generation continues (no recomputation)
    std::string kvCache;       // why
    std::string reference;     // the implementation whose numbers posenc reproduces
    std::string usedIn;        // models that use it
};

const std::vector<MethodDescription>& describe();

}  // namespace posenc
