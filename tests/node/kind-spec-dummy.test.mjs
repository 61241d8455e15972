// The test kind of tests/native/test_kind_spec.cpp ('dummy', added to a registry of its own through its spec)
// on the JavaScript side of the path: the registry JSON the native test writes holds it, scripts/gen-types.mjs's
// generator writes its interface into the Encoding union from that JSON (as it writes bindings/options.d.ts
// from the module's), and the JS fuzz's choice of kinds (spec-examples.mjs's fuzzKinds, which fuzz.test.mjs
// draws with) draws it, as its spec's options example. Needs the native build (bash scripts/build.sh native).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, specDocs } from '../../scripts/gen-types.mjs';
import { exampleOptions, fuzzKinds } from './spec-examples.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = join(root, 'build/native/posenc_tests');

// The registry JSON with the test kind, as the native test writes it.
function dummyRegistry() {
  assert.ok(existsSync(binary), `${binary} is missing: build the native tests first (bash scripts/build.sh native)`);
  const file = join(mkdtempSync(join(tmpdir(), 'posenc-kind-spec-')), 'registry.json');
  const r = spawnSync(binary, ['--test-case=kind spec: the registry JSON with the test kind', '--no-colors'], {
    encoding: 'utf8', env: { ...process.env, POSENC_KIND_SPEC_JSON: file },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return JSON.parse(readFileSync(file, 'utf8'));
}
const registry = dummyRegistry();

test("the test kind is in the registry JSON's kinds, tables, describe() rows and methods", () => {
  assert.equal(registry.encodingKinds.at(-1), 'dummy');
  assert.deepEqual(Object.keys(registry.tables['encoding.dummy'].keys).sort(), ['heads', 'kind', 'negate', 'reach', 'weight']);
  assert.equal(registry.describe.at(-1).kind, 'dummy');
  assert.deepEqual(registry.methods.dummy.options, { kind: 'dummy', reach: 2 });
});

test("gen-types' generator writes the test kind's interface from that JSON", async () => {
  const docs = { ...specDocs(), dummy: specDocs(new URL('../native/', import.meta.url)).dummy };
  const dts = await generate({ registry, docs });
  const iface = dts.match(/export interface DummyEncoding \{\n([\s\S]*?)\n\}/)?.[1];
  assert.ok(iface, 'no DummyEncoding interface');
  assert.match(iface, /^ {2}kind: 'dummy';$/m);
  assert.match(iface, /^ {2}reach: number;$/m);                                  // required
  assert.match(iface, /Distances past it count as it[^\n]*An integer ≥ 0\. Required\./);  // its /// block, range, required-ness
  assert.match(iface, /@defaultValue `0\.25`\s*\*\/\n {2}weight\?: number;/);     // the struct's initialiser
  assert.match(iface, /@defaultValue `true`\s*\*\/\n {2}negate\?: boolean;/);
  assert.match(dts, /export type Encoding =\n(?: {2}\| \w+\n)* {2}\| DummyEncoding;/);  // last in the union
  assert.match(dts, /export type ScalarBiasEncoding = [\w |]*\| DummyEncoding;/);
  assert.match(dts, /\| `'dummy'` \| scalar bias \| a test's bias \| this test \|/);  // the union's table, from its describe() row
  assert.match(dts, /\/\*\* Shape of the test kind's per-head weights\. \*\/\nexport interface DummyShape \{\n[\s\S]*?\n {2}heads: number;\n\}/);  // its parameterCount shape
});

test("the JS fuzz's choice of kinds draws the test kind, as its spec's options example", () => {
  const drawn = fuzzKinds(registry);
  for (const list of ['attention', 'attentionBias', 'cache', 'fromSpec']) assert.ok(drawn[list].includes('dummy'), list);
  assert.deepEqual(drawn.missing, []);
  assert.deepEqual(exampleOptions(registry.methods, 'dummy'), { kind: 'dummy', reach: 2 });
});
