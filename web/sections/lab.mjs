// Train short, test long: the lab's trained models (web/lab/models/, from scripts/train/train.py) run
// live in the page by web/lab/runner.mjs — every positional step by posenc. Per-position accuracy of
// every model on the fixed test set, out to 8L; the RoPE model under each context-extension schedule;
// greedy generation through pe.KVCache.
//
// Loaded by its own <script type="module"> in the #lab block: it waits for the page's core
// (window.posencDemo.api, set by app.mjs) and then works on its own. The models run in Web Workers
// (web/lab/worker.mjs) so the other panels stay responsive while 8 × 8 × 512 tokens are computed.
import { lineChart } from '../plot.mjs';
import { $, demo, timed } from '../common.mjs';
import { LAB_MODELS, LAB_LABELS } from '../lab/runner.mjs';
import { testSet, positionAccuracy, windows, TRAINED_LENGTH as L } from '../lab/task.mjs';

const N = 8 * L, BIN = 8;
const MODEL_COLORS = { nope: '#4a5368', sinusoidal: '#8e44ad', learned: '#b58ac9', rope: '#2f5fb3', alibi: '#1f8a70', t5: '#e8a33d', kerple: '#c0392b', fire: '#7fb3d5' };
const SCHEDULE_LABELS = { none: 'no scaling', linear: 'PI (linear)', ntk: 'NTK-aware', dynamic: 'dynamic NTK', yarn: 'YaRN' };
const LETTERS = 'abcdefghijklmnopqrstuvwxyz012345';   // content tokens 1..32

// per-position accuracy [N] → binned series for the chart (x = last position of each bin, 1-based)
function binned({ correct, total }) {
  const xs = [], ys = [];
  for (let s = 0; s < N; s += BIN) {
    let c = 0, t = 0;
    for (let q = s; q < s + BIN; q++) { c += correct[q]; t += total[q]; }
    if (t) { xs.push(s + BIN); ys.push(c / t); }
  }
  return { xs, ys };
}

function markL(canvas, X, Y) {
  const ctx = canvas.getContext('2d');
  ctx.save();
  ctx.strokeStyle = '#e8a33d'; ctx.setLineDash([5, 4]); ctx.lineWidth = 1.5;
  ctx.beginPath(); ctx.moveTo(X(L), Y(0)); ctx.lineTo(X(L), Y(1)); ctx.stroke();
  ctx.fillStyle = '#b57a1c'; ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'left'; ctx.textBaseline = 'bottom';
  ctx.fillText('L = 64 (trained)', X(L) + 4, Y(0) - 4);
  ctx.restore();
}

// The models run in Web Workers (web/lab/worker.mjs), one per core but one (left to the page), at
// least two and at most four, each predicting part of the test set: while they compute, the page's
// thread only waits, so on a 2-core machine two workers halve a RoPE redraw. call(k, msg, onProgress)
// resolves to worker k's answer.
function workerPool() {
  const size = Math.max(2, Math.min(4, (navigator.hardwareConcurrency || 2) - 1));
  const pending = new Map();
  let next = 0;
  const workers = Array.from({ length: size }, () => {
    const w = new Worker(new URL('../lab/worker.mjs', import.meta.url), { type: 'module' });
    w.onmessage = ({ data }) => {
      const p = pending.get(data.id);
      if (!p) return;
      if (data.error) { pending.delete(data.id); p.reject(new Error(data.error)); } else if (data.tokens && !data.done) p.progress?.(data);
      else { pending.delete(data.id); p.resolve(data); }
    };
    w.onerror = (e) => { for (const p of pending.values()) p.reject(new Error(e.message || 'a lab worker failed to start')); pending.clear(); };
    return w;
  });
  const call = (k, msg, progress) => new Promise((resolve, reject) => { const id = ++next; pending.set(id, { resolve, reject, progress }); workers[k].postMessage({ ...msg, id }); });
  return { size, call };
}

