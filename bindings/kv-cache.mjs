// pe.KVCache: a JS class over the C++ KVCache (src/cache/). Validates, copies tensors in and out,
// and owns the native object (delete() / [Symbol.dispose]).
import * as v from './validate.mjs';
import { HeapBuffer, finalizers } from './heap.mjs';
import { ropeSpec } from './rope-config.mjs';
import { encodingSpecs, NO_ENCODING } from './encoding.mjs';
import { checkOptions, readOptions, belongsIn, plain, ENCODING_TABLES } from './options.mjs';

// A tensor whose token count is implied by its length: returns [length, tokens].
function tokensOf(x, field, perToken, shape) {
  const len = x instanceof HeapBuffer || ArrayBuffer.isView(x) || Array.isArray(x) ? x.length : NaN;
  if (!Number.isInteger(len)) throw new TypeError(`${field} must be a Float32Array or a buffer from pe.alloc (got ${v.describe(x)})`);
  if (len === 0 || len % perToken !== 0) throw new RangeError(`${field} must be ${shape}: a positive multiple of ${perToken} elements (got ${len})`);
  return [len, len / perToken];
}

export function makeKVCacheClass(call) {
  return class KVCache {
    #handle; #batch; #kvHeads; #headDim; #capacity;

    constructor(options) {
      const o = readOptions(options, 'KVCache', { elsewhere: belongsIn('rope', 'KVCache.rope') });
      this.#batch = o.batch;
      this.#kvHeads = o.kvHeads;
      this.#headDim = o.headDim;
      this.#capacity = o.capacity;
      const hasRope = o.rope !== undefined;
      const rope = checkOptions(o.rope, 'KVCache.rope', { field: 'rope', prefix: 'rope.', elsewhere: belongsIn('rope.scaling', 'scaling') });
      const spec = ropeSpec(rope, { prefix: 'rope.', where: 'rope', headDim: this.#headDim, headDimOf: "the cache's headDim" });
      const slots = this.#batch * this.#capacity * this.#kvHeads * this.#headDim;
      if (slots * 8 > 2 ** 32 - 2 ** 26) throw new RangeError(`capacity: ${slots} key/value floats do not fit the 4 GiB wasm heap`);
      const handle = this.#handle = call('cache.create', { ...plain(o), rope: hasRope ? spec : undefined }).value;
      finalizers.register(this, () => call('cache.delete', { cache: handle }), this);
    }

    get batch() { return this.#batch; }
    get capacity() { return this.#capacity; }

    #live() {
      if (!this.#handle) throw new RangeError('KVCache has been deleted');
      return this.#handle;
    }

    // k, v: raw [batch, kvHeads, T, headDim]; positions / mask: [batch * T].
    append(k, vals, options) {
      const h = this.#live();
      const o = checkOptions(options, 'KVCache.append', { where: 'append options' });
      const [len, T] = tokensOf(k, 'k', this.#batch * this.#kvHeads * this.#headDim, '[batch, kvHeads, T, headDim]');
      const positions = o.positions === undefined ? undefined : v.positions(o.positions, 'positions');
      const maskPositions = o.maskPositions === undefined ? undefined : v.positions(o.maskPositions, 'maskPositions');
      const mask = o.mask === undefined ? undefined : v.mask(o.mask, 'mask');
      call('cache.append', (s) => ({
        cache: h, tokens: T, k: s.f32(k, 'k', len), v: s.f32(vals, 'v', len), mask: mask && s.bytes(mask, 'mask'),
        positions: positions && s.i32(positions, 'positions'), maskPositions: maskPositions && s.i32(maskPositions, 'maskPositions'),
      }));
      return this;
    }

    // q: [batch, heads, qLen, headDim] -> { out } of the same shape.
    attend(q, options) {
      const h = this.#live();
      const o = readOptions(options, 'KVCache.attend', { where: 'attend options', elsewhere: belongsIn('encoding', ...ENCODING_TABLES) });
      const { heads } = o;
      // q's size fixes heads * qLen only: when it does not fit, say which heads was assumed
      const rows = this.#batch * this.#headDim, qn = ArrayBuffer.isView(q) || q instanceof HeapBuffer || Array.isArray(q) ? q.length : NaN;
      if (Number.isInteger(qn) && qn > 0 && qn % rows === 0 && (qn / rows) % heads !== 0)
        throw new RangeError(`heads (${heads}) does not fit q: q holds ${qn / rows} head vectors per batch row ([batch = ${this.#batch}, heads, qLen, headDim = ${this.#headDim}]), not a multiple of heads`);
      const [len, qLen] = tokensOf(q, 'q', this.#batch * heads * this.#headDim, `[batch, heads, qLen, headDim] with heads = ${heads}`);
      const qPositions = o.qPositions === undefined ? undefined : v.positions(o.qPositions, 'qPositions');
      const maskPositions = o.maskPositions === undefined ? undefined : v.positions(o.maskPositions, 'maskPositions');
      return { out: call('cache.attend', (s) => ({
        ...plain(o), cache: h, qLen, encoding: encodingSpecs(s, o.encoding ?? NO_ENCODING, { headDim: this.#headDim, heads }), q: s.f32(q, 'q', len),
        qPositions: qPositions && s.i32(qPositions, 'qPositions'), maskPositions: maskPositions && s.i32(maskPositions, 'maskPositions'),
      }), o.out).out };
    }

    shift(delta) {
      const h = this.#live();
      v.integer(delta, 'delta', { min: -(2 ** 31 - 1) });
      call('cache.shift', { cache: h, delta });
      return this;
    }

    renumber(newPositions) {
      const h = this.#live();
      const np = v.int32Array(newPositions, 'newPositions', { min: -1 });
      call('cache.renumber', (s) => ({ cache: h, positions: s.i32(np, 'newPositions') }));
      return this;
    }

    positions() {
      return call('cache.positions', { cache: this.#live() }).value;
    }

    nextPositions() {
      return call('cache.nextPositions', { cache: this.#live() }).value;
    }

    delete() { if (this.#handle) { finalizers.unregister(this); call('cache.delete', { cache: this.#handle }); this.#handle = null; } }
    [Symbol.dispose]() { this.delete(); }
  };
}
