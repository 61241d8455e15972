// Strict options: every options object is checked against its registry table by the core (src/registry_check.cpp; an
// unknown key, a null or a missing required key is a TypeError naming it, with the nearest known key
// or the place a misplaced key belongs), the tables equal the interfaces of index.d.ts, scaling types
// require what Hugging Face's rope validation requires, and parameterCount cannot return nonsense.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { load } from 'posenc';
import { OPTIONS, ENCODING_KINDS, SCALING_TYPES, SCALING_ALIASES, PARAMETER_METHODS, KINDS, EXAMPLE_CALL } from '../../bindings/options.mjs';
import { randomFloats } from './helpers.mjs';
import { exampleAttention, exampleOptions } from './spec-examples.mjs';

const pe = await load();
const F = (n, seed = 1) => randomFloats(n, seed);

// --- one valid call per options object, and how its messages name things ------------------------
const ATT = { q: F(32, 1), k: F(48, 2), v: F(48, 3), heads: 2, headDim: 8, qLen: 2, kLen: 3 };
const X = F(16, 4), SHAPE = { heads: 1, tokens: 2, headDim: 8 };
const K = F(16, 5), V = F(16, 6), Q = F(16, 7);  // cache: kvHeads 1, 2 tokens; attend: heads 2, 1 query
const CACHE = { kvHeads: 1, headDim: 8, capacity: 4 };

// Builds a cache, appends two tokens and attends one query; returns the output (and frees the cache).
function cacheRun({ options = CACHE, append, attend = { heads: 2 } } = {}) {
  const cache = new pe.KVCache(options);
  try {
    cache.append(K, V, append);
    return cache.attend(Q, attend).out;
  } finally {
    cache.delete();
  }
}

// Each kind's valid encoding is its spec's own (KINDS[kind].options, for the registry's EXAMPLE_CALL), and each
// parameterCount method's shapes the demo's (KINDS[method].example): no list of kinds here.
const ENCODING_ATT = exampleAttention(EXAMPLE_CALL);
const encodingBase = (kind) => exampleOptions(KINDS, kind);

const YARN = { type: 'yarn', factor: 2, originalMaxPositionEmbeddings: 16 };

// { table, label, where, prefix, base, call(options) }: `where` is how an unknown key's message
// places it, `prefix` how null / missing messages name its keys.
const CASES = [
  ['sinusoidal', { dim: 4 }, (o) => pe.sinusoidal([1, 2], o)],
  ['learned', { table: F(6), dim: 2 }, (o) => pe.learned([0, 2], o)],
  ['positionIds', {}, (o) => pe.positionIds([0, 1, 1, 1], o)],
  ['nextPositions', {}, (o) => pe.nextPositions([0, 1, 1, 1], o)],
  ['modalityPositions', { offsets: [0, 100] }, (o) => pe.modalityPositions([0, 1, 1, 0], o)],
  ['binary', { bits: 3 }, (o) => pe.binary([5], o)],
  ['codeDistance', { bits: 4 }, (o) => pe.codeDistance(7, 8, o)],
  ['lowRank', { coefficients: [1, 2, 3, 4], basis: [1, 0, 1, 0, 1, 1], rank: 2, dim: 3 }, (o) => pe.lowRank([1], o)],
  ['sparse', { indices: [0, 2], values: [1, 0.5], k: 2, basis: [1, 0, 0, 1, 4, 4], dim: 2 }, (o) => pe.sparse([0], o)],
  ['randomFeatures', { dim: 4 }, (o) => pe.randomFeatures([0, 3], o)],
  ['axial', { shape: [3, 4], tables: [F(6), F(12)], dims: [2, 3] }, (o) => pe.axial([11, 0], o)],
  ['twoLevel', { segmentTable: [100, 200], innerTable: [1, 2, 3], segmentDim: 1, innerDim: 1 }, (o) => pe.twoLevel([0, 0, 1], o)],
  ['sine2d', { height: 2, width: 3, numPosFeats: 4 }, (o) => pe.sine2d(o)],
  ['sine3d', { frames: 2, height: 1, width: 2, numPosFeats: 4 }, (o) => pe.sine3d(o)],
  ['resizeGrid', { from: [2, 2], to: [3, 3], dim: 1 }, (o) => pe.resizeGrid(F(4), o)],
  ['t5Bucket', {}, (o) => pe.t5Bucket([0, -3, 3, 200], o)],
  ['debertaBucket', { bucketSize: 8, maxPosition: 24 }, (o) => pe.debertaBucket([-600, 5, 30], o)],
  ['ropeFrequencies', { headDim: 8 }, (o) => pe.ropeFrequencies(o)],
  ['ropeConfigFromHF', {}, (o) => pe.ropeConfigFromHF({ head_dim: 8 }, o)],
  ['attentionConfigFromHF', { layer: 1 }, (o) => pe.attentionConfigFromHF({ model_type: 'llama', hidden_size: 64, num_attention_heads: 8, num_hidden_layers: 2 }, o)],
].map(([table, base, call]) => ({ table, label: table, where: `${table} options`, prefix: '', base, call }));

