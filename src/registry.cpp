#include "posenc/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "common/json.hpp"
#include "registry_check.hpp"
#include "registry_build.hpp"
#include "registry_fields.hpp"
#include "options_tables.hpp"
#include "posenc/describe.hpp"
#include "posenc/posenc.hpp"

namespace posenc::registry {

namespace {

// Each key of a call's options object is declared with the member of the struct it is read into
// (src/options_tables.hpp: readTable), so its name is written once and its default is that member's
// initialiser; a key with no member (`key(...)`) is taken by name by its reader, which may read no
// other (bindings/call.cpp). Its user documentation is the `///` block before it, or before the
// constant it names (kOut): not compiled in, scripts/gen-types.mjs writes bindings/options.d.ts from
// it. (The encoding kinds' fields, in src/encodings/, also keep a doc line: the registry's JSON carries those.)
//
// The source data: plain constant arrays (strings as literals, choices as "a|b|c"), so the registry
// costs its text and a short loop, not code per field. tables() turns them into the Table structs.
// The rope kind's keys (src/encodings/rope.cpp) open every rope options object; outside an encoding,
// `kind` may still be given (as 'rope'), so one rope encoding object works anywhere.
constexpr Raw kRopeKind[] = {{"kind", "", "rope"}};  // only 'rope': lets a rope encoding be passed as it is
constexpr Raw kHeadDim[] = {req("headDim", "integer", "channels per head")};  // ropeFrequencies: replaces the optional one

// A key declared with the member it is read into (src/options_tables.hpp; the kinds' helpers:
// kind_spec.hpp), or `key(...)` for one its reader takes by name.
namespace b = kinds;
using kinds::key;
using kinds::KindField;
constexpr KindField upTo(double max, KindField f) {
    f.raw.max = max;
    return f;
}

constexpr Raw kOut = opt("out", "FloatOut", "write the result here instead of allocating");
// K / V given as f16 or bf16 bit patterns (a Uint16Array) instead of floats; no default: floats.
constexpr Raw kKvType = {"kvType", "", "f16|bf16"};  // "k and v are Uint16Array bit patterns of this format"

using Sin = SinusoidalOptions;
constexpr KindField kSinusoidal[] = {
    b::req<&Sin::dim>("dim", "integer"),
    b::num<&Sin::base>("base", "number"),
    b::pick<&Sin::layout>("layout", "interleaved|concat|tensor2tensor"),
    b::atLeast(0, b::opt<&Sin::paddingIdx>("paddingIdx", "integer")),
    key(kOut),
};
constexpr KindField kLearned[] = {
    b::req<&LearnedOptions::table>("table", "FloatInput"),
    b::req<&LearnedOptions::dim>("dim", "integer"),
    b::pick<&LearnedOptions::outOfRange>("outOfRange", "error|clamp|interpolate"),
    b::opt<&LearnedOptions::interpolateTo>("interpolateTo", "integer"),
    key(kOut),
};
using Ids = PositionIdsCall;
constexpr KindField kPositionIds[] = {
    b::num<&Ids::batch>("batch", "integer"),
    b::opt<&Ids::length>("length", "integer"),
    b::pick<&Ids::style>("style", "hf|roberta"),
    b::atLeast(0, b::num<&Ids::paddingIdx>("paddingIdx", "integer")),
    b::atLeast(0, b::num<&Ids::past>("past", "integer")),
};
constexpr KindField kNextPositions[] = {
    b::num<&Ids::batch>("batch", "integer"),
    b::opt<&Ids::length>("length", "integer"),
    b::atLeast(0, b::num<&Ids::past>("past", "integer")),
};
constexpr KindField kModalityPositions[] = {
    key(req("offsets", "IntInput")),
    key(opt("lengths", "IntInput")),
};
// BinaryOptions' dim: bits unless given.
void binaryDim(const Source& s, const char* k, void* o) {
    auto& x = *static_cast<BinaryOptions*>(o);
    x.dim = s.has(k) ? static_cast<int>(s.number(k)) : x.code.bits;
}
using Bin = BinaryOptions;
constexpr KindField kBinary[] = {
    b::req<&Bin::code, &CodeOptions::bits>("bits", "integer"),
    b::custom<Bin>(opt("dim", "integer"), "", binaryDim),
    b::pick<&Bin::code, &CodeOptions::code>("code", "binary|gray"),
    b::atLeast(2, b::num<&Bin::code, &CodeOptions::radix>("radix", "integer")),
    b::opt<&Bin::table>("table", "FloatInput"),
    key(kOut),
};
constexpr KindField kCodeDistance[] = {
    b::req<&CodeOptions::bits>("bits", "integer"),
    b::pick<&CodeOptions::code>("code", "binary|gray"),
    b::atLeast(2, b::num<&CodeOptions::radix>("radix", "integer")),
};
constexpr KindField kLowRank[] = {
    b::req<&LowRankCall::coefficients>("coefficients", "FloatInput"),
    b::req<&LowRankCall::basis>("basis", "FloatInput"),
    b::req<&LowRankCall::rank>("rank", "integer"),
    b::req<&LowRankCall::dim>("dim", "integer"),
    key(kOut),
};
constexpr KindField kSparse[] = {
    key(req("indices", "IntInput")),
    b::req<&SparseCall::values>("values", "FloatInput"),
    b::req<&SparseCall::k>("k", "integer"),
    b::req<&SparseCall::basis>("basis", "FloatInput"),
    b::req<&SparseCall::dim>("dim", "integer"),
    key(kOut),
};
using Rf = RandomFeatureOptions;
constexpr KindField kRandomFeatures[] = {
    b::req<&Rf::dim>("dim", "integer"),
    upTo(9007199254740991.0, b::atLeast(0, b::num<&Rf::seed>("seed", "integer"))),
    b::pick<&Rf::kind>("kind", "fourier|mlp"),
    b::num<&Rf::sigma>("sigma", "number"),
    b::num<&Rf::scale>("scale", "number"),
    b::num<&Rf::hidden>("hidden", "integer"),
    key(kOut),
};
constexpr KindField kAxial[] = {
    b::req<&AxialOptions::shape>("shape", "IntInput"),
    key(req("tables", "FloatInput[]")),
    b::req<&AxialOptions::dims>("dims", "IntInput"),
    b::pick<&AxialOptions::combine>("combine", "concat|sum"),
    key(kOut),
};
constexpr KindField kTwoLevel[] = {
    b::req<&TwoLevelCall::segmentTable>("segmentTable", "FloatInput"),
    b::req<&TwoLevelCall::innerTable>("innerTable", "FloatInput"),
    b::req<&TwoLevelCall::segmentDim>("segmentDim", "integer"),
    b::req<&TwoLevelCall::innerDim>("innerDim", "integer"),
    b::pick<&TwoLevelCall::combine>("combine", "concat|sum"),
    key(kOut),
};
constexpr KindField kFrames[] = {b::req<&SineCall::frames>("frames", "integer")};
constexpr KindField kSine[] = {
    b::req<&SineCall::height>("height", "integer"),
    b::req<&SineCall::width>("width", "integer"),
    b::num<&SineCall::sine, &SineNdOptions::numPosFeats>("numPosFeats", "integer"),
    b::num<&SineCall::sine, &SineNdOptions::temperature>("temperature", "number"),
    b::flag<&SineCall::sine, &SineNdOptions::normalize>("normalize"),
    b::num<&SineCall::sine, &SineNdOptions::scale>("scale", "number"),
    key(opt("mask", "MaskInput")),
    key(kOut),
};
// `from` and `to`: [h, w] each.
template <int ResizeOptions::*H, int ResizeOptions::*W>
void gridSize(const Source& s, const char* k, void* o) {
    if (!s.has(k)) return;
    const std::vector<double> hw = s.numbers(k);
    auto& g = *static_cast<ResizeOptions*>(o);
    g.*H = static_cast<int>(hw.at(0)), g.*W = static_cast<int>(hw.at(1));
}
using Rg = ResizeOptions;
constexpr KindField kResizeGrid[] = {
    b::custom<Rg>(req("from", "[number, number]"), "", gridSize<&Rg::fromH, &Rg::fromW>),
    b::custom<Rg>(req("to", "[number, number]"), "", gridSize<&Rg::toH, &Rg::toW>),
    b::req<&Rg::dim>("dim", "integer"),
    b::pick<&Rg::mode>("mode", "bicubic|bilinear"),
    b::pick<&Rg::mapping>("mapping", "size|scaleFactor"),
    b::atLeast(0, b::num<&Rg::prefixTokens>("prefixTokens", "integer")),
    key(kOut),
};
constexpr KindField kT5Bucket[] = {
    b::flag<&T5BucketOptions::bidirectional>("bidirectional"),
    b::num<&T5BucketOptions::numBuckets>("numBuckets", "integer"),
    b::num<&T5BucketOptions::maxDistance>("maxDistance", "integer"),
};
constexpr KindField kDebertaBucket[] = {
    b::atLeast(0, b::req<&DebertaBucketOptions::bucketSize>("bucketSize", "integer")),
    b::req<&DebertaBucketOptions::maxPosition>("maxPosition", "integer"),
    b::pick<&DebertaBucketOptions::convention>("convention", "hf|microsoft"),
};
constexpr KindField kApplyRope[] = {key(flag("inPlace", "", POSENC_DEFAULT(false))), key(kOut)};  // inPlace: the JavaScript side's
constexpr KindField kShape[] = {
    b::req<&HeadsShape::heads>("heads", "integer"),
    b::req<&HeadsShape::tokens>("tokens", "integer"),
    b::req<&HeadsShape::headDim>("headDim", "integer"),
};
using Hf = HfConfigOptions;
constexpr KindField kHfConfig[] = {
    b::opt<&Hf::layerType>("layerType", "string"),
    b::pick<&Hf::yarnFactor>("yarnFactor", "explicit|legacy"),
    b::flag<&Hf::strict>("strict"),
    b::pick<&Hf::unknownModelType>("unknownModelType", "error|generic"),
};
// attentionConfigFromHF: the layer, then the reader's options but layerType (the layer's own type picks its table).
using Ac = AttentionConfigCall;
constexpr KindField kAttentionConfig[] = {
    b::atLeast(0, b::req<&Ac::layer>("layer", "integer")),
    b::pick<&Ac::reader, &Hf::yarnFactor>("yarnFactor", "explicit|legacy"),
    b::flag<&Ac::reader, &Hf::strict>("strict"),
    b::pick<&Ac::reader, &Hf::unknownModelType>("unknownModelType", "error|generic"),
};
// kvHeads: heads unless given.
void kvHeadsOrHeads(const Source& s, const char* k, void* o) {
    AttentionDims& d = static_cast<AttentionCall*>(o)->request.dims;
    d.kvHeads = s.has(k) ? static_cast<int>(s.number(k)) : d.heads;
}
using At = AttentionCall;
using Rq = AttentionRequest;
using Dm = AttentionDims;
constexpr KindField kAttention[] = {
    b::req<&At::request, &Rq::q>("q", "FloatInput"),
    key(req("k", "KVInput")),  // floats, or bits with kvType
    key(req("v", "KVInput")),
    b::member<&At::request, &Rq::kvType>(kKvType, ""),
    b::req<&At::request, &Rq::dims, &Dm::heads>("heads", "integer"),
    b::custom<At>(opt("kvHeads", "integer"), "", kvHeadsOrHeads),
    b::req<&At::request, &Rq::dims, &Dm::headDim>("headDim", "integer"),
    b::opt<&At::request, &Rq::dims, &Dm::valueDim>("valueDim", "integer"),
    b::req<&At::request, &Rq::dims, &Dm::qLen>("qLen", "integer"),
    b::req<&At::request, &Rq::dims, &Dm::kLen>("kLen", "integer"),
    key(opt("qPositions", "IntInput")),
    key(opt("kPositions", "IntInput")),
    key(opt("maskPositions", "IntInput")),
    b::flag<&At::request, &Rq::causal>("causal"),
    b::opt<&At::request, &Rq::window>("window", "integer"),
    b::opt<&At::request, &Rq::chunk>("chunk", "integer"),
    key(opt("keyMask", "MaskInput")),
    b::opt<&At::request, &Rq::scale>("scale", "number"),
    key(opt("encoding", "Encoding")),
    b::opt<&At::request, &Rq::sinkLogits>("sinkLogits", "FloatInput"),
    b::opt<&At::request, &Rq::softcap>("softcap", "number"),
    b::flag<&At::returnWeights>("returnWeights"),
    b::flag<&At::returnScores>("returnScores"),
    key(kOut),
};

void cacheRope(const Source& s, const char* k, void* o) {
    if (s.has(k)) static_cast<KVCacheConfig*>(o)->rope = ropeFrom(*s.object(k));
}
using Kv = KVCacheConfig;
constexpr KindField kKVCache[] = {
    b::num<&Kv::batch>("batch", "integer"),
    b::req<&Kv::kvHeads>("kvHeads", "integer"),
    b::req<&Kv::headDim>("headDim", "integer"),
    b::opt<&Kv::valueDim>("valueDim", "integer"),
    b::req<&Kv::capacity>("capacity", "integer"),
    b::opt<&Kv::window>("window", "integer"),
    b::atLeast(0, b::num<&Kv::sinks>("sinks", "integer")),
    b::opt<&Kv::chunk>("chunk", "integer"),
    b::custom<Kv>(opt("rope", "KVCacheRope"), "", cacheRope),
    b::pick<&Kv::dynamic>("dynamic", "fixed|hf"),
    b::pick<&Kv::storage>("storage", "f32|f16|bf16|q8"),
    b::flag<&Kv::forgetting>("forgetting"),
};
constexpr KindField kAppend[] = {
    key(opt("positions", "IntInput")),
    key(opt("mask", "MaskInput")),
    key(opt("maskPositions", "IntInput")),
    b::opt<&AppendCall::logForget>("logForget", "FloatInput"),
    b::member<&AppendCall::kvType>(kKvType, ""),
};
constexpr KindField kAttend[] = {
    b::req<&AttendCall::heads>("heads", "integer"),
    key(opt("encoding", "Encoding")),
    key(opt("qPositions", "IntInput")),
    key(opt("maskPositions", "IntInput")),
    b::flag<&AttendCall::causal>("causal"),
    b::opt<&AttendCall::scale>("scale", "number"),
    b::opt<&AttendCall::sinkLogits>("sinkLogits", "FloatInput"),
    b::opt<&AttendCall::softcap>("softcap", "number"),
    key(kOut),
};

// parameterCount: the shapes of each method's learned tables (fixed functions learn none).
constexpr Raw size(const char* name) { return req(name, "integer"); }
constexpr Raw kLearnedShape[] = {size("maxPositions"), size("dim")};
constexpr Raw kBinaryShape[] = {size("bits"), size("dim"), atLeast(2, num("radix", "integer", "", POSENC_DEFAULT(CodeOptions().radix))), flag("learned", "false: fixed ±1 digits", POSENC_DEFAULT(true))};
constexpr Raw kLowRankShape[] = {size("maxPositions"), size("rank"), size("dim")};
constexpr Raw kSparseShape[] = {size("maxPositions"), size("k"), size("basisSize"), size("dim")};
constexpr Raw kAxialShape[] = {req("shape", "IntInput"), req("dims", "IntInput")};

// A run of a table's keys: plain fields (a parameter count's shape) or keys bound to members.
struct Part {
    const Raw* raw = nullptr;
    const KindField* bound = nullptr;
    std::size_t count = 0;
    const Raw& at(std::size_t i) const { return raw ? raw[i] : bound[i].raw; }
};
template <std::size_t N>
constexpr Part part(const Raw (&a)[N]) { return {a, nullptr, N}; }
template <std::size_t N>
constexpr Part part(const KindField (&a)[N]) { return {nullptr, a, N}; }

// Where a table's fields come from besides its parts: the rope kind's keys first, RopeScaling's keys,
// or a place for the encoding kinds' tables (src/encodings/: 'encoding.<kind>', 'parameterCount.<kind>').
enum class From { parts, rope, scaling, kindTables, fixedKindCounts, learnedKindCounts };

struct RawTable {
    const char* name;
    const char* interface;  // "" = none
    Part parts[3];          // concatenated; a later field replaces an earlier one of the same name
    From from = From::parts;
};

constexpr RawTable kTables[] = {
    {"sinusoidal", "SinusoidalOptions", {part(kSinusoidal)}},
    {"learned", "LearnedOptions", {part(kLearned)}},
    {"positionIds", "PositionIdsOptions", {part(kPositionIds)}},
    {"nextPositions", "NextPositionsOptions", {part(kNextPositions)}},
    {"modalityPositions", "ModalityPositionsOptions", {part(kModalityPositions)}},
    {"binary", "BinaryOptions", {part(kBinary)}},
    {"codeDistance", "CodeDistanceOptions", {part(kCodeDistance)}},
    {"lowRank", "LowRankOptions", {part(kLowRank)}},
    {"sparse", "SparseOptions", {part(kSparse)}},
    {"randomFeatures", "RandomFeaturesOptions", {part(kRandomFeatures)}},
    {"axial", "AxialOptions", {part(kAxial)}},
    {"twoLevel", "TwoLevelOptions", {part(kTwoLevel)}},
    {"sine2d", "Sine2dOptions", {part(kSine)}},
    {"sine3d", "Sine3dOptions", {part(kFrames), part(kSine)}},
    {"resizeGrid", "ResizeGridOptions", {part(kResizeGrid)}},
    {"t5Bucket", "T5BucketOptions", {part(kT5Bucket)}},
    {"debertaBucket", "DebertaBucketOptions", {part(kDebertaBucket)}},
    {"ropeFrequencies", "RopeOptions", {part(kRopeKind), part(kHeadDim)}, From::rope},
    {"applyRope", "ApplyRopeOptions", {part(kRopeKind), part(kApplyRope)}, From::rope},
    {"shape", "HeadsShape", {part(kShape)}},
    {"scaling", "RopeScaling", {}, From::scaling},
    {"ropeConfigFromHF", "HfConfigOptions", {part(kHfConfig)}},
    {"attentionConfigFromHF", "AttentionConfigOptions", {part(kAttentionConfig)}},
    {"attention", "AttentionArgs", {part(kAttention)}},
    {"", "", {}, From::kindTables},
    {"KVCache", "KVCacheOptions", {part(kKVCache)}},
    {"KVCache.rope", "KVCacheRope", {part(kRopeKind)}, From::rope},
    {"KVCache.append", "AppendOptions", {part(kAppend)}},
    {"KVCache.attend", "AttendOptions", {part(kAttend)}},
    {"parameterCount.sinusoidal", "", {}},
    {"", "", {}, From::fixedKindCounts},
    {"parameterCount.sine2d", "", {}},
    {"parameterCount.sine3d", "", {}},
    {"parameterCount.randomFeatures", "", {}},
    {"parameterCount.learned", "LearnedShape", {part(kLearnedShape)}},
    {"parameterCount.binary", "BinaryShape", {part(kBinaryShape)}},
    {"parameterCount.lowRank", "LowRankShape", {part(kLowRankShape)}},
    {"parameterCount.sparse", "SparseShape", {part(kSparseShape)}},
    {"parameterCount.axial", "AxialShape", {part(kAxialShape)}},
    {"", "", {}, From::learnedKindCounts},
};

std::vector<std::string> split(const char* list) {
    std::vector<std::string> out;
    std::string s(list);
    for (std::size_t at = 0; !s.empty() && at <= s.size();) {
        const std::size_t bar = std::min(s.find('|', at), s.size());
        out.push_back(s.substr(at, bar - at));
        at = bar + 1;
    }
    return out;
}

Field field(const Raw& r, const char* doc = "") {
    Field f;
    f.name = r.name;
    f.type = r.type;
    f.choices = split(r.choices);
    f.required = r.required;
    f.value.kind = r.kind;
    if (r.kind == Default::Kind::number) f.value.number = r.value();
    if (r.kind == Default::Kind::boolean) f.value.boolean = r.value() != 0;
    if (r.kind == Default::Kind::string) f.value.string = f.choices.at(static_cast<std::size_t>(r.value()));
    if (r.kind == Default::Kind::strings) f.value.strings = split(r.text);
    f.types = split(r.types);
    f.requiredBy = split(r.requiredBy);
    f.min = r.min;
    f.max = r.max;
    if (const double limit = limits::forField(r.name); limit > 0 && limit < f.max) f.max = limit;
    f.doc = doc;
    return f;
}

// Adds `f`, or replaces the field of the same name.
void put(Table& t, Field f) {
    for (Field& k : t.keys)
        if (k.name == f.name) {
            k = std::move(f);
            return;
        }
    t.keys.push_back(std::move(f));
}

const kinds::KindSpec& kindNamed(const Kinds& kinds, const char* name) {
    for (const kinds::KindSpec* k : kinds)
        if (std::string(k->name) == name) return *k;
    throw std::logic_error(std::string("registry: no kind '") + name + "'");
}

void addFields(Table& t, kinds::Span<kinds::KindField> fields) {
    for (const kinds::KindField& f : fields) put(t, field(f.raw, f.doc));
}

// The kinds as describe() lists them: by family (rotary, query, score), each in kind order.
Kinds byFamily(const Kinds& kinds) {
    Kinds out;
    for (const kinds::Family f : {kinds::Family::none, kinds::Family::rotary, kinds::Family::query, kinds::Family::score})
        for (const kinds::KindSpec* k : kinds)
            if (k->family == f) out.push_back(k);
    return out;
}

// Whether a kind has a parameterCount table, and whether it takes shape keys.
bool counted(const kinds::KindSpec& k) { return std::string(k.describe.parameterMethod) != "-"; }

}  // namespace

Built build(const Kinds& kinds) {
    Built out;
    out.kinds = kinds;
    for (const kinds::KindSpec* k : kinds) out.kindNames.push_back(k->name);
    for (const RawTable& raw : kTables) {
        if (raw.from == From::kindTables) {
            for (const kinds::KindSpec* k : kinds) {
                Table t{std::string("encoding.") + k->name, k->interface, {}};
                Field kind;
                kind.name = "kind";
                kind.choices = {k->name};
                kind.required = true;
                t.keys.push_back(kind);
                addFields(t, k->fields);
                out.tables.push_back(std::move(t));
            }
            continue;
        }
        if (raw.from == From::fixedKindCounts || raw.from == From::learnedKindCounts) {
            for (const kinds::KindSpec* k : byFamily(kinds)) {  // as describe() lists them
                if (!counted(*k) || k->shape.empty() != (raw.from == From::fixedKindCounts)) continue;
                Table t{std::string("parameterCount.") + k->name, k->shapeInterface, {}};
                for (const Raw& r : k->shape) put(t, field(r));
                out.tables.push_back(std::move(t));
            }
            continue;
        }
        Table t{raw.name, raw.interface, {}};
        if (raw.from == From::rope) addFields(t, kindNamed(kinds, "rope").fields);
        if (raw.from == From::scaling) addFields(t, kinds::scalingFields());
        for (const Part& p : raw.parts)
            for (std::size_t i = 0; i < p.count; ++i) put(t, field(p.at(i)));
        out.tables.push_back(std::move(t));
    }
    return out;
}

namespace {
const RawTable* boundTable(std::string_view name) {
    for (const RawTable& t : kTables)
        if (t.from == From::parts && name == t.name) return &t;
    return nullptr;
}
}  // namespace

const void* tableOwner(std::string_view name) {
    if (const RawTable* t = boundTable(name))
        for (const Part& p : t->parts)
            for (std::size_t i = 0; p.bound && i < p.count; ++i)
                if (p.bound[i].owner) return p.bound[i].owner;
    return nullptr;
}

void readTable(std::string_view name, const void* owner, const Source& s, void* out) {
    const RawTable* t = boundTable(name);
    if (!t || !owner || tableOwner(name) != owner)
        throw std::logic_error("registry: no table '" + std::string(name) + "' whose keys are read into that struct");
    for (const Part& p : t->parts)
        for (std::size_t i = 0; p.bound && i < p.count; ++i) {
            const KindField& f = p.bound[i];
            if (!f.read) continue;
            if (f.owner != owner) throw std::logic_error("registry: " + std::string(name) + "." + f.raw.name + " is read into another struct");
            f.read(s, f.raw.name, out);
        }
}

namespace {

bool contains(const std::vector<std::string>& list, const std::string& s) { return std::find(list.begin(), list.end(), s) != list.end(); }

std::string either(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? " or '" : "'") + names[i] + "'";
    return s;
}

}  // namespace

