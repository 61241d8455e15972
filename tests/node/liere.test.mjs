// p-RoPE (Barbero et al. 2025, section 6; HF rope_type 'proportional', modeling_rope_utils
// _compute_proportional_rope_parameters) and LieRE (Ostmeier et al. 2024: exp(sum_a p_a G_a) per block of
// channels) through the package: the rope options frequencyFraction / keptFrequencies and multiAxis 'liere'
// with generators / blockSize, references written here in double from the definitions, errors naming fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats } from './helpers.mjs';

const pe = await load();
const named = (type, re) => (e) => e instanceof type && re.test(e.message);

// per (axis, block) a random b x b skew-symmetric matrix, exactly skew in float
function skew(axes, blocks, b, seed, scale = 1) {
  const r = randomFloats(axes * blocks * b * b, seed);
  const g = new Float32Array(r.length);
  for (let m = 0; m < axes * blocks; m++)
    for (let i = 0; i < b; i++)
      for (let j = i + 1; j < b; j++) {
        g[m * b * b + i * b + j] = scale * r[m * b * b + i * b + j];
        g[m * b * b + j * b + i] = -g[m * b * b + i * b + j];
      }
  return g;
}

test('p-RoPE: frequencyFraction keeps the highest (or lowest) int(p R // 2) pairs, the rest at frequency 0; HF proportional read', () => {
  // headDim 16, base 10^4, p = 1/4: two pairs at 1 and 10^-0.5, six at 0 (hand-worked)
  const f = pe.ropeFrequencies({ headDim: 16, frequencyFraction: 0.25 });
  assert.equal(f.rotaryDim, 16);
  assert.ok(Math.abs(f.invFreq[1] - 0.31622776601683794) < 1e-7);
  assert.deepEqual(Array.from(f.invFreq.slice(2)), [0, 0, 0, 0, 0, 0]);
  const low = pe.ropeFrequencies({ headDim: 16, frequencyFraction: 0.25, keptFrequencies: 'low' });
  assert.deepEqual(Array.from(low.invFreq.slice(0, 6)), [0, 0, 0, 0, 0, 0]);
  assert.ok(Math.abs(low.invFreq[6] - 1e-3) < 1e-10);
  // applyRope: dropped pairs (channels 2..7, 10..15 in the half layout) pass through bit for bit
  const x = randomFloats(16, 2);
  const y = pe.applyRope(x, { heads: 1, tokens: 1, headDim: 16 }, [1000], { frequencyFraction: 0.25 });
  for (const c of [2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15]) assert.equal(y[c], x[c], `channel ${c}`);
  const a = 1000 * 10 ** -0.5;  // pair (1, 9) by 1000 * 10^-0.5
  assert.ok(Math.abs(y[1] - (x[1] * Math.cos(a) - x[9] * Math.sin(a))) < 1e-5);
  assert.ok(Math.abs(y[9] - (x[9] * Math.cos(a) + x[1] * Math.sin(a))) < 1e-5);
  // config.json: Gemma 4-style rope_parameters
  const cfg = pe.ropeConfigFromHF({ model_type: 'llama', hidden_size: 64, num_attention_heads: 2, head_dim: 32,
    rope_parameters: { rope_type: 'proportional', rope_theta: 1000000, partial_rotary_factor: 0.25 } });
  assert.deepEqual(cfg, { headDim: 32, base: 1000000, layout: 'half', frequencyFraction: 0.25 });
  // errors name the field
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, frequencyFraction: 1.5 }), named(RangeError, /frequencyFraction/));
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, frequencyFraction: 1, keptFrequencies: 'low' }), named(TypeError, /keptFrequencies/));
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, frequencyFraction: 0.5, keptFrequencies: 'middle' }), named(RangeError, /keptFrequencies/));
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, frequencyFracton: 0.5 }), named(TypeError, /frequencyFracton.*frequencyFraction/));
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, frequencyFraction: 0.5, multiAxis: 'axial2d' }), named(RangeError, /frequencyFraction/));
});

