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

// config.json spells every scaling field as the snake_case of its name here (lowFreqFactor: low_freq_factor).
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const pick = (...values) => values.find((x) => x !== undefined && x !== null);

// Reads the RoPE settings of a model's config.json (parsed). Handles `rope_scaling` (older) and
// `rope_parameters` (newer), `head_dim` vs hidden_size / num_attention_heads, GPT-NeoX `rotary_pct`,
// GPT-J `rotary_dim` (interleaved layout) and nested `text_config`.
export function ropeConfigFromHF(config) {
  const root = v.object(config, 'config');
  const c = root.hidden_size === undefined && root.n_embd === undefined && root.text_config ? v.object(root.text_config, 'config.text_config') : root;
  // messages name the key the config actually uses
  const source = `config.${pick(c.rope_parameters) !== undefined ? 'rope_parameters' : 'rope_scaling'}`;
  const params = pick(c.rope_parameters, c.rope_scaling) ?? {};
  if (typeof params !== 'object' || Array.isArray(params)) throw new TypeError(`${source} must be an object (got ${v.describe(params)})`);

  const hiddenKey = ['hidden_size', 'n_embd', 'd_model'].find((k) => pick(c[k]) !== undefined);
  const headsKey = ['num_attention_heads', 'n_head', 'num_heads'].find((k) => pick(c[k]) !== undefined);
  let headDim = c.head_dim, headDimKey = 'head_dim';
  if (headDim === undefined) {
    if (hiddenKey === undefined || headsKey === undefined) throw new RangeError('config needs head_dim, or hidden_size and num_attention_heads');
    const hidden = v.positive(c[hiddenKey], `config.${hiddenKey}`), nHeads = v.positive(c[headsKey], `config.${headsKey}`);
    if (hidden % nHeads !== 0) throw new RangeError(`config.${hiddenKey} (${hidden}) must be divisible by config.${headsKey} (${nHeads})`);
    headDim = hidden / nHeads;
  }
  // DeepSeek MLA rotates only qk_rope_head_dim channels of a separate rope head.
  if (c.qk_rope_head_dim !== undefined) { headDim = c.qk_rope_head_dim; headDimKey = 'qk_rope_head_dim'; }
  v.positive(headDim, `config.${headDimKey}`);

  let partialRotaryFactor = pick(c.partial_rotary_factor, params.partial_rotary_factor, c.rotary_pct);
  if (partialRotaryFactor === undefined && c.rotary_dim !== undefined) partialRotaryFactor = v.positive(c.rotary_dim, 'config.rotary_dim') / headDim;
  const layout = ['gptj', 'codegen'].includes(c.model_type) ? 'interleaved' : 'half';

  // Checked here, naming the config.json key to fix, rather than later under posenc's own names. (null
  // stands for "absent" in rope_scaling, as in Hugging Face; a null theta or rotary fraction is an error.)
  for (const [holder, where] of [[c, 'config'], [params, source]])
    for (const key of ['rope_theta', 'partial_rotary_factor'])
      if (holder[key] === null) throw new TypeError(`${where}.${key} is null: give a number or leave the key out`);
  const baseKey = pick(params.rope_theta) !== undefined ? `${source}.rope_theta` : pick(c.rope_theta) !== undefined ? 'config.rope_theta'
    : pick(c.rotary_emb_base) !== undefined ? 'config.rotary_emb_base' : undefined;
  const base = pick(params.rope_theta, c.rope_theta, c.rotary_emb_base, 10000);
  if (baseKey !== undefined && !(v.number(base, baseKey) > 0 && base !== 1))
    throw new RangeError(`${baseKey} must be a positive number other than 1 (got ${base})`);
  const out = { headDim, base, layout };
  if (partialRotaryFactor !== undefined) {
    const key = pick(c.partial_rotary_factor) !== undefined ? 'config.partial_rotary_factor'
      : pick(params.partial_rotary_factor) !== undefined ? `${source}.partial_rotary_factor` : c.rotary_pct !== undefined ? 'config.rotary_pct' : 'config.rotary_dim';
    if (!(v.number(partialRotaryFactor, key) > 0 && partialRotaryFactor <= 1)) throw new RangeError(`${key} must lie in (0, 1] (got ${partialRotaryFactor})`);
    const R = Math.trunc(headDim * partialRotaryFactor);
    if (R < 2 || R % 2 !== 0) throw new RangeError(`${key} (${partialRotaryFactor}) gives ${R} rotary channels of ${headDim}; they must be even and at least 2`);
    out.partialRotaryFactor = partialRotaryFactor;
  }

  let type = pick(params.rope_type, params.type, 'default');
  if (typeof type !== 'string') throw new TypeError(`${source}.rope_type must be a string (got ${v.describe(type)})`);
  if (params.mrope_section !== undefined) {  // Qwen2-VL: M-RoPE sections (t, h, w) over the default schedule
    out.multiAxis = 'mrope';
    out.sections = Array.from(v.int32Array(params.mrope_section, `${source}.mrope_section`, { min: 1 }));
    if (type === 'mrope') type = 'default';
  }
  type = canonicalType(type);
  if (type === 'none') return out;
  if (!SCALING_TYPES.includes(type)) throw new RangeError(`${source}.rope_type must be one of ${SCALING_TYPES.filter((t) => t !== 'none').map((t) => `'${t}'`).join(', ')} (got '${type}')`);

  // Checked before any arithmetic: a string or an object here would make the factor NaN, or throw an
  // engine error ("Cannot convert object to primitive value") that names no config key.
  const maxPos = pick(c.max_position_embeddings) === undefined ? undefined : v.positive(c.max_position_embeddings, 'config.max_position_embeddings');
  const original = pick(params.original_max_position_embeddings) !== undefined
    ? v.positive(params.original_max_position_embeddings, `${source}.original_max_position_embeddings`)
    : pick(c.original_max_position_embeddings) !== undefined ? v.positive(c.original_max_position_embeddings, 'config.original_max_position_embeddings') : undefined;
  const scaling = { type };
  const applies = (name) => OPTIONS.scaling.keys[name].types.includes(type);
  // An explicit factor wins; otherwise (DeepSeek-V3 yarn, Phi-3 longrope) it is max / original.
  let factor = pick(params.factor) === undefined ? undefined : v.number(params.factor, `${source}.factor`);
  if (factor !== undefined && !(factor >= 1)) throw new RangeError(`${source}.factor must be a number >= 1 (got ${factor})`);
  if (factor === undefined && original !== undefined && maxPos !== undefined) {
    factor = maxPos / original;
    if (!(factor >= 1)) throw new RangeError(`config.max_position_embeddings (${maxPos}) must be at least original_max_position_embeddings (${original}): their ratio is the scaling factor`);
  }
  if (factor !== undefined) scaling.factor = factor;
  if (applies('originalMaxPositionEmbeddings')) {
    const L0 = pick(original, maxPos);
    if (L0 === undefined) throw new RangeError(`config needs original_max_position_embeddings (or max_position_embeddings) for '${type}' scaling`);
    scaling.originalMaxPositionEmbeddings = L0;
  }
  // Only the fields this type uses are copied: Hugging Face just warns about the others, and the
  // result must pass ropeFrequencies' strict checks.
  for (const [name, spec] of SCALING_KEYS) {
    if (!(name in scaling) && pick(params[snake(name)]) !== undefined && applies(name)) {
      const value = params[snake(name)];
      // factor lists are copied into plain arrays (the result is data, like the config it came from)
      scaling[name] = spec.type === 'ArrayLike<number>' ? Array.from(factorList(value, `${source}.${snake(name)}`)) : value;
    }
  }
  for (const [name, spec] of SCALING_KEYS) {
    if (scaling[name] === undefined && spec.requiredBy.includes(type)) throw new RangeError(`${source}.${snake(name)} is required by '${type}' scaling`);
  }
  out.scaling = scaling;
  return out;
}
