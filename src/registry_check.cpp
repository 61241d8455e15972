#include "registry_check.hpp"

#include <algorithm>
#include <cmath>

#include "common/edit_distance.hpp"
#include "encodings/kind_spec.hpp"
#include "posenc/common/errors.hpp"
#include "posenc/registry.hpp"
#include "registry_build.hpp"

namespace posenc::registry {

namespace {
std::string quoted(const std::vector<std::string>& names, const char* separator = ", ");
}  // namespace

std::size_t choose(const std::string& value, const std::string& field, const std::vector<std::string>& choices) {
    const auto it = std::find(choices.begin(), choices.end(), value);
    if (it == choices.end()) fail(field, "must be one of " + quoted(choices) + " (got '" + value + "')");
    return static_cast<std::size_t>(it - choices.begin());
}

namespace {

using json::Value;

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string quoted(const std::vector<std::string>& names, const char* separator) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? separator : "") + ("'" + names[i] + "'");
    return s;
}

// A value as the JS API's messages describe it ("got ..."): JavaScript's typeof and String(x).
std::string describe(const Value& v) {
    switch (v.type()) {
        case Value::Type::null: return "null";
        case Value::Type::boolean: return v.boolean() ? "boolean true" : "boolean false";
        case Value::Type::number: return "number " + v.text();
        case Value::Type::array: return "an array";
        case Value::Type::object:
            if (const Value* t = v.find("$js")) return t->text();
            if (const Value* n = v.find("$number")) return "number " + n->text();
            return "an object";
        case Value::Type::string: break;
    }
    // the first 20 UTF-16 units, as JSON
    std::string s;
    std::size_t units = 0, i = 0;
    const std::string& t = v.text();
    for (; i < t.size() && units < 20; ++units) {
        const auto lead = static_cast<unsigned char>(t[i]);
        const std::size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        if (len == 4) ++units;  // a surrogate pair
        s += t.substr(i, len), i += len;
    }
    if (i < t.size()) s += "\xE2\x80\xA6";  // …
    json::Writer w;
    w.string(s);
    return "the string " + w.text();
}

bool isPlainObject(const Value& v) { return v.isObject() && !v.find("$js") && !v.find("$number"); }

double number(const Value& v, const std::string& field) {
    if (const Value* n = v.isObject() ? v.find("$number") : nullptr) fail(field, "must be a finite number (got " + n->text() + ")");
    if (!v.isNumber()) failType(field, "must be a number (got " + describe(v) + ")");
    return v.number();
}

std::string integerText(double x) { return std::to_string(static_cast<long long>(x)); }

void integer(const Value& v, const std::string& field, int min, double max) {
    const double x = number(v, field);
    if (x != std::floor(x)) fail(field, "must be an integer (got " + v.text() + ")");
    const double least = min == Field::kNoMin ? -2147483648.0 : min;
    if (x < least || x > max) {
        const std::string what = least == 1 ? "a positive integer" : least == 0 ? "a non-negative integer"
                                                                               : "an integer in [" + integerText(least) + ", " + integerText(max) + "]";
        fail(field, "must be " + what + (x > max ? " no larger than " + integerText(max) : "") + " (got " + v.text() + ")");
    }
}

void boolean(const Value& v, const std::string& field) {
    if (!v.isBoolean()) failType(field, "must be a boolean (got " + describe(v) + ")");
}

// A choice's index in `choices`.
std::size_t choiceOf(const Value& v, const std::string& field, const std::vector<std::string>& choices) {
    if (!v.isString()) failType(field, "must be a string (got " + describe(v) + ")");
    return choose(v.text(), field, choices);
}
// A choice, rewritten as its index.
void choice(Value& v, const std::string& field, const std::vector<std::string>& choices) {
    v.setNumber(static_cast<double>(choiceOf(v, field, choices)));
}

// Case, '_' and '-' ignored, so config.json spellings (original_max_position_embeddings) find their key.
std::string normalised(const std::string& s) {
    std::string out;
    for (const char c : s)
        if (c != '_' && c != '-') out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
}

// The known key nearest to a misspelt one; empty when none is close (a few edits that leave most of
// the name: "x" does not suggest "q").
std::string nearestKey(const std::string& key, const Table& t) {
    const std::string k = normalised(key);
    const Field* best = nullptr;
    std::size_t bestDistance = 0;
    for (const Field& f : t.keys) {
        const std::size_t d = editDistance(k, normalised(f.name));
        if (!best || d < bestDistance) best = &f, bestDistance = d;
    }
    if (!best) return "";
    const std::size_t limit = std::max<std::size_t>(1, key.size() / 4);
    const bool close = bestDistance == 0 || (bestDistance <= limit && bestDistance < std::min(k.size(), normalised(best->name).size()));
    return close ? best->name : "";
}

bool isEncodingTable(const Table& t) { return startsWith(t.name, "encoding."); }

