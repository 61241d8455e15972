// Logit soft-capping through the JS API (issue 33): `softcap` on pe.attention and cache.attend, against
// transformers' modeling_gemma2.py eager path (logits = q k^T * scaling; / softcap; tanh; * softcap;
// + mask; softmax) in float64; refusals name the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'posenc';

const pe = await load();
const rand = (n, seed, amp) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i * 12.9898) * amp);

function gemma2({ q, k, v, heads, kvHeads, headDim: hd, qLen, kLen, scale, softcap }) {
  const out = new Float64Array(heads * qLen * hd), logits = new Float64Array(heads * qLen * kLen).fill(-Infinity);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kvHeads));
    for (let i = 0; i < qLen; i++) {
      const qPos = kLen - qLen + i, row = (h * qLen + i) * kLen;
      for (let j = 0; j <= qPos; j++) {
        let s = 0;
        for (let c = 0; c < hd; c++) s += q[(h * qLen + i) * hd + c] * k[(g * kLen + j) * hd + c];
        logits[row + j] = softcap * Math.tanh(s * scale / softcap);
      }
      const m = Math.max(...logits.subarray(row, row + kLen));
      let den = 0;
      for (let j = 0; j < kLen; j++) den += Math.exp(logits[row + j] - m);
      for (let j = 0; j <= qPos; j++)
        for (let c = 0; c < hd; c++) out[(h * qLen + i) * hd + c] += Math.exp(logits[row + j] - m) / den * v[(g * kLen + j) * hd + c];
    }
  }
  return { out, logits };
}
const maxDiff = (a, b) => a.reduce((w, x, i) => (b[i] === -Infinity && x === -Infinity ? w : Math.max(w, Math.abs(x - b[i]))), 0);

test('softcap: attention and cache.attend equal Gemma 2 capped attention; scores are the capped logits', () => {
  const heads = 4, kvHeads = 2, headDim = 16, qLen = 3, kLen = 20;
  const args = { q: rand(heads * qLen * headDim, 1, 5), k: rand(kvHeads * kLen * headDim, 2, 5), v: rand(kvHeads * kLen * headDim, 3, 1),
    heads, kvHeads, headDim, qLen, kLen, causal: true, scale: 0.25, softcap: 8 };
  const want = gemma2(args);
  const got = pe.attention({ ...args, returnScores: true });
  assert.ok(maxDiff(got.scores, want.logits) <= 2e-7 * 8 + 2e-6, `logits differ by ${maxDiff(got.scores, want.logits)}`);
  assert.ok(maxDiff(got.out, want.out) <= 3e-5, `out differs by ${maxDiff(got.out, want.out)}`);
  assert.ok(got.scores.every((s) => s === -Infinity || Math.abs(s) <= 8));
  const uncapped = pe.attention({ ...args, softcap: undefined });
  assert.ok(maxDiff(uncapped.out, want.out) > 1e-3, 'the cap changes the result');
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: 32 });
  cache.append(args.k, args.v);
  const last = args.q.filter((_, x) => Math.floor(x / headDim) % qLen === qLen - 1);
  assert.deepEqual(cache.attend(last, { heads, scale: 0.25, softcap: 8 }).out, pe.attention({ ...args, q: last, qLen: 1 }).out);
  cache.delete();
});

test('softcap: zero, negative, non-finite or a string is refused by name', () => {
  const args = { q: rand(4, 1, 1), k: rand(4, 2, 1), v: rand(4, 3, 1), heads: 1, headDim: 4, qLen: 1, kLen: 1 };
  for (const bad of [0, -1, Infinity, NaN]) assert.throws(() => pe.attention({ ...args, softcap: bad }), { name: 'RangeError', message: /^softcap must be/ });
  assert.throws(() => pe.attention({ ...args, softcap: '50' }), { name: 'TypeError', message: /softcap/ });
  const cache = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 2 });
  cache.append(args.k, args.v);
  assert.throws(() => cache.attend(args.q, { heads: 1, softcap: -2 }), { name: 'RangeError', message: /^softcap must be/ });
  cache.delete();
});
