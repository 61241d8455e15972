// The additive family beyond sinusoidal: positional arguments converted here, options checked and
// read by the core (bindings/call.cpp).
import * as v from './validate.mjs';

export function makeAdditive(call, withOptions, outOf) {
  // op(main, options): `main` is the positional argument, placed on the heap as `key` by `place`.
  const op = (name, key, place) => (main, options) => {
    const x = place.check(main, key);
    return call(name, (s) => ({ ...withOptions(name, options)(s), [key]: place.put(s, x, key) }), outOf(options)).out;
  };
  const positions = { check: (x, f) => v.positions(x, f), put: (s, x, f) => s.i32(x, f) };
  const ints = { check: (x, f) => v.int32Array(x, f), put: (s, x, f) => s.i32(x, f) };
  const mask = { check: (x, f) => v.mask(x, f), put: (s, x, f) => s.bytes(x, f) };
  const floats = { check: (x) => x, put: (s, x, f) => s.f32(x, f) };
  const ofPositions = (name) => op(name, 'positions', positions);

  return {
    learned: ofPositions('learned'),
    positionIds: op('positionIds', 'mask', mask),
    nextPositions: op('nextPositions', 'mask', mask),
    modalityPositions: op('modalityPositions', 'modalities', ints),
    binary: ofPositions('binary'),
    codeDistance(a, b, options) {
      return call('codeDistance', (s) => ({ ...withOptions('codeDistance', options)(s), a: v.nonNegative(a, 'a'), b: v.nonNegative(b, 'b') })).value;
    },
    lowRank: ofPositions('lowRank'),
    sparse: ofPositions('sparse'),
    randomFeatures: ofPositions('randomFeatures'),
    axial: ofPositions('axial'),
    twoLevel: op('twoLevel', 'segments', ints),
    sine2d: (options) => call('sine2d', withOptions('sine2d', options), outOf(options)).out,
    sine3d: (options) => call('sine3d', withOptions('sine3d', options), outOf(options)).out,
    resizeGrid: op('resizeGrid', 'grid', floats),
  };
}
