#!/usr/bin/env bash
# Builds everything the benchmarks compare and runs them side by side in one run:
#   posenc native (kernels dispatched at run time, and the same built with -march=native) and the same C++ at wasm's width (SSE4.1), posenc wasm SIMD128 (the
#   package), posenc wasm without SIMD (scalar baseline), the multiply-add ceilings, and the JS peers
#   in bench/peers (onnxruntime-web, tfjs-wasm: installed here, for the benchmark only).
# Usage: npm run bench [-- all|rope|attention|cache|peak]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
jobs="$(nproc 2>/dev/null || echo 2)"

cmake --build build/wasm -j "$jobs" --target posenc_peak_wasm >/dev/null

# the package built without SIMD128, loaded through a copy of the same bindings
if [ ! -f build/wasm-scalar/Makefile ]; then
  emcmake cmake -S . -B build/wasm-scalar -DCMAKE_BUILD_TYPE=Release -DPOSENC_WASM_SIMD=OFF -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
fi
cmake --build build/wasm-scalar -j "$jobs" --target posenc_wasm >/dev/null
mkdir -p build/wasm-scalar/pkg/bindings build/wasm-scalar/pkg/dist
cp bindings/*.mjs build/wasm-scalar/pkg/bindings/
cp build/wasm-scalar/posenc_wasm.mjs build/wasm-scalar/posenc_wasm.wasm build/wasm-scalar/pkg/dist/

# build/native is the portable library (kernels chosen at run time; run.mjs forces its SSE4.1 set for
# the "native at wasm's width" column); build/native-march the same code with -march=native, timed
# next to it (the dispatched kernels must be no slower)
cmake -S . -B build/native-march -DCMAKE_BUILD_TYPE=Release -DPOSENC_NATIVE_ARCH=ON -DPOSENC_BUILD_TESTS=OFF >/dev/null
cmake --build build/native-march -j "$jobs" --target posenc_bench posenc_peak >/dev/null

# the peers, pinned by bench/peers/package-lock.json (never installed by npm test)
peers_ok=1
for p in onnxruntime-web onnx-proto @tensorflow/tfjs-core @tensorflow/tfjs-backend-wasm; do
  [ -f "bench/peers/node_modules/$p/package.json" ] || peers_ok=0
done
if [ "$peers_ok" = 0 ]; then
  echo "posenc bench: installing the peers (bench/peers)"
  npm --prefix bench/peers ci --no-audit --no-fund --loglevel=error
fi

# --no-liftoff: measure V8's optimising tier from the first call (otherwise the first figures are baseline-compiled wasm)
node --no-liftoff bench/run.mjs "${1:-all}"
