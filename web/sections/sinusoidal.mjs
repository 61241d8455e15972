// Encoding explorer: any additive method as a table (positions × dims), a few of its columns as curves,
// similarity to position 0, and its learned-parameter count — every number from the wasm core.
import { heatmapFigure, cellAt, lineChart } from '../plot.mjs';
import { $, COLORS, bindInput, bindSegmented, demo, demoFloats, timed } from '../common.mjs';

const ABOUT = {
  sinusoidal: 'A fixed function: sines and cosines whose wavelengths grow geometrically from 2π to 2π·base. Low dimensions flicker from token to token, high ones drift slowly, so nearby positions get similar vectors. The three published layouts compute different tables — use the one your checkpoint was trained with.',
  learned: 'A learned table (BERT, GPT-2): one free vector per position, here random numbers standing in for trained weights. Nothing ties neighbouring rows together except training, and a position past the last row has no vector at all — the table is the context limit.',
  binary: 'The position written in binary, one ±1 channel per bit (least significant bit in column 0). Column k is a square wave of period 2^(k+1): exact, compact, and any position below 2^bits has a code — but 7 → 8 flips four bits at once.',
  gray: 'Gray code: the same bits reordered so that neighbouring positions differ in exactly one bit. The columns are still square waves, shifted by a quarter period, and no step is a big jump.',
  axial: 'Axial (Reformer): position p is the grid cell (p ÷ s₁, p mod s₁); the left half of the vector is a row of a small table for the first digit, the right half a row of another table for the second. Far fewer parameters than a full table, at the price of a repeating right half.',
  random: 'Random Fourier features: PE[p] = √(2/d)·cos(w·p/8 + b) with random frequencies w ~ N(0, 1) drawn from a seed — a fixed function like the sinusoid, but with unordered, randomly spaced frequencies.',
};

