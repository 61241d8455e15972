// The package as a Node user gets it: import { load } from 'posenc'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats, ropeReference } from './helpers.mjs';

const pe = await load();

function sinusoidReference(p, dim, layout, base = 10000) {
  const row = new Array(dim).fill(0);
  for (let j = 0; j < dim; j++) {
    if (layout === 'interleaved') {
      const w = base ** (-2 * Math.floor(j / 2) / dim);
      row[j] = j % 2 === 0 ? Math.sin(p * w) : Math.cos(p * w);
    } else if (layout === 'concat') {
      const sines = Math.ceil(dim / 2), k = j < sines ? j : j - sines;
      const w = base ** (-2 * k / dim);
      row[j] = j < sines ? Math.sin(p * w) : Math.cos(p * w);
    } else {
      const n = Math.floor(dim / 2);
      if (j >= 2 * n) continue;
      const k = j < n ? j : j - n, w = Math.exp(-k * Math.log(base) / Math.max(n - 1, 1));
      row[j] = j < n ? Math.sin(p * w) : Math.cos(p * w);
    }
  }
  return row;
}

test('load() resolves to the API, and results are fresh JS-owned Float32Arrays', async () => {
  assert.equal(await load(), pe);
  const a = pe.sinusoidal([1, 2], { dim: 8 });
  assert.ok(a instanceof Float32Array);
  assert.equal(a.length, 16);
  assert.ok(!(a.buffer instanceof SharedArrayBuffer));
  const b = pe.sinusoidal([1, 2], { dim: 8 });
  assert.notEqual(a.buffer, b.buffer);
});

test('sinusoidal: all three layouts, odd and even dims, positions 65535 and 1e6 to 1e-6', () => {
  const positions = [0, 1, 2, 63, 65535, 1000000, 2 ** 31 - 1];
  for (const layout of ['interleaved', 'concat', 'tensor2tensor']) {
    for (const dim of [4, 7, 64, 130]) {
      const got = pe.sinusoidal(positions, { dim, layout });
      const want = positions.flatMap((p) => sinusoidReference(p, dim, layout));
      assert.ok(maxAbsDiff(got, want) < 1e-6, `${layout} dim ${dim}: ${maxAbsDiff(got, want)}`);
    }
  }
  // base is honoured
  const got = pe.sinusoidal(new Int32Array([3]), { dim: 2, base: 100, layout: 'interleaved' });
  assert.ok(maxAbsDiff(got, [Math.sin(3), Math.cos(3)]) < 1e-7);
});

test('layouts are different tables, not permutations (t2t frequencies differ from concat)', () => {
  const c = pe.sinusoidal([10], { dim: 8, layout: 'concat' });
  const t = pe.sinusoidal([10], { dim: 8, layout: 'tensor2tensor' });
  assert.notDeepEqual(Array.from(c).sort(), Array.from(t).sort());
  assert.ok(Math.abs(t[1] - Math.sin(10 * 10000 ** (-1 / 3))) < 1e-6);
});

test('ropeFrequencies default schedule and partial rotary', () => {
  const f = pe.ropeFrequencies({ headDim: 8 });
  assert.equal(f.rotaryDim, 8);
  assert.equal(f.attentionScale, 1);
  [1, 0.1, 0.01, 0.001].forEach((w, i) => assert.ok(Math.abs(f.invFreq[i] - w) <= 6e-8 * w, `invFreq[${i}]`));  // float32 rounding
  const g = pe.ropeFrequencies({ headDim: 64, partialRotaryFactor: 0.5, base: 500000 });
  assert.equal(g.rotaryDim, 32);
  assert.equal(g.invFreq.length, 16);
  assert.ok(Math.abs(g.invFreq[5] - 500000 ** (-10 / 32)) <= 6e-8 * g.invFreq[5]);
});

