// KV-cache simulator: the bookkeeping a cache must get right, and what each classic mistake costs.
// A single row with a sliding window and sinks, and a left-padded batch of two rows, run through
// posenc's KVCache; beside it the same attention with the wrong positions (pe.attention / pe.applyRope),
// and the largest difference in the attention output. A mistake switched off runs the very same code
// with the right positions, so its difference is exactly 0.
import { $, bindInput, demo, demoFloats, timed } from '../common.mjs';

const HEADS = 2, KV = 1, D = 16, SINKS = 2, WINDOW = 8, CAP = SINKS + WINDOW, PREFILL = 8;
const ROPE = { base: 10000 };
const key = (t, seed) => demoFloats(D, seed + t);

// pe.attention for one query over keys given raw, at explicit logical positions (RoPE inside the engine)
function attendAt(pe, q, ks, vs, kPositions, qPosition) {
  const k = new Float32Array(ks.length * D), v = new Float32Array(vs.length * D);
  ks.forEach((x, i) => k.set(x, i * D));
  vs.forEach((x, i) => v.set(x, i * D));
  return pe.attention({ q, k, v, heads: HEADS, kvHeads: KV, headDim: D, qLen: 1, kLen: ks.length, kPositions, qPositions: [qPosition],
    causal: true, encoding: { kind: 'rope', ...ROPE } }).out;
}
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