// Whether a field holds option objects of their own (checked against their own tables).
bool nested(const Field& f) { return f.type == "RopeScaling" || f.type == "KVCacheRope" || f.type == "Encoding"; }

// The tables an option object nested under a field of this type is checked against.
std::vector<const Table*> nestedTables(const Field& f) {
    std::vector<const Table*> out;
    if (f.type == "RopeScaling") out.push_back(&table("scaling"));
    if (f.type == "KVCacheRope") out.push_back(&table("KVCache.rope"));
    if (f.type == "Encoding")
        for (const Table& t : tables())
            if (isEncodingTable(t)) out.push_back(&t);
    return out;
}

// Why an unknown key may be there: it belongs in an object nested here, to another encoding kind, next
// to a scaling object, or it is a config.json key; else the nearest known key.
std::string hint(const std::string& key, const Table& t, const Place& at, const std::string& parent) {
    for (const Field& f : t.keys)
        for (const Table* n : nestedTables(f))
            if (n->find(key)) return "it belongs in " + at.prefix + f.name;
    if (isEncodingTable(t)) {
        std::vector<std::string> owners;
        for (const std::string& kind : encodingKinds())
            if ("encoding." + kind != t.name && table("encoding." + kind).find(key)) owners.push_back(kind);
        if (!owners.empty()) return "it belongs to kind " + quoted(owners) + ", not '" + t.name.substr(9) + "'";
    }
    if (t.name == "scaling" && table("ropeFrequencies").find(key)) return "it belongs in " + parent + ", next to " + at.field;
    if (key == "rope_theta" && t.find("base"))
        return "'rope_theta' is a config.json key: pass its value as 'base', or the whole config to pe.ropeConfigFromHF(config)";
    if (key == "warnings" && t.find("partialRotaryFactor"))  // a copy of ropeConfigFromHF's result (its own array is accepted)
        return "'warnings' is ropeConfigFromHF's report: pass its result itself, or leave 'warnings' out";
    const std::string near = nearestKey(key, t);
    return near.empty() ? "" : "did you mean '" + near + "'?";
}

void checkObject(Value& o, const Table& t, const Place& at, const CallShape& call, const std::string& parent);

// One value by its field's type. Tensors were placed and checked by the caller.
void checkValue(Value& v, const Field& f, const Table& t, const Place& at, const CallShape& call) {
    const std::string field = at.prefix + f.name;
    if (!f.choices.empty()) {
        if (f.name == "kind" && isEncodingTable(t)) return;  // checked first, and read as text
        if (t.name == "scaling" && f.name == "type") {       // an alias is its type
            for (const Alias& a : scalingAliases())
                if (v.isString() && v.text() == a.name) v = json::parse("\"" + a.type + "\"");
            return choice(v, field, scalingTypes());
        }
        return choice(v, field, f.choices);
    }
    const std::string& type = f.type;
    if (type == "number") number(v, field);
    else if (type == "integer") integer(v, field, f.min, f.max);
    else if (type == "boolean") boolean(v, field);
    else if (type == "string") {
        if (!v.isString()) failType(field, "must be a string (got " + describe(v) + ")");
    } else if (type == "ArrayLike<number>") {
        if (!v.isArray()) failType(field, "must be an array of numbers (got " + describe(v) + ")");
        for (std::size_t i = 0; i < v.size(); ++i) number(v[i], field + "[" + std::to_string(i) + "]");
    } else if (type == "[number, number]") {
        if (!v.isArray() || v.size() != 2) failType(field, std::string("must be ") + (f.name == "windowSize" ? "[wh, ww]" : "[h, w]") + " (got " + describe(v) + ")");
        for (std::size_t i = 0; i < 2; ++i) integer(v[i], field + "[" + std::to_string(i) + "]", 1, 2147483647.0);
    } else if (type == "Array<'c2p' | 'p2c'>") {
        bool ok = v.isArray();
        for (std::size_t i = 0; ok && i < v.size(); ++i) ok = v[i].isString() && (v[i].text() == "c2p" || v[i].text() == "p2c");
        if (!ok) fail(field, "must be an array of 'c2p' and/or 'p2c' (got " + describe(v) + ")");
    } else if (type == "RopeScaling") {
        static const Table& scaling = table("scaling");
        checkObject(v, scaling, {field, field, field + "."}, call, at.where);
    } else if (type == "KVCacheRope") {
        static const Table& rope = table("KVCache.rope");
        checkObject(v, rope, {field, field, field + "."}, call, at.where);
    } else if (type == "Encoding") {
        checkEncoding(v, field, call);
    }
}

