// The known keys of every options object the JS API takes: one table per object. The tables drive
// the strict checks below (an unknown key, a null or a missing required key is a TypeError naming
// it), and tests/node/strict-options.test.mjs holds each one equal to its interface in index.d.ts,
// so the code, the declarations and the docs cannot list different keys.
//
// A table is { interface, keys }: `interface` names its declaration in index.d.ts, and each key is
// { type, required?, default?, doc? }. Types are spelt as in index.d.ts ('integer' is a number
// that must be an integer); an array of strings is the closed set of choices, in the order the
// binding numbers them. Scaling keys also say which scaling types use them (`types`) and which
// require them (`requiredBy`): RopeScaling is one object whose valid keys depend on its `type`.
import * as v from './validate.mjs';

export const ENCODING_KINDS = ['none', 'rope', 'alibi', 't5', 'swin', 'shaw', 'xl', 'deberta', 'relativeKey', 'kerple', 'fire', 'cope', 'temperature'];
export const SCALING_TYPES = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'];
export const SCALING_ALIASES = Object.freeze({ default: 'none', su: 'longrope', ntk_aware: 'ntk' });
export const CONVENTIONS = ['hf', 'ggml'];
export const ROPE_LAYOUTS = ['half', 'interleaved'];
export const MULTI_AXIS = ['none', 'mrope', 'axial2d'];

const opt = (type, doc, dflt) => ({ type, ...(doc && { doc }), ...(dflt !== undefined && { default: dflt }) });
const req = (type, doc) => ({ type, required: true, ...(doc && { doc }) });
const OUT = opt('FloatOut', 'write the result here instead of allocating');

// Everything that describes a rotary encoding. headDim is required only by ropeFrequencies; where
// the call already fixes it (applyRope's shape, attention, the cache) a given headDim must agree.
const ROPE = {
  headDim: opt('integer', 'channels per head'),
  base: opt('number', 'rotary base θ', 10000),
  partialRotaryFactor: opt('number', 'fraction of the head channels that rotate', 1),
  scaling: opt('RopeScaling', 'frequency schedule for longer contexts'),
  seqLen: opt('integer', 'sequence length: dynamic NTK and longrope choose their frequencies by it'),
  convention: opt(CONVENTIONS, "whose formulas to follow where Hugging Face and ggml differ", 'hf'),
  multiAxis: opt(MULTI_AXIS, 'several position axes; positions become [axes, tokens]', 'none'),
  sections: opt('IntInput', 'M-RoPE pairs per axis (t, h, w), summing to rotaryDim/2'),
  mropeInterleaved: opt('boolean', "M-RoPE pairs assigned to t, h, w round-robin (Qwen3-VL), not in contiguous sections", false),
  xposScaleBase: opt('number', 'xPos scale base γ (e.g. 512): pair k of a query at position p scales by ζ_k^(p/γ) < 1, of a key by ζ_k^(−p/γ)'),
  // Accepted by ropeFrequencies too, so that ropeConfigFromHF's result can be passed as it is.
  layout: opt(ROPE_LAYOUTS, 'which channels pair up (ropeFrequencies ignores it)', 'half'),
};
// Outside an encoding, `kind` may still be given (as 'rope'), so one rope encoding object works anywhere.
const ROPE_ANYWHERE = { ...ROPE, kind: opt(['rope'], "only 'rope': lets a rope encoding be passed as it is") };

const ALL_SCALED = SCALING_TYPES.slice(1);
const scalingKey = (type, doc, types, requiredBy = [], dflt) => ({ ...opt(type, doc, dflt), types, requiredBy });

