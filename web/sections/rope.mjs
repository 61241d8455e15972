// RoPE: frequency schedules side by side, a model's config.json read live, and the long-range decay.
import { lineChart, cssWidth, heatmapFigure } from '../plot.mjs';
import { $, SCHEDULE_COLORS, COLORS, bindInput, demo, timed } from '../common.mjs';
import { PRESETS } from '../presets.mjs';
import { layerSpec, referenceRows } from '../plan-reference.mjs';

export function ropeSection(pe) {
  const state = { headDim: 128, base: 500000, factor: 8, L0: 8192 };

  function drawSchedules() {
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
    demo.rope = results.map((r) => ({ name: r.name, wavelengths: r.ys }));
    lineChart($('rope-wavelengths'), results, {
      yLog: true, xLabel: 'rotary pair i', yLabel: 'wavelength 2π/ω (tokens)', aspect: 0.36,
      hlines: [{ y: L0, label: `original context ${L0}` }, { y: L0 * factor, label: `target ${L0 * factor}`, color: '#c0392b' }],
    });
    $('rope-caption').textContent = `Pairs whose wavelength is far below the original context keep their frequency under YaRN and Llama 3; ` +
      `the slowest pairs are interpolated by ${factor}×. YaRN also scales attention by ${results[3].scale.toFixed(4)} (0.1·ln ${factor} + 1).`;
  }

  // Long-range decay: q = k = all-ones, score(Δ) = q_rot(0) · k_rot(Δ) / headDim, out to the model's own
  // context (max_position_embeddings): every Δ up to 256, then 1200 log-spaced distances (explicit positions).
  function drawDecay(config, context) {
    const headDim = config.headDim, N = Math.max(2, context);
    const ds = new Set(Array.from({ length: Math.min(N, 257) }, (_, i) => i));
    for (let t = 0; t <= 1200; t++) ds.add(Math.min(N - 1, Math.round(256 * (N / 256) ** (t / 1200))));
    const deltas = Int32Array.from([...ds].sort((a, b) => a - b));
    const ones = new Float32Array(deltas.length * headDim).fill(1);
    const series = [];
    const variants = [['original (no scaling)', { ...config, scaling: undefined }], ['this config', config]];
    variants.forEach(([name, cfg], k) => {
      const rotated = pe.applyRope(ones, { heads: 1, tokens: deltas.length, headDim }, deltas, { ...cfg, seqLen: N });
      const q0 = rotated.subarray(0, headDim);  // Δ = 0 comes first
      const ys = new Float64Array(deltas.length - 1);
      for (let t = 1; t < deltas.length; t++) { let s = 0; for (let c = 0; c < headDim; c++) s += q0[c] * rotated[t * headDim + c]; ys[t - 1] = s / headDim; }
      series.push({ name, color: k ? COLORS[1] : '#9aa1ae', ys: Array.from(ys), xs: Array.from(deltas.subarray(1)), width: k ? 1.6 : 1.2 });
    });
    demo.ropeDecay = { context: N, lastDelta: deltas[deltas.length - 1], points: deltas.length };
    const narrow = cssWidth($('rope-decay')) < 520;  // a phone: the short label fits
    lineChart($('rope-decay'), series, { xLog: true, xLabel: narrow ? `Δ = n − m (log, to ${N.toLocaleString('en-US')})` : `relative distance Δ = n − m (log scale, to the model's context ${N.toLocaleString('en-US')})`, yLabel: 'q·k / d', aspect: 0.32 });
  }

  // max over pairs of |cos(p w) - value| for posenc (from the wasm core) and float32 angle math, per position.
  function drawPrecision() {
    const headDim = 128, base = 500000;
    const positions = Int32Array.from({ length: 63 }, (_, i) => Math.min(2 ** 31 - 1, Math.round(2 ** (i / 2))));
    const f = pe.ropeFrequencies({ headDim, base });
    const w = Array.from({ length: headDim / 2 }, (_, i) => base ** (-2 * i / headDim));  // float64 frequencies
    const ours = [], f32 = [];
    for (let t = 0; t < positions.length; t++) {
      const p = positions[t];
      let eOurs = 0, eF32 = 0;
      // head k holds e_k, so after rotation channel k is cos(p w_k) and channel k + 64 is sin(p w_k): every pair at once
      const x = new Float32Array(64 * headDim);
      for (let k = 0; k < 64; k++) x[k * headDim + k] = 1;
      const y = pe.applyRope(x, { heads: 64, tokens: 1, headDim }, [p], { base });
      for (let k = 0; k < 64; k++) {
        const exactC = Math.cos(p * w[k]), exactS = Math.sin(p * w[k]);
        eOurs = Math.max(eOurs, Math.abs(y[k * headDim + k] - exactC), Math.abs(y[k * headDim + k + 64] - exactS));
        const a32 = Math.fround(Math.fround(p) * Math.fround(f.invFreq[k]));  // HF: float32 positions x float32 inv_freq
        eF32 = Math.max(eF32, Math.abs(Math.fround(Math.cos(a32)) - exactC), Math.abs(Math.fround(Math.sin(a32)) - exactS));
      }
      ours.push(Math.max(eOurs, 1e-9)); f32.push(Math.max(eF32, 1e-9));
    }
    const xs = Array.from(positions, (p) => Math.log2(p));
    demo.precision = { maxOurs: Math.max(...ours), f32At65535: f32[32] };
    lineChart($('rope-precision'), [
      { name: 'float32 angle (as frameworks compute it)', color: '#c0392b', ys: f32, xs },
      { name: 'posenc (float64 angle)', color: '#1f8a70', ys: ours, xs, width: 2.5 },
    ], { yLog: true, yMin: 1e-9, yMax: 2, xLabel: 'log2(position)', yLabel: 'max |error| of cos, sin', aspect: 0.27, hlines: [{ y: 1e-6, label: '1e-6' }] });
    $('rope-precision-caption').textContent = `Largest error of posenc over positions 1 … 2^31−1: ${demo.precision.maxOurs.toExponential(1)}; ` +
      `float32 angle math at position 65536: ${f32[32].toExponential(1)}. (The exact reference is float64 here; errors below 1e-9 are drawn at 1e-9.)`;
  }

  // A config with one rotary table per layer type (Gemma 3, Cohere2, ModernBERT) is read again for the
  // type chosen in #rope-layer-type; a config with one table refuses layerType, so it is read without.
  function readConfig(json) {
    const typeSelect = $('rope-layer-type');
    try {
      const cfg = pe.ropeConfigFromHF(json);
      $('rope-layer-type-label').hidden = true;
      return cfg;
    } catch (first) {
      let cfg;
      try { cfg = pe.ropeConfigFromHF(json, { layerType: typeSelect.value || 'full_attention' }); } catch { throw first; }
      const types = [...new Set(cfg.attention.layers.filter((l) => l.rope).map((l) => l.type))];
      if (typeSelect.options.length !== types.length || types.some((t, i) => typeSelect.options[i].value !== t)) {
        const keep = typeSelect.value;
        typeSelect.replaceChildren(...types.map((t) => new Option(t, t)));
        typeSelect.value = types.includes(keep) ? keep : 'full_attention';
      }
      $('rope-layer-type-label').hidden = false;
      return cfg;
    }
  }

  // One cell per layer as the model's code builds it: RoPE or NoPE; full, sliding window or chunked; a mark
  // above the layers whose queries are scaled by the temperature.
  function drawLayers(attention, temperature) {
    const strip = $('rope-layers'), legend = $('rope-layers-legend');
    const cls = (l) => ['layer', l.rope ? '' : 'nope', l.window ? 'window' : '', l.chunk ? 'chunk' : '', l.temperature ? 'temp' : ''].filter(Boolean).join(' ');
    const what = (l) => `${l.rope ? 'RoPE' : 'NoPE'}, ${l.window ? `sliding window of ${l.window}` : l.chunk ? `chunks of ${l.chunk}` : 'full attention'}${l.temperature ? ', query temperature' : ''}`;
    const cells = attention.layers.map((l, i) => {
      const c = document.createElement('span');
      c.className = cls(l);
      c.title = `layer ${i}: ${what(l)}`;
      c.dataset.type = l.type;
      return c;
    });
    const seen = new Map();
    for (const l of attention.layers) if (!seen.has(cls(l))) seen.set(cls(l), l);
    legend.replaceChildren();
    for (const [c, l] of seen) {
      const item = document.createElement('span');
      const sw = document.createElement('span');
      sw.className = c;
      const n = attention.layers.filter((x) => cls(x) === c).length;
      item.append(sw, `${what(l)} × ${n}`);
      legend.append(item);
    }
    const head = document.createElement('div');
    head.className = 'layer-legend';
    head.textContent = `${attention.layers.length ? `${attention.layers.length} layers` : 'layer count not given (num_hidden_layers)'} · ${attention.heads} query heads, ${attention.kvHeads} kv heads of ${attention.headDim}` +
      (temperature ? ` · temperature β = ${temperature.beta}, every ${temperature.length.toLocaleString('en-US')} positions${temperature.offset ? `, offset ${temperature.offset}` : ''}` : '');
    strip.replaceChildren(head, ...cells);
  }

  // Which keys (columns) each query (rows) reads in each kind of layer the config builds, as pe.attention
  // masks them: causal, and the layer's sliding window or chunk. Drawn in cells of u tokens, u chosen so
  // that the widest window or chunk spans 8 of the 32 cells (the masks are the same at any such scale).
  function drawMasks(attention) {
    const kinds = new Map();
    for (const l of attention.layers) if (!kinds.has(`${l.window}/${l.chunk}`)) kinds.set(`${l.window}/${l.chunk}`, l);
    const spans = [...kinds.values()].flatMap((l) => [l.window, l.chunk]).filter((x) => x > 0);
    $('rope-masks-fig').hidden = spans.length === 0;
    if (!spans.length) { demo.ropeMasks = []; return; }
    const T = 32, u = Math.max(...spans) / 8, none = new Float32Array(T);
    const cellsOf = (n) => Math.max(1, Math.round(n / u));
    const masks = [...kinds.values()].map((l) => {
      const window = l.window ? cellsOf(l.window) : 0, chunk = l.chunk ? cellsOf(l.chunk) : 0;
      // one channel, q = k = v = 0: every key a query may read gets the same weight, every other weight is 0
      const { weights } = pe.attention({ q: none, k: none, v: none, heads: 1, headDim: 1, qLen: T, kLen: T, causal: true,
        ...(window ? { window } : {}), ...(chunk ? { chunk } : {}), returnWeights: true });
      const read = Array.from(weights, (w) => (w > 0 ? 1 : NaN));
      const n = attention.layers.filter((x) => x.window === l.window && x.chunk === l.chunk).length;
      const title = `${l.window ? `window ${l.window.toLocaleString('en-US')}` : l.chunk ? `chunks of ${l.chunk.toLocaleString('en-US')}` : 'full attention'} · ${n} layer${n > 1 ? 's' : ''}`;
      return { title, window, chunk, read, counts: Array.from({ length: T }, (_, i) => read.slice(i * T, i * T + T).filter((x) => x === 1).length) };
    });
    const box = $('rope-masks');
    box.replaceChildren(...masks.map((m) => {
      const c = document.createElement('canvas');
      c.setAttribute('aria-label', `${m.title}: which keys each query reads`);
      return c;
    }));
    masks.forEach((m, k) => heatmapFigure(box.children[k], m.read, T, T, {
      color: 'sequential', min: 0, max: 1, colorbar: false, ticks: false, title: m.title, xLabel: 'key →', yLabel: 'query →', minWidth: 140,
    }));
    demo.ropeMasks = masks.map(({ title, window, chunk, counts }) => ({ title, window, chunk, counts, tokensPerCell: u }));
    const has = (f) => masks.some(f);
    $('rope-masks-caption').textContent = `Which keys (columns) each query (rows) reads, as pe.attention masks them; one cell is ${u.toLocaleString('en-US')} tokens.` +
      (has((m) => m.window) ? ' A sliding window moves with the query: the oldest keys drop out as new ones come in.' : '') +
      (has((m) => m.chunk) ? ' A chunk starts afresh every chunk size: the first query of a chunk reads only itself.' : '') +
      (has((m) => !m.window && !m.chunk) ? ' The full-attention layers in between read the whole past.' : '');
  }

  // The query temperature as the library applies it: one-channel attention, q = k = 1 and scale 1, so each
  // query's logit is its own factor (pe.attention, returnScores), at log-spaced positions to the context.
  function drawTemperature(temperature, context) {
    const fig = $('rope-temperature-fig');
    fig.hidden = !temperature;
    if (!temperature) return;
    const N = Math.max(2, context), at = new Set(Array.from({ length: 400 }, (_, t) => Math.round(N ** (t / 399)) - 1));
    // both sides of the first 64 steps, so they draw as steps: the factor changes where (p + offset) reaches a multiple of length
    for (let k = 1; k <= 64; k++) for (const p of [k * temperature.length - temperature.offset - 1, k * temperature.length - temperature.offset]) if (p >= 0 && p < N) at.add(p);
    const ps = [...at].sort((a, b) => a - b);
    const qLen = ps.length, one = new Float32Array(qLen).fill(1);
    const { scores } = pe.attention({ q: one, k: new Float32Array([1]), v: new Float32Array([1]), heads: 1, headDim: 1, qLen, kLen: 1, scale: 1,
      qPositions: Int32Array.from(ps), kPositions: new Int32Array([0]), encoding: temperature, returnScores: true });
    demo.ropeTemperature = { positions: ps, factors: Array.from(scores) };
    lineChart($('rope-temperature'), [{ name: 'query scale', color: COLORS[0], xs: ps.map((p) => p + 1), ys: Array.from(scores), width: 1.6 }],
      { xLog: true, xLabel: cssWidth($('rope-temperature')) < 520 ? `position + 1 (log, to ${N.toLocaleString('en-US')})` : `query position + 1 (log scale, to the model's context ${N.toLocaleString('en-US')})`, yLabel: 'q multiplied by', aspect: 0.3 });
    $('rope-temperature-caption').textContent = `Queries at position p are multiplied by 1 + β·ln(1 + ⌊(p + ${temperature.offset}) / ${temperature.length}⌋): ` +
      `1 up to the first step, ${scores[qLen - 1].toFixed(4)} at ${N.toLocaleString('en-US')} tokens — logits grow with the log of the context, as Scalable-Softmax ` +
      'proposes, so attention does not flatten over more keys.';
  }

  // Each layer type's attention plan (pe.attentionConfigFromHF for its first layer), and the first layer run
  // live: random q, k, v at the config's head counts and head dim through pe.attention with the plan, against the
  // float64 reference written from the family's transformers code (web/plan-reference.mjs).
  function drawPlan(json, attention) {
    const fig = $('rope-plan-fig'), body = $('rope-plan').tBodies[0], caption = $('rope-plan-caption');
    const firsts = new Map();
    attention.layers.forEach((l, i) => { const key = `${l.type}/${l.rope}/${l.window}/${l.chunk}/${l.temperature}`; if (!firsts.has(key)) firsts.set(key, i); });
    fig.hidden = firsts.size === 0;
    demo.ropePlan = null;
    if (!firsts.size) return;
    const rows = [];
    let plan0;
    try {
      for (const [key, layer] of firsts) {
        const plan = pe.attentionConfigFromHF(json, { layer });
        plan0 ??= plan;
        const enc = [plan.attention.encoding].flat(), kinds = enc.map((e) => e.kind);
        const n = attention.layers.filter((l) => `${l.type}/${l.rope}/${l.window}/${l.chunk}/${l.temperature}` === key).length;
        const position = (kinds.includes('rope') ? 'RoPE' : kinds.includes('alibi') ? 'ALiBi' : 'NoPE') + (kinds.includes('temperature') ? ' + temperature' : '');
        const keys = plan.attention.window ? `window ${plan.attention.window}` : plan.attention.chunk ? `chunk ${plan.attention.chunk}` : 'all before';
        const logits = [plan.scaleRule.replace(' (the class default, ', ' (default ').replace('head_dim^-1/2 (head_dim ', 'head_dim^-1/2 ('),
          plan.attention.softcap ? `softcap ${plan.attention.softcap}` : '', plan.requires.length ? `+ ${plan.requires.join(', ')}` : ''].filter(Boolean).join(' · ');
        rows.push([`${plan.layer.type} × ${n} (first: ${layer})`, position, keys, logits]);
      }
    } catch (e) {
      body.replaceChildren();
      caption.textContent = `No plan: ${e.name}: ${e.message}`;
      demo.ropePlan = { error: e.message };
      return;
    }
    body.replaceChildren(...rows.map((r) => {
      const tr = document.createElement('tr');
      tr.append(...r.map((x) => Object.assign(document.createElement('td'), { textContent: String(x) })));
      return tr;
    }));
    let spec;
    try { spec = layerSpec(json, plan0.layer.index); } catch (e) {
      caption.textContent = `Not run live: ${e.message}.`;
      demo.ropePlan = { rows: rows.length };
      return;
    }
    const { heads, kvHeads, headDim: hd } = spec, vd = spec.valueDim ?? hd, T = 12;
    const rand = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 7919 + i * 12.9898) * 1.5);
    const q = rand(heads * T * hd, 1), k = rand(kvHeads * T * hd, 2), v = rand(kvHeads * T * vd, 3).map((x) => x / 1.5);
    const sinkLogits = spec.sinks ? rand(heads, 4).map((x) => x * 2) : undefined;
    const mrope = Boolean(spec.rope?.mrope);
    const at = (i) => (mrope ? [i, i, i] : i);  // text tokens: every M-RoPE axis at the sequence index
    const axes = (n) => (mrope ? [0, 1, 2].flatMap(() => Array.from({ length: n }, (_, i) => i)) : undefined);
    const { out } = pe.attention({ q, k, v, qLen: T, kLen: T, ...plan0.attention, ...(plan0.requires.length ? { sinkLogits } : {}),
      ...(mrope ? { qPositions: axes(T), kPositions: axes(T) } : {}) });
    const want = referenceRows(spec, { q, qTokens: T, k, v, kTokens: T, qPos: at, kPos: at, qSeq: (i) => i, kSeq: (j) => j, sinkLogits },
      Array.from({ length: T }, (_, i) => i), T);
    const diff = out.reduce((m, x, i) => Math.max(m, Math.abs(x - want[i])), 0);
    demo.ropePlan = { rows: rows.length, layer: plan0.layer.index, maxDiff: diff };
    caption.textContent = `Layer ${plan0.layer.index} run live: ${T} tokens of random q, k, v at ${heads} query heads and ${kvHeads} kv heads of ${hd}${vd !== hd ? ` (values of ${vd})` : ''} through ` +
      `pe.attention with the plan, against a float64 reference written from ${json.text_config?.model_type ?? json.model_type}'s transformers code: ` +
      `largest difference ${diff.toExponential(1)}.`;
  }

  function drawConfig() {
    const box = $('rope-config'), out = $('rope-config-out');
    try {
      const json = JSON.parse(box.value), cfg = readConfig(json);
      const f = pe.ropeFrequencies(cfg);
      out.classList.remove('err');
      out.textContent = `${JSON.stringify({ ...cfg, scaling: cfg.scaling && { ...cfg.scaling, shortFactor: cfg.scaling.shortFactor && '[…]', longFactor: cfg.scaling.longFactor && '[…]' } }, null, 1)}\n` +
        `→ rotaryDim ${f.rotaryDim}, attentionScale ${f.attentionScale.toFixed(6)}, ω₀ = ${f.invFreq[0].toPrecision(6)}, ω_last = ${f.invFreq[f.invFreq.length - 1].toPrecision(6)}`;
      demo.ropeConfig = { cfg, rotaryDim: f.rotaryDim, attentionScale: f.attentionScale };
      // the model's context: max_position_embeddings, else the scaled original length, else 4096
      const orig = cfg.scaling?.originalMaxPositionEmbeddings;
      const text = json.text_config ?? json;
      const context = text.max_position_embeddings ?? (orig ? Math.round(orig * (cfg.scaling.factor ?? 1)) : 4096);
      drawDecay(cfg, context);
      drawLayers(cfg.attention, cfg.temperature);
      drawMasks(cfg.attention);
      drawPlan(json, cfg.attention);
      $('rope-ignored').textContent = cfg.ignored.length
        ? `Written but not read: ${cfg.ignored.map((x) => `${x.key} = ${JSON.stringify(x.value)} (${x.reason})`).join('; ')}. {strict: true} refuses them.` : '';
      drawTemperature(cfg.temperature, context);
      demo.ropeConfig.layers = cfg.attention.layers.length;
    } catch (e) {
      out.classList.add('err');
      out.textContent = `${e.name}: ${e.message}`;
    }
  }

  const select = $('rope-preset');
  for (const name of Object.keys(PRESETS)) select.append(new Option(name, name));
  const redrawConfig = timed('rope', drawConfig);
  select.addEventListener('change', () => { $('rope-config').value = JSON.stringify(PRESETS[select.value], null, 2); redrawConfig(); });
  $('rope-config').value = JSON.stringify(PRESETS[select.value], null, 2);
  $('rope-config').addEventListener('input', () => redrawConfig());
  $('rope-layer-type').addEventListener('change', () => redrawConfig());
  bindInput('rope-dim', state, 'headDim', drawSchedules);
  bindInput('rope-base', state, 'base', drawSchedules);
  bindInput('rope-factor', state, 'factor', drawSchedules);
  bindInput('rope-l0', state, 'L0', drawSchedules);
  return () => { drawSchedules(); drawPrecision(); drawConfig(); };
}
