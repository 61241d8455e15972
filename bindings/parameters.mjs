// Learned parameter counts per method (the seed survey's comparison), from the shapes a method's
// options describe. Fixed functions (sinusoidal, RoPE, ALiBi, 2-D sine, random features) learn none.
// Every size is checked (a positive integer, by its registry entry), so a count is never negative or
// fractional.
import * as v from './validate.mjs';
import { readOptions, quoted } from './options.mjs';

function pair(x, field) {
  if (!Array.isArray(x) || x.length !== 2) throw new TypeError(`${field} must be [h, w] (got ${v.describe(x)})`);
  return [v.positive(x[0], `${field}[0]`), v.positive(x[1], `${field}[1]`)];
}

// o: the method's options, checked and with defaults (readOptions: every size a positive integer).
const COUNTS = {
  sinusoidal: () => 0,
  rope: () => 0,
  temperature: () => 0,
  alibi: () => 0,
  sine2d: () => 0,
  sine3d: () => 0,
  randomFeatures: () => 0,
  learned: (o) => o.maxPositions * o.dim,
  binary: (o) => (o.learned ? o.bits * o.dim * o.radix : 0),
  lowRank: (o) => (o.maxPositions + o.dim) * o.rank,
  sparse: (o) => o.maxPositions * o.k + o.basisSize * o.dim,
  axial: (o) => {
    const shape = v.int32Array(o.shape, 'shape', { min: 1 }), dims = v.int32Array(o.dims, 'dims', { min: 1 });
    v.requireLength(dims.length, shape.length, 'dims', 'one per axis of shape');
    return shape.reduce((n, s, a) => n + s * dims[a], 0);
  },
  t5: (o) => o.numBuckets * o.heads,
  swin: (o) => {
    const [wh, ww] = pair(o.windowSize, 'windowSize');
    return (2 * wh - 1) * (2 * ww - 1) * o.heads;
  },
  shaw: (o) => (2 * o.clip + 1) * o.headDim * (o.values ? 2 : 1),
  relativeKey: (o) => (2 * o.maxPosition - 1) * o.headDim,
  // W_R [heads*headDim, dModel] plus the u and v biases [heads, headDim]
  xl: (o) => o.heads * o.headDim * (o.dModel + 2),
  // shared relative embeddings [2 span, hidden] (projections reuse the content W_q, W_k when share_att_key)
  deberta: (o) => 2 * o.span * o.hidden,
  kerple: (o) => 2 * o.heads,  // r1, r2 per head
  // Linear(1, hidden) + Linear(hidden, heads), and the learned c and L (FIRE's public code)
  fire: (o) => 2 * o.hidden + (o.hidden + 1) * o.heads + 2,
  cope: (o) => o.npos * o.headDim,
};

export const PARAMETER_METHODS = Object.keys(COUNTS);

export function parameterCount(method, options) {
  if (typeof method !== 'string') throw new TypeError(`method must be a string (got ${v.describe(method)})`);
  // an own-property check: 'constructor' or 'toString' must not find Object.prototype's methods
  if (!Object.hasOwn(COUNTS, method)) throw new RangeError(`method must be one of ${quoted(PARAMETER_METHODS)} (got '${method}')`);
  const o = readOptions(options, `parameterCount.${method}`, { where: `parameterCount('${method}') options` });
  const n = COUNTS[method](o);
  if (!Number.isSafeInteger(n)) throw new RangeError(`parameterCount('${method}'): ${n} parameters cannot be counted exactly (more than 2^53)`);
  return n;
}
