// Learned parameter counts per method (the seed survey's comparison), from the shapes a method's
// options describe. Fixed functions (sinusoidal, RoPE, ALiBi, 2-D sine, random features) learn none.
import * as v from './validate.mjs';


const COUNTS = {
  sinusoidal: () => 0,
  rope: () => 0,
  alibi: () => 0,
  sine2d: () => 0,
  sine3d: () => 0,
  randomFeatures: () => 0,
  learned: (o) => v.positive(o.maxPositions, 'maxPositions') * v.positive(o.dim, 'dim'),
  binary: (o) => (o.learned === false ? 0 : v.positive(o.bits, 'bits') * (o.radix ?? 2) * v.positive(o.dim, 'dim')),
  lowRank: (o) => v.positive(o.maxPositions, 'maxPositions') * v.positive(o.rank, 'rank') + o.rank * v.positive(o.dim, 'dim'),
  sparse: (o) => v.positive(o.maxPositions, 'maxPositions') * v.positive(o.k, 'k') + v.positive(o.basisSize, 'basisSize') * v.positive(o.dim, 'dim'),
  axial: (o) => o.shape.reduce((n, s, a) => n + v.positive(s, `shape[${a}]`) * v.positive(o.dims[a], `dims[${a}]`), 0),
  t5: (o) => v.positive(o.numBuckets ?? 32, 'numBuckets') * v.positive(o.heads, 'heads'),
  swin: (o) => (2 * o.windowSize[0] - 1) * (2 * o.windowSize[1] - 1) * v.positive(o.heads, 'heads'),
  shaw: (o) => (2 * v.nonNegative(o.clip, 'clip') + 1) * v.positive(o.headDim, 'headDim') * (o.values === false ? 1 : 2),
  relativeKey: (o) => (2 * v.positive(o.maxPosition, 'maxPosition') - 1) * v.positive(o.headDim, 'headDim'),
  // W_R [heads*headDim, dModel] plus the u and v biases [heads, headDim]
  xl: (o) => v.positive(o.heads, 'heads') * v.positive(o.headDim, 'headDim') * (v.positive(o.dModel, 'dModel') + 2),
  // shared relative embeddings [2 span, hidden] (projections reuse the content W_q, W_k when share_att_key)
  deberta: (o) => 2 * v.positive(o.span, 'span') * v.positive(o.hidden, 'hidden'),
};

export const PARAMETER_METHODS = Object.keys(COUNTS);

export function parameterCount(method, options = {}) {
  if (typeof method !== 'string') throw new TypeError(`method must be a string (got ${v.describe(method)})`);
  const f = COUNTS[method];
  if (!f) throw new RangeError(`method must be one of ${PARAMETER_METHODS.map((k) => `'${k}'`).join(', ')} (got '${method}')`);
  return f(v.object(options, 'options'));
}
