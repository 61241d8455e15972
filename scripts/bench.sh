#!/usr/bin/env bash
# Builds (Release, native + wasm) and runs the benchmarks side by side. Usage: npm run bench [-- rope|attention|cache]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
node bench/run.mjs "${1:-all}"
