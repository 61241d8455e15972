// KV cache: a slot is not a position. Slots, their logical positions, and what a mistake costs.
import { $, bindInput, bindSegmented, demo, demoFloats, timed } from '../common.mjs';

export function cacheSection(pe) {
  const kvHeads = 1, heads = 2, headDim = 16, capacity = 20;
  let cache, window = true, appended = 0, seed = 100;

  function reset() {
    cache?.delete();
    cache = new pe.KVCache({ kvHeads, headDim, capacity, window: window ? capacity - 2 : undefined, sinks: window ? 2 : 0, rope: { base: 10000 } });
    appended = 0;
  }

  function append(n) {
    const room = window ? n : Math.min(n, capacity - appended);
    if (room <= 0) { message(`The cache is full (${capacity} slots, no window): appending is a RangeError and the cache stays as it was.`, true); return draw(); }
    cache.append(demoFloats(kvHeads * room * headDim, seed++), demoFloats(kvHeads * room * headDim, seed++));
    appended += room;
    draw();
  }

  function message(text, warn = false) {
    const el = $('cache-message');
    el.textContent = text;
    el.classList.toggle('warn', warn);
  }

  function draw() {
    const positions = cache.positions(), next = cache.nextPositions()[0];
    const slots = $('cache-slots');
    slots.replaceChildren(...Array.from(positions, (p, i) => {
      const d = document.createElement('div');
      d.className = `slot${p < 0 ? ' empty' : ''}${window && i < 2 ? ' sink' : ''}`;
      d.innerHTML = `<small>slot ${i}</small><b>${p < 0 ? '–' : p}</b>`;
      return d;
    }));
    const filled = positions.filter((p) => p >= 0).length;
    // the classic mistake: the next token's position taken as the number of filled slots
    const q = demoFloats(heads * headDim, 7);
    let diff = 0;
    if (filled > 0) {
      const right = cache.attend(q, { heads }).out;
      const wrong = cache.attend(q, { heads, qPositions: [filled] }).out;
      for (let i = 0; i < right.length; i++) diff = Math.max(diff, Math.abs(right[i] - wrong[i]));
    }
    demo.cache = { positions: Array.from(positions), next, filled, diff };
    $('cache-next').textContent = String(next);
    $('cache-filled').textContent = String(filled);
    $('cache-diff').textContent = filled > 0 && next !== filled ? diff.toFixed(4) : '0 (slot count = next position here)';
    if (!$('cache-message').classList.contains('warn'))
      message(window ? `Sliding window of ${capacity - 2} slots after 2 sink slots: old tokens leave, kept tokens keep their positions.` : `No window: ${capacity} slots, then appending is an error.`);
  }

  const t = (fn) => timed('cache', fn);
  $('cache-append1').addEventListener('click', t(() => { message(''); append(1); }));
  $('cache-append10').addEventListener('click', t(() => { message(''); append(10); }));
  // StreamingLLM-style renumbering: sinks keep their positions, the kept window is renumbered to follow
  // them contiguously (oldest first), and every moved key is re-rotated by its delta.
  $('cache-shift').addEventListener('click', t(() => {
    const p = cache.positions();
    const kept = Array.from(p, (pos, slot) => ({ pos, slot })).filter((x) => x.pos >= 0).sort((a, b) => a.pos - b.pos);
    const np = Int32Array.from(p);
    kept.forEach((x, rank) => { np[x.slot] = rank; });
    cache.renumber(np);
    message(`Renumbered the ${kept.length} cached tokens to positions 0–${kept.length - 1} and re-rotated their keys: generation continues at ${kept.length}.`);
    draw();
  }));
  $('cache-window').addEventListener('change', t((e) => { window = e.target.checked; message(''); reset(); draw(); }));
  $('cache-reset').addEventListener('click', t(() => { message(''); reset(); draw(); }));
  reset();
  append(10);
  append(10);
  append(10);
  return draw;
}

