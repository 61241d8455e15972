// Options for RoPE: defaults, validation, and reading a Hugging Face config.json.
import * as v from './validate.mjs';
import { OPTIONS, SCALING_TYPES, SCALING_ALIASES, CONVENTIONS, ROPE_LAYOUTS, MULTI_AXIS, checkOptions } from './options.mjs';

export { SCALING_TYPES, CONVENTIONS, ROPE_LAYOUTS, MULTI_AXIS };

const SCALING_KEYS = Object.entries(OPTIONS.scaling.keys).filter(([key]) => key !== 'type');
const canonicalType = (type) => (typeof type === 'string' && Object.hasOwn(SCALING_ALIASES, type) ? SCALING_ALIASES[type] : type);
const either = (names) => names.map((n) => `'${n}'`).join(' or ');

function factorList(value, field) {
  if (value === undefined) return new Float64Array(0);
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${field} must be an array of numbers (got ${v.describe(value)})`);
  const out = new Float64Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = v.number(value[i], `${field}[${i}]`);
  return out;
}

// Checks a scaling object (`field` is how messages name it; `parent` is where rope keys belong) and
// returns it with its canonical type. Each type takes only its own keys and needs what Hugging
// Face's rope validation needs, so a misplaced or forgotten field is an error, not a default.
function checkScaling(value, field, parent) {
  const s = checkOptions(value, 'scaling', { field, prefix: `${field}.`,
    elsewhere: (key) => (Object.hasOwn(OPTIONS.ropeFrequencies.keys, key) ? `it belongs in ${parent}, next to ${field}` : undefined) });
  const type = SCALING_TYPES[v.oneOf(canonicalType(s.type), `${field}.type`, SCALING_TYPES)];
  for (const [key, spec] of SCALING_KEYS) {
    if (s[key] !== undefined && !spec.types.includes(type))
      throw new TypeError(`${field}.${key} does not apply to '${type}' scaling (it belongs to ${either(spec.types)} scaling)`);
  }
  for (const [key, spec] of SCALING_KEYS) {
    if (s[key] === undefined && spec.requiredBy.includes(type)) throw new RangeError(`${field}.${key} is required by '${type}' scaling`);
  }
  return { s, type };
}

// Validates the rope fields of `o` (whose keys the caller has checked against its own table) and
// returns the flat spec the binding takes; factor lists stay Float64Arrays for the caller to place
// on the heap. `prefix` names nested fields ('encoding.'), `where` is the object rope keys live in.
// When the call already fixes headDim (a tensor shape), `headDim` is it and o.headDim must agree.
export function ropeSpec(o, { prefix = '', where = 'options', headDim, headDimOf } = {}) {
  const f = (name) => prefix + name;
  if (o.kind !== undefined) v.oneOf(o.kind, f('kind'), ['rope']);
  let dim = headDim;
  if (o.headDim !== undefined || dim === undefined) {
    const own = v.positive(o.headDim, f('headDim'));
    if (dim !== undefined && own !== dim) throw new RangeError(`${f('headDim')} (${own}) must equal ${headDimOf} (${dim})`);
    dim = own;
  }
  const { s, type } = o.scaling === undefined ? { s: {}, type: 'none' } : checkScaling(o.scaling, f('scaling'), where);
  const sf = (name) => f(`scaling.${name}`);
  return {
    headDim: dim,
    base: v.optionalNumber(o.base, f('base'), 10000),
    partialRotaryFactor: v.optionalNumber(o.partialRotaryFactor, f('partialRotaryFactor'), 1),
    scalingType: SCALING_TYPES.indexOf(type),
    factor: v.optionalNumber(s.factor, sf('factor'), 1),
    originalMaxPositionEmbeddings: s.originalMaxPositionEmbeddings === undefined ? 0 : v.positive(s.originalMaxPositionEmbeddings, sf('originalMaxPositionEmbeddings')),
    betaFast: v.optionalNumber(s.betaFast, sf('betaFast'), 32),
    betaSlow: v.optionalNumber(s.betaSlow, sf('betaSlow'), 1),
    mscale: v.optionalNumber(s.mscale, sf('mscale'), 1),
    mscaleAllDim: v.optionalNumber(s.mscaleAllDim, sf('mscaleAllDim'), 0),
    truncate: v.boolean(s.truncate, sf('truncate'), true),
    attentionFactor: v.optionalNumber(s.attentionFactor, sf('attentionFactor'), NaN),
    lowFreqFactor: v.optionalNumber(s.lowFreqFactor, sf('lowFreqFactor'), 1),
    highFreqFactor: v.optionalNumber(s.highFreqFactor, sf('highFreqFactor'), 4),
    shortFactorList: factorList(s.shortFactor, sf('shortFactor')),
    longFactorList: factorList(s.longFactor, sf('longFactor')),
    seqLen: o.seqLen === undefined ? 0 : v.nonNegative(o.seqLen, f('seqLen')),
    convention: v.oneOf(o.convention, f('convention'), CONVENTIONS, 'hf'),
    multiAxis: v.oneOf(o.multiAxis, f('multiAxis'), MULTI_AXIS, 'none'),
    sectionsList: o.sections === undefined ? new Int32Array(0) : v.int32Array(o.sections, f('sections'), { min: 1 }),
    mropeInterleaved: v.boolean(o.mropeInterleaved, f('mropeInterleaved'), false),
    xposScaleBase: v.optionalNumber(o.xposScaleBase, f('xposScaleBase'), 0),
  };
}

// Places a spec's factor lists on the heap and returns the object Embind's RopeSpec expects.
export function ropeSpecOnHeap(scope, spec) {
  const { shortFactorList, longFactorList, sectionsList, ...rest } = spec;
  return {
    ...rest,
    sections: scope.i32(sectionsList, 'sections'),
    sectionsLength: sectionsList.length,
    shortFactor: scope.f64(shortFactorList, 'scaling.shortFactor'),
    longFactor: scope.f64(longFactorList, 'scaling.longFactor'),
    shortFactorLength: shortFactorList.length,
    longFactorLength: longFactorList.length,
  };
}

// Reads the RoPE settings of a model's config.json: the reader is the C++ one (src/rotary/hf_config.cpp),
// so JS and C++ read a config identically; this side turns the object back into JSON text first,
// naming any value JSON cannot carry. The result lists only what the config sets.
export function makeRopeConfigFromHF(m, check) {
  return function ropeConfigFromHF(config, options) {
    const o = checkOptions(options, 'ropeConfigFromHF');
    if (config === null || typeof config !== 'object' || Array.isArray(config) || ArrayBuffer.isView(config))
      throw new TypeError(`config must be a parsed config.json object (got ${v.describe(config)})`);
    if (o.layerType !== undefined && typeof o.layerType !== 'string') throw new TypeError(`layerType must be a string (got ${v.describe(o.layerType)})`);
    const layerType = o.layerType ?? '';
    const yarnFactor = v.oneOf(o.yarnFactor, 'yarnFactor', YARN_FACTOR_RULES, 'explicit');
    const strict = v.boolean(o.strict, 'strict', false);
    const out = {}, meta = {};
    check(m, m.ropeConfigFromHF(jsonText(config), layerType, yarnFactor, strict, out, meta));
    // Not enumerable: spreading the result ({ ...rope, kind: 'rope' }) copies only the rotary options.
    const ignored = meta.ignored.map(({ key, value, reason }) => Object.freeze({ key, value: JSON.parse(value), reason }));
    const attention = { ...meta.attention, layers: meta.attention.layers.map((l) => Object.freeze({ ...l })) };
    Object.freeze(attention.layers);
    Object.defineProperties(out, {
      ignored: { value: Object.freeze(ignored), enumerable: false },
      temperature: { value: meta.temperature && Object.freeze({ ...meta.temperature }), enumerable: false },
      attention: { value: Object.freeze(attention), enumerable: false },
    });
    return out;
  };
}

export const YARN_FACTOR_RULES = ['explicit', 'legacy'];

// JSON.stringify would turn NaN and Infinity into null (read as "absent"), drop functions and
// throw on BigInt or cycles without naming the key: each is an error naming its path here.
function jsonText(config) {
  const seen = new Set();
  const walk = (x, path) => {
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) throw new RangeError(`${path} must be a finite number (got ${x})`);
    } else if (typeof x === 'bigint' || typeof x === 'function' || typeof x === 'symbol') {
      throw new TypeError(`${path} must be a JSON value (got a ${typeof x})`);
    } else if (x !== null && typeof x === 'object') {
      if (seen.has(x)) throw new TypeError(`${path} refers back to itself: a config.json cannot`);
      seen.add(x);
      if (Array.isArray(x) || ArrayBuffer.isView(x)) Array.from(x).forEach((e, i) => walk(e, `${path}[${i}]`));
      else for (const [k, e] of Object.entries(x)) walk(e, `${path}.${k}`);
      seen.delete(x);
    }
  };
  walk(config, 'config');
  return JSON.stringify(config, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x));
}
