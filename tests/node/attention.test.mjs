// pe.attention and the relative helpers through the package: every encoding kind's JS wiring against
// a float64 reference written here from the definitions (CONVENTIONS.md), plus defaults and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats, ropeReference } from './helpers.mjs';

const pe = await load();

// Naive reference: score = scale*(qc.k + content) + bias, masked, softmax, out = sum w (v + valueRow).
function naive(p, { content = () => 0, bias = () => 0, valueRow, contentQuery, rotate }, scale) {
  const { heads, kvHeads, headDim: d, qLen, kLen, q, k, v } = p;
  const group = heads / kvHeads;
  const out = new Float64Array(heads * qLen * d), weights = new Float64Array(heads * qLen * kLen);
  const qPos = p.qPositions ?? Array.from({ length: qLen }, (_, i) => Math.max(kLen - qLen, 0) + i);
  const kPos = p.kPositions ?? Array.from({ length: kLen }, (_, j) => j);
  const allowed = (i, j) => (!p.keyMask || p.keyMask[j]) && (!p.causal || kPos[j] <= qPos[i]) &&
    (!p.window || (qPos[i] - kPos[j] >= 0 && qPos[i] - kPos[j] < p.window));
  for (let h = 0; h < heads; h++) {
    const kh = Math.floor(h / group);
    for (let i = 0; i < qLen; i++) {
      let qi = Array.from(q.subarray((h * qLen + i) * d, (h * qLen + i + 1) * d));
      if (rotate) qi = rotate(qi, qPos[i]);
      const qc = contentQuery ? contentQuery(h, qi) : qi;
      const s = new Float64Array(kLen).fill(-Infinity);
      for (let j = 0; j < kLen; j++) {
        if (!allowed(i, j)) continue;
        let kj = Array.from(k.subarray((kh * kLen + j) * d, (kh * kLen + j + 1) * d));
        if (rotate) kj = rotate(kj, kPos[j]);
        let dot = 0;
        for (let c = 0; c < d; c++) dot += qc[c] * kj[c];
        s[j] = scale * (dot + content(h, qi, kj, qPos[i], kPos[j])) + bias(h, qPos[i], kPos[j]);
      }
      const m = Math.max(...s);
      if (m === -Infinity) continue;
      let l = 0;
      for (let j = 0; j < kLen; j++) l += Math.exp(s[j] - m);
      for (let j = 0; j < kLen; j++) {
        const w = Math.exp(s[j] - m) / l;
        weights[(h * qLen + i) * kLen + j] = w;
        if (!w) continue;
        const vr = valueRow ? valueRow(qPos[i], kPos[j]) : null;
        for (let c = 0; c < d; c++) out[(h * qLen + i) * d + c] += w * (v[(kh * kLen + j) * d + c] + (vr ? vr[c] : 0));
      }
    }
  }
  return { out, weights };
}

function problem(heads, kvHeads, headDim, qLen, kLen, seed) {
  return { heads, kvHeads, headDim, qLen, kLen, q: randomFloats(heads * qLen * headDim, seed),
    k: randomFloats(kvHeads * kLen * headDim, seed + 1), v: randomFloats(kvHeads * kLen * headDim, seed + 2) };
}

const dot = (a, b, n = a.length) => { let s = 0; for (let i = 0; i < n; i++) s += a[i] * b[i]; return s; };
const row = (t, r, d) => t.subarray(r * d, (r + 1) * d);

function check(p, encoding, terms, scale, tol = 2e-5) {
  const got = pe.attention({ ...p, encoding, returnWeights: true });
  const streamed = pe.attention({ ...p, encoding });
  const want = naive(p, terms, scale);
  assert.ok(maxAbsDiff(got.out, want.out) < tol, `${encoding.kind} out ${maxAbsDiff(got.out, want.out)}`);
  assert.ok(maxAbsDiff(got.weights, want.weights) < tol, `${encoding.kind} weights`);
  assert.ok(maxAbsDiff(streamed.out, got.out) < 1e-5, `${encoding.kind} streaming vs materialized`);
}

