// posenc's JavaScript API: validates and converts arguments, calls the wasm core, copies results
// out. All numeric work happens in C++ (src/); this layer only shapes data.
import createPosencModule from '../dist/posenc_wasm.mjs';
import * as v from './validate.mjs';
import { HeapBuffer, withScope } from './heap.mjs';
import { ropeSpec, ropeSpecOnHeap, ropeConfigFromHF, ROPE_LAYOUTS } from './rope-config.mjs';

const SINUSOID_LAYOUTS = ['interleaved', 'concat', 'tensor2tensor'];

// Turns a binding status into the matching JS error.
function check(m, status) {
  if (status === 0) return;
  const message = m.lastError();
  if (status === 1) throw new RangeError(message);
  if (status === 2) throw new TypeError(message);
  throw new Error(`posenc internal error: ${message}`);
}

function makeApi(m) {
  const run = (fn) => withScope(m, fn);

  function sinusoidal(positions, options) {
    const o = v.object(options, 'options');
    const pos = v.positions(positions);
    const dim = v.positive(o.dim, 'dim');
    const base = v.optionalNumber(o.base, 'base', 10000);
    const layout = v.oneOf(o.layout, 'layout', SINUSOID_LAYOUTS, 'interleaved');
    return run((s) => {
      const out = s.out(pos.length * dim);
      check(m, m.sinusoidal(s.i32(pos, 'positions'), pos.length, dim, base, layout, out));
      return s.result(out, pos.length * dim, o.out);
    });
  }

  function ropeFrequencies(options) {
    const spec = ropeSpec(options);
    return run((s) => {
      const n = 2 + Math.floor(spec.headDim / 2);
      const out = s.alloc(n * 8, 'invFreq');
      check(m, m.ropeFrequencies(ropeSpecOnHeap(s, spec), out));
      const raw = new Float64Array(m.HEAPF64.buffer, out, n);
      const rotaryDim = raw[0];
      return { invFreq: Float32Array.from(raw.subarray(2, 2 + rotaryDim / 2)), attentionScale: raw[1], rotaryDim };
    });
  }

  // Shared by applyRope and rotateByDelta: validate, place x on the heap, rotate, copy out.
  function rotate(x, shape, options, prepare, callBinding) {
    const sh = v.object(shape, 'shape');
    const heads = v.positive(sh.heads, 'heads');
    const tokens = v.positive(sh.tokens, 'tokens');
    const headDim = v.positive(sh.headDim, 'headDim');
    const o = v.object(options, 'options');
    const spec = ropeSpec({ headDim, ...o });
    if (spec.headDim !== headDim) throw new RangeError(`headDim of the options (${spec.headDim}) must equal the shape's headDim (${headDim})`);
    const layout = v.oneOf(o.layout, 'layout', ROPE_LAYOUTS, 'half');
    const inPlace = v.boolean(o.inPlace, 'inPlace', false);
    const extra = prepare(tokens);
    const n = heads * tokens * headDim;
    return run((s) => {
      const ptr = s.f32(x, 'x', n);  // a HeapBuffer is used where it lies, so inPlace needs no copy
      const heapX = x instanceof HeapBuffer;
      let work = ptr;
      if (heapX && !inPlace) {  // leave the caller's buffer untouched
        work = s.out(n);
        m.HEAPU8.copyWithin(work, ptr, ptr + n * 4);
      }
      check(m, callBinding(ropeSpecOnHeap(s, spec), layout, work, heads, tokens, headDim, extra(s)));
      if (inPlace) return heapX ? x : s.result(work, n, x);
      return s.result(work, n, o.out);
    });
  }

  function applyRope(x, shape, positions, options) {
    return rotate(x, shape, options, (tokens) => {
      const pos = v.positions(positions);
      v.requireLength(pos.length, tokens, 'positions', 'one per token');
      return (s) => s.i32(pos, 'positions');
    }, (...a) => m.applyRope(...a));
  }

  // Rotates already-rotated vectors by a position delta per token (negative = backwards), without
  // applying the attention scale again: how cached keys are moved when positions are renumbered.
  function rotateByDelta(x, shape, deltas, options) {
    return rotate(x, shape, options, (tokens) => {
      const d = v.int32Array(deltas, 'deltas', { min: -(2 ** 31 - 1) });
      v.requireLength(d.length, tokens, 'deltas', 'one per token');
      return (s) => s.f64(Float64Array.from(d), 'deltas');
    }, (...a) => m.rotateByDelta(...a));
  }

  return {
    sinusoidal,
    ropeFrequencies,
    ropeConfigFromHF,
    applyRope,
    rotateByDelta,
    alloc(length) { return new HeapBuffer(m, v.positive(length, 'length', 2 ** 30 - 16)); },
    /** Benchmark yardstick: memcpy between two heap buffers inside wasm. */
    copyBuffer(dst, src) {
      if (!(dst instanceof HeapBuffer) || !(src instanceof HeapBuffer)) throw new TypeError('copyBuffer takes two buffers from pe.alloc');
      v.requireLength(dst.length, src.length, 'dst');
      m.copyBytes(dst.byteOffset, src.byteOffset, src.length * 4);
    },
  };
}

let loading;
// Instantiates the wasm module (once) and resolves to the API object.
export function load() {
  loading ??= createPosencModule().then(makeApi);
  return loading;
}

export default load;
