// The sinusoidal table: heatmap, column curves, similarity to position 0.
import { heatmap, lineChart } from '../plot.mjs';
import { $, COLORS, bindInput, demo } from '../common.mjs';

export function sinusoidalSection(pe) {
  const state = { layout: 'interleaved', dim: 64, length: 64, base: 10000 };
  const heat = $('sin-heatmap');

  function draw() {
    const positions = Int32Array.from({ length: state.length }, (_, i) => i);
    const table = pe.sinusoidal(positions, { dim: state.dim, base: state.base, layout: state.layout });
    demo.sinusoidal = { ...state, table };
    heatmap(heat, table, state.length, state.dim);

    const cols = [0, 1, Math.floor(state.dim / 4), Math.floor(state.dim / 2) - 2].filter((c, i, a) => a.indexOf(c) === i && c < state.dim);
    $('sin-curve-cols').textContent = cols.join(', ');
    lineChart($('sin-curves'), cols.map((c, k) => ({
      name: `dim ${c}`, color: COLORS[k], ys: Array.from({ length: state.length }, (_, p) => table[p * state.dim + c]),
    })), { yMin: -1.05, yMax: 1.05, xLabel: 'position', aspect: 0.42 });

    const norm = (p) => Math.hypot(...table.subarray(p * state.dim, (p + 1) * state.dim));
    const sim = Array.from({ length: state.length }, (_, p) => {
      let d = 0;
      for (let j = 0; j < state.dim; j++) d += table[j] * table[p * state.dim + j];
      return d / (norm(0) * norm(p) || 1);
    });
    lineChart($('sin-similarity'), [{ name: 'cosine similarity to position 0', color: COLORS[1], ys: sim }],
      { xLabel: 'position m', aspect: 0.3 });
  }

  heat.addEventListener('mousemove', (e) => {
    const r = heat.getBoundingClientRect();
    const j = Math.floor(((e.clientX - r.left) / r.width) * state.dim);
    const p = Math.floor(((e.clientY - r.top) / r.height) * state.length);
    if (j < 0 || p < 0 || j >= state.dim || p >= state.length) return;
    const v = demo.sinusoidal.table[p * state.dim + j];
    $('sin-readout').textContent = `PE[${p}, ${j}] = ${v >= 0 ? ' ' : ''}${v.toFixed(6)}`;
  });
  for (const b of document.querySelectorAll('#sin-controls [data-layout]')) {
    b.addEventListener('click', () => {
      state.layout = b.dataset.layout;
      document.querySelectorAll('#sin-controls [data-layout]').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
      draw();
    });
  }
  bindInput('sin-dim', state, 'dim', draw);
  bindInput('sin-len', state, 'length', draw);
  bindInput('sin-base', state, 'base', draw);
  return draw;
}
