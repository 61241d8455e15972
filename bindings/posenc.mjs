// posenc's JavaScript API: validates and converts arguments, calls the wasm core, copies results
// out. All numeric work happens in C++ (src/); this layer only shapes data.
import createPosencModule from '../dist/posenc_wasm.mjs';
import { instantiate } from './load-wasm.mjs';
import * as v from './validate.mjs';
import { HeapBuffer, withScope } from './heap.mjs';
import { ropeSpec, makeRopeConfigFromHF } from './rope-config.mjs';
import { encodingSpecs, encodingKinds, multiAxisRope, SCALAR_BIAS, NO_ENCODING } from './encoding.mjs';
import { checkOptions, readOptions, belongsIn, installRegistry, ENCODING_TABLES } from './options.mjs';
import { makeKVCacheClass } from './kv-cache.mjs';
import { makeAdditive } from './additive.mjs';
import { makeParameterCount, installParameterMethods } from './parameters.mjs';

// Turns a binding status into the matching JS error.
function check(m, status) {
  if (status === 0) return;
  const message = m.lastError();
  if (status === 1) throw new RangeError(message);
  if (status === 2) throw new TypeError(message);
  throw new Error(`posenc internal error: ${message}`);
}

function makeApi(m) {
  installRegistry(JSON.parse(m.registry()));
  installParameterMethods();
  const run = (fn) => withScope(m, fn);

  function sinusoidal(positions, options) {
    const o = readOptions(options, 'sinusoidal');
    const pos = v.positions(positions);
    const { dim, base, layout, paddingIdx = -1 } = o;
    return run((s) => {
      const out = s.out(pos.length * dim);
      check(m, m.sinusoidal(s.i32(pos, 'positions'), pos.length, dim, base, layout, paddingIdx, out));
      return s.result(out, pos.length * dim, o.out);
    });
  }

  function ropeFrequencies(options) {
    const where = 'ropeFrequencies options';
    const o = checkOptions(options, 'ropeFrequencies', { where, elsewhere: belongsIn('scaling', 'scaling') });
    const spec = ropeSpec(o, { where });  // layout is checked too: frequencies do not depend on it, but it must be valid
    return run((s) => {
      const n = 3 + spec.headDim;
      const out = s.alloc(n * 8, 'invFreq');
      check(m, m.ropeFrequencies(spec, out));
      const raw = new Float64Array(m.HEAPF64.buffer, out, n);
      const rotaryDim = raw[0], axes = raw[2], h = rotaryDim / 2;
      const result = { invFreq: Float32Array.from(raw.subarray(3, 3 + h)), attentionScale: raw[1], rotaryDim };
      if (axes > 1) Object.assign(result, { axes, axisOfPair: Int32Array.from(raw.subarray(3 + h, 3 + 2 * h)) });
      return result;
    });
  }

  // Shared by applyRope and rotateByDelta (`name`): validate, place x on the heap, rotate, copy out.
  function rotate(name, x, shape, options, prepare, callBinding) {
    const { heads, tokens, headDim } = readOptions(shape, 'shape', { field: 'shape', where: `${name} shape` });
    const where = `${name} options`;
    const o = checkOptions(options, 'applyRope', { where, elsewhere: belongsIn('scaling', 'scaling') });
    const spec = ropeSpec(o, { where, headDim, headDimOf: "the shape's headDim" });
    const inPlace = v.boolean(o.inPlace, 'inPlace', false);
    if (inPlace && !(x instanceof Float32Array) && !(x instanceof HeapBuffer))
      throw new TypeError(`x must be a Float32Array or a buffer from pe.alloc with inPlace: true (got ${v.describe(x)})`);
    const extra = prepare(tokens, spec);
    const n = heads * tokens * headDim;
    return run((s) => {
      const ptr = s.f32(x, 'x', n);  // a HeapBuffer is used where it lies, so inPlace needs no copy
      const heapX = x instanceof HeapBuffer;
      let work = ptr;
      if (heapX && !inPlace) {  // leave the caller's buffer untouched
        work = s.out(n);
        m.HEAPU8.copyWithin(work, ptr, ptr + n * 4);
      }
      check(m, callBinding(spec, work, heads, tokens, headDim, extra(s)));
      if (inPlace) return heapX ? x : s.result(work, n, x);
      return s.result(work, n, o.out);
    });
  }

  function applyRope(x, shape, positions, options) {
    return rotate('applyRope', x, shape, options, (tokens, spec) => {
      const pos = v.positions(positions);
      const axes = !spec.multiAxis ? 1 : spec.multiAxis === 2 ? 2 : spec.sections?.length ?? 0;
      v.requireLength(pos.length, tokens * axes, 'positions', axes > 1 ? `[axes = ${axes}, tokens]` : 'one per token');
      return (s) => s.i32(pos, 'positions');
    }, (...a) => m.applyRope(...a));
  }

  // Rotates already-rotated vectors by a position delta per token (negative = backwards), without
  // applying the attention scale again: how cached keys are moved when positions are renumbered.
  function rotateByDelta(x, shape, deltas, options) {
    return rotate('rotateByDelta', x, shape, options, (tokens) => {
      const d = v.int32Array(deltas, 'deltas', { min: -(2 ** 31 - 1) });
      v.requireLength(d.length, tokens, 'deltas', 'one per token');
      return (s) => s.f64(Float64Array.from(d), 'deltas');
    }, (...a) => m.rotateByDelta(...a));
  }

  // --- attention and score terms ------------------------------------------------------------------
  function attention(args) {
    const a = readOptions(args, 'attention', { field: 'args', where: 'attention args', elsewhere: belongsIn('encoding', ...ENCODING_TABLES) });
    const { heads, kvHeads = heads, headDim, qLen, kLen, causal, window = 0, chunk = 0, scale = NaN, returnWeights, returnScores } = a;
    const qPositions = a.qPositions === undefined ? null : v.positions(a.qPositions, 'qPositions');
    const kPositions = a.kPositions === undefined ? null : v.positions(a.kPositions, 'kPositions');
    const maskPositions = a.maskPositions === undefined ? null : v.positions(a.maskPositions, 'maskPositions');
    // with multi-axis RoPE positions are [axes, len] (the core checks them against the rope's axes)
    if (!multiAxisRope(a.encoding)) {
      if (qPositions) v.requireLength(qPositions.length, qLen, 'qPositions', 'qLen');
      if (kPositions) v.requireLength(kPositions.length, kLen, 'kPositions', 'kLen');
    }
    const keyMask = a.keyMask === undefined ? null : v.mask(a.keyMask, 'keyMask');
    if (keyMask) v.requireLength(keyMask.length, kLen, 'keyMask', 'kLen');
    if (heads % kvHeads !== 0) throw new RangeError(`heads (${heads}) must be a multiple of kvHeads (${kvHeads})`);
    const qn = heads * qLen * headDim, kn = kvHeads * kLen * headDim, wn = heads * qLen * kLen;
    return run((s) => {
      const spec = encodingSpecs(s, a.encoding ?? NO_ENCODING, { headDim, heads });
      const q = s.f32(a.q, 'q', qn), k = s.f32(a.k, 'k', kn), vv = s.f32(a.v, 'v', kn);
      const out = s.out(qn);
      const weights = returnWeights ? s.out(wn, 'weights') : 0;
      const scores = returnScores ? s.out(wn, 'scores') : 0;
      let mask = 0;
      if (keyMask) { mask = s.alloc(kLen, 'keyMask'); m.HEAPU8.set(keyMask, mask); }
      check(m, m.attention({
        heads, kvHeads, headDim, qLen, kLen, q, k, v: vv,
        qPositions: qPositions ? s.i32(qPositions, 'qPositions') : 0, kPositions: kPositions ? s.i32(kPositions, 'kPositions') : 0,
        qPositionsLength: qPositions ? qPositions.length : 0, kPositionsLength: kPositions ? kPositions.length : 0,
        maskPositions: maskPositions ? s.i32(maskPositions, 'maskPositions') : 0, maskPositionsLength: maskPositions ? maskPositions.length : 0,
        keyMask: mask, causal, window, chunk, scale, out, weights, scores,
      }, spec));
      const result = { out: s.result(out, qn, a.out) };
      if (returnWeights) result.weights = s.result(weights, wn);
      if (returnScores) result.scores = s.result(scores, wn);
      return result;
    });
  }

  function attentionBias(encoding, qPositions, kPositions) {
    const qp = v.positions(qPositions, 'qPositions'), kp = v.positions(kPositions, 'kPositions');
    const kinds = encodingKinds(encoding);
    const other = kinds.find((k) => !SCALAR_BIAS.includes(k));
    if (other) throw new RangeError(`encoding.kind must be a scalar-bias encoding (${SCALAR_BIAS.map((k) => `'${k}'`).join(', ')}, or an array of them) (got '${other}')`);
    return run((s) => {
      const specs = encodingSpecs(s, encoding);
      const heads = specs[0].heads;
      specs.forEach((p, i) => { if (p.heads !== heads) throw new RangeError(`encoding[${i}].heads (${p.heads}) must equal encoding[0].heads (${heads})`); });
      const n = heads * qp.length * kp.length;
      const out = s.out(n);
      check(m, m.attentionBias(specs, heads, s.i32(qp, 'qPositions'), qp.length, s.i32(kp, 'kPositions'), kp.length, out));
      return s.result(out, n);
    });
  }

  function t5Bucket(relativePositions, options) {
    const o = readOptions(options, 't5Bucket');
    const rel = v.int32Array(relativePositions, 'relativePositions');
    return run((s) => {
      const out = s.alloc(rel.length * 4, 'out');
      check(m, m.t5Buckets(s.i32(rel, 'relativePositions'), rel.length, o.bidirectional, o.numBuckets, o.maxDistance, out));
      return s.int32Result(out, rel.length);
    });
  }

  function debertaBucket(relativePositions, options) {
    const { bucketSize, maxPosition, convention } = readOptions(options, 'debertaBucket');
    const rel = v.int32Array(relativePositions, 'relativePositions');
    return run((s) => {
      const out = s.alloc(rel.length * 4, 'out');
      check(m, m.debertaBuckets(s.i32(rel, 'relativePositions'), rel.length, bucketSize, maxPosition, convention, out));
      return s.int32Result(out, rel.length);
    });
  }

  function alibiSlopes(numHeads) {
    const n = v.positive(numHeads, 'numHeads', 1 << 20);
    return run((s) => {
      const out = s.alloc(n * 8, 'numHeads');
      check(m, m.alibiSlopes(n, out));
      return Float32Array.from(new Float64Array(m.HEAPF64.buffer, out, n));
    });
  }

  function swinRelativeIndex(windowSize) {
    if (!Array.isArray(windowSize) || windowSize.length !== 2) throw new TypeError(`windowSize must be [wh, ww] (got ${v.describe(windowSize)})`);
    const wh = v.positive(windowSize[0], 'windowSize[0]'), ww = v.positive(windowSize[1], 'windowSize[1]');
    const n = wh * ww;
    if (n > 16384) throw new RangeError(`windowSize gives ${n} tokens per window; at most 16384 supported`);
    return run((s) => {
      const out = s.alloc(n * n * 4, 'windowSize');
      check(m, m.swinRelativeIndex(wh, ww, out));
      return s.int32Result(out, n * n);
    });
  }

  // One entry per encoding kind and additive function, from the C++ table (src/registry.cpp).
  let descriptions;
  function describe() {
    descriptions ??= Object.freeze(m.describe().map((d) => Object.freeze(d)));
    return descriptions;
  }

  return {
    sinusoidal,
    ...makeAdditive(m, run, check),
    parameterCount: makeParameterCount(m, check),
    ropeFrequencies,
    ropeConfigFromHF: makeRopeConfigFromHF(m, check),
    applyRope,
    rotateByDelta,
    attention,
    attentionBias,
    t5Bucket,
    debertaBucket,
    alibiSlopes,
    swinRelativeIndex,
    describe,
    KVCache: makeKVCacheClass(m, run, check),
    alloc(length) { return new HeapBuffer(m, v.positive(length, 'length', 2 ** 30 - 16)); },
    /** Bytes in the wasm heap now (it grows on demand and never shrinks). */
    heapBytes() { return m.HEAPU8.length; },
    /** Benchmark yardstick: memcpy between two heap buffers inside wasm. */
    copyBuffer(dst, src) {
      if (!(dst instanceof HeapBuffer) || !(src instanceof HeapBuffer)) throw new TypeError('copyBuffer takes two buffers from pe.alloc');
      v.requireLength(dst.length, src.length, 'dst');
      m.copyBytes(dst.byteOffset, src.byteOffset, src.length * 4);
    },
  };
}

