// The options objects of posenc's calls other than the encoding kinds (src/registry.cpp's tables),
// each key declared with the struct member it is read into, as the kinds' keys are (kind_spec.hpp): a
// key's name is written once, its default is the member's initialiser, and a reader takes a whole
// options object with one readTable call. Keys with no member (integer and mask tensors, a list of
// tensors, an encoding, an option the JavaScript side consumes) are in the same tables, without a
// member: their reader takes them by name, and the binding's reader refuses a key its table lacks
// (bindings/call.cpp).
#pragma once
#include <limits>
#include <optional>
#include <string_view>

#include "encodings/kind_spec.hpp"
#include "posenc/posenc.hpp"

namespace posenc::registry {

// Options objects whose C++ entry points take plain arguments rather than a struct: the structs the
// binding reads them into (posenc's own structs serve the others: SinusoidalOptions, KVCacheConfig ...).
struct PositionIdsCall {  // positionIds and nextPositions
    int batch = 1;
    int length = 0;  // 0: the mask's length / batch
    PositionIdStyle style = PositionIdStyle::hf;
    int paddingIdx = 1;  // style 'roberta': fairseq's padding position
    int past = 0;
};
struct LowRankCall {
    View<float> coefficients, basis;
    int rank = 0, dim = 0;
};
struct SparseCall {  // `indices` is an integer tensor, taken by the binding
    View<float> values, basis;
    int k = 0, dim = 0;
};
struct TwoLevelCall {
    View<float> segmentTable, innerTable;
    int segmentDim = 0, innerDim = 0;
    AxialCombine combine = AxialCombine::concat;
};
struct SineCall {  // sine2d (frames 0) and sine3d; `mask` is taken by the binding
    int frames = 0, height = 0, width = 0;
    SineNdOptions sine;
};
struct HeadsShape {  // applyRope / rotateByDelta: x's [heads, tokens, headDim]
    int heads = 0, tokens = 0, headDim = 0;
};
struct AttentionConfigCall {
    int layer = 0;
    HfConfigOptions reader;  // its layerType is not a key here: the layer's own type picks the table
};
struct AttentionCall {  // k, v (floats or bits, by kvType), positions, keyMask and encoding are taken by the binding
    AttentionRequest request;
    bool returnWeights = false, returnScores = false;
};
struct AppendCall {  // positions, mask and maskPositions are integer tensors, taken by the binding
    View<float> logForget;
    std::optional<KVType> kvType;
};
struct AttendCall {  // encoding, qPositions and maskPositions are taken by the binding
    int heads = 0;
    bool causal = true;
    double scale = std::numeric_limits<double>::quiet_NaN();  // NaN = the encoding's default
    View<float> sinkLogits;
    std::optional<double> softcap;
};

// Reads the keys of table `table` that have a member into `out`, a struct of the type `owner` tags
// (kinds::ownerTag<T>); keys not given keep the struct's initialisers. std::logic_error when the table
// does not exist or its keys belong to another struct (a reader's mistake, not the caller's).
void readTable(std::string_view table, const void* owner, const Source& s, void* out);
template <class T>
T readTable(std::string_view table, const Source& s, T out = T{}) {
    readTable(table, &kinds::ownerTag<T>, s, &out);
    return out;
}
// The struct a table's keys are read into (its tag), or null for a table read otherwise (an encoding
// kind's, a rope table's, a parameter count's).
const void* tableOwner(std::string_view table);

}  // namespace posenc::registry
