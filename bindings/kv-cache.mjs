// pe.KVCache: a JS class over the C++ KVCache (src/cache/): copies tensors in and out, and owns the
// native object (delete() / [Symbol.dispose]). Options and sizes are checked by the core.
import * as v from './validate.mjs';
import { finalizers } from './heap.mjs';
import { wire, outOf } from './options.mjs';

export function makeKVCacheClass(call) {
  return class KVCache {
    #handle; #batch; #capacity; #storage;

    constructor(options) {
      const r = call('cache.create', (s) => ({ options: wire(s, options, 'KVCache') }));
      const handle = this.#handle = r.value;
      this.#batch = r.batch;
      this.#capacity = r.capacity;
      this.#storage = r.storage;
      finalizers.register(this, () => call('cache.delete', { cache: handle }), this);
    }

    get batch() { return this.#batch; }
    get capacity() { return this.#capacity; }
    get storage() { return this.#storage; }
    // Bytes held for keys and values (more while keys are held past capacity for a long append).
    get bytes() { return call('cache.bytes', { cache: this.#live() }).value; }

    #live() {
      if (!this.#handle) throw new RangeError('KVCache has been deleted');
      return this.#handle;
    }

    // k, v: raw [batch, kvHeads, T, headDim] (floats, or f16 / bf16 bits with kvType); positions / mask: [batch * T].
    append(k, vals, options) {
      const cache = this.#live();
      call('cache.append', (s) => ({ cache, k: s.kv(k, 'k'), v: s.kv(vals, 'v'), options: wire(s, options, 'KVCache.append') }));
      return this;
    }

    // q: [batch, heads, qLen, headDim] -> { out } of the same shape.
    attend(q, options) {
      const cache = this.#live();
      return { out: call('cache.attend', (s) => ({ cache, q: s.f32(q, 'q'), options: wire(s, options, 'KVCache.attend') }), outOf(options)).out };
    }

    shift(delta) {
      const cache = this.#live();
      call('cache.shift', { cache, delta: v.integer(delta, 'delta', { min: -(2 ** 31 - 1) }) });
      return this;
    }

    renumber(newPositions) {
      const cache = this.#live();
      const np = v.int32Array(newPositions, 'newPositions', { min: -1 });
      call('cache.renumber', (s) => ({ cache, positions: s.i32(np, 'newPositions') }));
      return this;
    }

    positions() { return call('cache.positions', { cache: this.#live() }).value; }
    nextPositions() { return call('cache.nextPositions', { cache: this.#live() }).value; }

    delete() { if (this.#handle) { finalizers.unregister(this); call('cache.delete', { cache: this.#handle }); this.#handle = null; } }
    [Symbol.dispose]() { this.delete(); }
  };
}