test('defaults: queries sit at the last key positions; out only unless asked; GQA reads repeat_kv heads', () => {
  const p = problem(6, 2, 8, 3, 10, 1);
  const r = pe.attention({ ...p, causal: true });
  assert.deepEqual(Object.keys(r), ['out']);
  check({ ...p, causal: true }, { kind: 'none' }, {}, 1 / Math.sqrt(8));
  check({ ...p, qPositions: [9, 2, 4], kPositions: [0, 5, 1, 9, 3, 2, 8, 7, 6, 4], causal: true }, { kind: 'none' }, {}, 1 / Math.sqrt(8));
  check({ ...p, keyMask: [1, 0, 1, 1, 0, 1, 1, 1, 1, 0], window: 4, causal: true }, { kind: 'none' }, {}, 1 / Math.sqrt(8));
});

test('scores are the final logits: scaled, biased, masked to -Infinity', () => {
  const p = problem(1, 1, 4, 1, 3, 3);
  const r = pe.attention({ ...p, causal: true, qPositions: [1], encoding: { kind: 'alibi', heads: 1, slopes: [0.5] }, returnScores: true });
  const q = p.q, k = p.k;
  assert.ok(Math.abs(r.scores[0] - (dot(q, row(k, 0, 4)) / 2 - 0.5)) < 1e-6);
  assert.ok(Math.abs(r.scores[1] - dot(q, row(k, 1, 4)) / 2) < 1e-6);
  assert.equal(r.scores[2], -Infinity);
});

test('a fully masked row returns zeros, never NaN', () => {
  const p = problem(2, 2, 4, 2, 3, 5);
  const r = pe.attention({ ...p, qPositions: [0, 2], kPositions: [1, 2, 3], causal: true, returnWeights: true });
  assert.deepEqual(Array.from(r.out.subarray(0, 4)), [0, 0, 0, 0]);
  assert.ok(r.out.every(Number.isFinite));
});

test('rope: q and k rotated at their positions (attention scale folded in), then scaled dot', () => {
  const p = { ...problem(2, 1, 8, 2, 5, 7), causal: true };
  const encoding = { kind: 'rope', partialRotaryFactor: 0.5, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 16 } };
  const f = pe.ropeFrequencies({ headDim: 8, ...encoding });
  const rotate = (x, pos) => [...ropeReference(x.slice(0, 4), pos, Array.from(f.invFreq), 'half', f.attentionScale), ...x.slice(4)];
  check(p, encoding, { rotate }, 1 / Math.sqrt(8), 5e-5);
});

test('alibi (n = 3, 6, 12 heads; symmetric option) and attentionBias paper form', () => {
  for (const heads of [3, 6, 12]) {
    const p = { ...problem(heads, heads, 8, 4, 9, 10 + heads), causal: true };
    const slopes = pe.alibiSlopes(heads);
    check(p, { kind: 'alibi', heads }, { bias: (h, i, j) => -slopes[h] * (i - j) }, 1 / Math.sqrt(8));
    check({ ...p, causal: false }, { kind: 'alibi', heads, symmetric: true }, { bias: (h, i, j) => -slopes[h] * Math.abs(i - j) }, 1 / Math.sqrt(8));
  }
  assert.deepEqual(Array.from(pe.alibiSlopes(3)), [1 / 16, 1 / 256, 1 / 4]);
  const b = pe.attentionBias({ kind: 'alibi', heads: 3 }, [5, 6], [0, 5]);
  assert.equal(b.length, 3 * 2 * 2);
  assert.equal(b[0], -5 / 16);
  assert.equal(b[3], -6 / 16 + 5 / 16);
});

test('t5: table [numBuckets, heads], bucket of key − query, scale 1; attentionBias agrees', () => {
  const heads = 3;
  for (const bidirectional of [true, false]) {
    const p = { ...problem(heads, heads, 8, 4, 40, 30), causal: !bidirectional };
    const table = randomFloats(16 * heads, 31);
    const enc = { kind: 't5', heads, table, bidirectional, numBuckets: 16, maxDistance: 20 };
    const bucket = (rel) => pe.t5Bucket([rel], { bidirectional, numBuckets: 16, maxDistance: 20 })[0];
    check(p, enc, { bias: (h, i, j) => table[bucket(j - i) * heads + h] }, 1);
    const bias = pe.attentionBias(enc, [3], [0, 3, 10]);
    assert.equal(bias[2 * 0 + 1], table[bucket(0) * heads]);
    assert.equal(bias[2], table[bucket(7) * heads]);
  }
  assert.deepEqual(Array.from(pe.t5Bucket([0, -3, 3, -20, -128, 1000], {})), [0, 3, 19, 10, 15, 31]);
  assert.deepEqual(Array.from(pe.t5Bucket([5, -5, -20], { bidirectional: false })), [0, 5, 17]);
});

