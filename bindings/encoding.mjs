// Validates an `encoding` object ({kind, ...}) and builds the flat spec the binding takes, placing
// its tables on the heap. Sizes are checked by the C++ core (messages name `encoding.<field>`).
import * as v from './validate.mjs';
import { ropeSpec, ropeSpecOnHeap } from './rope-config.mjs';
import { OPTIONS, ENCODING_KINDS, ROPE_LAYOUTS, checkOptions, belongsIn, quoted } from './options.mjs';

export { ENCODING_KINDS };
export const SCALAR_BIAS = ['alibi', 't5', 'swin', 'kerple', 'fire'];
const KERPLE_VARIANTS = ['log', 'power'];
export const NO_ENCODING = Object.freeze({ kind: 'none' });  // what an omitted encoding means
const DEBERTA_CONVENTIONS = ['hf', 'microsoft'];

const EMPTY_ROPE = {
  headDim: 2, base: 10000, partialRotaryFactor: 1, scalingType: 0, factor: 1, originalMaxPositionEmbeddings: 0, betaFast: 32,
  betaSlow: 1, mscale: 1, mscaleAllDim: 0, truncate: true, attentionFactor: NaN, lowFreqFactor: 1, highFreqFactor: 4,
  shortFactor: 0, longFactor: 0, shortFactorLength: 0, longFactorLength: 0, seqLen: 0, convention: 0,
  multiAxis: 0, sections: 0, sectionsLength: 0, mropeInterleaved: false, xposScaleBase: 0,
};

function blank() {
  return {
    kind: 0, heads: 0, slopes: 0, slopesLength: 0, symmetric: false, table: 0, tableLength: 0, bidirectional: true, numBuckets: 32,
    maxDistance: 128, windowH: 0, windowW: 0, clip: 0, keyTable: 0, keyTableLength: 0, valueTable: 0, valueTableLength: 0,
    u: 0, uLength: 0, v: 0, vLength: 0, r: 0, rLength: 0, wR: 0, wRLength: 0, dModel: 0, posKey: 0, posKeyLength: 0,
    posQuery: 0, posQueryLength: 0, span: 0, bucketSize: 0, maxPosition: 0, convention: 0, c2p: true, p2c: true,
    keyQuery: false, rope: EMPTY_ROPE, ropeLayout: 0, variant: 0, r1: 0, r1Length: 0, r2: 0, r2Length: 0,
    hidden: 0, w1: 0, w1Length: 0, b1: 0, b1Length: 0, w2: 0, w2Length: 0, b2: 0, b2Length: 0, c: 1, L: 0, eps: 1e-6,
    npos: 0, embeddings: 0, embeddingsLength: 0, tempBeta: 0, tempLength: 0, tempOffset: 0,
  };
}

// Places an optional float table on the heap: returns [offset, length].
function table(scope, value, field, required) {
  if (value === undefined) {
    if (required) throw new TypeError(`${field} is required`);
    return [0, 0];
  }
  const ptr = scope.f32(value, field);
  return [ptr, value.length];  // HeapBuffer and typed arrays both have .length
}

// Where a key unknown to this kind belongs: {kind: 't5', slopes} is more likely the wrong kind than a
// typo, and {kind: 'rope', factor} a scaling field one level too high.
function misplaced(kind) {
  const inScaling = belongsIn('encoding.scaling', 'scaling');
  return (key) => {
    if (kind === 'rope' && inScaling(key)) return inScaling(key);
    const owners = ENCODING_KINDS.filter((k) => k !== kind && Object.hasOwn(OPTIONS[`encoding.${k}`].keys, key));
    return owners.length ? `it belongs to kind ${quoted(owners)}, not '${kind}'` : undefined;
  };
}