const Field* Table::find(std::string_view key) const {
    for (const Field& f : keys)
        if (f.name == key) return &f;
    return nullptr;
}

const Built& standard() {
    static const Built b = build(kinds::standard());
    return b;
}

const std::vector<Table>& tables() { return standard().tables; }

const Table& table(std::string_view name) {
    for (const Table& t : tables())
        if (t.name == name) return t;
    throw std::invalid_argument("no options table '" + std::string(name) + "'");
}

const std::vector<std::string>& encodingKinds() { return standard().kindNames; }

const std::vector<std::string>& scalingTypes() {
    static const std::vector<std::string> types = [] {
        std::vector<std::string> t = table("scaling").find("type")->choices;
        t.resize(t.size() - scalingAliases().size());  // the aliases follow the RopeScalingType names
        return t;
    }();
    return types;
}

const std::vector<Alias>& scalingAliases() {
    static const std::vector<Alias> aliases = {{"default", "none"}, {"su", "longrope"}, {"ntk_aware", "ntk"}};
    return aliases;
}

bool scalingTakes(const std::string& type, std::string_view field) { return contains(table("scaling").find(field)->types, type); }
bool scalingRequires(const std::string& type, std::string_view field) { return contains(table("scaling").find(field)->requiredBy, type); }

void checkScalingKeys(const std::string& type, const std::function<bool(const std::string&)>& given, const std::string& prefix) {
    const Table& t = table("scaling");
    for (const Field& f : t.keys)
        if (f.name != "type" && given(f.name) && !contains(f.types, type))
            failType(prefix + f.name, "does not apply to '" + type + "' scaling (it belongs to " + either(f.types) + " scaling)");
    for (const Field& f : t.keys)
        if (contains(f.requiredBy, type) && !given(f.name)) fail(prefix + f.name, "is required by '" + type + "' scaling");
}

