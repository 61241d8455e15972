// Small canvas plotting helpers for the demo: a diverging heatmap and a line chart with axes.

// Diverging blue–white–red for values in [-1, 1].
const NEG = [47, 95, 179], MID = [247, 247, 245], POS = [192, 57, 43];
export function divergingColor(t) {
  const x = Math.max(-1, Math.min(1, t));
  const [a, b, u] = x < 0 ? [MID, NEG, -x] : [MID, POS, x];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * u));
}

// Sequential white → deep red for values in [0, 1] (counts, indices, weights, shares).
const SEQ = [[250, 249, 246], [246, 214, 160], [232, 150, 80], [192, 57, 43], [110, 24, 40]];
export function sequentialColor(t) {
  const x = Math.max(0, Math.min(1, t)) * (SEQ.length - 1), k = Math.min(Math.floor(x), SEQ.length - 2), u = x - k;
  return [0, 1, 2].map((c) => Math.round(SEQ[k][c] + (SEQ[k + 1][c] - SEQ[k][c]) * u));
}
const MASKED = [236, 234, 228];  // NaN cells: masked (e.g. keys after a causal query)

// The one cell painter: values [rows, cols] into RGBA pixels, one per cell. color 'diverging' maps
// v / max to [-1, 1]; 'sequential' maps (v - min) / (max - min) to [0, 1]; NaN is drawn as masked.
function paintCells(img, values, n, o) {
  const seq = o.color === 'sequential', lo = o.min ?? 0, span = (o.max ?? 1) - lo || 1, max = o.max ?? 1;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const [r, g, b] = Number.isNaN(v) ? MASKED : seq ? sequentialColor((v - lo) / span) : divergingColor(v / max);
    img.data[4 * i] = r; img.data[4 * i + 1] = g; img.data[4 * i + 2] = b; img.data[4 * i + 3] = 255;
  }
}

// Draws values [rows, cols] one pixel per cell; CSS scales the canvas up (pixelated).
export function heatmap(canvas, values, rows, cols, scale = 1) {
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(cols, rows);
  paintCells(img, values, rows * cols, { max: scale });
  ctx.putImageData(img, 0, 0);
}

// A colour bar: vertical at (x, y, 10 × h), ticks at min, middle, max, and its label rotated beside it.
function drawColorBar(ctx, x, y, h, o) {
  // diverging: the bar spans [−max, hi] (hi defaults to max; 0 for a bias that is never positive)
  const seq = o.color === 'sequential', lo = seq ? o.min ?? 0 : -(o.max ?? 1), hi = seq ? o.max ?? 1 : o.hi ?? o.max ?? 1;
  for (let k = 0; k < h; k++) {
    const t = 1 - k / Math.max(h - 1, 1);
    const [r, g, b] = seq ? sequentialColor(t) : divergingColor((lo + (hi - lo) * t) / (o.max ?? 1));
    ctx.fillStyle = `rgb(${r},${g},${b})`; ctx.fillRect(x, y + k, 10, 1);
  }
  ctx.strokeStyle = '#d6d2c8'; ctx.strokeRect(x + 0.5, y + 0.5, 9, h - 1);
  ctx.fillStyle = '#4a5368'; ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
  const f = o.legendFormat ?? fmt;
  ctx.fillText(f(hi), x + 14, y + 5); ctx.fillText(f((lo + hi) / 2), x + 14, y + h / 2); ctx.fillText(f(lo), x + 14, y + h - 5);
  if (o.legend) {
    ctx.save(); ctx.translate(x + 14 + o.tickW + 8, y + h / 2); ctx.rotate(Math.PI / 2);
    ctx.textAlign = 'center'; ctx.textBaseline = 'bottom'; ctx.fillStyle = '#7b8496'; ctx.fillText(o.legend, 0, 0); ctx.restore();
  }
}

let cellCanvas;  // created on first use (this module is also imported by Node tests)