// Checks an encoding's kind and keys; returns the kind. `field` names it in messages ('encoding[1]'
// for a part of a combination).
export function encodingKind(encoding, field = 'encoding') {
  if (encoding === undefined) throw new TypeError(`${field} is required`);
  const e = v.object(encoding, field);
  if (e.kind === undefined || e.kind === null) throw new TypeError(`${field}.kind is required (one of ${quoted(ENCODING_KINDS)}${e.kind === null ? '; got null' : ''})`);
  const kind = ENCODING_KINDS[v.oneOf(e.kind, `${field}.kind`, ENCODING_KINDS)];
  checkOptions(e, `encoding.${kind}`, { field, prefix: `${field}.`, elsewhere: misplaced(kind) });
  return kind;
}

// The kinds of an encoding that may be an array applied together (at most one 'rope', no nesting).
export function encodingKinds(encoding) {
  if (!Array.isArray(encoding)) return [encodingKind(encoding)];
  if (encoding.length === 0) throw new RangeError('encoding must not be an empty array (leave it out for no encoding)');
  const kinds = encoding.map((e, i) => {
    if (Array.isArray(e)) throw new TypeError(`encoding[${i}] must be an encoding object, not an array (combinations do not nest)`);
    return encodingKind(e, `encoding[${i}]`);
  });
  if (kinds.filter((k) => k === 'rope').length > 1) throw new RangeError("encoding combines two 'rope' entries: at most one rotary encoding");
  return kinds;
}

// Whether an encoding (or a part of an array) is a rope with several position axes: its positions are
// then [axes, len], which the core checks against the rope's axes.
export function multiAxisRope(encoding) {
  const parts = Array.isArray(encoding) ? encoding : [encoding];
  return parts.some((e) => e && e.kind === 'rope' && e.multiAxis !== undefined && e.multiAxis !== 'none');
}

// The flat specs the binding takes, one per part (an array encoding is applied as a combination).
export function encodingSpecs(scope, encoding, context = {}) {
  encodingKinds(encoding);
  if (!Array.isArray(encoding)) return [encodingSpec(scope, encoding, context).spec];
  return encoding.map((e, i) => encodingSpec(scope, e, { ...context, field: `encoding[${i}]` }).spec);
}