test('LieRE: block size 2 is axial RoPE; block size 3 matches Rodrigues in double; N-D positions in attention', () => {
  // axial2d, base 16: pair k < 4 turns by x 2^-k, pair 4 + k by y 2^-k; as LieRE generators w J per block
  const g = new Float32Array(2 * 8 * 4);
  for (let k = 0; k < 8; k++) {
    const axis = k < 4 ? 0 : 1, w = 2 ** -(k % 4);
    g[(axis * 8 + k) * 4 + 2] = w;
    g[(axis * 8 + k) * 4 + 1] = -w;
  }
  const x = randomFloats(2 * 3 * 16, 4), shape = { heads: 2, tokens: 3, headDim: 16 }, pos = [0, 9, 16777219, 4, 0, 77];
  const axial = pe.applyRope(x, shape, pos, { base: 16, multiAxis: 'axial2d', layout: 'interleaved' });
  const lie = pe.applyRope(x, shape, pos, { multiAxis: 'liere', blockSize: 2, generators: g });
  assert.ok(maxAbsDiff(axial, lie) < 1e-6);

  // b = 3, 2 axes: exp(p0 G0 + p1 G1) by Rodrigues' formula, in double
  const d = 6, G = skew(2, 2, 3, 11, 0.8);
  const rot = (v, p0, p1) => {
    const out = Array.from(v);
    for (let j = 0; j < 2; j++) {
      const A = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((e) => p0 * G[j * 9 + e] + p1 * G[(2 + j) * 9 + e]);
      const w = [A[7], A[2], A[3]], t = Math.hypot(...w);
      const K = A.map((e) => (t === 0 ? 0 : e / t));
      for (let i = 0; i < 3; i++) {
        let acc = 0;
        for (let m = 0; m < 3; m++) {
          let k2 = 0;
          for (let n = 0; n < 3; n++) k2 += K[i * 3 + n] * K[n * 3 + m];
          acc += ((i === m ? 1 : 0) + Math.sin(t) * K[i * 3 + m] + (1 - Math.cos(t)) * k2) * v[j * 3 + m];
        }
        out[j * 3 + i] = acc;
      }
    }
    return out;
  };
  const rope = { multiAxis: 'liere', blockSize: 3, generators: G };
  const q = randomFloats(d, 5), k = randomFloats(2 * d, 6), v = randomFloats(2 * d, 7);
  const qAxis = [3, 40], kAxis = [0, 2, 5, 1];  // [axes, len]
  const qr = rot(q, 3, 40), dot = (j) => rot(k.subarray(j * d, (j + 1) * d), kAxis[j], kAxis[2 + j]).reduce((s, x, i) => s + x * qr[i], 0);
  const want = [dot(0) / Math.sqrt(d), dot(1) / Math.sqrt(d)];
  // the rope option and the 'liere' kind, alone and beside a score term (ALiBi, by maskPositions)
  const slope = pe.alibiSlopes(1)[0];
  for (const encoding of [{ kind: 'rope', ...rope }, { kind: 'liere', blockSize: 3, generators: G }, [{ kind: 'liere', blockSize: 3, generators: G }, { kind: 'alibi' }]]) {
    const got = pe.attention({ q, k, v, heads: 1, headDim: d, qLen: 1, kLen: 2, qPositions: qAxis, kPositions: kAxis,
      maskPositions: [0, 1], causal: true, encoding, returnScores: true });
    const w = Array.isArray(encoding) ? [want[0] - slope, want[1]] : want;
    assert.ok(maxAbsDiff(got.scores, w) < 1e-5, `${JSON.stringify(encoding.kind ?? 'array')}: ${got.scores} vs ${w}`);
  }
  // LieRE's learned parameters: a skew b x b block has b(b − 1)/2 free entries; 2 axes x 16 blocks of 4 -> 192
  assert.equal(pe.parameterCount('liere', { axes: 2, rotaryDim: 64, blockSize: 4 }), 192);
  assert.equal(pe.describe().find((m) => m.kind === 'liere').family, 'rotary');
  assert.throws(() => pe.attention({ q, k, v, heads: 1, headDim: d, qLen: 1, kLen: 2, encoding: { kind: 'liere', generators: G } }),
    named(TypeError, /blockSize/));
});

test('LieRE: errors name generators / blockSize; a KV cache refuses shift for non-commuting generators and stays as it was', () => {
  const base = { headDim: 8, multiAxis: 'liere' };
  const G = skew(1, 2, 4, 3);
  const ok = { ...base, blockSize: 4, generators: G };
  assert.equal(pe.ropeFrequencies(ok).rotaryDim, 8);
  assert.throws(() => pe.ropeFrequencies({ ...base, blockSize: 3, generators: G }), named(RangeError, /blockSize/));
  assert.throws(() => pe.ropeFrequencies({ ...base, generators: G }), named(RangeError, /blockSize/));
  assert.throws(() => pe.ropeFrequencies({ ...base, blockSize: 4, generators: G.subarray(0, 20) }), named(RangeError, /generators/));
  const notSkew = G.slice();
  notSkew[1] = 0.5, notSkew[4] = 0.5;
  assert.throws(() => pe.ropeFrequencies({ ...base, blockSize: 4, generators: notSkew }), named(RangeError, /generators\[1\]/));
  assert.throws(() => pe.ropeFrequencies({ headDim: 8, blockSize: 4, generators: G }), named(RangeError, /generators/));
  assert.throws(() => pe.ropeFrequencies({ ...ok, generatorz: G }), named(TypeError, /generatorz/));

  const two = { multiAxis: 'liere', blockSize: 4, generators: skew(2, 2, 4, 8) };
  const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: two });
  cache.append(randomFloats(16, 1), randomFloats(16, 2), { positions: [0, 1, 5, 6], maskPositions: [0, 1] });
  const before = Array.from(cache.positions());
  assert.throws(() => cache.shift(2), named(RangeError, /delta.*commute/));
  assert.throws(() => cache.renumber(Int32Array.from(before)), named(RangeError, /newPositions/));
  assert.deepEqual(Array.from(cache.positions()), before);
  cache.delete();
  // one axis: exp(delta G) moves a key exactly, so shift works and is relative
  const one = { multiAxis: 'liere', blockSize: 4, generators: G };
  const c1 = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: one });
  const kk = randomFloats(16, 3), vv = randomFloats(16, 4), q = randomFloats(8, 5);
  c1.append(kk, vv, { positions: [10, 11] });
  const at = c1.attend(q, { heads: 1, qPositions: [12] }).out;
  c1.shift(100);
  const moved = c1.attend(q, { heads: 1, qPositions: [112] }).out;
  assert.ok(maxAbsDiff(at, moved) < 1e-5);
  c1.delete();
});