void validateScaling(const RopeScaling& s) {
    checkScalingKeys(scalingTypes().at(static_cast<std::size_t>(s.type)), [&](const std::string& name) {
        for (const kinds::KindField& f : kinds::scalingFields())
            if (name == f.raw.name) return f.given && f.given(&s);
        return false;
    }, "scaling.");
}

struct MethodExtras {
    const char* kind;
    std::vector<kinds::Link> paper, code;
    const char* example;
};
const MethodExtras* extrasOf(const std::string& kind);

namespace {
void links(json::Writer& w, const char* key, kinds::Span<kinds::Link> links) {
    w.key(key);
    if (links.empty()) {
        w.null();
        return;
    }
    w.open('[');
    for (const kinds::Link& l : links) w.open('[').string(l.text).string(l.url).close(']');
    w.close(']');
}
}  // namespace

std::string json() { return json(standard()); }

std::string json(const Built& registry) {
    json::Writer w;
    w.open('{').key("tables").open('{');
    for (const Table& t : registry.tables) {
        w.key(t.name).open('{').key("interface");
        if (t.interface.empty()) w.null();
        else w.string(t.interface);
        w.key("keys").open('{');
        for (const Field& f : t.keys) {
            w.key(f.name).open('{').key("type");
            if (f.choices.empty()) w.string(f.type);
            else w.strings(f.choices);
            if (f.required) w.key("required").boolean(true);
            if (f.type == "integer" && f.min != Field::kNoMin) w.key("min").number(f.min);
            if (f.type == "integer" && f.max != kIntMax) w.key("max").number(f.max);
            switch (f.value.kind) {
                case Default::Kind::none: break;
                case Default::Kind::number: w.key("default").number(f.value.number); break;
                case Default::Kind::boolean: w.key("default").boolean(f.value.boolean); break;
                case Default::Kind::string: w.key("default").string(f.value.string); break;
                case Default::Kind::strings: w.key("default").strings(f.value.strings); break;
            }
            if (t.name == "scaling" && f.name != "type") w.key("types").strings(f.types).key("requiredBy").strings(f.requiredBy);
            if (!f.doc.empty()) w.key("doc").string(f.doc);
            w.close('}');
        }
        w.close('}').close('}');
    }
    w.close('}').key("encodingKinds").strings(registry.kindNames).key("scalingTypes").strings(scalingTypes()).key("scalingAliases").open('{');
    for (const Alias& a : scalingAliases()) w.key(a.name).string(a.type);
    w.close('}').key("describe").open('[');
    const std::vector<MethodDescription> rows = describeRows(registry.kinds);
    for (const MethodDescription& d : rows) {
        w.open('{').key("kind").string(d.kind).key("family").string(d.family).key("encodes").string(d.encodes).key("parameters").string(d.parameters);
        w.key("parameterMethod");
        if (d.parameterMethod == "-") w.null();
        else w.string(d.parameterMethod.empty() ? d.kind : d.parameterMethod);
        w.key("extrapolates").boolean(d.extrapolates).key("extrapolation").string(d.extrapolation).key("kvCacheFriendly").boolean(d.kvCacheFriendly);
        w.key("kvCache").string(d.kvCache).key("reference").string(d.reference).key("usedIn").string(d.usedIn).close('}');
    }
    // per describe() row: its paper and upstream code, the demo's example shapes; a kind's traits
    w.close(']').key("methods").open('{');
    for (const MethodDescription& d : rows) {
        w.key(d.kind).open('{');
        if (const MethodExtras* x = extrasOf(d.kind)) {
            links(w, "paper", x->paper), links(w, "code", x->code);
            w.key("example");
            if (*x->example) w.raw(x->example);
            else w.null();
        }
        for (const kinds::KindSpec* k : registry.kinds)
            if (d.kind == k->name) {
                links(w, "paper", k->paper), links(w, "code", k->code);
                w.key("example");
                if (*k->example) w.raw(k->example);
                else w.null();
                w.key("scalarBias").boolean(k->scalarBias).key("perQueryState").boolean(k->perQueryState).key("stickBreaking").boolean(k->stickBreaking);
            }
        w.close('}');
    }
    return w.close('}').close('}').text();
}


