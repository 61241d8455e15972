// Small canvas plotting helpers for the demo: a diverging heatmap and a line chart with axes.

// Diverging blue–white–red for values in [-1, 1].
const NEG = [47, 95, 179], MID = [247, 247, 245], POS = [192, 57, 43];
export function divergingColor(t) {
  const x = Math.max(-1, Math.min(1, t));
  const [a, b, u] = x < 0 ? [MID, NEG, -x] : [MID, POS, x];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * u));
}

// Draws values [rows, cols] one pixel per cell; CSS scales the canvas up (pixelated).
export function heatmap(canvas, values, rows, cols, scale = 1) {
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(cols, rows);
  for (let i = 0; i < rows * cols; i++) {
    const [r, g, b] = divergingColor(values[i] / scale);
    img.data[4 * i] = r; img.data[4 * i + 1] = g; img.data[4 * i + 2] = b; img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
}

function fitCanvas(canvas, aspect) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(280, canvas.clientWidth || canvas.width);
  const h = Math.round(w * aspect);
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

function niceTicks(lo, hi, n = 5) {
  const span = hi - lo || 1;
  const step0 = Math.pow(10, Math.floor(Math.log10(span / n)));
  const step = [1, 2, 5, 10].map((m) => m * step0).find((s) => span / s <= n) ?? step0 * 10;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(+v.toFixed(10));
  return out;
}

const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(0).replace('e+', 'e') : String(+v.toFixed(3)));

// series: [{name, color, ys, xs?, dash?, width?}]; options: {yLog, yMin, yMax, xLabel, yLabel, hlines, aspect}
export function lineChart(canvas, series, o = {}) {
  const { ctx, w, h } = fitCanvas(canvas, o.aspect ?? canvas.height / canvas.width);
  const pad = { l: 56, r: 14, t: 14 + (series.length > 1 ? 22 : 0), b: 36 };
  const xs = (s) => s.xs ?? s.ys.map((_, i) => i);
  const allX = series.flatMap(xs), allY = series.flatMap((s) => Array.from(s.ys)).filter(Number.isFinite);
  const tf = o.yLog ? Math.log10 : (v) => v;
  let y0 = o.yMin ?? Math.min(...allY), y1 = o.yMax ?? Math.max(...allY);
  for (const l of o.hlines ?? []) { y0 = Math.min(y0, l.y); y1 = Math.max(y1, l.y); }
  let [ty0, ty1] = [tf(y0), tf(y1)];
  if (ty0 === ty1) { ty0 -= 1; ty1 += 1; }
  const x0 = Math.min(...allX), x1 = Math.max(...allX) || 1;
  const X = (v) => pad.l + ((v - x0) / (x1 - x0 || 1)) * (w - pad.l - pad.r);
  const Y = (v) => h - pad.b - ((tf(v) - ty0) / (ty1 - ty0)) * (h - pad.t - pad.b);

  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  ctx.strokeStyle = '#ece9e2'; ctx.fillStyle = '#7b8496'; ctx.lineWidth = 1;
  const yt = o.yLog ? Array.from({ length: Math.floor(ty1) - Math.ceil(ty0) + 1 }, (_, i) => 10 ** (Math.ceil(ty0) + i)) : niceTicks(y0, y1);
  ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  for (const t of yt) { ctx.beginPath(); ctx.moveTo(pad.l, Y(t)); ctx.lineTo(w - pad.r, Y(t)); ctx.stroke(); ctx.fillText(fmt(t), pad.l - 6, Y(t)); }
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  for (const t of niceTicks(x0, x1, 8)) ctx.fillText(fmt(t), X(t), h - pad.b + 6);
  if (o.xLabel) ctx.fillText(o.xLabel, (pad.l + w - pad.r) / 2, h - 14);
  if (o.yLabel) { ctx.save(); ctx.translate(12, (pad.t + h - pad.b) / 2); ctx.rotate(-Math.PI / 2); ctx.fillText(o.yLabel, 0, -6); ctx.restore(); }

  for (const l of o.hlines ?? []) {
    ctx.save(); ctx.setLineDash([4, 4]); ctx.strokeStyle = l.color ?? '#9aa1ae';
    ctx.beginPath(); ctx.moveTo(pad.l, Y(l.y)); ctx.lineTo(w - pad.r, Y(l.y)); ctx.stroke();
    ctx.fillStyle = l.color ?? '#7b8496'; ctx.textAlign = 'left'; ctx.textBaseline = 'bottom';
    ctx.fillText(l.label, pad.l + 6, Y(l.y) - 2); ctx.restore();
  }
  for (const s of series) {
    ctx.save(); ctx.strokeStyle = s.color; ctx.lineWidth = s.width ?? 2; if (s.dash) ctx.setLineDash(s.dash);
    ctx.beginPath();
    const sx = xs(s);
    s.ys.forEach((v, i) => { const px = X(sx[i]), py = Y(v); i ? ctx.lineTo(px, py) : ctx.moveTo(px, py); });
    ctx.stroke(); ctx.restore();
  }
  if (series.length > 1) {  // legend along the top
    let lx = pad.l; ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
    for (const s of series) {
      ctx.fillStyle = s.color; ctx.fillRect(lx, 9, 14, 3); ctx.fillStyle = '#4a5368';
      ctx.fillText(s.name, lx + 18, 11); lx += ctx.measureText(s.name).width + 34;
    }
  }
  return { X, Y };
}

// Horizontal bars with their values: bars [{name, value, color}]; options {unit, aspect}. Log-free:
// the bar lengths are the times themselves, so a 30x difference looks like one.
export function barChart(canvas, bars, o = {}) {
  const { ctx, w, h } = fitCanvas(canvas, o.aspect ?? canvas.height / canvas.width);
  ctx.clearRect(0, 0, w, h);
  if (!bars.length) return;
  ctx.font = '12px system-ui, sans-serif';
  const labelW = Math.min(190, w * 0.4), pad = { r: 70, t: 10 }, rowH = (h - pad.t * 2) / bars.length;
  const max = Math.max(...bars.map((b) => b.value)) || 1;
  bars.forEach((b, i) => {
    const y = pad.t + i * rowH, bh = rowH * 0.6, len = ((w - labelW - pad.r) * b.value) / max;
    ctx.fillStyle = '#4a5368'; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    ctx.fillText(b.name, labelW - 10, y + rowH / 2);
    ctx.fillStyle = b.color; ctx.fillRect(labelW, y + (rowH - bh) / 2, Math.max(len, 2), bh);
    ctx.fillStyle = '#1c2330'; ctx.textAlign = 'left';
    ctx.fillText(`${fmt(b.value)} ${o.unit ?? ''}`, labelW + Math.max(len, 2) + 6, y + rowH / 2);
  });
}
