// Moving tensors in and out of the wasm heap. Results are always copied out into fresh JS-owned
// typed arrays, because heap growth detaches every view into the old buffer.
import { float32Array, requireLength } from './validate.mjs';

const MAX_BYTES = 2 ** 32 - 64;

// A heap-resident Float32 buffer for the zero-copy path (`pe.alloc`).
export class HeapBuffer {
  #module; #ptr; #length;
  constructor(module, length) {
    this.#module = module;
    this.#length = length;
    this.#ptr = mallocOrThrow(module, length * 4, 'length');
  }
  get length() { return this.#length; }
  get byteOffset() { this.#alive(); return this.#ptr; }
  // A Float32Array over the heap. Call again after any allocation: growth detaches old views.
  view() { this.#alive(); return new Float32Array(this.#module.HEAPF32.buffer, this.#ptr, this.#length); }
  delete() { if (this.#ptr) { this.#module._free(this.#ptr); this.#ptr = 0; } }
  [Symbol.dispose]() { this.delete(); }
  get deleted() { return this.#ptr === 0; }
  #alive() { if (!this.#ptr) throw new RangeError('buffer has been deleted'); }
}

function mallocOrThrow(module, bytes, field) {
  if (bytes > MAX_BYTES) throw new RangeError(`${field} needs ${bytes} bytes, more than the 4 GiB wasm heap can hold`);
  const p = module._malloc(Math.max(bytes, 8));
  if (!p) throw new RangeError(`${field} needs ${bytes} bytes, more than the wasm heap can hold now`);
  return p;
}

// One call's temporary heap allocations, all freed by `release()`.
export class Scope {
  constructor(module) { this.m = module; this.ptrs = []; }
  alloc(bytes, field) { const p = mallocOrThrow(this.m, bytes, field); this.ptrs.push(p); return p; }
  release() { for (const p of this.ptrs) this.m._free(p); this.ptrs.length = 0; }

  // A float tensor argument: a HeapBuffer is used where it lies, anything else is copied in.
  f32(value, field, expectedLength) {
    if (value instanceof HeapBuffer) {
      if (value.deleted) throw new RangeError(`${field} is a buffer that has been deleted`);
      if (expectedLength !== undefined) requireLength(value.length, expectedLength, field);
      return value.byteOffset;
    }
    const a = float32Array(value, field);
    if (expectedLength !== undefined) requireLength(a.length, expectedLength, field);
    const p = this.alloc(a.length * 4, field);
    this.m.HEAPF32.set(a, p >> 2);
    return p;
  }
  i32(array, field) {  // array: an already validated Int32Array
    const p = this.alloc(array.length * 4, field);
    this.m.HEAP32.set(array, p >> 2);
    return p;
  }
  f64(array, field) {
    const p = this.alloc(array.length * 8, field);
    this.m.HEAPF64.set(array, p >> 3);
    return p;
  }
  // Room for a float result; the caller copies it out with `result`.
  out(length, field = 'out') { return this.alloc(length * 4, field); }

  // Copies a float result out of the heap: into `out` (a HeapBuffer or Float32Array) when given.
  result(ptr, length, out) {
    const src = new Float32Array(this.m.HEAPF32.buffer, ptr, length);
    if (out === undefined) return src.slice();
    if (out instanceof HeapBuffer) {
      if (out.deleted) throw new RangeError('out is a buffer that has been deleted');
      requireLength(out.length, length, 'out');
      if (out.byteOffset !== ptr) out.view().set(src);
      return out;
    }
    if (!(out instanceof Float32Array)) throw new TypeError('out must be a Float32Array or a buffer from pe.alloc');
    requireLength(out.length, length, 'out');
    out.set(src);
    return out;
  }
  int32Result(ptr, length) { return new Int32Array(this.m.HEAP32.buffer, ptr, length).slice(); }
}

// Runs fn(scope) and frees the scope's allocations whatever happens.
export function withScope(module, fn) {
  const scope = new Scope(module);
  try { return fn(scope); } finally { scope.release(); }
}

