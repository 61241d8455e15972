// The demo page: every number drawn here comes from the posenc WebAssembly core.
import { load } from '../bindings/posenc.mjs';
import { heatmap, lineChart } from './plot.mjs';

const $ = (id) => document.getElementById(id);
const COLORS = ['#c0392b', '#2f5fb3', '#1f8a70', '#e8a33d', '#8e44ad', '#4a5368'];
const SCHEDULE_COLORS = ['#9aa1ae', '#2f5fb3', '#1f8a70', '#e8a33d', '#8e44ad', '#c0392b'];
// For the browser test: what was drawn, and from where.
const demo = (window.posencDemo = { source: null, sinusoidal: null });

function sinusoidalSection(pe) {
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
  const bind = (id, key, parse = Number) => $(id).addEventListener('input', (e) => {
    state[key] = parse(e.target.value);
    const out = $(`${id}-out`);
    if (out) out.textContent = e.target.value;
    draw();
  });
  bind('sin-dim', 'dim'); bind('sin-len', 'length'); bind('sin-base', 'base');
  return draw;
}

function ropeSection(pe) {
  const state = { headDim: 128, base: 500000, factor: 8, L0: 8192 };
  function draw() {
    const { headDim, base, factor, L0 } = state;
    const schedules = [
      ['original', undefined],
      ['linear (PI)', { type: 'linear', factor }],
      ['NTK-aware', { type: 'ntk', factor }],
      ['YaRN', { type: 'yarn', factor, originalMaxPositionEmbeddings: L0 }],
      ['Llama 3', { type: 'llama3', factor, originalMaxPositionEmbeddings: L0, lowFreqFactor: 1, highFreqFactor: 4 }],
    ];
    const results = schedules.map(([name, scaling], k) => {
      const f = pe.ropeFrequencies({ headDim, base, ...(factor > 1 && scaling ? { scaling } : {}) });
      return { name, color: SCHEDULE_COLORS[k], ys: Array.from(f.invFreq, (w) => (2 * Math.PI) / w), scale: f.attentionScale, dash: k === 0 ? [5, 4] : undefined };
    });
    lineChart($('rope-wavelengths'), results, {
      yLog: true, xLabel: 'rotary pair i', yLabel: 'wavelength 2π/ω (tokens)', aspect: 0.36,
      hlines: [{ y: L0, label: `original context ${L0}` }, { y: L0 * factor, label: `target ${L0 * factor}`, color: '#c0392b' }],
    });
    const yarn = results[3];
    $('rope-caption').textContent = `Pairs whose wavelength is far below the original context keep their frequency under YaRN and Llama 3; ` +
      `the slowest pairs are interpolated by ${factor}×. YaRN also scales attention by ${yarn.scale.toFixed(4)} (0.1·ln ${factor} + 1).`;
  }
  const bind = (id, key) => $(id).addEventListener('input', (e) => {
    state[key] = Number(e.target.value);
    const out = $(`${id}-out`);
    if (out) out.textContent = e.target.value;
    draw();
  });
  bind('rope-dim', 'headDim'); bind('rope-base', 'base'); bind('rope-factor', 'factor'); bind('rope-l0', 'L0');
  return draw;
}

async function main() {
  const status = $('status');
  try {
    const t0 = performance.now();
    const pe = await load();
    demo.source = 'wasm';
    demo.api = pe;
    const draws = [sinusoidalSection(pe), ropeSection(pe)];
    for (const d of draws) d();
    let resizeTimer;
    window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => draws.forEach((d) => d()), 120); });
    status.textContent = `WebAssembly core loaded in ${(performance.now() - t0).toFixed(0)} ms (SIMD128). Every figure below is computed by it.`;
    status.classList.add('ok');
    document.body.dataset.ready = 'true';
  } catch (err) {
    status.textContent = `Could not start the WebAssembly core: ${err.message}`;
    status.classList.add('err');
    document.body.dataset.ready = 'error';
    throw err;
  }
}
main();