CASES.push(
  { table: 'applyRope', label: 'applyRope', where: 'applyRope options', prefix: '', base: {}, call: (o) => pe.applyRope(X, SHAPE, [0, 5], o) },
  { table: 'applyRope', label: 'rotateByDelta', where: 'rotateByDelta options', prefix: '', base: {}, call: (o) => pe.rotateByDelta(X, SHAPE, [3, -2], o) },
  { table: 'shape', label: 'applyRope shape', where: 'applyRope shape', prefix: '', base: SHAPE, call: (sh) => pe.applyRope(X, sh, [0, 5]) },
  { table: 'shape', label: 'rotateByDelta shape', where: 'rotateByDelta shape', prefix: '', base: SHAPE, call: (sh) => pe.rotateByDelta(X, sh, [3, -2]) },
  { table: 'scaling', label: 'ropeFrequencies scaling', where: 'scaling', prefix: 'scaling.', base: YARN, call: (s) => pe.ropeFrequencies({ headDim: 8, scaling: s }) },
  { table: 'scaling', label: 'applyRope scaling', where: 'scaling', prefix: 'scaling.', base: YARN, call: (s) => pe.applyRope(X, SHAPE, [0, 5], { scaling: s }) },
  { table: 'scaling', label: 'encoding scaling', where: 'encoding.scaling', prefix: 'encoding.scaling.', base: YARN,
    call: (s) => pe.attention({ ...ATT, encoding: { kind: 'rope', scaling: s } }).out },
  { table: 'scaling', label: 'KVCache rope scaling', where: 'rope.scaling', prefix: 'rope.scaling.', base: YARN,
    call: (s) => cacheRun({ options: { ...CACHE, rope: { scaling: s } } }) },
  { table: 'attention', label: 'attention', where: 'attention args', prefix: '', base: ATT, call: (a) => pe.attention(a).out },
  ...ENCODING_KINDS.map((kind) => ({
    table: `encoding.${kind}`, label: `attention encoding ${kind}`, where: 'encoding', prefix: 'encoding.', base: encodingBase(kind),
    call: (e) => pe.attention({ ...ENCODING_ATT, encoding: e }).out,
  })),
  ...ENCODING_KINDS.filter((kind) => KINDS[kind].scalarBias).map((kind) => ({
    table: `encoding.${kind}`, label: `attentionBias ${kind}`, where: 'encoding', prefix: 'encoding.', base: { ...encodingBase(kind), heads: EXAMPLE_CALL.heads },
    call: (e) => pe.attentionBias(e, [1, 2], [0, 1, 2]),
  })),
  { table: 'encoding.alibi', label: 'KVCache.attend encoding', where: 'encoding', prefix: 'encoding.', base: encodingBase('alibi'),
    call: (e) => cacheRun({ attend: { heads: 2, encoding: e } }) },
  { table: 'KVCache', label: 'KVCache', where: 'KVCache options', prefix: '', base: CACHE, call: (o) => cacheRun({ options: o }) },
  { table: 'KVCache.rope', label: 'KVCache rope', where: 'rope', prefix: 'rope.', base: {}, call: (r) => cacheRun({ options: { ...CACHE, rope: r } }) },
  { table: 'KVCache.append', label: 'KVCache.append', where: 'append options', prefix: '', base: {}, call: (o) => cacheRun({ append: o }) },
  { table: 'KVCache.attend', label: 'KVCache.attend', where: 'attend options', prefix: '', base: { heads: 2 }, call: (o) => cacheRun({ attend: o }) },
  ...PARAMETER_METHODS.map((method) => ({
    table: `parameterCount.${method}`, label: `parameterCount('${method}')`, where: `parameterCount('${method}') options`, prefix: '',
    base: KINDS[method]?.example ?? {}, call: (o) => pe.parameterCount(method, o),
  })),
);

const outcome = (fn) => { try { fn(); return 'ok'; } catch (e) { return `${e.name}: ${e.message}`; } };
const without = (o, key) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
const throwsWith = (fn, type, ...parts) => assert.throws(fn, (e) => {
  assert.ok(e instanceof type, `${e.name}: ${e.message} (wanted ${type.name})`);
  for (const p of parts) assert.ok(e.message.includes(p), `'${e.message}' should contain '${p}'`);
  return true;
});