test('swin: index from window coordinates, non-square window', () => {
  const [wh, ww] = [2, 3], heads = 2, n = wh * ww;
  const idx = pe.swinRelativeIndex([wh, ww]);
  assert.equal(idx.length, 36);
  assert.equal(idx[4 * 6 + 0], 13);
  assert.equal(idx[5 * 6 + 0], 14);
  assert.equal(idx[0 * 6 + 5], 0);
  const table = randomFloats(3 * 5 * heads, 40);
  const p = problem(heads, heads, 8, n, n, 41);
  check(p, { kind: 'swin', heads, table, windowSize: [wh, ww] }, { bias: (h, i, j) => table[idx[i * n + j] * heads + h] }, 1 / Math.sqrt(8));
});

test('shaw: clip(j − i) key and value tables, fewer queries than keys', () => {
  const K = 2, d = 8;
  const p = problem(2, 2, d, 3, 8, 50);
  const aK = randomFloats((2 * K + 1) * d, 51), aV = randomFloats((2 * K + 1) * d, 52);
  const idx = (i, j) => Math.min(K, Math.max(-K, j - i)) + K;
  check(p, { kind: 'shaw', clip: K, keyTable: aK, valueTable: aV }, {
    content: (h, qi, kj, i, j) => dot(qi, row(aK, idx(i, j), d)),
    valueRow: (i, j) => row(aV, idx(i, j), d),
  }, 1 / Math.sqrt(d));
});

test('xl: (q+u)·k + (q+v)·r[i−j], queries after the memory', () => {
  const heads = 2, d = 4, mlen = 3, qLen = 2, kLen = mlen + qLen;
  const p = { ...problem(heads, heads, d, qLen, kLen, 60), causal: true };
  const u = randomFloats(heads * d, 61), v = randomFloats(heads * d, 62), r = randomFloats(heads * kLen * d, 63);
  check(p, { kind: 'xl', u, v, r }, {
    contentQuery: (h, qi) => qi.map((x, c) => x + u[h * d + c]),
    content: (h, qi, kj, i, j) => dot(qi.map((x, c) => x + v[h * d + c]), row(r, h * kLen + (i - j), d)),
  }, 1 / Math.sqrt(d));
});

test('deberta: c2p + p2c at clamp(bucket(i − j) + span), 1/√(3d); conventions differ beyond maxPosition', () => {
  const heads = 2, d = 4, span = 8;
  const posKey = randomFloats(heads * 2 * span * d, 70), posQuery = randomFloats(heads * 2 * span * d, 71);
  for (const convention of ['hf', 'microsoft']) {
    const p = { ...problem(heads, heads, d, 3, 4, 72), qPositions: [0, 50, 100], kPositions: [0, 1, 60, 100] };
    const bucket = (rel) => pe.debertaBucket([rel], { bucketSize: 8, maxPosition: 24, convention })[0];
    const idx = (i, j) => Math.min(2 * span - 1, Math.max(0, bucket(i - j) + span));
    let head = 0;
    check(p, { kind: 'deberta', posKey, posQuery, span, bucketSize: 8, maxPosition: 24, convention }, {
      contentQuery: (h, qi) => { head = h; return qi; },
      content: (h, qi, kj, i, j) => dot(qi, row(posKey, h * 2 * span + idx(i, j), d)) + dot(kj, row(posQuery, h * 2 * span + idx(i, j), d)),
    }, 1 / Math.sqrt(3 * d));
    void head;
  }
  assert.deepEqual(Array.from(pe.debertaBucket([-600, 200, 511], { bucketSize: 256, maxPosition: 512 })), [-270, 169, 255]);
  assert.deepEqual(Array.from(pe.debertaBucket([-600], { bucketSize: 256, maxPosition: 512, convention: 'microsoft' })), [-255]);
});

