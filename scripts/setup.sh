#!/usr/bin/env bash
# Installs what posenc needs on a fresh Debian 12 machine: Debian packages (when missing) and the
# npm dev dependencies. Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang-14 + libclang-rt-14-dev: the libFuzzer targets (emscripten already pulls in clang-14); qemu-user: the
# kernel tests on an emulated CPU without AVX-512 (scripts/test.sh)
packages=(cmake g++ make emscripten binaryen libxsimd-dev doctest-dev chromium wabt clang-14 libclang-rt-14-dev qemu-user)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "posenc setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# every devDependency present? (a stale node_modules from an older lockfile gets refreshed too)
if ! node -e 'const d = require("./package.json").devDependencies || {};
  for (const n of Object.keys(d)) require.resolve(n + "/package.json", { paths: [process.cwd()] });' 2>/dev/null; then
  echo "posenc setup: installing npm dev dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi
