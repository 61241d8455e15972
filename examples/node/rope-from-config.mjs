// RoPE exactly as a Hugging Face model configures it: read config.json, get the model's rotary
// frequencies, rotate q and k, and run causal attention with the same encoding.
//
//   node examples/node/rope-from-config.mjs [path/to/config.json]
//
// Checks two facts and exits non-zero if either fails:
//   1. attention({ encoding: rope }) on raw q, k  ==  attention with no encoding on q, k rotated by applyRope;
//   2. q·k after rotation depends only on the distance between the two positions.
import { existsSync, readFileSync } from 'node:fs';
import { load } from 'posenc';

// Default: Llama 3.1 8B's config, from this repository's test fixtures.
const path = process.argv[2] ?? new URL('../../tests/fixtures/hf/llama-3.1-8b.json', import.meta.url);
if (!existsSync(path)) {
  console.error('usage: node rope-from-config.mjs path/to/config.json');
  process.exit(2);
}
const config = JSON.parse(readFileSync(path, 'utf8'));

const pe = await load();

// 1. The rotary setup the model's own code derives from its config (head dim, base, scaling, layout, ...).
const rope = pe.ropeConfigFromHF(config);
const { invFreq, attentionScale, rotaryDim } = pe.ropeFrequencies(rope);
console.log(`rope config: ${JSON.stringify(rope)}`);
console.log(`rotary dim: ${rotaryDim} of ${rope.headDim} head channels`);
console.log(`inverse frequency, first pair: ${invFreq[0]} rad/token`);
console.log(`inverse frequency, last pair: ${invFreq[invFreq.length - 1]} rad/token`);
console.log(`attention scale: ${attentionScale}`);

// 2. Random q, k, v for a few heads (grouped-query: 4 query heads share 2 kv heads), tokens 0..T-1.
const heads = 4, kvHeads = 2, headDim = rope.headDim, T = 16;
const positions = Int32Array.from({ length: T }, (_, i) => i);
let seed = 1;
const random = (n) => Float32Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1);
const q = random(heads * T * headDim), k = random(kvHeads * T * headDim), v = random(kvHeads * T * headDim);

// Rotate q and k at their positions: x is [heads, tokens, headDim], row-major.
const qRot = pe.applyRope(q, { heads, tokens: T, headDim }, positions, rope);
const kRot = pe.applyRope(k, { heads: kvHeads, tokens: T, headDim }, positions, rope);

// 3. Causal attention two ways: posenc rotates internally, or we pass the rotated q, k with no encoding.
const shape = { heads, kvHeads, headDim, qLen: T, kLen: T, causal: true, qPositions: positions, kPositions: positions };
const withRope = pe.attention({ ...shape, q, k, v, encoding: { kind: 'rope', ...rope } }).out;
const preRotated = pe.attention({ ...shape, q: qRot, k: kRot, v }).out;
let diff = 0;
for (let i = 0; i < withRope.length; i++) diff = Math.max(diff, Math.abs(withRope[i] - preRotated[i]));
console.log(`max |attention(rope) - attention(pre-rotated q, k)|: ${diff.toExponential(2)}`);
if (!(diff < 1e-5)) throw new Error(`attention with the rope encoding differs from attention on rotated q, k by ${diff}`);

// 4. Relative positions: rotate one query vector and one key vector to (m, n) pairs with the same
//    distance m - n = 2, near the start and far out; q·k must not change.
const dot = (m, n) => {
  const one = { heads: 1, tokens: 1, headDim };
  const a = pe.applyRope(q.subarray(0, headDim), one, [m], rope);
  const b = pe.applyRope(k.subarray(0, headDim), one, [n], rope);
  return a.reduce((s, x, c) => s + x * b[c], 0);
};
const scores = [[2, 0], [10, 8], [1000, 998], [100002, 100000]].map(([m, n]) => dot(m, n));
const spread = Math.max(...scores) - Math.min(...scores);
console.log(`q·k at distance 2 for positions 2, 10, 1000, 100002: ${scores.map((s) => s.toFixed(5)).join(', ')} (spread ${spread.toExponential(2)})`);
if (!(spread < 1e-4)) throw new Error(`q·k depends on more than the position difference (spread ${spread})`);

console.log('ok');