// A heatmap figure: values [rows, cols] drawn into the canvas's CSS width (crisp at any pixel ratio),
// with axis labels, tick labels and a colour bar. Options:
//   color 'diverging' (default; range ±max, max defaults to max |v|) | 'sequential' (min..max);
//   xLabel, yLabel; xTicks / yTicks [{i, text}] at cell indices (default: numeric, value = index + xFrom / yFrom);
//   legend (colour bar label), legendFormat, colorbar (default true), ticks (default true), title,
//   plotAspect (plot height / width, default rows / cols), marks [{col, label, color}] vertical rules.
// Stores the plot rectangle on canvas.plot (CSS px) for hover read-outs and the browser test.
export function heatmapFigure(canvas, values, rows, cols, o = {}) {
  const seq = o.color === 'sequential';
  let max = o.max, min = o.min;
  if (max === undefined || (seq && min === undefined)) {
    let a = Infinity, b = -Infinity, m = 0;
    for (const v of values) if (!Number.isNaN(v)) { a = Math.min(a, v); b = Math.max(b, v); m = Math.max(m, Math.abs(v)); }
    if (seq) { min ??= a; max ??= b; } else max ??= m || 1;
  }
  const opt = { ...o, min, max };
  const ticks = o.ticks !== false, bar = o.colorbar !== false;
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(o.minWidth ?? 120, o.cssWidth ?? (cssWidth(canvas) || canvas.width));
  const ctx0 = canvas.getContext('2d');
  ctx0.font = '11px system-ui, sans-serif';
  const f = o.legendFormat ?? fmt;
  const top = seq ? max : o.hi ?? max, bottom = seq ? min : -max;
  const tickW = bar ? Math.max(o.minTickWidth ?? 0, ...[top, bottom, (top + bottom) / 2].map((v) => ctx0.measureText(f(v)).width)) : 0;
  const yt = ticks ? o.yTicks ?? autoTicks(rows, o.yFrom ?? 0) : [];
  const xt = ticks ? o.xTicks ?? autoTicks(cols, o.xFrom ?? 0) : [];
  const yTickW = yt.length ? Math.max(...yt.map((t) => ctx0.measureText(t.text).width)) : 0;
  const pad = {
    l: (o.yLabel ? 18 : 2) + (yt.length ? yTickW + 8 : 0), r: bar ? 14 + 14 + tickW + (o.legend ? 20 : 4) : 2,
    t: o.title ? 20 : 6, b: (xt.length ? 18 : 2) + (o.xLabel ? 16 : 0),
  };
  const pw = Math.max(20, w - pad.l - pad.r), ph = Math.max(Math.round(pw * (o.plotAspect ?? rows / cols)), o.minPlotHeight ?? 0);
  // x tick labels wider than their spacing alternate between two lines
  const xSpacing = xt.length > 1 ? ((xt[1].i - xt[0].i) * pw) / cols : pw;
  const stagger = xt.some((t) => ctx0.measureText(t.text).width > xSpacing - 4);
  if (stagger) pad.b += 12;
  const h = ph + pad.t + pad.b;
  resize(canvas, Math.round(w * dpr), Math.round(h * dpr));
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';

  cellCanvas ??= document.createElement('canvas');
  cellCanvas.width = cols; cellCanvas.height = rows;
  const cctx = cellCanvas.getContext('2d');
  const img = cctx.createImageData(cols, rows);
  paintCells(img, values, rows * cols, opt);
  cctx.putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cellCanvas, pad.l, pad.t, pw, ph);
  ctx.strokeStyle = '#d6d2c8'; ctx.lineWidth = 1; ctx.strokeRect(pad.l - 0.5, pad.t - 0.5, pw + 1, ph + 1);

  const cw = pw / cols, chh = ph / rows;
  ctx.fillStyle = '#4a5368';
  ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  for (const t of yt) ctx.fillText(t.text, pad.l - 6, pad.t + (t.i + 0.5) * chh);
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  xt.forEach((t, k) => ctx.fillText(t.text, Math.min(Math.max(pad.l + (t.i + 0.5) * cw, pad.l + 4), pad.l + pw - 4), pad.t + ph + 4 + (stagger && k % 2 ? 12 : 0)));
  ctx.fillStyle = '#7b8496';
  if (o.xLabel) ctx.fillText(o.xLabel, pad.l + pw / 2, pad.t + ph + (xt.length ? 18 : 3) + (stagger ? 12 : 0));
  if (o.yLabel) { ctx.save(); ctx.translate(2, pad.t + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textBaseline = 'top'; ctx.fillText(o.yLabel, 0, 0); ctx.restore(); }
  if (o.title) { ctx.fillStyle = '#1c2330'; ctx.textAlign = 'left'; ctx.textBaseline = 'top'; ctx.font = `600 ${w < 110 ? 10 : 12}px system-ui, sans-serif`; ctx.fillText(o.title, pad.l, 3); ctx.font = '11px system-ui, sans-serif'; }
  for (const m of o.marks ?? []) {
    const x = Math.round(pad.l + m.col * cw) + 0.5;
    ctx.save(); ctx.strokeStyle = m.color ?? '#1c2330'; ctx.setLineDash([4, 3]); ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.moveTo(x, pad.t); ctx.lineTo(x, pad.t + ph); ctx.stroke(); ctx.restore();
    if (m.label) { ctx.fillStyle = m.color ?? '#1c2330'; ctx.textAlign = x > pad.l + pw * 0.7 ? 'right' : 'left'; ctx.textBaseline = 'top'; ctx.fillText(m.label, x + (ctx.textAlign === 'left' ? 4 : -4), pad.t + 3); }
  }
  if (bar) drawColorBar(ctx, pad.l + pw + 14, pad.t, ph, { ...opt, tickW });
  canvas.plot = { x: pad.l, y: pad.t, w: pw, h: ph, rows, cols, dpr };
  return canvas.plot;
}

