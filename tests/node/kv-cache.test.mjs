// pe.KVCache through the package: positions are data, slots are not positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats, ropeReference } from './helpers.mjs';

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

// Sliding window + sinks (Hugging Face / vLLM window, StreamingLLM sinks): a query at position p sees key
// position j iff j <= p and (j < sinks or p - j < window), however the tokens were appended. Checked per
// query against a float64 reference written here and against pe.attention with that mask as a key mask.
test('window 60 + 4 sinks: one append of 100 tokens, chunked prefills and decode steps equal sliding-window attention', () => {
  const KV = 2, H = 6, D = 15, W = 60, S = 4, N = 100, steps = 5;  // GQA group of 3, odd head dim
  const wrope = { base: 10000, partialRotaryFactor: 0.8 };         // int(15 * 0.8) = 12 rotary channels
  const invFreq = Array.from({ length: 6 }, (_, i) => 10000 ** (-2 * i / 12));
  const visible = (p, j) => j <= p && (j < S || p - j < W);
  const k = randomFloats(KV * (N + steps) * D, 41), v = randomFloats(KV * (N + steps) * D, 42), q = randomFloats(H * (N + steps) * D, 43);
  const T = N + steps;
  const rows = (x, Hx, t0, n) => {  // tokens t0 .. t0+n-1 of a [Hx, T, D] tensor as [Hx, n, D]
    const out = new Float32Array(Hx * n * D);
    for (let h = 0; h < Hx; h++) out.set(x.subarray((h * T + t0) * D, (h * T + t0 + n) * D), h * n * D);
    return out;
  };
  const rot = (x, p) => [...ropeReference(x.slice(0, 12), p, invFreq, 'half'), ...Array.from(x.slice(12))];
  function reference(p) {  // float64, the query at position p
    const out = new Float64Array(H * D);
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / (H / KV));
      const qr = rot(q.subarray((h * T + p) * D, (h * T + p + 1) * D), p);
      const js = [], sc = [];
      for (let j = 0; j <= p; j++) {
        if (!visible(p, j)) continue;
        const kr = rot(k.subarray((g * T + j) * D, (g * T + j + 1) * D), j);
        js.push(j);
        sc.push(qr.reduce((s, x, c) => s + x * kr[c], 0) / Math.sqrt(D));
      }
      const m = Math.max(...sc), w = sc.map((x) => Math.exp(x - m)), sum = w.reduce((a, b) => a + b, 0);
      js.forEach((j, n) => { for (let c = 0; c < D; c++) out[h * D + c] += (w[n] / sum) * v[(g * T + j) * D + c]; });
    }
    return out;
  }
  function byAttention(p) {  // pe.attention over tokens 0..p with the window + sinks as a key mask
    const keyMask = Array.from({ length: p + 1 }, (_, j) => (visible(p, j) ? 1 : 0));
    return pe.attention({ q: rows(q, H, p, 1), k: rows(k, KV, 0, p + 1), v: rows(v, KV, 0, p + 1), heads: H, kvHeads: KV, headDim: D,
      qLen: 1, kLen: p + 1, qPositions: [p], keyMask, causal: true, encoding: { kind: 'rope', ...wrope } }).out;
  }
  for (const plan of [[N], [7, 33, 60], [50, 30, 20]]) {
    const cache = new pe.KVCache({ kvHeads: KV, headDim: D, capacity: S + W, window: W, sinks: S, rope: wrope });
    let from = 0;
    for (const n of [...plan, ...Array(steps).fill(1)]) {
      cache.append(rows(k, KV, from, n), rows(v, KV, from, n));
      const out = cache.attend(rows(q, H, from, n), { heads: H }).out;  // default qPositions: the appended tokens'
      for (let i = 0; i < n; i++) {
        const p = from + i, got = new Float32Array(H * D);
        for (let h = 0; h < H; h++) got.set(out.subarray((h * n + i) * D, (h * n + i + 1) * D), h * D);
        assert.ok(maxAbsDiff(got, reference(p)) < 1e-5, `plan ${plan}: query ${p} vs float64 (${maxAbsDiff(got, reference(p))})`);
        assert.ok(maxAbsDiff(got, byAttention(p)) < 1e-5, `plan ${plan}: query ${p} vs pe.attention`);
      }
      from += n;
    }
    // positions(): the capacity slots hold the sinks and the last W tokens
    const kept = Array.from(cache.positions()).sort((a, b) => a - b);
    assert.deepEqual(kept, [0, 1, 2, 3, ...Array.from({ length: W }, (_, i) => N + steps - W + i)]);
    cache.delete();
  }
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

