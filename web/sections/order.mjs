// Why order matters: self-attention without a positional encoding cannot tell "the cat chased the dog"
// from "the dog chased the cat" — each word gets the same output in both orders (the outputs are just
// permuted). Any encoding breaks that symmetry. Every number comes from pe.attention.
import { heatmap } from '../plot.mjs';
import { $, bindSegmented, demo, demoFloats } from '../common.mjs';

const A = ['the', 'cat', 'chased', 'the', 'dog'];
const B = ['the', 'dog', 'chased', 'the', 'cat'];
const D = 16;  // embedding width: small fixed vectors per word
const WORDS = ['the', 'cat', 'chased', 'dog'];
const EMBED = Object.fromEntries(WORDS.map((w, i) => [w, demoFloats(D, 101 + i)]));

// Which token of B holds the same word as token i of A (the two 'the' pair up in order).
const MATCH = A.map((w, i) => B.findIndex((b, j) => b === w && A.slice(0, i).filter((x) => x === w).length === B.slice(0, j).filter((x) => x === w).length));

export function orderSection(pe) {
  const state = { enc: 'none' };
  function attend(words) {
    const T = words.length, x = new Float32Array(T * D);
    attend.lastInput = x;
    words.forEach((w, t) => x.set(EMBED[w], t * D));
    if (state.enc === 'sinusoidal') {  // additive: the position vector is added to each token's embedding
      const p = pe.sinusoidal(Int32Array.from({ length: T }, (_, t) => t), { dim: D });
      for (let i = 0; i < x.length; i++) x[i] += p[i];
    }
    const encoding = state.enc === 'rope' ? { kind: 'rope' } : state.enc === 'alibi' ? { kind: 'alibi', heads: 1, symmetric: true } : { kind: 'none' };
    // one head, q = k = v = the (encoded) embeddings, every token sees every other (no causal mask)
    return pe.attention({ q: x, k: x, v: x, heads: 1, headDim: D, qLen: T, kLen: T, encoding, returnWeights: true });
  }
  function draw() {
    const a = attend(A), inputA = attend.lastInput, b = attend(B);
    const diffs = A.map((_, i) => {
      let m = 0;
      for (let c = 0; c < D; c++) m = Math.max(m, Math.abs(a.out[i * D + c] - b.out[MATCH[i] * D + c]));
      return m;
    });
    demo.order = { enc: state.enc, diffs, match: MATCH, inputA: Array.from(inputA), outA: Array.from(a.out) };
    heatmap($('order-weights-a'), a.weights, A.length, A.length, Math.max(...a.weights));
    heatmap($('order-weights-b'), b.weights, B.length, B.length, Math.max(...b.weights));
    const rows = A.map((w, i) => `<tr><td>${w}</td><td class="num">${i}</td><td class="num">${MATCH[i]}</td>`
      + `<td class="num ${diffs[i] < 1e-6 ? 'same' : 'differs'}" title="${diffs[i] < 1e-6 ? 'identical to float rounding' : 'the word comes out differently'}">${diffs[i] < 1e-6 ? diffs[i].toExponential(0) + ' ✓' : diffs[i].toFixed(3)}</td></tr>`);
    $('order-body').innerHTML = rows.join('');
    const worst = Math.max(...diffs);
    $('order-caption').textContent = state.enc === 'none'
      ? `No encoding: every word's output is the same in both sentences (largest difference ${worst.toExponential(1)}, float rounding) — the model sees a bag of words.`
      : `With ${state.enc === 'sinusoidal' ? 'sinusoidal vectors added' : state.enc === 'rope' ? 'RoPE' : 'ALiBi'}, the same word gets a different output depending on where it stands (up to ${worst.toFixed(3)}).`;
  }
  bindSegmented('order-enc', state, 'enc', draw);
  return draw;
}
