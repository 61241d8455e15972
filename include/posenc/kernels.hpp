// Which SIMD kernels the library runs. On x86-64 the library holds kernels for SSE2 (any x86-64),
// SSE4.1, AVX2 + FMA and AVX-512, and picks the widest this CPU and OS support at first use. The
// environment variable POSENC_KERNELS=<name> (read at first use) or useKernelSet(name) forces one, for
// benchmarks and tests. A wasm build holds one set ("simd128", or "scalar" when built without SIMD), as
// do a -DPOSENC_NATIVE_ARCH=ON build ("native") and other architectures ("default"); the npm package's
// modules read no environment (Emscripten's holds no POSENC_KERNELS).
#pragma once
#include <string>
#include <vector>

namespace posenc {

// Names of the sets this build holds that this CPU can run, narrowest first.
std::vector<std::string> kernelSets();
// The set in use.
std::string activeKernelSet();
// Forces a set by name; std::invalid_argument if this build has no such set or the CPU cannot run it.
// Not synchronised: call it before using the library from several threads.
void useKernelSet(const std::string& name);

}  // namespace posenc
