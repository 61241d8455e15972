// Why order matters: self-attention without a positional encoding cannot tell "the cat chased the dog"
// from "the dog chased the cat" — each word gets the same output in both orders (the outputs are just
// permuted). Any encoding breaks that symmetry. Every number comes from pe.attention.
import { heatmapFigure } from '../plot.mjs';
import { $, bindSegmented, demo, demoFloats } from '../common.mjs';

const A = ['the', 'cat', 'chased', 'the', 'dog'];
const B = ['the', 'dog', 'chased', 'the', 'cat'];
const D = 16;  // embedding width: small fixed vectors per word
// ALiBi's one-head slope (2^-8 = 1/256) would barely move five tokens; 1/2 is the first head of an 8-head model
const ALIBI_SLOPE = 0.5;
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
    const encoding = state.enc === 'rope' ? { kind: 'rope' } : state.enc === 'alibi' ? { kind: 'alibi', heads: 1, symmetric: true, slopes: [ALIBI_SLOPE] } : { kind: 'none' };
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
    // one colour scale for both sentences, so equal weights look equal; words on the axes
    const wMax = Math.max(...a.weights, ...b.weights);
    const figure = (id, words, w) => heatmapFigure($(id), w, words.length, words.length, {
      color: 'sequential', min: 0, max: wMax, legend: 'attention weight', xLabel: 'key (attended word)', yLabel: 'query',
      xTicks: words.map((text, i) => ({ i, text })), yTicks: words.map((text, i) => ({ i, text })), legendFormat: (v) => v.toFixed(2),
    });
    figure('order-weights-a', A, a.weights);
    figure('order-weights-b', B, b.weights);
    const rows = A.map((w, i) => `<tr><td>${w}</td><td class="num">${i}</td><td class="num">${MATCH[i]}</td>`
      + `<td class="num ${diffs[i] < 1e-6 ? 'same' : 'differs'}" title="${diffs[i] < 1e-6 ? 'identical to float rounding' : 'the word comes out differently'}">${diffs[i] < 1e-6 ? diffs[i].toExponential(0) + ' ✓' : diffs[i].toFixed(3)}</td></tr>`);
    $('order-body').innerHTML = rows.join('');
    const worst = Math.max(...diffs);
    $('order-caption-b').textContent = {
      none: 'weights for “the dog chased the cat”: with no encoding, the same matrix with rows and columns swapped',
      sinusoidal: 'weights for “the dog chased the cat”: with sinusoidal vectors added, no longer a permutation of the first — each word attends by where it stands too',
      rope: 'weights for “the dog chased the cat”: with RoPE, q·k depends on the distance between the words, so swapping them changes the weights',
      alibi: `weights for “the dog chased the cat”: ALiBi subtracts ${ALIBI_SLOPE}·|i − j| from every score, so each word leans towards its neighbours — whichever words those are`,
    }[state.enc];
    $('order-caption').textContent = state.enc === 'none'
      ? `No encoding: every word's output is the same in both sentences (largest difference ${worst.toExponential(1)}, float rounding) — the model sees a bag of words.`
      : `With ${state.enc === 'sinusoidal' ? 'sinusoidal vectors added' : state.enc === 'rope' ? 'RoPE' : `ALiBi (slope ${ALIBI_SLOPE}, symmetric)`}, the same word gets a different output depending on where it stands (up to ${worst.toFixed(3)}).`;
  }
  bindSegmented('order-enc', state, 'enc', draw);
  return draw;
}
