// Stick-breaking attention through the JS API (issue 36, item 2): encoding { kind: 'stickBreaking' }.
// Reference: flash-linear-attention fla/ops/stickbreaking_attn/naive.py (naive_stickbreaking_attn,
// lines 63-68): mask j < i (j <= i with attend_current); log A_ij = logsigmoid(z_ij) + the sum of
// logsigmoid(-z_il) over the visible l after j; no softmax, rows sum to at most 1. Written below in
// float64; a hand-worked case; the KV cache; the errors naming the option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';

const pe = await load();

const logSigmoid = (z) => (z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z)));
// q [heads, qLen, hd], k/v [kvHeads, kLen, hd]; queries at the last qLen positions; causal
function reference({ q, k, v, heads, kvHeads, headDim: hd, qLen, kLen, scale = 1 / Math.sqrt(hd) }, attendCurrent = false) {
  const out = new Float64Array(heads * qLen * hd), weights = new Float64Array(heads * qLen * kLen);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kvHeads));
    for (let i = 0; i < qLen; i++) {
      const qPos = kLen - qLen + i, seen = attendCurrent ? qPos + 1 : qPos;  // keys 0 .. seen-1
      const z = [];
      for (let j = 0; j < seen; j++) {
        let s = 0;
        for (let c = 0; c < hd; c++) s += q[(h * qLen + i) * hd + c] * k[(g * kLen + j) * hd + c];
        z.push(s * scale);
      }
      let after = 0;  // sum of logsigmoid(-z_l) over l > j
      for (let j = seen - 1; j >= 0; j--) {
        const w = Math.exp(logSigmoid(z[j]) + after);
        after += logSigmoid(-z[j]);
        weights[(h * qLen + i) * kLen + j] = w;
        for (let c = 0; c < hd; c++) out[(h * qLen + i) * hd + c] += w * v[(g * kLen + j) * hd + c];
      }
    }
  }
  return { out, weights };
}

const rand = (n, seed, a = 0.9) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i * 12.9898) * a);
const maxDiff = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i])), 0);

// Hand-worked: headDim 1, scale 1, q = 1, so z_ij = k_j; k = (ln 3, 0, −ln 3): σ(z) = (3/4, 1/2, 1/4); v = (1, 10, 100).
// Query i sees keys j < i: query 0 nothing (0); query 1: A_10 = 3/4 (0.75);
// query 2: A_21 = σ(0) = 1/2, A_20 = σ(ln 3)·(1 − σ(0)) = 3/8 -> 3/8 + 10/2 = 5.375.
// attendCurrent (j <= i): query 0: A_00 = 3/4 (0.75); query 1: A_11 = 1/2, A_10 = 3/4·1/2 = 3/8 (5.375);
// query 2: A_22 = 1/4, A_21 = 1/2·3/4 = 3/8, A_20 = 3/4·1/2·3/4 = 9/32 -> 9/32 + 30/8 + 100/4 = 29.03125.
// Softmax over the same logits, for contrast: query 2 (all three keys) 9/13, 3/13, 1/13.
test('stickBreaking: the hand-worked three-token case', () => {
  const args = { q: new Float32Array([1, 1, 1]), k: new Float32Array([Math.log(3), 0, -Math.log(3)]), v: new Float32Array([1, 10, 100]),
    heads: 1, headDim: 1, qLen: 3, kLen: 3, causal: true, scale: 1, returnWeights: true };
  const close = (got, want) => want.forEach((w, x) => assert.ok(Math.abs(got[x] - w) < 1e-6 * (1 + Math.abs(w)), `${x}: ${got[x]} vs ${w}`));
  let r = pe.attention({ ...args, encoding: { kind: 'stickBreaking' } });
  close(r.out, [0, 0.75, 5.375]);
  close(r.weights, [0, 0, 0, 0.75, 0, 0, 3 / 8, 1 / 2, 0]);
  r = pe.attention({ ...args, encoding: { kind: 'stickBreaking', attendCurrent: true } });
  close(r.out, [0.75, 5.375, 29.03125]);
  close(r.weights, [3 / 4, 0, 0, 3 / 8, 1 / 2, 0, 9 / 32, 3 / 8, 1 / 4]);
  r = pe.attention({ ...args, encoding: { kind: 'none' } });
  close(r.weights.slice(6), [9 / 13, 3 / 13, 1 / 13]);
});

