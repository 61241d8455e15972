// The hand-written TypeScript declarations compile against the documented usage (tests/types/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'posenc';

const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
// tsc's diagnostics for a project of tests/types ('' when it compiles), with extra command-line options.
function compile(config, ...options) {
  try {
    execFileSync(process.execPath, [tsc, '-p', fileURLToPath(new URL(`../types/${config}`, import.meta.url)), ...options], { encoding: 'utf8' });
    return '';
  } catch (e) {
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
}

// tsconfig.json: lib ES2022 + ESNext.Disposable + DOM; tsconfig.es2022.json: lib ES2022 alone (no
// Symbol.dispose in the lib: index.d.ts declares it), both without skipLibCheck. usage.ts holds the
// @ts-expect-error lines (misuses that must not compile) and the exact result types.
for (const config of ['tsconfig.json', 'tsconfig.es2022.json'])
test(`bindings/index.d.ts type-checks the documented calls and rejects wrong ones (${config})`, () => {
  const output = compile(config);
  assert.equal(output, '', output);
});

// The README's note on `using`: it compiles with lib ES2022 + ESNext.Disposable, and without that lib
// TypeScript stops at the global type it lacks (not at anything of posenc's).
test('`using` a KVCache and a HeapBuffer compiles with lib ESNext.Disposable, and only with it', () => {
  const output = compile('tsconfig.using.json');
  assert.equal(output, '', output);
  for (const lib of ['ES2022', 'ES2024']) {
    const without = compile('tsconfig.using.json', '--lib', lib);
    assert.match(without, /error TS2318: Cannot find global type 'Disposable'/, `lib ${lib}: ${without}`);
    assert.equal(without.trim().split('\n').length, 1, `lib ${lib}: one error expected:\n${without}`);
  }
});

// HfLayerType lists exactly the names the config reader assigns itself; any other layer type comes
// verbatim from a config's layer_types (hence `HfLayerType | (string & {})` on HfLayer.type).
test('HfLayerType is exactly the set of layer types the config reader produces', async () => {
  const dts = readFileSync(new URL('../../bindings/index.d.ts', import.meta.url), 'utf8');
  const declared = [...dts.match(/export type HfLayerType =([^;]*);/)[1].matchAll(/'([^']*)'/g)].map(([, s]) => s).sort();
  const pe = await load();
  const base = { hidden_size: 64, num_attention_heads: 2, num_hidden_layers: 8 };
  const configs = [
    { model_type: 'llama', ...base },
    { model_type: 'mistral', ...base, sliding_window: 16 },
    { model_type: 'gemma2', ...base },
    { model_type: 'gemma3_text', ...base },
    { model_type: 'cohere2', ...base, sliding_window: 16 },
    { model_type: 'llama4_text', ...base },
    { model_type: 'qwen2', ...base, use_sliding_window: true, sliding_window: 16, max_window_layers: 4 },
  ];
  const produced = new Set();
  for (const config of configs) {
    const { attention } = pe.ropeConfigFromHF(config, config.model_type === 'gemma3_text' ? { layerType: 'sliding_attention' } : {});
    assert.equal(attention.layers.length, 8, config.model_type);
    for (const l of attention.layers) produced.add(l.type);
  }
  assert.deepEqual([...produced].sort(), declared);
  // a name from layer_types passes through as written
  const passed = pe.ropeConfigFromHF({ model_type: 'llama', ...base, num_hidden_layers: 2, layer_types: ['linear_attention', 'full_attention'] });
  assert.deepEqual(passed.attention.layers.map((l) => l.type), ['linear_attention', 'full_attention']);
});
