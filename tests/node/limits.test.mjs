// Sizes past every real model are refused at once (issue 31): each a RangeError naming the field and
// posenc's limit (posenc/common/limits.hpp: headDim <= 2^16, heads <= 2^16, an additive dim <= 2^20),
// before any work — a headDim of 2^30 once ran ropeFrequencies for 10 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';

const pe = await load();
const tooLong = (field, limit) => ({ name: 'RangeError', message: new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')} must be .*(no larger than|at most) ${limit}\\b`) });

test('ropeFrequencies, applyRope: headDim past 2^16 is refused by name and limit; 2^16 itself is accepted', () => {
  assert.throws(() => pe.ropeFrequencies({ headDim: 2 ** 30, partialRotaryFactor: 0.25 }), tooLong('headDim', 65536));
  assert.throws(() => pe.ropeFrequencies({ headDim: 2 ** 16 + 2 }), tooLong('headDim', 65536));
  const f = pe.ropeFrequencies({ headDim: 2 ** 16 });
  assert.equal(f.invFreq.length, 2 ** 15);
  assert.equal(f.invFreq[0], 1);  // base^0
  assert.throws(() => pe.applyRope(new Float32Array(8), { heads: 1, tokens: 1, headDim: 2 ** 17 }, [0], {}), tooLong('headDim', 65536));
  assert.throws(() => pe.applyRope(new Float32Array(8), { heads: 2 ** 17, tokens: 1, headDim: 8 }, [0], {}), tooLong('heads', 65536));
});

test('attention and the KV cache: heads, kvHeads and headDim past their limits', () => {
  const q = new Float32Array(8), k = new Float32Array(8), v = new Float32Array(8);
  assert.throws(() => pe.attention({ q, k, v, heads: 2 ** 17, headDim: 8, qLen: 1, kLen: 1 }), tooLong('heads', 65536));
  assert.throws(() => pe.attention({ q, k, v, heads: 1, kvHeads: 2 ** 17, headDim: 8, qLen: 1, kLen: 1 }), tooLong('kvHeads', 65536));
  assert.throws(() => pe.attention({ q, k, v, heads: 1, headDim: 2 ** 20, qLen: 1, kLen: 1 }), tooLong('headDim', 65536));
  assert.throws(() => new pe.KVCache({ kvHeads: 1, headDim: 2 ** 20, capacity: 1 }), tooLong('headDim', 65536));
  assert.throws(() => new pe.KVCache({ kvHeads: 2 ** 20, headDim: 8, capacity: 1 }), tooLong('kvHeads', 65536));
  const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4 });
  cache.append(k, v);
  assert.throws(() => cache.attend(q, { heads: 2 ** 17 }), tooLong('heads', 65536));
  cache.delete();
});

test('additive encodings: dim past 2^20', () => {
  assert.throws(() => pe.sinusoidal([0], { dim: 2 ** 21 }), tooLong('dim', 1048576));
  assert.throws(() => pe.binary([0], { dim: 2 ** 21, bits: 4 }), tooLong('dim', 1048576));
  assert.equal(pe.sinusoidal([0], { dim: 2 ** 20 }).length, 2 ** 20);  // at the limit: computed
});
