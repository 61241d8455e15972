#!/usr/bin/env bash
# Every test: native doctest (via ctest), the same suite under ASan + UBSan and compiled to wasm, Node
# tests against the built package, and the headless Chromium test of the demo page. Installs and builds what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

bash scripts/build.sh wasm-tests
bash scripts/build.sh sanitize
bash scripts/build.sh fuzz

echo "== native (ctest)"
ctest --test-dir build/native --output-on-failure
echo "== the same doctest suite under AddressSanitizer + UndefinedBehaviorSanitizer"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
build/native-sanitize/posenc_tests --no-colors
for t in build/native-sanitize/posenc_kernel_tests_*; do  # each kernel set's SIMD kernels vs scalar twins
  [ -x "$t" ] || continue
  rc=0; "$t" --no-colors --minimal || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || exit "$rc"  # 77: this CPU cannot run the set (the test says so)
done
echo "== every kernel-set test binary on an emulated x86-64 without AVX-512 (qemu-user, Haswell: AVX2 + FMA)"
# This machine may have AVX-512 while users' CPUs do not: a set's code must not run before the CPU check.
# Each binary must pass (sets the emulated CPU has) or exit 77 (sets it lacks). Not the ASan builds: under
# qemu-user, AddressSanitizer's shadow memory becomes resident (24 GB, then the OOM killer); they are the
# same sources, and ctest kernel_objects_isolated holds those to the rule.
for t in build/native/posenc_kernel_tests_*; do
  [ "$(uname -m)" = x86_64 ] || break  # other architectures build one kernel set: nothing to emulate
  [ -x "$t" ] || continue
  out="$(qemu-x86_64 -cpu Haswell "$t" --no-colors --minimal 2>&1)" && rc=0 || rc=$?
  printf '%s\n' "$out" | grep -v "TCG doesn't support requested feature" || true
  case "$t:$rc" in
    *avx512:77) echo "$t: exit 77 (no AVX-512 on the emulated CPU), as it must" ;;
    *avx512:*) echo "$t: exit $rc on a CPU without AVX-512 (77 expected)" >&2; exit 1 ;;
    *:0) echo "$t: passed" ;;
    *) echo "$t: exit $rc on the emulated AVX2 CPU" >&2; exit 1 ;;
  esac
done
echo "== libFuzzer: rope configs, attention, KV-cache operation sequences, config.json text (20 s each; crashes found earlier replayed first)"
for t in rope attention kv_cache hf_config; do
  mkdir -p "build/fuzz/corpus-$t"
  dirs=("build/fuzz/corpus-$t")
  [ -d "tests/fuzz/regressions/$t" ] && dirs+=("tests/fuzz/regressions/$t")  # inputs that once crashed
  [ "$t" = hf_config ] && dirs+=("tests/fixtures/hf")  # seeds: published configs
  build/fuzz/fuzz_$t "${dirs[@]}" -max_total_time=20 -rss_limit_mb=4096 2>&1 | tail -n 1
done
echo "== the same doctest suite compiled to wasm (SIMD128 kernels vs their scalar references)"
node build/wasm/posenc_tests_wasm.cjs --no-colors
echo "== package size against its budget (scripts/size-budget.json) and docs/package-size.md's table"
node scripts/size.mjs --check
echo "== node"
node --test tests/node/
echo "== browser (headless Chromium)"
node --test tests/browser/