void checkObject(Value& o, const Table& t, const Place& at, const CallShape& call, const std::string& parent) {
    if (!isPlainObject(o)) failType(at.field, "must be an object (got " + describe(o) + ")");
    // the given keys' fields (a call gives few of a table's keys: walk those)
    std::vector<const Field*> fields;
    fields.reserve(o.members().size());
    for (const Value::Member& m : o.members()) {
        const Field* f = t.find(m.key);
        if (!f) {
            const std::string why = hint(m.key, t, at, parent);
            throw WrongType("unknown option '" + m.key + "' in " + at.where + (why.empty() ? "" : " (" + why + ")"));
        }
        // null is not undefined: leaving an option out is how the API says "use the default"
        if (m.value.isNull()) failType(at.prefix + m.key, f->required ? "is required (got null)" : "must not be null (leave it out for the default)");
        fields.push_back(f);
    }
    for (const Field& f : t.keys)
        if (f.required && !o.find(f.name)) failType(at.prefix + f.name, "is required" + (f.choices.empty() ? "" : " (one of " + quoted(f.choices) + ")"));
    // plain values first: the objects nested here take the call's shape from them
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (!nested(*fields[i])) checkValue(o.members()[i].value, *fields[i], t, at, call);
    CallShape inner = call;
    const Value* heads = o.find("heads");
    const Value* headDim = o.find("headDim");
    const bool encodings = t.find("encoding"), cacheRope = t.find("rope"), rope = t.find("scaling");
    if (heads && encodings) inner.heads = static_cast<int>(heads->number());
    if (headDim && (encodings || cacheRope))
        inner.headDim = static_cast<int>(headDim->number()), inner.headDimOf = encodings ? "the attention's headDim" : "the cache's headDim";
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (nested(*fields[i])) checkValue(o.members()[i].value, *fields[i], t, at, inner);
    if (t.name == "scaling")
        checkScalingKeys(scalingTypes().at(static_cast<std::size_t>(o.find("type")->number())), [&](const std::string& name) { return o.find(name) != nullptr; },
                         at.prefix);
    if (const Field* axes = t.find("multiAxis"))  // a rope's keys that would have no effect
        kinds::checkRopeKeys([&](const char* name) { return o.find(name) != nullptr; },
                             o.find("multiAxis") ? axes->choices.at(static_cast<std::size_t>(o.find("multiAxis")->number())) : "none", at.prefix);
    // a rope's headDim: the call's, which a given one must equal
    if (call.headDim > 0 && rope) {
        if (headDim && headDim->number() != call.headDim)
            fail(at.prefix + "headDim", "(" + headDim->text() + ") must equal " + call.headDimOf + " (" + std::to_string(call.headDim) + ")");
        if (!headDim) o.insert("headDim").setNumber(call.headDim);
    }
    // an encoding's heads: the call's unless given
    if (call.heads > 0 && !heads && isEncodingTable(t) && t.find("heads")) o.insert("heads").setNumber(call.heads);
}

}  // namespace

void check(Value& options, const std::string& name, const Place& at, CallShape call) { checkObject(options, table(name), at, call, ""); }

namespace {

// Table `name` of `registry` (null: posenc's own).
const Table& tableIn(const Built* registry, const std::string& name) {
    if (!registry) return table(name);
    for (const Table& t : registry->tables)
        if (t.name == name) return t;
    throw std::invalid_argument("no options table '" + name + "'");
}

void encodingIn(const Built* registry, Value& e, const std::string& field, const CallShape& call) {
    if (e.isArray()) {  // a combination: at most one rotary part, no nesting
        if (e.empty()) fail(field, "must not be an empty array (leave it out for no encoding)");
        int ropes = 0;
        for (std::size_t i = 0; i < e.size(); ++i) {
            const std::string part = field + "[" + std::to_string(i) + "]";
            if (e.elements()[i].isArray()) failType(part, "must be an encoding object, not an array (combinations do not nest)");
            encodingIn(registry, e.elements()[i], part, call);
            ropes += e[i].find("kind")->text() == "rope";
        }
        if (ropes > 1) throw std::invalid_argument(field + " combines two 'rope' entries: at most one rotary encoding");
        return;
    }
    if (!isPlainObject(e)) failType(field, "must be an object (got " + describe(e) + ")");
    const Value* kind = e.find("kind");
    const std::vector<std::string>& kinds = registry ? registry->kindNames : encodingKinds();
    if (!kind || kind->isNull()) failType(field + ".kind", "is required (one of " + quoted(kinds) + (kind ? "; got null" : "") + ")");
    choiceOf(*kind, field + ".kind", kinds);  // (the kind stays text: encodingFrom reads it)
    checkObject(e, tableIn(registry, "encoding." + kind->text()), {field, field, field + "."}, call, "");
}

}  // namespace

void checkEncoding(Value& e, const std::string& field, const CallShape& call) { encodingIn(nullptr, e, field, call); }
void checkEncoding(const Built& registry, Value& e, const std::string& field, const CallShape& call) { encodingIn(&registry, e, field, call); }

}  // namespace posenc::registry