function autoTicks(n, from) {
  return niceTicks(from, from + n - 1, n > 40 ? 5 : 4).filter((v) => Number.isInteger(v)).map((v) => ({ i: v - from, text: fmt(v) }));
}

// The cell under a pointer event on a heatmapFigure canvas, or null.
export function cellAt(canvas, e) {
  const p = canvas.plot;
  if (!p) return null;
  const r = canvas.getBoundingClientRect(), sx = r.width / (canvas.width / p.dpr);
  const x = (e.clientX - r.left) / sx - p.x, y = (e.clientY - r.top) / sx - p.y;
  if (x < 0 || y < 0 || x >= p.w || y >= p.h) return null;
  return { row: Math.floor((y / p.h) * p.rows), col: Math.floor((x / p.w) * p.cols) };
}

// A stand-alone colour bar (shared legend of several small heatmaps).
export function colorBar(canvas, o) {
  const dpr = window.devicePixelRatio || 1, w = Math.max(200, cssWidth(canvas) || canvas.width);
  // the legend wraps onto as many lines as the width needs (a phone), each 14 px
  const mctx = canvas.getContext('2d');
  mctx.font = '11px system-ui, sans-serif';
  const lines = [];
  for (const word of (o.legend ?? '').split(' ')) {
    const last = lines[lines.length - 1];
    if (last !== undefined && mctx.measureText(`${last} ${word}`).width <= w - 16) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  const h = 32 + 14 * Math.max(1, lines.length);
  resize(canvas, Math.round(w * dpr), Math.round(h * dpr));
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  // diverging: the bar spans [lo, hi] (default ±max), coloured as heatmapFigure colours v / max
  const seq = o.color === 'sequential', x0 = 8, bw = w - 16;
  const lo = seq ? o.min ?? 0 : o.lo ?? -(o.max ?? 1), hi = seq ? o.max ?? 1 : o.hi ?? o.max ?? 1;
  for (let k = 0; k < bw; k++) {
    const t = k / (bw - 1);
    const [r, g, b] = seq ? sequentialColor(t) : divergingColor((lo + (hi - lo) * t) / (o.max ?? 1));
    ctx.fillStyle = `rgb(${r},${g},${b})`; ctx.fillRect(x0 + k, 4, 1, 10);
  }
  const f = o.legendFormat ?? fmt;
  ctx.fillStyle = '#4a5368'; ctx.textBaseline = 'top';
  ctx.textAlign = 'left'; ctx.fillText(f(lo), x0, 18);
  ctx.textAlign = 'right'; ctx.fillText(f(hi), x0 + bw, 18);
  for (const t of o.ticks ?? []) {  // extra labelled ticks at values inside (lo, hi)
    const x = x0 + ((t - lo) / (hi - lo)) * bw;
    ctx.fillStyle = '#4a5368'; ctx.fillRect(Math.round(x), 14, 1, 4);
    ctx.textAlign = 'center'; ctx.fillText(f(t), x, 18);
  }
  ctx.textAlign = 'left'; ctx.fillStyle = '#7b8496';
  lines.forEach((line, i) => ctx.fillText(line, x0, 32 + 14 * i));
  canvas.legendLines = lines.length;
}

// A canvas's CSS width without forcing a layout: a ResizeObserver keeps it (it reports after each layout),
// so a redraw that resizes several canvases does not make the browser lay the page out once per canvas.
export function cssWidth(canvas) {
  if (!canvas.widthObserver && typeof ResizeObserver !== 'undefined') {
    canvas.widthObserver = new ResizeObserver(([e]) => { canvas.observedWidth = e.contentRect.width; });
    canvas.widthObserver.observe(canvas);
  }
  return canvas.observedWidth ?? canvas.clientWidth;
}

// Sets a canvas's backing size only when it changes: reassigning it reallocates the bitmap and relayouts the page.
export function resize(canvas, width, height) {
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
}

function fitCanvas(canvas, aspect, minH = 0, extraH = 0) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(280, cssWidth(canvas) || canvas.width);
  const h = Math.max(Math.round(w * aspect), minH) + extraH;
  resize(canvas, Math.round(w * dpr), Math.round(h * dpr));
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
  // the legend wraps onto as many lines as the width needs; the chart keeps at least 220 px (phones)
  const mctx = canvas.getContext('2d');
  mctx.font = '11px system-ui, sans-serif';
  const cw = Math.max(280, cssWidth(canvas) || canvas.width), legend = [];
  if (series.length > 1) {
    const x0 = cw < 520 ? 8 : 56;
    let lx = x0, line = 0;
    for (const s of series) {
      const sw = mctx.measureText(s.name).width + 34;
      if (lx > x0 && lx + sw - 16 > cw - 8) { lx = x0; line++; }
      legend.push({ s, x: lx, y: 11 + 16 * line });
      lx += sw;
    }
  }
  const lines = legend.length ? legend[legend.length - 1].y / 16 + 0.3 : 0;
  canvas.dataset.aspect ??= String(canvas.height / canvas.width);
  const { ctx, w, h } = fitCanvas(canvas, o.aspect ?? Number(canvas.dataset.aspect), o.minHeight ?? 220, Math.max(0, Math.ceil(lines) - 1) * 16);
  const pad = { l: 56, r: 14, t: 14 + (legend.length ? 6 + 16 * Math.ceil(lines) : 0), b: 36 };
  const xs0 = (s) => s.xs ?? s.ys.map((_, i) => i);
  const xs = o.xLog ? (s) => xs0(s).map((x) => Math.log10(Math.max(x, 1e-12))) : xs0;
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
  const xt = o.xLog ? Array.from({ length: Math.floor(x1) - Math.ceil(x0) + 1 }, (_, i) => Math.ceil(x0) + i) : niceTicks(x0, x1, w < 420 ? 5 : 8);
  for (const t of xt) ctx.fillText(o.xLog ? fmt(10 ** t) : fmt(t), X(t), h - pad.b + 6);
  if (o.xLabel) ctx.fillText(o.xLabel, (pad.l + w - pad.r) / 2, h - 14);
  if (o.yLabel) { ctx.save(); ctx.translate(12, (pad.t + h - pad.b) / 2); ctx.rotate(-Math.PI / 2); ctx.fillText(o.yLabel, 0, -6); ctx.restore(); }

  for (const l of o.hlines ?? []) {
    ctx.save(); ctx.setLineDash([4, 4]); ctx.strokeStyle = l.color ?? '#9aa1ae';
    ctx.beginPath(); ctx.moveTo(pad.l, Y(l.y)); ctx.lineTo(w - pad.r, Y(l.y)); ctx.stroke();
    ctx.fillStyle = l.color ?? '#7b8496'; ctx.textAlign = 'left'; ctx.textBaseline = 'bottom';
    ctx.fillText(l.label, pad.l + 6, Y(l.y) - 2); ctx.restore();
  }
  for (const l of o.vlines ?? []) {  // vertical markers at x = l.x, optional dot at (l.x, l.y)
    const px = Math.round(X(o.xLog ? Math.log10(l.x) : l.x)) + 0.5;
    ctx.save(); ctx.setLineDash([4, 3]); ctx.strokeStyle = l.color ?? '#1c2330';
    ctx.beginPath(); ctx.moveTo(px, pad.t); ctx.lineTo(px, h - pad.b); ctx.stroke(); ctx.restore();
    if (l.y !== undefined) { ctx.fillStyle = l.color ?? '#1c2330'; ctx.beginPath(); ctx.arc(px, Y(l.y), 4, 0, 2 * Math.PI); ctx.fill(); }
    if (l.label) { ctx.fillStyle = l.color ?? '#1c2330'; ctx.textBaseline = 'top'; ctx.textAlign = px > (pad.l + w - pad.r) / 2 ? 'right' : 'left'; ctx.fillText(l.label, px + (ctx.textAlign === 'left' ? 5 : -5), pad.t + 2); }
  }
  for (const s of series) {
    ctx.save(); ctx.strokeStyle = s.color; ctx.fillStyle = s.color; ctx.lineWidth = s.width ?? 2; if (s.dash) ctx.setLineDash(s.dash);
    const sx = xs(s);
    if (s.points) {  // discrete values: a dot per point on a thin stem from the x axis, no connecting line
      const base = Y(Math.max(y0, Math.min(y1, o.yLog ? y0 : 0)));
      s.ys.forEach((v, i) => {
        const px = X(sx[i]), py = Y(v);
        ctx.globalAlpha = 0.35; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(px, base); ctx.lineTo(px, py); ctx.stroke();
        ctx.globalAlpha = 1; ctx.beginPath(); ctx.arc(px, py, Math.min(3.5, Math.max(2, (w - pad.l - pad.r) / s.ys.length / 3)), 0, 2 * Math.PI); ctx.fill();
      });
    } else {
      ctx.beginPath();
      s.ys.forEach((v, i) => { const px = X(sx[i]), py = Y(v); i ? ctx.lineTo(px, py) : ctx.moveTo(px, py); });
      ctx.stroke();
    }
    ctx.restore();
  }
  ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
  for (const { s, x, y } of legend) {  // legend along the top; the swatch is drawn as the series is (dashed, dots)
    ctx.save(); ctx.strokeStyle = s.color; ctx.fillStyle = s.color;
    if (s.points) { ctx.beginPath(); ctx.arc(x + 7, y, 3.5, 0, 2 * Math.PI); ctx.fill(); }
    else { ctx.lineWidth = Math.max(2, s.width ?? 2); if (s.dash) ctx.setLineDash(s.dash.map((d) => Math.max(2, d * 0.6))); ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 14, y); ctx.stroke(); }
    ctx.restore(); ctx.fillStyle = '#4a5368';
    ctx.fillText(s.name, x + 18, y);
  }
  canvas.legendSwatches = legend.map(({ s, x, y }) => ({ name: s.name, x, y, dashed: !!s.dash, points: !!s.points }));
  return { X, Y };
}