// A transposition of two neighbouring letters: 'headDim' -> 'haedDim'.
function typo(key) {
  for (let i = 1; i + 1 < key.length; i++) {
    if (key[i].toLowerCase() !== key[i + 1].toLowerCase()) return key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
  }
  return undefined;
}

test('every table has a valid call here, and every call works', () => {
  const covered = new Set(CASES.map((c) => c.table));
  for (const name of Object.keys(OPTIONS)) assert.ok(covered.has(name), `no call exercises table ${name}`);
  for (const c of CASES) assert.doesNotThrow(() => c.call(c.base), c.label);
});

test('a misspelt key is a TypeError naming the key, where it was found and the nearest known key', () => {
  let checked = 0;
  for (const c of CASES) {
    for (const key of Object.keys(OPTIONS[c.table].keys)) {
      const t = typo(key);
      if (key.length < 3 || !t) continue;
      throwsWith(() => c.call({ ...c.base, [t]: 1 }), TypeError, `unknown option '${t}' in ${c.where} (did you mean '${key}'?)`);
      checked++;
    }
    throwsWith(() => c.call({ ...c.base, zzzzzz: 1 }), TypeError, `unknown option 'zzzzzz' in ${c.where}`);
  }
  assert.ok(checked > 250, `${checked}`);
  // the examples of the issue
  throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 'rope', bsae: 10 } }), TypeError, "unknown option 'bsae' in encoding (did you mean 'base'?)");
  throwsWith(() => pe.attention({ ...ATT, encoding: { type: 'rope' } }), TypeError, 'encoding.kind is required');
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, scaling: { factor: 2 } }), TypeError, 'scaling.type is required');
  // config.json spellings find their camelCase key; unrelated or tiny names get no suggestion
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, scaling: { ...YARN, original_max_position_embeddings: 16 } }), TypeError,
    "(did you mean 'originalMaxPositionEmbeddings'?)");
  throwsWith(() => pe.ropeFrequencies({ head_dim: 8 }), TypeError, "unknown option 'head_dim' in ropeFrequencies options (did you mean 'headDim'?)");
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, rope_theta: 1e4 }), TypeError,
    "unknown option 'rope_theta' in ropeFrequencies options ('rope_theta' is a config.json key: pass its value as 'base', or the whole config to pe.ropeConfigFromHF(config))");
  assert.throws(() => pe.attention({ ...ATT, x: 1 }), (e) => e instanceof TypeError && e.message === "unknown option 'x' in attention args");
});

test('null is not undefined: an option given as null is a TypeError naming it', () => {
  for (const c of CASES) {
    for (const key of Object.keys(OPTIONS[c.table].keys)) {
      throwsWith(() => c.call({ ...c.base, [key]: null }), TypeError, `${c.prefix}${key} `, 'null');
      // while undefined is the same as leaving the key out
      assert.equal(outcome(() => c.call({ ...c.base, [key]: undefined })), outcome(() => c.call(without(c.base, key))), `${c.label}: ${key}`);
    }
  }
  throwsWith(() => pe.attention({ ...ATT, encoding: null }), TypeError, 'encoding must not be null');
  throwsWith(() => pe.sinusoidal([1], { dim: 4, paddingIdx: null }), TypeError, 'paddingIdx must not be null');
  throwsWith(() => new pe.KVCache({ ...CACHE, window: null }), TypeError, 'window must not be null');
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, scaling: { ...YARN, attentionFactor: null } }), TypeError, 'scaling.attentionFactor must not be null');
});

test('a missing required key is a TypeError naming it', () => {
  let checked = 0;
  for (const c of CASES) {
    for (const [key, spec] of Object.entries(OPTIONS[c.table].keys)) {
      if (!spec.required) continue;
      throwsWith(() => c.call(without(c.base, key)), TypeError, `${c.prefix}${key} is required`);
      checked++;
    }
  }
  assert.ok(checked > 60, `${checked}`);
  throwsWith(() => pe.attention({ ...ATT, encoding: {} }), TypeError, 'encoding.kind is required');
  throwsWith(() => pe.attentionBias(undefined, [0], [0]), TypeError, 'encoding is required');
});

test("the tables' defaults and choices are the ones the code uses", () => {
  let defaults = 0, choices = 0;
  for (const c of CASES) {
    for (const [key, spec] of Object.entries(OPTIONS[c.table].keys)) {
      if ('default' in spec) {
        const base = without(c.base, key);
        assert.deepEqual(c.call({ ...base, [key]: spec.default }), c.call(base), `${c.label}: ${key} = ${JSON.stringify(spec.default)}`);
        defaults++;
      }
      if (Array.isArray(spec.type)) {
        const named = spec.type.filter((t) => !Object.hasOwn(SCALING_ALIASES, t) || c.table !== 'scaling');
        throwsWith(() => c.call({ ...c.base, [key]: 'zzz' }), RangeError, `${c.prefix}${key} must be one of`, ...named.map((t) => `'${t}'`));
        choices++;
      }
    }
  }
  assert.ok(defaults > 60 && choices > 30, `${defaults} defaults, ${choices} choices`);
});

