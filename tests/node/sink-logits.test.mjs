// Sink logits through the JS API (issue 33): pe.attention and cache.attend take `sinkLogits` [heads],
// gpt-oss's learned per-head logits (transformers' modeling_gpt_oss.py: softmax(cat(scores, sinks))[..., :-1]);
// results against that definition in float64, and the refusals name the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';

const pe = await load();

// q [heads, qLen, hd], k/v [kvHeads, kLen, hd], causal with queries at the last qLen positions
function reference({ q, k, v, heads, kvHeads, headDim: hd, qLen, kLen }, sinks) {
  const out = new Float64Array(heads * qLen * hd), weights = new Float64Array(heads * qLen * kLen);
  const scale = 1 / Math.sqrt(hd);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kvHeads));
    for (let i = 0; i < qLen; i++) {
      const qPos = kLen - qLen + i, logits = [];
      let m = sinks[h];
      for (let j = 0; j <= qPos; j++) {
        let s = 0;
        for (let c = 0; c < hd; c++) s += q[(h * qLen + i) * hd + c] * k[(g * kLen + j) * hd + c];
        logits.push(s * scale);
        m = Math.max(m, s * scale);
      }
      const den = logits.reduce((a, s) => a + Math.exp(s - m), Math.exp(sinks[h] - m));
      logits.forEach((s, j) => {
        const w = Math.exp(s - m) / den;
        weights[(h * qLen + i) * kLen + j] = w;
        for (let c = 0; c < hd; c++) out[(h * qLen + i) * hd + c] += w * v[(g * kLen + j) * hd + c];
      });
    }
  }
  return { out, weights };
}

const rand = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i * 12.9898) * 0.9);
const maxDiff = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i])), 0);

test('attention with sinkLogits equals the gpt-oss definition; weights sum to less than 1', () => {
  const heads = 4, kvHeads = 2, headDim = 12, qLen = 3, kLen = 9;
  const args = { q: rand(heads * qLen * headDim, 1), k: rand(kvHeads * kLen * headDim, 2), v: rand(kvHeads * kLen * headDim, 3), heads, kvHeads, headDim, qLen, kLen, causal: true };
  const sinkLogits = new Float32Array([-1, 0.5, 2, 6]);
  const want = reference(args, sinkLogits);
  const got = pe.attention({ ...args, sinkLogits, returnWeights: true });
  assert.ok(maxDiff(got.out, want.out) < 2e-6, `out differs by ${maxDiff(got.out, want.out)}`);
  assert.ok(maxDiff(got.weights, want.weights) < 2e-7, `weights differ by ${maxDiff(got.weights, want.weights)}`);
  const rowSum = got.weights.slice(0, kLen).reduce((a, w) => a + w, 0);
  assert.ok(rowSum < 1 && Math.abs(rowSum - want.weights.slice(0, kLen).reduce((a, w) => a + w, 0)) < 1e-6);
  // the cache attends the same way
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: 16 });
  cache.append(args.k, args.v);
  const last = args.q.filter((_, x) => Math.floor(x / headDim) % qLen === qLen - 1);  // each head's last query
  const viaCache = cache.attend(last, { heads, sinkLogits }).out;
  const direct = pe.attention({ ...args, q: last, qLen: 1, sinkLogits }).out;
  assert.deepEqual(viaCache, direct);
  cache.delete();
});

test('sinkLogits: wrong length, wrong type or non-finite is refused by name; the cache stays as it was', () => {
  const args = { q: rand(8, 1), k: rand(8, 2), v: rand(8, 3), heads: 2, kvHeads: 1, headDim: 4, qLen: 1, kLen: 2 };
  assert.throws(() => pe.attention({ ...args, sinkLogits: new Float32Array(3) }), { name: 'RangeError', message: 'sinkLogits must have one logit per query head: heads = 2 (got 3)' });
  assert.throws(() => pe.attention({ ...args, sinkLogits: new Float32Array([0, NaN]) }), { name: 'RangeError', message: 'sinkLogits[1] must be finite (got NaN)' });
  assert.throws(() => pe.attention({ ...args, sinkLogits: 'x' }), { name: 'TypeError', message: /sinkLogits/ });
  const cache = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 4 });
  cache.append(rand(8, 4), rand(8, 5));
  const before = [cache.positions(), cache.nextPositions()];
  assert.throws(() => cache.attend(rand(8, 6), { heads: 2, sinkLogits: new Float32Array(1) }), { name: 'RangeError', message: /^sinkLogits must have one logit per query head/ });
  assert.deepEqual([cache.positions(), cache.nextPositions()], before);
  cache.delete();
});
