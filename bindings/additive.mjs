// The additive family beyond sinusoidal: positional arguments converted here, options checked and
// read by the core (bindings/call.cpp).
import * as v from './validate.mjs';

// `run(op, options, extra)` runs op with its options object and the arguments extra(scope) places.
export function makeAdditive(run) {
  // op(main, options): `main` is the positional argument, placed on the heap as `key` by `place`.
  const op = (name, key, place) => (main, options) => run(name, options, (s) => ({ [key]: place(s, main, key) })).out;
  const positions = (s, x, f) => s.i32(v.positions(x, f), f);
  const ints = (s, x, f) => s.i32(v.int32Array(x, f), f);
  const mask = (s, x, f) => s.bytes(v.mask(x, f), f);
  const floats = (s, x, f) => s.f32(x, f);

  return {
    learned: op('learned', 'positions', positions),
    positionIds: op('positionIds', 'mask', mask),
    nextPositions: op('nextPositions', 'mask', mask),
    modalityPositions: op('modalityPositions', 'modalities', ints),
    binary: op('binary', 'positions', positions),
    codeDistance: (a, b, options) => run('codeDistance', options, () => ({ a: v.nonNegative(a, 'a'), b: v.nonNegative(b, 'b') })).value,
    lowRank: op('lowRank', 'positions', positions),
    sparse: op('sparse', 'positions', positions),
    randomFeatures: op('randomFeatures', 'positions', positions),
    axial: op('axial', 'positions', positions),
    twoLevel: op('twoLevel', 'segments', ints),
    sine2d: (options) => run('sine2d', options).out,
    sine3d: (options) => run('sine3d', options).out,
    resizeGrid: op('resizeGrid', 'grid', floats),
  };
}