test('stickBreaking equals the fla reference in float64 (GQA, qLen != kLen); weights sum to at most 1', () => {
  const heads = 6, kvHeads = 2, headDim = 12, qLen = 5, kLen = 80;
  const args = { q: rand(heads * qLen * headDim, 1, 2.5), k: rand(kvHeads * kLen * headDim, 2), v: rand(kvHeads * kLen * headDim, 3), heads, kvHeads, headDim, qLen, kLen, causal: true };
  for (const attendCurrent of [false, true]) {
    const want = reference(args, attendCurrent);
    const got = pe.attention({ ...args, encoding: { kind: 'stickBreaking', attendCurrent }, returnWeights: true });
    assert.ok(maxDiff(got.out, want.out) < 2e-6, `out differs by ${maxDiff(got.out, want.out)}`);
    assert.ok(maxDiff(got.weights, want.weights) < 2e-7, `weights differ by ${maxDiff(got.weights, want.weights)}`);
    for (let row = 0; row < heads * qLen; row++) {
      const sum = got.weights.slice(row * kLen, (row + 1) * kLen).reduce((a, w) => a + w, 0);
      assert.ok(sum <= 1 + 1e-6 && sum > 0, `row ${row} sums to ${sum}`);
    }
  }
});

test('stickBreaking in the KV cache: token by token equals one attention call', () => {
  const heads = 4, kvHeads = 2, headDim = 8, T = 20;
  const args = { q: rand(heads * T * headDim, 4), k: rand(kvHeads * T * headDim, 5), v: rand(kvHeads * T * headDim, 6), heads, kvHeads, headDim, qLen: T, kLen: T, causal: true };
  const encoding = { kind: 'stickBreaking' };
  const want = pe.attention({ ...args, encoding }).out;
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: T });
  const pick = (x, rows, t) => Float32Array.from({ length: rows * headDim }, (_, n) => x[(Math.floor(n / headDim) * T + t) * headDim + (n % headDim)]);
  for (let t = 0; t < T; t++) {
    cache.append(pick(args.k, kvHeads, t), pick(args.v, kvHeads, t));
    const out = cache.attend(pick(args.q, heads, t), { heads, encoding }).out;
    for (let h = 0; h < heads; h++)
      for (let c = 0; c < headDim; c++) assert.ok(Math.abs(out[h * headDim + c] - want[(h * T + t) * headDim + c]) < 1e-6, `t ${t} head ${h}`);
  }
  cache.delete();
});

