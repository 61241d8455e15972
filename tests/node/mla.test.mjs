// DeepSeek V2 / V3 and Kimi K2 attention (MLA, issue 33) through the JS API: `valueDim` (pe.attention,
// new pe.KVCache) and the rope option `rotaryOffset`. The reference is transformers' DeepseekV3Attention
// (src/transformers/models/deepseek_v3/modeling_deepseek_v3.py, huggingface/transformers at 00b676f8)
// in float64: l. 390 / 396 split q into (q_pass [qk_nope_head_dim], q_rot [qk_rope_head_dim]) and the
// kv projection into (k_pass, value_states [v_head_dim]); l. 401-404 rotate q_rot and k_rot with
// apply_rotary_pos_emb (l. 231-235, rotate_half l. 204-208) or, with rope_interleave,
// apply_rotary_pos_emb_interleave (l. 303-311: even channels first, then odd, then rotate_half);
// l. 407-408 cat((pass, rot)); l. 263-270 eager softmax(q k^T * scaling + mask) @ value_states with
// scaling = qk_head_dim^-0.5 (l. 364); cos / sin of cat(freqs, freqs) (l. 77-80), inv_freq =
// base^(-2i / qk_rope_head_dim).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { randomFloats } from './helpers.mjs';

const pe = await load();

// apply_rotary_pos_emb(_interleave) of x[0, d) at position p, in HF's channel order.
function hfRope(x, p, base, interleave) {
  const d = x.length, h = d / 2;
  const y = Array.from({ length: d }, (_, i) => (interleave ? (i < h ? x[2 * i] : x[2 * (i - h) + 1]) : x[i]));
  return y.map((yi, i) => {
    const angle = p * base ** (-2 * (i % h) / d);
    return yi * Math.cos(angle) + (i < h ? -y[i + h] : y[i - h]) * Math.sin(angle);
  });
}

// DeepseekV3Attention's eager path from the split q / k / v on. q [heads, qLen, nope + rope],
// k [kvHeads, kLen, nope + rope] (the rope key given per kv head), v [kvHeads, kLen, vd].
function deepseek({ q, k, v, heads, kvHeads = heads, nope, rope, valueDim: vd, qLen, kLen, causal, interleave, qPositions, kPositions, window = 0 }) {
  const D = nope + rope, base = 10000, scaling = D ** -0.5;
  const kp = (j) => (kPositions ? kPositions[j] : j), qp = (i) => (qPositions ? qPositions[i] : kp(kLen - qLen + i));
  const full = (x, p) => [...x.slice(0, nope), ...hfRope(x.slice(nope, D), p, base, interleave)];
  const keys = Array.from({ length: kvHeads * kLen }, (_, r) => full(k.subarray(r * D, (r + 1) * D), kp(r % kLen)));
  const out = new Float64Array(heads * qLen * vd), weights = new Float64Array(heads * qLen * kLen), scores = new Float64Array(heads * qLen * kLen).fill(-Infinity);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kvHeads));
    for (let i = 0; i < qLen; i++) {
      const query = full(q.subarray((h * qLen + i) * D, (h * qLen + i + 1) * D), qp(i)), row = (h * qLen + i) * kLen;
      for (let j = 0; j < kLen; j++) {
        const d = qp(i) - kp(j);
        if ((causal && d < 0) || (window > 0 && !(d >= 0 && d < window))) continue;
        scores[row + j] = query.reduce((s, x, c) => s + x * keys[g * kLen + j][c], 0) * scaling;
      }
      const m = Math.max(...scores.subarray(row, row + kLen));
      let den = 0;
      for (let j = 0; j < kLen; j++) den += Math.exp(scores[row + j] - m);
      for (let j = 0; j < kLen; j++) {
        weights[row + j] = Math.exp(scores[row + j] - m) / den;
        for (let c = 0; c < vd; c++) out[(h * qLen + i) * vd + c] += weights[row + j] * v[(g * kLen + j) * vd + c];
      }
    }
  }
  return { out, weights, scores };
}

