// Two generalisations of RoPE's turning pairs, computed by pe.applyRope:
// p-RoPE (Barbero et al. 2025): cos of each pair's angle over positions, the truncated pairs flat (they pass
// through unrotated); LieRE (Ostmeier et al. 2024): q·k over a 2-D grid of key offsets, for a query at one
// point and again with query and keys shifted together — equal when the two axes' generators commute.
import { heatmapFigure } from '../plot.mjs';
import { $, bindInput, bindSegmented, demo, demoFloats } from '../common.mjs';

const HEAD_DIM = 64, HALF = HEAD_DIM / 2, SPAN = 64, R = 8, SIDE = 2 * R + 1, Q0 = [R, R];  // keys at offsets −R..R from the query stay at positions >= 0

// 2 axes x 2 blocks of 3 channels: each generator is the skew matrix of a rotation axis w (x ↦ w × x)
const skewOf = ([a, b, c], s) => [0, -c * s, b * s, c * s, 0, -a * s, -b * s, a * s, 0];
export const LIERE_GENERATORS = {
  // both axes turn about the same direction in each block: the generators commute
  commuting: [skewOf([1, 2, 2], 0.12), skewOf([0, 0, 1], 0.5), skewOf([1, 2, 2], 0.3), skewOf([0, 0, 1], 0.21)],
  // x turns about e1, y about e2: they do not commute
  'non-commuting': [skewOf([1, 0, 0], 0.35), skewOf([0, 1, 0], 0.5), skewOf([0, 1, 0], 0.35), skewOf([0, 0, 1], 0.5)],
};

export function rotationVariantsSection(pe) {
  const state = { p: 0.25, kept: 'high', gen: 'commuting', shift: 12 };
  const q = demoFloats(6, 61), k = demoFloats(6, 62);

  function drawPRope() {
    const { p, kept } = state;
    const rope = { headDim: HEAD_DIM, frequencyFraction: p, ...(p < 1 ? { keptFrequencies: kept } : {}) };
    // every token's first-half channels 1: after the rotation, channel i holds cos(position × ω_i) (half layout)
    const x = new Float32Array(SPAN * HEAD_DIM);
    for (let t = 0; t < SPAN; t++) x.fill(1, t * HEAD_DIM, t * HEAD_DIM + HALF);
    const r = pe.applyRope(x, { heads: 1, tokens: SPAN, headDim: HEAD_DIM }, Int32Array.from({ length: SPAN }, (_, t) => t), rope);
    const img = new Float32Array(HALF * SPAN);
    for (let i = 0; i < HALF; i++) for (let t = 0; t < SPAN; t++) img[i * SPAN + t] = r[t * HEAD_DIM + i];
    const inv = pe.ropeFrequencies(rope).invFreq, still = Array.from(inv).filter((w) => w === 0).length;
    heatmapFigure($('rv-prope'), img, HALF, SPAN, { max: 1, xLabel: 'position', yLabel: 'pair i (0 = fastest)', legend: 'cos(position · ω_i)',
      title: `p = ${p}: ${HALF - still} pairs turn, ${still} pass through` });
    demo.rotationVariants = { ...demo.rotationVariants, prope: { p, kept, passThrough: still, invFreq: Array.from(inv) } };
    $('rv-prope-out').textContent = `${HALF - still} of ${HALF} pairs keep their frequency (the ${kept === 'high' ? 'highest' : 'lowest'}); `
      + `the ${still} flat rows have frequency 0: their channels pass through unrotated and carry content at any distance.`;
  }

  // q·k for q at `at` and keys at at + (dx, dy), dx, dy in [−R, R]: one applyRope call for all keys
  function scores(rope, at) {
    const n = SIDE * SIDE, pos = new Int32Array(2 * n), keys = new Float32Array(n * 6);
    for (let y = 0; y < SIDE; y++)
      for (let x = 0; x < SIDE; x++) {
        const t = y * SIDE + x;
        pos[t] = at[0] + x - R; pos[n + t] = at[1] + y - R;
        keys.set(k, t * 6);
      }
    const qr = pe.applyRope(q, { heads: 1, tokens: 1, headDim: 6 }, at, rope);
    const kr = pe.applyRope(keys, { heads: 1, tokens: n, headDim: 6 }, pos, rope);
    const out = new Float32Array(n);
    for (let t = 0; t < n; t++) { let s = 0; for (let c = 0; c < 6; c++) s += qr[c] * kr[t * 6 + c]; out[t] = s; }
    return out;
  }

  function drawLiere() {
    const { gen, shift } = state;
    const generators = Float32Array.from(LIERE_GENERATORS[gen].flat());
    const rope = { multiAxis: 'liere', blockSize: 3, generators };
    const a = scores(rope, Q0), b = scores(rope, [Q0[0] + shift, Q0[1] + shift]);
    let diff = 0, max = 0;
    for (let t = 0; t < a.length; t++) { diff = Math.max(diff, Math.abs(a[t] - b[t])); max = Math.max(max, Math.abs(a[t]), Math.abs(b[t])); }
    const o = { max, xLabel: 'key x − query x', yLabel: 'key y − query y', legend: 'q·k', xFrom: -R, yFrom: -R };
    heatmapFigure($('rv-liere-a'), a, SIDE, SIDE, { ...o, title: `query at (${Q0[0]}, ${Q0[1]})` });
    heatmapFigure($('rv-liere-b'), b, SIDE, SIDE, { ...o, title: `query and keys shifted by (${shift}, ${shift})` });
    demo.rotationVariants = { ...demo.rotationVariants, liere: { gen, shift, diff } };
    $('rv-liere-out').textContent = gen === 'commuting'
      ? `Commuting generators: exp(x·Gx + y·Gy) = exp(x·Gx)·exp(y·Gy), so q·k depends on the offset only — the two maps agree (largest difference ${diff.toExponential(1)}).`
      : `Non-commuting generators: exp(x·Gx + y·Gy) is no product of per-axis turns, so q·k depends on where the pair sits — the maps differ by up to ${diff.toFixed(3)}.`;
  }

  const draw = () => { drawPRope(); drawLiere(); };
  bindInput('rv-p', state, 'p', draw);
  bindSegmented('rv-kept', state, 'kept', draw);
  bindSegmented('rv-gen', state, 'gen', draw);
  bindInput('rv-shift', state, 'shift', draw);
  return draw;
}
