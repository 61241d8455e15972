// Traps a new user hit (issue 20): non-finite tensors, integer typed arrays for float tensors (fp16 bit
// patterns), the messages for a wrong `heads` in cache.attend and for config.json keys passed as options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';

const pe = await load();
const shape = { heads: 1, tokens: 2, headDim: 4 };

test('applyRope and rotateByDelta refuse NaN and ±Infinity by index, spelled as JavaScript spells them', () => {
  const x = new Float32Array(8).fill(0.5);
  x[5] = NaN;
  assert.throws(() => pe.applyRope(x, shape, [0, 1], {}), { name: 'RangeError', message: 'x[5] must be finite (got NaN)' });
  x[5] = Infinity;
  assert.throws(() => pe.applyRope(x, shape, [0, 1], {}), { name: 'RangeError', message: 'x[5] must be finite (got Infinity)' });
  x[5] = -Infinity;
  assert.throws(() => pe.rotateByDelta(x, shape, [1, 1], {}), { name: 'RangeError', message: 'x[5] must be finite (got -Infinity)' });
  const q = new Float32Array(8).fill(0.5), k = q.slice(), v = q.slice();
  q[5] = Infinity;
  assert.throws(() => pe.attention({ q, k, v, heads: 1, headDim: 4, qLen: 2, kLen: 2 }), { name: 'RangeError', message: 'q[5] must be finite (got Infinity)' });
});

test('KV cache: append refuses a non-finite key, attend names heads when q does not fit them', () => {
  const cache = new pe.KVCache({ kvHeads: 2, headDim: 4, capacity: 8 });
  const k = new Float32Array(16).fill(0.25), v = k.slice();
  k[3] = NaN;
  assert.throws(() => cache.append(k, v), { name: 'RangeError', message: 'k[3] must be finite (got NaN)' });
  cache.append(new Float32Array(16).fill(0.25), v);
  // 6 head vectors of 4 floats: heads = 4 does not divide them
  assert.throws(() => cache.attend(new Float32Array(24), { heads: 4 }), { name: 'RangeError', message: /^heads \(4\) does not fit q: q holds 6 head vectors/ });
  assert.throws(() => cache.attend(new Float32Array(12), { heads: 3 }), { name: 'RangeError', message: "heads (3) must be a multiple of the cache's kvHeads (2)" });
  assert.equal(cache.attend(new Float32Array(8).fill(0.1), { heads: 2 }).out.length, 8);
  cache.delete();
});

test('an integer typed array for a float tensor is a TypeError that mentions fp16', () => {
  const half = new Uint16Array(8).fill(0x3c00);  // 1.0 in fp16, as bits
  assert.throws(() => pe.applyRope(half, shape, [0, 1], {}), { name: 'TypeError', message: /^x must be a Float32Array, not an integer array \(got Uint16Array\): fp16/ });
  for (const T of [Int8Array, Uint8Array, Int16Array, Int32Array, Uint32Array]) {
    assert.throws(() => pe.applyRope(new T(8), shape, [0, 1], {}), { name: 'TypeError', message: /fp16/ });
  }
  // Float64Array and plain arrays of numbers are still converted
  assert.equal(pe.applyRope(new Float64Array(8).fill(1), shape, [0, 1], {}).length, 8);
});

test("ropeFrequencies: a config.json key points to the option and to ropeConfigFromHF", () => {
  assert.throws(() => pe.ropeFrequencies({ headDim: 8, rope_theta: 500000 }),
    { name: 'TypeError', message: /unknown option 'rope_theta'.*pass its value as 'base', or the whole config to pe\.ropeConfigFromHF\(config\)/ });
});

test('llama3 scaling without lowFreqFactor is refused (as in C++)', () => {
  assert.throws(() => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 8192, highFreqFactor: 4 } }),
    { name: 'RangeError', message: /lowFreqFactor is required by 'llama3' scaling/ });
});
