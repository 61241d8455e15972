#!/usr/bin/env bash
# Every test: native doctest (via ctest), Node tests against the built package, and the headless
# Chromium test of the demo page. Installs and builds what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

echo "== native (ctest)"
ctest --test-dir build/native --output-on-failure
echo "== node"
node --test tests/node/
echo "== browser (headless Chromium)"
node --test tests/browser/
