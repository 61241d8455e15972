// Options for RoPE: type checks, and reading a Hugging Face config.json (defaults and value rules are
// the C++ core's: src/registry.cpp, src/rotary/frequencies.cpp).
import * as v from './validate.mjs';
import { OPTIONS, SCALING_TYPES, SCALING_ALIASES, checkOptions, checkValue, choices, entriesOf } from './options.mjs';

const scalingKeys = () => entriesOf('scaling').filter(([key]) => key !== 'type');
const canonicalType = (type) => (typeof type === 'string' && Object.hasOwn(SCALING_ALIASES, type) ? SCALING_ALIASES[type] : type);
const either = (names) => names.map((n) => `'${n}'`).join(' or ');

function factorList(value, field) {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${field} must be an array of numbers (got ${v.describe(value)})`);
  return Array.from(value, (x, i) => v.number(x, `${field}[${i}]`));
}
const given = (x, check) => (x === undefined ? undefined : check(x));

// Checks a scaling object (`field` is how messages name it; `parent` is where rope keys belong) and
// returns what the binding takes: the type's index and the given keys. Each type takes only its own
// keys and needs what Hugging Face's rope validation needs (the registry's `types` and `requiredBy`),
// so a misplaced or forgotten field is an error, not a default.
function checkScaling(value, field, parent) {
  const s = checkOptions(value, 'scaling', { field, prefix: `${field}.`,
    elsewhere: (key) => (Object.hasOwn(OPTIONS.ropeFrequencies.keys, key) ? `it belongs in ${parent}, next to ${field}` : undefined) });
  const type = SCALING_TYPES[v.oneOf(canonicalType(s.type), `${field}.type`, SCALING_TYPES)];
  const out = { type: SCALING_TYPES.indexOf(type) };
  for (const [key, spec] of scalingKeys()) {
    if (s[key] !== undefined && !spec.types.includes(type))
      throw new TypeError(`${field}.${key} does not apply to '${type}' scaling (it belongs to ${either(spec.types)} scaling)`);
  }
  for (const [key, spec] of scalingKeys()) {
    if (s[key] === undefined && spec.requiredBy.includes(type)) throw new RangeError(`${field}.${key} is required by '${type}' scaling`);
  }
  for (const [key, spec] of scalingKeys()) {
    out[key] = given(s[key], (x) => (spec.type === 'ArrayLike<number>' ? factorList : (y, f) => checkValue(spec, y, f))(x, `${field}.${key}`));
  }
  return out;
}

// Validates the rope fields of `o` (whose keys the caller has checked against its own table) and
// returns the object the binding reads into posenc::RopeEncoding: the given keys only (the C++
// structs hold the defaults), choices as their index. `prefix` names nested fields ('encoding.'),
// `where` is the object rope keys live in. When the call already fixes headDim (a tensor shape),
// `headDim` is it and o.headDim must agree.
export function ropeSpec(o, { prefix = '', where = 'options', headDim, headDimOf } = {}) {
  const f = (name) => prefix + name;
  if (o.kind !== undefined) v.oneOf(o.kind, f('kind'), ['rope']);
  let dim = headDim;
  if (o.headDim !== undefined || dim === undefined) {
    const own = v.positive(o.headDim, f('headDim'));
    if (dim !== undefined && own !== dim) throw new RangeError(`${f('headDim')} (${own}) must equal ${headDimOf} (${dim})`);
    dim = own;
  }
  const pick = (key) => given(o[key], (x) => v.oneOf(x, f(key), choices('ropeFrequencies', key)));
  const scaling = given(o.scaling, (x) => checkScaling(x, f('scaling'), where));
  return {
    headDim: dim,
    base: given(o.base, (x) => v.number(x, f('base'))),
    partialRotaryFactor: given(o.partialRotaryFactor, (x) => v.number(x, f('partialRotaryFactor'))),
    scaling,
    seqLen: given(o.seqLen, (x) => v.nonNegative(x, f('seqLen'))),
    convention: pick('convention'),
    multiAxis: pick('multiAxis'),
    sections: given(o.sections, (x) => Array.from(v.int32Array(x, f('sections'), { min: 1 }))),
    mropeInterleaved: given(o.mropeInterleaved, (x) => v.boolean(x, f('mropeInterleaved'))),
    xposScaleBase: given(o.xposScaleBase, (x) => v.number(x, f('xposScaleBase'))),
    layout: pick('layout'),
  };
}

// Reads the RoPE settings of a model's config.json: the reader is the C++ one (src/rotary/hf_config.cpp),
// so JS and C++ read a config identically; this side turns the object back into JSON text first,
// naming any value JSON cannot carry. The result lists only what the config sets.
export function makeRopeConfigFromHF(call) {
  return function ropeConfigFromHF(config, options) {
    const o = checkOptions(options, 'ropeConfigFromHF');
    if (config === null || typeof config !== 'object' || Array.isArray(config) || ArrayBuffer.isView(config))
      throw new TypeError(`config must be a parsed config.json object (got ${v.describe(config)})`);
    if (o.layerType !== undefined && typeof o.layerType !== 'string') throw new TypeError(`layerType must be a string (got ${v.describe(o.layerType)})`);
    const yarnFactor = v.oneOf(o.yarnFactor, 'yarnFactor', YARN_FACTOR_RULES, 'explicit');
    const strict = v.boolean(o.strict, 'strict', false);
    const r = call('ropeConfigFromHF', { config: jsonText(config), layerType: o.layerType, yarnFactor, strict }).value;
    // Not enumerable: spreading the result ({ ...rope, kind: 'rope' }) copies only the rotary options.
    const attention = { ...r.attention, layers: Object.freeze(r.attention.layers.map(Object.freeze)) };
    return Object.defineProperties(r.rope, {
      ignored: { value: Object.freeze(r.ignored.map(Object.freeze)), enumerable: false },
      temperature: { value: r.temperature && Object.freeze(r.temperature), enumerable: false },
      attention: { value: Object.freeze(attention), enumerable: false },
    });
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