test('wrong nesting: scaling keys among the rope options and rope keys in scaling say where they belong', () => {
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, factor: 2 }), TypeError, "unknown option 'factor' in ropeFrequencies options (it belongs in scaling)");
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, type: 'linear' }), TypeError, "unknown option 'type' in ropeFrequencies options (it belongs in scaling)");
  throwsWith(() => pe.applyRope(X, SHAPE, [0, 1], { lowFreqFactor: 1 }), TypeError, "unknown option 'lowFreqFactor' in applyRope options (it belongs in scaling)");
  throwsWith(() => pe.rotateByDelta(X, SHAPE, [0, 1], { originalMaxPositionEmbeddings: 8 }), TypeError, 'in rotateByDelta options (it belongs in scaling)');
  throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 'rope', factor: 2 } }), TypeError, "unknown option 'factor' in encoding (it belongs in encoding.scaling)");
  throwsWith(() => new pe.KVCache({ ...CACHE, rope: { factor: 2 } }), TypeError, "unknown option 'factor' in rope (it belongs in rope.scaling)");

  throwsWith(() => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'linear', factor: 2, base: 500000 } }), TypeError,
    "unknown option 'base' in scaling (it belongs in ropeFrequencies options, next to scaling)");
  throwsWith(() => pe.applyRope(X, SHAPE, [0, 1], { scaling: { ...YARN, partialRotaryFactor: 0.5 } }), TypeError,
    "unknown option 'partialRotaryFactor' in scaling (it belongs in applyRope options, next to scaling)");
  throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 'rope', scaling: { ...YARN, seqLen: 4 } } }), TypeError,
    "unknown option 'seqLen' in encoding.scaling (it belongs in encoding, next to encoding.scaling)");
  throwsWith(() => new pe.KVCache({ ...CACHE, rope: { scaling: { ...YARN, headDim: 8 } } }), TypeError, 'in rope.scaling (it belongs in rope, next to rope.scaling)');

  // the same for encodings and the cache's rope
  throwsWith(() => pe.attention({ ...ATT, slopes: [1, 2] }), TypeError, "unknown option 'slopes' in attention args (it belongs in encoding)");
  throwsWith(() => pe.attention({ ...ATT, kind: 'alibi' }), TypeError, "unknown option 'kind' in attention args (it belongs in encoding)");
  throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 't5', table: F(64), slopes: [1, 2] } }), TypeError,
    "unknown option 'slopes' in encoding (it belongs to kind 'alibi', not 't5')");
  throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 'alibi', table: F(64) } }), TypeError, "(it belongs to kind 't5', 'swin', 'relativeKey', not 'alibi')");
  throwsWith(() => cacheRun({ attend: { heads: 2, slopes: [1, 2] } }), TypeError, "unknown option 'slopes' in attend options (it belongs in encoding)");
  throwsWith(() => new pe.KVCache({ ...CACHE, base: 10000 }), TypeError, "unknown option 'base' in KVCache options (it belongs in rope)");
  throwsWith(() => cacheRun({ options: { ...CACHE, rope: { kind: 'alibi' } } }), RangeError, "rope.kind must be one of 'rope'");
});

// What each scaling type requires, as Hugging Face's rope validation requires it (plus the original
// length for dynamic and yarn: HF falls back to config.max_position_embeddings, which these options lack).
const REQUIRED = {
  none: [],
  linear: ['factor'],
  ntk: ['factor'],
  dynamic: ['factor', 'originalMaxPositionEmbeddings'],
  yarn: ['factor', 'originalMaxPositionEmbeddings'],
  llama3: ['factor', 'originalMaxPositionEmbeddings', 'lowFreqFactor', 'highFreqFactor'],
  longrope: ['originalMaxPositionEmbeddings', 'shortFactor', 'longFactor'],
};
// and every other key each type takes
const OPTIONAL = {
  none: [], linear: [], ntk: [], dynamic: [], llama3: [],
  yarn: ['betaFast', 'betaSlow', 'mscale', 'mscaleAllDim', 'attentionFactor', 'truncate'],
  longrope: ['factor', 'attentionFactor'],
};
const VALUES = {
  factor: 2, originalMaxPositionEmbeddings: 16, betaFast: 16, betaSlow: 2, mscale: 0.7, mscaleAllDim: 0.7, attentionFactor: 1.1,
  truncate: false, lowFreqFactor: 1, highFreqFactor: 4, shortFactor: [1, 1, 1, 1], longFactor: [1, 2, 3, 4],
};
const scalingOf = (type, keys) => ({ type, ...Object.fromEntries(keys.map((k) => [k, VALUES[k]])) });

