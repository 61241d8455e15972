// The four terms of an absolute encoding: with h = x + p, the score (h_i W_q)·(h_j W_k) splits into
// content·content + content·position + position·content + position·position. Drawn separately and
// summed; the sum is checked against the score pe.attention computes for h.
import { heatmapFigure, colorBar } from '../plot.mjs';
import { $, bindInput, bindSegmented, demo, demoFloats } from '../common.mjs';

const D = 16;

// rows [n, D] times W [D, D]
function project(rows, n, W) {
  const out = new Float64Array(n * D);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < D; c++) {
      let s = 0;
      for (let k = 0; k < D; k++) s += rows[i * D + k] * W[k * D + c];
      out[i * D + c] = s;
    }
  return out;
}
function scores(a, b, n) {  // a_i · b_j / sqrt(D)
  const s = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let d = 0;
      for (let c = 0; c < D; c++) d += a[i * D + c] * b[j * D + c];
      s[i * n + j] = d / Math.sqrt(D);
    }
  return s;
}

export function termsSection(pe) {
  const state = { layout: 'interleaved', T: 32, base: 100 };
  const Wq = demoFloats(D * D, 31).map((w) => w * 0.5), Wk = demoFloats(D * D, 32).map((w) => w * 0.5);
  function draw() {
    const T = state.T;
    const x = demoFloats(T * D, 33);  // token embeddings, of the same size as the position vectors (|x| ≈ |p|)
    const p = pe.sinusoidal(Int32Array.from({ length: T }, (_, t) => t), { dim: D, base: state.base, layout: state.layout });
    const qx = project(x, T, Wq), kx = project(x, T, Wk), qp = project(p, T, Wq), kp = project(p, T, Wk);
    const terms = { cc: scores(qx, kx, T), cp: scores(qx, kp, T), pc: scores(qp, kx, T), pp: scores(qp, kp, T) };
    const sum = new Float32Array(T * T);
    for (const t of Object.values(terms)) for (let i = 0; i < sum.length; i++) sum[i] += t[i];
    // the engine's score for h = x + p projected: one head, no encoding (the position is already in h)
    const h = Float32Array.from(x, (v, i) => v + p[i]);
    const q = Float32Array.from(project(h, T, Wq)), k = Float32Array.from(project(h, T, Wk));
    const engine = pe.attention({ q, k, v: q, heads: 1, headDim: D, qLen: T, kLen: T, encoding: { kind: 'none' }, returnScores: true }).scores;
    let diff = 0;
    for (let i = 0; i < sum.length; i++) diff = Math.max(diff, Math.abs(sum[i] - engine[i]));
    let scale = 1e-9;
    for (const v of sum) scale = Math.max(scale, Math.abs(v));
    const fmt = (v) => (Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(1));
    const show = (id, t) => {
      heatmapFigure($(`terms-${id}`), t, T, T, { max: scale, colorbar: false, xLabel: 'key j', yLabel: 'query i', minWidth: 120 });
      let m = 0;
      for (const v of t) m = Math.max(m, Math.abs(v));
      $(`terms-${id}-max`).textContent = `max |·| ${fmt(m)}`;
    };
    for (const [id, t] of Object.entries(terms)) show(id, t);
    show('sum', sum);
    colorBar($('terms-bar'), { max: scale, ticks: [0], legend: 'score (x + p) W_q · (x + p) W_k / √d and each of its terms: one scale for all five', legendFormat: fmt });
    demo.terms = { T, layout: state.layout, diff, x: Array.from(x), p: Array.from(p), Wq: Array.from(Wq), Wk: Array.from(Wk), pp: Array.from(terms.pp) };
    $('terms-caption').textContent = `Sum of the four maps against pe.attention's scores for h = x + p: largest difference ${diff.toExponential(1)} `
      + `(float32 rounding). Unprojected, p_i·p_j of sinusoids depends on i − j alone; W_q and W_k mix their sine and cosine channels, `
      + `so the position·position map also carries absolute position (it is not constant along diagonals) — one reason relative methods exist.`;
  }
  bindSegmented('terms-layout', state, 'layout', draw);
  bindInput('terms-T', state, 'T', draw);
  bindInput('terms-base', state, 'base', draw, (v) => Math.round(10 ** Number(v)), (v) => String(Math.round(10 ** Number(v))));
  return draw;
}