// Horizontal bars with their values: bars [{name, value, color}]; options {unit, aspect}. Log-free:
// the bar lengths are the times themselves, so a 30x difference looks like one.
export function barChart(canvas, bars, o = {}) {
  // at least 18 px per bar, so a phone-width chart stays readable
  const cw = Math.max(280, cssWidth(canvas) || canvas.width);
  canvas.dataset.aspect ??= String(canvas.height / canvas.width);
  const { ctx, w, h } = fitCanvas(canvas, Math.max(o.aspect ?? Number(canvas.dataset.aspect), (bars.length * 18 + 20) / cw));
  ctx.clearRect(0, 0, w, h);
  if (!bars.length) return;
  ctx.font = '12px system-ui, sans-serif';
  // the label column fits the longest label (measured), up to 45 % of the width; the value labels after
  // the bars get the room their longest one needs
  const valueText = (b) => `${fmt(b.value)} ${o.unit ?? ''}`.trim();
  const valueW = Math.max(...bars.map((b) => ctx.measureText(valueText(b)).width)) + 12;
  const labelW = Math.min(Math.max(...bars.map((b) => ctx.measureText(b.name).width)) + 16, w * 0.45), pad = { r: valueW, t: 10 }, rowH = (h - pad.t * 2) / bars.length;
  const max = Math.max(...bars.map((b) => b.value)) || 1;
  bars.forEach((b, i) => {
    const y = pad.t + i * rowH, bh = rowH * 0.6, len = ((w - labelW - pad.r) * b.value) / max;
    ctx.fillStyle = '#4a5368'; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    // a label wider than its column wraps on words (a phone), lines 14 px apart around the bar's middle
    const lines = [];
    for (const word of b.name.split(' ')) {
      const last = lines[lines.length - 1];
      if (last !== undefined && ctx.measureText(`${last} ${word}`).width <= labelW - 14) lines[lines.length - 1] = `${last} ${word}`;
      else lines.push(word);
    }
    lines.forEach((line, k) => ctx.fillText(line, labelW - 10, y + rowH / 2 + (k - (lines.length - 1) / 2) * 14));
    b.nameLeft = labelW - 10 - Math.max(...lines.map((l) => ctx.measureText(l).width));
    ctx.fillStyle = b.color; ctx.fillRect(labelW, y + (rowH - bh) / 2, Math.max(len, 2), bh);
    ctx.fillStyle = '#1c2330'; ctx.textAlign = 'left';
    ctx.fillText(valueText(b), labelW + Math.max(len, 2) + 6, y + rowH / 2);
  });
  canvas.barLabels = bars.map((b) => ({ text: valueText(b), nameLeft: b.nameLeft, right: labelW + Math.max(((w - labelW - pad.r) * b.value) / max, 2) + 6 + ctx.measureText(valueText(b)).width, width: w }));
}

