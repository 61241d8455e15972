// Context-extension lab: a model trained to length L0 run at a target length L. Per rotary pair, the
// rotation the pair makes over the target context (with each schedule's frequencies) against what it
// made in training (original frequencies, positions below L0); the share of (pair, position) angles
// never seen in training; the attention scale. Frequencies from pe.ropeFrequencies; real configs read
// by pe.ropeConfigFromHF.
import { heatmapFigure, lineChart } from '../plot.mjs';
import { $, SCHEDULE_COLORS, bindInput, bindSegmented, demo, timed } from '../common.mjs';
import { PRESETS } from '../presets.mjs';

const TAU = 2 * Math.PI;
export const SCHEDULES = [
  { id: 'default', name: 'default (no scaling)' },
  { id: 'linear', name: 'PI (linear)' },
  { id: 'ntk', name: 'NTK-aware' },
  { id: 'dynamic', name: 'dynamic NTK' },
  { id: 'yarn-hf', name: 'YaRN, hf' },
  { id: 'yarn-ggml', name: 'YaRN, ggml' },
  { id: 'llama3', name: 'Llama 3' },
  { id: 'longrope', name: 'LongRoPE' },
];
const NOTES = {
  default: 'The trained frequencies, unchanged: fine up to L₀; past it the slow pairs, which made less than one turn in training, reach angles the model has never seen.',
  linear: 'Position Interpolation divides every ω by f, so the target positions map back inside the trained range (only the last f − 1 positions overshoot, by less than one step). The price: fast pairs turn f times slower, crowding neighbouring tokens together.',
  ntk: 'NTK-aware raises the base to base·f^(R/(R−2)): the fastest pair is untouched and the slowest divided by exactly f, but the pairs in between are divided by less — some of them still overshoot their trained arc.',
  dynamic: 'Dynamic NTK recomputes the NTK base from the current length: identical to default up to L₀; at length L the base grows by (f·L/L₀ − f + 1)^(R/(R−2)), which at L = f·L₀ stretches more than NTK — nothing new, but slow pairs squeezed further.',
  'yarn-hf': 'YaRN keeps pairs that made more than 32 turns in training (β_fast) as they were, divides pairs with less than one turn (β_slow) by f, ramps between, and scales attention by 0.1·ln f + 1 (Hugging Face: a ratio of two such terms when mscale_all_dim is set).',
  'yarn-ggml': 'llama.cpp\'s YaRN: the same frequencies, but the attention factor is always 1 + 0.1·ln f — the two part on configs with mscale / mscale_all_dim (DeepSeek-V3).',
  llama3: 'Llama 3 splits by wavelength: shorter than L₀/4 (high_freq_factor 4) unchanged, longer than L₀ (low_freq_factor 1) divided by f, a smooth blend between. No attention scale.',
  longrope: 'LongRoPE divides each pair by its own factor (long factors past L₀, short ones within it) and scales attention by √(1 + ln f / ln L₀). The factors here are illustrative; real ones are searched per model.',
};
const TYPE = { linear: 'linear', ntk: 'ntk', dynamic: 'dynamic', 'yarn-hf': 'yarn', 'yarn-ggml': 'yarn', llama3: 'llama3', longrope: 'longrope' };

// Integer positions p in [0, L) whose angle p·w (mod 2π) lies beyond the trained arc [0, A]: per turn k,
// the open interval ((2πk + A)/w, 2π(k + 1)/w). Returns [start, end) ranges.
export function unseenRanges(w, A, L) {
  if (A >= TAU) return [];
  const out = [];
  for (let k = 0; TAU * k / w < L; k++) {
    const start = Math.max(0, Math.floor((TAU * k + A) / w) + 1), end = Math.min(L, Math.ceil((TAU * (k + 1)) / w));
    if (end > start) out.push([start, end]);
  }
  return out;
}

const compact = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));
const kfmt = (n) => (n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : String(n));

