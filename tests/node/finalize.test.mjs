// A HeapBuffer or KVCache dropped without delete() gives its wasm heap back when the garbage collector
// finalizes it: 64 objects of 8 MB each, dropped one after another, must not leave 512 MB of heap behind.
// Run in a child process with --expose-gc, so the test can ask for collections.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const api = fileURLToPath(new URL('../../bindings/posenc.mjs', import.meta.url));
const script = `
const pe = await (await import(${JSON.stringify(api)})).load({ threads: 1 });
const settle = async () => { for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 0)); } };
const start = pe.heapBytes();
for (let i = 0; i < 64; i++) { pe.alloc(2 * 1024 * 1024); await settle(); }
const afterBuffers = pe.heapBytes();
for (let i = 0; i < 64; i++) { new pe.KVCache({ kvHeads: 8, headDim: 128, capacity: 1024 }); await settle(); }
const kept = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 2 });  // one still referenced keeps working
kept.append(new Float32Array(4), new Float32Array(4));
console.log(JSON.stringify({ start, afterBuffers, end: pe.heapBytes(), next: Array.from(kept.nextPositions()) }));
`;

test('HeapBuffer and KVCache dropped without delete() are freed by the garbage collector', () => {
  const r = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script]).toString());
  const MB = 1024 * 1024;
  // 64 x 8 MB never freed would need 512 MB of heap; freed ones are reused, so the heap stays near its start
  assert.ok(r.afterBuffers - r.start < 128 * MB, `heap grew by ${(r.afterBuffers - r.start) / MB} MB for dropped buffers`);
  assert.ok(r.end - r.start < 128 * MB, `heap grew by ${(r.end - r.start) / MB} MB for dropped caches`);
  assert.deepEqual(r.next, [1]);
});