export function cacheSimSection(pe) {
  const state = { N: 24, P: 3 };
  const on = () => ({ slots: $('sim-slots').checked, rerotate: $('sim-rerotate').checked, padding: $('sim-padding').checked });

  function draw() {
    const { N, P } = state, mistakes = on();
    const ks = Array.from({ length: N + 1 }, (_, t) => key(t, 1000)), vs = Array.from({ length: N + 1 }, (_, t) => key(t, 2000));
    const q = demoFloats(HEADS * D, 3000 + N);

    // --- 1. the window slides: the last token (position N − 1) attends to the kept slots
    const cache = new pe.KVCache({ kvHeads: KV, headDim: D, capacity: CAP, window: WINDOW, sinks: SINKS, rope: ROPE });
    const kAll = new Float32Array(N * D), vAll = new Float32Array(N * D);
    for (let t = 0; t < N; t++) { kAll.set(ks[t], t * D); vAll.set(vs[t], t * D); }
    cache.append(kAll, vAll);
    const slotPos = Array.from(cache.positions());
    const libOut1 = cache.attend(q, { heads: HEADS }).out;
    const kept = slotPos.filter((p) => p >= 0).sort((a, b) => a - b);
    // the naive counter: token t was numbered by the slots filled before it, which stops growing at capacity
    const naive = (t) => (mistakes.slots ? Math.min(t, CAP) : t);
    const right1 = attendAt(pe, q, kept.map((t) => ks[t]), kept.map((t) => vs[t]), kept, N - 1);
    const wrong1 = attendAt(pe, q, kept.map((t) => ks[t]), kept.map((t) => vs[t]), kept.map(naive), naive(N - 1));
    const d1 = maxDiff(right1, wrong1);

    // --- 2. renumbering: kept tokens become 0..n−1 (StreamingLLM); the next token arrives at n
    const n = kept.length, renum = Int32Array.from(slotPos, (p) => (p < 0 ? -1 : kept.indexOf(p)));
    cache.renumber(renum);
    cache.append(ks[N], vs[N]);  // at position n; a full window evicts its oldest token
    const q2 = demoFloats(HEADS * D, 4000 + N);
    const libOut2 = cache.attend(q2, { heads: HEADS }).out;
    const after = Array.from(cache.positions()).filter((p) => p >= 0).sort((a, b) => a - b);  // new positions now in the cache
    cache.delete();
    const token2 = (p) => (p < n ? kept[p] : N);  // which token holds new position p
    // keys rotated by hand: at their new positions (right) or still at their old ones (the mistake)
    const m = after.length, shape = { heads: KV, tokens: m, headDim: D };
    const raw = new Float32Array(m * D), vRaw = new Float32Array(m * D);
    after.forEach((p, i) => { raw.set(ks[token2(p)], i * D); vRaw.set(vs[token2(p)], i * D); });
    const oldPos = after.map((p) => (p < n ? kept[p] : n));
    const qRot = pe.applyRope(q2, { heads: HEADS, tokens: 1, headDim: D }, [n], ROPE);
    const attendRotated = (positions) => pe.attention({ q: qRot, k: pe.applyRope(raw, shape, positions, ROPE), v: vRaw, heads: HEADS, kvHeads: KV, headDim: D,
      qLen: 1, kLen: m, encoding: { kind: 'none' } }).out;
    const newPos = after;
    const right2 = attendRotated(newPos), wrong2 = attendRotated(mistakes.rerotate ? oldPos : newPos);
    const d2 = maxDiff(right2, wrong2);

    // --- 3. a left-padded batch: row 0 has P pads, row 1 none; then one new token per row
    const mask = [...Array(P).fill(0), ...Array(PREFILL - P).fill(1), ...Array(PREFILL).fill(1)];
    const ids = pe.positionIds(mask, { batch: 2 });
    const bk = (r, t) => key(t, 5000 + 100 * r), bv = (r, t) => key(t, 6000 + 100 * r);
    const batch = new pe.KVCache({ batch: 2, kvHeads: KV, headDim: D, capacity: 16, rope: ROPE });
    const kb = new Float32Array(2 * PREFILL * D), vb = new Float32Array(2 * PREFILL * D);
    for (let r = 0; r < 2; r++) for (let t = 0; t < PREFILL; t++) { kb.set(bk(r, t), (r * PREFILL + t) * D); vb.set(bv(r, t), (r * PREFILL + t) * D); }
    batch.append(kb, vb, { mask });
    const next = Array.from(batch.nextPositions());
    const kn = new Float32Array(2 * D), vn = new Float32Array(2 * D);
    for (let r = 0; r < 2; r++) { kn.set(bk(r, PREFILL), r * D); vn.set(bv(r, PREFILL), r * D); }
    batch.append(kn, vn);
    const qb = demoFloats(2 * HEADS * D, 7000 + P);
    const libOut3 = batch.attend(qb, { heads: HEADS }).out;
    const batchPositions = Array.from(batch.positions());
    batch.delete();
    const rows = [0, 1].map((r) => {
      const real = Array.from({ length: PREFILL }, (_, t) => t).filter((t) => mask[r * PREFILL + t]);
      const keysR = [...real.map((t) => bk(r, t)), bk(r, PREFILL)], valsR = [...real.map((t) => bv(r, t)), bv(r, PREFILL)];
      const own = real.length, wrongNext = mistakes.padding ? PREFILL : own;  // the padded length vs the row's own count
      const qr = qb.subarray(r * HEADS * D, (r + 1) * HEADS * D);
      const prefix = real.map((_, i) => i);
      const right = attendAt(pe, qr, keysR, valsR, [...prefix, own], own);
      const wrong = attendAt(pe, qr, keysR, valsR, [...prefix, wrongNext], wrongNext);
      return { right, wrong, own, wrongNext, d: maxDiff(right, wrong), keys: keysR.map((x) => Array.from(x)), values: valsR.map((x) => Array.from(x)), q: Array.from(qr) };
    });
    const d3 = Math.max(rows[0].d, rows[1].d);

    // the library cache against the right bookkeeping (same engine, positions as data)
    const lib3 = new Float32Array(2 * HEADS * D);
    rows.forEach((r, i) => lib3.set(r.right, i * HEADS * D));
    const agree = Math.max(maxDiff(libOut1, right1), maxDiff(libOut2, right2), maxDiff(libOut3, lib3));

    // --- draw: slots of the window (true position, and the naive one), the renumbering, the padded batch
    const cell = (cls, small, big, wrong) => `<div class="slot ${cls}"><small>${small}</small><b>${big}</b>${wrong !== undefined ? `<em class="wrong" title="what the wrong bookkeeping uses">${wrong}</em>` : ''}</div>`;
    $('sim-window').innerHTML = slotPos.map((p, s) => cell(`${s < SINKS ? 'sink' : ''}${p < 0 ? ' empty' : ''}`, `slot ${s}`, p < 0 ? '–' : p,
      mistakes.slots && p >= 0 && naive(p) !== p ? naive(p) : undefined)).join('');
    $('sim-renumber').innerHTML = after.map((p) => cell(p === n ? 'new' : '', p === n ? 'new' : `${kept[p]} →`, p,
      mistakes.rerotate && p < n && kept[p] !== p ? `key ${kept[p]}` : undefined)).join('');
    $('sim-batch').innerHTML = [0, 1].map((r) => `<div class="batch-row"><span class="row-label">row ${r}</span>${Array.from({ length: PREFILL + 1 }, (_, t) => {
      if (t === PREFILL) return cell('new', 'next', rows[r].own, mistakes.padding && rows[r].wrongNext !== rows[r].own ? rows[r].wrongNext : undefined);
      const real = mask[r * PREFILL + t];
      return cell(real ? '' : 'pad', real ? `t${t}` : 'pad', real ? ids[r * PREFILL + t] : '–');
    }).join('')}</div>`).join('');

    const show = (id, d, active, zeroText) => {
      $(id).textContent = active ? (d > 0 ? d.toFixed(4) : `0 ${zeroText}`) : '0';
      $(id).classList.toggle('bad', active && d > 0);
    };
    show('sim-d1', d1, mistakes.slots, N <= CAP ? '(the window has not slid yet)' : '');
    show('sim-d2', d2, mistakes.rerotate, kept.every((p, i) => p === i) ? '(nothing evicted yet: renumbering 0…n−1 moves no position)' : '');
    show('sim-d3', d3, mistakes.padding, P === 0 ? '(no padding)' : '');
    $('sim-d3-rows').textContent = mistakes.padding ? `row 0: ${rows[0].d.toFixed(4)}, row 1: ${rows[1].d.toFixed(4)}` : '';
    $('sim-check').textContent = `posenc's KVCache (window, renumber, padded batch) against pe.attention at the right logical positions: largest difference ${agree.toExponential(1)} — `
      + `the cache keeps a logical position per slot, so it does all three right.`;
    demo.cacheSim = { N, P, mistakes, diffs: { slots: d1, rerotate: d2, padding: d3 }, rowDiffs: rows.map((r) => r.d), agree, slotPositions: slotPos, next,
      batchPositions, ids: Array.from(ids), padRows: rows.map(({ keys, values, q, own, wrongNext, right }) => ({ keys, values, q, own, wrongNext, right: Array.from(right) })) };
  }

  const redraw = timed('cache-sim', draw);
  bindInput('sim-N', state, 'N', redraw);
  bindInput('sim-P', state, 'P', redraw);
  for (const id of ['sim-slots', 'sim-rerotate', 'sim-padding']) $(id).addEventListener('change', redraw);
  return draw;
}
