// Options for RoPE: defaults, validation, and reading a Hugging Face config.json.
import * as v from './validate.mjs';

export const SCALING_TYPES = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'];
const SCALING_ALIASES = { default: 'none', su: 'longrope', ntk_aware: 'ntk' };
export const CONVENTIONS = ['hf', 'ggml'];
export const ROPE_LAYOUTS = ['half', 'interleaved'];
export const MULTI_AXIS = ['none', 'mrope', 'axial2d'];

function factorList(value, field) {
  if (value === undefined) return new Float64Array(0);
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${field} must be an array of numbers (got ${v.describe(value)})`);
  const out = new Float64Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = v.number(value[i], `${field}[${i}]`);
  return out;
}

// Validates ropeFrequencies-style options and returns the flat spec the binding takes (factor
// lists stay as Float64Arrays; the caller places them on the heap).
export function ropeSpec(options, field = 'options') {
  const o = v.object(options, field);
  const s = v.object(o.scaling, 'scaling');
  let type = s.type ?? 'none';
  if (typeof type === 'string' && SCALING_ALIASES[type]) type = SCALING_ALIASES[type];
  const scalingType = v.oneOf(type, 'scaling.type', SCALING_TYPES, 'none');
  const needsFactor = scalingType !== 0;
  if (needsFactor && s.factor === undefined && type !== 'longrope') throw new RangeError(`scaling.factor is required by '${type}' scaling`);
  const attentionFactor = s.attentionFactor === undefined || s.attentionFactor === null ? NaN : v.number(s.attentionFactor, 'scaling.attentionFactor');
  return {
    headDim: v.positive(o.headDim, 'headDim'),
    base: v.optionalNumber(o.base, 'base', 10000),
    partialRotaryFactor: v.optionalNumber(o.partialRotaryFactor, 'partialRotaryFactor', 1),
    scalingType,
    factor: v.optionalNumber(s.factor, 'scaling.factor', 1),
    originalMaxPositionEmbeddings: s.originalMaxPositionEmbeddings === undefined ? 0 : v.positive(s.originalMaxPositionEmbeddings, 'scaling.originalMaxPositionEmbeddings'),
    betaFast: v.optionalNumber(s.betaFast, 'scaling.betaFast', 32),
    betaSlow: v.optionalNumber(s.betaSlow, 'scaling.betaSlow', 1),
    mscale: v.optionalNumber(s.mscale, 'scaling.mscale', 1),
    mscaleAllDim: v.optionalNumber(s.mscaleAllDim, 'scaling.mscaleAllDim', 0),
    truncate: v.boolean(s.truncate, 'scaling.truncate', true),
    attentionFactor,
    lowFreqFactor: v.optionalNumber(s.lowFreqFactor, 'scaling.lowFreqFactor', 1),
    highFreqFactor: v.optionalNumber(s.highFreqFactor, 'scaling.highFreqFactor', 4),
    shortFactorList: factorList(s.shortFactor, 'scaling.shortFactor'),
    longFactorList: factorList(s.longFactor, 'scaling.longFactor'),
    seqLen: o.seqLen === undefined ? 0 : v.nonNegative(o.seqLen, 'seqLen'),
    convention: v.oneOf(o.convention, 'convention', CONVENTIONS, 'hf'),
    multiAxis: v.oneOf(o.multiAxis, 'multiAxis', MULTI_AXIS, 'none'),
    sectionsList: o.sections === undefined ? new Int32Array(0) : v.int32Array(o.sections, 'sections', { min: 1 }),
    xposScaleBase: o.xposScaleBase === undefined || o.xposScaleBase === null ? 0 : v.number(o.xposScaleBase, 'xposScaleBase'),
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

const pick = (...values) => values.find((x) => x !== undefined && x !== null);

// Reads the RoPE settings of a model's config.json (parsed). Handles `rope_scaling` (older) and
// `rope_parameters` (newer), `head_dim` vs hidden_size / num_attention_heads, GPT-NeoX `rotary_pct`,
// GPT-J `rotary_dim` (interleaved layout) and nested `text_config`.
export function ropeConfigFromHF(config) {
  const root = v.object(config, 'config');
  const c = root.hidden_size === undefined && root.n_embd === undefined && root.text_config ? v.object(root.text_config, 'config.text_config') : root;
  const params = pick(c.rope_parameters, c.rope_scaling) ?? {};
  if (typeof params !== 'object' || Array.isArray(params)) throw new TypeError(`config.rope_scaling must be an object (got ${v.describe(params)})`);

  const hidden = pick(c.hidden_size, c.n_embd, c.d_model);
  const nHeads = pick(c.num_attention_heads, c.n_head, c.num_heads);
  let headDim = c.head_dim;
  if (headDim === undefined) {
    if (hidden === undefined || nHeads === undefined) throw new RangeError('config needs head_dim, or hidden_size and num_attention_heads');
    v.positive(hidden, 'config.hidden_size');
    v.positive(nHeads, 'config.num_attention_heads');
    if (hidden % nHeads !== 0) throw new RangeError(`config.hidden_size (${hidden}) must be divisible by config.num_attention_heads (${nHeads})`);
    headDim = hidden / nHeads;
  }
  // DeepSeek MLA rotates only qk_rope_head_dim channels of a separate rope head.
  if (c.qk_rope_head_dim !== undefined) headDim = c.qk_rope_head_dim;
  v.positive(headDim, 'config.head_dim');

  let partialRotaryFactor = pick(c.partial_rotary_factor, params.partial_rotary_factor, c.rotary_pct);
  if (partialRotaryFactor === undefined && c.rotary_dim !== undefined) partialRotaryFactor = v.positive(c.rotary_dim, 'config.rotary_dim') / headDim;
  const layout = ['gptj', 'codegen'].includes(c.model_type) ? 'interleaved' : 'half';

  const out = { headDim, base: pick(params.rope_theta, c.rope_theta, c.rotary_emb_base, 10000), layout };
  if (partialRotaryFactor !== undefined) out.partialRotaryFactor = partialRotaryFactor;

  let type = pick(params.rope_type, params.type, 'default');
  if (typeof type !== 'string') throw new TypeError(`config.rope_scaling.rope_type must be a string (got ${v.describe(type)})`);
  if (params.mrope_section !== undefined) {  // Qwen2-VL: M-RoPE sections (t, h, w) over the default schedule
    out.multiAxis = 'mrope';
    out.sections = Array.from(v.int32Array(params.mrope_section, 'config.rope_scaling.mrope_section', { min: 1 }));
    if (type === 'mrope') type = 'default';
  }
  type = SCALING_ALIASES[type] ?? type;
  if (type === 'none') return out;
  if (!SCALING_TYPES.includes(type)) throw new RangeError(`config.rope_scaling.rope_type must be one of ${SCALING_TYPES.filter((t) => t !== 'none').map((t) => `'${t}'`).join(', ')} (got '${type}')`);

  const maxPos = c.max_position_embeddings;
  const original = pick(params.original_max_position_embeddings, c.original_max_position_embeddings);
  const scaling = { type };
  // An explicit factor wins; otherwise (DeepSeek-V3 yarn, Phi-3 longrope) it is max / original.
  let factor = params.factor;
  if (factor === undefined && original !== undefined && maxPos !== undefined) factor = maxPos / original;
  if (factor !== undefined) scaling.factor = factor;
  if (['dynamic', 'yarn', 'llama3', 'longrope'].includes(type)) {
    const L0 = pick(original, maxPos);
    if (L0 === undefined) throw new RangeError(`config needs original_max_position_embeddings (or max_position_embeddings) for '${type}' scaling`);
    scaling.originalMaxPositionEmbeddings = L0;
  }
  const map = {
    beta_fast: 'betaFast', beta_slow: 'betaSlow', mscale: 'mscale', mscale_all_dim: 'mscaleAllDim',
    attention_factor: 'attentionFactor', truncate: 'truncate', low_freq_factor: 'lowFreqFactor',
    high_freq_factor: 'highFreqFactor', short_factor: 'shortFactor', long_factor: 'longFactor',
  };
  for (const [k, name] of Object.entries(map)) if (params[k] !== undefined && params[k] !== null) scaling[name] = params[k];
  out.scaling = scaling;
  return out;
}