RopeEncoding ropeFrom(const Source& s) { return std::get<RopeEncoding>(encodingFrom(kinds::specOf<RopeEncoding>(), s)); }

Encoding encodingFrom(const kinds::KindSpec& k, const Source& s) {
    if (!k.from) throw std::logic_error(std::string("registry: kind '") + k.name + "' has no alternative in posenc::Encoding");
    return k.from(k, s);
}

Encoding encodingFrom(const Source& s) {
    const std::string kind = s.text("kind");
    for (const kinds::KindSpec* k : standard().kinds)
        if (kind == k->name) return encodingFrom(*k, s);
    fail("encoding.kind", "must be one of the registered kinds (got '" + kind + "')");
}

namespace {
// A kind's formula over the shape `s` gives, each key checked against the kind's table `t`.
class ShapeOf final : public kinds::Shape {
public:
    ShapeOf(const Table& t, const Source& s) : t_(t), s_(s) {}
    double operator()(const char* key) const override {
        const Field* f = t_.find(key);
        if (!f) throw std::logic_error("registry: " + t_.name + " has no key '" + key + "'");  // a formula's typo
        double v = f->value.kind == Default::Kind::boolean ? f->value.boolean : f->value.number;
        if (s_.has(key)) v = s_.number(key);
        else if (f->value.kind == Default::Kind::none) fail(key, "is required");
        if (f->type == "integer" && (v < f->min || v > f->max || v != std::floor(v))) {
            const std::string what = f->min == 1 ? "a positive integer" : f->min == 0 ? "a non-negative integer"
                                                                                     : "an integer in [" + std::to_string(f->min) + ", 2147483647]";
            fail(key, "must be " + what + " (got " + show(v) + ")");
        }
        return v;
    }
    std::vector<double> numbers(const char* key) const override { return s_.numbers(key); }

private:
    const Table& t_;
    const Source& s_;
};
}  // namespace