test("dynamic NTK in the cache: 'fixed' keeps the configured base; 'hf' re-derives it per call as Hugging Face does", async () => {
  const pe = await load();
  const d = 8, L0 = 4, factor = 2;
  const rope = { base: 100, scaling: { type: 'dynamic', factor, originalMaxPositionEmbeddings: L0 } };
  const k = Float32Array.from({ length: 7 * d }, (_, n) => 3 * Math.sin(0.7 * n + 0.3)), v = Float32Array.from({ length: 7 * d }, (_, n) => Math.cos(0.4 * n));
  const q = Float32Array.from({ length: d }, (_, n) => 3 * Math.cos(1.3 * n + 0.2));
  const outs = {};
  // HF's dynamic NTK base at sequence length L (> L0): base * (factor L / L0 - (factor - 1))^(R / (R - 2))
  const baseAt = (L) => (L > L0 ? 100 * (factor * L / L0 - (factor - 1)) ** (d / (d - 2)) : 100);
  const rotated = (x, p, base) => {
    const y = Float32Array.from(x);
    for (let i = 0; i < d / 2; i++) {
      const a = p * base ** (-2 * i / d), c = Math.cos(a), s = Math.sin(a);
      y[i] = x[i] * c - x[i + d / 2] * s;
      y[i + d / 2] = x[i + d / 2] * c + x[i] * s;
    }
    return y;
  };
  for (const dynamic of ['fixed', 'hf']) {
    const cache = new pe.KVCache({ kvHeads: 1, headDim: d, capacity: 8, rope, dynamic });
    for (let t = 0; t < 7; t++) cache.append(k.subarray(t * d, (t + 1) * d), v.subarray(t * d, (t + 1) * d));  // one decode step each
    // the query at position 6: HF rotates it with the base of that step (length 7); keys keep the base of their own step
    const out = cache.attend(q, { heads: 1 }).out;
    const qr = rotated(q, 6, dynamic === 'hf' ? baseAt(7) : 100);
    const scores = Array.from({ length: 7 }, (_, t) => {
      const kr = rotated(k.subarray(t * d, (t + 1) * d), t, dynamic === 'hf' ? baseAt(t + 1) : 100);
      return kr.reduce((acc, x, c) => acc + x * qr[c], 0) / Math.sqrt(d);
    });
    const m = Math.max(...scores), w = scores.map((x) => Math.exp(x - m)), l = w.reduce((a, b) => a + b);
    const want = Array.from({ length: d }, (_, c) => w.reduce((acc, wt, t) => acc + (wt / l) * v[t * d + c], 0));
    assert.ok(maxAbsDiff(out, want) < 2e-5, `${dynamic}: ${maxAbsDiff(out, want)}`);
    outs[dynamic] = out;
    cache.delete();
  }
  assert.ok(maxAbsDiff(outs.fixed, outs.hf) > 1e-3, 'the two conventions differ past the original length');
  assert.throws(() => new pe.KVCache({ kvHeads: 1, headDim: d, capacity: 8, rope: { base: 100 }, dynamic: 'hf' }), (e) => e instanceof RangeError && /dynamic NTK/.test(e.message));
  assert.throws(() => new pe.KVCache({ kvHeads: 1, headDim: d, capacity: 8, rope, dynamic: 'HF' }), (e) => e instanceof RangeError && /dynamic must be one of 'fixed', 'hf'/.test(e.message));
});