test('applyRope matches a float64 rotation at positions 0..4096 and 1e6, both layouts, partial 0.5', () => {
  const heads = 3, headDim = 64;
  const positions = [];
  for (let p = 0; p <= 4096; p += 13) positions.push(p);
  positions.push(4096, 1000000, 2 ** 24 + 1, 2 ** 31 - 1);
  const tokens = positions.length;
  const x = randomFloats(heads * tokens * headDim, 42);
  for (const layout of ['half', 'interleaved']) {
    for (const partialRotaryFactor of [1, 0.5]) {
      const R = headDim * partialRotaryFactor;
      const invFreq = Array.from({ length: R / 2 }, (_, i) => 10000 ** (-2 * i / R));
      const y = pe.applyRope(x, { heads, tokens, headDim }, positions, { layout, partialRotaryFactor });
      let worst = 0;
      for (let h = 0; h < heads; h++) {
        for (let t = 0; t < tokens; t++) {
          const off = (h * tokens + t) * headDim;
          const v = x.subarray(off, off + headDim);
          const want = [...ropeReference(v.subarray(0, R), positions[t], invFreq, layout), ...v.subarray(R)];
          worst = Math.max(worst, maxAbsDiff(y.subarray(off, off + headDim), want));
        }
      }
      assert.ok(worst < 1e-6, `${layout} prf ${partialRotaryFactor}: ${worst}`);
    }
  }
});

test('applyRope folds the attention scale into the rotated channels only', () => {
  const x = Float32Array.from({ length: 8 }, (_, i) => i + 1);
  const opts = { partialRotaryFactor: 0.5, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 } };
  const f = pe.ropeFrequencies({ headDim: 8, ...opts });
  const y = pe.applyRope(x, { heads: 1, tokens: 1, headDim: 8 }, [0], opts);
  // position 0: the rotation is the identity, so rotated channels are x * attentionScale
  assert.ok(Math.abs(f.attentionScale - (1 + 0.1 * Math.log(4))) < 1e-12);
  assert.ok(maxAbsDiff(y.subarray(0, 4), Array.from(x.subarray(0, 4), (v) => v * f.attentionScale)) < 1e-5);
  assert.deepEqual(Array.from(y.subarray(4)), [5, 6, 7, 8]);
});

test('zero-copy path: alloc buffers, out, and inPlace', () => {
  const n = 2 * 3 * 16;
  const x = randomFloats(n, 5);
  const want = pe.applyRope(x, { heads: 2, tokens: 3, headDim: 16 }, [0, 5, 9], {});
  const buf = pe.alloc(n);
  buf.view().set(x);
  const out = pe.alloc(n);
  const r = pe.applyRope(buf, { heads: 2, tokens: 3, headDim: 16 }, [0, 5, 9], { out });
  assert.equal(r, out);
  assert.deepEqual(Array.from(out.view()), Array.from(want));
  assert.deepEqual(Array.from(buf.view()), Array.from(x), 'the input buffer is untouched without inPlace');
  const r2 = pe.applyRope(buf, { heads: 2, tokens: 3, headDim: 16 }, [0, 5, 9], { inPlace: true });
  assert.equal(r2, buf);
  assert.deepEqual(Array.from(buf.view()), Array.from(want));
  const arr = Float32Array.from(x);
  assert.equal(pe.applyRope(arr, { heads: 2, tokens: 3, headDim: 16 }, [0, 5, 9], { inPlace: true }), arr);
  assert.deepEqual(Array.from(arr), Array.from(want));
  buf.delete(); out[Symbol.dispose]();
  assert.throws(() => buf.view(), RangeError);
  const s = pe.sinusoidal([1], { dim: 4, out: new Float32Array(4) });
  assert.equal(s.length, 4);
});

