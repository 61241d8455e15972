// The additive family through the package, against float64 references written from each definition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats } from './helpers.mjs';

const pe = await load();

test('positionIds: HF and RoBERTa with left padding and past > 0; nextPositions', () => {
  const mask = [0, 0, 1, 1, 1, 1, 1, 1];
  assert.deepEqual(Array.from(pe.positionIds(mask, { batch: 2, length: 4 })), [1, 1, 0, 1, 0, 1, 2, 3]);
  assert.deepEqual(Array.from(pe.positionIds(mask, { batch: 2, length: 4, style: 'roberta', past: 3 })), [1, 1, 5, 6, 5, 6, 7, 8]);
  assert.deepEqual(Array.from(pe.nextPositions(mask, { batch: 2, length: 4 })), [2, 4]);
  assert.deepEqual(Array.from(pe.nextPositions(new Uint8Array(mask), { batch: 2, past: 10 })), [12, 14]);
  assert.throws(() => pe.positionIds([1, 2], {}), (e) => e instanceof RangeError && /mask\[1\]/.test(e.message));
  assert.throws(() => pe.positionIds([1, 1, 1], { batch: 2 }), RangeError);
});

test('learned: lookup with each out-of-range policy', () => {
  const table = Float32Array.from([0, 1, 10, 11, 20, 21]);
  assert.deepEqual(Array.from(pe.learned([2, 0], { table, dim: 2 })), [20, 21, 0, 1]);
  assert.throws(() => pe.learned([3], { table, dim: 2 }), (e) => e instanceof RangeError && /positions\[0\]/.test(e.message));
  assert.deepEqual(Array.from(pe.learned([7], { table, dim: 2, outOfRange: 'clamp' })), [20, 21]);
  assert.deepEqual(Array.from(pe.learned([0, 1, 2, 3, 4], { table, dim: 2, outOfRange: 'interpolate', interpolateTo: 5 })), [0, 1, 5, 6, 10, 11, 15, 16, 20, 21]);
  assert.throws(() => pe.learned([0], { table: table.subarray(1), dim: 2 }), (e) => e instanceof RangeError && /table/.test(e.message));
});

test('codes: Hamming distance 7 → 8 is 4 in binary, 1 in Gray; fixed ±1 code; bits too few', () => {
  assert.equal(pe.codeDistance(7, 8, { bits: 4 }), 4);
  assert.equal(pe.codeDistance(7, 8, { bits: 4, code: 'gray' }), 1);
  assert.deepEqual(Array.from(pe.binary([5, 6], { bits: 3 })), [1, -1, 1, -1, 1, 1]);
  // Gray 6 = 6 ^ 3 = 5 -> digits 1,0,1
  assert.deepEqual(Array.from(pe.binary([6], { bits: 3, code: 'gray' })), [1, -1, 1]);
  // radix 3, table [bits, radix, dim]
  const table = Float32Array.from({ length: 2 * 3 * 1 }, (_, i) => 10 ** i);
  assert.deepEqual(Array.from(pe.binary([5], { bits: 2, radix: 3, dim: 1, table })), [10 ** (0 * 3 + 2) + 10 ** (1 * 3 + 1)]);
  assert.throws(() => pe.binary([8], { bits: 3 }), (e) => e instanceof RangeError && /bits/.test(e.message));
});

test('lowRank, sparse, randomFeatures (deterministic by seed)', () => {
  assert.deepEqual(Array.from(pe.lowRank([1], { coefficients: [1, 2, 3, 4], basis: [1, 0, 1, 0, 1, 1], rank: 2, dim: 3 })), [3, 4, 7]);
  assert.deepEqual(Array.from(pe.sparse([0], { indices: [0, 2], values: [1, 0.5], k: 2, basis: [1, 0, 0, 1, 4, 4], dim: 2 })), [3, 2]);
  const a = pe.randomFeatures([0, 5, 99], { dim: 8, seed: 7 }), b = pe.randomFeatures([0, 5, 99], { dim: 8, seed: 7 });
  assert.deepEqual(Array.from(a), Array.from(b));
  assert.notDeepEqual(Array.from(a), Array.from(pe.randomFeatures([0, 5, 99], { dim: 8, seed: 8 })));
  for (const x of a) assert.ok(Math.abs(x) <= Math.sqrt(2 / 8) + 1e-7);
  assert.equal(pe.randomFeatures([1, 2], { dim: 4, kind: 'mlp', hidden: 16, seed: 3 }).length, 8);
});

test('axial (Reformer) with unordered ids; product of the shape must cover the positions', () => {
  const W0 = randomFloats(3 * 2, 1), W1 = randomFloats(4 * 3, 2);
  const ids = [11, 0, 5, 7, 3];
  const got = pe.axial(ids, { shape: [3, 4], tables: [W0, W1], dims: [2, 3] });
  const want = ids.flatMap((p) => [...W0.subarray(Math.floor(p / 4) * 2, Math.floor(p / 4) * 2 + 2), ...W1.subarray((p % 4) * 3, (p % 4) * 3 + 3)]);
  assert.deepEqual(Array.from(got), want);
  assert.throws(() => pe.axial([12], { shape: [3, 4], tables: [W0, W1], dims: [2, 3] }), (e) => e instanceof RangeError && /shape/.test(e.message));
  assert.throws(() => pe.axial([1], { shape: [3, 4], tables: [W0, W1], dims: [2, 3], combine: 'sum' }), RangeError);
  const seg = pe.twoLevel([0, 0, 1, 1, 1], { segmentTable: [100, 200], innerTable: [1, 2, 3], segmentDim: 1, innerDim: 1 });
  assert.deepEqual(Array.from(seg), [100, 1, 100, 2, 200, 1, 200, 2, 200, 3]);
  assert.deepEqual(Array.from(pe.modalityPositions([0, 1, 1, 0], { offsets: [0, 128] })), [0, 128, 129, 1]);
});

