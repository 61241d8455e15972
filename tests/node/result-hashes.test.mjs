// The results of a fixed, seeded corpus (every public function, every encoding kind, the attention
// engine's streaming, materialised and decode-split paths, the KV cache) must hash exactly as
// tests/fixtures/result-hashes.json records, at 1 and at 2 threads alike. Any change of any result's
// bits fails here. A change meant to alter results (a new kernel, a fixed formula) regenerates the
// baseline deliberately with `node scripts/result-hashes.mjs --write`, and its commit says why.
// wasm package only: native results may differ by kernel set (FMA).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { computeHashes, FIXTURE } from '../../scripts/result-hashes.mjs';

test('result hashes: unchanged from the committed baseline, and the same at 1 and 2 threads', async () => {
  const want = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  const got = await computeHashes();  // throws when 1 and 2 threads disagree
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), 'the groups of the corpus changed: regenerate with --write');
  for (const group of Object.keys(want))
    assert.equal(got[group], want[group], `results of group '${group}' changed (if deliberate: node scripts/result-hashes.mjs --write)`);
});
