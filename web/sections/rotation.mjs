// RoPE's defining property, live: each channel pair of q turns by position x its frequency (drawn for
// the fastest and the slowest pair), and q_m . k_n depends only on n - m — shifting both positions by
// the same amount leaves the score unchanged. Rotations by pe.applyRope.
import { $, bindInput, demo, demoFloats } from '../common.mjs';

const HEAD_DIM = 64, BASE = 10000;

function drawPairs(canvas, pairs) {
  const dpr = window.devicePixelRatio || 1, w = Math.max(280, canvas.clientWidth || canvas.width), h = Math.round(w * 0.5);
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = '12px system-ui, sans-serif';
  pairs.forEach((p, k) => {
    const cx = w * (k === 0 ? 0.27 : 0.73), cy = h * 0.52, r = Math.min(w * 0.2, h * 0.38);
    ctx.strokeStyle = '#ece9e2'; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(cx - r, cy); ctx.lineTo(cx + r, cy); ctx.moveTo(cx, cy - r); ctx.lineTo(cx, cy + r); ctx.stroke();
    // the trail: the pair's direction at positions 0..m (at most 64 dots)
    const n = p.trail.length;
    p.trail.forEach(([x, y], t) => {
      ctx.fillStyle = p.color; ctx.globalAlpha = 0.15 + 0.6 * (t / Math.max(n - 1, 1));
      ctx.beginPath(); ctx.arc(cx + x * r, cy - y * r, 2.5, 0, 2 * Math.PI); ctx.fill();
    });
    ctx.globalAlpha = 1;
    const [x, y] = p.now;
    ctx.strokeStyle = p.color; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(cx + x * r, cy - y * r); ctx.stroke();
    ctx.fillStyle = '#1c2330'; ctx.textAlign = 'center';
    ctx.fillText(p.label, cx, h - 8);
  });
}

export function rotationSection(pe) {
  const state = { m: 12, shift: 1000 };
  const q = demoFloats(HEAD_DIM, 51), k = demoFloats(HEAD_DIM, 52);
  const w = (i) => BASE ** (-2 * i / HEAD_DIM);
  // the pair (i, i + 32) of a unit query that has only that pair set: where it points at position p
  const pairDirection = (i, p) => {
    const x = new Float32Array(HEAD_DIM);
    x[i] = 1;
    const r = pe.applyRope(x, { heads: 1, tokens: 1, headDim: HEAD_DIM }, [p], { base: BASE });
    return [r[i], r[i + HEAD_DIM / 2]];
  };
  const score = (m, n) => {
    const a = pe.applyRope(q, { heads: 1, tokens: 1, headDim: HEAD_DIM }, [m], { base: BASE });
    const b = pe.applyRope(k, { heads: 1, tokens: 1, headDim: HEAD_DIM }, [n], { base: BASE });
    let s = 0;
    for (let c = 0; c < HEAD_DIM; c++) s += a[c] * b[c];
    return s;
  };
  function draw() {
    const { m, shift } = state, n = Math.max(m - 3, 0), slow = HEAD_DIM / 2 - 1;
    const trail = (i) => Array.from({ length: Math.min(m + 1, 64) }, (_, t) => pairDirection(i, Math.max(m + 1 - 64, 0) + t));
    drawPairs($('rotation-pairs'), [
      { label: `pair 0: ω = 1 rad per position`, color: '#c0392b', trail: trail(0), now: pairDirection(0, m) },
      { label: `pair ${slow}: ω = ${w(slow).toExponential(1)} rad per position`, color: '#2f5fb3', trail: trail(slow), now: pairDirection(slow, m) },
    ]);
    const s0 = score(m, n), s1 = score(m + shift, n + shift);
    demo.rotation = { m, n, shift, s0, s1, fast: pairDirection(0, m), slow: pairDirection(slow, m) };
    $('rotation-out').innerHTML = `q at m = ${m}, k at n = ${n}: q·k = <b>${s0.toFixed(6)}</b>. Both moved by ${shift.toLocaleString('en')}: `
      + `q at ${(m + shift).toLocaleString('en')}, k at ${(n + shift).toLocaleString('en')}: q·k = <b>${s1.toFixed(6)}</b> — the same score `
      + `(difference ${Math.abs(s1 - s0).toExponential(1)}): only n − m = ${n - m} matters.`;
  }
  bindInput('rotation-m', state, 'm', draw);
  bindInput('rotation-shift', state, 'shift', draw);
  return draw;
}