// DETR PositionEmbeddingSine, written from the reference: mask 1 = valid (HF polarity).
function detr(h, w, F, mask, normalize, T = 10000, scale = 2 * Math.PI) {
  const valid = (y, x) => (mask ? mask[y * w + x] : 1);
  const yE = [], xE = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    let cy = 0, cx = 0;
    for (let k = 0; k <= y; k++) cy += valid(k, x);
    for (let k = 0; k <= x; k++) cx += valid(y, k);
    yE.push(cy); xE.push(cx);
  }
  if (normalize) {
    const y0 = yE.slice(), x0 = xE.slice();
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      yE[y * w + x] = y0[y * w + x] / (y0[(h - 1) * w + x] + 1e-6) * scale;
      xE[y * w + x] = x0[y * w + x] / (x0[y * w + (w - 1)] + 1e-6) * scale;
    }
  }
  const out = [];
  for (let i = 0; i < h * w; i++) for (const e of [yE[i], xE[i]]) for (let k = 0; k < F; k++) {
    const a = e / T ** (2 * Math.floor(k / 2) / F);
    out.push(k % 2 === 0 ? Math.sin(a) : Math.cos(a));
  }
  return out;
}

test('sine2d = DETR with a padding mask, with and without normalize; sine3d channel layout', () => {
  const mask = [1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0];  // 3 x 4, valid region 2 x 3
  for (const normalize of [false, true]) {
    const got = pe.sine2d({ height: 3, width: 4, numPosFeats: 8, mask, normalize });
    assert.ok(maxAbsDiff(got, detr(3, 4, 8, mask, normalize)) < 1e-5);
  }
  const v3 = pe.sine3d({ frames: 2, height: 1, width: 2, numPosFeats: 4 });
  assert.equal(v3.length, 2 * 1 * 2 * 12);
  assert.ok(Math.abs(v3[12 * 2 + 0] - Math.sin(2)) < 1e-6);  // frame 1: t_embed = 2
  assert.throws(() => pe.sine2d({ height: 2, width: 2, mask: [1, 1, 1] }), (e) => e instanceof RangeError && /mask/.test(e.message));
});

// PyTorch upsample_bicubic2d (align_corners=False, A=-0.75, clamped taps), written from its definition.
function bicubic(grid, fh, fw, th, tw, dim, mapping) {
  const keys = (x) => { const A = -0.75; x = Math.abs(x); return x <= 1 ? ((A + 2) * x - (A + 3)) * x * x + 1 : ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  const src = (o, i, n) => (mapping === 'size' ? (o + 0.5) * (i / n) - 0.5 : (o + 0.5) / ((n + 0.1) / i) - 0.5);
  const out = [];
  for (let y = 0; y < th; y++) for (let x = 0; x < tw; x++) {
    const sy = src(y, fh, th), sx = src(x, fw, tw), y0 = Math.floor(sy), x0 = Math.floor(sx);
    for (let c = 0; c < dim; c++) {
      let s = 0;
      for (let a = -1; a <= 2; a++) for (let b = -1; b <= 2; b++) {
        const yy = Math.min(Math.max(y0 + a, 0), fh - 1), xx = Math.min(Math.max(x0 + b, 0), fw - 1);
        s += keys(sy - (y0 + a)) * keys(sx - (x0 + b)) * grid[(yy * fw + xx) * dim + c];
      }
      out.push(s);
    }
  }
  return out;
}

test('resizeGrid: ViT bicubic to a non-square size, both mappings, CLS copied', () => {
  const fh = 4, fw = 4, dim = 3;
  const grid = randomFloats((1 + fh * fw) * dim, 9);
  for (const mapping of ['size', 'scaleFactor']) {
    const got = pe.resizeGrid(grid, { from: [fh, fw], to: [5, 7], dim, mapping, prefixTokens: 1 });
    assert.deepEqual(Array.from(got.subarray(0, dim)), Array.from(grid.subarray(0, dim)));
    assert.ok(maxAbsDiff(got.subarray(dim), bicubic(grid.subarray(dim), fh, fw, 5, 7, dim, mapping)) < 1e-5, mapping);
  }
  const bl = pe.resizeGrid([0, 8], { from: [1, 2], to: [1, 4], dim: 1, mode: 'bilinear' });
  assert.deepEqual(Array.from(bl), [0, 2, 6, 8]);
  assert.throws(() => pe.resizeGrid(grid, { from: [4, 5], to: [2, 2], dim, prefixTokens: 1 }), (e) => e instanceof RangeError && /grid/.test(e.message));
});

test('parameter counts per method (the survey comparison)', () => {
  assert.equal(pe.parameterCount('sinusoidal'), 0);
  assert.equal(pe.parameterCount('learned', { maxPositions: 512, dim: 768 }), 512 * 768);
  assert.equal(pe.parameterCount('axial', { shape: [64, 64], dims: [256, 512] }), 64 * 256 + 64 * 512);
  assert.equal(pe.parameterCount('t5', { heads: 12 }), 32 * 12);
  assert.equal(pe.parameterCount('lowRank', { maxPositions: 512, rank: 16, dim: 768 }), 512 * 16 + 16 * 768);
  assert.throws(() => pe.parameterCount('magic'), RangeError);
});
