// pe.KVCache through the package: positions are data, slots are not positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats } from './helpers.mjs';

const pe = await load();
const kvHeads = 2, heads = 4, headDim = 8;
const rope = { partialRotaryFactor: 0.5, base: 10000 };

// token t of a [H, T, d] tensor
const token = (x, H, T, t) => {
  const out = new Float32Array(H * headDim);
  for (let h = 0; h < H; h++) out.set(x.subarray((h * T + t) * headDim, (h * T + t + 1) * headDim), h * headDim);
  return out;
};
const pick = (x, H, T, tokens) => {
  const out = new Float32Array(H * tokens.length * headDim);
  let o = 0;
  for (let h = 0; h < H; h++) for (const t of tokens) { out.set(x.subarray((h * T + t) * headDim, (h * T + t + 1) * headDim), o); o += headDim; }
  return out;
};
const concat = (...xs) => { const out = new Float32Array(xs.reduce((n, x) => n + x.length, 0)); let o = 0; for (const x of xs) { out.set(x, o); o += x.length; } return out; };

test('decoding token by token equals pe.attention over the sequence; batch 2 with left padding; RoPE and ALiBi', () => {
  const T = 10, pad = [0, 4];
  const seq = [0, 1].map((b) => ({ k: randomFloats(kvHeads * T * headDim, 10 + b), v: randomFloats(kvHeads * T * headDim, 20 + b), q: randomFloats(heads * T * headDim, 30 + b) }));
  for (const setup of [{ cache: { rope }, attend: { kind: 'none' }, ref: { kind: 'rope', ...rope } }, { cache: {}, attend: { kind: 'alibi', heads }, ref: { kind: 'alibi', heads } }]) {
    const cache = new pe.KVCache({ batch: 2, kvHeads, headDim, capacity: T, ...setup.cache });
    for (let t = 0; t < T; t++) {
      const mask = [1, t >= pad[1] ? 1 : 0];
      cache.append(concat(token(seq[0].k, kvHeads, T, t), token(seq[1].k, kvHeads, T, t)),
        concat(token(seq[0].v, kvHeads, T, t), token(seq[1].v, kvHeads, T, t)), { mask });
      const { out } = cache.attend(concat(token(seq[0].q, heads, T, t), token(seq[1].q, heads, T, t)), { heads, encoding: setup.attend });
      for (const b of [0, 1]) {
        if (t < pad[b]) continue;
        const keys = Array.from({ length: t - pad[b] + 1 }, (_, i) => pad[b] + i);
        const want = pe.attention({ q: token(seq[b].q, heads, T, t), k: pick(seq[b].k, kvHeads, T, keys), v: pick(seq[b].v, kvHeads, T, keys),
          heads, kvHeads, headDim, qLen: 1, kLen: keys.length, qPositions: [t - pad[b]], kPositions: keys.map((k) => k - pad[b]), causal: true, encoding: setup.ref }).out;
        assert.ok(maxAbsDiff(out.subarray(b * heads * headDim, (b + 1) * heads * headDim), want) < 1e-5, `${setup.ref.kind} step ${t} row ${b}`);
      }
    }
    assert.deepEqual(Array.from(cache.nextPositions()), [T, T - pad[1]]);
    cache.delete();
  }
});

test('a new token after 100 cached tokens with a 20-slot window is position 100, not 20', () => {
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: 20, window: 20, rope });
  const T = 100;
  cache.append(randomFloats(kvHeads * T * headDim, 1), randomFloats(kvHeads * T * headDim, 2));
  assert.deepEqual(Array.from(cache.nextPositions()), [100]);
  assert.deepEqual(Array.from(cache.positions()).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => 80 + i));
  cache.append(randomFloats(kvHeads * headDim, 3), randomFloats(kvHeads * headDim, 4));
  assert.ok(Array.from(cache.positions()).includes(100));
  assert.deepEqual(Array.from(cache.nextPositions()), [101]);
  cache[Symbol.dispose]();
  assert.throws(() => cache.positions(), /deleted/);
});

test('shift and renumber re-rotate: attend equals pe.attention with keys rotated at the new positions', () => {
  const T = 6;
  const k = randomFloats(kvHeads * T * headDim, 5), v = randomFloats(kvHeads * T * headDim, 6), q = randomFloats(heads * headDim, 7);
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: 8, rope, sinks: 0 });
  cache.append(k, v);
  cache.shift(1000);
  const np = cache.positions();
  np[3] = 5;  // and move one token elsewhere
  cache.renumber(np);
  const positions = Array.from(cache.positions()).slice(0, T);
  const got = cache.attend(q, { heads, qPositions: [2000] }).out;
  const want = pe.attention({ q, k, v, heads, kvHeads, headDim, qLen: 1, kLen: T, qPositions: [2000], kPositions: positions, causal: true, encoding: { kind: 'rope', ...rope } }).out;
  assert.ok(maxAbsDiff(got, want) < 1e-5);
  assert.deepEqual(Array.from(cache.nextPositions()), [1006]);
});

test('failed calls throw clear errors and leave the cache unchanged', () => {
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: 4, rope });
  const k = randomFloats(kvHeads * 3 * headDim, 8), v = randomFloats(kvHeads * 3 * headDim, 9), q = randomFloats(heads * headDim, 10);
  cache.append(k, v);
  const snapshot = () => ({ p: Array.from(cache.positions()), n: Array.from(cache.nextPositions()), o: Array.from(cache.attend(q, { heads }).out) });
  const before = snapshot();
  const cases = [
    [() => cache.append(k, v), RangeError, /capacity/],
    [() => cache.append(k.subarray(1), v), RangeError, /^k must/],
    [() => cache.append(token(k, kvHeads, 3, 0), token(v, kvHeads, 3, 0).subarray(1)), RangeError, /^v must/],
    [() => cache.append(token(k, kvHeads, 3, 0), token(v, kvHeads, 3, 0), { positions: [-1] }), RangeError, /positions\[0\]/],
    [() => cache.append(token(k, kvHeads, 3, 0), token(v, kvHeads, 3, 0), { mask: [3] }), RangeError, /mask\[0\]/],
    [() => cache.append('k', v), TypeError, /^k /],
    [() => cache.shift(-5), RangeError, /delta/],
    [() => cache.shift(0.5), RangeError, /delta/],
    [() => cache.renumber([0, 1, 2, 7]), RangeError, /newPositions\[3\]/],
    [() => cache.renumber([0, 1]), RangeError, /newPositions/],
    [() => cache.attend(q, { heads: 3 }), RangeError, /heads/],
    [() => cache.attend(q, { heads, encoding: { kind: 'rope' } }), RangeError, /rope/],
    [() => new pe.KVCache({ kvHeads, headDim, capacity: 4, window: 8 }), RangeError, /capacity/],
    [() => new pe.KVCache({ kvHeads, headDim: 7, capacity: 4, rope: {} }), RangeError, /rotaryDim/],
    [() => new pe.KVCache({ kvHeads, headDim, capacity: 2 ** 30 }), RangeError, /capacity/],
  ];
  for (const [fn, type, re] of cases) {
    assert.throws(fn, (e) => e instanceof type && re.test(e.message), re.source);
    assert.deepEqual(snapshot(), before);
  }
  cache.append(token(k, kvHeads, 3, 0), token(v, kvHeads, 3, 0));
  assert.deepEqual(Array.from(cache.nextPositions()), [4]);
  cache.delete();
});