const worst = (got, want) => {
  assert.equal(got.length, want.length);
  return got.reduce((w, x, i) => (want[i] === -Infinity ? (x === -Infinity ? w : Infinity) : Math.max(w, Math.abs(x - want[i]))), 0);
};
const rope = ({ nope, rope: r, interleave }) => ({ kind: 'rope', partialRotaryFactor: r / (nope + r), rotaryOffset: nope, layout: interleave ? 'interleaved' : 'half' });
function mla(shape, seed) {
  const D = shape.nope + shape.rope, kvHeads = shape.kvHeads ?? shape.heads;
  return { ...shape, kvHeads, q: randomFloats(shape.heads * shape.qLen * D, seed), k: randomFloats(kvHeads * shape.kLen * D, seed + 1),
    v: randomFloats(kvHeads * shape.kLen * shape.valueDim, seed + 2) };
}
const args = (c) => ({ q: c.q, k: c.k, v: c.v, heads: c.heads, kvHeads: c.kvHeads, headDim: c.nope + c.rope, valueDim: c.valueDim, qLen: c.qLen,
  kLen: c.kLen, causal: c.causal, encoding: rope(c), ...(c.qPositions ? { qPositions: c.qPositions, kPositions: c.kPositions } : {}) });

test('MLA: pe.attention with valueDim and rotaryOffset equals DeepseekV3Attention (16 heads of 128 + 64, values of 128; both layouts)', () => {
  for (const interleave of [false, true]) {
    const c = mla({ heads: 16, nope: 128, rope: 64, valueDim: 128, qLen: 4, kLen: 7, causal: true, interleave }, 1);
    const want = deepseek(c);
    const got = pe.attention({ ...args(c), returnWeights: true, returnScores: true });
    assert.equal(got.out.length, 16 * 4 * 128);
    assert.ok(worst(got.out, want.out) < 2e-5, `out ${worst(got.out, want.out)}`);
    assert.ok(worst(got.weights, want.weights) < 2e-6, `weights ${worst(got.weights, want.weights)}`);
    assert.ok(worst(got.scores, want.scores) < 1e-5, `scores ${worst(got.scores, want.scores)}`);
  }
});

test('MLA, odd sizes: GQA, head 40 = 24 + 16, valueDim 24 and 7, qLen != kLen over two key blocks, positions near 2^31, out buffers', () => {
  for (const valueDim of [24, 7])
    for (const interleave of [false, true])
      for (const causal of [true, false]) {
        const c = mla({ heads: 6, kvHeads: 2, nope: 24, rope: 16, valueDim, qLen: 67, kLen: 70, causal, interleave }, 10 + valueDim);
        const want = deepseek(c);
        const got = pe.attention(args(c));
        assert.ok(worst(got.out, want.out) < 2e-5, `valueDim ${valueDim} ${interleave} ${causal}: ${worst(got.out, want.out)}`);
      }
  const kPositions = Int32Array.from({ length: 70 }, (_, j) => 2 ** 31 - 70 + j);
  const c = { ...mla({ heads: 6, kvHeads: 2, nope: 24, rope: 16, valueDim: 7, qLen: 3, kLen: 70, causal: true, interleave: true }, 30),
    kPositions, qPositions: kPositions.slice(67) };
  const want = deepseek(c);
  const out = new Float32Array(6 * 3 * 7);
  assert.equal(pe.attention({ ...args(c), out }).out, out);
  assert.ok(worst(out, want.out) < 2e-5, `huge positions: ${worst(out, want.out)}`);
  const heap = pe.alloc(6 * 3 * 7);
  pe.attention({ ...args(c), out: heap });
  assert.deepEqual(heap.view(), out);
  heap.delete();
  assert.throws(() => pe.attention({ ...args(c), out: new Float32Array(6 * 3 * 40) }), { name: 'RangeError', message: /out/ });
});

test('MLA: the 1- and 3-thread modules give the same bytes (decode split over 4200 keys, prefill tiles)', async () => {
  const one = await load({ threads: 1 }), more = await load({ threads: 3 });
  for (const c of [mla({ heads: 8, kvHeads: 2, nope: 24, rope: 16, valueDim: 7, qLen: 1, kLen: 4200, causal: true, interleave: true }, 40),
    mla({ heads: 6, kvHeads: 2, nope: 24, rope: 16, valueDim: 24, qLen: 130, kLen: 140, causal: true, interleave: false }, 50)]) {
    const a = one.attention(args(c)).out, b = more.attention(args(c)).out;
    assert.deepEqual(a, b);
    if (c.qLen === 1) assert.ok(worst(a, deepseek(c).out) < 2e-5);
  }
});

