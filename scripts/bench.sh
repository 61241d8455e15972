#!/usr/bin/env bash
# Builds (Release, native + wasm) and runs the benchmarks side by side. Usage: npm run bench [-- rope|attention|cache]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# the same native code at wasm's vector width (4 lanes, SSE4.1): tells width from wasm overhead
cmake -S . -B build/native-sse -DPOSENC_NATIVE_ARCH=OFF -DCMAKE_CXX_FLAGS="-msse4.1" >/dev/null
cmake --build build/native-sse -j "$(nproc 2>/dev/null || echo 2)" --target posenc_bench >/dev/null
# --no-liftoff: measure V8's optimising tier from the first call (otherwise the first figures are baseline-compiled wasm)
node --no-liftoff bench/run.mjs "${1:-all}"