test('relativeKey: q·E[i − j + maxPos − 1] (+ k·E for keyQuery)', () => {
  const d = 4, maxPosition = 6;
  const E = randomFloats((2 * maxPosition - 1) * d, 80);
  const p = problem(2, 2, d, 3, 6, 81);
  for (const keyQuery of [false, true]) {
    check(p, { kind: 'relativeKey', table: E, maxPosition, keyQuery }, {
      content: (h, qi, kj, i, j) => dot(qi, row(E, i - j + maxPosition - 1, d)) + (keyQuery ? dot(kj, row(E, i - j + maxPosition - 1, d)) : 0),
    }, 1 / Math.sqrt(d));
  }
});

test('bad attention input: clear errors, module still usable', () => {
  const p = problem(4, 4, 8, 2, 3, 90);
  const cases = [
    [{ ...p, kvHeads: 3 }, RangeError, /kvHeads/],
    [{ ...p, window: 0 }, RangeError, /window/],
    [{ ...p, k: p.k.subarray(1) }, RangeError, /^k must have/],
    [{ ...p, q: 'q' }, TypeError, /^q /],
    [{ ...p, keyMask: [1, 2, 1] }, RangeError, /keyMask\[1\]/],
    [{ ...p, keyMask: [1, 1] }, RangeError, /keyMask/],
    [{ ...p, qPositions: [0, -1] }, RangeError, /qPositions\[1\]/],
    [{ ...p, heads: '4' }, TypeError, /heads/],
    [{ ...p, encoding: { kind: 'magic' } }, RangeError, /encoding.kind/],
    [{ ...p, encoding: { kind: 't5', heads: 4, table: [1, 2] } }, RangeError, /encoding.table/],
    [{ ...p, encoding: { kind: 't5', heads: 4 } }, TypeError, /encoding.table/],
    [{ ...p, encoding: { kind: 'shaw', clip: -1, keyTable: [] } }, RangeError, /encoding.clip/],
    [{ ...p, encoding: { kind: 'alibi', heads: 3 } }, RangeError, /encoding.heads/],
    [{ ...p, encoding: { kind: 'rope', partialRotaryFactor: 0.375 } }, RangeError, /rotaryDim|partialRotaryFactor/],
    [{ ...p, encoding: { kind: 'swin', heads: 4, table: new Float32Array(3 * 3 * 4), windowSize: [2, 2] }, kPositions: [0, 1, 7] }, RangeError, /kPositions|qPositions|window/],
  ];
  for (const [args, type, re] of cases) {
    assert.throws(() => pe.attention(args), (e) => e instanceof type && re.test(e.message), re.source);
    assert.equal(pe.attention(p).out.length, 4 * 2 * 8);
  }
  assert.throws(() => pe.attentionBias({ kind: 'shaw', clip: 1, keyTable: [] }, [0], [0]), RangeError);
  assert.throws(() => pe.swinRelativeIndex([2]), TypeError);
  assert.throws(() => pe.t5Bucket([1.5], {}), RangeError);
});

test('ALiBi with left padding: logical positions (Bloom counts only real tokens) give Bloom\'s softmax', () => {
  // Bloom adds +m·j_logical, j_logical = cumsum(mask) - 1 over real keys; softmax-equivalent to -m(i - j) at logical positions.
  const heads = 3, d = 8, kLen = 6, mask = [0, 0, 1, 1, 1, 1];
  const q = randomFloats(heads * d, 91), k = randomFloats(heads * kLen * d, 92), v = randomFloats(heads * kLen * d, 93);
  const pos = pe.positionIds(mask, {});  // [1, 1, 0, 1, 2, 3]: pads get 1 but are masked anyway
  const got = pe.attention({ q, k, v, heads, headDim: d, qLen: 1, kLen, qPositions: [3], kPositions: pos, keyMask: mask, causal: true,
    encoding: { kind: 'alibi', heads }, returnWeights: true });
  const slopes = pe.alibiSlopes(heads);
  for (let h = 0; h < heads; h++) {
    const s = [];
    for (let j = 0; j < kLen; j++) {
      if (!mask[j]) { s.push(-Infinity); continue; }
      s.push(dot(q.subarray(h * d, (h + 1) * d), k.subarray((h * kLen + j) * d, (h * kLen + j + 1) * d)) / Math.sqrt(d) + slopes[h] * (j - 2));
    }
    const mx = Math.max(...s), e = s.map((x) => Math.exp(x - mx)), z = e.reduce((a, b) => a + b, 0);
    assert.ok(maxAbsDiff(got.weights.subarray(h * kLen, (h + 1) * kLen), e.map((x) => x / z)) < 1e-6);
  }
});

