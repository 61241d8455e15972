// K/V storage through the package (issue 34): new pe.KVCache({ storage }) holds keys and values as f16, bf16
// or ggml's Q8_0 and attends as float32 attention over the stored values, bit for bit; pe.attention and
// cache.append take K / V as f16 / bf16 bit patterns (kvType). The roundings are computed here from their
// definitions (IEEE 754 binary16 and bfloat16, round to nearest even; ggml's quantize_row_q8_0_ref,
// ggml-org/ggml src/ggml-quants.c:276 at d99724f), never by calling posenc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';
import { randomFloats } from './helpers.mjs';

const pe = await load();
const sameBits = (a, b) => a.length === b.length && new Uint32Array(a.buffer, a.byteOffset, a.length).every((x, i) => x === new Uint32Array(b.buffer, b.byteOffset, b.length)[i]);

// --- the formats, from their definitions, in double arithmetic ------------------------------------------
// |x| = q · 2^(e − m) with e its exponent (at least the smallest normal's) and m mantissa bits: q rounded to
// an integer, ties to even (a power-of-two scaling of a float32 is exact in double).
function roundBits(x, { mantissa, minExp, bias, maxFinite }) {
  const sign = x < 0 || Object.is(x, -0) ? 1 : 0, a = Math.abs(x);
  const inf = ((2 * bias + 1) << mantissa);  // exponent all ones, mantissa 0
  if (a >= maxFinite) return { sign, bits: inf };
  let e = minExp;
  if (a >= 2 ** minExp) {
    e = Math.floor(Math.log2(a));
    while (2 ** e > a) e--;
    while (2 ** (e + 1) <= a) e++;
  }
  const scaled = a / 2 ** (e - mantissa);
  let q = Math.floor(scaled);
  const rest = scaled - q;
  if (rest > 0.5 || (rest === 0.5 && q % 2 === 1)) q++;
  // q < 2^m: subnormal (e = minExp); else normal, q = 2^(m+1) carrying into the next exponent
  const bits = q < 2 ** mantissa ? q : ((e + bias) << mantissa) + (q - 2 ** mantissa);
  return { sign, bits };
}
// binary16: 10 mantissa bits, exponent bias 15, smallest normal 2^-14; 65520 (midway past 65504) and up round to infinity
const f16Bits = (x) => { const { sign, bits } = roundBits(x, { mantissa: 10, minExp: -14, bias: 15, maxFinite: 65520 }); return (sign << 15) | bits; };
const f16Value = (h) => {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (e === 0 ? m * 2 ** -24 : (1024 + m) * 2 ** (e - 25));
};
// bfloat16: 7 mantissa bits, bias 127, smallest normal 2^-126; past (2 − 2^-8)·2^127 rounds to infinity
const bf16Bits = (x) => { const { sign, bits } = roundBits(x, { mantissa: 7, minExp: -126, bias: 127, maxFinite: (2 - 2 ** -8) * 2 ** 127 }); return (sign << 15) | bits; };
const bf16Value = (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0];
// ggml's Q8_0 of 32 floats: amax, d = amax / 127 in float32, id = 1 / d, q = roundf(x · id) (halves away
// from zero), the scale stored as fp16(d); a value reads back as q · fp16(d).
function q8Block(x) {
  const f = Math.fround;
  let amax = 0;
  for (const v of x) amax = Math.abs(v) > amax ? Math.abs(v) : amax;
  const d = f(amax / 127), id = d ? f(1 / d) : 0, scale = f16Value(f16Bits(d));
  return Array.from(x, (v) => { const t = f(v * id); return Math.sign(t) * Math.floor(Math.abs(t) + 0.5) * scale + 0; });
}
const storedAs = {
  f16: (x) => Float32Array.from(x, (v) => f16Value(f16Bits(v))),
  bf16: (x) => Float32Array.from(x, (v) => bf16Value(bf16Bits(v))),
  q8: (x) => { const out = new Float32Array(x.length); for (let i = 0; i < x.length; i += 32) out.set(q8Block(x.subarray(i, i + 32)), i); return out; },
};

