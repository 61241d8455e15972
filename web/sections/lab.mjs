// Train short, test long: the lab's trained models (web/lab/models/, from scripts/train/train.py). Every
// model's 5 seeds on both tasks as small multiples (the band spans the seeds, the line is their mean: from
// results.json, PyTorch's numbers), seed 1 of every model run live here by web/lab/runner.mjs — every
// positional step by posenc — and checked equal to PyTorch's; the window probe; the heads' attention
// maps before and past L; the RoPE model under each context-extension schedule; greedy generation
// through pe.KVCache.
//
// Loaded by its own <script type="module"> in the #lab block: it waits for the page's core
// (window.posencDemo.api, set by app.mjs) and then works on its own. The models run in Web Workers
// (web/lab/worker.mjs) so the other panels stay responsive while 9 × 8 × 512 tokens are computed.
import { lineChart, bandChart, heatmapFigure, colorBar } from '../plot.mjs';
import { $, demo, timed } from '../common.mjs';
import { LAB_MODELS, LAB_LABELS } from '../lab/runner.mjs';
import { testSet, positionAccuracy, windows, determined, TASKS, TRAINED_LENGTH as L } from '../lab/task.mjs';
import { seedStats, binnedSeeds, binned, correctCounts, formatStat, formatRange, findings, renderFinding, WINDOWS } from '../lab/results.mjs';