test('bad input: a clear error naming the field, and the next call still works', () => {
  const cases = [
    [() => pe.sinusoidal([0, 1], { dim: 0 }), RangeError, /dim/],
    [() => pe.sinusoidal([0, 1], { dim: 2.5 }), RangeError, /dim/],
    [() => pe.sinusoidal([0, 1], { dim: '8' }), TypeError, /dim/],
    [() => pe.sinusoidal([0, 1], { dim: 8, base: -1 }), RangeError, /base/],
    [() => pe.sinusoidal([0, 1], { dim: 8, base: 0 }), RangeError, /base/],
    [() => pe.sinusoidal([0, -1], { dim: 8 }), RangeError, /positions\[1\]/],
    [() => pe.sinusoidal([0, 0.5], { dim: 8 }), RangeError, /positions\[1\]/],
    [() => pe.sinusoidal(['1'], { dim: 8 }), TypeError, /positions\[0\]/],
    [() => pe.sinusoidal('01', { dim: 8 }), TypeError, /positions/],
    [() => pe.sinusoidal([1], { dim: 8, layout: 'sideways' }), RangeError, /layout/],
    [() => pe.ropeFrequencies({ headDim: 7 }), RangeError, /rotaryDim/],
    [() => pe.ropeFrequencies({ headDim: 10, partialRotaryFactor: 0.3 }), RangeError, /rotaryDim/],
    [() => pe.ropeFrequencies({ headDim: -8 }), RangeError, /headDim/],
    [() => pe.ropeFrequencies({ headDim: 8, base: 'big' }), TypeError, /base/],
    [() => pe.applyRope(new Float32Array(7), { heads: 1, tokens: 1, headDim: 7 }, [0], {}), RangeError, /rotaryDim/],
    [() => pe.applyRope(new Float32Array(8), { heads: 1, tokens: 2, headDim: 8 }, [0, 1], {}), RangeError, /x must have 16/],
    [() => pe.applyRope(new Float32Array(16), { heads: 1, tokens: 2, headDim: 8 }, [0], {}), RangeError, /positions/],
    [() => pe.applyRope(new Float32Array(16), { heads: 1, tokens: 2, headDim: 8 }, [0, -4], {}), RangeError, /positions\[1\]/],
    [() => pe.applyRope('x', { heads: 1, tokens: 1, headDim: 8 }, [0], {}), TypeError, /x/],
    [() => pe.alloc(2 ** 40), RangeError, /length/],
  ];
  for (const [fn, type, re] of cases) {
    assert.throws(fn, (e) => e instanceof type && re.test(e.message), String(fn));
    const ok = pe.sinusoidal([1], { dim: 2 });
    assert.ok(Math.abs(ok[0] - Math.sin(1)) < 1e-7);
  }
});

test('memory exhaustion is a RangeError, and the module keeps working', () => {
  assert.throws(() => pe.sinusoidal(new Int32Array(1 << 16), { dim: 1 << 15 }), RangeError);
  const ok = pe.sinusoidal([2], { dim: 2 });
  assert.ok(Math.abs(ok[1] - Math.cos(2)) < 1e-7);
});

test('the shipped wasm contains SIMD128 instructions', () => {
  const file = fileURLToPath(new URL('../../dist/posenc_wasm.wasm', import.meta.url));
  const dis = execFileSync('wasm-objdump', ['-d', file], { maxBuffer: 1 << 28 }).toString();
  const count = (op) => dis.split(op).length - 1;
  assert.ok(count('f32x4.mul') >= 4 && count('v128.load') > 0, `f32x4.mul appears ${count('f32x4.mul')} times`);
  assert.ok(count('f64x2.mul') > 0, 'the double-precision sin/cos table is vectorised too');
});

test('fairseq sinusoidal: tensor2tensor table looked up at make_positions ids, padding row zero', () => {
  // fairseq: positions = (cumsum(mask) + past) * mask + padding_idx; emb[padding_idx] = 0
  const mask = [0, 1, 1, 1];
  const ids = pe.positionIds(mask, { style: 'roberta', paddingIdx: 1 });
  assert.deepEqual(Array.from(ids), [1, 2, 3, 4]);
  const got = pe.sinusoidal(ids, { dim: 6, layout: 'tensor2tensor', paddingIdx: 1 });
  assert.deepEqual(Array.from(got.subarray(0, 6)), [0, 0, 0, 0, 0, 0]);
  const want = [2, 3, 4].flatMap((p) => sinusoidReference(p, 6, 'tensor2tensor'));
  assert.ok(maxAbsDiff(got.subarray(6), want) < 1e-6);
  assert.throws(() => pe.sinusoidal([0], { dim: 4, paddingIdx: -2 }), (e) => e instanceof RangeError && /paddingIdx/.test(e.message));
});
