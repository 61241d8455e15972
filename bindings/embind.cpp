// Embind surface of posenc. This file only converts (heap pointers and plain numbers in, status
// codes out) and maps C++ exceptions to a status the JS layer turns into RangeError/TypeError.
// Tensors cross as byte offsets into the wasm heap, allocated and freed by bindings/posenc.mjs.
#include <emscripten/bind.h>

#include <cmath>
#include <cstring>
#include <new>

#include "posenc.hpp"

using namespace emscripten;

namespace {

enum Status : int { kOk = 0, kRangeError = 1, kTypeError = 2, kInternalError = 3 };
char gLastError[1024] = "";

void remember(const char* what) noexcept {
    std::strncpy(gLastError, what, sizeof gLastError - 1);
    gLastError[sizeof gLastError - 1] = '\0';
}

// Runs f, turning any exception into a status code and a stored message; never lets one escape.
template <class F>
int guarded(F&& f) noexcept {
    try {
        f();
        return kOk;
    } catch (const posenc::type_error& e) {
        remember(e.what());
        return kTypeError;
    } catch (const std::invalid_argument& e) {
        remember(e.what());
        return kRangeError;
    } catch (const std::bad_alloc&) {
        remember("out of memory: the wasm heap cannot hold this request");
        return kRangeError;
    } catch (const std::length_error& e) {
        remember("size too large for the wasm heap");
        return kRangeError;
    } catch (const std::exception& e) {
        remember(e.what());
        return kInternalError;
    } catch (...) {
        remember("unknown error");
        return kInternalError;
    }
}

template <class T>
T* at(double offset) {
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(offset));
}

std::string lastError() { return gLastError; }

// --- additive ----------------------------------------------------------------------------------
int sinusoidal(double positions, int count, int dim, double base, int layout, double out) {
    return guarded([&] {
        posenc::SinusoidalOptions o{dim, base, static_cast<posenc::SinusoidLayout>(layout)};
        posenc::sinusoidal(at<const std::int32_t>(positions), static_cast<std::size_t>(count), o, at<float>(out));
    });
}

// --- rotary --------------------------------------------------------------------------------------
// Flat mirror of posenc::RopeConfig that Embind can fill from a JS object.
struct RopeSpec {
    int headDim;
    double base, partialRotaryFactor;
    int scalingType;
    double factor, originalMaxPositionEmbeddings, betaFast, betaSlow, mscale, mscaleAllDim;
    bool truncate;
    double attentionFactor, lowFreqFactor, highFreqFactor;
    double shortFactor, longFactor;  // heap offsets of float64 arrays
    int shortFactorLength, longFactorLength;
    double seqLen;
    int convention;
};

posenc::RopeConfig toConfig(const RopeSpec& s) {
    posenc::RopeConfig c;
    c.headDim = s.headDim;
    c.base = s.base;
    c.partialRotaryFactor = s.partialRotaryFactor;
    c.seqLen = static_cast<std::int64_t>(s.seqLen);
    c.convention = static_cast<posenc::RopeConvention>(s.convention);
    auto& k = c.scaling;
    k.type = static_cast<posenc::RopeScalingType>(s.scalingType);
    k.factor = s.factor;
    k.originalMaxPositionEmbeddings = static_cast<std::int64_t>(s.originalMaxPositionEmbeddings);
    k.betaFast = s.betaFast;
    k.betaSlow = s.betaSlow;
    k.mscale = s.mscale;
    k.mscaleAllDim = s.mscaleAllDim;
    k.truncate = s.truncate;
    k.attentionFactor = s.attentionFactor;
    k.lowFreqFactor = s.lowFreqFactor;
    k.highFreqFactor = s.highFreqFactor;
    const double* sf = at<const double>(s.shortFactor);
    const double* lf = at<const double>(s.longFactor);
    k.shortFactor.assign(sf, sf + s.shortFactorLength);
    k.longFactor.assign(lf, lf + s.longFactorLength);
    return c;
}

// out (float64): [rotaryDim, attentionScale, invFreq[0..rotaryDim/2)]; room for 2 + headDim/2.
int ropeFrequencies(const RopeSpec& spec, double out) {
    return guarded([&] {
        const auto f = posenc::ropeFrequencies(toConfig(spec));
        double* o = at<double>(out);
        o[0] = f.rotaryDim;
        o[1] = f.attentionScale;
        std::copy(f.invFreq.begin(), f.invFreq.end(), o + 2);
    });
}

// x [heads, tokens, headDim] rotated in place.
int applyRope(const RopeSpec& spec, int layout, double x, int heads, int tokens, int headDim, double positions) {
    return guarded([&] {
        const auto f = posenc::ropeFrequencies(toConfig(spec));
        if (spec.headDim != headDim) posenc::fail("headDim", "of the rope config must equal the tensor's headDim");
        posenc::applyRope(at<float>(x), heads, tokens, headDim, at<const std::int32_t>(positions), f,
                          static_cast<posenc::RopeLayout>(layout));
    });
}

// Moves rotated vectors by a position delta per token (float64 deltas, may be negative); no scale.
int rotateByDelta(const RopeSpec& spec, int layout, double x, int heads, int tokens, int headDim, double deltas) {
    return guarded([&] {
        const auto f = posenc::ropeFrequencies(toConfig(spec));
        const double* d = at<const double>(deltas);
        std::vector<std::int64_t> dv(d, d + tokens);
        posenc::rotateByDelta(at<float>(x), heads, tokens, headDim, dv.data(), f, static_cast<posenc::RopeLayout>(layout));
    });
}

// Plain memcpy inside the wasm heap: the copy-bandwidth yardstick the benchmarks compare against.
void copyBytes(double dst, double src, double bytes) {
    std::memcpy(at<char>(dst), at<const char>(src), static_cast<std::size_t>(bytes));
}

}  // namespace

EMSCRIPTEN_BINDINGS(posenc) {
    function("lastError", &lastError);
    function("sinusoidal", &sinusoidal);
    value_object<RopeSpec>("RopeSpec")
        .field("headDim", &RopeSpec::headDim)
        .field("base", &RopeSpec::base)
        .field("partialRotaryFactor", &RopeSpec::partialRotaryFactor)
        .field("scalingType", &RopeSpec::scalingType)
        .field("factor", &RopeSpec::factor)
        .field("originalMaxPositionEmbeddings", &RopeSpec::originalMaxPositionEmbeddings)
        .field("betaFast", &RopeSpec::betaFast)
        .field("betaSlow", &RopeSpec::betaSlow)
        .field("mscale", &RopeSpec::mscale)
        .field("mscaleAllDim", &RopeSpec::mscaleAllDim)
        .field("truncate", &RopeSpec::truncate)
        .field("attentionFactor", &RopeSpec::attentionFactor)
        .field("lowFreqFactor", &RopeSpec::lowFreqFactor)
        .field("highFreqFactor", &RopeSpec::highFreqFactor)
        .field("shortFactor", &RopeSpec::shortFactor)
        .field("longFactor", &RopeSpec::longFactor)
        .field("shortFactorLength", &RopeSpec::shortFactorLength)
        .field("longFactorLength", &RopeSpec::longFactorLength)
        .field("seqLen", &RopeSpec::seqLen)
        .field("convention", &RopeSpec::convention);
    function("ropeFrequencies", &ropeFrequencies);
    function("applyRope", &applyRope);
    function("rotateByDelta", &rotateByDelta);
    function("copyBytes", &copyBytes);
}
