// The wasm heap up to its 4 GiB limit, in the single-thread and the threaded module: buffers, caches,
// requests, answers and error messages placed past 2 GiB (addresses a signed 32-bit read turns
// negative), and a heap filled until a request is refused. Results are compared with the same
// computation done before the heap grew (bit for bit) and with a float64 reference.
// Filler buffers are never written, so the 4 GiB cost address space, not resident memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats } from './helpers.mjs';

const MiB = 2 ** 20, TWO_GIB = 2 ** 31, FOUR_GIB = 2 ** 32, HEAP_MAX = FOUR_GIB - 65536;  // the module's maximum memory
const D = 32, KVH = 2, H = 4, T = 257;
const k = randomFloats(KVH * T * D, 1), v = randomFloats(KVH * T * D, 2), q = randomFloats(H * D, 3);
const x = randomFloats(H * T * D, 4), positions = Int32Array.from({ length: T }, (_, i) => 3 * i + 1);
const attn = { heads: H, kvHeads: KVH, headDim: D, qLen: 1, kLen: T, causal: true, encoding: { kind: 'rope' } };

// float64 attention of one query row per head over every key (the cache's last position sees all).
function attention64(q, k, v) {
  const out = new Float64Array(H * D), s = new Float64Array(T);
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / (H / KVH));
    let max = -Infinity, sum = 0;
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let c = 0; c < D; c++) dot += q[h * D + c] * k[(g * T + j) * D + c];
      s[j] = dot / Math.sqrt(D);
      max = Math.max(max, s[j]);
    }
    for (let j = 0; j < T; j++) sum += (s[j] = Math.exp(s[j] - max));
    for (let j = 0; j < T; j++) for (let c = 0; c < D; c++) out[h * D + c] += (s[j] / sum) * v[(g * T + j) * D + c];
  }
  return out;
}

const sameBytes = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

// A buffer's offset read as the unsigned address it is, and the view over it.
function placedHigh(buf, what) {
  const at = buf.byteOffset;
  assert.ok(Number.isInteger(at) && at >= TWO_GIB && at + 4 * buf.length <= FOUR_GIB, `${what}: byteOffset ${at} is not an address past 2 GiB`);
  const view = buf.view();
  assert.equal(view.byteOffset, at, `${what}: view().byteOffset`);
  assert.equal(view.length, buf.length, `${what}: view().length`);
  return buf;
}

// Grows the heap past 2 GiB with untouched fillers, then takes every free piece left below 2 GiB
// (down to 16 bytes): the allocator serves a request from the lowest-addressed free chunk that fits
// before it extends the heap, so once a request of n bytes lands high, no free chunk of n bytes is left low.
function pushPast2GiB(pe) {
  const held = [];
  for (let i = 0; i < 9; i++) held.push(pe.alloc(64 * MiB));  // 9 x 256 MiB
  for (const bytes of [MiB, 64 * 1024, 4096, 256, 16])
    for (;;) {
      const b = pe.alloc(bytes / 4);
      held.push(b);
      assert.ok(b.byteOffset >= 0, `pe.alloc(${bytes / 4}).byteOffset = ${b.byteOffset}: a heap address read as signed`);
      if (b.byteOffset >= TWO_GIB) break;
    }
  return held;
}

