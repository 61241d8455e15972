// The additive family beyond sinusoidal: argument checks, heap copies and calls into the core.
import * as v from './validate.mjs';
import { readOptions, plain } from './options.mjs';

function intList(value, field, { min } = {}) {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${field} must be an array of integers (got ${v.describe(value)})`);
  return v.int32Array(value, field, min === undefined ? {} : { min });
}

// A float table argument: required unless said otherwise; absent = the core's "none".
const table = (s, value, field, required = true) => {
  if (value !== undefined) return s.f32(value, field);
  if (required) throw new TypeError(`${field} is required`);
  return undefined;
};

export function makeAdditive(call) {
  // The functions of positions [count] -> [count, width]: options checked here for type, the rest by the core.
  const ofPositions = (op, tables = () => ({})) => (positions, options) => {
    const o = readOptions(options, op);
    const pos = v.positions(positions);
    return call(op, (s) => ({ ...plain(o), ...tables(s, o), positions: s.i32(pos, 'positions') }), o.out).out;
  };

  // positionIds / nextPositions: a 0/1 mask [batch, length].
  const ofMask = (op) => (mask, options) => {
    const o = readOptions(options, op);
    const mk = v.mask(mask, 'mask');
    const length = o.length ?? mk.length / o.batch;
    if (!Number.isInteger(length) || length < 1) throw new RangeError(`mask must have batch*length entries (got ${mk.length} for batch ${o.batch})`);
    v.requireLength(mk.length, o.batch * length, 'mask', 'batch*length');
    return call(op, (s) => ({ ...plain(o), length, mask: s.bytes(mk, 'mask') })).out;
  };

  function modalityPositions(modalities, options) {
    const o = readOptions(options, 'modalityPositions');
    const mods = v.int32Array(modalities, 'modalities');
    const offsets = intList(o.offsets, 'offsets');
    const lengths = o.lengths === undefined ? undefined : intList(o.lengths, 'lengths');
    return call('modalityPositions', (s) => ({
      modalities: s.i32(mods, 'modalities'), offsets: s.i32(offsets, 'offsets'), lengths: lengths && s.i32(lengths, 'lengths'),
    })).out;
  }

  function codeDistance(a, b, options) {
    const c = readOptions(options, 'codeDistance');
    return call('codeDistance', { ...plain(c), a: v.nonNegative(a, 'a'), b: v.nonNegative(b, 'b') }).value;
  }

  function axial(positions, options) {
    const o = readOptions(options, 'axial');
    const shape = intList(o.shape, 'shape', { min: 1 }), dims = intList(o.dims, 'dims', { min: 1 });
    if (!Array.isArray(o.tables)) throw new TypeError(`tables must be an array of Float32Arrays (got ${v.describe(o.tables)})`);
    return ofPositions('axial', (s) => ({ shape: Array.from(shape), dims: Array.from(dims), tables: o.tables.map((t, a) => s.f32(t, `tables[${a}]`)) }))(positions, options);
  }

  function twoLevel(segments, options) {
    const o = readOptions(options, 'twoLevel');
    const seg = v.int32Array(segments, 'segments');
    return call('twoLevel', (s) => ({
      ...plain(o), segments: s.i32(seg, 'segments'), segmentTable: table(s, o.segmentTable, 'segmentTable'), innerTable: table(s, o.innerTable, 'innerTable'),
    }), o.out).out;
  }

  function sine(frames, o) {
    const mask = o.mask === undefined ? undefined : v.mask(o.mask, 'mask');
    return call('sine', (s) => ({ ...plain(o), frames, mask: mask && s.bytes(mask, 'mask') }), o.out).out;
  }

  function resizeGrid(grid, options) {
    const o = readOptions(options, 'resizeGrid');
    const pair = (x, f) => {
      if (!Array.isArray(x) || x.length !== 2) throw new TypeError(`${f} must be [h, w] (got ${v.describe(x)})`);
      return [v.positive(x[0], `${f}[0]`), v.positive(x[1], `${f}[1]`)];
    };
    const from = pair(o.from, 'from'), to = pair(o.to, 'to');
    return call('resizeGrid', (s) => ({ ...plain(o), from, to, grid: table(s, grid, 'grid') }), o.out).out;
  }

  return {
    learned: ofPositions('learned', (s, o) => ({ table: table(s, o.table, 'table') })),
    positionIds: ofMask('positionIds'),
    nextPositions: ofMask('nextPositions'),
    modalityPositions,
    binary: ofPositions('binary', (s, o) => ({ table: table(s, o.table, 'table', false) })),
    codeDistance,
    lowRank: ofPositions('lowRank', (s, o) => ({ coefficients: table(s, o.coefficients, 'coefficients'), basis: table(s, o.basis, 'basis') })),
    sparse: ofPositions('sparse', (s, o) => ({ indices: s.i32(intList(o.indices, 'indices'), 'indices'), values: table(s, o.values, 'values'), basis: table(s, o.basis, 'basis') })),
    randomFeatures: ofPositions('randomFeatures'),
    axial,
    twoLevel,
    sine2d: (options) => sine(0, readOptions(options, 'sine2d')),
    sine3d: (options) => { const o = readOptions(options, 'sine3d'); return sine(o.frames, o); },
    resizeGrid,
  };
}