// ---- loading: the single-thread module, or the threaded one (pthreads) where SharedArrayBuffer works ----
const loading = new Map();  // thread count -> Promise<API>

// What `threads` asks for, resolved to a count: 'auto' = every core where shared memory works (Node;
// a browser page only when crossOriginIsolated), else 1; a number caps that.
function resolveThreads(options) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`load options must be an object (got ${v.describe(options)})`);
  for (const key of Object.keys(options))
    if (key !== 'threads') throw new TypeError(`unknown load option '${key}' (known: threads)`);
  const t = options.threads ?? 'auto';
  if (t !== 'auto' && typeof t !== 'number') throw new TypeError(`threads must be 'auto' or a positive integer (got ${v.describe(t)})`);
  if (typeof t === 'number' && !(Number.isInteger(t) && t >= 1)) throw new RangeError(`threads must be 'auto' or a positive integer (got ${t})`);
  const shared = typeof SharedArrayBuffer === 'function' && (isNode() || globalThis.crossOriginIsolated === true);
  if (!shared) return 1;
  const cores = Math.max(1, Number(globalThis.navigator?.hardwareConcurrency) || nodeCores() || 1);
  return Math.min(t === 'auto' ? cores : t, cores, MAX_THREADS);
}
const MAX_THREADS = 16;  // workers are created at load, each holding an instance of the module
const isNode = () => typeof process === 'object' && typeof process.versions?.node === 'string';
const nodeCores = () => (isNode() ? process.getBuiltinModule?.('node:os')?.availableParallelism?.() : 0);

