// The registry of every options object (src/registry.cpp, exported by bindings/call.cpp): kinds,
// fields, defaults and choices, installed at load. The core checks options objects against it
// (src/registry_check.cpp); this side only needs each key's type, to place tensors on the heap
// (`wire`). tests/node/strict-options.test.mjs holds each table equal to its interface (bindings/options.d.ts, generated from the registry).
import * as v from './validate.mjs';

// Filled by installRegistry (at load, before any API call); ES module bindings are live, so importers
// see the filled values.
export const OPTIONS = {};
export let ENCODING_KINDS, SCALING_TYPES, SCALING_ALIASES, PARAMETER_METHODS;
// The attention call (shapes, causal) every encoding kind's options example (KINDS[kind].options) is valid for.
export let EXAMPLE_CALL;
// Per describe() entry: { paper, code, example } (links [[text, url]] or null; parameterCount shapes for the
// demo or null), and an encoding kind's options example for EXAMPLE_CALL (`options`, tensors as lists or
// {$floats: n}) and traits { scalarBias, perQueryState, stickBreaking }: src/encodings/.
export const KINDS = {};

export function installRegistry(registry) {
  if (Object.isFrozen(OPTIONS)) return;
  Object.assign(OPTIONS, registry.tables);
  deepFreeze(OPTIONS);
  ENCODING_KINDS = Object.freeze(registry.encodingKinds);
  SCALING_TYPES = Object.freeze(registry.scalingTypes);
  SCALING_ALIASES = Object.freeze(registry.scalingAliases);
  EXAMPLE_CALL = Object.freeze(registry.exampleCall);
  Object.assign(KINDS, registry.methods);
  deepFreeze(KINDS);
  PARAMETER_METHODS = Object.freeze(Object.keys(OPTIONS).filter((n) => n.startsWith('parameterCount.')).map((n) => n.slice(15)));
}

function deepFreeze(x) {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const y of Object.values(x)) deepFreeze(y);
  }
  return x;
}

// The `warnings` arrays ropeConfigFromHF returned: its result passes as rope options as it is, so such
// an array under `warnings` is left out; any other `warnings` value stays an unknown option.
export const READER_WARNINGS = new WeakSet();

// An options object as the core reads it: the given keys as they are (the core checks them), except
// tensors, placed on the heap by scope `s`, and the option objects nested in it, walked by their own
// tables. `field` goes before keys in messages ('encoding.'). `out` is left to the caller (Scope.call).
export function wire(s, value, table, field = '') {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) return value;
  const keys = OPTIONS[table]?.keys ?? {}, out = {};
  for (const [key, x] of Object.entries(value)) {
    if (key === 'warnings' && READER_WARNINGS.has(x)) continue;
    const type = Object.hasOwn(keys, key) ? keys[key].type : undefined;
    out[key] = x == null || !Object.hasOwn(PLACE, type) ? x : PLACE[type](s, x, field + key);
  }
  return out;
}

// The caller's `out` of an options object, if any (results are copied there: Scope.call).
export const outOf = (options) => (options !== null && typeof options === 'object' ? options.out ?? undefined : undefined);

const encodingPart = (s, e, field) => wire(s, e, typeof e?.kind === 'string' ? `encoding.${e.kind}` : '', `${field}.`);
const PLACE = {
  FloatInput: (s, x, f) => s.f32(x, f),
  KVInput: (s, x, f) => s.kv(x, f),  // attention's k / v: floats, or f16 / bf16 bits (Uint16Array) with kvType
  IntInput: (s, x, f) => s.i32(v.int32Array(x, f), f),
  MaskInput: (s, x, f) => s.bytes(v.mask(x, f), f),
  'FloatInput[]': (s, x, f) => {
    if (!Array.isArray(x)) throw new TypeError(`${f} must be an array of Float32Arrays (got ${v.describe(x)})`);
    return x.map((t, i) => s.f32(t, `${f}[${i}]`));
  },
  FloatOut: () => undefined,
  'ArrayLike<number>': (s, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x),
  RopeScaling: (s, x, f) => wire(s, x, 'scaling', `${f}.`),
  KVCacheRope: (s, x, f) => wire(s, x, 'KVCache.rope', `${f}.`),
  Encoding: (s, x, f) => (Array.isArray(x) ? x.map((e, i) => encodingPart(s, e, `${f}[${i}]`)) : encodingPart(s, x, f)),
};
