// A gallery of relative methods: what each adds for the pair (query i, key j), as an (i, j) map —
// ALiBi per head (8 and 12 heads) and its worked example, T5 buckets (bidirectional, causal), Shaw's
// clipping, Swin's window index, Transformer-XL's position term, DeBERTa's buckets, FoX's forget-gate decay. Every map comes
// from the core: bucket functions directly, the content × position methods read back from pe.attention's
// scores with the content switched off (k = 0). Stick-breaking attention's weights beside softmax's for
// the same logits (pe.attention with { kind: 'stickBreaking' } and with { kind: 'none' }).
import { heatmapFigure, cellAt, colorBar, barChart, lineChart } from '../plot.mjs';
import { $, bindInput, bindSegmented, demo, demoFloats, timed } from '../common.mjs';

const AXES = { xLabel: 'key j →', yLabel: '← query i' };
const pairs = (T, f) => Int32Array.from({ length: T * T }, (_, n) => f(Math.floor(n / T), n % T));  // f(i, j), row-major

export function relativeSection(pe) {
  const state = { heads: '8', T: 32, K: 4, swin: 4, deb: 16, slope: 0.25, back: 4, sbScale: 1, foxKind: 'constant', foxF: 0.9 };
  const readers = new Map();  // canvas -> (row, col) -> text, for the hover read-out

  const shortSlope = (s) => (Number.isInteger(Math.log2(s)) ? `1/${2 ** -Math.log2(s)}` : s.toPrecision(2));
  function slopeText(s) {
    const e = Math.log2(s);
    return Number.isInteger(2 * e) ? `2<sup>${e}</sup>` : s.toPrecision(3);
  }

  function drawAlibi() {
    const n = Number(state.heads), T = 16;
    const slopes = pe.alibiSlopes(n);
    const positions = Int32Array.from({ length: T }, (_, i) => i);
    const bias = pe.attentionBias({ kind: 'alibi', heads: n }, positions, positions);  // [n, T, T], −m·(i − j)
    let maxAbs = 0;
    for (let k = 0; k < bias.length; k++) {
      if (k % T > Math.floor(k / T) % T) bias[k] = NaN;  // keys after the query: masked in causal use
      else maxAbs = Math.max(maxAbs, Math.abs(bias[k]));
    }
    // one colour scale for all heads, logarithmic in |bias| so the flat last heads stay visible next to the
    // steep first ones: colour = −log(1 + |b|/b0) / log(1 + max/b0), b0 the smallest slope (one step of the flattest head)
    const b0 = Math.min(...slopes), span = Math.log1p(maxAbs / b0);
    const toColor = (b) => (Number.isNaN(b) ? NaN : -Math.log1p(-b / b0) / span), fromColor = (v) => -b0 * Math.expm1(-v * span);
    const shown = bias.map(toColor);
    const grid = $('rel-alibi');
    while (grid.children.length > n) grid.lastChild.remove();
    while (grid.children.length < n) {
      const c = document.createElement('canvas');
      c.width = 120; c.height = 130;
      grid.append(c);
    }
    // the number of columns follows the head count: lay the grid out once, then draw every map at that width
    grid.dataset.n = String(n);
    const cw = grid.children[0].clientWidth;
    [...grid.children].forEach((c, h) => {
      c.setAttribute('aria-label', `ALiBi head ${h}: slope ${slopes[h]}`);
      heatmapFigure(c, shown.subarray(h * T * T, (h + 1) * T * T), T, T, { max: 1, colorbar: false, ticks: false, title: `h${h} · ${shortSlope(slopes[h])}`, minWidth: 80, cssWidth: cw });
      readers.set(c, (i, j) => `ALiBi, ${n} heads, head ${h} (m = ${slopes[h].toPrecision(4)}): query ${i}, key ${j} → bias ${j > i ? 'masked (future key)' : (-slopes[h] * (i - j)).toFixed(4)}`);
    });
    grid.dataset.n = String(n);
    const bFmt = (b) => (b === 0 ? '0' : Math.abs(b) >= 1 ? b.toFixed(1) : b.toPrecision(1));
    colorBar($('rel-alibi-bar'), { max: 1, lo: -1, hi: 0, legendFormat: (v) => bFmt(fromColor(v)),
      ticks: [-1, -0.1, -0.01].filter((b) => -b < maxAbs && -b > b0).map((b) => toColor(b)),
      legend: 'bias −m·(i − j), one logarithmic scale for all heads (the last heads are faint, not blank)' });
    const other = pe.alibiSlopes(n === 8 ? 12 : 8);
    $('rel-alibi-slopes').innerHTML = Array.from(slopes, (s, h) => `<span class="chip"><small>h${h}</small> ${slopeText(s)}</span>`).join('');
    $('rel-alibi-text').innerHTML = n === 8
      ? `8 heads: m<sub>h</sub> = 2<sup>−8(h+1)/8</sup> = 1/2, 1/4, … 1/256 — from a head that barely looks past its neighbours to one that sees the whole context almost flat. With 12 heads the list would be [${Array.from(other, (s) => +s.toPrecision(3)).join(', ')}].`
      : `12 is not a power of two: the first 8 heads take the 8-head slopes, the other 4 take every second slope of the 16-head sequence (2<sup>−0.5</sup>, 2<sup>−1.5</sup>, …), so the list is not sorted. With 8 heads it would be [${Array.from(other, (s) => +s.toPrecision(3)).join(', ')}].`;
    return { slopes: Array.from(slopes), other: Array.from(other) };
  }

  // Worked example: one query at the last position, equal content scores (q = 0), ALiBi slope m:
  // a key Δ positions further back gets e^(−mΔ) of the weight.
  function drawWorked() {
    const m = state.slope, back = state.back, kLen = 13, headDim = 8, ref = 2;
    const { weights } = pe.attention({
      q: new Float32Array(headDim), k: demoFloats(kLen * headDim, 61), v: demoFloats(kLen * headDim, 62), heads: 1, headDim, qLen: 1, kLen,
      causal: true, encoding: { kind: 'alibi', heads: 1, slopes: [m] }, returnWeights: true,
    });
    const near = kLen - 1 - ref, far = near - back;  // key indices: distance ref and ref + back from the query at kLen − 1
    const ratio = weights[far] / weights[near];
    barChart($('rel-worked'), Array.from(weights, (w, j) => ({ name: `key ${j} · ${kLen - 1 - j} back`, value: w, color: j === near ? '#2f5fb3' : j === far ? '#c0392b' : '#c9c4b8' })).reverse(), { unit: '' });
    $('rel-worked-out').innerHTML = `Query at position ${kLen - 1}, slope m = ${m}, every content score equal (q = 0), weights from <code>pe.attention</code>: ` +
      `the key ${ref} back gets <b style="color:#2f5fb3">${weights[near].toFixed(4)}</b>, the key ${back} further back <b style="color:#c0392b">${weights[far].toFixed(4)}</b> — ` +
      `ratio <b>${ratio.toFixed(6)}</b> = e<sup>−${m}·${back}</sup> = e<sup>${-(m * back)}</sup> = ${Math.exp(-m * back).toFixed(6)}. Each step back multiplies the weight by e<sup>−m</sup>, whatever the content.`;
    return { slope: m, back, weights: Array.from(weights), near, far, ratio };
  }

  // Stick-breaking (Tan et al. 2024) beside softmax, for the same logits: one query after 16 keys, headDim 1,
  // q = the logit scale s, k_j = fixed contents c_j (plus 1, so most logits are positive), scale 1: z_j = s·c_j.
  // The query sits one position past the last key, so both see every key (stick-breaking sees keys before it).
  function drawStick() {
    const kLen = 16, s = state.sbScale;
    const c = Float32Array.from(demoFloats(kLen, 91), (x) => 1 + x);
    const args = { q: new Float32Array([s]), k: c, v: new Float32Array(kLen), heads: 1, headDim: 1, qLen: 1, kLen, scale: 1, causal: true,
      qPositions: new Int32Array([kLen]), returnWeights: true };
    const soft = pe.attention({ ...args, encoding: { kind: 'none' } }).weights;
    const stick = pe.attention({ ...args, encoding: { kind: 'stickBreaking' } }).weights;
    const back = Array.from({ length: kLen }, (_, d) => d + 1), byBack = (w) => back.map((d) => w[kLen - d]);  // d positions back: key kLen − d
    const rest = 1 - stick.reduce((a, w) => a + w, 0);
    lineChart($('rel-sb'), [
      { name: 'softmax', color: '#2f5fb3', xs: back, ys: byBack(soft), points: true },
      { name: 'stick-breaking', color: '#c0392b', xs: back, ys: byBack(stick), points: true },
    ], { yMin: 0, xLabel: 'key, positions back from the query', yLabel: 'weight' });
    $('rel-sb-out').innerHTML = `Logits z<sub>j</sub> = ${s}·c<sub>j</sub> for 16 keys, the same for both. Softmax spreads its weight by content alone ` +
      `(largest <b style="color:#2f5fb3">${Math.max(...soft).toFixed(3)}</b>); stick-breaking gives the nearest key σ(z) and every key further back ` +
      `only what the keys between left of the stick (largest <b style="color:#c0392b">${Math.max(...stick).toFixed(3)}</b>, ` +
      `${(100 * rest).toFixed(1)} % of the stick unused: its weights need not sum to 1).`;
    return { scale: s, logits: Array.from(c, (x) => Math.fround(s * x)), softmax: Array.from(soft), stick: Array.from(stick), rest };
  }

  function figure(id, values, T, o, read) {
    const c = $(id);
    heatmapFigure(c, values, o.rows ?? T, o.cols ?? T, { ...AXES, ...o });
    readers.set(c, read);
  }

  // the gallery: one function per map, so each control redraws only the maps it changes
  const g = {};  // what was drawn, for the browser test (demo.relative.gallery)
  function drawT5() {
    const { T } = state;
    // T5: bucket of j − i (key − query), 32 buckets, max distance 128 (T5's defaults)
    const rel = pairs(T, (i, j) => j - i);
    const bi = pe.t5Bucket(rel, { bidirectional: true }), causal = pe.t5Bucket(rel, { bidirectional: false });
    figure('rel-t5bi', Float32Array.from(bi), T, { color: 'sequential', min: 0, max: 31, legend: 'bucket' }, (i, j) => `T5 bidirectional: j − i = ${j - i} → bucket ${bi[i * T + j]}`);
    figure('rel-t5causal', Float32Array.from(causal), T, { color: 'sequential', min: 0, max: 31, legend: 'bucket' }, (i, j) => `T5 causal: j − i = ${j - i} → bucket ${causal[i * T + j]}`);
    Object.assign(g, { T, t5Bi: Array.from(bi), t5Causal: Array.from(causal) });
  }
  function drawShaw() {
    const { T, K } = state;
    // Shaw: which row of a^K each pair reads. keyTable row r = r·e0, q = e0, k = 0, scale 1 → score = row index.
    const D = 4, keyTable = new Float32Array((2 * K + 1) * D);
    for (let r = 0; r <= 2 * K; r++) keyTable[r * D] = r;
    const q = new Float32Array(T * D);
    for (let i = 0; i < T; i++) q[i * D] = 1;
    const shaw = pe.attention({ q, k: new Float32Array(T * D), v: new Float32Array(T * D), heads: 1, headDim: D, qLen: T, kLen: T, scale: 1,
      encoding: { kind: 'shaw', clip: K, keyTable }, returnScores: true }).scores;
    figure('rel-shaw', shaw, T, { color: 'sequential', min: 0, max: 2 * K || 1, legend: 'row of aᴷ' }, (i, j) => `Shaw, K = ${K}: j − i = ${j - i} → row ${shaw[i * T + j]} = clip(j − i, −${K}, ${K}) + ${K}`);
    Object.assign(g, { K, shaw: Array.from(shaw) });
  }
  function drawSwin() {
    const { swin } = state;
    // Swin: the bias-table row of each (query patch, key patch) pair in a swin × swin window
    const N = swin * swin, swinIdx = pe.swinRelativeIndex([swin, swin]), rows = (2 * swin - 1) ** 2;
    figure('rel-swin-idx', Float32Array.from(swinIdx), N, { color: 'sequential', min: 0, max: rows - 1, legend: 'table row', xLabel: 'key patch →', yLabel: '← query patch' },
      (i, j) => `Swin ${swin}×${swin}: query patch (${Math.floor(i / swin)}, ${i % swin}), key patch (${Math.floor(j / swin)}, ${j % swin}) → row ${swinIdx[i * N + j]} of ${rows}`);
    Object.assign(g, { swin, swinIdx: Array.from(swinIdx) });
  }
  function drawXl() {
    const { T } = state;
    // Transformer-XL: the position term (q_i + v)·r_(i−j) with q = 0 and k = 0, r = W_R·sinusoid(i − j)
    const hd = 8, dModel = 16;
    const xl = pe.attention({ q: new Float32Array(T * hd), k: new Float32Array(T * hd), v: new Float32Array(T * hd), heads: 1, headDim: hd, qLen: T, kLen: T, causal: true,
      encoding: { kind: 'xl', u: new Float32Array(hd), v: demoFloats(hd, 71), wR: demoFloats(hd * dModel, 72), dModel }, returnScores: true }).scores;
    const xlShow = xl.map((s) => (Number.isFinite(s) ? s : NaN));
    figure('rel-xl', xlShow, T, { legend: 'v·r(i − j) / √d' }, (i, j) => `Transformer-XL: i − j = ${i - j} → ${j > i ? 'masked (future key)' : xl[i * T + j].toFixed(4)}`);
    g.xl = Array.from(xl, (s) => (Number.isFinite(s) ? s : null));
  }
  function drawDeberta() {
    const { T, deb } = state;
    // DeBERTa: the signed log bucket of i − j (query − key), as Hugging Face
    const dRel = pairs(T, (i, j) => i - j);
    const debB = pe.debertaBucket(dRel, { bucketSize: deb, maxPosition: 64 });
    let debMax = 1;
    for (const b of debB) debMax = Math.max(debMax, Math.abs(b));
    figure('rel-deberta', Float32Array.from(debB), T, { max: debMax, legend: 'bucket of i − j' },
      (i, j) => `DeBERTa, bucket size ${deb || 'none'}: i − j = ${i - j} → bucket ${debB[i * T + j]}`);
    $('rel-deberta-note').textContent = deb
      ? `Exact while |i − j| < ${deb / 2}, then logarithmic: far pairs share buckets.`
      : 'bucket size 0: no bucketing, the bucket is i − j itself.';
    Object.assign(g, { deb, deberta: Array.from(debB) });
  }
  function drawFox() {
    const { T, foxKind, foxF } = state;
    // FoX: log gates per token (a constant f, or random gates in (0.3, 1)); the scores with q = k = 0 are
    // the bias D_ij = G_i − G_j; the map shows e^D, the factor on key j's weight (grey: keys after the query)
    const gates = foxKind === 'random' ? Array.from(demoFloats(T, 81), (u) => 0.3 + 0.35 * (u + 1)) : Array(T).fill(foxF);
    const logForget = Float32Array.from(gates, Math.log), hd = 4;
    const d = pe.attention({ q: new Float32Array(T * hd), k: new Float32Array(T * hd), v: new Float32Array(T * hd), heads: 1, headDim: hd, qLen: T, kLen: T, causal: true,
      encoding: { kind: 'forgetting', logForget }, returnScores: true }).scores;
    const decay = d.map((s) => (Number.isFinite(s) ? Math.exp(s) : NaN));
    figure('rel-fox', decay, T, { color: 'sequential', min: 0, max: 1, legend: 'e^D = Π f' },
      (i, j) => `FoX: query ${i}, key ${j} → ${j > i ? 'masked (future key)' : `D = ${d[i * T + j].toFixed(4)}, e^D = ${decay[i * T + j].toFixed(4)}`}`);
    $('rel-fox-note').textContent = foxKind === 'random'
      ? 'Random gates: a token with a small gate (a dark column edge) cuts the weight of everything before it for every later query — the decay is data-dependent, not a function of i − j.'
      : `A constant gate f = ${foxF} gives e^D = f^(i − j): ALiBi's linear bias with slope −log f = ${(-Math.log(foxF)).toFixed(4)}, the same along every diagonal.`;
    Object.assign(g, { fox: Array.from(d, (s) => (Number.isFinite(s) ? s : null)), foxKind, foxF });
  }
  function drawGallery() { drawT5(); drawShaw(); drawSwin(); drawXl(); drawDeberta(); drawFox(); return g; }
  const byPositions = () => { drawT5(); drawShaw(); drawXl(); drawDeberta(); drawFox(); return g; };  // every map over i, j (not Swin's patches)

  demo.relative = {};
  const part = (name, f) => () => { demo.relative[name] = f(); };
  const alibi = part('alibi', drawAlibi), worked = part('worked', drawWorked), gallery = part('gallery', drawGallery), stick = part('stick', drawStick);
  function draw() { alibi(); worked(); stick(); gallery(); }

  const readCell = (e) => {
    const read = readers.get(e.target);
    const c = read && cellAt(e.target, e);
    if (c) $('rel-readout').textContent = read(c.row, c.col);
  };
  $('relative').addEventListener('mousemove', readCell);
  $('relative').addEventListener('click', readCell);  // a tap on a touch screen
  // each control redraws only the figures it changes
  const t = (f) => timed('relative', f);
  bindSegmented('rel-heads', state, 'heads', t(alibi));
  for (const [id, key, f] of [['rel-T', 'T', byPositions], ['rel-K', 'K', drawShaw], ['rel-swin', 'swin', drawSwin], ['rel-deb', 'deb', drawDeberta], ['rel-fox-f', 'foxF', drawFox]])
    bindInput(id, state, key, t(() => { f(); demo.relative.gallery = g; }));
  bindInput('rel-fox-kind', state, 'foxKind', t(() => { drawFox(); demo.relative.gallery = g; }), String);
  bindInput('rel-slope', state, 'slope', t(worked));
  bindInput('rel-back', state, 'back', t(worked));
  bindInput('rel-sb-scale', state, 'sbScale', t(stick));
  return draw;
}