const N = 8 * L, BIN = 8;
const MODEL_COLORS = { nope: '#4a5368', sinusoidal: '#8e44ad', learned: '#b58ac9', rope: '#2f5fb3', 'rope-pi': '#5b86d6', alibi: '#1f8a70', t5: '#e8a33d', kerple: '#c0392b', fire: '#3f8fbf', fox: '#d35400', stickbreaking: '#16a085' };
const SCHEDULE_LABELS = { none: 'no scaling', linear: 'PI (linear)', ntk: 'NTK-aware', dynamic: 'dynamic NTK', yarn: 'YaRN' };
const LETTERS = 'abcdefghijklmnopqrstuvwxyz012345';   // content tokens 1..32
const X_TICKS = [{ x: L, label: 'L' }, { x: 2 * L, label: '2L' }, { x: 4 * L, label: '4L' }, { x: 8 * L, label: '8L' }];
const PROBE = 'window48';
// the attention maps: 24 queries right before L and right before 3L, over every key up to them
const ATTN_Q = 24;
const ATTN_REGIONS = [{ q0: L - ATTN_Q, q1: L, k0: 0, k1: L }, { q0: 3 * L - ATTN_Q, q1: 3 * L, k0: 0, k1: 3 * L }];
const pct = (x) => `${(100 * x).toFixed(0)} %`;

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
  const tests = Object.fromEntries(TASKS.map((t) => [t, testSet(t)]));
  const r = await fetch(new URL('../lab/models/results.json', import.meta.url));
  if (!r.ok) throw new Error(`results.json: HTTP ${r.status}`);
  const results = await r.json();
  const live = Object.fromEntries(TASKS.map((t) => [t, {}]));
  const lab = (demo.lab = { ready: false, results, live, computeMs: {}, agrees: {}, rope: null, generation: null, attention: null, task: state.task });
  const status = $('lab-status');

  // greedy predictions of one model on the 8 sequences of a task, one sequence per message spread over
  // the workers; onSeq(done) after each arrives (progress). ms: the slowest worker's forward time.
  async function accuracyOf(name, task, rope, onSeq) {
    const ms = new Array(pool.size).fill(0), preds = [];
    let done = 0;
    await Promise.all(tests[task].map((_, s) => pool.call(s % pool.size, { op: 'predict', name, task, rope, seqs: [s] }).then((a) => {
      for (const [i, p] of a.preds) preds[i] = p;
      ms[s % pool.size] += a.ms;
      onSeq?.(++done);
    })));
    return { ...positionAccuracy(tests[task], preds, N), preds, ms: Math.max(...ms) };
  }

  // ---- small multiples and tables, from results.json (all seeds) and the live seed 1 ------------------
  const grid = $('lab-acc');
  const canvases = Object.fromEntries(LAB_MODELS.map((n) => {
    const c = document.createElement('canvas');
    c.width = 320; c.height = 180; c.dataset.model = n;
    c.setAttribute('aria-label', `${LAB_LABELS[n]}: accuracy per position`);
    grid.append(c);
    return [n, c];
  }));
  const firstSeed = String(results.seeds[0]);
  const drawAll = timed('lab', () => {
    const task = state.task;
    for (const n of LAB_MODELS) {
      const b = binnedSeeds(results, n, task);
      const st = seedStats(results, n, task);
      const mine = live[task][n];
      bandChart(canvases[n], {
        xs: b.xs, lo: b.min, hi: b.max, mean: b.mean, second: mine ? binned(mine.correct, mine.total, BIN).ys : null,
        color: MODEL_COLORS[n], title: LAB_LABELS[n], note: `4L: ${formatStat(st['4L'])}`,
        hlines: [{ y: 1 / 32, label: 'chance' }], vlines: [{ x: L }], xTicks: X_TICKS,
      });
    }
    const row = (n, cells) => `<tr data-model="${n}"><td>${LAB_LABELS[n]}</td>${cells}</tr>`;
    // the value (its % sign dropped on a phone, where the header says it once) and the seeds' range beneath
    const cell = (s, key) => `<td class="num" data-key="${key}"><span class="v">${formatStat(s).replace(/ %$/, '<span class="pc"> %</span>')}</span><br><small>${formatRange(s)}</small></td>`;
    $('lab-table').innerHTML = LAB_MODELS.map((n) => {
      const st = seedStats(results, n, task);
      return row(n, WINDOWS.map((w) => cell(st[w], `plain:${w}`)).join(''));
    }).join('');
    $('lab-probe').innerHTML = LAB_MODELS.map((n) => {
      const full = seedStats(results, n, task), win = seedStats(results, n, task, PROBE);
      return row(n, [cell(full['4L'], 'plain:4L'), cell(full['8L'], 'plain:8L'), cell(win['4L'], `${PROBE}:4L`), cell(win['8L'], `${PROBE}:8L`)].join(''));
    }).join('');
    findingsList();
  });

  // what the lab shows, with its numbers from results.json: the same sentences as README.md's (web/lab/results.mjs)
  function findingsList() {
    $('lab-findings').innerHTML = findings(results).map((f) => `<li>${renderFinding(f, 'html')}</li>`).join('');
  }
  drawAll();
  hooks.task = () => { lab.task = state.task; drawAll(); runLive(state.task); hooks.ropeBaseline?.(); hooks.attention?.(); };

  // seed 1 of every model, live, on a task: the dotted line, and checked equal to PyTorch's counts
  const liveRuns = {};
  function runLive(task) {
    liveRuns[task] ??= (async () => {
      const t0 = performance.now();
      for (const name of LAB_MODELS) {
        if (state.task === task) status.textContent = `Running seed 1 of ${LAB_LABELS[name]} on the 8 ${task} sequences (${pool.size} Web Workers)…`;
        const a = await accuracyOf(name, task);
        live[task][name] = { correct: a.correct, total: a.total, preds: a.preds };
        lab.computeMs[`${task}:${name}`] = a.ms;
        const want = correctCounts(results, name, firstSeed, task);
        lab.agrees[`${task}:${name}`] = want.every((c, q) => c === a.correct[q]);
        if (state.task === task) drawAll();
      }
      const bad = LAB_MODELS.filter((n) => !lab.agrees[`${task}:${n}`]);
      const msg = `Seed 1 of all ${LAB_MODELS.length} models run here on the 8 ${task} sequences (${N} tokens each) in ${((performance.now() - t0) / 1000).toFixed(1)} s ` +
        `(${pool.size} Web Workers): ${bad.length ? `differs from PyTorch's for ${bad.join(', ')}` : 'every per-position count equals PyTorch\'s'}. The bands and means over ${results.seeds.length} seeds are PyTorch's (results.json).`;
      lab.liveStatus = { ...lab.liveStatus, [task]: msg };
      if (state.task === task) { status.textContent = msg; status.classList.toggle('ok', !bad.length); status.classList.toggle('err', !!bad.length); }
    })();
    if (lab.liveStatus?.[task]) status.textContent = lab.liveStatus[task];
    return liveRuns[task];
  }
  await runLive(state.task);

  // ---- attention maps ------------------------------------------------------------------------------
  const attnGrids = [$('lab-attn-a'), $('lab-attn-b')].map((g) => Array.from({ length: 8 }, () => {
    const c = document.createElement('canvas'); c.width = 200; c.height = 120; g.append(c); return c;
  }));
  let attnRun = 0;
  const drawAttention = timed('lab-attn', (a) => {
    const { maps, model, seq, window, task } = a;
    const t = tests[task][seq], known = determined(t);
    const switches = t.segments.map((s) => s[0]);
    ATTN_REGIONS.forEach((reg, r) => {
      const nq = reg.q1 - reg.q0, nk = reg.k1 - reg.k0;
      $(`lab-attn-title-${'ab'[r]}`).textContent = `queries ${reg.q0 + 1}–${reg.q1} (${r ? 'past L' : 'before L'}) over keys ${reg.k0 + 1}–${reg.k1}`;
      for (let l = 0; l < 2; l++)
        for (let h = 0; h < 4; h++) {
          const m = maps[r].subarray((l * 4 + h) * nq * nk, (l * 4 + h + 1) * nq * nk);
          // √weight: the small weights of a head spread over many keys stay visible
          const v = Float32Array.from(m, (x) => (Number.isNaN(x) ? NaN : Math.sqrt(x)));
          const marks = [...(r ? [{ col: L - reg.k0, color: '#e8a33d' }] : []),
            ...(task === 'switch' ? switches.filter((s) => s - 1 > reg.k0 && s - 1 < reg.k1).map((s) => ({ col: s - 1 - reg.k0, color: '#9aa1ae' })) : [])];
          heatmapFigure(attnGrids[r][l * 4 + h], v, nq, nk, { color: 'sequential', min: 0, max: 1, colorbar: false, ticks: false, title: `layer ${l + 1} · head ${h + 1}`, plotAspect: r ? 0.3 : 0.45, marks, minWidth: 80 });
        }
      // how many of these queries' next tokens the model gets right
      let c = 0, n = 0;
      for (let q = reg.q0; q < reg.q1; q++) if (known[q + 1]) { n++; if (a.preds[q] === t.tokens[q + 1]) c++; }
      $(`lab-attn-acc-${'ab'[r]}`).textContent = n ? `${c} / ${n}` : '–';
    });
    colorBar($('lab-attn-bar'), { color: 'sequential', min: 0, max: 1, legend: 'attention weight (colour ∝ √weight)', ticks: [0.25, 0.5], legendFormat: (x) => (x * x).toFixed(x ? 2 : 0) });
    $('lab-attn-caption').textContent = `${LAB_LABELS[model]}, ${task} sequence ${seq + 1}${window ? ', attention limited to the last 48 tokens' : ''}. ` +
      (task === 'pattern' ? 'In the pattern task a head that attends back into the first L tokens past L is reading the prefix.' : 'In the switch task the answer past L lies in the current pattern, right before the query.') +
      (model === 'stickbreaking' ? ' Stick-breaking rows sum to at most 1: a query takes the nearest keys first, and what its stick leaves attends to nothing.' : '');
  });
  async function attention() {
    const run = ++attnRun;
    const model = $('lab-attn-model').value, seq = Number($('lab-attn-seq').value), window = Number($('lab-attn-window').value), task = state.task;
    const a = await pool.call(0, { op: 'attention', name: model, task, seq, window, regions: ATTN_REGIONS });
    if (run !== attnRun) return;
    const res = { maps: a.maps, preds: a.preds, model, seq, window, task, ms: a.ms };
    drawAttention(res);
    lab.attention = res;
  }
  hooks.attention = attention;
  await attention();

  // ---- RoPE schedules: the RoPE model rerun with the schedule; timed from the input to the curve drawn ----
  let ropeRun = 0;
  const drawRopeCurve = timed('lab-rope', (rope, a, ms, task) => {
    const c = $('lab-rope');
    const base = live[task].rope;
    const series = [];
    if (base) series.push({ name: 'RoPE, no scaling', color: '#9aa1ae', ...binned(base.correct, base.total, BIN), dash: [4, 3] });
    if (rope) series.push({ name: `RoPE, ${SCHEDULE_LABELS[rope.type]} ×${rope.factor}`, color: '#2f5fb3', ...binned(a.correct, a.total, BIN) });
    if (!series.length) return;
    lineChart(c, series, { yMin: 0, yMax: 1, xLabel: `position (1 … 8L), ${task} task`, yLabel: 'accuracy', hlines: [{ y: 1 / 32, label: 'chance 1/32' }], vlines: [{ x: L, label: `L = ${L}`, color: '#b57a1c' }] });
    const w = windows(a);
    $('lab-rope-ms').textContent = rope ? `${ms.total.toFixed(0)} ms` : '–';
    $('lab-rope-4l').textContent = pct(w['4L']);
    $('lab-rope-8l').textContent = pct(w['8L']);
    const f = rope ? pe.ropeFrequencies({ headDim: 16, base: 10000, scaling: { type: rope.type, factor: rope.factor, ...(rope.type === 'dynamic' || rope.type === 'yarn' ? { originalMaxPositionEmbeddings: L } : {}) }, seqLen: N }) : null;
    $('lab-rope-caption').textContent = rope
      ? `${SCHEDULE_LABELS[rope.type]} ×${rope.factor}, ${task} task: at L ${pct(w['1L'])}, 2L ${pct(w['2L'])}, 4L ${pct(w['4L'])}, 8L ${pct(w['8L'])}` +
        ` (attention scale ${f.attentionScale.toFixed(3)}). Redraw: ${ms.total.toFixed(0)} ms from the input to this curve, of which the model's 8 × ${N}-token forward took ${ms.compute.toFixed(0)} ms.`
      : `Pick a schedule: the RoPE model is rerun on the 8 ${task} sequences with it.`;
  });
  async function redrawRope(startedAt) {
    const run = (lab.ropeLatest = ++ropeRun);   // a later input supersedes this run's curve
    const task = state.task;
    const rope = state.schedule === 'none' ? null : { type: state.schedule, factor: state.factor };
    const progress = $('lab-rope-progress');
    progress.value = 0;
    // no schedule: the live run's own RoPE curve (waited for when the task was just switched)
    if (!rope && !live[task].rope) await runLive(task);
    const r = rope ? await accuracyOf('rope', task, rope, (done) => { if (run === ropeRun) progress.value = done; }) : { ...live[task].rope, ms: 0 };
    progress.value = 8;
    if (run !== ropeRun) return;
    const a = { correct: r.correct, total: r.total };
    const ms = { compute: r.ms, total: performance.now() - startedAt };
    drawRopeCurve(rope, a, ms, task);
    ms.total = performance.now() - startedAt;
    $('lab-rope-ms').textContent = rope ? `${ms.total.toFixed(0)} ms` : '–';
    lab.rope = { run, task, schedule: state.schedule, factor: state.factor, accuracy: a, ms, preds: r.preds };
  }
  hooks.ropeBaseline = () => redrawRope(performance.now());
  hooks.rope = redrawRope;
  await redrawRope(performance.now());

  // ---- generation through the KV cache (in the worker), shown as it goes --------------------------------
  const sel = $('lab-gen-model');
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
    let g;
    try {
      g = await pool.call(0, { op: 'generate', name, prompt, steps, window, sinks }, (p) => { if (run === genRun) render(p.tokens); });
    } catch (err) {
      // a refusal by posenc, as it words it
      if (run === genRun) { out.textContent = `Not run: ${err.message}`; lab.generation = { model: name, window, sinks, error: err.message }; }
      return;
    }
    if (run !== genRun) return;
    const first = render(g.tokens, g.ms);
    lab.generation = { model: name, pattern, window, sinks, prompt, tokens: g.tokens, first, msPerToken: g.ms / steps };
  }
  hooks.generate = generate;
  await generate();

  let resizeTimer;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { drawAll(); if (lab.attention) drawAttention(lab.attention); redrawRope(performance.now()); }, 150); });
  lab.ready = true;
  $('lab').dataset.ready = 'true';
  // the other task's live run, once everything else is drawn
  for (const t of TASKS) runLive(t);
}