export function contextSection(pe) {
  const state = { L0: 4096, L: 32768, headDim: 128, base: 10000, schedule: 'default', preset: '' };

  function setup() {
    if (!state.preset) return { headDim: state.headDim, base: state.base, L0: state.L0, L: state.L, factor: Math.max(1, state.L / state.L0), cfg: null };
    const cfg = pe.ropeConfigFromHF(PRESETS[state.preset]);
    return { headDim: cfg.headDim, base: cfg.base, partialRotaryFactor: cfg.partialRotaryFactor, L0: state.L0, L: state.L,
      factor: cfg.scaling?.factor ?? Math.max(1, state.L / state.L0), cfg };
  }

  // The ropeFrequencies options of one schedule: the config's own scaling for its own type, else the
  // schedule's published defaults at factor f.
  function options(id, s) {
    const base = { headDim: s.headDim, base: s.base, seqLen: s.L, ...(s.partialRotaryFactor ? { partialRotaryFactor: s.partialRotaryFactor } : {}) };
    if (id === 'default') return base;
    const type = TYPE[id], own = s.cfg?.scaling?.type === type ? s.cfg.scaling : null;
    const convention = id === 'yarn-ggml' ? { convention: 'ggml' } : {};
    if (own) return { ...base, ...convention, scaling: { ...own } };
    const f = s.factor, L0 = s.L0, rotaryDim = Math.floor(s.headDim * (s.partialRotaryFactor ?? 1));
    const scaling = {
      linear: { type, factor: f },
      ntk: { type, factor: f },
      dynamic: { type, factor: f, originalMaxPositionEmbeddings: L0 },
      yarn: { type, factor: f, originalMaxPositionEmbeddings: L0 },
      llama3: { type, factor: f, originalMaxPositionEmbeddings: L0, lowFreqFactor: 1, highFreqFactor: 4 },
      // illustrative LongRoPE factors (real ones are searched per model): 1 for pairs whose wavelength is below
      // L0/32, f above L0, rising with log wavelength between
      longrope: { type, factor: f, originalMaxPositionEmbeddings: L0, shortFactor: Array(rotaryDim / 2).fill(1),
        longFactor: Array.from({ length: rotaryDim / 2 }, (_, i) => {
          const ramp = Math.log((TAU * s.base ** ((2 * i) / rotaryDim)) / (L0 / 32)) / Math.log(32);
          return +(1 + (f - 1) * Math.min(1, Math.max(0, ramp))).toFixed(4);
        }) },
    }[type];
    return { ...base, ...convention, scaling };
  }

  function draw() {
    const s = setup(), { L0, L } = s;
    const trained = pe.ropeFrequencies({ headDim: s.headDim, base: s.base, ...(s.partialRotaryFactor ? { partialRotaryFactor: s.partialRotaryFactor } : {}) }).invFreq;
    const pairs = trained.length, arc = Array.from(trained, (w) => (L0 - 1) * w);  // trained angle range per pair
    const rows = SCHEDULES.map(({ id, name }) => {
      const opts = options(id, s);
      const f = pe.ropeFrequencies(opts);
      let unseen = 0;
      const ranges = Array.from(f.invFreq, (w, i) => unseenRanges(w, arc[i], L));
      for (const r of ranges) for (const [a, b] of r) unseen += b - a;
      return { id, name, invFreq: Array.from(f.invFreq), attentionScale: f.attentionScale, unseen, share: unseen / (pairs * L), ranges, own: !!s.cfg?.scaling && s.cfg.scaling.type === TYPE[id] };
    });
    const sel = rows.find((r) => r.id === state.schedule);

    // 1. rotations per pair: turns over the context, trained vs target
    const turns = (ws, len) => ws.map((w) => Math.max(((len - 1) * w) / TAU, 1e-3));
    lineChart($('ctx-turns'), [
      { name: `seen in training: original ω, positions < ${kfmt(L0)}`, color: '#9aa1ae', ys: turns(Array.from(trained), L0), dash: [5, 4], width: 2 },
      { name: `default ω at ${kfmt(L)}`, color: '#c9c4b8', ys: turns(Array.from(trained), L), width: 1.2 },
      { name: `${sel.name} at ${kfmt(L)}`, color: SCHEDULE_COLORS[5], ys: turns(sel.invFreq, L), width: 2.5 },
    ], { yLog: true, xLabel: 'rotary pair i (fast → slow)', yLabel: 'turns over the context', aspect: 0.36, hlines: [{ y: 1, label: 'one full turn: every angle seen' }] });

    // 2. where the unseen angles are: pairs × position bins, share of the bin's positions unseen
    const bins = 128, width = L / bins, map = new Float32Array(pairs * bins);
    sel.ranges.forEach((ranges, i) => {
      for (const [a, b] of ranges)
        for (let c = Math.floor(a / width); c < bins && c * width < b; c++) map[i * bins + c] += (Math.min(b, (c + 1) * width) - Math.max(a, c * width)) / width;
    });
    const tick = (pos) => ({ i: Math.min(bins - 1, Math.round(pos / width)), text: kfmt(pos) });
    const xTicks = [tick(0), ...(L0 / L > 0.08 && L0 < L ? [tick(L0)] : []), tick(L / 2), tick(L)].filter((t, k, a) => a.findIndex((u) => u.i === t.i) === k);
    heatmapFigure($('ctx-unseen'), map, pairs, bins, {
      color: 'sequential', min: 0, max: 1, legend: 'unseen', minPlotHeight: 170, legendFormat: (v) => `${Math.round(v * 100)}%`,
      xLabel: 'position →', yLabel: '← rotary pair', xTicks, plotAspect: 0.42,
      marks: L0 < L ? [{ col: L0 / width, label: `trained ${kfmt(L0)}`, color: '#2f5fb3' }] : [],
    });

    // 3. the table of all schedules
    $('ctx-body').replaceChildren(...rows.map((r) => {
      const tr = document.createElement('tr');
      if (r.id === state.schedule) tr.className = 'selected';
      const slow = r.invFreq[r.invFreq.length - 1];
      tr.innerHTML = `<td><button type="button" class="linklike" data-schedule="${r.id}">${r.name}</button>${r.own ? ' <span class="tag score">this config</span>' : ''}</td>`
        + `<td class="num">${compact(TAU / slow)}</td><td class="num">${(r.share * 100).toFixed(r.share > 0 && r.share < 0.001 ? 3 : 1)}%</td>`
        + `<td class="num">${r.attentionScale.toFixed(4)}</td>`;
      return tr;
    }));
    const f = s.factor;
    $('ctx-factor').textContent = `×${+f.toFixed(3)}`;
    $('ctx-share').textContent = `${(sel.share * 100).toFixed(sel.share > 0 && sel.share < 0.001 ? 3 : 1)}%`;
    $('ctx-scale').textContent = sel.attentionScale.toFixed(4);
    $('ctx-setup').textContent = s.cfg
      ? `${state.preset}: head dim ${s.headDim}${s.partialRotaryFactor ? ` (rotary ${Math.floor(s.headDim * s.partialRotaryFactor)})` : ''}, base ${s.base.toLocaleString('en-US')}, `
        + `${s.cfg.scaling ? `${s.cfg.scaling.type} ×${s.cfg.scaling.factor}` : 'no scaling'} — read by pe.ropeConfigFromHF`
      : `head dim ${s.headDim}, base ${s.base.toLocaleString('en-US')}, factor = target / trained`;
    $('ctx-note').textContent = NOTES[state.schedule];
    const def = rows[0];
    $('ctx-caption').textContent = `With the default frequencies, ${(def.share * 100).toFixed(1)}% of the (pair, position) angles at ${kfmt(L)} were never produced in training: `
      + `the slow pairs, which made less than a turn in ${kfmt(L0)} tokens, keep turning into angles the model never saw. ${sel.name}: ${(sel.share * 100).toFixed(sel.share > 0 && sel.share < 0.001 ? 3 : 1)}% unseen, attention scale ${sel.attentionScale.toFixed(4)}.`;
    demo.context = { L0, L, factor: f, headDim: s.headDim, base: s.base, preset: state.preset, schedule: state.schedule, trained: Array.from(trained),
      rows: rows.map(({ id, invFreq, attentionScale, unseen, share }) => ({ id, invFreq, attentionScale, unseen, share })) };
  }

  const redraw = timed('context', draw);
  const preset = $('ctx-preset');
  preset.append(new Option('custom (the controls)', ''));
  for (const name of Object.keys(PRESETS)) preset.append(new Option(name, name));
  const ensureOption = (select, value) => {
    if (![...select.options].some((o) => Number(o.value) === value)) select.append(new Option(kfmt(value), String(value)));
    select.value = String(value);
  };
  preset.addEventListener('change', () => {
    state.preset = preset.value;
    if (state.preset) {
      const p = PRESETS[state.preset], cfg = pe.ropeConfigFromHF(p);
      const L0 = cfg.scaling?.originalMaxPositionEmbeddings ?? p.original_max_position_embeddings ?? p.max_position_embeddings;
      state.L0 = L0;
      state.L = Math.max(p.max_position_embeddings, Math.round(L0 * (cfg.scaling?.factor ?? 4)));
      const type = cfg.scaling?.type;
      state.schedule = type === 'yarn' ? 'yarn-hf' : SCHEDULES.some((x) => x.id === type) ? type : state.schedule;
      ensureOption($('ctx-L0'), state.L0);
      ensureOption($('ctx-L'), state.L);
      ensureOption($('ctx-dim'), cfg.headDim);
      ensureOption($('ctx-base'), cfg.base);
      document.querySelectorAll('#ctx-schedule [data-value]').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.value === state.schedule)));
    }
    redraw();
  });
  // changing the model's own numbers leaves the preset
  const custom = () => { if (state.preset) { state.preset = ''; preset.value = ''; state.headDim = Number($('ctx-dim').value); state.base = Number($('ctx-base').value); } };
  for (const id of ['ctx-L0', 'ctx-dim', 'ctx-base']) $(id).addEventListener('input', custom, true);
  bindInput('ctx-L0', state, 'L0', redraw);
  bindInput('ctx-L', state, 'L', redraw);
  bindInput('ctx-dim', state, 'headDim', redraw);
  bindInput('ctx-base', state, 'base', redraw);
  bindSegmented('ctx-schedule', state, 'schedule', redraw);
  $('ctx-body').addEventListener('click', (e) => {
    const id = e.target.closest('[data-schedule]')?.dataset.schedule;
    if (id) $('ctx-schedule').querySelector(`[data-value="${id}"]`).click();
  });
  return draw;
}
