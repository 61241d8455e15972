// Argument checks shared by the JS layer. Type problems throw TypeError, value problems RangeError;
// every message starts with the field name as the API spells it.

export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return v.constructor.name;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

export function number(v, field) {
  if (typeof v !== 'number') throw new TypeError(`${field} must be a number (got ${describe(v)})`);
  if (!Number.isFinite(v)) throw new RangeError(`${field} must be a finite number (got ${v})`);
  return v;
}

export function integer(v, field, { min = -(2 ** 31), max = 2 ** 31 - 1 } = {}) {
  number(v, field);
  if (!Number.isInteger(v)) throw new RangeError(`${field} must be an integer (got ${v})`);
  if (v < min || v > max) {
    const what = min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer in [${min}, ${max}]`;
    throw new RangeError(`${field} must be ${what}${v > max ? ` no larger than ${max}` : ''} (got ${v})`);
  }
  return v;
}

export const positive = (v, field, max) => integer(v, field, { min: 1, max });
export const nonNegative = (v, field) => integer(v, field, { min: 0 });

const INTEGER_TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array];

// Integers (positions, masks, relative positions) as an Int32Array, checking every element.
export function int32Array(v, field, { min = -(2 ** 31), max = 2 ** 31 - 1 } = {}) {
  let out;
  if (v instanceof Int32Array) out = v;
  else if (INTEGER_TYPED.some((T) => v instanceof T)) out = Int32Array.from(v);
  else if (Array.isArray(v) || v instanceof Float32Array || v instanceof Float64Array) {
    out = new Int32Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== 'number') throw new TypeError(`${field}[${i}] must be a number (got ${describe(x)})`);
      if (!Number.isInteger(x)) throw new RangeError(`${field}[${i}] must be an integer (got ${x})`);
      if (x < -(2 ** 31) || x > 2 ** 31 - 1) throw new RangeError(`${field}[${i}] must fit in 32 bits (got ${x})`);
      out[i] = x;
    }
  } else {
    throw new TypeError(`${field} must be an Int32Array or an array of integers (got ${describe(v)})`);
  }
  if (v instanceof Uint32Array) {
    for (let i = 0; i < v.length; i++) if (v[i] > 2 ** 31 - 1) throw new RangeError(`${field}[${i}] must fit in 32 bits (got ${v[i]})`);
  }
  if (min > -(2 ** 31) || max < 2 ** 31 - 1) {
    for (let i = 0; i < out.length; i++) {
      if (out[i] < min || out[i] > max) {
        const what = min === 0 && max === 1 ? '0 or 1' : min === 0 ? 'a position >= 0' : `in [${min}, ${max}]`;
        throw new RangeError(`${field}[${i}] must be ${what} (got ${out[i]})`);
      }
    }
  }
  return out;
}

export const positions = (v, field = 'positions') => int32Array(v, field, { min: 0 });
export const mask = (v, field = 'mask') => int32Array(v, field, { min: 0, max: 1 });

// Float data: Float32Array as is; Float64Array (and Float16Array where it exists) and arrays of numbers
// are converted. Integer typed arrays are refused: fp16 tensors usually arrive as Uint16Array bit
// patterns, and converting those as integers would be silently wrong.
export function float32Array(v, field) {
  if (v instanceof Float32Array) return v;
  if (INTEGER_TYPED.some((T) => v instanceof T)) {
    throw new TypeError(`${field} must be a Float32Array, not an integer array (got ${v.constructor.name}): fp16 data in a ` +
      `${v.constructor.name} holds bit patterns, not values — decode it first (a Float16Array, or a float16 decoder into a Float32Array)`);
  }
  if (v instanceof Float64Array || (ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array))) return Float32Array.from(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'number') throw new TypeError(`${field}[${i}] must be a number (got ${describe(v[i])})`);
    }
    return Float32Array.from(v);
  }
  throw new TypeError(`${field} must be a Float32Array or an array of numbers (got ${describe(v)})`);
}

export function requireLength(length, expected, field, shape) {
  if (length !== expected) throw new RangeError(`${field} must have ${expected} elements${shape ? ` (${shape})` : ''} (got ${length})`);
}
