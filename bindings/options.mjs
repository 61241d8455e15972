// The known keys of every options object the JS API takes: one table per object, built at load from
// the C++ registry (src/registry.cpp, exported by bindings/call.cpp) — the single source of kinds,
// fields, defaults and choices. The tables drive the strict checks below (an unknown key, a null or a
// missing required key is a TypeError naming it), and tests/node/strict-options.test.mjs holds each
// one equal to its interface in index.d.ts.
//
// A table is { interface, keys }: `interface` names its declaration in index.d.ts, and each key is
// { type, required?, default?, min?, max? }. Types are spelt as in index.d.ts ('integer' is a number
// that must be an integer, within [min, max]); an array of strings is the closed set of choices, in the
// order the C++ enum numbers them. Scaling keys also say which scaling types use them (`types`) and which require them
// (`requiredBy`): RopeScaling is one object whose valid keys depend on its `type`.
import * as v from './validate.mjs';

// Filled by installRegistry (at load, before any API call); ES module bindings are live, so importers
// see the filled values.
export const OPTIONS = {};
export let ENCODING_KINDS, ENCODING_TABLES, SCALING_TYPES, SCALING_ALIASES;

function deepFreeze(x) {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const y of Object.values(x)) deepFreeze(y);
  }
  return x;
}

// A table's [key, entry] pairs, listed once per table (the tables are frozen at load; calls list them often).
const ENTRIES = new Map();
export function entriesOf(name) {
  let e = ENTRIES.get(name);
  if (!e) ENTRIES.set(name, (e = Object.freeze(Object.entries(OPTIONS[name].keys))));
  return e;
}

export function installRegistry(registry) {
  if (Object.isFrozen(OPTIONS)) return;
  Object.assign(OPTIONS, registry.tables);
  deepFreeze(OPTIONS);
  ENCODING_KINDS = Object.freeze(registry.encodingKinds);
  ENCODING_TABLES = Object.freeze(ENCODING_KINDS.map((kind) => `encoding.${kind}`));
  SCALING_TYPES = Object.freeze(registry.scalingTypes);
  SCALING_ALIASES = Object.freeze(registry.scalingAliases);
}

// Checks a given value against its registry entry: its type, and an integer's least value (`min`);
// a choice becomes its index (the C++ enum value). Tensors and nested objects are the caller's.
export function checkValue(entry, x, field) {
  if (Array.isArray(entry.type)) return v.oneOf(x, field, entry.type);
  switch (entry.type) {
    case 'number': return v.number(x, field);
    case 'boolean': return v.boolean(x, field);
    case 'integer': return v.integer(x, field, { min: entry.min, max: entry.max });
    default: throw new Error(`posenc internal error: no check for ${field} of type ${entry.type}`);
  }
}

// Checks an options object against its table (checkOptions) and returns a copy whose plain values
// (numbers, integers, flags, choices) are checked (checkValue) with the registry's defaults filled in
// (choices as their index); tensors and nested objects stay as given, for the caller. `prefix` is put
// before keys in messages ('rope.').
export function readOptions(value, name, context = {}) {
  const o = checkOptions(value, name, context);
  const out = { ...o };
  for (const [key, entry] of entriesOf(name)) {
    const x = o[key] ?? entry.default;
    if (x !== undefined && (Array.isArray(entry.type) || PLAIN.includes(entry.type))) out[key] = checkValue(entry, x, (context.prefix ?? '') + key);
  }
  return out;
}
const PLAIN = ['number', 'integer', 'boolean'];

// The plain values of a readOptions result (numbers, flags, choices as their index): what the core
// reads as they are; tensors and nested objects are the caller's to place.
export function plain(o) {
  const out = {};
  for (const key in o) if (typeof o[key] === 'number' || typeof o[key] === 'boolean') out[key] = o[key];
  return out;
}

// The choices of a key (an array of strings), as the registry gives them.
export const choices = (table, key) => OPTIONS[table].keys[key].type;

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

// config.json keys passed as options: where their value goes instead (only keys this table has).
const CONFIG_KEYS = { rope_theta: 'base' };  // (head_dim and the like already find their camelCase key)
function configKeyHint(key, keys) {
  const to = CONFIG_KEYS[key];
  if (!to || !Object.hasOwn(keys, to)) return undefined;
  return `'${key}' is a config.json key: pass its value as '${to}', or the whole config to pe.ropeConfigFromHF(config)`;
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
      const hint = elsewhere?.(key) ?? configKeyHint(key, keys) ?? (near && `did you mean '${near}'?`);
      throw new TypeError(`unknown option '${key}' in ${where}${hint ? ` (${hint})` : ''}`);
    }
    // null is not undefined: leaving an option out is how the API says "use the default"
    if (o[key] === null) {
      throw new TypeError(keys[key].required ? `${prefix}${key} is required (got null)` : `${prefix}${key} must not be null (leave it out for the default)`);
    }
  }
  for (const [key, spec] of entriesOf(name)) {
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