test('KERPLE and FIRE through pe.attention and pe.attentionBias (float64 references from the papers)', () => {
  for (const [heads, kvHeads] of [[4, 2], [6, 3], [5, 5]]) {
    for (const causal of [false, true]) {
      const p = { ...problem(heads, kvHeads, 8, 4, 9, 60 + heads), causal, qPositions: [3, 8, 20, 2 ** 24], kPositions: [0, 1, 2, 3, 8, 13, 21, 2 ** 24 - 5, 2 ** 24] };
      const r1 = Array.from({ length: heads }, (_, h) => 0.2 + 0.3 * h), r2 = Array.from({ length: heads }, (_, h) => 0.1 + 0.2 * h);
      const kerpleLog = (h, i, j) => -r1[h] * Math.log(1 + r2[h] * Math.abs(i - j));
      const kerplePow = (h, i, j) => -r1[h] * Math.abs(i - j) ** r2[h];
      const hidden = 6, w1 = randomFloats(hidden, 1), b1 = randomFloats(hidden, 2), w2 = randomFloats(heads * hidden, 3), b2 = randomFloats(heads, 4);
      const fire = (h, i, j) => {
        const x = Math.log(2 * Math.abs(i - j) + 1) / (Math.log(2 * Math.max(16, i) + 1) + 1e-6);
        let y = b2[h];
        for (let k = 0; k < hidden; k++) y += w2[h * hidden + k] * Math.max(0, w1[k] * x + b1[k]);
        return y;
      };
      const cases = [
        [{ kind: 'kerple', variant: 'log', r1, r2 }, kerpleLog],
        [{ kind: 'kerple', variant: 'power', r1, r2: r2.map((x) => Math.min(x, 1)) }, (h, i, j) => -r1[h] * Math.abs(i - j) ** Math.min(r2[h], 1)],
        [{ kind: 'fire', hidden, w1, b1, w2, b2, c: 2, L: 16 }, fire],
      ];
      // positions near 2^24: biases of -r1 d^r2 reach thousands; compare relative to their size
      const relTol = (want) => 2e-5 * (1 + Math.abs(want));
      for (const [encoding, bias] of cases) {
        if (encoding.variant === 'power') { check({ ...p, qPositions: [3, 8, 20, 30], kPositions: [0, 1, 2, 3, 8, 13, 21, 25, 30] }, encoding, { bias }, 1 / Math.sqrt(8)); continue; }
        check(p, encoding, { bias }, 1 / Math.sqrt(8));
        const b = pe.attentionBias({ ...encoding, heads }, p.qPositions, p.kPositions);
        for (let h = 0; h < heads; h++) for (let i = 0; i < 4; i++) for (let j = 0; j < 9; j++) {
          const want = bias(h, p.qPositions[i], p.kPositions[j]);
          assert.ok(Math.abs(b[(h * 4 + i) * 9 + j] - want) <= relTol(want), `${encoding.kind} bias h${h} i${i} j${j}`);
        }
      }
    }
  }
  // errors name the field
  const p = problem(2, 2, 8, 1, 3, 5);
  assert.throws(() => pe.attention({ ...p, encoding: { kind: 'kerple', variant: 'log', r1: [1], r2: [1, 1] } }), (e) => e instanceof RangeError && /encoding\.r1 must have one value per head \(2\)/.test(e.message));
  assert.throws(() => pe.attention({ ...p, encoding: { kind: 'kerple', variant: 'power', r1: [1, 1], r2: [1, 3] } }), (e) => e instanceof RangeError && /encoding\.r2\[1\] must be at most 2/.test(e.message));
  assert.throws(() => pe.attention({ ...p, encoding: { kind: 'kerple', variant: 'cubic', r1: [1, 1], r2: [1, 1] } }), (e) => e instanceof RangeError && /encoding\.variant must be one of 'log', 'power'/.test(e.message));
  assert.throws(() => pe.attention({ ...p, encoding: { kind: 'fire', hidden: 2, w1: [1, 1], b1: [0, 0], w2: [1, 1], b2: [0, 0] } }), (e) => e instanceof RangeError && /encoding\.w2 must have 4 values/.test(e.message));
  assert.throws(() => pe.attention({ ...p, encoding: { kind: 'fire', hidden: 2, w1: [1, 1], b1: [0, 0], w2: [1, 1, 1, 1], b2: [0, 0], hiden: 3 } }), (e) => e instanceof TypeError && /did you mean 'hidden'/.test(e.message));
});

