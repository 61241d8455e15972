// posenc's JavaScript API: converts arguments, calls the wasm core, copies results out. All numeric
// work and every option rule live in C++ (src/); this layer checks JS types and shapes data.
import createPosencModule from '../dist/posenc_wasm.mjs';
import { instantiate } from './load-wasm.mjs';
import * as v from './validate.mjs';
import { HeapBuffer, withScope, heap } from './heap.mjs';
import { makeRopeConfigFromHF, makeAttentionConfigFromHF } from './rope-config.mjs';
import { installRegistry, wire, outOf } from './options.mjs';
import { makeKVCacheClass } from './kv-cache.mjs';
import { makeAdditive } from './additive.mjs';

function makeApi(m) {
  // One operation of the core (bindings/call.cpp); `args(scope)` places tensors on the heap.
  const call = (op, args, out) => withScope(m, (s) => s.call(op, typeof args === 'function' ? args(s) : args, out));
  const registry = call('registry', {}).value;
  installRegistry(registry);
  // describe(): one entry per encoding kind and additive function, from the C++ table (src/registry.cpp)
  const descriptions = Object.freeze(registry.describe.map(Object.freeze));
  // op with its options object (checked by the core against registry table `op`), the arguments
  // extra(scope) places, and the caller's `out`.
  const run = (op, options, extra = () => ({})) => call(op, (s) => ({ options: wire(s, options, op), ...extra(s) }), outOf(options));

  function sinusoidal(positions, options) {
    const pos = v.positions(positions);
    return run('sinusoidal', options, (s) => ({ positions: s.i32(pos, 'positions') })).out;
  }

  function ropeFrequencies(options) {
    const r = run('ropeFrequencies', options);
    const result = { invFreq: r.invFreq, attentionScale: r.attentionScale, rotaryDim: r.rotaryDim };
    return r.axes ? Object.assign(result, { axes: r.axes, axisOfPair: r.axisOfPair }) : result;
  }

  // Shared by applyRope and rotateByDelta (`op`): place x on the heap (a copy unless inPlace), rotate, copy out.
  function rotate(op, x, shape, options, extra) {
    const inPlace = options?.inPlace === true;
    if (inPlace && !(x instanceof Float32Array) && !(x instanceof HeapBuffer))
      throw new TypeError(`x must be a Float32Array or a buffer from pe.alloc with inPlace: true (got ${v.describe(x)})`);
    return withScope(m, (s) => {
      let work = s.f32(x, 'x');  // a HeapBuffer is used where it lies, so inPlace needs no copy
      const heapX = x instanceof HeapBuffer, [p, n] = work['@'];
      if (heapX && !inPlace) {  // leave the caller's buffer untouched
        const copy = s.alloc(n * 4, 'out');
        heap(m).HEAPU8.copyWithin(copy, p, p + n * 4);
        work = { '@': [copy, n] };
      }
      s.call(op, { options: wire(s, options, 'applyRope'), shape, x: work, ...extra(s) });
      if (inPlace) return heapX ? x : s.result(work['@'][0], n, x);
      return s.result(work['@'][0], n, outOf(options));
    });
  }

  function applyRope(x, shape, positions, options) {
    const pos = v.positions(positions);
    return rotate('applyRope', x, shape, options, (s) => ({ positions: s.i32(pos, 'positions') }));
  }

  // Rotates already-rotated vectors by a position delta per token (negative = backwards), without
  // applying the attention scale again: how cached keys are moved when positions are renumbered.
  function rotateByDelta(x, shape, deltas, options) {
    const d = v.int32Array(deltas, 'deltas', { min: -(2 ** 31 - 1) });
    return rotate('rotateByDelta', x, shape, options, (s) => ({ deltas: s.i32(d, 'deltas') }));
  }

  // --- attention and score terms ------------------------------------------------------------------
  function attention(args) {
    const r = run('attention', args);
    const result = { out: r.out };
    if (r.weights) result.weights = r.weights;
    if (r.scores) result.scores = r.scores;
    return result;
  }

  function attentionBias(encoding, qPositions, kPositions) {
    const qp = v.positions(qPositions, 'qPositions'), kp = v.positions(kPositions, 'kPositions');
    return call('attentionBias', (s) => ({
      encoding: wire(s, { encoding }, 'attention').encoding, qPositions: s.i32(qp, 'qPositions'), kPositions: s.i32(kp, 'kPositions'),
    })).out;
  }

  // t5Bucket, debertaBucket: relative positions -> bucket indices.
  const buckets = (op) => (relativePositions, options) => {
    const rel = v.int32Array(relativePositions, 'relativePositions');
    return run(op, options, (s) => ({ relativePositions: s.i32(rel, 'relativePositions') })).out;
  };

  function alibiSlopes(numHeads) {
    return Float32Array.from(call('alibiSlopes', { numHeads: v.positive(numHeads, 'numHeads', 1 << 20) }).value);
  }

  function swinRelativeIndex(windowSize) {
    if (!Array.isArray(windowSize) || windowSize.length !== 2) throw new TypeError(`windowSize must be [wh, ww] (got ${v.describe(windowSize)})`);
    const windowH = v.positive(windowSize[0], 'windowSize[0]'), windowW = v.positive(windowSize[1], 'windowSize[1]');
    return call('swinRelativeIndex', { windowH, windowW }).out;
  }

  // Learned parameters per method (the seed survey's comparison), from the shapes its options give.
  function parameterCount(method, options) {
    if (typeof method !== 'string') throw new TypeError(`method must be a string (got ${v.describe(method)})`);
    return call('parameterCount', (s) => ({ method, options: wire(s, options, `parameterCount.${method}`) })).value;
  }

  return {
    sinusoidal,
    ...makeAdditive(run),
    parameterCount,
    ropeFrequencies,
    ropeConfigFromHF: makeRopeConfigFromHF(call),
    attentionConfigFromHF: makeAttentionConfigFromHF(call),
    applyRope,
    rotateByDelta,
    attention,
    attentionBias,
    t5Bucket: buckets('t5Bucket'),
    debertaBucket: buckets('debertaBucket'),
    alibiSlopes,
    swinRelativeIndex,
    describe: () => descriptions,
    KVCache: makeKVCacheClass(call),
    alloc(length) { return new HeapBuffer(m, v.positive(length, 'length', 2 ** 30 - 16)); },
    /** Bytes in the wasm heap now (it grows on demand and never shrinks). */
    heapBytes() { return heap(m).HEAPU8.length; },
    /** Benchmark yardstick: memcpy between two heap buffers inside wasm. */
    copyBuffer(dst, src) {
      if (!(dst instanceof HeapBuffer) || !(src instanceof HeapBuffer)) throw new TypeError('copyBuffer takes two buffers from pe.alloc');
      v.requireLength(dst.length, src.length, 'dst');
      call('copyBytes', (s) => ({ dst: s.f32(dst, 'dst'), src: s.f32(src, 'src'), bytes: src.length * 4 }));
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
// next to this file. Resolves to null where it cannot load (after a warning), and the single-thread
// module is used.
async function createThreadedModule(threads) {
  const config = { posencWorkers: threads - 1 };
  try {
    if (isNode()) {
      const nodeRequire = process.getBuiltinModule?.('node:module')?.createRequire(import.meta.url);
      if (!nodeRequire) throw new Error(`Node ${process.version} has no process.getBuiltinModule (Node >= 20.16 does)`);
      // its pthread worker script, and the .wasm the browser module shares (read by load-wasm.mjs, as
      // every module's: Emscripten 3.1.6 would fetch() a path, which Node's fetch refuses)
      const worker = nodeRequire.resolve('../dist/posenc_wasm_threads_node.worker.cjs');
      config.locateFile = (f) => (f.endsWith('.worker.js') ? worker : f);
      config.wasmUrl = () => new URL('../dist/posenc_wasm_threads.wasm', import.meta.url).href;
      const m = await instantiate(nodeRequire('../dist/posenc_wasm_threads_node.cjs'), config);
      for (const w of m.posencPthreadWorkers()) w.unref?.();  // idle workers never keep Node running
      return m;
    }
    const url = new URL('../dist/posenc_wasm_threads.mjs', import.meta.url).href;  // not bundled: loaded from beside this file
    return await instantiate((await import(/* webpackIgnore: true */ /* @vite-ignore */ url)).default, config);
  } catch (e) {
    for (const w of config.posencPthreadWorkers?.() ?? []) w.terminate();  // a failed load leaves no worker behind
    warnSingleThread(e);
    return null;
  }
}

// A fallback to one thread is otherwise invisible (results are the same, only slower): say once which
// file could not be loaded and what threads need. Bundlers do not copy the threaded module's files.
let warned = false;
function warnSingleThread(error) {
  if (warned) return;
  warned = true;
  const files = isNode()
    ? 'Threads in Node need Node >= 20.16 and the package\'s dist/posenc_wasm_threads_node.cjs, dist/posenc_wasm_threads_node.worker.cjs and dist/posenc_wasm_threads.wasm'
    : `To use threads, serve posenc's dist/posenc_wasm_threads.mjs, dist/posenc_wasm_threads.wasm and dist/posenc_wasm_threads.worker.js at ${new URL('../dist/', import.meta.url).href} (bundlers do not copy them)`;
  console.warn(`posenc: load() could not load its threaded module (${String(error?.message ?? error).split('\n')[0]}), so it runs on one thread (pe.threads is 1). ${files}; load({ threads: 1 }) asks for one thread without this warning.`);
}

async function loadApi(threads) {
  const m = (threads > 1 && (await createThreadedModule(threads))) || (await instantiate(createPosencModule));
  const api = makeApi(m);
  // the C++ pool's count, read back
  const chosen = withScope(m, (s) => s.call('setThreadCount', { threads: m.posencPthreadWorkers ? threads : 1 })).value;
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
