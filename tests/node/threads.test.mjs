// Threads in wasm: load({ threads }) picks the module, pe.threads reports the choice, and the threaded
// module gives the same bytes as the single-thread one (the C++ core cuts the work the same way for any
// thread count; tests/native/test_threads.cpp checks 1, 2 and 3 threads natively).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { randomFloats } from './helpers.mjs';

const one = await load({ threads: 1 });
const two = await load({ threads: 2 });
const sameBytes = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

test('load({ threads }): the choice is reported; Node has shared memory, so auto takes the cores', async () => {
  assert.equal(one.threads, 1);
  assert.equal(two.threads, Math.min(2, (await import('node:os')).availableParallelism()));
  const auto = await load();
  assert.equal(auto, await load({ threads: 'auto' }));  // once per thread count
  assert.equal(auto.threads, Math.min((await import('node:os')).availableParallelism(), 16));
  assert.equal((await load({ threads: 1000 })).threads, auto.threads);  // a number caps
  assert.throws(() => { one.threads = 3; }, TypeError);
});

test('load options: unknown keys and invalid thread counts are refused, naming them', () => {
  assert.throws(() => load({ thread: 2 }), (e) => e instanceof TypeError && /thread/.test(e.message) && /known: threads/.test(e.message));
  assert.throws(() => load({ threads: '2' }), (e) => e instanceof TypeError && /threads/.test(e.message));
  assert.throws(() => load({ threads: 0 }), (e) => e instanceof RangeError && /threads/.test(e.message));
  assert.throws(() => load({ threads: 1.5 }), (e) => e instanceof RangeError && /threads/.test(e.message));
  assert.throws(() => load({ threads: NaN }), (e) => e instanceof RangeError && /threads/.test(e.message));
  assert.throws(() => load(null), TypeError);
  assert.throws(() => load(2), TypeError);
});

test('attention: the same bytes from the 1- and 2-thread modules (GQA, causal, window, ALiBi, T5, weights, decode)', () => {
  const heads = 8, kvHeads = 2, headDim = 32, T = 500;
  const q = randomFloats(heads * T * headDim, 1), k = randomFloats(kvHeads * T * headDim, 2), v = randomFloats(kvHeads * T * headDim, 3);
  const base = { q, k, v, heads, kvHeads, headDim, qLen: T, kLen: T };
  const cases = [
    { causal: true, encoding: { kind: 'rope' } },
    { causal: true, window: 64, encoding: { kind: 'alibi', heads } },
    { causal: false, encoding: { kind: 't5', heads, table: randomFloats(32 * heads, 4) } },
    { causal: true, encoding: { kind: 'none' }, returnWeights: true },
  ];
  for (const c of cases) {
    const a = one.attention({ ...base, ...c }), b = two.attention({ ...base, ...c });
    assert.ok(sameBytes(a.out, b.out), JSON.stringify(c.encoding));
    if (c.returnWeights) assert.ok(sameBytes(a.weights, b.weights));
  }
  // decode: one query row per head over 5000 keys (the keys split into fixed chunks and merged)
  const kLen = 5000, kk = randomFloats(kvHeads * kLen * headDim, 5), vv = randomFloats(kvHeads * kLen * headDim, 6), qq = randomFloats(heads * headDim, 7);
  const dec = { q: qq, k: kk, v: vv, heads, kvHeads, headDim, qLen: 1, kLen, causal: true, encoding: { kind: 'rope' } };
  assert.ok(sameBytes(one.attention(dec).out, two.attention(dec).out));
});

