#!/usr/bin/env bash
# Builds posenc. `build.sh` = native library + tests + the wasm package; `build.sh wasm` = the
# package only (dist/posenc_wasm.mjs + dist/posenc_wasm.wasm, and the threaded dist/posenc_wasm_threads*); `build.sh native` = native only; `build.sh wasm-tests` = the
# doctest suite compiled to wasm (build/wasm/posenc_tests_wasm.cjs); `build.sh sanitize` = the native
# doctest suite and the per-kernel-set kernel tests under AddressSanitizer + UndefinedBehaviorSanitizer (build/native-sanitize); `build.sh
# fuzz` = the libFuzzer targets (build/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs="$(nproc 2>/dev/null || echo 2)"

# em++ needs Debian's acorn (TOOLCHAIN.md #1).
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

if [ "$what" = all ] || [ "$what" = native ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DPOSENC_NATIVE_ARCH=OFF -DPOSENC_WARNINGS_AS_ERRORS=ON >/dev/null
  cmake --build build/native -j "$jobs"
fi
if [ "$what" = all ] || [ "$what" = wasm ] || [ "$what" = wasm-tests ]; then
  if [ ! -f build/wasm/Makefile ]; then
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  fi
  cmake --build build/wasm -j "$jobs" --target posenc_wasm
  mkdir -p dist
  cp build/wasm/posenc_wasm.mjs build/wasm/posenc_wasm.wasm dist/
  # the threaded modules (pthreads), a build of their own: Node's (CommonJS; its worker script renamed
  # .cjs, since the package is "type": "module") and browsers' (ES6, beside its worker script)
  if [ ! -f build/wasm-threads/Makefile ]; then
    emcmake cmake -S . -B build/wasm-threads -DCMAKE_BUILD_TYPE=Release -DPOSENC_WASM_THREADS=ON -DPOSENC_BUILD_TESTS=OFF \
      -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  fi
  cmake --build build/wasm-threads -j "$jobs" --target posenc_wasm_threads_node posenc_wasm_threads_web
  cmp -s build/wasm-threads/posenc_wasm_threads.wasm build/wasm-threads/posenc_wasm_threads_node.wasm ||
    { echo "build.sh: the Node and browser threaded modules' .wasm differ; the package ships one" >&2; exit 1; }
  cp build/wasm-threads/posenc_wasm_threads.wasm dist/posenc_wasm_threads.wasm
  cp build/wasm-threads/posenc_wasm_threads_node.cjs dist/posenc_wasm_threads_node.cjs
  cp build/wasm-threads/posenc_wasm_threads_node.worker.js dist/posenc_wasm_threads_node.worker.cjs
  cp build/wasm-threads/posenc_wasm_threads.mjs dist/posenc_wasm_threads.mjs
  cp build/wasm-threads/posenc_wasm_threads.worker.js dist/posenc_wasm_threads.worker.js
  # 'posenc/browser', for pages without a bundler: the bindings and Emscripten's JS in one minified file
  # beside the .wasm files (docs/package-size.md)
  node scripts/browser-bundle.mjs
fi
if [ "$what" = sanitize ]; then
  # -O1 keeps the sanitizers' reports readable; UBSan errors abort instead of printing and going on.
  cmake -S . -B build/native-sanitize -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
  cmake --build build/native-sanitize -j "$jobs" --target posenc_tests posenc_kernel_tests
fi
if [ "$what" = fuzz ]; then
  # libFuzzer targets (tests/fuzz/) with ASan + UBSan, built by clang (Debian's LLVM 14, pulled in by emscripten)
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 -DPOSENC_FUZZ=ON \
    -DCMAKE_CXX_FLAGS="-g -fno-omit-frame-pointer" >/dev/null
  cmake --build build/fuzz -j "$jobs" --target fuzz_rope fuzz_attention fuzz_kv_cache fuzz_hf_config
fi
if [ "$what" = wasm-tests ]; then
  cmake --build build/wasm -j "$jobs" --target posenc_tests_wasm
fi