async function labSection(pe, state, hooks) {
  const pool = workerPool();
  const tests = testSet();
  const acc = {};
  // greedy predictions of one model on the 8 test sequences, split over the workers; the per-position
  // accuracy is counted here. ms: the slowest worker's forward time.
  async function accuracyOf(name, rope) {
    const parts = Array.from({ length: pool.size }, (_, k) => tests.map((_, s) => s).filter((s) => s % pool.size === k));
    const answers = await Promise.all(parts.map((seqs, k) => pool.call(k, { op: 'predict', name, rope, seqs })));
    const preds = [];
    for (const a of answers) for (const [s, p] of a.preds) preds[s] = p;
    return { ...positionAccuracy(tests, preds, N), preds, ms: Math.max(...answers.map((a) => a.ms)) };
  }
  const lab = (demo.lab = { ready: false, accuracy: acc, computeMs: {}, rope: null, generation: null });
  const status = $('lab-status');

  const drawAll = timed('lab', () => {
    const series = LAB_MODELS.filter((n) => acc[n]).map((n) => ({ name: LAB_LABELS[n], color: MODEL_COLORS[n], ...binned(acc[n]) }));
    if (!series.length) return;
    const c = $('lab-acc');
    const { X, Y } = lineChart(c, series, { yMin: 0, yMax: 1, xLabel: 'position (1 … 8L)', yLabel: 'accuracy' });
    markL(c, X, Y);
    $('lab-table').innerHTML = LAB_MODELS.filter((n) => acc[n]).map((n) => {
      const w = windows(acc[n]);
      return `<tr><td>${LAB_LABELS[n]}</td>${['1L', '2L', '4L', '8L'].map((k) => `<td class="num">${(100 * w[k]).toFixed(0)} %</td>`).join('')}</tr>`;
    }).join('');
  });

  // every model on the fixed test set, in the worker, drawn as each one finishes
  const t0 = performance.now();
  for (const name of LAB_MODELS) {
    status.textContent = `Running ${LAB_LABELS[name]} on the 8 test sequences (${pool.size} Web Worker${pool.size > 1 ? 's' : ''})…`;
    const r = await accuracyOf(name);
    acc[name] = { correct: r.correct, total: r.total, preds: r.preds };
    lab.computeMs[name] = r.ms;
    drawAll();
  }
  const perModel = Object.values(lab.computeMs).reduce((a, b) => a + b, 0) / LAB_MODELS.length;
  status.textContent = `All ${LAB_MODELS.length} models run on 8 × ${N} tokens in ${((performance.now() - t0) / 1000).toFixed(1)} s, ` +
    `${perModel.toFixed(0)} ms per model, in this page (${pool.size} Web Worker${pool.size > 1 ? 's' : ''}) — nothing here is precomputed.`;
  status.classList.add('ok');

  // RoPE schedules: the RoPE model rerun with the schedule; timed from the input to the curve drawn
  let ropeRun = 0;
  const drawRopeCurve = timed('lab-rope', (rope, a, ms) => {
    const c = $('lab-rope');
    const series = [{ name: 'RoPE, no scaling', color: '#9aa1ae', ...binned(acc.rope), dash: [4, 3] }];
    if (rope) series.push({ name: `RoPE, ${SCHEDULE_LABELS[rope.type]} ×${rope.factor}`, color: '#2f5fb3', ...binned(a) });
    const { X, Y } = lineChart(c, series, { yMin: 0, yMax: 1, xLabel: 'position (1 … 8L)', yLabel: 'accuracy' });
    markL(c, X, Y);
    const w = windows(a);
    $('lab-rope-ms').textContent = rope ? `${ms.total.toFixed(0)} ms` : '–';
    $('lab-rope-8l').textContent = `${(100 * w['8L']).toFixed(0)} %`;
    const f = rope ? pe.ropeFrequencies({ headDim: 16, base: 10000, scaling: { type: rope.type, factor: rope.factor, ...(rope.type === 'dynamic' || rope.type === 'yarn' ? { originalMaxPositionEmbeddings: L } : {}) }, seqLen: N }) : null;
    $('lab-rope-caption').textContent = rope
      ? `${SCHEDULE_LABELS[rope.type]} ×${rope.factor}: at L ${(100 * w['1L']).toFixed(0)} %, 2L ${(100 * w['2L']).toFixed(0)} %, 4L ${(100 * w['4L']).toFixed(0)} %, 8L ${(100 * w['8L']).toFixed(0)} %` +
        ` (attention scale ${f.attentionScale.toFixed(3)}). Redraw: ${ms.total.toFixed(0)} ms from the input to this curve, of which the model's 8 × ${N}-token forward took ${ms.compute.toFixed(0)} ms.`
      : 'Pick a schedule: the RoPE model is rerun on the 8 test sequences with it.';
  });
  async function redrawRope(startedAt) {
    const run = (lab.ropeLatest = ++ropeRun);   // a later input supersedes this run's curve
    const rope = state.schedule === 'none' ? null : { type: state.schedule, factor: state.factor };
    const r = rope ? await accuracyOf('rope', rope) : { correct: acc.rope.correct, total: acc.rope.total, ms: 0 };
    if (run !== ropeRun) return;
    const a = { correct: r.correct, total: r.total };
    const ms = { compute: r.ms, total: performance.now() - startedAt };
    drawRopeCurve(rope, a, ms);
    ms.total = performance.now() - startedAt;
    $('lab-rope-ms').textContent = rope ? `${ms.total.toFixed(0)} ms` : '–';
    lab.rope = { run, schedule: state.schedule, factor: state.factor, accuracy: a, ms, preds: r.preds };
  }
  hooks.rope = redrawRope;
  await redrawRope(performance.now());

  // generation through the KV cache (in the worker), shown as it goes
  const sel = $('lab-gen-model');
  sel.innerHTML = LAB_MODELS.map((n) => `<option value="${n}"${n === 'rope' ? ' selected' : ''}>${LAB_LABELS[n]}</option>`).join('');
  let genRun = 0;
  async function generate() {
    const run = ++genRun;
    const letters = [...$('lab-gen-prompt').value.toLowerCase()].filter((ch) => LETTERS.includes(ch));
    const pattern = [...new Set(letters)].map((ch) => LETTERS.indexOf(ch) + 1);
    const out = $('lab-gen-out');
    if (pattern.length < 2) { out.textContent = 'Type at least two distinct letters (a–z, 0–5).'; return; }
    const window = Number($('lab-gen-window').value), sinks = Number($('lab-gen-sinks').value);
    const name = sel.value;
    const prompt = [0, ...pattern, ...pattern];
    const steps = N + 1 - prompt.length;   // continue to position 8L
    const show = (t) => LETTERS[t - 1] ?? '·';
    const render = (tokens, ms) => {
      let html = `<span class="p">${prompt.slice(1).map(show).join('')}</span>`, first = null, good = 0;
      tokens.forEach((t, i) => {
        const pos = prompt.length + i;   // its position in the sequence (start token at 0)
        const ok = t === pattern[(pos - 1) % pattern.length];
        if (ok) good++; else first ??= pos;
        html += `<span class="${ok ? 'ok' : 'bad'}${pos === L + 1 ? ' mark' : ''}">${show(t)}</span>`;
      });
      out.innerHTML = html;
      $('lab-gen-first').textContent = first === null ? (tokens.length === steps ? 'none' : '–') : `position ${first}`;
      $('lab-gen-acc').textContent = tokens.length ? `${good} / ${tokens.length}` : '–';
      if (ms !== undefined) $('lab-gen-ms').textContent = `${(ms / steps).toFixed(2)} ms`;
      return first;
    };
    render([]);
    const r = await pool.call(0, { op: 'generate', name, prompt, steps, window, sinks }, (p) => { if (run === genRun) render(p.tokens); });
    if (run !== genRun) return;
    const first = render(r.tokens, r.ms);
    lab.generation = { model: name, pattern, window, sinks, prompt, tokens: r.tokens, first, msPerToken: r.ms / steps };
  }
  hooks.generate = generate;
  await generate();

  let resizeTimer;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { drawAll(); redrawRope(performance.now()); }, 150); });
  lab.ready = true;
  $('lab').dataset.ready = 'true';
}

