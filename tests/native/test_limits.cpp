// Sizes past every real model are refused before any work, naming the field and posenc's limit
// (posenc/common/limits.hpp), in the C++ API and in the config reader (issue 31).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <posenc/posenc.hpp>

using namespace posenc;

TEST_CASE("limits: headDim, heads and dim past their limits are std::invalid_argument naming field and limit") {
    RopeConfig c;
    c.headDim = 1 << 30;  // took 10 s to compute before it was refused
    c.partialRotaryFactor = 0.25;
    CHECK_THROWS_WITH_AS(ropeFrequencies(c), "headDim must be at most 65536, posenc's limit (got 1073741824)", std::invalid_argument);
    c.headDim = limits::kMaxHeadDim;
    c.partialRotaryFactor = 1;
    const auto f = ropeFrequencies(c);  // the limit itself is accepted
    CHECK(f.rotaryDim == limits::kMaxHeadDim);

    std::vector<float> x(8, 1.0f);
    const std::vector<std::int32_t> pos = {0};
    CHECK_THROWS_WITH_AS(applyRope(x.data(), 1 << 17, 1, 8, pos.data(), f, RopeLayout::half), "heads must be at most 65536, posenc's limit (got 131072)",
                         std::invalid_argument);

    AttentionRequest r;
    r.dims = {1, 1, 1 << 17, 1, 1};
    r.q = r.k = r.v = View<float>{x.data(), x.size()};
    CHECK_THROWS_WITH_AS(attention(r), "headDim must be at most 65536, posenc's limit (got 131072)", std::invalid_argument);
    r.dims = {1 << 17, 1, 8, 1, 1};
    CHECK_THROWS_WITH_AS(attention(r), "heads must be at most 65536, posenc's limit (got 131072)", std::invalid_argument);

    KVCacheConfig kc;
    kc.kvHeads = 1 << 17;
    kc.headDim = 8;
    kc.capacity = 1;
    CHECK_THROWS_WITH_AS(KVCache{kc}, "kvHeads must be at most 65536, posenc's limit (got 131072)", std::invalid_argument);

    SinusoidalOptions so;
    so.dim = (1 << 20) + 2;
    CHECK_THROWS_WITH_AS(sinusoidal(pos, so), "dim must be at most 1048576, posenc's limit (got 1048578)", std::invalid_argument);
}

TEST_CASE("limits: the config reader names the config's key when a size is past posenc's limit") {
    CHECK_THROWS_WITH_AS(ropeConfigFromHF(R"({"model_type": "llama", "head_dim": 131072, "num_attention_heads": 2})"),
                         "config.head_dim (131072) is past posenc's limit of 65536", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeConfigFromHF(R"({"model_type": "llama", "hidden_size": 1099511627776, "num_attention_heads": 1})"),
                         "config.hidden_size / config.num_attention_heads (1099511627776) is past posenc's limit of 65536", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeConfigFromHF(R"({"model_type": "llama", "head_dim": 64, "num_attention_heads": 131072})"),
                         "config.num_attention_heads (131072) is past posenc's limit of 65536", std::invalid_argument);
    const auto ok = ropeConfigFromHF(R"({"model_type": "llama", "head_dim": 65536, "num_attention_heads": 2})");
    CHECK(ok.rope.headDim == 65536);
}