const modules = [1, 2];
for (const threads of modules) {
  test(`${threads}-thread module: buffers, caches, requests and errors past 2 GiB give the results of a small heap`, async (t) => {
    const pe = await load({ threads });
    if (pe.threads !== threads) return t.skip(`needs ${threads} cores`);

    // the same computations in the small heap of a fresh module
    const small = new pe.KVCache({ kvHeads: KVH, headDim: D, capacity: T });
    small.append(k, v);
    const refAttend = small.attend(q, { heads: H }).out, refPositions = small.positions();
    small.delete();
    assert.ok(maxAbsDiff(refAttend, attention64(q, k, v)) < 1e-5, 'the cache against float64');
    const refAttention = pe.attention({ q, k, v, ...attn }).out;
    const refRope = pe.applyRope(x, { heads: H, tokens: T, headDim: D }, positions, { base: 500000 });
    const refFreq = pe.ropeFrequencies({ headDim: 64, base: 500000 }).invFreq;
    assert.ok(pe.heapBytes() < TWO_GIB);

    const held = pushPast2GiB(pe);
    assert.ok(pe.heapBytes() > TWO_GIB);

    // buffers past 2 GiB: view, write, read back
    const [kb, vb, qb, ob, xb] = [k, v, q, q, x].map((a, i) => placedHigh(pe.alloc(a.length), `buffer ${i}`));
    kb.view().set(k), vb.view().set(v), qb.view().set(q), xb.view().set(x);
    assert.ok(sameBytes(kb.view(), k) && sameBytes(xb.view(), x));

    // error messages written past 2 GiB (the first long message of this module) name their field
    assert.throws(() => new pe.KVCache({ kvHeads: KVH, headDim: D, capacity: 0 }), (e) => e instanceof RangeError && /^capacity/.test(e.message));

    // caches whose storage lies past 2 GiB: from buffers and from copies; append, attend, positions, out
    const fromBuffers = new pe.KVCache({ kvHeads: KVH, headDim: D, capacity: T });
    const fromArrays = new pe.KVCache({ kvHeads: KVH, headDim: D, capacity: T });
    fromBuffers.append(kb, vb);
    fromArrays.append(k, v);
    assert.equal(fromBuffers.attend(qb, { heads: H, out: ob }).out, ob);
    assert.ok(sameBytes(ob.view(), refAttend), 'attend into a buffer past 2 GiB');
    assert.ok(sameBytes(fromArrays.attend(q, { heads: H }).out, refAttend), 'attend from copies');
    const outArray = new Float32Array(q.length);
    assert.equal(fromArrays.attend(qb, { heads: H, out: outArray }).out, outArray);
    assert.ok(sameBytes(outArray, refAttend), 'attend into a Float32Array');
    assert.deepEqual(fromBuffers.positions(), refPositions);
    assert.throws(() => fromArrays.attend(q, { heads: 3 }), (e) => e instanceof RangeError && /heads/.test(e.message));
    assert.ok(sameBytes(fromArrays.attend(q, { heads: H }).out, refAttend), 'a refused attend changes nothing');

    // attention and applyRope on buffers past 2 GiB
    assert.ok(sameBytes(pe.attention({ ...attn, q: qb, k: kb, v: vb }).out, refAttention), 'attention on buffers');
    assert.ok(sameBytes(pe.attention({ ...attn, q, k, v, out: ob }).out.view(), refAttention), 'attention out: a buffer');
    assert.equal(pe.applyRope(xb, { heads: H, tokens: T, headDim: D }, positions, { base: 500000, inPlace: true }), xb);
    assert.ok(sameBytes(xb.view(), refRope), 'applyRope in place');

    // a request text too long for the request buffer made at load: its new buffer lies past 2 GiB
    const cfg = pe.ropeConfigFromHF({ rope_theta: 500000, head_dim: 64, hidden_size: 256, num_attention_heads: 4, notes: 'x'.repeat(200000) });
    assert.equal(cfg.base, 500000);
    assert.ok(sameBytes(pe.ropeFrequencies({ headDim: 64, base: 500000 }).invFreq, refFreq), 'a call after the request buffer moved');
    assert.ok(sameBytes(fromArrays.attend(q, { heads: H }).out, refAttend));

    for (const c of [fromBuffers, fromArrays]) c.delete();
    for (const b of [kb, vb, qb, ob, xb, ...held]) b.delete();
    assert.ok(sameBytes(pe.attention({ q, k, v, ...attn }).out, refAttention), 'after everything is freed');
  });

  test(`${threads}-thread module: a heap filled to 4 GiB refuses with the bytes needed and free, then gives correct results`, async (t) => {
    const pe = await load({ threads });
    if (pe.threads !== threads) return t.skip(`needs ${threads} cores`);
    const refAttention = pe.attention({ q, k, v, ...attn }).out;
    const cache = new pe.KVCache({ kvHeads: KVH, headDim: D, capacity: 2 * T });
    cache.append(k, v);
    const refAttend = cache.attend(q, { heads: H }).out, refPositions = cache.positions();

    // fill: 256 MiB pieces until one is refused
    const held = [];
    let refusal;
    for (let i = 0; i < 20 && !refusal; i++) {
      try { held.push(pe.alloc(64 * MiB)); } catch (e) { refusal = e; }
    }
    assert.ok(refusal instanceof RangeError, `the heap never refused a 256 MiB buffer (${held.length} held)`);
    assert.ok(held.length >= 14, `refused after ${held.length} x 256 MiB: the heap should reach 4 GiB`);
    assert.match(refusal.message, /^length /);
    const r = bytesIn(refusal.message);
    assert.equal(r.needed, 256 * MiB, refusal.message);
    assert.equal(r.grow, HEAP_MAX - pe.heapBytes(), refusal.message);
    assert.ok(r.free <= pe.heapBytes(), refusal.message);

    // a call whose result the heap cannot hold: weights [1, 16384, 16384] = 1 GiB, refused by the core
    const n = 16384, small = randomFloats(n * 8, 5);
    const big = { q: small, k: small, v: small, heads: 1, headDim: 8, qLen: n, kLen: n, returnWeights: true };
    assert.throws(() => pe.attention(big), (e) => {
      assert.ok(e instanceof RangeError, `${e.constructor.name}: ${e.message}`);
      const r = bytesIn(e.message);
      assert.ok(r.needed >= 2 ** 30 && r.grow === HEAP_MAX - pe.heapBytes() && r.free + r.grow < r.needed, e.message);
      return true;
    });
    // a cache append the heap cannot hold (copying 64 MiB of keys in) changes nothing
    const fill2 = [];
    try { for (;;) fill2.push(pe.alloc(MiB)); } catch (e) { assert.ok(e instanceof RangeError && bytesIn(e.message).needed === 4 * MiB, e.message); }
    const bigK = new Float32Array(16 * MiB);  // [1, kvHeads, 262144, headDim]: 64 MiB
    assert.throws(() => cache.append(bigK, bigK), (e) => e instanceof RangeError && /^k /.test(e.message) && bytesIn(e.message).needed === bigK.byteLength);
    assert.deepEqual(cache.positions(), refPositions);

    // small calls still work while the heap is full, and after it is freed
    for (const b of fill2.splice(0, 8)) b.delete();
    assert.ok(sameBytes(pe.attention({ q, k, v, ...attn }).out, refAttention), 'attention with the heap nearly full');
    assert.ok(sameBytes(cache.attend(q, { heads: H }).out, refAttend), 'attend with the heap nearly full');
    for (const b of [...held, ...fill2]) b.delete();
    assert.ok(sameBytes(pe.attention({ q, k, v, ...attn }).out, refAttention), 'attention after freeing');
    cache.append(k.subarray(0, KVH * D), v.subarray(0, KVH * D));
    const after = cache.positions();
    assert.equal(after.filter((p) => p >= 0).length, T + 1);
    assert.ok(sameBytes(cache.attend(q, { heads: H, qPositions: [T - 1] }).out, refAttend), 'attend after freeing');
    cache.delete();
  });
}

// The byte counts a refusal states: needed, free in the heap (in pieces), and what the heap can still grow.
function bytesIn(message) {
  const m = /needs (\d+) bytes.* (\d+) bytes free .*grow by (\d+) bytes/.exec(message);
  assert.ok(m, `the refusal states the bytes needed, free and still to grow: ${message}`);
  return { needed: Number(m[1]), free: Number(m[2]), grow: Number(m[3]) };
}