test('each scaling type takes exactly its keys and requires what Hugging Face requires', () => {
  const freqs = (scaling, extra = {}) => pe.ropeFrequencies({ headDim: 8, scaling, ...extra });
  assert.deepEqual(Object.keys(REQUIRED), SCALING_TYPES);
  for (const type of SCALING_TYPES) {
    const scalingKeys = Object.entries(OPTIONS.scaling.keys).filter(([k]) => k !== 'type');
    assert.deepEqual(scalingKeys.filter(([, s]) => s.requiredBy.includes(type)).map(([k]) => k).sort(), [...REQUIRED[type]].sort(), `${type} requires`);
    assert.deepEqual(scalingKeys.filter(([, s]) => s.types.includes(type)).map(([k]) => k).sort(), [...REQUIRED[type], ...OPTIONAL[type]].sort(), `${type} takes`);

    assert.doesNotThrow(() => freqs(scalingOf(type, REQUIRED[type])), type);
    assert.doesNotThrow(() => freqs(scalingOf(type, [...REQUIRED[type], ...OPTIONAL[type]]), { seqLen: 32 }), `${type} with every key`);
    for (const key of REQUIRED[type]) {
      const s = scalingOf(type, REQUIRED[type].filter((k) => k !== key));
      throwsWith(() => freqs(s), RangeError, `scaling.${key} is required by '${type}' scaling`);
      throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 'rope', scaling: s } }), RangeError, `encoding.scaling.${key} is required by '${type}' scaling`);
      throwsWith(() => cacheRun({ options: { ...CACHE, rope: { scaling: s } } }), RangeError, `rope.scaling.${key} is required by '${type}' scaling`);
    }
    for (const [key, spec] of scalingKeys) {
      if (spec.types.includes(type)) continue;
      const owners = spec.types.map((t) => `'${t}'`).join(' or ');
      throwsWith(() => freqs({ ...scalingOf(type, REQUIRED[type]), [key]: VALUES[key] }), TypeError,
        `scaling.${key} does not apply to '${type}' scaling (it belongs to ${owners} scaling)`);
    }
  }
  // aliases are their types
  assert.deepEqual(freqs({ type: 'default' }), freqs({ type: 'none' }));
  assert.deepEqual(freqs({ type: 'ntk_aware', factor: 2 }), freqs({ type: 'ntk', factor: 2 }));
  assert.deepEqual(freqs({ ...scalingOf('longrope', REQUIRED.longrope), type: 'su' }), freqs(scalingOf('longrope', REQUIRED.longrope)));
  throwsWith(() => freqs({ type: 'su', shortFactor: [1, 1, 1, 1], longFactor: [1, 1, 1, 1] }), RangeError, "scaling.originalMaxPositionEmbeddings is required by 'longrope'");
  throwsWith(() => freqs({ type: 'yarn', factor: 2, originalMaxPositionEmbeddings: 16, lowFreqFactor: 1 }), TypeError, "(it belongs to 'llama3' scaling)");
  throwsWith(() => freqs({ type: 'constructor' }), RangeError, 'scaling.type must be one of');
});

test('rope options: kind may only be rope, headDim must agree with the call, layout is checked everywhere', () => {
  const plain = pe.ropeFrequencies({ headDim: 8, base: 100 });
  assert.deepEqual(pe.ropeFrequencies({ kind: 'rope', headDim: 8, base: 100, layout: 'interleaved' }), plain);
  throwsWith(() => pe.ropeFrequencies({ kind: 'alibi', headDim: 8 }), RangeError, "kind must be one of 'rope'");
  throwsWith(() => pe.ropeFrequencies({ headDim: 8, layout: 'sideways' }), RangeError, 'layout must be one of');
  assert.deepEqual(pe.applyRope(X, SHAPE, [0, 5], { kind: 'rope', headDim: 8 }), pe.applyRope(X, SHAPE, [0, 5]));
  throwsWith(() => pe.applyRope(X, SHAPE, [0, 5], { headDim: 4 }), RangeError, "headDim (4) must equal the shape's headDim (8)");
  throwsWith(() => pe.attention({ ...ATT, encoding: { kind: 'rope', headDim: 16 } }), RangeError, "encoding.headDim (16) must equal the attention's headDim (8)");
  throwsWith(() => new pe.KVCache({ ...CACHE, rope: { headDim: 4 } }), RangeError, "rope.headDim (4) must equal the cache's headDim (8)");
  // a config.json's rope spreads into an encoding and a cache as it is
  const cfg = pe.ropeConfigFromHF(JSON.parse(readFileSync(new URL('../fixtures/hf/llama-3.1-8b.json', import.meta.url), 'utf8')));
  const d = cfg.headDim, q = F(d, 20), k = F(2 * d, 21), v = F(2 * d, 22);
  const viaEncoding = pe.attention({ q, k, v, heads: 1, headDim: d, qLen: 1, kLen: 2, encoding: { kind: 'rope', ...cfg } }).out;
  const cache = new pe.KVCache({ kvHeads: 1, headDim: d, capacity: 2, rope: { kind: 'rope', ...cfg } });
  cache.append(k, v);
  assert.ok(Math.max(...cache.attend(q, { heads: 1 }).out.map((x, i) => Math.abs(x - viaEncoding[i]))) < 1e-5);
  cache.delete();
});

