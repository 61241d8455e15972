#include <doctest/doctest.h>

#include <posenc/posenc.hpp>
#include "reference.hpp"

using namespace posenc;

namespace {
std::vector<float> table(std::vector<int32_t> pos, int dim, SinusoidLayout layout, double base = 10000) {
    return sinusoidal(pos, SinusoidalOptions{dim, base, layout});
}
}  // namespace

TEST_CASE("sinusoidal interleaved = paper / HF DistilBERT, hand-worked d=4") {
    // w = 10000^(-2k/4): k=0 -> 1, k=1 -> 0.01
    auto t = table({0, 1, 7}, 4, SinusoidLayout::interleaved);
    CHECK(t[0] == 0.0f);
    CHECK(t[1] == 1.0f);
    CHECK(t[4] == doctest::Approx(std::sin(1.0)).epsilon(1e-7));
    CHECK(t[5] == doctest::Approx(std::cos(1.0)).epsilon(1e-7));
    CHECK(t[6] == doctest::Approx(std::sin(0.01)).epsilon(1e-7));
    CHECK(t[7] == doctest::Approx(std::cos(0.01)).epsilon(1e-7));
    CHECK(t[8 + 2] == doctest::Approx(std::sin(0.07)).epsilon(1e-7));
}

TEST_CASE("sinusoidal concat = Transformer-XL / Marian; tensor2tensor uses b^(-k/(d/2-1))") {
    auto c = table({3}, 4, SinusoidLayout::concat);
    CHECK(c[0] == doctest::Approx(std::sin(3.0)));
    CHECK(c[1] == doctest::Approx(std::sin(0.03)));
    CHECK(c[2] == doctest::Approx(std::cos(3.0)));
    CHECK(c[3] == doctest::Approx(std::cos(0.03)));
    // t2t, d=4: two timescales, increment ln(10000)/(2-1): w = 1, 1e-4 (not a permutation of concat)
    auto t = table({3}, 4, SinusoidLayout::tensor2tensor);
    CHECK(t[0] == doctest::Approx(std::sin(3.0)));
    CHECK(t[1] == doctest::Approx(std::sin(3e-4)));
    CHECK(t[2] == doctest::Approx(std::cos(3.0)));
    CHECK(t[3] == doctest::Approx(std::cos(3e-4)));
}

TEST_CASE("sinusoidal odd dims follow each reference") {
    const double p = 5;
    // DistilBERT: exponent 2*(j/2)/5, even j sine, odd j cosine -> last column is a sine
    auto i5 = table({5}, 5, SinusoidLayout::interleaved);
    CHECK(i5[4] == doctest::Approx(std::sin(p * std::pow(10000.0, -0.8))));
    CHECK(i5[3] == doctest::Approx(std::cos(p * std::pow(10000.0, -0.4))));
    // Marian: 3 sine columns (exponents 0, .4, .8) then 2 cosine columns (0, .4)
    auto c5 = table({5}, 5, SinusoidLayout::concat);
    CHECK(c5[2] == doctest::Approx(std::sin(p * std::pow(10000.0, -0.8))));
    CHECK(c5[3] == doctest::Approx(std::cos(p)));
    CHECK(c5[4] == doctest::Approx(std::cos(p * std::pow(10000.0, -0.4))));
    // t2t: d/2 = 2 timescales, then a zero column
    auto t5 = table({5}, 5, SinusoidLayout::tensor2tensor);
    CHECK(t5[1] == doctest::Approx(std::sin(p * 1e-4)));
    CHECK(t5[4] == 0.0f);
}

TEST_CASE("sinusoidal stays within 1e-6 of the exact value at positions 65535, 1e6 and 2^31-1") {
    using ref::ld;
    const int d = 64;
    std::vector<int32_t> pos = {65535, 1000000, 16777217, 2147483647};
    for (auto layout : {SinusoidLayout::interleaved, SinusoidLayout::concat, SinusoidLayout::tensor2tensor}) {
        auto t = table(pos, d, layout);
        double worst = 0;
        for (std::size_t r = 0; r < pos.size(); ++r) {
            for (int j = 0; j < d; ++j) {
                ld w;
                bool sine;
                if (layout == SinusoidLayout::interleaved) {
                    w = std::pow(10000.0L, -2.0L * (j / 2) / d);
                    sine = j % 2 == 0;
                } else if (layout == SinusoidLayout::concat) {
                    w = std::pow(10000.0L, -2.0L * (j % (d / 2)) / d);
                    sine = j < d / 2;
                } else {
                    w = std::pow(10000.0L, -ld(j % (d / 2)) / (d / 2 - 1));
                    sine = j < d / 2;
                }
                const ld a = ld(pos[r]) * w;
                const ld expect = sine ? std::sin(a) : std::cos(a);
                worst = std::max(worst, double(std::fabs(expect - ld(t[r * d + j]))));
            }
        }
        CHECK(worst < 1e-6);
    }
}

TEST_CASE("sinusoidal rejects bad options with the field named") {
    std::vector<int32_t> pos = {0, 1};
    CHECK_THROWS_WITH_AS(table(pos, 0, SinusoidLayout::concat), doctest::Contains("dim"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(table(pos, 8, SinusoidLayout::concat, -1), doctest::Contains("base"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(table({0, -3}, 8, SinusoidLayout::concat), doctest::Contains("positions[1]"),
                         std::invalid_argument);
}