// Llama 4's chunked layers (HF masking_utils.chunked_overlay): the query at p sees key j iff j <= p and
// floor(j / C) = floor(p / C). Reference: float64 attention with RoPE written here, per query.
test('chunked attention: pe.attention and a cache with window = chunk equal the chunked causal reference', () => {
  const C = 16, T = 45, invFreq = Array.from({ length: 2 }, (_, i) => 10000 ** (-(2 * i) / 4));  // rotary dim 4 of 8
  const k = randomFloats(kvHeads * T * headDim, 61), v = randomFloats(kvHeads * T * headDim, 62), q = randomFloats(heads * T * headDim, 63);
  const rot = (x, p) => [...ropeReference(x.subarray(0, 4), p, invFreq, 'half'), ...x.subarray(4)];
  const reference = (p) => {  // [heads, headDim] output of the query at p
    const out = new Float64Array(heads * headDim);
    for (let h = 0; h < heads; h++) {
      const g = Math.floor(h / (heads / kvHeads));
      const qr = rot(q.subarray((h * T + p) * headDim, (h * T + p + 1) * headDim), p);
      const keys = [];
      for (let j = 0; j <= p; j++) if (Math.floor(j / C) === Math.floor(p / C)) keys.push(j);
      const s = keys.map((j) => { const kr = rot(k.subarray((g * T + j) * headDim, (g * T + j + 1) * headDim), j); return qr.reduce((a, x, c) => a + x * kr[c], 0) / Math.sqrt(headDim); });
      const m = Math.max(...s), e = s.map((x) => Math.exp(x - m)), z = e.reduce((a, b) => a + b, 0);
      keys.forEach((j, n) => { for (let c = 0; c < headDim; c++) out[h * headDim + c] += (e[n] / z) * v[(g * T + j) * headDim + c]; });
    }
    return out;
  };
  const want = Array.from({ length: T }, (_, p) => reference(p));
  const outAt = (out, n, i) => { const o = new Float64Array(heads * headDim); for (let h = 0; h < heads; h++) for (let c = 0; c < headDim; c++) o[h * headDim + c] = out[(h * n + i) * headDim + c]; return o; };
  const { out } = pe.attention({ q, k, v, heads, kvHeads, headDim, qLen: T, kLen: T, causal: true, chunk: C, encoding: { kind: 'rope', ...rope } });
  for (let p = 0; p < T; p++) assert.ok(maxAbsDiff(outAt(out, T, p), want[p]) < 2e-5, `attention, query ${p}`);
  // the cache: one append of 30 (more than a chunk: keys of the first chunk held for its own queries), then decode
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: C, window: C, chunk: C, rope });
  const first = Array.from({ length: 30 }, (_, t) => t);
  cache.append(pick(k, kvHeads, T, first), pick(v, kvHeads, T, first));
  const prefill = cache.attend(pick(q, heads, T, first), { heads }).out;
  for (let p = 0; p < 30; p++) assert.ok(maxAbsDiff(outAt(prefill, 30, p), want[p]) < 2e-5, `cache prefill, query ${p}`);
  for (let p = 30; p < T; p++) {
    cache.append(token(k, kvHeads, T, p), token(v, kvHeads, T, p));
    assert.ok(maxAbsDiff(outAt(cache.attend(token(q, heads, T, p), { heads }).out, 1, 0), want[p]) < 2e-5, `cache decode, query ${p}`);
  }
  assert.throws(() => new pe.KVCache({ kvHeads, headDim, capacity: 20, chunk: C, sinks: 2 }), (e) => e instanceof RangeError && /sinks/.test(e.message));
  assert.throws(() => pe.attention({ q, k, v, heads, kvHeads, headDim, qLen: T, kLen: T, chunk: 0 }), (e) => e instanceof RangeError && /chunk/.test(e.message));
});