const SCALING = {
  type: req([...SCALING_TYPES, ...Object.keys(SCALING_ALIASES)], "the schedule ('default' = 'none', 'su' = 'longrope', 'ntk_aware' = 'ntk')"),
  factor: scalingKey('number', 'context extension factor (>= 1)', ALL_SCALED, ['linear', 'ntk', 'dynamic', 'yarn', 'llama3']),
  // Hugging Face falls back to config.max_position_embeddings; these options have no such field.
  originalMaxPositionEmbeddings: scalingKey('integer', 'the context length the model was trained on',
    ['dynamic', 'yarn', 'llama3', 'longrope'], ['dynamic', 'yarn', 'llama3', 'longrope']),
  betaFast: scalingKey('number', 'YaRN: rotations above which pairs keep their frequency', ['yarn'], [], 32),
  betaSlow: scalingKey('number', 'YaRN: rotations below which pairs are interpolated', ['yarn'], [], 1),
  mscale: scalingKey('number', 'YaRN attention-scale coefficient (DeepSeek)', ['yarn'], [], 1),
  mscaleAllDim: scalingKey('number', 'YaRN: mscale of the divisor of the attention scale (DeepSeek)', ['yarn'], []),
  attentionFactor: scalingKey('number', 'explicit attention scale instead of the derived one', ['yarn', 'longrope']),
  truncate: scalingKey('boolean', 'YaRN: floor/ceil the correction range', ['yarn'], [], true),
  lowFreqFactor: scalingKey('number', 'llama3: wavelengths above original/lowFreqFactor are interpolated', ['llama3'], ['llama3']),
  highFreqFactor: scalingKey('number', 'llama3: wavelengths below original/highFreqFactor are kept', ['llama3'], ['llama3']),
  shortFactor: scalingKey('ArrayLike<number>', 'longrope: per-pair divisors up to originalMaxPositionEmbeddings', ['longrope'], ['longrope']),
  longFactor: scalingKey('ArrayLike<number>', 'longrope: per-pair divisors beyond it', ['longrope'], ['longrope']),
};

const HEADS = opt('integer', "heads of the bias (default: the call's heads)");
const encoding = (kind, iface, keys) => ({ interface: iface, keys: { kind: req([kind], 'which encoding'), ...keys } });
const table = (iface, keys) => ({ interface: iface, keys });

const SINE = {
  height: req('integer'),
  width: req('integer'),
  numPosFeats: opt('integer', 'channels per axis', 64),
  temperature: opt('number', 'wavelength base', 10000),
  normalize: opt('boolean', 'scale the cumulative positions to [0, scale]', false),
  scale: opt('number', 'range after normalize', 2 * Math.PI),
  mask: opt('MaskInput', '1 = valid cell (HF polarity)'),
  out: OUT,
};