test('a failed strict check changes nothing: the cache keeps its state', () => {
  const cache = new pe.KVCache(CACHE);
  cache.append(K, V);
  const before = [Array.from(cache.positions()), Array.from(cache.nextPositions())];
  assert.throws(() => cache.append(K, V, { postions: [0, 1] }), /did you mean 'positions'/);
  assert.throws(() => cache.append(K, V, { mask: null }), TypeError);
  assert.throws(() => cache.attend(Q, { heads: 2, casual: false }), /did you mean 'causal'/);
  assert.deepEqual([Array.from(cache.positions()), Array.from(cache.nextPositions())], before);
  cache.delete();
});

test('parameterCount: own methods only, and every size checked so counts are never negative or fractional', () => {
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    throwsWith(() => pe.parameterCount(name, { a: 1 }), RangeError, 'method must be one of', "'learned'", "'deberta'", `(got '${name}')`);
  }
  throwsWith(() => pe.parameterCount('swin', { windowSize: [7, 0], heads: 4 }), RangeError, 'windowSize[1]');
  throwsWith(() => pe.parameterCount('swin', { windowSize: [7], heads: 4 }), TypeError, 'windowSize');
  throwsWith(() => pe.parameterCount('binary', { bits: 8, dim: 16, radix: -1 }), RangeError, 'radix');
  throwsWith(() => pe.parameterCount('binary', { bits: 8, dim: 16, radix: 2.5 }), RangeError, 'radix');
  throwsWith(() => pe.parameterCount('binary', { bits: 8, dim: 16, learned: 'no' }), TypeError, 'learned');
  throwsWith(() => pe.parameterCount('shaw', { clip: -1, headDim: 8 }), RangeError, 'clip');
  throwsWith(() => pe.parameterCount('shaw', { clip: 2, headDim: 8, values: 0 }), TypeError, 'values');
  throwsWith(() => pe.parameterCount('learned', { maxPositions: 1.5, dim: 8 }), RangeError, 'maxPositions');
  throwsWith(() => pe.parameterCount('axial', { shape: [4, 4], dims: [8] }), RangeError, 'dims');
  throwsWith(() => pe.parameterCount('axial', { shape: [4, -4], dims: [8, 8] }), RangeError, 'shape[1]');
  throwsWith(() => pe.parameterCount('t5', { heads: 12, numBuckets: 0 }), RangeError, 'numBuckets');
  throwsWith(() => pe.parameterCount('lowRank', { maxPositions: 2 ** 31 - 1, rank: 2 ** 31 - 1, dim: 8 }), RangeError, 'exactly');
  throwsWith(() => pe.parameterCount('learned', { maxPositions: 8, dim: 2 ** 20 + 1 }), RangeError, 'no larger than 1048576');
  throwsWith(() => pe.parameterCount('alibi', { heads: 12 }), TypeError, "unknown option 'heads' in parameterCount('alibi') options");
  // the survey's numbers
  assert.equal(pe.parameterCount('swin', { windowSize: [7, 7], heads: 4 }), 13 * 13 * 4);
  assert.equal(pe.parameterCount('binary', { bits: 8, dim: 16, radix: 3 }), 8 * 3 * 16);
  assert.equal(pe.parameterCount('binary', { bits: 8, dim: 16, learned: false }), 0);
  assert.equal(pe.parameterCount('shaw', { clip: 16, headDim: 64, values: false }), 33 * 64);
  assert.equal(pe.parameterCount('xl', { heads: 12, headDim: 64, dModel: 768 }), 12 * 64 * 770);
  for (const method of PARAMETER_METHODS) assert.ok(Number.isSafeInteger(pe.parameterCount(method, KINDS[method]?.example ?? {})) && pe.parameterCount(method, KINDS[method]?.example ?? {}) >= 0);
});