test('CoPE through pe.attention: gates, reverse cumulative positions, interpolated embeddings (facebookresearch/RAM definition)', () => {
  for (const [heads, kvHeads, npos] of [[4, 2, 5], [3, 3, 30]]) {
    for (const mask of ['causal', 'window', 'keyMask']) {
      const p = { ...problem(heads, kvHeads, 8, 5, 8, 80 + npos), qPositions: [3, 4, 5, 6, 7] };
      if (mask === 'causal') p.causal = true;
      if (mask === 'window') p.window = 3;
      if (mask === 'keyMask') p.keyMask = [1, 0, 1, 1, 1, 0, 1, 1];
      p.q = p.q.map((x) => 3 * x);
      const emb = randomFloats(npos * 8, 9), s = 1 / Math.sqrt(8), d = 8, group = heads / kvHeads;
      const kPos = Array.from({ length: 8 }, (_, j) => j);
      const allowed = (i, j) => (!p.keyMask || p.keyMask[j]) && (!p.causal || kPos[j] <= p.qPositions[i]) && (!p.window || (p.qPositions[i] - kPos[j] >= 0 && p.qPositions[i] - kPos[j] < p.window));
      const got = pe.attention({ ...p, encoding: { kind: 'cope', npos, embeddings: emb }, returnScores: true });
      for (let h = 0; h < heads; h++) for (let i = 0; i < 5; i++) {
        const qi = row(p.q, h * 5 + i, d), kh = Math.floor(h / group);
        const gate = (j) => (allowed(i, j) ? 1 / (1 + Math.exp(-s * dot(qi, row(p.k, kh * 8 + j, d)))) : 0);
        for (let j = 0; j < 8; j++) {
          const score = got.scores[(h * 5 + i) * 8 + j];
          if (!allowed(i, j)) { assert.equal(score, -Infinity); continue; }
          let pos = 0;
          for (let t = j; t < 8; t++) pos += gate(t);
          pos = Math.min(pos, npos - 1);
          const lo = Math.floor(pos), hi = Math.ceil(pos), w = pos - lo;
          const qe = (r) => dot(qi, row(emb, r, d));
          const want = s * (dot(qi, row(p.k, kh * 8 + j, d)) + qe(hi) * w + qe(lo) * (1 - w));
          assert.ok(Math.abs(score - want) < 2e-5, `cope ${mask} h${h} i${i} j${j}: ${score} vs ${want}`);
        }
      }
    }
  }
  const p = problem(2, 2, 8, 1, 3, 5);
  assert.throws(() => pe.attention({ ...p, encoding: { kind: 'cope', npos: 4, embeddings: randomFloats(8, 1) } }), (e) => e instanceof RangeError && /encoding\.embeddings must have npos x headDim = 32/.test(e.message));
});

