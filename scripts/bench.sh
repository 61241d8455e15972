#!/usr/bin/env bash
# Builds (Release, native + wasm) and runs the benchmarks side by side. Usage: npm run bench [-- rope|attention|cache]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# --no-liftoff: measure V8's optimising tier from the first call (otherwise the first figures are baseline-compiled wasm)
node --no-liftoff bench/run.mjs "${1:-all}"
