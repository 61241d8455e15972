// The parity grid's contract with each kind's test file (tests/native/test_parity_grid.cpp runs the
// grid; tests/native/kinds/<kind>.cpp holds a kind's reference). A kind's file includes
// kinds/grid_case.hpp, defines
//
//     void gridReference(GridTag<ItsEncoding>, const attn_ref::Problem& p, GridCase& c) { ... }
//
// (its encoding on the grid's problem and its score written from the paper or the upstream code, in
// long double: naive_attention.hpp's NaiveTerms) and instantiates `template void gridCase<ItsEncoding>(const
// attn_ref::Problem&, GridCase&);`. The grid calls gridCase<K> for every alternative of posenc::Encoding,
// so a kind without such a file leaves gridCase<K> undefined and the test binary does not link.
#pragma once
#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <posenc/posenc.hpp>
#include "naive_attention.hpp"
#include "reference.hpp"

// One kind on one problem: the encoding `attention` takes, its reference, and what the cache gets.
struct GridCase {
    posenc::Encoding encoding;
    attn_ref::NaiveTerms terms;
    ref::ld scale = 0;
    std::optional<posenc::RopeEncoding> cacheRope;  // the rotary part goes to the cache's config ...
    posenc::Encoding cacheEncoding;                 // ... and the rest to attend
    std::string noDecode;                           // why the decode-split problem does not apply ('' = it does)
    std::string noSinks;                            // why the sink-logit variant does not apply ('' = it does)
    std::vector<float> cacheLogForget;              // [heads, kLen]: a forgetting cache's gates, given with each append (empty: a plain cache)
    std::deque<std::vector<float>> tables;          // storage the encoding's views point into
    const std::vector<float>& table(std::size_t n, unsigned seed, float lo = -1, float hi = 1) {
        tables.push_back(ref::randomVector(n, seed, lo, hi));
        return tables.back();
    }
};

// The grid's problems: far positions, every kind's starting at 2^24 + 3 (Swin's are window cells 0..).
constexpr std::int32_t kGridBase = (1 << 24) + 3;

inline ref::ld gridRsqrt(int d) { return 1 / std::sqrt(ref::ld(d)); }

template <class Kind>
struct GridTag {};

// p-RoPE, a rope option (frequencyFraction) rather than a kind, has a grid case of its own (kinds/rope.cpp).
struct PRopeCase {};

// Kind's encoding and reference on problem p (defined by kinds/grid_case.hpp, instantiated by the kind's file).
template <class Kind>
void gridCase(const attn_ref::Problem& p, GridCase& c);