async function start() {
  // the controls answer at once (a timed redraw saying what is being recomputed, so the page's input →
  // redraw timing holds for them too); the worker's result redraws the curve or the text when it arrives
  const state = { schedule: 'none', factor: 8 }, hooks = {};
  const pendingRope = timed('lab-rope', () => {
    $('lab-rope-caption').textContent = hooks.rope ? 'Recomputing the RoPE model on the 8 test sequences…' : 'The models are not loaded yet: the curve follows once they are.';
  });
  const pendingGen = timed('lab-gen', () => { $('lab-gen-out').textContent = hooks.generate ? 'Generating…' : 'The models are not loaded yet.'; });
  for (const b of document.querySelectorAll('#lab-schedule [data-value]')) {
    b.addEventListener('click', (e) => {
      state.schedule = b.dataset.value;
      document.querySelectorAll('#lab-schedule [data-value]').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
      pendingRope();
      hooks.rope?.(e.timeStamp);
    });
  }
  $('lab-factor').addEventListener('input', (e) => { state.factor = Number(e.target.value); pendingRope(); hooks.rope?.(e.timeStamp); });
  $('lab-gen-run').addEventListener('click', () => { pendingGen(); hooks.generate?.(); });
  for (const id of ['lab-gen-model', 'lab-gen-window', 'lab-gen-sinks']) $(id).addEventListener('change', () => { pendingGen(); hooks.generate?.(); });
  // app.mjs loads the core and sets window.posencDemo.api; wait for it (the page's other panels come first)
  while (!demo.api && document.body.dataset.ready !== 'error') await new Promise((r) => setTimeout(r, 50));
  if (!demo.api) return;
  // 8 models × 8 × 512 tokens keep the workers busy for seconds: start when the panel comes within a
  // screen of the viewport, not while the reader is elsewhere on the page
  await new Promise((resolve) => {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { io.disconnect(); resolve(); }
    }, { rootMargin: '100% 0px' });
    io.observe($('lab'));
  });
  try {
    await labSection(demo.api, state, hooks);
  } catch (err) {
    const s = $('lab-status');
    s.textContent = `The lab could not run: ${err.message}`;
    s.classList.add('err');
    $('lab').dataset.ready = 'error';
    throw err;
  }
}
start();