test('ropeConfigFromHF: every fixture loads and passes the strict checks; missing scaling fields name the config.json key', () => {
  const dir = new URL('../fixtures/hf/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 11);
  for (const file of files) {
    const json = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    if (['bloom', 'mpt'].includes(json.model_type)) continue;  // ALiBi (attentionConfigFromHF): no rotary setup
    if (json.text_config?.model_type?.startsWith('gemma3')) continue;  // two tables: layerType needed (attention-plan.test.mjs reads each)
    const cfg = pe.ropeConfigFromHF(json);
    const f = pe.ropeFrequencies(cfg);
    assert.ok(f.invFreq.length > 0 && f.invFreq.every(Number.isFinite), file);
    pe.applyRope(F(cfg.headDim), { heads: 1, tokens: 1, headDim: cfg.headDim }, cfg.multiAxis ? [3, 3, 3] : [3], cfg);  // M-RoPE: [axes, tokens]
    if (cfg.scaling) {
      const type = SCALING_ALIASES[cfg.scaling.type] ?? cfg.scaling.type;
      for (const key of Object.keys(cfg.scaling)) if (key !== 'type') assert.ok(OPTIONS.scaling.keys[key].types.includes(type), `${file}: ${key}`);
    }
  }
  const llama = { hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 131072 };
  const llama3 = { rope_type: 'llama3', factor: 8, original_max_position_embeddings: 8192, low_freq_factor: 1, high_freq_factor: 4 };
  for (const key of ['low_freq_factor', 'high_freq_factor']) {
    throwsWith(() => pe.ropeConfigFromHF({ ...llama, rope_scaling: without(llama3, key) }), RangeError, `config.rope_scaling.${key} is required by 'llama3' scaling`);
    throwsWith(() => pe.ropeConfigFromHF({ ...llama, rope_parameters: without(llama3, key) }), RangeError, `config.rope_parameters.${key} is required by 'llama3' scaling`);
  }
  throwsWith(() => pe.ropeConfigFromHF({ ...llama, rope_scaling: { type: 'linear' } }), RangeError, "config.rope_scaling.factor is required by 'linear' scaling");
  throwsWith(() => pe.ropeConfigFromHF({ ...llama, rope_scaling: { type: 'longrope', long_factor: [1], original_max_position_embeddings: 4096 } }), RangeError,
    "config.rope_scaling.short_factor is required by 'longrope' scaling");
  // fields of another type are left out, as Hugging Face only warns about them (and null means absent)
  const yarn = pe.ropeConfigFromHF({ ...llama, rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 32768, low_freq_factor: 1 } });
  assert.deepEqual(yarn.scaling, { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32768 });
  assert.deepEqual(pe.ropeConfigFromHF({ ...llama, rope_scaling: { type: 'linear', factor: 2, factor_unused: null, beta_fast: 3 } }).scaling, { type: 'linear', factor: 2 });
  // a key no rotary code knows is refused, naming it: a typo there must not pass for the default
  throwsWith(() => pe.ropeConfigFromHF({ ...llama, rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 32768, factor_x: 2 } }), RangeError,
    'config.rope_scaling.factor_x is not a rotary field');
});