// A windowed cache keeps the sinks and the last `window` tokens in a ring whose slots leave token order once
// it wraps: the stick must break over exactly those keys in the order they came (the reference above on
// the kept keys, at their positions), token by token and in chunks.
test('stickBreaking over a windowed KV cache (window 7, 0 and 2 sinks): the kept keys in token order, the fla reference', () => {
  const heads = 4, kvHeads = 2, headDim = 8, T = 30, window = 7;
  const q = rand(heads * T * headDim, 7, 1.5), k = rand(kvHeads * T * headDim, 8, 1.5), v = rand(kvHeads * T * headDim, 9);
  const rows = (x, H, t0, n) => Float32Array.from({ length: H * n * headDim }, (_, e) => {
    const h = Math.floor(e / (n * headDim)), t = Math.floor(e / headDim) % n;
    return x[(h * T + t0 + t) * headDim + (e % headDim)];
  });
  for (const sinks of [0, 2]) {
    for (const step of [1, 5, T]) {
      const cache = new pe.KVCache({ kvHeads, headDim, capacity: sinks + window, window, sinks });
      let worst = 0;
      for (let t0 = 0; t0 < T; t0 += step) {
        const n = Math.min(step, T - t0);
        cache.append(rows(k, kvHeads, t0, n), rows(v, kvHeads, t0, n));
        const out = cache.attend(rows(q, heads, t0, n), { heads, encoding: { kind: 'stickBreaking' } }).out;
        for (let t = 0; t < n; t++) {
          const i = t0 + t, kept = [];
          for (let j = 0; j <= i; j++) if (j < sinks || j > i - window) kept.push(j);  // the query's own key is dropped by the reference (j < i)
          const m = kept.length, qi = Float32Array.from({ length: heads * headDim }, (_, e) => q[(Math.floor(e / headDim) * T + i) * headDim + (e % headDim)]);
          const pick = (x) => Float32Array.from({ length: kvHeads * m * headDim }, (_, e) => {
            const h = Math.floor(e / (m * headDim)), r = Math.floor(e / headDim) % m;
            return x[(h * T + kept[r]) * headDim + (e % headDim)];
          });
          const want = reference({ q: qi, k: pick(k), v: pick(v), heads, kvHeads, headDim, qLen: 1, kLen: m }).out;
          for (let h = 0; h < heads; h++)
            for (let c = 0; c < headDim; c++) worst = Math.max(worst, Math.abs(out[(h * n + t) * headDim + c] - want[h * headDim + c]));
        }
      }
      cache.delete();
      assert.ok(worst < 2e-6, `sinks ${sinks}, ${step} at a time: worst |Δ| ${worst}`);
    }
  }
});

test('stickBreaking: non-causal, sinkLogits and unknown keys are refused by name; the cache stays as it was', () => {
  const args = { q: rand(8, 1), k: rand(8, 2), v: rand(8, 3), heads: 2, kvHeads: 1, headDim: 4, qLen: 1, kLen: 2, encoding: { kind: 'stickBreaking' } };
  assert.throws(() => pe.attention(args), (e) => e instanceof RangeError && /causal/.test(e.message));
  assert.throws(() => pe.attention({ ...args, causal: true, sinkLogits: new Float32Array([0, 1]) }), (e) => e instanceof RangeError && /sinkLogits/.test(e.message));
  assert.throws(() => pe.attention({ ...args, causal: true, encoding: [{ kind: 'stickBreaking' }, { kind: 'stickBreaking' }] }),
    (e) => e instanceof RangeError && /stickBreaking/.test(e.message));
  assert.throws(() => pe.attention({ ...args, causal: true, encoding: { kind: 'stickBreaking', attendCurent: true } }),
    (e) => e instanceof TypeError && /attendCurent/.test(e.message));
  assert.throws(() => pe.attention({ ...args, causal: true, encoding: { kind: 'stickBreaking', attendCurrent: 1 } }),
    (e) => e instanceof TypeError && /attendCurrent/.test(e.message));
  for (const window of [0, 2]) {
    const cache = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 4, ...(window ? { window } : {}) });
    cache.append(args.k, args.v);
    const before = [cache.positions(), cache.nextPositions(), cache.attend(args.q, { heads: 2 }).out];
    assert.throws(() => cache.attend(args.q, { heads: 2, causal: false, encoding: { kind: 'stickBreaking' } }), (e) => e instanceof RangeError && /causal/.test(e.message));
    assert.throws(() => cache.attend(args.q, { heads: 2, sinkLogits: new Float32Array([0, 1]), encoding: { kind: 'stickBreaking' } }),
      (e) => e instanceof RangeError && /sinkLogits/.test(e.message));
    assert.deepEqual([cache.positions(), cache.nextPositions(), cache.attend(args.q, { heads: 2 }).out], before);
    cache.delete();
  }
});

test('describe() lists stickBreaking with its properties', () => {
  const row = pe.describe().find((d) => d.kind === 'stickBreaking');
  assert.ok(row, 'no describe() row');
  assert.equal(row.family, 'score');
  assert.equal(row.extrapolates, true);
  assert.match(row.encodes, /σ/);
});