// K/V storage: what each storage takes for a real model's cache (its bytes from the core: a cache's
// `bytes`), what fits the 4 GiB wasm heap, and, measured here, a decode step's time and the error the
// storage adds against float32 attention over the same keys and values.
const MODELS = { 'llama-3.2-1b': [16, 8, 64], 'llama-3.2-3b': [28, 8, 128], 'llama-3.1-8b': [32, 8, 128] };  // layers, kv heads, head dim
const STORAGES = ['f32', 'f16', 'bf16', 'q8'];
const HEAP = 4 * 2 ** 30 - 64 * 2 ** 20;  // what K and V may take of the 4 GiB heap, leaving 64 MiB for the rest
const gib = (b) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${(b / 2 ** 20).toFixed(1)} MiB`);
const count = (n) => n.toLocaleString('en-US').replace(/,/g, ' ');

export function cacheStoreSection(pe) {
  const state = { storage: 'f32', model: 'llama-3.2-3b', log2: 15 };
  // bytes per token and layer of every storage and shape, from the core: a cache of 64 slots (one key block)
  const perLayer = {};
  for (const [model, [, kvHeads, headDim]] of Object.entries(MODELS)) {
    perLayer[model] = {};
    for (const storage of STORAGES) {
      const c = new pe.KVCache({ kvHeads, headDim, capacity: 64, storage });
      perLayer[model][storage] = c.bytes / 64;
      c.delete();
    }
  }
  // Measured in the background after the page has drawn: 8192 cached tokens of 8 kv heads × 64 per
  // storage, the same keys and values; decode steps (append one token, attend 8 query heads) in rounds
  // over the four caches, and each storage's output against float32's for one query.
  const measured = { steps: null, errors: null };
  const bench = { kvHeads: 8, headDim: 64, tokens: 8192, heads: 8, rounds: 7 };
  function measure() {
    const { kvHeads, headDim, tokens, heads, rounds } = bench;
    const k = demoFloats(kvHeads * tokens * headDim, 501), v = demoFloats(kvHeads * tokens * headDim, 502);
    const caches = Object.fromEntries(STORAGES.map((s) => {
      const c = new pe.KVCache({ kvHeads, headDim, capacity: tokens + rounds + 2, rope: { base: 500000 }, storage: s });
      c.append(k, v);
      return [s, c];
    }));
    const q = demoFloats(heads * headDim, 503), kStep = demoFloats(kvHeads * headDim, 504), vStep = demoFloats(kvHeads * headDim, 505);
    const ref = caches.f32.attend(q, { heads }).out;
    let top = 0;
    for (const x of ref) top = Math.max(top, Math.abs(x));
    measured.errors = Object.fromEntries(STORAGES.map((s) => {
      const o = caches[s].attend(q, { heads }).out;
      let d = 0;
      for (let i = 0; i < o.length; i++) d = Math.max(d, Math.abs(o[i] - ref[i]));
      return [s, d / top];
    }));
    const times = Object.fromEntries(STORAGES.map((s) => [s, []]));
    let round = -1;  // -1: warm-up
    const next = () => {  // one round per task, so the page stays responsive
      for (const s of STORAGES) {
        const t0 = performance.now();
        caches[s].append(kStep, vStep);
        caches[s].attend(q, { heads });
        if (round >= 0) times[s].push(performance.now() - t0);
      }
      if (++round < rounds) return setTimeout(next, 0);
      for (const c of Object.values(caches)) c.delete();
      measured.steps = Object.fromEntries(STORAGES.map((s) => [s, times[s].sort((a, b) => a - b)[times[s].length >> 1]]));
      draw();
    };
    next();
  }

  function draw() {
    const [layers] = MODELS[state.model];
    const context = 2 ** state.log2;
    const token = (s) => layers * perLayer[state.model][s];
    const total = (s) => token(s) * context;
    const fits = (s) => Math.floor(HEAP / token(s) / 64) * 64;
    const max = Math.max(HEAP * 1.1, total('f32'));
    $('cache-store-bars').replaceChildren(...STORAGES.flatMap((s) => {
      const label = document.createElement('span'), value = document.createElement('span'), bar = document.createElement('div');
      label.textContent = s;
      value.textContent = gib(total(s));
      bar.className = `bar${total(s) > HEAP ? ' over' : ''}${s === state.storage ? ' picked' : ''}`;
      bar.innerHTML = `<i style="width:${(100 * total(s) / max).toFixed(2)}%"></i><span class="heap" style="left:${(100 * HEAP / max).toFixed(2)}%"></span>`;
      return [label, bar, value];
    }));
    const s = state.storage;
    $('cache-store-token').textContent = `${count(token(s))} bytes`;
    $('cache-store-total').textContent = `${gib(total(s))}${total(s) > HEAP ? ' — past the heap' : ''}`;
    $('cache-store-max').textContent = `${count(fits(s))} tokens`;
    const st = measured.steps;
    $('cache-store-speed').textContent = st ? `${st[s].toFixed(2)} ms${s === 'f32' ? '' : ` (f32 ${st.f32.toFixed(2)} ms: ${(st.f32 / st[s]).toFixed(2)}×)`}` : 'measuring…';
    $('cache-store-error').textContent = measured.errors ? (measured.errors[s] === 0 ? '0' : measured.errors[s].toExponential(1)) : '–';
    $('cache-store-note').textContent = `Speed and error measured here on ${count(bench.tokens)} cached tokens of ${bench.kvHeads} kv heads × ${bench.headDim}, `
      + `${bench.heads} query heads, ${pe.threads === 1 ? 'one thread' : `${pe.threads} threads`} (median of ${bench.rounds} steps); a longer context reads more memory per step, where the smaller storages gain more.`;
    demo.cacheStore = { ...state, context, tokenBytes: token(s), total: total(s), fits: total(s) <= HEAP, maxContext: fits(s), steps: measured.steps, errors: measured.errors,
      measured: !!measured.steps };
  }

  bindSegmented('cache-storage', state, 'storage', draw);
  bindInput('cache-model', state, 'model', draw, String);
  bindInput('cache-context', state, 'log2', draw, Number, (v) => count(2 ** Number(v)));
  setTimeout(measure, 0);
  return draw;
}