const TABLES = {
  sinusoidal: { interface: 'SinusoidalOptions', keys: {
    dim: req('integer', 'width of each row'),
    base: opt('number', 'wavelength base', 10000),
    layout: opt(['interleaved', 'concat', 'tensor2tensor'], 'channel order', 'interleaved'),
    paddingIdx: opt('integer', "that position's row is zeros (fairseq; pair with positionIds style 'roberta')"),
    out: OUT,
  } },
  learned: { interface: 'LearnedOptions', keys: {
    table: req('FloatInput', '[rows, dim]'),
    dim: req('integer'),
    outOfRange: opt(['error', 'clamp', 'interpolate'], 'what a position past the table does', 'error'),
    interpolateTo: opt('integer', "rows to stretch the table to (outOfRange 'interpolate')"),
    out: OUT,
  } },
  positionIds: { interface: 'PositionIdsOptions', keys: {
    batch: opt('integer', 'rows of the mask', 1),
    length: opt('integer', 'tokens per row (default: mask length / batch)'),
    style: opt(['hf', 'roberta'], "'hf' = cumsum − 1 + past; 'roberta' = (cumsum + past)·mask + paddingIdx", 'hf'),
    paddingIdx: opt('integer', "style 'roberta': the padding position", 1),
    past: opt('integer', 'tokens already seen', 0),
  } },
  nextPositions: { interface: 'NextPositionsOptions', keys: {
    batch: opt('integer', 'rows of the mask', 1),
    length: opt('integer', 'tokens per row (default: mask length / batch)'),
    past: opt('integer', 'tokens already seen', 0),
  } },
  modalityPositions: { interface: 'ModalityPositionsOptions', keys: {
    offsets: req('IntInput', 'first position of each modality'),
    lengths: opt('IntInput', 'positions reserved per modality'),
  } },
  binary: { interface: 'BinaryOptions', keys: {
    bits: req('integer', 'digits per code'),
    dim: opt('integer', 'output width (default: bits)'),
    code: opt(['binary', 'gray'], 'digit code', 'binary'),
    radix: opt('integer', 'digit base', 2),
    table: opt('FloatInput', 'learned vectors [bits, radix, dim] (default: ±1 digits)'),
    out: OUT,
  } },
  codeDistance: { interface: 'CodeDistanceOptions', keys: {
    bits: req('integer', 'digits per code'),
    code: opt(['binary', 'gray'], 'digit code', 'binary'),
    radix: opt('integer', 'digit base', 2),
  } },
  lowRank: { interface: 'LowRankOptions', keys: {
    coefficients: req('FloatInput', '[positions, rank]'),
    basis: req('FloatInput', '[rank, dim]'),
    rank: req('integer'),
    dim: req('integer'),
    out: OUT,
  } },
  sparse: { interface: 'SparseOptions', keys: {
    indices: req('IntInput', 'k basis rows per position'),
    values: req('FloatInput', 'their weights, like indices'),
    k: req('integer', 'nonzeros per position'),
    basis: req('FloatInput', '[basisSize, dim]'),
    dim: req('integer'),
    out: OUT,
  } },
  randomFeatures: { interface: 'RandomFeaturesOptions', keys: {
    dim: req('integer'),
    seed: opt('integer', 'the features are a function of the seed', 0),
    kind: opt(['fourier', 'mlp'], 'feature map', 'fourier'),
    sigma: opt('number', 'frequency spread', 1),
    scale: opt('number', 'position scale', 1),
    hidden: opt('integer', "kind 'mlp': hidden width", 64),
    out: OUT,
  } },
  axial: { interface: 'AxialOptions', keys: {
    shape: req('IntInput', 'axis sizes [s0, s1, ...]'),
    tables: req('FloatInput[]', 'one [s_a, d_a] table per axis'),
    dims: req('IntInput', 'width of each axis table'),
    combine: opt(['concat', 'sum'], 'how the axis vectors combine', 'concat'),
    out: OUT,
  } },
  twoLevel: { interface: 'TwoLevelOptions', keys: {
    segmentTable: req('FloatInput', '[segments, segmentDim]'),
    innerTable: req('FloatInput', '[positions in a segment, innerDim]'),
    segmentDim: req('integer'),
    innerDim: req('integer'),
    combine: opt(['concat', 'sum'], 'how the two vectors combine', 'concat'),
    out: OUT,
  } },
  sine2d: { interface: 'Sine2dOptions', keys: SINE },
  sine3d: { interface: 'Sine3dOptions', keys: { frames: req('integer'), ...SINE } },
  resizeGrid: { interface: 'ResizeGridOptions', keys: {
    from: req('[number, number]', 'grid size [h, w]'),
    to: req('[number, number]', 'new size [h, w]'),
    dim: req('integer'),
    mode: opt(['bicubic', 'bilinear'], 'interpolation', 'bicubic'),
    mapping: opt(['size', 'scaleFactor'], "how output cells map to input cells (timm 'size', DINO 'scaleFactor')", 'size'),
    prefixTokens: opt('integer', 'rows before the grid (CLS, ...), copied unchanged', 0),
    out: OUT,
  } },
  t5Bucket: { interface: 'T5BucketOptions', keys: {
    bidirectional: opt('boolean', 'keys after the query get their own buckets', true),
    numBuckets: opt('integer', undefined, 32),
    maxDistance: opt('integer', 'distances beyond share the last bucket', 128),
  } },
  debertaBucket: { interface: 'DebertaBucketOptions', keys: {
    bucketSize: req('integer', '0 = no log bucketing'),
    maxPosition: req('integer'),
    convention: opt(['hf', 'microsoft'], 'they differ beyond maxPosition', 'hf'),
  } },

  ropeFrequencies: { interface: 'RopeOptions', keys: { ...ROPE_ANYWHERE, headDim: req('integer', 'channels per head') } },
  applyRope: { interface: 'ApplyRopeOptions', keys: {
    ...ROPE_ANYWHERE,
    inPlace: opt('boolean', 'rotate x where it lies', false),
    out: OUT,
  } },
  shape: table('HeadsShape', {
    heads: req('integer'),
    tokens: req('integer'),
    headDim: req('integer'),
  }),
  scaling: { interface: 'RopeScaling', keys: SCALING },
  ropeConfigFromHF: { interface: 'HfConfigOptions', keys: {
    layerType: opt('string', "which rotary table of a config with one per layer type (Gemma 3: 'full_attention' | 'sliding_attention')"),
    yarnFactor: opt(['explicit', 'legacy'], 'YaRN factor rule: the factor field, or max/original positions (transformers 4.46–4.50)', 'explicit'),
    strict: opt('boolean', "refuse keys the model type's Hugging Face code ignores (default: ignore and list them in `ignored`)", false),
  } },

  attention: { interface: 'AttentionArgs', keys: {
    q: req('FloatInput', '[heads, qLen, headDim]'),
    k: req('FloatInput', '[kvHeads, kLen, headDim]'),
    v: req('FloatInput', '[kvHeads, kLen, headDim]'),
    heads: req('integer'),
    kvHeads: opt('integer', 'fewer than heads: grouped-query attention (default: heads)'),
    headDim: req('integer'),
    qLen: req('integer'),
    kLen: req('integer'),
    qPositions: opt('IntInput', 'default: the last qLen key positions'),
    kPositions: opt('IntInput', 'default: 0 … kLen−1; [axes, kLen] with multi-axis rope'),
    maskPositions: opt('IntInput', 'multi-axis rope: [kLen] sequence index masks and score terms use (queries: the last qLen); default 0 … kLen−1'),
    causal: opt('boolean', undefined, false),
    window: opt('integer', 'admit a key when 0 ≤ qPos − kPos < window'),
    keyMask: opt('MaskInput', '[kLen], 1 = attend'),
    scale: opt('number', 'multiplies the content terms (default: per encoding)'),
    encoding: opt('Encoding', "position terms (default: { kind: 'none' })"),
    returnWeights: opt('boolean', undefined, false),
    returnScores: opt('boolean', 'the final pre-softmax logits', false),
    out: OUT,
  } },
  'encoding.none': encoding('none', 'NoneEncoding', {}),
  'encoding.rope': encoding('rope', 'RopeEncoding', ROPE),
  'encoding.alibi': encoding('alibi', 'AlibiEncoding', {
    heads: HEADS,
    slopes: opt('FloatInput', 'one per head (default: alibiSlopes(heads))'),
    symmetric: opt('boolean', '−m·|i − j| instead of −m·(i − j)', false),
  }),
  'encoding.t5': encoding('t5', 'T5Encoding', {
    heads: HEADS,
    table: req('FloatInput', '[numBuckets, heads]'),
    bidirectional: opt('boolean', undefined, true),
    numBuckets: opt('integer', undefined, 32),
    maxDistance: opt('integer', undefined, 128),
  }),
  'encoding.swin': encoding('swin', 'SwinEncoding', {
    heads: HEADS,
    table: req('FloatInput', '[(2wh−1)(2ww−1), heads]'),
    windowSize: req('[number, number]', '[wh, ww]'),
  }),
  'encoding.shaw': encoding('shaw', 'ShawEncoding', {
    clip: req('integer', 'K: relative distances are clipped to [−K, K]'),
    keyTable: req('FloatInput', '[2K+1, headDim]'),
    valueTable: opt('FloatInput', '[2K+1, headDim], added to the values'),
  }),
  'encoding.xl': encoding('xl', 'XLEncoding', {
    u: req('FloatInput', '[heads, headDim] content bias'),
    v: req('FloatInput', '[heads, headDim] position bias'),
    r: opt('FloatInput', '[heads, distances, headDim], row δ = W_R·R_δ'),
    wR: opt('FloatInput', 'W_R, to project the sinusoid R in the core (with dModel)'),
    dModel: opt('integer', 'model width of W_R'),
  }),
  'encoding.deberta': encoding('deberta', 'DebertaEncoding', {
    posKey: opt('FloatInput', "[heads, 2·span, headDim]; required by term 'c2p'"),
    posQuery: opt('FloatInput', "[heads, 2·span, headDim]; required by term 'p2c'"),
    span: req('integer'),
    bucketSize: opt('integer', '0 = no log bucketing', 256),
    maxPosition: opt('integer', undefined, 512),
    convention: opt(['hf', 'microsoft'], undefined, 'hf'),
    terms: opt("Array<'c2p' | 'p2c'>", 'position terms', ['c2p', 'p2c']),
  }),
  'encoding.relativeKey': encoding('relativeKey', 'RelativeKeyEncoding', {
    table: req('FloatInput', '[2·maxPosition − 1, headDim]'),
    maxPosition: req('integer'),
    keyQuery: opt('boolean', 'also add k_j·E (relative_key_query)', false),
  }),
  'encoding.kerple': encoding('kerple', 'KerpleEncoding', {
    variant: req(['log', 'power'], 'log: −r1·log(1 + r2·|i − j|); power: −r1·|i − j|^r2'),
    heads: HEADS,
    r1: req('FloatInput', '[heads], each > 0'),
    r2: req('FloatInput', '[heads], each > 0 (≤ 2 for power)'),
  }),
  'encoding.fire': encoding('fire', 'FireEncoding', {
    heads: HEADS,
    hidden: req('integer', 'width of the MLP'),
    w1: req('FloatInput', '[hidden]: Linear(1, hidden).weight'),
    b1: req('FloatInput', '[hidden]'),
    w2: req('FloatInput', '[heads, hidden]: Linear(hidden, heads).weight, row h = head h'),
    b2: req('FloatInput', '[heads]'),
    c: opt('number', 'ψ(x) = log(c·x + 1)', 1),
    L: opt('number', 'the normaliser ψ(max(L, i)) floor', 0),
    eps: opt('number', 'added to the normaliser', 1e-6),
  }),
  'encoding.cope': encoding('cope', 'CopeEncoding', {
    npos: req('integer', 'position embeddings; positions clamp to npos − 1'),
    embeddings: req('FloatInput', '[npos, headDim], row p = e[p], shared by every head'),
  }),

  'encoding.temperature': encoding('temperature', 'TemperatureEncoding', {
    beta: req('number', 'queries × (1 + beta·ln(1 + ⌊(p + offset)/length⌋)) at their positions p'),
    length: req('integer', 'positions per step of the floor (Ministral 3: original_max_position_embeddings; Llama 4: floor_scale)'),
    offset: opt('integer', 'added to the position before the floor (Llama 4: 1)', 0),
  }),

  KVCache: { interface: 'KVCacheOptions', keys: {
    batch: opt('integer', undefined, 1),
    kvHeads: req('integer'),
    headDim: req('integer'),
    capacity: req('integer', 'slots per row'),
    window: opt('integer', 'keep only the last window tokens (ring buffer) after the sinks'),
    sinks: opt('integer', 'first tokens that are always kept', 0),
    rope: opt('KVCacheRope', 'rotates keys at their logical positions'),
    dynamic: opt(['fixed', 'hf'], "dynamic NTK: 'fixed' keeps the configured schedule; 'hf' re-derives it as the cache grows (as Hugging Face)", 'fixed'),
  } },
  'KVCache.rope': { interface: 'KVCacheRope', keys: ROPE_ANYWHERE },
  'KVCache.append': { interface: 'AppendOptions', keys: {
    positions: opt('IntInput', "[batch·T] (default: each row's next positions); [batch, axes, T] with multi-axis rope"),
    mask: opt('MaskInput', '[batch·T], 1 = real token'),
    maskPositions: opt('IntInput', "multi-axis rope: [batch·T] sequence index each slot keeps (default: each row's next positions)"),
  } },
  'KVCache.attend': { interface: 'AttendOptions', keys: {
    heads: req('integer'),
    encoding: opt('Encoding', 'score terms on top of the cache rope'),
    qPositions: opt('IntInput', "[batch·qLen] (default: each row's last qLen positions); [batch, axes, qLen] with multi-axis rope"),
    maskPositions: opt('IntInput', "multi-axis rope: [batch·qLen] sequence index of each query (default: each row's last qLen)"),
    causal: opt('boolean', undefined, true),
    scale: opt('number', 'multiplies the content terms'),
    out: OUT,
  } },

  // parameterCount: the shapes of each method's learned tables (fixed functions learn none).
  'parameterCount.sinusoidal': table(null, {}),
  'parameterCount.rope': table(null, {}),
  'parameterCount.temperature': table(null, {}),
  'parameterCount.alibi': table(null, {}),
  'parameterCount.sine2d': table(null, {}),
  'parameterCount.sine3d': table(null, {}),
  'parameterCount.randomFeatures': table(null, {}),
  'parameterCount.learned': table('LearnedShape', { maxPositions: req('integer'), dim: req('integer') }),
  'parameterCount.binary': table('BinaryShape', {
    bits: req('integer'), dim: req('integer'), radix: opt('integer', undefined, 2), learned: opt('boolean', 'false: fixed ±1 digits', true),
  }),
  'parameterCount.lowRank': table('LowRankShape', { maxPositions: req('integer'), rank: req('integer'), dim: req('integer') }),
  'parameterCount.sparse': table('SparseShape', { maxPositions: req('integer'), k: req('integer'), basisSize: req('integer'), dim: req('integer') }),
  'parameterCount.axial': table('AxialShape', { shape: req('IntInput'), dims: req('IntInput') }),
  'parameterCount.t5': table('T5Shape', { heads: req('integer'), numBuckets: opt('integer', undefined, 32) }),
  'parameterCount.swin': table('SwinShape', { windowSize: req('[number, number]'), heads: req('integer') }),
  'parameterCount.shaw': table('ShawShape', { clip: req('integer'), headDim: req('integer'), values: opt('boolean', 'a value table too', true) }),
  'parameterCount.relativeKey': table('RelativeKeyShape', { maxPosition: req('integer'), headDim: req('integer') }),
  'parameterCount.xl': table('XLShape', { heads: req('integer'), headDim: req('integer'), dModel: req('integer') }),
  'parameterCount.deberta': table('DebertaShape', { span: req('integer'), hidden: req('integer') }),
  'parameterCount.kerple': table('KerpleShape', { heads: req('integer') }),
  'parameterCount.fire': table('FireShape', { heads: req('integer'), hidden: req('integer') }),
  'parameterCount.cope': table('CopeShape', { npos: req('integer'), headDim: req('integer') }),
};

