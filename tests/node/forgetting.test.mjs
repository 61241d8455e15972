// Forgetting attention (FoX, Lin et al. 2025) through the JS API: { kind: 'forgetting', logForget } in
// pe.attention (alone, with RoPE in an encoding array), the KV cache's forgetting mode (append with
// logForget, attend with { kind: 'forgetting' }), and refusals that name the field. The reference is the
// definition in float64: G = cumulative sum of the log gates over the keys (fla-org/flash-linear-attention
// fla/ops/forgetting_attn/naive.py:45), bias G_query − G_key (naive.py:51), the query's G its own token's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';

const pe = await load();
const rand = (n, seed, lo = -0.9, hi = 0.9) => Float32Array.from({ length: n }, (_, i) => lo + (hi - lo) * (0.5 + 0.5 * Math.sin(seed * 1000 + i * 12.9898)));
const maxDiff = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i])), 0);

// causal, queries at the last qLen key positions (0 … kLen−1); g [heads, kLen]
function reference({ q, k, v, heads, kvHeads, headDim: hd, qLen, kLen }, g) {
  const out = new Float64Array(heads * qLen * hd), scale = 1 / Math.sqrt(hd);
  for (let h = 0; h < heads; h++) {
    const kv = Math.floor(h / (heads / kvHeads)), G = [];
    for (let j = 0, s = 0; j < kLen; j++) G.push(s += g[h * kLen + j]);
    for (let i = 0; i < qLen; i++) {
      const own = kLen - qLen + i, logits = [];
      for (let j = 0; j <= own; j++) {
        let s = 0;
        for (let c = 0; c < hd; c++) s += q[(h * qLen + i) * hd + c] * k[(kv * kLen + j) * hd + c];
        logits.push(s * scale + G[own] - G[j]);
      }
      const m = Math.max(...logits), den = logits.reduce((a, s) => a + Math.exp(s - m), 0);
      logits.forEach((s, j) => {
        for (let c = 0; c < hd; c++) out[(h * qLen + i) * hd + c] += Math.exp(s - m) / den * v[(kv * kLen + j) * hd + c];
      });
    }
  }
  return out;
}

test('a hand-worked 3-token example', () => {
  // one head, headDim 1, q = k = 0 (no content), values 1, 2, 4; log gates −0.5, −1, −0.25, so
  // G = −0.5, −1.5, −1.75. Query at position 2: biases G2 − G0 = −1.25, G2 − G1 = −0.25, G2 − G2 = 0,
  // weights ∝ e^−1.25 = 0.2865048, e^−0.25 = 0.7788008, 1 (sum 2.0653056):
  // out = (0.2865048 + 2·0.7788008 + 4·1) / 2.0653056 = 5.8441064 / 2.0653056 = 2.8296567.
  // Query at position 1: biases −1, 0 (key 2 is after it): (e^−1 + 2) / (e^−1 + 1) = 2.3678794 / 1.3678794 = 1.7310586.
  const r = pe.attention({
    q: new Float32Array(2), k: new Float32Array(3), v: new Float32Array([1, 2, 4]), heads: 1, headDim: 1, qLen: 2, kLen: 3,
    causal: true, encoding: { kind: 'forgetting', logForget: new Float32Array([-0.5, -1, -0.25]) }, returnScores: true,
  });
  assert.ok(Math.abs(r.out[0] - 1.7310586) < 1e-6, `${r.out[0]}`);
  assert.ok(Math.abs(r.out[1] - 2.8296567) < 1e-6, `${r.out[1]}`);
  assert.deepEqual(Array.from(r.scores.slice(3)), [-1.25, -0.25, 0]);
});

test('pe.attention with forgetting equals the float64 definition (GQA 6 over 2, qLen != kLen); with RoPE in an array it adds to RoPE\'s logits', () => {
  const a = { heads: 6, kvHeads: 2, headDim: 8, qLen: 5, kLen: 17 };
  a.q = rand(a.heads * a.qLen * a.headDim, 1); a.k = rand(a.kvHeads * a.kLen * a.headDim, 2); a.v = rand(a.kvHeads * a.kLen * a.headDim, 3);
  const g = rand(a.heads * a.kLen, 4, -0.7, 0);
  const got = pe.attention({ ...a, causal: true, encoding: { kind: 'forgetting', logForget: g } }).out;
  assert.ok(maxDiff(got, reference(a, g)) < 2e-6, `${maxDiff(got, reference(a, g))}`);
  const rope = pe.attention({ ...a, causal: true, encoding: { kind: 'rope', base: 100 }, returnScores: true }).scores;
  const both = pe.attention({ ...a, causal: true, encoding: [{ kind: 'rope', base: 100 }, { kind: 'forgetting', logForget: g }], returnScores: true }).scores;
  let worst = 0;
  for (let h = 0; h < a.heads; h++) {
    const G = [];
    for (let j = 0, s = 0; j < a.kLen; j++) G.push(s += g[h * a.kLen + j]);
    for (let i = 0; i < a.qLen; i++) {
      const own = a.kLen - a.qLen + i;
      for (let j = 0; j <= own; j++) {
        const at = (h * a.qLen + i) * a.kLen + j;
        worst = Math.max(worst, Math.abs(both[at] - rope[at] - (G[own] - G[j])));
      }
    }
  }
  assert.ok(worst < 2e-6, `${worst}`);
});

