// bindings/options.d.ts is generated from the registry and the kinds' specs (scripts/gen-types.mjs):
// the committed file must be what the generator makes now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate, specDocs, OUTPUT } from '../../scripts/gen-types.mjs';

test('bindings/options.d.ts is what scripts/gen-types.mjs generates from the registry', async () => {
  const committed = readFileSync(OUTPUT, 'utf8'), fresh = await generate();
  if (committed === fresh) return;
  const a = committed.split('\n'), b = fresh.split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  assert.fail(`bindings/options.d.ts is stale: run \`node scripts/gen-types.mjs\` and commit the result.\n` +
    `first difference, line ${i + 1}:\n  committed: ${a[i]}\n  generated: ${b[i]}`);
});

test('a /// block documents a field of kFields or the kind (makeSpec), nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-gentypes-'));
  const spec = (body) => `KindSpec k = kind<K>("demo", "DemoEncoding", Family::score, kFields);\nconstexpr KindField kFields[] = {\n${body}\n};\n/// The demo.\nKindSpec makeSpec(Tag<DemoEncoding>) {\n`;
  writeFileSync(join(dir, 'demo.cpp'), spec('    /// The table.\n    req<&K::table>("table", "FloatInput"),\n    /// Heads.\n    heads<&K::heads>(),'));
  assert.deepEqual(specDocs(pathToFileURL(dir + '/')).demo, { file: 'demo.cpp', doc: 'The demo.', fields: { table: 'The table.', heads: 'Heads.' } });
  writeFileSync(join(dir, 'demo.cpp'), spec('    /// Stray.\n    atLeast(0,'));
  assert.throws(() => specDocs(pathToFileURL(dir + '/')), /demo\.cpp:\d+: a \/\/\/ block must precede a field/);
});