// One small multiple of the lab: a band (lo..hi per x), a mean line, an optional second line (dotted),
// dashed horizontal reference lines and vertical marks, y from yMin to yMax. o: { xs, lo, hi, mean,
// second, color, title, note, yMin, yMax, hlines [{y, label}], vlines [{x, label}], aspect, xTicks }.
// Returns { X, Y } and stores the plot rectangle on canvas.plot.
export function bandChart(canvas, o) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(200, cssWidth(canvas) || canvas.width), h = Math.round(Math.max(150, w * (o.aspect ?? 0.55)));
  resize(canvas, Math.round(w * dpr), Math.round(h * dpr));
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  // the title at the top left, the note at the top right, or on a line of its own when both do not fit
  ctx.font = '600 12px system-ui, sans-serif';
  const titleW = ctx.measureText(o.title ?? '').width;
  ctx.font = '11px system-ui, sans-serif';
  const noteW = o.note ? ctx.measureText(o.note).width : 0, noteBelow = titleW + noteW + 22 > w;
  const pad = { l: 34, r: 10, t: noteBelow ? 36 : 22, b: 22 };
  const y0 = o.yMin ?? 0, y1 = o.yMax ?? 1, x0 = 0, x1 = Math.max(...o.xs);
  const X = (v) => pad.l + ((v - x0) / (x1 - x0)) * (w - pad.l - pad.r);
  const Y = (v) => h - pad.b - ((v - y0) / (y1 - y0)) * (h - pad.t - pad.b);
  // grid and axes
  ctx.strokeStyle = '#ece9e2'; ctx.fillStyle = '#7b8496'; ctx.lineWidth = 1; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  for (const t of [0, 0.5, 1]) { ctx.beginPath(); ctx.moveTo(pad.l, Y(t)); ctx.lineTo(w - pad.r, Y(t)); ctx.stroke(); ctx.fillText(`${t * 100}%`, pad.l - 4, Y(t)); }
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  for (const t of o.xTicks ?? []) ctx.fillText(t.label, Math.min(X(t.x), w - pad.r - 8), h - pad.b + 5);
  for (const l of o.hlines ?? []) {
    ctx.save(); ctx.setLineDash([3, 3]); ctx.strokeStyle = '#9aa1ae';
    ctx.beginPath(); ctx.moveTo(pad.l, Y(l.y)); ctx.lineTo(w - pad.r, Y(l.y)); ctx.stroke();
    ctx.fillStyle = '#7b8496'; ctx.textAlign = 'right'; ctx.textBaseline = 'bottom'; ctx.fillText(l.label, w - pad.r - 2, Y(l.y) - 1); ctx.restore();
  }
  for (const l of o.vlines ?? []) {
    ctx.save(); ctx.setLineDash([5, 4]); ctx.strokeStyle = '#e8a33d'; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.moveTo(X(l.x) + 0.5, pad.t); ctx.lineTo(X(l.x) + 0.5, h - pad.b); ctx.stroke(); ctx.restore();
  }
  // the band, the mean, the second line
  const c = o.color ?? '#2f5fb3';
  if (o.lo && o.hi) {
    ctx.save(); ctx.globalAlpha = 0.22; ctx.fillStyle = c; ctx.beginPath();
    o.xs.forEach((x, i) => (i ? ctx.lineTo(X(x), Y(o.hi[i])) : ctx.moveTo(X(x), Y(o.hi[i]))));
    for (let i = o.xs.length - 1; i >= 0; i--) ctx.lineTo(X(o.xs[i]), Y(o.lo[i]));
    ctx.closePath(); ctx.fill(); ctx.restore();
  }
  const line = (ys, style) => {
    ctx.save(); Object.assign(ctx, style); if (style.dash) ctx.setLineDash(style.dash);
    ctx.beginPath(); o.xs.forEach((x, i) => (i ? ctx.lineTo(X(x), Y(ys[i])) : ctx.moveTo(X(x), Y(ys[i])))); ctx.stroke(); ctx.restore();
  };
  if (o.mean) line(o.mean, { strokeStyle: c, lineWidth: 2 });
  if (o.second) line(o.second, { strokeStyle: '#1c2330', lineWidth: 1.2, dash: [1.5, 2.5] });
  ctx.fillStyle = '#1c2330'; ctx.textAlign = 'left'; ctx.textBaseline = 'top'; ctx.font = '600 12px system-ui, sans-serif';
  ctx.fillText(o.title ?? '', 6, 4);
  if (o.note) {
    ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#4a5368';
    if (noteBelow) ctx.fillText(o.note, 6, 19); else { ctx.textAlign = 'right'; ctx.fillText(o.note, w - pad.r, 5); }
  }
  // what was drawn, for read-outs and the browser test
  canvas.plot = { x: pad.l, y: pad.t, w: w - pad.l - pad.r, h: h - pad.t - pad.b, dpr, title: o.title, note: o.note, xs: o.xs, lo: o.lo, hi: o.hi,
    mean: o.mean, second: o.second, hlines: o.hlines ?? [], vlines: o.vlines ?? [] };
  return { X, Y };
}
