// The 't5' kind (scores/t5.hpp): a learned bias per log-spaced relative-distance bucket and head.
#include "encodings/kind_define.hpp"

namespace posenc::kinds {

namespace {
using K = T5Encoding;
using B = T5BucketOptions;
// Its keys: constant data (no code per key in the wasm module).
constexpr KindField kFields[] = {
    /// Heads of the bias: equal to the call's heads. Required by
    /// {@link Posenc.attentionBias}.
    /// @defaultValue the call's `heads`
    heads<&K::heads>(),
    /// Learned bias table [numBuckets, heads] (T5 `relative_attention_bias.weight`).
    req<&K::table>("table", "FloatInput", "[numBuckets, heads]"),
    /// true for encoders (own buckets for later keys), false for decoders.
    flag<&K::buckets, &B::bidirectional>("bidirectional", "keys after the query get their own buckets"),
    /// T5 `relative_attention_num_buckets`: see {@link T5BucketOptions.numBuckets}.
    num<&K::buckets, &B::numBuckets>("numBuckets", "integer"),
    /// T5 `relative_attention_max_distance`, in tokens: see {@link T5BucketOptions.maxDistance}.
    num<&K::buckets, &B::maxDistance>("maxDistance", "integer", "distances beyond share the last bucket"),
};
}  // namespace

/// T5 relative attention bias: table[bucket(j − i), h] added to the scores, bucket as
/// {@link Posenc.t5Bucket}. T5 does not scale q·k: the default scale is 1.
/// @see Hugging Face `T5Attention._relative_position_bucket` and `compute_bias`.
KindSpec makeSpec(Tag<T5Encoding>) {
    KindSpec k = kind<K>("t5", "T5Encoding", Family::score, kFields);
    k.options = R"({"kind":"t5","table":{"$floats":64}})";  // [32 buckets, 2 heads]
    buildsTerm<K>(k, [](const AttentionInputs& in, const K& x) { return std::make_unique<T5Term>(x, in.dims.heads, callDistances(in)); });
    scales<K>(k, [](const K&, int) { return 1.0; });  // T5 does not divide q·k by √headDim
    k.scalarBias = true;
    /// Shape of a T5 bias table [numBuckets, heads].
    k.shapeInterface = "T5Shape";
    static constexpr registry::Raw kShape[] = {
        /// Attention heads.
        size("heads"),
        /// Buckets.
        registry::num("numBuckets", "integer", "", [] { return static_cast<double>(B().numBuckets); }),
    };
    k.shape = kShape;
    k.parameters = [](const Shape& s) { return s("numBuckets") * s("heads"); };
    k.example = R"({"heads":12})";
    k.describe = {"relative distance in log buckets, a learned bias", "numBuckets·heads", "", true,
                  "every distance past maxDistance shares the last bucket", true, "the bias depends on positions only",
                  "HF T5Attention._relative_position_bucket", "T5, mT5, Flan-T5"};
    static constexpr Link kPaper[] = {{"Raffel et al. 2019 (T5)", "https://arxiv.org/abs/1910.10683"}};
    k.paper = kPaper;
    static constexpr Link kCode[] = {{"HF T5Attention", "https://github.com/huggingface/transformers/blob/main/src/transformers/models/t5/modeling_t5.py"}};
    k.code = kCode;
    return k;
}
template const KindSpec& specOf<T5Encoding>();  // its one instantiation (kind_define.hpp)

}  // namespace posenc::kinds