// --- the tables and index.d.ts list the same keys ----------------------------------------------
// Flat interfaces only (one property per line); `extends A, Partial<B>` brings A's and B's keys in.
function declaredInterfaces(source) {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const raw = new Map();
  for (const [, name, ext, body] of text.matchAll(/export interface (\w+)(?:\s+extends\s+([^{]+?))?\s*\{([^{}]*)\}/g)) {
    const keys = new Map();
    for (const [, key, optional] of body.matchAll(/^\s*(?:readonly\s+)?(\w+)(\?)?\s*:/gm)) keys.set(key, !optional);
    raw.set(name, { ext: ext ? ext.split(',').map((s) => s.trim()) : [], keys });
  }
  const resolve = (name) => {
    const entry = raw.get(name);
    if (!entry) return undefined;
    const keys = new Map();
    for (const base of entry.ext) {
      const partial = base.match(/^Partial<(\w+)>$/);
      for (const [k, required] of resolve(partial ? partial[1] : base) ?? []) keys.set(k, required && !partial);
    }
    for (const [k, required] of entry.keys) keys.set(k, required);
    return keys;
  };
  return { resolve, text };
}

// index.d.ts and the options.d.ts it re-exports (generated from the registry by scripts/gen-types.mjs:
// this check holds the tables equal to it too, so that a hand edit of the generated file is caught here).
test('bindings/index.d.ts declares exactly the keys of each table (and which are required)', () => {
  const { resolve, text } = declaredInterfaces(['index.d.ts', 'options.d.ts'].map((f) => readFileSync(new URL(`../../bindings/${f}`, import.meta.url), 'utf8')).join('\n'));
  for (const [name, table] of Object.entries(OPTIONS)) {
    if (table.interface === null) {
      assert.deepEqual(Object.keys(table.keys), [], `${name} has keys but no interface`);
      continue;
    }
    const declared = resolve(table.interface);
    assert.ok(declared, `index.d.ts has no flat interface ${table.interface} (table ${name})`);
    assert.deepEqual([...declared.keys()].sort(), Object.keys(table.keys).sort(), `${table.interface} vs table ${name}`);
    for (const [key, spec] of Object.entries(table.keys)) {
      assert.equal(declared.get(key), Boolean(spec.required), `${table.interface}.${key}: required in one, optional in the other`);
    }
  }
  // parameterCount's per-method shapes and the Encoding union name the same interfaces
  const shapes = [...text.match(/export interface ParameterShapes \{([^}]*)\}/)[1].matchAll(/(\w+): (\w+);/g)].map(([, m, t]) => [m, t]);
  assert.deepEqual(shapes, PARAMETER_METHODS.map((m) => [m, OPTIONS[`parameterCount.${m}`].interface ?? 'NoParameters']).sort(([a], [b]) => PARAMETER_METHODS.indexOf(a) - PARAMETER_METHODS.indexOf(b)));
  const union = text.match(/export type Encoding =([^;]*);/)[1].split('|').map((s) => s.trim()).filter(Boolean);
  assert.deepEqual(union, ENCODING_KINDS.map((k) => OPTIONS[`encoding.${k}`].interface));
  const scalar = text.match(/export type ScalarBiasEncoding =([^;]*);/)[1].split('|').map((s) => s.trim());
  assert.deepEqual(scalar, ENCODING_KINDS.filter((k) => KINDS[k].scalarBias).map((k) => OPTIONS[`encoding.${k}`].interface));
  assert.ok(/^export \* from '\.\/options\.js';$/m.test(text), 'index.d.ts re-exports options.d.ts');
});

test('the tables are frozen', () => {
  assert.ok(Object.isFrozen(OPTIONS) && Object.isFrozen(OPTIONS.scaling.keys.factor) && Object.isFrozen(OPTIONS.scaling.keys.factor.types));
  assert.throws(() => { 'use strict'; OPTIONS.sinusoidal.keys.extra = {}; }, TypeError);
});

test('describe(): one entry per encoding kind and additive function, each complete, from the C++ table', async () => {
  const list = pe.describe();
  assert.ok(Object.isFrozen(list) && list.every(Object.isFrozen));
  const kinds = list.map((d) => d.kind);
  assert.equal(new Set(kinds).size, kinds.length, 'no kind twice');
  for (const kind of ENCODING_KINDS) assert.ok(kinds.includes(kind), `pe.attention accepts '${kind}' but describe() lacks it`);
  const additive = ['sinusoidal', 'learned', 'binary', 'lowRank', 'sparse', 'randomFeatures', 'axial', 'twoLevel', 'sine2d', 'sine3d', 'resizeGrid'];
  for (const fn of additive) {
    assert.equal(typeof pe[fn], 'function', fn);
    assert.equal(list.find((d) => d.kind === fn)?.family, 'additive', fn);
  }
  for (const d of list) {
    assert.ok(['additive', 'rotary', 'score', 'none'].includes(d.family), d.kind);
    for (const key of ['encodes', 'parameters', 'extrapolation', 'kvCache', 'reference', 'usedIn']) assert.ok(typeof d[key] === 'string' && d[key].length > 0, `${d.kind}.${key}`);
    assert.equal(typeof d.extrapolates, 'boolean');
    assert.equal(typeof d.kvCacheFriendly, 'boolean');
    if (d.parameterMethod !== null) assert.ok(PARAMETER_METHODS.includes(d.parameterMethod), `${d.kind}: parameterCount has no '${d.parameterMethod}'`);
    // fixed functions say 0 and count 0
    if (d.parameters === '0' && d.parameterMethod) assert.equal(pe.parameterCount(d.parameterMethod, {}), 0, d.kind);
  }
  // every parameterCount method is described, and every score / rotary family kind is an encoding kind
  for (const method of PARAMETER_METHODS) assert.ok(list.some((d) => d.parameterMethod === method), `parameterCount('${method}') has no describe() entry`);
  for (const d of list) if (d.family !== 'additive') assert.ok(ENCODING_KINDS.includes(d.kind), d.kind);
  assert.equal(list.find((d) => d.kind === 'none').family, 'none');
  assert.equal(list.find((d) => d.kind === 'cope').kvCacheFriendly, false);
});