// `encoding` must be an object (callers pass {kind: 'none'} for an omitted one); headDim and heads
// come from the call (rope's headDim is the attention's; scalar biases default to its heads).
export function encodingSpec(scope, encoding, { headDim, heads, field = 'encoding' } = {}) {
  const kind = encodingKind(encoding, field);
  const e = encoding;
  const s = blank();
  s.kind = ENCODING_KINDS.indexOf(kind);
  const f = (name) => `${field}.${name}`;
  switch (kind) {
    case 'none': break;
    case 'rope':
      s.rope = ropeSpecOnHeap(scope, ropeSpec(e, { prefix: `${field}.`, where: field, headDim, headDimOf: "the attention's headDim" }));
      s.ropeLayout = v.oneOf(e.layout, f('layout'), ROPE_LAYOUTS, 'half');
      break;
    case 'alibi':
      s.heads = v.positive(e.heads ?? heads, f('heads'));
      [s.slopes, s.slopesLength] = table(scope, e.slopes, f('slopes'), false);
      s.symmetric = v.boolean(e.symmetric, f('symmetric'), false);
      break;
    case 't5':
      s.heads = v.positive(e.heads ?? heads, f('heads'));
      [s.table, s.tableLength] = table(scope, e.table, f('table'), true);
      s.bidirectional = v.boolean(e.bidirectional, f('bidirectional'), true);
      s.numBuckets = e.numBuckets === undefined ? 32 : v.positive(e.numBuckets, f('numBuckets'));
      s.maxDistance = e.maxDistance === undefined ? 128 : v.positive(e.maxDistance, f('maxDistance'));
      break;
    case 'swin': {
      s.heads = v.positive(e.heads ?? heads, f('heads'));
      [s.table, s.tableLength] = table(scope, e.table, f('table'), true);
      const ws = e.windowSize;
      if (!Array.isArray(ws) || ws.length !== 2) throw new TypeError(`${f('windowSize')} must be [wh, ww] (got ${v.describe(ws)})`);
      s.windowH = v.positive(ws[0], f('windowSize[0]'));
      s.windowW = v.positive(ws[1], f('windowSize[1]'));
      break;
    }
    case 'shaw':
      s.clip = v.integer(e.clip, f('clip'));
      [s.keyTable, s.keyTableLength] = table(scope, e.keyTable, f('keyTable'), true);
      [s.valueTable, s.valueTableLength] = table(scope, e.valueTable, f('valueTable'), false);
      break;
    case 'xl':
      [s.u, s.uLength] = table(scope, e.u, f('u'), true);
      [s.v, s.vLength] = table(scope, e.v, f('v'), true);
      [s.r, s.rLength] = table(scope, e.r, f('r'), false);
      [s.wR, s.wRLength] = table(scope, e.wR, f('wR'), false);
      s.dModel = e.dModel === undefined ? 0 : v.positive(e.dModel, f('dModel'));
      if (!s.rLength && !s.wRLength) throw new TypeError(`${f('r')} (or ${f('wR')} with ${f('dModel')}) is required`);
      break;
    case 'deberta': {
      const terms = e.terms ?? ['c2p', 'p2c'];
      if (!Array.isArray(terms) || terms.some((t) => t !== 'c2p' && t !== 'p2c'))
        throw new RangeError(`${f('terms')} must be an array of 'c2p' and/or 'p2c' (got ${v.describe(terms)})`);
      s.c2p = terms.includes('c2p');
      s.p2c = terms.includes('p2c');
      [s.posKey, s.posKeyLength] = table(scope, e.posKey, f('posKey'), s.c2p);
      [s.posQuery, s.posQueryLength] = table(scope, e.posQuery, f('posQuery'), s.p2c);
      s.span = v.positive(e.span, f('span'));
      s.bucketSize = e.bucketSize === undefined ? 256 : v.nonNegative(e.bucketSize, f('bucketSize'));
      s.maxPosition = e.maxPosition === undefined ? 512 : v.positive(e.maxPosition, f('maxPosition'));
      s.convention = v.oneOf(e.convention, f('convention'), DEBERTA_CONVENTIONS, 'hf');
      break;
    }
    case 'relativeKey':
      [s.table, s.tableLength] = table(scope, e.table, f('table'), true);
      s.maxPosition = v.positive(e.maxPosition, f('maxPosition'));
      s.keyQuery = v.boolean(e.keyQuery, f('keyQuery'), false);
      break;
    case 'kerple':
      s.variant = v.oneOf(e.variant, f('variant'), KERPLE_VARIANTS);
      s.heads = v.positive(e.heads ?? heads, f('heads'));
      [s.r1, s.r1Length] = table(scope, e.r1, f('r1'), true);
      [s.r2, s.r2Length] = table(scope, e.r2, f('r2'), true);
      break;
    case 'fire':
      s.heads = v.positive(e.heads ?? heads, f('heads'));
      s.hidden = v.positive(e.hidden, f('hidden'));
      [s.w1, s.w1Length] = table(scope, e.w1, f('w1'), true);
      [s.b1, s.b1Length] = table(scope, e.b1, f('b1'), true);
      [s.w2, s.w2Length] = table(scope, e.w2, f('w2'), true);
      [s.b2, s.b2Length] = table(scope, e.b2, f('b2'), true);
      s.c = v.optionalNumber(e.c, f('c'), 1);
      s.L = v.optionalNumber(e.L, f('L'), 0);
      s.eps = v.optionalNumber(e.eps, f('eps'), 1e-6);
      break;
    case 'temperature':
      s.tempBeta = v.number(e.beta, f('beta'));
      s.tempLength = v.positive(e.length, f('length'));
      s.tempOffset = e.offset === undefined ? 0 : v.nonNegative(e.offset, f('offset'));
      break;
    case 'cope':
      s.npos = v.positive(e.npos, f('npos'));
      [s.embeddings, s.embeddingsLength] = table(scope, e.embeddings, f('embeddings'), true);
      break;
  }
  return { kind, spec: s };
}