test('combined encodings: [rope, alibi] rotates and biases; [t5, kerple] biases add; errors name the entry', () => {
  const p = { ...problem(4, 2, 8, 4, 7, 90), causal: true };
  const f = pe.ropeFrequencies({ headDim: 8, base: 100 });
  const slopes = pe.alibiSlopes(4);
  check(p, [{ kind: 'rope', base: 100 }, { kind: 'alibi' }], {
    rotate: (x, pos) => ropeReference(x, pos, f.invFreq, 'half'),
    bias: (h, i, j) => -slopes[h] * (i - j),
  }, 1 / Math.sqrt(8));
  const table = randomFloats(32 * 4, 3), r1 = [0.5, 1, 1.5, 2], r2 = [0.5, 0.5, 1, 1];
  const combo = [{ kind: 't5', table }, { kind: 'kerple', variant: 'log', r1, r2 }];
  const bucket = (rel) => pe.t5Bucket([rel])[0];
  check(p, combo, { bias: (h, i, j) => table[bucket(j - i) * 4 + h] - r1[h] * Math.log(1 + r2[h] * Math.abs(i - j)) }, 1);  // T5's scale 1
  const sum = pe.attentionBias(combo.map((e) => ({ ...e, heads: 4 })), [5, 6], [0, 3, 6]);
  const t5 = pe.attentionBias({ kind: 't5', table, heads: 4 }, [5, 6], [0, 3, 6]);
  const kerple = pe.attentionBias({ kind: 'kerple', variant: 'log', r1, r2, heads: 4 }, [5, 6], [0, 3, 6]);
  assert.ok(maxAbsDiff(sum, t5.map((x, n) => x + kerple[n])) < 1e-6);
  assert.throws(() => pe.attention({ ...p, encoding: [{ kind: 'rope' }, { kind: 'rope' }] }), (e) => e instanceof RangeError && /two 'rope'/.test(e.message));
  assert.throws(() => pe.attention({ ...p, encoding: [] }), RangeError);
  assert.throws(() => pe.attention({ ...p, encoding: [{ kind: 'alibi' }, { kind: 'alibi', sloeps: [1] }] }), (e) => e instanceof TypeError && /unknown option 'sloeps' in encoding\[1\]/.test(e.message));
  assert.throws(() => pe.attentionBias([{ kind: 'alibi', heads: 4 }, { kind: 'cope', npos: 2, embeddings: [1] }], [0], [0]), (e) => e instanceof RangeError && /scalar-bias/.test(e.message));
  // the cache attends with a combination of score terms over its own rope: the same as attention with
  // rope in the combination, for a query at position 6 over the cached keys 0..6
  const qOne = new Float32Array(4 * 8);
  for (let h = 0; h < 4; h++) qOne.set(row(p.q, h * 4 + 3, 8), h * 8);
  const cache = new pe.KVCache({ kvHeads: 2, headDim: 8, capacity: 8, rope: { base: 100 } });
  cache.append(p.k, p.v);
  const viaCache = cache.attend(qOne, { heads: 4, encoding: [{ kind: 'alibi' }, { kind: 'kerple', variant: 'log', r1, r2 }] }).out;
  assert.throws(() => cache.attend(qOne, { heads: 4, encoding: [{ kind: 'rope' }, { kind: 'alibi' }] }), (e) => e instanceof RangeError && /the cache's own/.test(e.message));
  cache.delete();
  const direct = pe.attention({ ...p, q: qOne, qLen: 1, qPositions: [6], causal: true,
    encoding: [{ kind: 'rope', base: 100 }, { kind: 'alibi' }, { kind: 'kerple', variant: 'log', r1, r2 }] }).out;
  assert.ok(maxAbsDiff(viaCache, direct) < 1e-5, `cache vs attention ${maxAbsDiff(viaCache, direct)}`);
  assert.ok(maxAbsDiff(viaCache, pe.attention({ ...p, q: qOne, qLen: 1, qPositions: [6], causal: true, encoding: { kind: 'rope', base: 100 } }).out) > 1e-3);
});

test('multi-axis RoPE in attention and the cache: [axes, len] rotation positions, maskPositions for masks and score terms', () => {
  const d = 16, heads = 4, kvHeads = 2, qLen = 3, kLen = 6;
  for (const rope of [
    { kind: 'rope', base: 100, multiAxis: 'mrope', sections: [2, 3, 3] },
    { kind: 'rope', base: 100, multiAxis: 'mrope', sections: [3, 3, 2], mropeInterleaved: true },
    { kind: 'rope', base: 100, multiAxis: 'axial2d' },
  ]) {
    const f = pe.ropeFrequencies({ headDim: d, ...rope });
    const axes = f.axes;
    const p = problem(heads, kvHeads, d, qLen, kLen, 120 + axes);
    // an image of 2 x 2 patches between text tokens: (t, h, w) rows per token; sequence index 10..15
    const kAxis = [[10, 11, 11, 11, 11, 13], [10, 11, 11, 12, 12, 13], [10, 11, 12, 11, 12, 13]].slice(0, axes).flat();
    const mask = [10, 11, 12, 13, 14, 15];
    const qAxis = [[11, 11, 13], [11, 12, 13], [12, 12, 13]].slice(0, axes).flat();
    const qMask = mask.slice(kLen - qLen);
    // reference: rotate pair k of each vector by its axis position (pe.applyRope is tested against the definition elsewhere)
    const rot = (x, rows, len, pos) => pe.applyRope(x, { heads: rows, tokens: len, headDim: d }, pos, { headDim: d, ...rope, kind: undefined });
    const qr = rot(p.q, heads, qLen, qAxis), kr = pe.applyRope(p.k, { heads: kvHeads, tokens: kLen, headDim: d }, kAxis, { ...rope, kind: undefined });
    const slopes = pe.alibiSlopes(heads);
    const want = naive({ ...p, q: qr, k: kr, qPositions: qMask, kPositions: mask, causal: true }, { bias: (h, i, j) => -slopes[h] * (i - j) }, 1 / 4);
    const got = pe.attention({ ...p, qPositions: qAxis, kPositions: kAxis, maskPositions: mask, causal: true, encoding: [rope, { kind: 'alibi' }] });
    assert.ok(maxAbsDiff(got.out, want.out) < 2e-5, `${rope.multiAxis} ${rope.mropeInterleaved ?? ''}: ${maxAbsDiff(got.out, want.out)}`);
    // the cache: keys appended with their axis positions and mask positions, queries likewise
    const cache = new pe.KVCache({ kvHeads, headDim: d, capacity: 8, rope });
    const kRows = (x, t0, t1) => { const out = []; for (let h = 0; h < kvHeads; h++) out.push(...x.subarray((h * kLen + t0) * d, (h * kLen + t1) * d)); return Float32Array.from(out); };
    const axisSlice = (pos, len, t0, t1) => Array.from({ length: axes }, (_, a) => pos.slice(a * len + t0, a * len + t1)).flat();
    cache.append(kRows(p.k, 0, 4), kRows(p.v, 0, 4), { positions: axisSlice(kAxis, kLen, 0, 4), maskPositions: mask.slice(0, 4) });
    cache.append(kRows(p.k, 4, 6), kRows(p.v, 4, 6), { positions: axisSlice(kAxis, kLen, 4, 6), maskPositions: mask.slice(4, 6) });
    assert.deepEqual(Array.from(cache.positions()).slice(0, 6), mask);
    const viaCache = cache.attend(p.q, { heads, qPositions: qAxis, maskPositions: qMask, encoding: { kind: 'alibi' } }).out;
    assert.ok(maxAbsDiff(viaCache, got.out) < 2e-5, `cache ${rope.multiAxis}: ${maxAbsDiff(viaCache, got.out)}`);
    // renumbering moves every axis by the slot's delta: the same as attention at the moved positions
    cache.shift(-10);
    const moved = cache.attend(p.q, { heads, qPositions: qAxis.map((x) => x - 10), maskPositions: qMask.map((x) => x - 10), encoding: { kind: 'alibi' } }).out;
    assert.ok(maxAbsDiff(moved, got.out) < 2e-5, `shift ${rope.multiAxis}`);
    assert.throws(() => cache.append(kRows(p.k, 0, 1), kRows(p.v, 0, 1), { positions: [1] }), (e) => e instanceof RangeError && /\[batch, axes, T\]/.test(e.message));
    cache.delete();
    // sizes name the field
    assert.throws(() => pe.attention({ ...p, qPositions: [1, 2, 3], encoding: rope }), (e) => e instanceof RangeError && /qPositions must be \[axes, qLen\]/.test(e.message));
  }
  const p = problem(2, 2, 8, 2, 4, 7);
  assert.throws(() => pe.attention({ ...p, maskPositions: [0, 1, 2, 3], encoding: { kind: 'rope' } }), (e) => e instanceof RangeError && /maskPositions apply only to multi-axis/.test(e.message));
});
