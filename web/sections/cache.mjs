// KV cache: a slot is not a position. Slots, their logical positions, and what a mistake costs.
import { $, demo, demoFloats, timed } from '../common.mjs';

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
