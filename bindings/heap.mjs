// Moving tensors in and out of the wasm heap. Results are always copied out into fresh JS-owned
// typed arrays, because heap growth detaches every view into the old buffer.
import { float32Array, requireLength, describe } from './validate.mjs';

const MAX_BYTES = 2 ** 32 - 64;

// Heap addresses run to 4 GiB: a pointer returned by the module is a signed i32 in JS, read as unsigned
// (`>>> 0`), and element indices are `>>> 2`. The threaded module's views of the heap are brought up to
// date first (a worker thread may have grown the memory: this thread's views then end at the old size).
export const heap = (m) => (m.posencSyncViews?.(), m);

// Heap memory of a HeapBuffer or a KVCache that becomes unreachable without delete() is given back when
// the garbage collector finalizes its owner (late and not guaranteed: delete() is the way to free it now).
export const finalizers = new FinalizationRegistry((free) => free());

// A heap-resident Float32 buffer for the zero-copy path (`pe.alloc`).
export class HeapBuffer {
  #module; #ptr; #length;
  constructor(module, length) {
    this.#module = module;
    this.#length = length;
    const ptr = this.#ptr = mallocOrThrow(module, length * 4, 'length');
    finalizers.register(this, () => module._free(ptr), this);
  }
  get length() { return this.#length; }
  get byteOffset() { this.#alive(); return this.#ptr; }
  // A Float32Array over the heap. Call again after any allocation: growth detaches old views.
  view() { this.#alive(); return new Float32Array(heap(this.#module).HEAPF32.buffer, this.#ptr, this.#length); }
  delete() { if (this.#ptr) { finalizers.unregister(this); this.#module._free(this.#ptr); this.#ptr = 0; } }
  [Symbol.dispose]() { this.delete(); }
  get deleted() { return this.#ptr === 0; }
  #alive() { if (!this.#ptr) throw new RangeError('buffer has been deleted'); }
}

function mallocOrThrow(module, bytes, field) {
  if (bytes > MAX_BYTES) throw new RangeError(`${field} needs ${bytes} bytes, more than the 4 GiB wasm heap can hold`);
  const p = module._malloc(Math.max(bytes, 8)) >>> 0;
  if (!p) throw new RangeError(`${field} needs ${bytes} bytes; ${heapRoom(module)}`);
  return p;
}

// What the heap can still give, as the core words it for its own refusals (bindings/call.cpp).
export function heapRoom(module) {
  const size = heap(module).HEAPU8.length, free = module._posenc_heap_free() >>> 0;
  return `the wasm heap has ${free} bytes free (in pieces) and can grow by ${HEAP_MAX - size} bytes (to 4 GiB)`;
}
const HEAP_MAX = 2 ** 32 - 65536;  // the module's maximum memory (-sMAXIMUM_MEMORY=4GB, in whole pages)

// One call's temporary heap allocations, all freed by `release()`.
export class Scope {
  constructor(module) { this.m = module; this.ptrs = []; }
  alloc(bytes, field) { const p = mallocOrThrow(this.m, bytes, field); this.ptrs.push(p); return p; }
  release() { for (const p of this.ptrs) this.m._free(p); this.ptrs.length = 0; }

  // A float tensor argument as {"@": [heap offset, length]}: a HeapBuffer is used where it lies,
  // anything else is copied in.
  f32(value, field) {
    if (value instanceof HeapBuffer) {
      if (value.deleted) throw new RangeError(`${field} is a buffer that has been deleted`);
      return { '@': [value.byteOffset, value.length] };
    }
    const a = float32Array(value, field);
    const p = this.alloc(a.length * 4, field);
    heap(this.m).HEAPF32.set(a, p >>> 2);
    return { '@': [p, a.length] };
  }
  // K or V given as a Uint16Array: placed as the 16-bit patterns they are ({"@": ..., "bits": 16}); the core
  // reads them as f16 / bf16 values with kvType, and refuses them as floats without it.
  u16(array, field) {
    const p = this.alloc(array.length * 2, field);
    heap(this.m).HEAPU16.set(array, p >>> 1);
    return { '@': [p, array.length], bits: 16 };
  }
  // A K / V argument: a Uint16Array as bits, anything else as floats.
  kv(value, field) { return value instanceof Uint16Array ? this.u16(value, field) : this.f32(value, field); }
  i32(array, field) {  // array: an already validated Int32Array
    const p = this.alloc(array.length * 4, field);
    heap(this.m).HEAP32.set(array, p >>> 2);
    return { '@': [p, array.length] };
  }
  bytes(array, field) {  // a validated 0/1 mask
    const p = this.alloc(array.length, field);
    heap(this.m).HEAPU8.set(array, p);
    return { '@': [p, array.length] };
  }

  // Copies a float result out of the heap: into `out` (a HeapBuffer or Float32Array) when given.
  result(ptr, length, out) {
    const src = new Float32Array(heap(this.m).HEAPF32.buffer, ptr, length);
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
  int32Result(ptr, length) { return new Int32Array(heap(this.m).HEAP32.buffer, ptr, length).slice(); }

  // Runs one operation of the core (bindings/call.cpp): `args` are JSON values, tensors among them
  // from f32 / i32 / bytes; values JSON cannot carry are tagged (jsonSafe). Resolves to the core's answer with its result
  // tensors copied out into typed arrays; the one named "out" into the caller's `out` when given (a
  // buffer from pe.alloc is written where it lies).
  call(op, args, out) {
    const m = this.m;
    args.op = op;  // (args: a fresh object of the caller's)
    if (out instanceof HeapBuffer) args.out = this.f32(out, 'out');
    const [request, length] = writeRequest(m, JSON.stringify(args, jsonSafe));
    const status = m._posenc_call(request, length);
    if (status !== 0) throw errorOf(status, readText(m, m._posenc_error() >>> 0));
    try {
      const answer = JSON.parse(readText(m, m._posenc_answer() >>> 0, m._posenc_answer_length() >>> 0));
      for (const key in answer) {
        const x = answer[key];
        if (!Array.isArray(x) || (x[0] !== 'f32' && x[0] !== 'i32')) continue;
        answer[key] = x[0] === 'i32' ? this.int32Result(x[1], x[2]) : this.result(x[1], x[2], key === 'out' ? out : undefined);
      }
      return answer;
    } finally {
      m._posenc_release();
    }
  }
}

// JSON.stringify would write NaN and Infinity as null (read as "given as null"), drop undefined in a list
// and functions, and throw on BigInt: each becomes a tag the core's messages describe (src/registry_check.hpp).
function jsonSafe(key, x) {
  if (typeof x === 'number') return Number.isFinite(x) ? x : { $number: String(x) };
  if (x === undefined) return Array.isArray(this) ? { $js: 'undefined' } : undefined;
  return typeof x === 'bigint' || typeof x === 'function' || typeof x === 'symbol' || ArrayBuffer.isView(x) ? { $js: describe(x) } : x;
}

const ENCODER = new TextEncoder(), DECODER = new TextDecoder();
const shared = (m) => typeof SharedArrayBuffer === 'function' && m.HEAPU8.buffer instanceof SharedArrayBuffer;

// A request's UTF-8 text, in one heap buffer per module that grows and is kept (no allocation per call).
// Browsers encode into and decode from no view of a shared (threaded) heap: there the text is copied.
function writeRequest(m, text) {
  const room = 3 * text.length;  // UTF-8 bytes per UTF-16 unit: at most 3
  const buf = (m.posencRequest ??= { ptr: 0, size: 0 });
  if (buf.size < room) {
    const size = Math.max(room, 2 * buf.size, 1024), ptr = mallocOrThrow(m, size, 'request');
    if (buf.ptr) m._free(buf.ptr);
    Object.assign(buf, { ptr, size });
  }
  if (!shared(m)) return [buf.ptr, ENCODER.encodeInto(text, heap(m).HEAPU8.subarray(buf.ptr, buf.ptr + buf.size)).written];
  const bytes = ENCODER.encode(text);
  heap(m).HEAPU8.set(bytes, buf.ptr);
  return [buf.ptr, bytes.length];
}

// Text the core wrote (NUL-terminated unless `length` is given).
function readText(m, ptr, length) {
  const bytes = heap(m).HEAPU8;
  let end = ptr + (length ?? 0);
  if (length === undefined) while (bytes[end]) end++;
  return DECODER.decode(shared(m) ? bytes.slice(ptr, end) : bytes.subarray(ptr, end));
}

// The JS error a failed call's status stands for (bindings/call.cpp).
function errorOf(status, message) {
  if (status === 1) return new RangeError(message);
  if (status === 2) return new TypeError(message);
  return new Error(`posenc internal error: ${message}`);
}

// Runs fn(scope) and frees the scope's allocations whatever happens.
export function withScope(module, fn) {
  const scope = new Scope(module);
  try { return fn(scope); } finally { scope.release(); }
}
