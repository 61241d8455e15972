// Score terms: the bias a relative encoding adds to each (query, key) score, and the attention it yields.
import { heatmapFigure, lineChart } from '../plot.mjs';
import { $, bindInput, bindSegmented, demo, demoFloats } from '../common.mjs';

const ENCODINGS = {
  alibi: (heads) => ({ kind: 'alibi', heads }),
  'alibi-symmetric': (heads) => ({ kind: 'alibi', heads, symmetric: true }),
  t5: (heads) => ({ kind: 't5', heads, table: t5Table(heads), bidirectional: true }),
  't5-causal': (heads) => ({ kind: 't5', heads, table: t5Table(heads), bidirectional: false }),
};

// A smooth, deterministic stand-in for a trained T5 bias table [32 buckets, heads]: bias falls with distance.
function t5Table(heads) {
  const t = new Float32Array(32 * heads);
  for (let b = 0; b < 32; b++) for (let h = 0; h < heads; h++) t[b * heads + h] = -((b % 16) / 4) * (h + 1) / heads + (b >= 16 ? 0.5 : 0);
  return t;
}

export function scoresSection(pe) {
  const state = { kind: 'alibi', heads: 8, head: 0, length: 48 };
  const headDim = 16;

  function draw() {
    const { heads, length: T } = state;
    state.head = Math.min(state.head, heads - 1);
    const headInput = $('scores-head');  // the head slider offers exactly the heads there are
    headInput.max = String(heads - 1);
    headInput.value = String(state.head);
    $('scores-head-out').textContent = String(state.head);
    const encoding = ENCODINGS[state.kind](heads);
    const positions = Int32Array.from({ length: T }, (_, i) => i);
    const bias = pe.attentionBias(encoding, positions, positions);
    const h = state.head;
    const causal = state.kind === 'alibi' || state.kind === 't5-causal';
    // causal kinds never see j > i: those cells are drawn as masked rather than as a bias
    const slice = bias.slice(h * T * T, (h + 1) * T * T);
    if (causal) for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) slice[i * T + j] = NaN;
    let maxAbs = 1e-9, maxVal = -Infinity;
    for (const x of slice) if (!Number.isNaN(x)) { maxAbs = Math.max(maxAbs, Math.abs(x)); maxVal = Math.max(maxVal, x); }
    // both figures share their layout (same colour-bar width), so the two plots are the same size
    const axes = { xLabel: 'key j →', yLabel: '← query i', minTickWidth: 36 };
    // ALiBi never adds a positive bias: its colour bar runs from the most negative value to 0
    heatmapFigure($('scores-bias'), slice, T, T, { ...axes, max: maxAbs, ...(maxVal <= 0 ? { hi: 0 } : {}), legend: `bias, head ${h}` });

    // small random q, k (content scores of order 1) so the position term's effect is visible
    const q = demoFloats(heads * T * headDim, 7).map((x) => 0.35 * x), k = demoFloats(heads * T * headDim, 8).map((x) => 0.35 * x);
    const v = demoFloats(heads * T * headDim, 9);
    const { weights } = pe.attention({ q, k, v, heads, headDim, qLen: T, kLen: T, causal, encoding, returnWeights: true });
    const w = weights.subarray(h * T * T, (h + 1) * T * T);
    let maxW = 1e-9;
    for (const x of w) maxW = Math.max(maxW, x);
    heatmapFigure($('scores-weights'), w.map((x, n) => (causal && n % T > Math.floor(n / T) ? NaN : x / maxW)), T, T,
      { ...axes, color: 'sequential', min: 0, max: 1, legend: 'weight ÷ largest' });
    demo.scores = { kind: state.kind, heads, head: h, biasRange: [-maxAbs, maxVal <= 0 ? 0 : maxAbs], plots: [$('scores-bias').plot, $('scores-weights').plot], bias: Array.from(slice.subarray(0, T)), weightsRowSum: w.subarray((T - 1) * T, T * T).reduce((a, b) => a + b, 0) };

    if (state.kind.startsWith('alibi')) {
      const slopes = pe.alibiSlopes(heads);
      $('scores-caption').textContent = `ALiBi slopes for ${heads} heads: [${Array.from(slopes, (s) => fmtSlope(s)).join(', ')}]. ` +
        `Head ${h} adds −${fmtSlope(slopes[h])}·(i − j)` + (heads & (heads - 1) ? ' — not a power of two, so the slopes interleave (not monotone).' : '.');
    } else {
      const buckets = pe.t5Bucket(Int32Array.from({ length: 9 }, (_, i) => [-200, -64, -20, -8, -1, 1, 8, 20, 200][i]), { bidirectional: state.kind === 't5' });
      $('scores-caption').textContent = `T5 buckets of key − query for −200, −64, −20, −8, −1, 1, 8, 20, 200: [${Array.from(buckets).join(', ')}] — ` +
        (state.kind === 't5' ? 'exact up to 8, then logarithmic; the sign picks the half. (Bias table: a synthetic stand-in for trained weights.)' : 'causal: every future key shares bucket 0.');
    }
  }

  // DeBERTa: row of the position table used for distance i - j under both conventions (span 256),
  // zoomed on the far negative side where they part.
  function drawDeberta() {
    const deltas = Int32Array.from({ length: 321 }, (_, i) => i - 680);  // -680 .. -360
    const row = (convention) => Array.from(pe.debertaBucket(deltas, { bucketSize: 256, maxPosition: 512, convention }), (b) => Math.min(511, Math.max(0, b + 256)));
    const hf = row('hf'), ms = row('microsoft');
    const xs = Array.from(deltas);
    lineChart($('scores-deberta'), [
      { name: 'HF (no clamp)', color: '#2f5fb3', ys: hf, xs, width: 2.5 },
      { name: 'microsoft/DeBERTa (clamp first)', color: '#e8a33d', ys: ms, xs, dash: [6, 4], width: 2.5 },
    ], { xLabel: 'relative distance i − j', yLabel: 'position-table row', aspect: 0.27, yMin: 0 });
    let last = null;
    xs.forEach((x, i) => { if (hf[i] !== ms[i]) last = x; });
    demo.deberta = { lastDifference: last, hfAt: hf[0], msAt: ms[0] };
    $('scores-deberta-caption').textContent = last === null ? 'The conventions agree on this range.'
      : `They part for i − j ≤ ${last}: HF reads row ${hf[0]}, microsoft/DeBERTa row ${ms[0]} — a different learned vector for every key that far back.`;
  }

  bindSegmented('scores-kind', state, 'kind', draw);
  bindInput('scores-heads', state, 'heads', draw);
  bindInput('scores-head', state, 'head', draw);
  bindInput('scores-len', state, 'length', draw);
  return () => { draw(); drawDeberta(); };
}

function fmtSlope(s) {
  const e = Math.log2(s);
  return Number.isInteger(e) ? `2^${e}` : s.toPrecision(3);
}