double parameterCount(const std::string& method, const Source& s) {
    const Table& t = table("parameterCount." + method);
    const ShapeOf get(t, s);
    auto list = [&](const char* key) {
        const std::vector<double> v = s.numbers(key);
        for (std::size_t i = 0; i < v.size(); ++i)
            if (!(v[i] >= 1) || v[i] != std::floor(v[i])) fail(std::string(key) + "[" + std::to_string(i) + "]", "must be in [1, 2147483647] (got " + show(v[i]) + ")");
        return v;
    };
    if (t.keys.empty()) return 0;  // a fixed function: nothing learned
    for (const kinds::KindSpec* k : standard().kinds)
        if (method == k->name) return k->parameters ? k->parameters(get) : 0;
    if (method == "learned") return get("maxPositions") * get("dim");
    if (method == "binary") return get("bits") * get("dim") * get("radix") * (get("learned") != 0);  // fixed ±1 digits learn nothing
    if (method == "lowRank") return (get("maxPositions") + get("dim")) * get("rank");
    if (method == "sparse") return get("maxPositions") * get("k") + get("basisSize") * get("dim");
    if (method == "axial") {  // one [shape[a], dims[a]] table per axis
        const std::vector<double> shape = list("shape"), dims = list("dims");
        if (dims.size() != shape.size())
            fail("dims", "must have " + std::to_string(shape.size()) + " elements (one per axis of shape) (got " + std::to_string(dims.size()) + ")");
        double n = 0;
        for (std::size_t a = 0; a < shape.size(); ++a) n += shape[a] * dims[a];
        return n;
    }
    fail("method", "has no parameter count ('" + method + "')");
}

}  // namespace posenc::registry