test('the references above reproduce hand-worked patterns', () => {
  assert.equal(f16Bits(1), 0x3c00);
  assert.equal(f16Bits(65504), 0x7bff);
  assert.equal(f16Bits(65520), 0x7c00);
  assert.equal(f16Bits(2 ** -25), 0);           // tie between 0 and 2^-24: even
  assert.equal(f16Bits(1.5 * 2 ** -24), 2);     // tie: even
  assert.equal(f16Bits(Math.fround(0.1)), 0x2e66);
  assert.equal(f16Bits(-2049), 0xe800);          // tie between 2048 and 2050: even
  assert.equal(bf16Bits(1 + 2 ** -8), 0x3f80);   // tie: even
  assert.equal(bf16Bits(Math.fround(3.4e38)), 0x7f80);
  assert.deepEqual(q8Block(Float32Array.from({ length: 32 }, (_, j) => (j === 0 ? 127 : j === 1 ? 2.5 : j === 2 ? -2.5 : 0))).slice(0, 3), [127, 3, -3]);
  assert.equal(q8Block(Float32Array.from({ length: 32 }, (_, j) => (j === 0 ? 0.5 : 0)))[0], 0.499969482421875);  // 127 · fp16(0.5 / 127)
});

test('storage f16 / bf16 / q8: attend equals a float32 cache holding the stored values, bit for bit (GQA, window and sinks, prefill and decode)', () => {
  const kvHeads = 2, heads = 6, headDim = 64, T = 300, W = 200, S = 4;
  const k = randomFloats(kvHeads * T * headDim, 1).map((x) => x * 3), v = randomFloats(kvHeads * T * headDim, 2).map((x) => x * 3);
  const q = randomFloats(heads * 2 * headDim, 3);
  const rows = (x, t0, n) => { const out = new Float32Array(kvHeads * n * headDim); for (let h = 0; h < kvHeads; h++) out.set(x.subarray((h * T + t0) * headDim, (h * T + t0 + n) * headDim), h * n * headDim); return out; };
  for (const storage of ['f16', 'bf16', 'q8']) {
    const options = { kvHeads, headDim, capacity: S + W, window: W, sinks: S };
    const cache = new pe.KVCache({ ...options, storage }), same = new pe.KVCache(options);
    assert.equal(cache.storage, storage);
    assert.equal(same.storage, 'f32');
    const ks = storedAs[storage](k), vs = storedAs[storage](v);
    cache.append(rows(k, 0, 250), rows(v, 0, 250));   // longer than the window: keys held past capacity
    same.append(rows(ks, 0, 250), rows(vs, 0, 250));
    for (let t = 250; t < T; t += 10) {
      assert.ok(sameBits(cache.attend(q, { heads }).out, same.attend(q, { heads }).out), `${storage} at ${t}`);
      cache.append(rows(k, t, 10), rows(v, t, 10));
      same.append(rows(ks, t, 10), rows(vs, t, 10));
    }
    assert.ok(sameBits(cache.attend(q.subarray(0, heads * headDim), { heads }).out, same.attend(q.subarray(0, heads * headDim), { heads }).out));
    cache.delete();
    same.delete();
  }
});

test('storage: bytes held per format, storage read back, q8 needs headDim a multiple of 32, options checked by name', () => {
  const base = { kvHeads: 8, headDim: 64, capacity: 1000 };  // keys in 16 blocks of 64 slots
  const bytes = { f32: 8 * 1024 * 64 * 4 + 8 * 1000 * 64 * 4, f16: 8 * 1024 * 64 * 2 + 8 * 1000 * 64 * 2, bf16: 8 * 1024 * 64 * 2 + 8 * 1000 * 64 * 2,
    q8: 8 * 1024 * 2 * 34 + 8 * 1000 * 2 * 34 };  // q8: 34 bytes per 32 channels
  for (const storage of ['f32', 'f16', 'bf16', 'q8']) {
    const cache = new pe.KVCache({ ...base, storage });
    assert.equal(cache.storage, storage);
    assert.equal(cache.bytes, bytes[storage], storage);
    cache.delete();
  }
  const plain = new pe.KVCache(base);
  assert.equal(plain.storage, 'f32');
  plain.delete();
  assert.throws(() => new pe.KVCache({ ...base, headDim: 48, storage: 'q8' }), { name: 'RangeError', message: /^headDim \(48\) must be a multiple of 32 with storage 'q8'/ });
  assert.throws(() => new pe.KVCache({ ...base, storage: 'int8' }), { name: 'RangeError', message: /^storage must be one of 'f32', 'f16', 'bf16', 'q8'/ });
  assert.throws(() => new pe.KVCache({ ...base, storge: 'f16' }), { name: 'TypeError', message: /unknown option 'storge'.*did you mean 'storage'/ });
  assert.throws(() => new pe.KVCache({ ...base, storage: 16 }), { name: 'TypeError', message: /^storage must be a string/ });
});

