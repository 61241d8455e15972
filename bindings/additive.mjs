// The additive family beyond sinusoidal: argument checks, heap copies and calls into the core.
import * as v from './validate.mjs';
import { readOptions } from './options.mjs';

const len = (t) => t?.length;  // HeapBuffer and typed arrays both have .length

function floatTable(s, value, field, required = true) {
  if (value === undefined || value === null) {
    if (required) throw new TypeError(`${field} is required`);
    return [0, 0];
  }
  return [s.f32(value, field), len(value)];
}

function intList(value, field, { min } = {}) {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${field} must be an array of integers (got ${v.describe(value)})`);
  return v.int32Array(value, field, min === undefined ? {} : { min });
}

export function makeAdditive(m, run, check) {
  function learned(positions, options) {
    const o = readOptions(options, 'learned');
    const pos = v.positions(positions);
    const { dim, outOfRange, interpolateTo = 0 } = o;
    return run((s) => {
      const [table, tableLength] = floatTable(s, o.table, 'table');
      const out = s.out(pos.length * dim);
      check(m, m.learned(s.i32(pos, 'positions'), pos.length, table, tableLength, dim, outOfRange, interpolateTo, out));
      return s.result(out, pos.length * dim, o.out);
    });
  }

  function maskArgs(mask, o) {
    const { batch, past } = o;
    const mk = v.mask(mask, 'mask');
    const length = o.length ?? mk.length / batch;
    if (!Number.isInteger(length) || length < 1) throw new RangeError(`mask must have batch*length entries (got ${mk.length} for batch ${batch})`);
    v.requireLength(mk.length, batch * length, 'mask', 'batch*length');
    return { mk, batch, length, past };
  }

  function positionIds(mask, options) {
    const o = readOptions(options, 'positionIds');
    const { mk, batch, length, past } = maskArgs(mask, o);
    const { style, paddingIdx } = o;
    return run((s) => {
      const mp = s.alloc(mk.length, 'mask');
      m.HEAPU8.set(mk, mp);
      const out = s.alloc(mk.length * 4, 'out');
      check(m, m.positionIds(mp, batch, length, style, paddingIdx, past, out));
      return s.int32Result(out, mk.length);
    });
  }

  function nextPositions(mask, options) {
    const o = readOptions(options, 'nextPositions');
    const { mk, batch, length, past } = maskArgs(mask, o);
    return run((s) => {
      const mp = s.alloc(mk.length, 'mask');
      m.HEAPU8.set(mk, mp);
      const out = s.alloc(batch * 4, 'out');
      check(m, m.nextPositions(mp, batch, length, past, out));
      return s.int32Result(out, batch);
    });
  }

  function modalityPositions(modalities, options) {
    const o = readOptions(options, 'modalityPositions');
    const mods = v.int32Array(modalities, 'modalities');
    const offsets = intList(o.offsets, 'offsets');
    const lengths = o.lengths === undefined ? null : intList(o.lengths, 'lengths');
    return run((s) => {
      const out = s.alloc(mods.length * 4, 'out');
      check(m, m.modalityPositions(s.i32(mods, 'modalities'), mods.length, s.i32(offsets, 'offsets'), offsets.length, lengths ? s.i32(lengths, 'lengths') : 0, out));
      return s.int32Result(out, mods.length);
    });
  }

  function binary(positions, options) {
    const c = readOptions(options, 'binary');
    const pos = v.positions(positions);
    const dim = c.dim ?? c.bits;
    return run((s) => {
      const [table, tableLength] = floatTable(s, c.table, 'table', false);
      const out = s.out(pos.length * dim);
      check(m, m.binaryEncoding(s.i32(pos, 'positions'), pos.length, dim, c.bits, c.radix, c.code, table, tableLength, out));
      return s.result(out, pos.length * dim, c.out);
    });
  }

  function codeDistance(a, b, options) {
    const c = readOptions(options, 'codeDistance');
    v.nonNegative(a, 'a');
    v.nonNegative(b, 'b');
    return run((s) => {
      const out = s.alloc(4, 'out');
      check(m, m.codeDistance(a, b, c.bits, c.radix, c.code, out));
      return m.HEAP32[out >> 2];
    });
  }

  function lowRank(positions, options) {
    const o = readOptions(options, 'lowRank');
    const pos = v.positions(positions);
    const { rank, dim } = o;
    return run((s) => {
      const [coef, coefLength] = floatTable(s, o.coefficients, 'coefficients');
      const [basis, basisLength] = floatTable(s, o.basis, 'basis');
      const out = s.out(pos.length * dim);
      check(m, m.lowRank(s.i32(pos, 'positions'), pos.length, coef, coefLength, basis, basisLength, rank, dim, out));
      return s.result(out, pos.length * dim, o.out);
    });
  }

  function sparse(positions, options) {
    const o = readOptions(options, 'sparse');
    const pos = v.positions(positions);
    const { k, dim } = o;
    const indices = intList(o.indices, 'indices');
    return run((s) => {
      const values = s.f32(o.values, 'values');
      v.requireLength(len(o.values), indices.length, 'values', 'like indices');
      const [basis, basisLength] = floatTable(s, o.basis, 'basis');
      const out = s.out(pos.length * dim);
      check(m, m.sparse(s.i32(pos, 'positions'), pos.length, s.i32(indices, 'indices'), values, indices.length, k, basis, basisLength, dim, out));
      return s.result(out, pos.length * dim, o.out);
    });
  }

  function randomFeatures(positions, options) {
    const o = readOptions(options, 'randomFeatures');
    const pos = v.positions(positions);
    const { dim, seed, kind, sigma, scale, hidden } = o;
    return run((s) => {
      const out = s.out(pos.length * dim);
      check(m, m.randomFeatures(s.i32(pos, 'positions'), pos.length, dim, seed, kind, sigma, scale, hidden, out));
      return s.result(out, pos.length * dim, o.out);
    });
  }

  function axial(positions, options) {
    const o = readOptions(options, 'axial');
    const pos = v.positions(positions);
    const shape = intList(o.shape, 'shape', { min: 1 });
    const dims = intList(o.dims, 'dims', { min: 1 });
    if (!Array.isArray(o.tables)) throw new TypeError(`tables must be an array of Float32Arrays (got ${v.describe(o.tables)})`);
    if (o.tables.length !== shape.length || dims.length !== shape.length)
      throw new RangeError(`tables and dims must have one entry per axis of shape (${shape.length}); got ${o.tables.length} tables, ${dims.length} dims`);
    const { combine } = o;
    if (combine === 1 && dims.some((d) => d !== dims[0])) throw new RangeError(`dims must all be equal when combine is 'sum' (got [${Array.from(dims)}])`);
    const width = combine === 1 ? dims[0] : dims.reduce((a, b) => a + b, 0);
    return run((s) => {
      const ptrs = Float64Array.from(o.tables, (t, a) => {
        const p = s.f32(t, `tables[${a}]`);
        v.requireLength(len(t), shape[a] * dims[a], `tables[${a}]`, `[shape[${a}], dims[${a}]]`);
        return p;
      });
      const out = s.out(pos.length * width);
      check(m, m.axial(s.i32(pos, 'positions'), pos.length, s.i32(shape, 'shape'), s.i32(dims, 'dims'), s.f64(ptrs, 'tables'), shape.length, combine, out));
      return s.result(out, pos.length * width, o.out);
    });
  }

  function twoLevel(segments, options) {
    const o = readOptions(options, 'twoLevel');
    const seg = v.int32Array(segments, 'segments');
    const { segmentDim, innerDim, combine } = o;
    const width = combine === 1 ? segmentDim : segmentDim + innerDim;
    return run((s) => {
      const [st, stl] = floatTable(s, o.segmentTable, 'segmentTable');
      const [it, itl] = floatTable(s, o.innerTable, 'innerTable');
      const out = s.out(seg.length * width);
      check(m, m.twoLevel(s.i32(seg, 'segments'), seg.length, st, stl, it, itl, segmentDim, innerDim, combine, out));
      return s.result(out, seg.length * width, o.out);
    });
  }

  function sine(frames, o) {
    const { height, width, numPosFeats, temperature, normalize, scale } = o;
    const cells = Math.max(frames, 1) * height * width;
    const mask = o.mask === undefined ? null : v.mask(o.mask, 'mask');
    if (mask) v.requireLength(mask.length, cells, 'mask', frames ? 'frames*height*width' : 'height*width');
    const n = cells * (frames ? 3 : 2) * numPosFeats;
    return run((s) => {
      let mp = 0;
      if (mask) { mp = s.alloc(mask.length, 'mask'); m.HEAPU8.set(mask, mp); }
      const out = s.out(n);
      check(m, m.sineNd(frames, height, width, mp, numPosFeats, temperature, normalize, scale, out));
      return s.result(out, n, o.out);
    });
  }

  function resizeGrid(grid, options) {
    const o = readOptions(options, 'resizeGrid');
    const pair = (x, f) => {
      if (!Array.isArray(x) || x.length !== 2) throw new TypeError(`${f} must be [h, w] (got ${v.describe(x)})`);
      return [v.positive(x[0], `${f}[0]`), v.positive(x[1], `${f}[1]`)];
    };
    const [fh, fw] = pair(o.from, 'from'), [th, tw] = pair(o.to, 'to');
    const { dim, mode, mapping, prefixTokens } = o;
    const n = (prefixTokens + th * tw) * dim;
    return run((s) => {
      const [g, gl] = floatTable(s, grid, 'grid');
      const out = s.out(n);
      check(m, m.resizeGrid(g, gl, fh, fw, th, tw, dim, mode, mapping, prefixTokens, out));
      return s.result(out, n, o.out);
    });
  }

  return {
    learned, positionIds, nextPositions, modalityPositions, binary, codeDistance, lowRank, sparse, randomFeatures, axial, twoLevel,
    sine2d: (options) => sine(0, readOptions(options, 'sine2d')),
    sine3d: (options) => { const o = readOptions(options, 'sine3d'); return sine(o.frames, o); },
    resizeGrid,
  };
}