test('MLA KV cache: valueDim and a rope with rotaryOffset; prefill at once and in chunks, decode steps, shift, renumber', () => {
  const heads = 6, kvHeads = 2, nope = 24, r = 16, D = nope + r, vd = 7, T = 40, steps = 3, total = T + steps;
  for (const interleave of [false, true]) {
    const all = mla({ heads, kvHeads, nope, rope: r, valueDim: vd, qLen: total, kLen: total, causal: true, interleave }, 60);
    // tokens [t0, t0 + n) of x [rows, total, width] as [rows, n, width]
    const slice = (x, rows, width, t0, n) => Float32Array.from({ length: rows * n * width }, (_, i) => {
      const row = Math.floor(i / (n * width)), t = Math.floor(i / width) % n;
      return x[(row * total + t0 + t) * width + (i % width)];
    });
    const options = { kvHeads, headDim: D, valueDim: vd, capacity: 64, rope: rope({ nope, rope: r, interleave }) };
    const once = new pe.KVCache(options), chunks = new pe.KVCache(options);
    once.append(slice(all.k, kvHeads, D, 0, T), slice(all.v, kvHeads, vd, 0, T));
    for (const [t0, n] of [[0, 15], [15, 20], [35, 5]]) chunks.append(slice(all.k, kvHeads, D, t0, n), slice(all.v, kvHeads, vd, t0, n));
    // attention and the reference over the first n tokens, queries = the last qLen of them
    const over = (n, qLen, positions) => {
      const c = { heads, kvHeads, nope, rope: r, valueDim: vd, qLen, kLen: n, causal: true, interleave, q: slice(all.q, heads, D, n - qLen, qLen),
        k: slice(all.k, kvHeads, D, 0, n), v: slice(all.v, kvHeads, vd, 0, n) };
      if (positions) Object.assign(c, { kPositions: Int32Array.from(positions.slice(0, n)), qPositions: Int32Array.from(positions.slice(n - qLen, n)) });
      return c;
    };
    const prefill = over(T, 4);
    const got = once.attend(prefill.q, { heads }).out;
    assert.equal(got.length, heads * 4 * vd);
    assert.deepEqual(got, pe.attention(args(prefill)).out);
    assert.deepEqual(chunks.attend(prefill.q, { heads }).out, got);
    assert.ok(worst(got, deepseek(prefill).out) < 2e-5);
    for (let s = 1; s <= steps; s++) {
      once.append(slice(all.k, kvHeads, D, T + s - 1, 1), slice(all.v, kvHeads, vd, T + s - 1, 1));
      const step = over(T + s, 1);
      const o = once.attend(step.q, { heads }).out;
      assert.deepEqual(o, pe.attention(args(step)).out);
      assert.ok(worst(o, deepseek(step).out) < 2e-5);
    }
    once.shift(1000);
    const moved = over(total, 1, Array.from({ length: total }, (_, t) => t + 1000));
    assert.ok(worst(once.attend(moved.q, { heads, qPositions: moved.qPositions }).out, deepseek(moved).out) < 2e-5);
    const renumbered = once.positions().map((p, t) => (p < 0 ? -1 : 3000 - 5 * t));
    once.renumber(renumbered);
    const back = { ...over(total, 1, Array.from(renumbered.slice(0, total))), causal: false, qPositions: Int32Array.of(2500) };
    assert.ok(worst(once.attend(back.q, { heads, qPositions: back.qPositions, causal: false }).out, deepseek(back).out) < 2e-5);
    once.delete();
    chunks.delete();
  }
});