namespace posenc {

// What posenc implements (posenc/describe.hpp): the additive functions' rows, here; the encoding kinds'
// rows, with their specs (src/encodings/).
namespace {
// One describe() row as literals: a constant table (built into strings once) costs far less code than
// the strings' constructors written out row by row.
struct DescribeRow {
    const char* kind;
    kinds::DescribeText text;
};
constexpr DescribeRow kAdditiveRows[] = {
    {"sinusoidal", {"absolute position, added to embeddings", "0", "", true,
     "a fixed function of p (angles computed in double)", true, "added once to the input; cached keys never change",
     "Vaswani et al. 2017; HF DistilBERT (interleaved), Marian / Transformer-XL (concat), tensor2tensor get_timing_signal_1d",
     "Transformer, Marian, fairseq"}},
    {"learned", {"absolute position, a learned table row", "maxPositions·dim", "", false,
     "the table ends at maxPositions (error, clamp or interpolate — chosen explicitly)", true,
     "added once to the input", "BERT / GPT-2 position ids; RoBERTa / fairseq padding-aware ids", "BERT, GPT-2, RoBERTa, OPT"}},
    {"binary", {"absolute position as binary, Gray or radix-r digits", "bits·radix·dim (learned digit vectors)", "", false,
     "up to radix^bits − 1", true, "added once to the input", "the design's digit codes (no single upstream)", "position-code studies"}},
    {"lowRank", {"absolute position, coefficients × shared basis", "(maxPositions + dim)·rank", "", false,
     "the coefficient table ends", true, "added once to the input", "factorised learned table", "parameter-efficient variants"}},
    {"sparse", {"absolute position, k sparse coefficients over a basis", "maxPositions·k + basisSize·dim", "", false,
     "the coefficient table ends", true, "added once to the input", "sparse-coded learned table", "parameter-efficient variants"}},
    {"randomFeatures", {"absolute position, random Fourier features", "0", "", true, "a fixed (seeded) function of p",
     true, "added once to the input", "Rahimi & Recht random features (seeded, documented)", "function-generated encodings"}},
    {"axial", {"absolute position split over a grid's axes", "Σ shape[a]·dims[a]", "", false,
     "within the grid's shape", true, "added once to the input", "Reformer AxialPositionEmbeddings", "Reformer"}},
    {"twoLevel", {"segment and in-segment position", "segments·segmentDim + inner·innerDim", "-", false,
     "within both tables", true, "added once to the input", "hierarchical (segment, offset) tables", "long-document models"}},
    {"sine2d", {"2-D image position (y, x)", "0", "", true, "a fixed function of the pixel counts", true,
     "added to image features", "DETR PositionEmbeddingSine", "DETR, Deformable DETR"}},
    {"sine3d", {"3-D video position (t, y, x)", "0", "", true, "a fixed function of the counts", true,
     "added to video features", "DETR-style sine over (t, y, x)", "video transformers"}},
    {"resizeGrid", {"a learned 2-D table resized to a new grid", "(the table being resized)", "-", true,
     "bicubic interpolation to the new grid", true, "added once to the input", "HF ViT interpolate_pos_encoding (size and legacy scale_factor)",
     "ViT, DINO, DeiT at new resolutions"}},
};

MethodDescription row(const char* kind, const char* family, const kinds::DescribeText& r) {
    return {kind, family, r.encodes, r.parameters, r.parameterMethod, r.extrapolates, r.extrapolation, r.kvCacheFriendly,
            r.kvCache, r.reference, r.usedIn};
}
}  // namespace

namespace registry {

// The additive functions' papers and upstream code (every arXiv id checked against the paper's title
// and authors, every GitHub path against the repository, on 2026-12-02) and the demo's shapes for
// parameterCount (a BERT-base-sized model: 512 positions, d = 768).
namespace {
const std::vector<MethodExtras>& additiveExtras() {
    static const std::vector<MethodExtras> extras = {
        {"sinusoidal", {{"Vaswani et al. 2017", "https://arxiv.org/abs/1706.03762"}},
         {{"tensor2tensor", "https://github.com/tensorflow/tensor2tensor/blob/master/tensor2tensor/layers/common_attention.py"}}, ""},
        {"learned", {{"Devlin et al. 2018 (BERT)", "https://arxiv.org/abs/1810.04805"}},
         {{"google-research/bert", "https://github.com/google-research/bert/blob/master/modeling.py"}}, R"({"maxPositions":512,"dim":768})"},
        {"binary", {}, {}, R"({"bits":9,"dim":768})"},
        {"lowRank", {}, {}, R"({"maxPositions":512,"rank":32,"dim":768})"},
        {"sparse", {}, {}, R"({"maxPositions":512,"k":4,"basisSize":64,"dim":768})"},
        {"randomFeatures", {{"Tancik et al. 2020 (Fourier features of coordinates)", "https://arxiv.org/abs/2006.10739"}},
         {{"fourier-feature-networks", "https://github.com/tancik/fourier-feature-networks"}}, ""},
        {"axial", {{"Kitaev et al. 2020 (Reformer)", "https://arxiv.org/abs/2001.04451"}},
         {{"HF Reformer", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/reformer/modeling_reformer.py"}},
         R"({"shape":[16,32],"dims":[256,512]})"},
        {"twoLevel", {}, {}, ""},
        {"sine2d", {{"Carion et al. 2020 (DETR)", "https://arxiv.org/abs/2005.12872"}},
         {{"DETR position_encoding.py", "https://github.com/facebookresearch/detr/blob/main/models/position_encoding.py"}}, ""},
        {"sine3d", {}, {{"DETR position_encoding.py (2-D form)", "https://github.com/facebookresearch/detr/blob/main/models/position_encoding.py"}}, ""},
        {"resizeGrid", {{"Dosovitskiy et al. 2020 (ViT)", "https://arxiv.org/abs/2010.11929"}},
         {{"HF ViT interpolate_pos_encoding", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/vit/modeling_vit.py"}}, ""},
    };
    return extras;
}
}  // namespace

const MethodExtras* extrasOf(const std::string& kind) {
    for (const MethodExtras& x : additiveExtras())
        if (kind == x.kind) return &x;
    return nullptr;
}

std::vector<MethodDescription> describeRows(const Kinds& kinds) {
    // 'none' first, then the additive functions, then the kinds by family; a query temperature changes
    // the scores: its family reads 'score'
    static const char* const kFamilyNames[] = {"none", "rotary", "score", "score"};
    const Kinds ordered = byFamily(kinds);
    std::vector<MethodDescription> rows;
    auto k = ordered.begin();
    for (; k != ordered.end() && (*k)->family == kinds::Family::none; ++k) rows.push_back(row((*k)->name, "none", (*k)->describe));
    for (const DescribeRow& r : kAdditiveRows) rows.push_back(row(r.kind, "additive", r.text));
    for (; k != ordered.end(); ++k) rows.push_back(row((*k)->name, kFamilyNames[static_cast<int>((*k)->family)], (*k)->describe));
    return rows;
}

}  // namespace registry

const std::vector<MethodDescription>& describe() {
    static const std::vector<MethodDescription> rows = registry::describeRows(kinds::standard());
    return rows;
}

}  // namespace posenc
