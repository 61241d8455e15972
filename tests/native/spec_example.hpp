// A kind's options example (its spec's KindSpec::options, src/encodings/<kind>.cpp) read into the kind's
// struct, as the binding reads a JavaScript options object: its tensors placed (a {"$floats": n} drawn by
// the caller, a list of numbers as written), the registry's checks run for the call's heads and headDim
// (choices become indices, heads fill in), then the spec's fields read. Used by test_kind_spec.cpp (every
// kind's example computes for the example call) and by tests/fuzz/fuzz_attention.cpp (a kind without a
// Builder there is fuzzed from its example). No doctest here.
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "encodings/kind_spec.hpp"
#include "registry_check.hpp"

namespace spec_example {

// An options object whose tensors are {"@": [index into `tensors`, length]}.
class Source final : public posenc::registry::Source {
public:
    Source(const posenc::json::Value& v, const std::deque<std::vector<float>>& tensors) : v_(v), tensors_(tensors) {}
    bool has(const char* key) const override { return v_.find(key) != nullptr; }
    double number(const char* key) const override { return at(key).number(); }
    std::string text(const char* key) const override { return at(key).text(); }
    std::vector<double> numbers(const char* key) const override {
        std::vector<double> out;
        for (const posenc::json::Value& x : at(key).elements()) out.push_back(x.number());
        return out;
    }
    std::vector<std::string> texts(const char* key) const override {
        std::vector<std::string> out;
        for (const posenc::json::Value& x : at(key).elements()) out.push_back(x.text());
        return out;
    }
    posenc::View<float> floats(const char* key) const override {
        const std::vector<float>& t = tensors_.at(static_cast<std::size_t>(at(key).find("@")->elements().at(0).number()));
        return posenc::View<float>(t);
    }
    std::unique_ptr<posenc::registry::Source> object(const char* key) const override { return std::make_unique<Source>(at(key), tensors_); }

private:
    const posenc::json::Value& at(const char* key) const {
        const posenc::json::Value* x = v_.find(key);
        if (!x) throw std::logic_error(std::string("spec example: no key '") + key + "'");
        return *x;
    }
    const posenc::json::Value& v_;
    const std::deque<std::vector<float>>& tensors_;
};

// Kind T's options example for a call of `heads` heads of `headDim` channels; `draw(n)` gives a
// {"$floats": n} tensor's values, kept in `tensors` (which the result's views point into).
// std::invalid_argument when the registry's checks refuse it.
template <class T>
T read(int heads, int headDim, std::deque<std::vector<float>>& tensors, const std::function<std::vector<float>(std::size_t)>& draw) {
    using namespace posenc;
    const kinds::KindSpec& k = kinds::specOf<T>();
    json::Value o = json::parse(k.options);
    const registry::Table& t = registry::table(std::string("encoding.") + k.name);
    for (json::Value::Member& m : o.members()) {
        const registry::Field* f = t.find(m.key);
        if (!f || f->type != "FloatInput") continue;
        std::vector<float> x;
        if (const json::Value* n = m.value.find("$floats")) x = draw(static_cast<std::size_t>(n->number()));
        else
            for (const json::Value& e : m.value.elements()) x.push_back(static_cast<float>(e.number()));
        tensors.push_back(std::move(x));
        m.value = json::parse("{\"@\":[" + std::to_string(tensors.size() - 1) + "," + std::to_string(tensors.back().size()) + "]}");
    }
    registry::checkEncoding(o, "encoding", {heads, headDim, "the attention's headDim"});
    return kinds::readOptions<T>(k, Source(o, tensors));
}

// The example call's shapes (kinds::kExampleCall): what every kind's options example is made for.
inline posenc::AttentionDims callDims() {
    const posenc::json::Value call = posenc::json::parse(posenc::kinds::kExampleCall);
    const auto get = [&call](const char* key) { return static_cast<int>(call.find(key)->number()); };
    return posenc::AttentionDims{get("heads"), get("kvHeads"), get("headDim"), get("qLen"), get("kLen")};
}

}  // namespace spec_example