test('the KV cache: forgetting: true, append with logForget, attend with { kind: forgetting }; one call, chunks and token by token agree', () => {
  const a = { heads: 4, kvHeads: 2, headDim: 8, qLen: 12, kLen: 12 };
  a.q = rand(a.heads * 12 * 8, 5); a.k = rand(2 * 12 * 8, 6); a.v = rand(2 * 12 * 8, 7);
  const g = rand(4 * 12, 8, -0.7, 0);
  const want = reference(a, g);
  const cols = (x, rows, t0, t1, width) => {  // [rows, 12, width] -> [rows, t1 - t0, width]
    const out = [];
    for (let r = 0; r < rows; r++) out.push(...x.slice((r * 12 + t0) * width, (r * 12 + t1) * width));
    return new Float32Array(out);
  };
  for (const pieces of [[12], [5, 1, 6], Array(12).fill(1)]) {
    const cache = new pe.KVCache({ kvHeads: 2, headDim: 8, capacity: 12, forgetting: true });
    let t0 = 0;
    for (const n of pieces) {
      cache.append(cols(a.k, 2, t0, t0 + n, 8), cols(a.v, 2, t0, t0 + n, 8), { logForget: cols(g, 4, t0, t0 + n, 1) });
      const out = cache.attend(cols(a.q, 4, t0, t0 + n, 8), { heads: 4, encoding: { kind: 'forgetting' } }).out;
      assert.ok(maxDiff(out, cols(want, 4, t0, t0 + n, 8)) < 2e-6, `pieces ${pieces}: ${maxDiff(out, cols(want, 4, t0, t0 + n, 8))}`);
      t0 += n;
    }
    cache.delete();
  }
});

test('refusals name the field: logForget type, length, values; the cache\'s mode', () => {
  const a = { q: rand(16, 1), k: rand(24, 2), v: rand(24, 3), heads: 2, headDim: 4, qLen: 2, kLen: 3, causal: true };
  const att = (encoding, extra = {}) => pe.attention({ ...a, ...extra, encoding });
  assert.throws(() => att({ kind: 'forgetting' }), (e) => e instanceof RangeError && /encoding\.logForget is required/.test(e.message));
  assert.throws(() => att({ kind: 'forgetting', logForget: new Float32Array(5) }), (e) => e instanceof RangeError && /encoding\.logForget must be \[heads, kLen\] = 6/.test(e.message));
  assert.throws(() => att({ kind: 'forgetting', logForget: new Float32Array([0, 0, 0, 0.1, 0, 0]) }), (e) => e instanceof RangeError && /encoding\.logForget\[3\]/.test(e.message));
  assert.throws(() => att({ kind: 'forgetting', logForget: new Float32Array([0, 0, NaN, 0, 0, 0]) }), (e) => e instanceof RangeError && /encoding\.logForget\[2\]/.test(e.message));
  assert.throws(() => att({ kind: 'forgetting', logForget: 'gates' }), (e) => e instanceof TypeError && /logForget/.test(e.message));
  assert.throws(() => att({ kind: 'forgetting', logForgt: new Float32Array(6) }), (e) => e instanceof TypeError && /logForgt/.test(e.message) && /logForget/.test(e.message));
  assert.throws(() => att({ kind: 'forgetting', logForget: new Float32Array(6) }, { causal: false }), (e) => e instanceof RangeError && /causal must be true/.test(e.message));

  const cache = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 4, forgetting: true });
  const k = rand(8, 4), v = rand(8, 5);
  assert.throws(() => cache.append(k, v), (e) => e instanceof RangeError && /logForget is required/.test(e.message));
  assert.throws(() => cache.append(k, v, { logForget: new Float32Array(3) }), (e) => e instanceof RangeError && /logForget must be \[batch, heads, T\]/.test(e.message));
  assert.throws(() => cache.append(k, v, { logForget: new Float32Array([0, 0.5]) }), (e) => e instanceof RangeError && /logForget\[1\]/.test(e.message));
  assert.deepEqual(Array.from(cache.positions()), [-1, -1, -1, -1]);  // nothing appended by the failed calls
  cache.append(k, v, { logForget: new Float32Array([-0.1, -0.2, -0.3, -0.4]) });  // 2 heads of gates over 1 kv head
  assert.throws(() => cache.attend(rand(8, 6), { heads: 2, encoding: { kind: 'forgetting', logForget: new Float32Array(4) } }),
    (e) => e instanceof RangeError && /logForget is not given to attend/.test(e.message));
  assert.throws(() => cache.attend(rand(4, 6), { heads: 1, encoding: { kind: 'forgetting' } }), (e) => e instanceof RangeError && /heads \(1\) must equal/.test(e.message));
  assert.equal(cache.attend(rand(8, 6), { heads: 2, encoding: { kind: 'forgetting' } }).out.length, 8);
  cache.delete();
  const plain = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 4 });
  assert.throws(() => plain.append(k, v, { logForget: new Float32Array(2) }), (e) => e instanceof RangeError && /created without forgetting/.test(e.message));
  plain.append(k, v);
  assert.throws(() => plain.attend(rand(4, 6), { heads: 1, encoding: { kind: 'forgetting' } }), (e) => e instanceof RangeError && /forgetting: true/.test(e.message));
  plain.delete();
});
