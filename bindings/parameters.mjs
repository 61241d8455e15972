// Learned parameter counts per method (the seed survey's comparison), from the shapes a method's
// options describe: the formulas are the C++ registry's (src/registry.cpp parameterCount), the tables
// 'parameterCount.<method>' say which shapes each takes. Every size is checked (a positive integer,
// by its registry entry), so a count is never negative or fractional.
import * as v from './validate.mjs';
import { OPTIONS, readOptions, quoted, entriesOf } from './options.mjs';

// Methods in registry order (live: filled at load).
export let PARAMETER_METHODS = [];
export function installParameterMethods() {
  PARAMETER_METHODS = Object.freeze(Object.keys(OPTIONS).filter((n) => n.startsWith('parameterCount.')).map((n) => n.slice(15)));
}

// The shape keys that are not plain values: checked here, passed as arrays.
const SHAPES = {
  IntInput: (x, field) => Array.from(v.int32Array(x, field, { min: 1 })),
  '[number, number]': (x, field) => {
    if (!Array.isArray(x) || x.length !== 2) throw new TypeError(`${field} must be [h, w] (got ${v.describe(x)})`);
    return [v.positive(x[0], `${field}[0]`), v.positive(x[1], `${field}[1]`)];
  },
};

export function makeParameterCount(call) {
  return function parameterCount(method, options) {
    if (typeof method !== 'string') throw new TypeError(`method must be a string (got ${v.describe(method)})`);
    // an own-property check: 'constructor' or 'toString' must not find Object.prototype's methods
    if (!PARAMETER_METHODS.includes(method)) throw new RangeError(`method must be one of ${quoted(PARAMETER_METHODS)} (got '${method}')`);
    const table = `parameterCount.${method}`;
    const o = readOptions(options, table, { where: `parameterCount('${method}') options` });
    for (const [key, entry] of entriesOf(table)) if (SHAPES[entry.type]) o[key] = SHAPES[entry.type](o[key], key);
    const n = call('parameterCount', { ...o, method }).value;
    if (!Number.isSafeInteger(n)) throw new RangeError(`parameterCount('${method}'): ${n} parameters cannot be counted exactly (more than 2^53)`);
    return n;
  };
}