function deepFreeze(x) {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const y of Object.values(x)) deepFreeze(y);
  }
  return x;
}

export const OPTIONS = deepFreeze(TABLES);

// Optimal string alignment distance (Levenshtein plus adjacent transpositions: 'bsae' → 'base' is 1).
function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

// The known key nearest to a misspelt one, or undefined when none is close. Case, '_' and '-' are
// ignored, so config.json spellings (original_max_position_embeddings) find their camelCase key.
export function nearestKey(key, known) {
  const norm = (s) => s.toLowerCase().replace(/[_-]/g, '');
  const k = norm(key);
  let best, bestDistance = Infinity;
  for (const name of known) {
    const d = editDistance(k, norm(name));
    if (d < bestDistance) { best = name; bestDistance = d; }
  }
  if (best === undefined) return undefined;
  // close: equal up to case and '_', or a few edits that leave most of the name (so 'x' does not suggest 'q')
  const limit = Math.max(1, Math.floor(key.length / 4));
  return bestDistance === 0 || (bestDistance <= limit && bestDistance < Math.min(k.length, norm(best).length)) ? best : undefined;
}

// Checks an options object against its table and returns it ({} when omitted). `field` names the
// object itself in messages, `where` says where an unknown key was found ('sinusoidal options'),
// `prefix` is put before its keys ('encoding.'), and `elsewhere(key)` may say where a misplaced key
// belongs instead.
export function checkOptions(value, name, { field = 'options', where = field === 'options' ? `${name} options` : field, prefix = '', elsewhere } = {}) {
  const { keys } = OPTIONS[name];
  const o = v.object(value, field);
  for (const key of Object.keys(o)) {
    if (!Object.hasOwn(keys, key)) {
      const near = nearestKey(key, Object.keys(keys));
      const hint = elsewhere?.(key) ?? (near && `did you mean '${near}'?`);
      throw new TypeError(`unknown option '${key}' in ${where}${hint ? ` (${hint})` : ''}`);
    }
    // null is not undefined: leaving an option out is how the API says "use the default"
    if (o[key] === null) {
      throw new TypeError(keys[key].required ? `${prefix}${key} is required (got null)` : `${prefix}${key} must not be null (leave it out for the default)`);
    }
  }
  for (const [key, spec] of Object.entries(keys)) {
    if (spec.required && o[key] === undefined) {
      throw new TypeError(`${prefix}${key} is required${Array.isArray(spec.type) ? ` (one of ${quoted(spec.type)})` : ''}`);
    }
  }
  return o;
}

export const quoted = (names) => names.map((n) => `'${n}'`).join(', ');

// An `elsewhere` for checkOptions: a key that one of the named tables knows "belongs in <label>"
// (a scaling key among the rope options, an encoding key among the attention args).
export function belongsIn(label, ...tableNames) {
  return (key) => (tableNames.some((name) => Object.hasOwn(OPTIONS[name].keys, key)) ? `it belongs in ${label}` : undefined);
}

export const ENCODING_TABLES = ENCODING_KINDS.map((kind) => `encoding.${kind}`);
