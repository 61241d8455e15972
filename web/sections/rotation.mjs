// RoPE's defining property, live: each channel pair of q and of k turns by position × its frequency;
// per pair (the fastest and the slowest) q at m and k at n are drawn with the angle between them, and
// q·k as a function of n − m — computed at the shifted positions and again without the shift, under the
// chosen frequency schedule. Every rotation by pe.applyRope.
import { cssWidth, lineChart, resize } from '../plot.mjs';
import { $, bindInput, bindSegmented, demo, demoFloats } from '../common.mjs';

const HEAD_DIM = 64, BASE = 10000, HALF = HEAD_DIM / 2, SPAN = 256;
export const ROTATION_SCHEDULES = {
  default: { base: BASE },
  linear: { base: BASE, scaling: { type: 'linear', factor: 4 } },
  ntk: { base: BASE, scaling: { type: 'ntk', factor: 4 } },
  yarn: { base: BASE, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 2048 } },
};
const Q_COLOR = '#c0392b', K_COLOR = '#2f5fb3';
const TAU = 2 * Math.PI;
const wrap = (a) => { const x = ((a % TAU) + TAU) % TAU; return x > Math.PI ? x - TAU : x; };  // to (−π, π]

function arrow(ctx, cx, cy, r, angle, color, label, lift) {
  const x = cx + Math.cos(angle) * r, y = cy - Math.sin(angle) * r;
  ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = 3;
  ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(x, y); ctx.stroke();
  const hx = Math.cos(angle), hy = -Math.sin(angle);
  ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x - 10 * hx - 5 * hy, y - 10 * hy + 5 * hx); ctx.lineTo(x - 10 * hx + 5 * hy, y - 10 * hy - 5 * hx); ctx.closePath(); ctx.fill();
  ctx.font = '600 12px system-ui, sans-serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  const lr = r + 14 + (lift ? 12 : 0);
  ctx.fillText(label, cx + Math.cos(angle) * lr, cy - Math.sin(angle) * lr);
}

// pairs: [{title, note, qAngle, kAngle}]: side by side when wide, stacked on a phone; labels above each circle
function drawPairs(canvas, pairs) {
  const dpr = window.devicePixelRatio || 1, w = Math.max(280, cssWidth(canvas) || canvas.width), stacked = w < 560;
  const cellH = stacked ? Math.round(w * 0.9) : Math.round(w * 0.42), h = stacked ? 2 * cellH : cellH;
  resize(canvas, Math.round(w * dpr), Math.round(h * dpr));
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  canvas.layout = { stacked, labels: [] };
  pairs.forEach((p, k) => {
    const cw = stacked ? w : w / 2, ox = stacked ? 0 : k * cw, oy = stacked ? k * cellH : 0;
    // title and note (44 px), the circle with its arrow labels (18 px around it), the angle line (16 + 14 px)
    const top = 44, r = Math.min(cw * 0.3, (cellH - top - 36 - 30 - 8) / 2), cx = ox + cw / 2, cy = oy + top + 18 + r;
    ctx.fillStyle = '#1c2330'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    ctx.font = '600 13px system-ui, sans-serif'; ctx.fillText(p.title, cx, oy + 6);
    ctx.font = '12px system-ui, sans-serif'; ctx.fillStyle = '#4a5368'; ctx.fillText(p.note, cx, oy + 24);
    // the pair's text, top line to the angle line, for the browser test's overlap check
    canvas.layout.labels.push({ x: cx, y: oy + 6, w: Math.max(ctx.measureText(p.note).width, 0), h: cy + r + 16 + 14 - (oy + 6) });
    ctx.strokeStyle = '#ece9e2'; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.arc(cx, cy, r, 0, TAU); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(cx - r, cy); ctx.lineTo(cx + r, cy); ctx.moveTo(cx, cy - r); ctx.lineTo(cx, cy + r); ctx.stroke();
    // the angle from q to k, the short way round (canvas angles run clockwise, ours counter-clockwise)
    const d = wrap(p.kAngle - p.qAngle);
    ctx.strokeStyle = '#e8a33d'; ctx.fillStyle = 'rgba(232,163,61,.18)'; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(cx, cy); ctx.arc(cx, cy, r * 0.45, -p.qAngle, -(p.qAngle + d), d > 0); ctx.closePath(); ctx.fill();
    ctx.beginPath(); ctx.arc(cx, cy, r * 0.45, -p.qAngle, -(p.qAngle + d), d > 0); ctx.stroke();
    const near = Math.abs(d) < 0.35;
    arrow(ctx, cx, cy, r, p.qAngle, Q_COLOR, 'q', false);
    arrow(ctx, cx, cy, r, p.kAngle, K_COLOR, 'k', near);
    ctx.font = '12px system-ui, sans-serif'; ctx.fillStyle = '#1c2330'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    ctx.fillText(`angle k − q = ${d.toFixed(3)} rad`, cx, cy + r + 16);
  });
}

