// Learned parameter counts per method (the seed survey's comparison), from the shapes a method's
// options describe. Fixed functions (sinusoidal, RoPE, ALiBi, 2-D sine, random features) learn none.
// Every size is checked (a positive integer), so a count is never negative or fractional.
import * as v from './validate.mjs';
import { checkOptions, quoted } from './options.mjs';

const size = (o, key) => v.positive(o[key], key);

function pair(x, field) {
  if (!Array.isArray(x) || x.length !== 2) throw new TypeError(`${field} must be [h, w] (got ${v.describe(x)})`);
  return [v.positive(x[0], `${field}[0]`), v.positive(x[1], `${field}[1]`)];
}

const COUNTS = {
  sinusoidal: () => 0,
  rope: () => 0,
  temperature: () => 0,
  alibi: () => 0,
  sine2d: () => 0,
  sine3d: () => 0,
  randomFeatures: () => 0,
  learned: (o) => size(o, 'maxPositions') * size(o, 'dim'),
  binary: (o) => {
    const perDigit = size(o, 'bits') * size(o, 'dim');
    const radix = o.radix === undefined ? 2 : v.integer(o.radix, 'radix', { min: 2 });
    return v.boolean(o.learned, 'learned', true) ? perDigit * radix : 0;
  },
  lowRank: (o) => (size(o, 'maxPositions') + size(o, 'dim')) * size(o, 'rank'),
  sparse: (o) => size(o, 'maxPositions') * size(o, 'k') + size(o, 'basisSize') * size(o, 'dim'),
  axial: (o) => {
    const shape = v.int32Array(o.shape, 'shape', { min: 1 }), dims = v.int32Array(o.dims, 'dims', { min: 1 });
    v.requireLength(dims.length, shape.length, 'dims', 'one per axis of shape');
    return shape.reduce((n, s, a) => n + s * dims[a], 0);
  },
  t5: (o) => (o.numBuckets === undefined ? 32 : size(o, 'numBuckets')) * size(o, 'heads'),
  swin: (o) => {
    const [wh, ww] = pair(o.windowSize, 'windowSize');
    return (2 * wh - 1) * (2 * ww - 1) * size(o, 'heads');
  },
  shaw: (o) => (2 * v.nonNegative(o.clip, 'clip') + 1) * size(o, 'headDim') * (v.boolean(o.values, 'values', true) ? 2 : 1),
  relativeKey: (o) => (2 * size(o, 'maxPosition') - 1) * size(o, 'headDim'),
  // W_R [heads*headDim, dModel] plus the u and v biases [heads, headDim]
  xl: (o) => size(o, 'heads') * size(o, 'headDim') * (size(o, 'dModel') + 2),
  // shared relative embeddings [2 span, hidden] (projections reuse the content W_q, W_k when share_att_key)
  deberta: (o) => 2 * size(o, 'span') * size(o, 'hidden'),
  kerple: (o) => 2 * size(o, 'heads'),  // r1, r2 per head
  // Linear(1, hidden) + Linear(hidden, heads), and the learned c and L (FIRE's public code)
  fire: (o) => 2 * size(o, 'hidden') + (size(o, 'hidden') + 1) * size(o, 'heads') + 2,
  cope: (o) => size(o, 'npos') * size(o, 'headDim'),
};

export const PARAMETER_METHODS = Object.keys(COUNTS);

export function parameterCount(method, options) {
  if (typeof method !== 'string') throw new TypeError(`method must be a string (got ${v.describe(method)})`);
  // an own-property check: 'constructor' or 'toString' must not find Object.prototype's methods
  if (!Object.hasOwn(COUNTS, method)) throw new RangeError(`method must be one of ${quoted(PARAMETER_METHODS)} (got '${method}')`);
  const o = checkOptions(options, `parameterCount.${method}`, { where: `parameterCount('${method}') options` });
  const n = COUNTS[method](o);
  if (!Number.isSafeInteger(n)) throw new RangeError(`parameterCount('${method}'): ${n} parameters cannot be counted exactly (more than 2^53)`);
  return n;
}