test('MLA refusals name the field: valueDim, rotaryOffset, v of the wrong width, misspelt keys; a refused append changes nothing', () => {
  const c = mla({ heads: 2, nope: 24, rope: 16, valueDim: 7, qLen: 2, kLen: 3, causal: true, interleave: false }, 70);
  const a = args(c);
  for (const bad of [0, -1, 1.5, 65537])
    assert.throws(() => pe.attention({ ...a, valueDim: bad }), { name: 'RangeError', message: /^valueDim must be/ }, String(bad));
  assert.throws(() => pe.attention({ ...a, valueDim: '7' }), { name: 'TypeError', message: /valueDim/ });
  assert.throws(() => pe.attention({ ...a, valueDims: 7 }), { name: 'TypeError', message: /valueDims.*valueDim/ });
  assert.throws(() => pe.attention({ ...a, valueDim: 8 }), { name: 'RangeError', message: /^v must have 48 elements \[kvHeads, kLen, valueDim\]/ });
  assert.throws(() => pe.attention({ ...a, valueDim: undefined }), { name: 'RangeError', message: /^v must have 240 elements \[kvHeads, kLen, headDim\]/ });
  for (const rotaryOffset of [25, 40, -1])
    assert.throws(() => pe.attention({ ...a, encoding: { ...a.encoding, rotaryOffset } }), { name: 'RangeError', message: /rotaryOffset must be/ }, String(rotaryOffset));
  assert.throws(() => pe.attention({ ...a, encoding: { ...a.encoding, rotaryOffset: '24' } }), { name: 'TypeError', message: /rotaryOffset/ });
  assert.throws(() => pe.attention({ ...a, encoding: { ...a.encoding, rotaryOfset: 24 } }), { name: 'TypeError', message: /rotaryOfset.*rotaryOffset/ });
  const x = randomFloats(40, 71);
  assert.throws(() => pe.applyRope(x, { heads: 1, tokens: 1, headDim: 40 }, [3], { partialRotaryFactor: 0.4, rotaryOffset: 25 }),
    { name: 'RangeError', message: /^rotaryOffset must be in \[0, headDim - rotaryDim\] = \[0, 24\]/ });
  assert.throws(() => pe.ropeFrequencies({ headDim: 40, partialRotaryFactor: 0.4, rotaryOffset: 30 }), { name: 'RangeError', message: /^rotaryOffset/ });
  assert.throws(() => new pe.KVCache({ kvHeads: 1, headDim: 40, valueDim: 0, capacity: 4 }), { name: 'RangeError', message: /^valueDim must be/ });
  assert.throws(() => new pe.KVCache({ kvHeads: 1, headDim: 40, capacity: 4, rope: { partialRotaryFactor: 0.4, rotaryOffset: 26 } }),
    { name: 'RangeError', message: /rotaryOffset must be/ });

  const cache = new pe.KVCache({ kvHeads: 2, headDim: 40, valueDim: 7, capacity: 8, rope: rope(c) });
  cache.append(c.k, c.v);
  const q = c.q.subarray(0, 2 * 40), before = { positions: cache.positions(), next: cache.nextPositions(), out: cache.attend(q, { heads: 2 }).out };
  assert.throws(() => cache.append(c.k, randomFloats(3 * 40, 72)), { name: 'RangeError', message: /^v must be \[batch, kvHeads, T, valueDim\] = 42 elements \(got 120\)/ });
  const nan = Float32Array.from(c.v);
  nan[20] = NaN;
  assert.throws(() => cache.append(c.k, nan), { name: 'RangeError', message: /^v\[20\] must be finite/ });
  assert.deepEqual(cache.positions(), before.positions);
  assert.deepEqual(cache.nextPositions(), before.next);
  assert.deepEqual(cache.attend(q, { heads: 2 }).out, before.out);
  cache.delete();
});

test('rotaryOffset in applyRope: only channels [offset, offset + rotaryDim) move, as apply_rotary_pos_emb_interleave', () => {
  const x = randomFloats(3 * 192, 80), positions = [5, 77, 2 ** 31 - 1];
  const got = pe.applyRope(x, { heads: 1, tokens: 3, headDim: 192 }, positions, { partialRotaryFactor: 64 / 192, rotaryOffset: 128, layout: 'interleaved' });
  let err = 0;
  for (let t = 0; t < 3; t++) {
    const row = got.subarray(t * 192, (t + 1) * 192), src = x.subarray(t * 192, (t + 1) * 192);
    assert.deepEqual(row.subarray(0, 128), src.subarray(0, 128));
    const want = hfRope(src.subarray(128), positions[t], 10000, true);
    // HF's channel i: posenc's even channels first, then the odd ones
    want.forEach((w, i) => { err = Math.max(err, Math.abs(row[128 + (i < 32 ? 2 * i : 2 * (i - 32) + 1)] - w)); });
  }
  assert.ok(err < 2e-6, `rotation error ${err}`);
  assert.equal(pe.ropeFrequencies({ headDim: 192, partialRotaryFactor: 64 / 192, rotaryOffset: 128 }).rotaryDim, 64);
});