export function sinusoidalSection(pe) {
  const state = { method: 'sinusoidal', layout: 'interleaved', dim: 64, length: 64, base: 10000, pick: 30 };
  const heat = $('sin-heatmap');

  // The table [length, width] of the chosen method, its learned-parameter count and a note on it.
  function table() {
    const { method, dim, length: L } = state;
    const positions = Int32Array.from({ length: L }, (_, i) => i);
    if (method === 'sinusoidal') {
      return { t: pe.sinusoidal(positions, { dim, base: state.base, layout: state.layout }), width: dim, params: pe.parameterCount('sinusoidal'), scale: 1,
        note: 'a fixed function: 0 learned parameters' };
    }
    if (method === 'learned') {
      const t = pe.learned(positions, { table: demoFloats(L * dim, 900 + dim), dim });
      const params = pe.parameterCount('learned', { maxPositions: L, dim });
      return { t, width: dim, params, scale: 1, note: `${L} rows × ${dim} = ${params.toLocaleString('en-US')}: grows with the context` };
    }
    if (method === 'binary' || method === 'gray') {
      const bits = Math.max(1, Math.ceil(Math.log2(L)));
      const learnedAlt = pe.parameterCount('binary', { bits, dim, learned: true });
      return { t: pe.binary(positions, { bits, code: method }), width: bits, params: pe.parameterCount('binary', { bits, dim: bits, learned: false }), scale: 1,
        note: `fixed ±1 digits, ${bits} bits (learned digit vectors of width ${dim} would be 2·${bits}·${dim} = ${learnedAlt.toLocaleString('en-US')})` };
    }
    if (method === 'axial') {
      const s1 = 2 ** Math.round(Math.log2(Math.sqrt(L))), s0 = Math.ceil(L / s1), dims = [dim / 2, dim / 2];
      const tables = [demoFloats(s0 * dims[0], 700 + dim), demoFloats(s1 * dims[1], 800 + dim)];
      const params = pe.parameterCount('axial', { shape: [s0, s1], dims });
      return { t: pe.axial(positions, { shape: [s0, s1], tables, dims }), width: dim, params, scale: 1, shape: [s0, s1],
        note: `grid ${s0} × ${s1}: ${s0}·${dims[0]} + ${s1}·${dims[1]} = ${params.toLocaleString('en-US')} (a full table: ${(L * dim).toLocaleString('en-US')})` };
    }
    const t = pe.randomFeatures(positions, { dim, seed: 7, scale: 8 });
    return { t, width: dim, params: pe.parameterCount('randomFeatures'), scale: Math.sqrt(2 / dim), note: 'a fixed (seeded) function: 0 learned parameters' };
  }

  function draw() {
    const { t, width, params, scale, note, shape } = table();
    const L = state.length;
    demo.sinusoidal = { ...state, table: t, width, params, shape };
    heatmapFigure(heat, t, L, width, { max: scale, xLabel: width === state.dim ? 'dimension →' : 'bit →', yLabel: '← position', legend: 'value', plotAspect: 1 });
    $('sin-params').textContent = params.toLocaleString('en-US');
    $('sin-params-note').textContent = note;
    $('sin-shape').textContent = `${L} × ${width}`;
    $('sin-about').textContent = ABOUT[state.method];
    // which controls mean something for this method
    document.querySelectorAll('#sin-controls [data-layout]').forEach((b) => { b.disabled = state.method !== 'sinusoidal'; });
    $('sin-base').disabled = state.method !== 'sinusoidal';
    $('sin-dim').disabled = state.method === 'binary' || state.method === 'gray';
    const pickEl = $('sin-pick');
    pickEl.max = String(width - 1);
    const pick = Math.min(state.pick, width - 1);
    pickEl.value = String(pick);
    $('sin-pick-out').textContent = String(pick);

    const cols = [0, 1, Math.floor(width / 4), pick].filter((c, i, a) => a.indexOf(c) === i && c < width);
    $('sin-curve-cols').textContent = cols.join(', ');
    lineChart($('sin-curves'), cols.map((c, k) => ({
      name: `dim ${c}`, color: COLORS[k], ys: Array.from({ length: L }, (_, p) => t[p * width + c]), width: c === pick ? 2.6 : 1.6,
    })), { yMin: -scale * 1.05, yMax: scale * 1.05, xLabel: 'position', yLabel: 'value', aspect: 0.42 });

    const norm = (p) => Math.hypot(...t.subarray(p * width, (p + 1) * width));
    const sim = Array.from({ length: L }, (_, p) => {
      let d = 0;
      for (let j = 0; j < width; j++) d += t[j] * t[p * width + j];
      return d / (norm(0) * norm(p) || 1);
    });
    demo.sinusoidal.similarity = sim;
    lineChart($('sin-similarity'), [{ name: 'cosine similarity to position 0', color: COLORS[1], ys: sim }],
      { xLabel: 'position m', yLabel: 'cos sim', aspect: 0.3 });
  }

  const readCell = (e) => {
    const c = cellAt(heat, e);
    if (!c) return;
    const v = demo.sinusoidal.table[c.row * demo.sinusoidal.width + c.col];
    $('sin-readout').textContent = `PE[${c.row}, ${c.col}] = ${v >= 0 ? ' ' : ''}${v.toFixed(6)}`;
  };
  heat.addEventListener('mousemove', readCell);
  heat.addEventListener('click', readCell);  // touch screens cannot hover: a tap reads the cell
  // click a column to plot it
  heat.addEventListener('click', (e) => {
    const c = cellAt(heat, e);
    if (c) { state.pick = c.col; timed('sinusoidal', draw)(); }
  });
  const redraw = timed('sinusoidal', draw);
  for (const b of document.querySelectorAll('#sin-controls [data-layout]')) {
    b.addEventListener('click', () => {
      state.layout = b.dataset.layout;
      document.querySelectorAll('#sin-controls [data-layout]').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
      redraw();
    });
  }
  bindSegmented('sin-method', state, 'method', redraw);
  bindInput('sin-dim', state, 'dim', redraw);
  bindInput('sin-len', state, 'length', redraw);
  bindInput('sin-base', state, 'base', redraw);
  bindInput('sin-pick', state, 'pick', redraw);
  return draw;
}
