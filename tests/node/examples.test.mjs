// Runs the Node examples (examples/node/) as a user would — `node <example> [args]` — and holds their
// printed numbers to values computed here from the published definitions. Each example also checks
// itself and exits non-zero when a check fails. The examples import 'posenc' by name: inside this
// repository that resolves to the package itself (package.json "exports" self-reference).
// The browser and esbuild examples are run by tests/browser/examples.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ropeExample = join(root, 'examples/node/rope-from-config.mjs');
const fixture = (name) => join(root, 'tests/fixtures/hf', name);

function run(script, args = []) {
  return spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', timeout: 60000 });
}

// The number after `label` on its line of the example's output.
function printed(stdout, label) {
  const line = stdout.split('\n').find((l) => l.startsWith(label));
  assert.ok(line, `no line '${label}' in:\n${stdout}`);
  return Number(line.slice(label.length).trim().split(/[\s,(]/)[0]);
}

const close = (a, b, rel) => Math.abs(a - b) <= rel * Math.abs(b);

// Checks one run of rope-from-config.mjs against the expected rotary dim, last inverse frequency
// (float32, so relative 1e-6) and attention scale.
function checkRopeRun(args, { rotaryDim, headDim, lastInvFreq, attentionScale }) {
  const r = run(ropeExample, args);
  assert.equal(r.status, 0, `example failed:\n${r.stderr}`);
  const out = r.stdout;
  assert.match(out, new RegExp(`^rotary dim: ${rotaryDim} of ${headDim} head channels$`, 'm'));
  assert.equal(printed(out, 'inverse frequency, first pair:'), 1);
  const last = printed(out, 'inverse frequency, last pair:');
  assert.ok(close(last, lastInvFreq, 1e-6), `last inverse frequency ${last}, expected ${lastInvFreq}`);
  const scale = printed(out, 'attention scale:');
  assert.ok(close(scale, attentionScale, 1e-12), `attention scale ${scale}, expected ${attentionScale}`);
  const diff = printed(out, 'max |attention(rope) - attention(pre-rotated q, k)|:');
  assert.ok(diff >= 0 && diff < 1e-5, `attention difference ${diff}`);
  const spread = Number(out.match(/\(spread ([^)]+)\)/)[1]);
  assert.ok(spread >= 0 && spread < 1e-4, `q·k spread ${spread}`);
  assert.match(out, /^ok$/m);
}

test('rope-from-config: Llama 3.1 (default config) — llama3 schedule divides the lowest frequencies by 8', () => {
  // base 500000, head dim 128; the last pair's wavelength (2.6e6 tokens) exceeds 8192 / lowFreqFactor 1,
  // so llama3 divides its frequency by factor 8.
  checkRopeRun([], { rotaryDim: 128, headDim: 128, lastInvFreq: 500000 ** (-126 / 128) / 8, attentionScale: 1 });
});

test('rope-from-config: a config path on argv — Qwen2 YaRN (attention scale 0.1 ln 4 + 1) and Phi-2 (partial rotary)', () => {
  // YaRN, factor 4: the last pair is past the correction range, so fully interpolated (÷ 4).
  checkRopeRun([fixture('qwen2-7b-yarn.json')],
    { rotaryDim: 128, headDim: 128, lastInvFreq: 1e6 ** (-126 / 128) / 4, attentionScale: 0.1 * Math.log(4) + 1 });
  // Phi-2: head dim 2560 / 32 = 80, partial_rotary_factor 0.4 → 32 rotary channels, base 10000.
  checkRopeRun([fixture('phi-2-partial.json')], { rotaryDim: 32, headDim: 80, lastInvFreq: 10000 ** (-30 / 32), attentionScale: 1 });
});

test('rope-from-config: a bad config.json makes it exit non-zero, naming the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-example-'));
  try {
    const bad = join(dir, 'config.json');
    writeFileSync(bad, JSON.stringify({ hidden_size: 4096, num_attention_heads: 32, rope_scaling: { rope_type: 'yarn', factor: 4 } }));
    const r = run(ropeExample, [bad]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /RangeError: .*original_max_position_embeddings/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The README's JavaScript quickstart (examples/node/quickstart.mjs; readme.test.mjs holds the two equal)
// runs and prints what its comment says: 64 and 64 floats, and ALiBi's bias for head 0, query 1, key 0:
// -m0 (1 - 0) with m0 = 2^-4 for two heads (Press et al.: slopes 2^(-8h/H)), so -0.0625.
test('quickstart (the README\'s JavaScript quickstart) runs', () => {
  const r = spawnSync(process.execPath, [join(root, 'examples/node/quickstart.mjs')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '64 64 -0.0625');
});