test('KVCache.attend over a long cache and applyRope: the same bytes from the 1- and 2-thread modules', () => {
  const kvHeads = 2, headDim = 64, cached = 6000;
  const k = randomFloats(kvHeads * cached * headDim, 8), v = randomFloats(kvHeads * cached * headDim, 9);
  const outs = [one, two].map((pe) => {
    const cache = new pe.KVCache({ kvHeads, headDim, capacity: cached + 1, rope: {} });
    cache.append(k, v);
    const r = [2, 8].map((heads) => cache.attend(randomFloats(heads * headDim, 10 + heads), { heads }).out);
    cache.delete();
    return r;
  });
  for (let i = 0; i < 2; i++) assert.ok(sameBytes(outs[0][i], outs[1][i]));
  const x = randomFloats(8 * 2000 * 64, 11), positions = Int32Array.from({ length: 2000 }, (_, t) => 5 * t);
  for (const layout of ['half', 'interleaved'])
    assert.ok(sameBytes(one.applyRope(x, { heads: 8, tokens: 2000, headDim: 64 }, positions, { layout }), two.applyRope(x, { heads: 8, tokens: 2000, headDim: 64 }, positions, { layout })));
});

// A copy of the package's loader with only the given dist/ files, imported fresh (its own module state).
async function packageCopy(distFiles) {
  const { cpSync, mkdtempSync, mkdirSync, readdirSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { fileURLToPath, pathToFileURL } = await import('node:url');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'posenc-threads-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  mkdirSync(join(dir, 'bindings'));
  for (const f of readdirSync(join(root, 'bindings')).filter((f) => f.endsWith('.mjs'))) cpSync(join(root, 'bindings', f), join(dir, 'bindings', f));
  mkdirSync(join(dir, 'dist'));
  for (const f of distFiles) cpSync(join(root, 'dist', f), join(dir, 'dist', f));
  return { dir, module: await import(pathToFileURL(join(dir, 'bindings', 'posenc.mjs')).href) };
}
const SINGLE = ['posenc_wasm.mjs', 'posenc_wasm.wasm'];
const NODE_THREADED = ['posenc_wasm_threads_node.cjs', 'posenc_wasm_threads_node.worker.cjs', 'posenc_wasm_threads.wasm'];

test('a threaded module that cannot be loaded falls back to one thread with one console.warn naming the file and what threads need', async (t) => {
  const cores = (await import('node:os')).availableParallelism();
  if (cores < 2) return t.skip(`needs 2 cores to ask for threads (has ${cores})`);
  const warn = t.mock.method(console, 'warn', () => {});
  const { dir, module } = await packageCopy(SINGLE);
  try {
    const pe = await module.load();
    assert.equal(pe.threads, 1);
    assert.equal(warn.mock.callCount(), 1);
    const message = warn.mock.calls[0].arguments[0];
    assert.match(message, /^posenc: load\(\) could not load its threaded module \(.*posenc_wasm_threads_node.*\), so it runs on one thread \(pe\.threads is 1\)\./);
    assert.match(message, /Node >= 20\.16 and the package's dist\/posenc_wasm_threads_node\.cjs, dist\/posenc_wasm_threads_node\.worker\.cjs and dist\/posenc_wasm_threads\.wasm/);
    assert.match(message, /load\(\{ threads: 1 \}\) asks for one thread without this warning/);
    assert.equal(pe.alibiSlopes(2)[0], 0.0625);  // the single-thread module works
    // once: other thread counts fall back silently, and threads: 1 never tries
    for (const threads of [2, 3, 'auto', 1]) assert.equal((await module.load({ threads })).threads, 1);
    assert.equal(warn.mock.callCount(), 1);
  } finally {
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  }
});

test('the three files the warning names are what the threaded module needs in Node: with them, threads and no warning', async (t) => {
  const cores = (await import('node:os')).availableParallelism();
  if (cores < 2) return t.skip(`needs 2 cores to ask for threads (has ${cores})`);
  const warn = t.mock.method(console, 'warn', () => {});
  const { dir, module } = await packageCopy([...SINGLE, ...NODE_THREADED]);
  try {
    assert.equal((await module.load({ threads: 2 })).threads, 2);
    assert.equal(warn.mock.callCount(), 0);
  } finally {
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  }
});