test('a capacity the 4 GiB heap cannot hold is a RangeError naming capacity and the bytes it needs', () => {
  const bytes = 8 * 2 ** 20 * 128 * 4 * 2;  // 8 kv heads × 2^20 slots × 128 channels, float32 keys and values
  assert.throws(() => new pe.KVCache({ kvHeads: 8, headDim: 128, capacity: 2 ** 20 }),
    { name: 'RangeError', message: `capacity (1048576) needs ${bytes} bytes for keys and values (storage 'f32'), more than the 4 GiB wasm heap can hold` });
  assert.throws(() => new pe.KVCache({ kvHeads: 8, headDim: 128, capacity: 2 ** 21, storage: 'q8' }), { name: 'RangeError', message: /^capacity \(2097152\) needs 4563402752 bytes/ });
});

test('a key or value the storage cannot hold is a RangeError naming it; the cache is left as it was', () => {
  const kvHeads = 2, headDim = 32, heads = 4;
  const ok = new Float32Array(kvHeads * headDim).fill(0.5), q = randomFloats(heads * headDim, 5);
  for (const [storage, big] of [['f16', 70000], ['bf16', 3.4e38], ['q8', 1e7]]) {
    const cache = new pe.KVCache({ kvHeads, headDim, capacity: 8, storage, rope: {} });
    cache.append(ok, ok);
    const state = () => ({ p: Array.from(cache.positions()), n: Array.from(cache.nextPositions()), bytes: cache.bytes, out: Array.from(new Uint32Array(cache.attend(q, { heads }).out.buffer)) });
    const before = state();
    const bad = ok.slice();
    bad[headDim + 31] = big;  // kv head 1's last channel: RoPE's slowest pair, nearly unturned
    const at = storage === 'q8' ? /^k\[32\.\.63\] after RoPE at position 1 \(a block of 32 channels, max \|x\| = 10000000\) needs a Q8_0 scale/ : /^k\[63\] after RoPE at position 1 \(/;
    assert.throws(() => cache.append(bad, ok), { name: 'RangeError', message: at });
    assert.deepEqual(state(), before);
    assert.throws(() => cache.append(ok, bad), { name: 'RangeError', message: storage === 'q8' ? /^v\[32\.\.63\]/ : /^v\[63\] \(/ });
    assert.deepEqual(state(), before);
    if (storage === 'f16') assert.throws(() => cache.append(ok, bad), { message: /^v\[63\] \(70000\) is beyond float16's range \(65504\): storage 'f16' cannot hold it/ });
    cache.append(ok, ok);
    assert.deepEqual(Array.from(cache.nextPositions()), [2]);
    cache.delete();
  }
});

test('pe.attention with kvType: K and V as f16 / bf16 bit patterns equal attention over the floats they stand for, bit for bit', () => {
  const heads = 6, kvHeads = 2, headDim = 20, qLen = 3, kLen = 70;
  const q = randomFloats(heads * qLen * headDim, 7);
  const kx = randomFloats(kvHeads * kLen * headDim, 8).map((x) => x * 4), vx = randomFloats(kvHeads * kLen * headDim, 9).map((x) => x * 4);
  for (const [kvType, toBits, value] of [['f16', f16Bits, f16Value], ['bf16', bf16Bits, bf16Value]]) {
    const kb = Uint16Array.from(kx, toBits), vb = Uint16Array.from(vx, toBits);
    const kf = Float32Array.from(kb, value), vf = Float32Array.from(vb, value);
    for (const encoding of [undefined, { kind: 'rope' }, { kind: 'alibi', heads }]) {
      const args = { q, heads, kvHeads, headDim, qLen, kLen, causal: true, returnWeights: true, ...(encoding ? { encoding } : {}) };
      const a = pe.attention({ ...args, k: kb, v: vb, kvType }), b = pe.attention({ ...args, k: kf, v: vf });
      assert.ok(sameBits(a.out, b.out), `${kvType} ${encoding?.kind}`);
      assert.ok(sameBits(a.weights, b.weights), `${kvType} ${encoding?.kind} weights`);
    }
  }
});

test('kvType is checked: a Uint16Array without it stays a TypeError, floats with it a TypeError, non-finite bits a RangeError by index', () => {
  const args = { q: new Float32Array(8).fill(0.5), heads: 1, headDim: 8, qLen: 1, kLen: 1 };
  const bits = new Uint16Array(8).fill(0x3c00);
  assert.throws(() => pe.attention({ ...args, k: bits, v: bits }), { name: 'TypeError', message: /^k must be a Float32Array, not an integer array \(got Uint16Array\): .*pass kvType: 'f16' or 'bf16'/ });
  assert.throws(() => pe.attention({ ...args, k: new Float32Array(8), v: new Float32Array(8), kvType: 'f16' }),
    { name: 'TypeError', message: /^k must be a Uint16Array of f16 bit patterns with kvType 'f16'/ });
  assert.throws(() => pe.attention({ ...args, k: bits, v: bits, kvType: 'q8' }), { name: 'RangeError', message: /^kvType must be one of 'f16', 'bf16'/ });
  assert.throws(() => pe.attention({ ...args, k: bits, v: bits, kvtype: 'f16' }), { name: 'TypeError', message: /unknown option 'kvtype'.*did you mean 'kvType'/ });
  assert.throws(() => pe.attention({ ...args, k: Int16Array.from(bits), v: bits, kvType: 'f16' }), { name: 'TypeError', message: /^k must be a Float32Array, not an integer array \(got Int16Array\)/ });
  const inf = bits.slice();
  inf[5] = 0xfc00;
  assert.throws(() => pe.attention({ ...args, k: inf, v: bits, kvType: 'f16' }), { name: 'RangeError', message: 'k[5] must be finite (got -Infinity: float16 bits 0xfc00)' });
  assert.deepEqual(Array.from(pe.attention({ ...args, k: bits, v: bits, kvType: 'f16' }).out), Array(8).fill(1));  // 0x3c00 = 1
});

test('cache.append with kvType: each token appended as the float its bits stand for', () => {
  const kvHeads = 2, heads = 4, headDim = 32, T = 40;
  const kx = randomFloats(kvHeads * T * headDim, 11), vx = randomFloats(kvHeads * T * headDim, 12), q = randomFloats(heads * headDim, 13);
  for (const [kvType, toBits, value] of [['f16', f16Bits, f16Value], ['bf16', bf16Bits, bf16Value]]) {
    for (const storage of ['f32', 'f16', 'q8']) {
      const a = new pe.KVCache({ kvHeads, headDim, capacity: T, rope: {}, storage }), b = new pe.KVCache({ kvHeads, headDim, capacity: T, rope: {}, storage });
      const kb = Uint16Array.from(kx, toBits), vb = Uint16Array.from(vx, toBits);
      a.append(kb, vb, { kvType });
      b.append(Float32Array.from(kb, value), Float32Array.from(vb, value));
      assert.ok(sameBits(a.attend(q, { heads }).out, b.attend(q, { heads }).out), `${kvType} into ${storage}`);
      assert.throws(() => a.append(kb.subarray(0, kvHeads * headDim), vb.subarray(0, kvHeads * headDim)), { name: 'TypeError', message: /^k must be a Float32Array, not an integer array/ });
      a.delete();
      b.delete();
    }
  }
});