// The threaded module: `threads - 1` pthread workers created at load (the calling thread is the other).
// Node loads the CommonJS build (its workers are reached through require); browsers the ES6 one, from
// next to this file. Resolves to null where it cannot load, and the single-thread module is used.
async function createThreadedModule(threads) {
  const config = { posencWorkers: threads - 1 };
  try {
    if (isNode()) {
      const nodeRequire = process.getBuiltinModule?.('node:module')?.createRequire(import.meta.url);
      if (!nodeRequire) return null;  // Node before 20.16
      // its pthread worker script, and the .wasm the browser module shares (read here: Emscripten 3.1.6
      // would fetch() a path, which Node's fetch refuses)
      const worker = nodeRequire.resolve('../dist/posenc_wasm_threads_node.worker.cjs');
      config.wasmBinary = process.getBuiltinModule('node:fs').readFileSync(nodeRequire.resolve('../dist/posenc_wasm_threads.wasm'));
      config.locateFile = (f) => (f.endsWith('.worker.js') ? worker : f);
      const m = await nodeRequire('../dist/posenc_wasm_threads_node.cjs')(config);
      for (const w of m.posencPthreadWorkers()) w.unref?.();  // idle workers never keep Node running
      return m;
    }
    const url = new URL('../dist/posenc_wasm_threads.mjs', import.meta.url).href;  // not bundled: loaded from beside this file
    return await instantiate((await import(/* webpackIgnore: true */ /* @vite-ignore */ url)).default, config);
  } catch {
    for (const w of config.posencPthreadWorkers?.() ?? []) w.terminate();  // a failed load leaves no worker behind
    return null;
  }
}

async function loadApi(threads) {
  const m = (threads > 1 && (await createThreadedModule(threads))) || (await instantiate(createPosencModule));
  const api = makeApi(m);
  const chosen = m.setThreadCount(m.posencPthreadWorkers ? threads : 1);  // the C++ pool's count, read back
  Object.defineProperty(api, 'threads', { value: chosen, enumerable: true });
  return api;
}

// Instantiates the wasm module (once per thread count) and resolves to the API object.
export function load(options) {
  const threads = resolveThreads(options);
  if (!loading.has(threads)) loading.set(threads, loadApi(threads));
  return loading.get(threads);
}

export default load;