export function rotationSection(pe) {
  const state = { m: 12, delta: -3, shift: 1000, schedule: 'default' };
  const q = demoFloats(HEAD_DIM, 51), k = demoFloats(HEAD_DIM, 52);
  const shape = (tokens) => ({ heads: 1, tokens, headDim: HEAD_DIM });
  // where pair i of a unit vector (only channel i set; 'half' layout pairs i with i + 32) points at position p
  const pairDirection = (i, p, rope) => {
    const x = new Float32Array(HEAD_DIM);
    x[i] = 1;
    const r = pe.applyRope(x, shape(1), [p], rope), n = Math.hypot(r[i], r[i + HALF]);
    return [r[i] / n, r[i + HALF] / n];
  };
  // q at position P against k at P + Δ for every Δ with P + Δ ≥ 0, Δ in [−SPAN, SPAN]: one applyRope call for all keys
  function scoreCurve(P, rope) {
    const lo = Math.max(-SPAN, -P), n = SPAN - lo + 1;
    const qr = pe.applyRope(q, shape(1), [P], rope);
    const keys = new Float32Array(n * HEAD_DIM);
    for (let t = 0; t < n; t++) keys.set(k, t * HEAD_DIM);
    const kr = pe.applyRope(keys, shape(n), Int32Array.from({ length: n }, (_, t) => P + lo + t), rope);
    const xs = [], ys = [];
    for (let t = 0; t < n; t++) {
      let s = 0;
      for (let c = 0; c < HEAD_DIM; c++) s += qr[c] * kr[t * HEAD_DIM + c];
      xs.push(lo + t); ys.push(s);
    }
    return { xs, ys };
  }
  function draw() {
    const { m, delta, shift, schedule } = state, n = Math.max(m + delta, 0), rope = ROTATION_SCHEDULES[schedule], slow = HALF - 1;
    const inv = pe.ropeFrequencies({ headDim: HEAD_DIM, ...rope }).invFreq;
    const angle = (i, p) => { const [x, y] = pairDirection(i, p, rope); return Math.atan2(y, x); };
    const pair = (i, name) => ({
      title: `${name}: pair ${i}`, note: `ω = ${inv[i] >= 0.01 ? inv[i].toFixed(3) : inv[i].toExponential(2)} rad per position`,
      qAngle: angle(i, m + shift), kAngle: angle(i, n + shift),
    });
    const pairs = [pair(0, 'fastest'), pair(slow, 'slowest')];
    drawPairs($('rotation-pairs'), pairs);

    const shifted = scoreCurve(m + shift, rope), plain = scoreCurve(m, rope);
    const at = (c, d) => c.ys[c.xs.indexOf(d)];
    const s0 = at(plain, n - m), s1 = at(shifted, n - m);
    lineChart($('rotation-score'), [
      { name: `q at m + shift = ${(m + shift).toLocaleString('en')}`, color: Q_COLOR, ys: shifted.ys, xs: shifted.xs, width: 2.2 },
      { name: `q at m = ${m} (no shift)`, color: '#1c2330', ys: plain.ys, xs: plain.xs, dash: [5, 4], width: 1.4 },
    ], { xLabel: 'n − m (key position − query position)', yLabel: 'q·k', aspect: 0.3, vlines: [{ x: n - m, y: s1, label: `n − m = ${n - m}`, color: K_COLOR }] });

    let curveDiff = 0;
    plain.xs.forEach((x, t) => { curveDiff = Math.max(curveDiff, Math.abs(plain.ys[t] - at(shifted, x))); });
    demo.rotation = {
      m, n, shift, schedule, s0, s1, curveDiff, q: Array.from(q), k: Array.from(k),
      fast: pairDirection(0, m, rope), slow: pairDirection(slow, m, rope),
      angles: pairs.map((p) => wrap(p.kAngle - p.qAngle)), curve: { xs: shifted.xs, ys: shifted.ys },
    };
    $('rotation-out').innerHTML = `q at m = ${m}, k at n = ${n}: q·k = <b>${s0.toFixed(6)}</b>. Both moved by ${shift.toLocaleString('en')}: `
      + `q at ${(m + shift).toLocaleString('en')}, k at ${(n + shift).toLocaleString('en')}: q·k = <b>${s1.toFixed(6)}</b> — the same score `
      + `(difference ${Math.abs(s1 - s0).toExponential(1)}; over the whole curve ${curveDiff.toExponential(1)}): only n − m = ${n - m} matters.`;
  }
  bindInput('rotation-m', state, 'm', draw);
  bindInput('rotation-delta', state, 'delta', draw);
  bindInput('rotation-shift', state, 'shift', draw);
  bindSegmented('rotation-schedule', state, 'schedule', draw);
  return draw;
}
