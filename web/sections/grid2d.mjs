// Additive encodings that are not one row per 1-D position: DETR's 2-D sine over an image grid
// (pe.sine2d), a ViT position grid resized to a new patch grid (pe.resizeGrid), and the factored
// tables — low-rank (coefficients × basis, pe.lowRank) and sparse (k basis rows per position,
// pe.sparse). Each control redraws only its own figures.
import { heatmapFigure } from '../plot.mjs';
import { $, bindInput, bindSegmented, demo, demoFloats, timed } from '../common.mjs';

const F = 32;                      // DETR num_pos_feats per axis (the page's size; DETR uses 128)
const SRC = 7, GRID_DIM = 8;       // the "learned" ViT grid: 7 × 7 patches, 8 channels
const L = 64, DIM = 64, BASIS = 64;  // factored tables: positions × width, basis rows

export function grid2dSection(pe) {
  const state = { size: '16x24', pair: 0, normalize: true, pad: false, to: 12, mode: 'bicubic', mapping: 'size', channel: 0, factor: 'lowRank', rank: 4 };
  const out = (demo.grid2d = {});

  // --- DETR 2-D sine: the channel pair 2m, 2m + 1 of the y half and of the x half, over the image
  function drawSine() {
    const [H, W] = state.size.split('x').map(Number), m = state.pair;
    // padding: DETR pads images in a batch to one size; the mask (1 = valid, as HF) marks the real pixels
    const validH = state.pad ? H - 4 : H, validW = state.pad ? W - 6 : W;
    const mask = state.pad ? Uint8Array.from({ length: H * W }, (_, n) => (Math.floor(n / W) < validH && n % W < validW ? 1 : 0)) : undefined;
    const table = pe.sine2d({ height: H, width: W, numPosFeats: F, normalize: state.normalize, ...(mask ? { mask } : {}) });  // [H·W, 2F]
    const channel = (c) => Float32Array.from({ length: H * W }, (_, n) => table[n * 2 * F + c]);
    const y = channel(2 * m), x = channel(F + 2 * m);
    const o = { max: 1, xLabel: 'x (column) →', yLabel: '← y (row)', legend: 'value', minTickWidth: 24 };
    heatmapFigure($('grid2d-y'), y, H, W, { ...o, title: `channel ${2 * m}: sin of y` });
    heatmapFigure($('grid2d-x'), x, H, W, { ...o, title: `channel ${F + 2 * m}: sin of x` });
    const period = 2 * Math.PI * 10000 ** ((2 * m) / F);
    $('grid2d-sine-caption').textContent = `pe.sine2d({ height: ${H}, width: ${W}, numPosFeats: ${F}, normalize: ${state.normalize}${mask ? ', mask' : ''} }): `
      + `the first ${F} channels encode the row, the next ${F} the column, sin and cos interleaved. `
      + (state.normalize ? `Normalised, the counts are scaled to (0, 2π] over the ${mask ? 'valid part of the' : ''} image, so every image size spans the same angles.`
        : `Unnormalised, pair ${m} repeats every ${period < 1e4 ? period.toFixed(1) : period.toExponential(1)} pixels.`)
      + (mask ? ` Padded pixels (bottom ${H - validH} rows, right ${W - validW} columns) keep the last count: DETR does not zero them.` : '');
    Object.assign(out, { H, W, pair: m, normalize: state.normalize, mask: mask ? Array.from(mask) : null, y: Array.from(y), x: Array.from(x) });
  }

  // --- ViT: a 7 × 7 learned grid (a fixed random stand-in) resized to to × to, one channel drawn
  const grid = demoFloats(SRC * SRC * GRID_DIM, 91);
  function drawResize() {
    const { to, mode, mapping, channel } = state;
    const resized = pe.resizeGrid(grid, { from: [SRC, SRC], to: [to, to], dim: GRID_DIM, mode, mapping });
    const pick = (t, n) => Float32Array.from({ length: n * n }, (_, k) => t[k * GRID_DIM + channel]);
    const src = pick(grid, SRC), dst = pick(resized, to);
    const o = { max: 1.2, xLabel: 'patch column →', yLabel: '← patch row', legend: `channel ${channel}`, minTickWidth: 24 };
    heatmapFigure($('grid2d-src'), src, SRC, SRC, { ...o, title: `trained grid ${SRC} × ${SRC}` });
    heatmapFigure($('grid2d-dst'), dst, to, to, { ...o, title: `resized to ${to} × ${to} (${mode})` });
    $('grid2d-resize-caption').textContent = `pe.resizeGrid(grid, { from: [${SRC}, ${SRC}], to: [${to}, ${to}], dim: ${GRID_DIM}, mode: '${mode}', mapping: '${mapping}' }) — `
      + (mapping === 'size' ? 'current Hugging Face / timm: output cell o reads input coordinate (o + ½)·in/out − ½' : `legacy DINO / older HF: scale_factor (out + 0.1)/in`)
      + (mode === 'bicubic' ? ', Keys cubic (a = −0.75), taps clamped at the border.' : ', bilinear.');
    Object.assign(out, { to, mode, mapping, channel, grid: Array.from(grid), resized: Array.from(resized) });
  }

  // --- factored tables: low-rank (coefficients [L, r] × basis [r, d]) and sparse (k of BASIS rows per position)
  const basisFull = demoFloats(BASIS * DIM, 95);
  function drawFactor() {
    const { factor, rank: r } = state, positions = Int32Array.from({ length: L }, (_, p) => p);
    let table, params, note, opts;
    if (factor === 'lowRank') {
      // smooth coefficients (slow cosines of the position), so neighbouring rows are alike
      const coefficients = Float32Array.from({ length: L * r }, (_, n) => Math.cos((Math.PI * (Math.floor(n / r) + 0.5) * (n % r)) / L));
      const basis = basisFull.slice(0, r * DIM);
      opts = { coefficients, basis, rank: r, dim: DIM };
      table = pe.lowRank(positions, opts);
      params = pe.parameterCount('lowRank', { maxPositions: L, rank: r, dim: DIM });
      note = `rank ${r}: every row is a mix of the same ${r} basis vectors, so the table has rank ≤ ${r} — ${params.toLocaleString('en-US')} numbers instead of ${(L * DIM).toLocaleString('en-US')}.`;
    } else {
      // position p uses basis rows p mod BASIS, … spread over the basis, weights falling 1, ½, ⅓ …
      const k = r, indices = Int32Array.from({ length: L * k }, (_, n) => (Math.floor(n / k) + 17 * (n % k)) % BASIS);
      const values = Float32Array.from({ length: L * k }, (_, n) => 1 / (1 + (n % k)));
      opts = { indices, values, k, basis: basisFull, dim: DIM };
      table = pe.sparse(positions, opts);
      params = pe.parameterCount('sparse', { maxPositions: L, k, basisSize: BASIS, dim: DIM });
      note = `k = ${k}: each row is ${k} of the ${BASIS} basis rows, weighted — ${params.toLocaleString('en-US')} numbers (indices are not learned).`;
    }
    let max = 1e-9;
    for (const v of table) max = Math.max(max, Math.abs(v));
    heatmapFigure($('grid2d-factor'), table, L, DIM, { max, xLabel: 'dimension →', yLabel: '← position', legend: 'value', plotAspect: 0.5 });
    $('grid2d-factor-caption').textContent = note;
    out.factor = { kind: factor, r, params, table: Array.from(table), opts: Object.fromEntries(Object.entries(opts).map(([key, v]) => [key, ArrayBuffer.isView(v) ? Array.from(v) : v])) };
  }

  const t = (f) => timed('grid2d', f);
  bindInput('grid2d-size', state, 'size', t(drawSine), String);
  bindInput('grid2d-pair', state, 'pair', t(drawSine));
  bindInput('grid2d-normalize', state, 'normalize', t(drawSine), () => $('grid2d-normalize').checked);
  bindInput('grid2d-pad', state, 'pad', t(drawSine), () => $('grid2d-pad').checked);
  bindInput('grid2d-to', state, 'to', t(drawResize));
  bindInput('grid2d-channel', state, 'channel', t(drawResize));
  bindSegmented('grid2d-mode', state, 'mode', t(drawResize));
  bindInput('grid2d-mapping', state, 'mapping', t(drawResize), String);
  bindSegmented('grid2d-factor-kind', state, 'factor', t(drawFactor));
  bindInput('grid2d-rank', state, 'rank', t(drawFactor));
  return () => { drawSine(); drawResize(); drawFactor(); };
}