async function start() {
  // the controls answer at once (a timed redraw saying what is being recomputed, so the page's input →
  // redraw timing holds for them too); the worker's result redraws the curve or the text when it arrives
  const state = { schedule: 'none', factor: 8, task: 'switch' }, hooks = {};
  const pendingRope = timed('lab-rope', () => {
    $('lab-rope-caption').textContent = hooks.rope ? `Recomputing the RoPE model on the 8 ${state.task} sequences…` : 'The models are not loaded yet: the curve follows once they are.';
  });
  const pendingGen = timed('lab-gen', () => { $('lab-gen-out').textContent = hooks.generate ? 'Generating…' : 'The models are not loaded yet.'; });
  const pendingAttn = timed('lab-attn', () => { $('lab-attn-caption').textContent = hooks.attention ? 'Computing the attention weights…' : 'The models are not loaded yet.'; });
  for (const b of document.querySelectorAll('#lab-schedule [data-value]')) {
    b.addEventListener('click', (e) => {
      state.schedule = b.dataset.value;
      document.querySelectorAll('#lab-schedule [data-value]').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
      pendingRope();
      hooks.rope?.(e.timeStamp);
    });
  }
  for (const b of document.querySelectorAll('#lab-task [data-value]')) {
    b.addEventListener('click', () => {
      state.task = b.dataset.value;
      document.querySelectorAll('#lab-task [data-value]').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
      hooks.task?.();
    });
  }
  $('lab-factor').addEventListener('input', (e) => { state.factor = Number(e.target.value); pendingRope(); hooks.rope?.(e.timeStamp); });
  $('lab-gen-run').addEventListener('click', () => { pendingGen(); hooks.generate?.(); });
  for (const id of ['lab-gen-model', 'lab-gen-window', 'lab-gen-sinks']) $(id).addEventListener('change', () => { pendingGen(); hooks.generate?.(); });
  for (const id of ['lab-attn-model', 'lab-attn-seq', 'lab-attn-window']) $(id).addEventListener('change', () => { pendingAttn(); hooks.attention?.(); });
  // app.mjs loads the core and sets window.posencDemo.api; wait for it (the page's other panels come first)
  while (!demo.api && document.body.dataset.ready !== 'error') await new Promise((r) => setTimeout(r, 50));
  if (!demo.api) return;
  // 9 models × 8 × 512 tokens keep the workers busy for seconds: start when the panel comes within a
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