// LieRE's rotation is exp(Σₐ pₐ·Gₐ) on blocks of consecutive channels (Ostmeier et al. 2024, section 3: a
// block-diagonal skew-symmetric generator; its code exponentiates blocks of contiguous dims): no pairing
// layout and no frequency schedule, so `layout`, `base`, `convention` and `seqLen` would do nothing, whatever
// their values: each is a TypeError naming it wherever a rope options object is read (ropeFrequencies,
// applyRope, a cache's rope); `kind: 'liere'` has none of these keys at all. p-RoPE's keptFrequencies does
// nothing without frequencyFraction < 1, mropeInterleaved nothing outside M-RoPE: TypeErrors unless at
// their defaults (a default given is the same as leaving it out).
test('rope keys that would have no effect are TypeErrors naming them: LieRE\'s layout / base / convention / seqLen; keptFrequencies, mropeInterleaved', () => {
  const G = skew(2, 2, 4, 3), liere = { multiAxis: 'liere', blockSize: 4, generators: G };
  const x = randomFloats(8, 1), shape = { heads: 1, tokens: 1, headDim: 8 };
  for (const [key, value] of [['layout', 'half'], ['layout', 'interleaved'], ['base', 10000], ['base', 500], ['convention', 'hf'], ['seqLen', 4096]]) {
    const extra = { [key]: value }, re = new RegExp(`^${key} has no effect with multiAxis 'liere'`);
    assert.throws(() => pe.ropeFrequencies({ headDim: 8, ...liere, ...extra }), named(TypeError, re), `ropeFrequencies ${key}`);
    assert.throws(() => pe.applyRope(x, shape, [1, 2], { ...liere, ...extra }), named(TypeError, re), `applyRope ${key}`);
    assert.throws(() => new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: { ...liere, ...extra } }), named(TypeError, new RegExp(`rope\\.${key} has no effect`)), `cache ${key}`);
    assert.throws(() => pe.attention({ q: x, k: x, v: x, heads: 1, headDim: 8, qLen: 1, kLen: 1, qPositions: [1, 2], kPositions: [1, 2], maskPositions: [0],
      encoding: { kind: 'liere', blockSize: 4, generators: G, ...extra } }), named(TypeError, new RegExp(`unknown option '${key}'`)), `kind 'liere' ${key}`);
  }
  // without them the same calls run
  assert.equal(pe.ropeFrequencies({ headDim: 8, ...liere }).rotaryDim, 8);
  assert.equal(pe.applyRope(x, shape, [1, 2], liere).length, 8);
  // p-RoPE: keptFrequencies 'low' means nothing without frequencyFraction < 1 (its default 'high' given is
  // the same as leaving it out, as every key's default)
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, keptFrequencies: 'low' }), named(TypeError, /^keptFrequencies applies only with p-RoPE's frequencyFraction < 1/));
  assert.throws(() => pe.applyRope(randomFloats(16, 2), { heads: 1, tokens: 1, headDim: 16 }, [3], { keptFrequencies: 'low' }), named(TypeError, /keptFrequencies/));
  assert.deepEqual(pe.ropeFrequencies({ headDim: 16, keptFrequencies: 'high' }), pe.ropeFrequencies({ headDim: 16 }));
  // mropeInterleaved: true only with multiAxis 'mrope'
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, mropeInterleaved: true }), named(TypeError, /^mropeInterleaved applies only to multiAxis 'mrope'/));
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, multiAxis: 'axial2d', mropeInterleaved: true }), named(TypeError, /mropeInterleaved/));
  assert.equal(pe.ropeFrequencies({ headDim: 16, multiAxis: 'mrope', sections: [4, 2, 2], mropeInterleaved: false }).rotaryDim, 16);
});
