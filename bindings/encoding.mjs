// Checks an `encoding` object ({kind, ...}) against its registry table and builds what the binding
// reads, placing its tables on the heap. Sizes and values are checked by the C++ core (messages name
// `encoding.<field>`).
import * as v from './validate.mjs';
import { ropeSpec } from './rope-config.mjs';
import { OPTIONS, ENCODING_KINDS, checkOptions, checkValue, belongsIn, quoted, entriesOf } from './options.mjs';

export { ENCODING_KINDS };
export const SCALAR_BIAS = ['alibi', 't5', 'swin', 'kerple', 'fire'];
export const NO_ENCODING = Object.freeze({ kind: 'none' });  // what an omitted encoding means

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

// The flat specs the binding takes, one per part (an array encoding is applied as a combination).
export function encodingSpecs(scope, encoding, context = {}) {
  encodingKinds(encoding);
  if (!Array.isArray(encoding)) return [encodingSpec(scope, encoding, context)];
  return encoding.map((e, i) => encodingSpec(scope, e, { ...context, field: `encoding[${i}]` }));
}

// What the binding reads into posenc's struct for one encoding (bindings/call.cpp, posenc::registry::encodingFrom): the
// given keys, each checked against its registry type; tables placed on the heap as [offset, length].
// Defaults and value rules are the C++ core's. `encoding` must be an object (callers pass
// {kind: 'none'} for an omitted one); headDim and heads come from the call (rope's headDim is the
// attention's; scalar biases default to its heads).
export function encodingSpec(scope, encoding, { headDim, heads, field = 'encoding' } = {}) {
  const kind = encodingKind(encoding, field);
  const f = (name) => `${field}.${name}`;
  if (kind === 'rope') return { kind, ...ropeSpec(encoding, { prefix: `${field}.`, where: field, headDim, headDimOf: "the attention's headDim" }) };
  const spec = { kind };
  for (const [key, entry] of entriesOf(`encoding.${kind}`)) {
    const x = key === 'heads' ? encoding.heads ?? heads : encoding[key];
    if (key === 'kind' || (x === undefined && key !== 'heads')) continue;
    spec[key] = SHAPE[entry.type]?.(scope, x, f(key)) ?? checkValue(entry, x, f(key));
  }
  return spec;
}

// The encoding key types that are not plain values.
const SHAPE = {
  FloatInput: (scope, x, field) => scope.f32(x, field),
  '[number, number]': (scope, x, field) => {
    if (!Array.isArray(x) || x.length !== 2) throw new TypeError(`${field} must be [wh, ww] (got ${v.describe(x)})`);
    return [v.positive(x[0], `${field}[0]`), v.positive(x[1], `${field}[1]`)];
  },
  "Array<'c2p' | 'p2c'>": (scope, x, field) => {
    if (!Array.isArray(x) || x.some((t) => t !== 'c2p' && t !== 'p2c')) throw new RangeError(`${field} must be an array of 'c2p' and/or 'p2c' (got ${v.describe(x)})`);
    return x;
  },
};
