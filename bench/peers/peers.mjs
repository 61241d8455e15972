// JS peers for posenc's side-by-side attention benchmark: what a JavaScript user would otherwise
// reach for, run on one thread in Node 20.
//
//   - onnxruntime-web (wasm EP, 1 thread, SIMD build), graphs built in-process with onnx-proto:
//       ort-decomposed: RoPE as Slice/Concat/Mul/Add on cos/sin initializers, MatMul(Q, K^T),
//                       additive mask (or ALiBi bias + mask) initializer, Softmax, MatMul(P, V)
//       ort-fused:      opset-23 RotaryEmbedding + opset-23 Attention(is_causal=1)
//       ort-gqa:        (opt-in, slow) com.microsoft GroupQueryAttention with do_rotary
//   - tfjs-core + tfjs-backend-wasm (SIMD, no threads), tf ops inside tf.tidy:
//       tfjs-wasm:         per-head 2-D matMuls (the fast formulation in this backend)
//       tfjs-wasm-batched: (opt-in, slow) one batched matMul(q, k, false, true)
//
// Every op factory resolves to { ok: true, run, dispose, predictedHeapBytes } or { ok: false,
// reason }; run() resolves to the output Float32Array [heads, T, headDim]. See docs/performance.md.
//
// Layout everywhere: q, k, v and the output are Float32Array [heads, T, headDim] row-major, batch 1.
// RoPE is rotate_half ("half", GPT-NeoX / Llama: channel i pairs with i + headDim/2), base 10000,
// positions 0..T-1, scale 1/sqrt(headDim). ALiBi: bias = -m_h * (i - j), m_h = 2^(-8 (h+1) / H).
//
// Installed only for benchmarks: `npm --prefix bench/peers ci`. Nothing in the project imports this.

import { createRequire } from 'node:module';
import path from 'node:path';
import { attentionJs } from '../../web/plain-js.mjs';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

// The ops the runner asks for. B and B' take T (default 1024); C and C' are fixed.
export const OPS = {
  B: { encoding: 'rope', heads: 8, T: 1024, headDim: 64 },
  Bprime: { encoding: 'alibi', heads: 8, T: 1024, headDim: 64 },
  C: { encoding: 'rope', heads: 8, T: 4096, headDim: 64 },
  Cprime: { encoding: 'rope', heads: 1, T: 32768, headDim: 64 },
};

// ---------------------------------------------------------------------------------------------
// Shared maths: tables, masks, inputs, the reference.

export function alibiSlopes(heads) {
  return Float64Array.from({ length: heads }, (_, h) => 2 ** (-8 * (h + 1) / heads));
}

// cos/sin of pos * base^(-2i/d) for i < d/2, computed in float64.
function ropeAngles(T, headDim, base = 10000) {
  const half = headDim / 2;
  const cos = new Float64Array(T * half), sin = new Float64Array(T * half);
  for (let i = 0; i < half; i++) {
    const inv = base ** (-2 * i / headDim);
    for (let t = 0; t < T; t++) { const a = t * inv; cos[t * half + i] = Math.cos(a); sin[t * half + i] = Math.sin(a); }
  }
  return { cos, sin, half };
}

// Full-width tables for x * cos + swap_halves(x) * sinSigned, where swap_halves(x) = [x2, x1] and
// sinSigned = [-sin, +sin]: that is x * cos + rotate_half(x) * sin without a Neg. `mult` folds the
// softmax scale into q's tables so no [T, T] pass is spent on it.
function ropeTablesFull(T, headDim, mult = 1) {
  const { cos, sin, half } = ropeAngles(T, headDim);
  const c = new Float32Array(T * headDim), s = new Float32Array(T * headDim);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < half; i++) {
      const cv = cos[t * half + i] * mult, sv = sin[t * half + i] * mult;
      c[t * headDim + i] = cv; c[t * headDim + i + half] = cv;
      s[t * headDim + i] = -sv; s[t * headDim + i + half] = sv;
    }
  }
  return { cos: c, sinSigned: s };
}

// Additive causal mask [T, T]: 0 on and below the diagonal, -inf above.
function causalMask(T) {
  const m = new Float32Array(T * T);
  for (let i = 0; i < T; i++) m.fill(-Infinity, i * T + i + 1, (i + 1) * T);
  return m;
}

// ALiBi bias [heads, T, T]: -m_h (i - j) for j <= i; above the diagonal -inf (withMask) or 0.
function alibiBias(heads, T, withMask) {
  const slopes = alibiSlopes(heads);
  const b = new Float32Array(heads * T * T);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < T; i++) {
      const row = (h * T + i) * T;
      for (let j = 0; j <= i; j++) b[row + j] = -slopes[h] * (i - j);
      if (withMask) b.fill(-Infinity, row + i + 1, row + T);
    }
  }
  return b;
}

// Deterministic q, k, v [heads, T, headDim] in [-1, 1].
export function makeInputs(heads, T, headDim) {
  const n = heads * T * headDim;
  const q = new Float32Array(n), k = new Float32Array(n), v = new Float32Array(n);
  for (let i = 0; i < n; i++) { q[i] = Math.sin(i * 0.37); k[i] = Math.cos(i * 0.91 + 0.5); v[i] = Math.sin(i * 0.13 + 1); }
  return { q, k, v };
}

// The yardstick for selfCheck: the plain-JS causal attention (RoPE rotate_half or ALiBi) the demo and the
// benchmark also use (web/plain-js.mjs).
export function referenceAttention(q, k, v, { heads, T, headDim, encoding }) {
  return attentionJs(q, k, v, heads, T, headDim, encoding);  // float64 scores and sums; RoPE tables in float32
}

// ---------------------------------------------------------------------------------------------
// Memory guard. Every peer here runs in a wasm32 heap (ORT's and tfjs's .wasm both declare a
// 65536-page = 4 GiB maximum), and every one of them materialises at least one [heads, T, T]
// float32 score matrix. Predict the peak and refuse before allocating rather than crash or swap.

const WASM32_MAX = 4 * GiB;
const HEAP_BUDGET = 3.5 * GiB; // what we let one peer's heap reach (runtime, arena slack on top)
const PROCESS_BUDGET = 6 * GiB; // heap + JS-side copies (model bytes, tables) together

const fmtBytes = (b) => (b >= GiB ? `${(b / GiB).toFixed(2)} GiB` : `${(b / MiB).toFixed(0)} MiB`);

// `held` is what this library's other live (not yet disposed) sessions/tensors are predicted to
// keep: one wasm heap per library, shared by everything made from it.
function guard(spec, { heap, js, what, held = 0 }) {
  const { heads, T } = spec;
  const scores = heads * T * T * 4;
  if (scores >= WASM32_MAX || heap + held > HEAP_BUDGET || heap + held + js > PROCESS_BUDGET) {
    return `refused before allocating: ${what} needs a [${heads}, ${T}, ${T}] float32 score matrix ` +
      `(${fmtBytes(scores)}); predicted wasm heap peak ${fmtBytes(heap)}` +
      (held ? ` + ${fmtBytes(held)} held by other live objects of the same library (dispose them first)` : '') +
      ` vs a ${fmtBytes(HEAP_BUDGET)} budget inside the 4 GiB wasm32 address space (plus ${fmtBytes(js)} on the JS side)`;
  }
  return null;
}

// Books a successful make() against its library's heap; dispose() gives it back once.
function booked(lib, heap, made) {
  lib.live += heap;
  let released = false;
  const dispose = made.dispose;
  return { ...made, dispose: async () => { if (!released) { released = true; lib.live -= heap; } await dispose(); } };
}

// ---------------------------------------------------------------------------------------------
// onnxruntime-web graphs, assembled with onnx-proto.

function onnxBuilder(onnx) {
  const FLOAT = onnx.TensorProto.DataType.FLOAT;
  const INT64 = onnx.TensorProto.DataType.INT64;
  const AT = onnx.AttributeProto.AttributeType;
  const valueInfo = (name, dims) => ({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
  return {
    int: (name, i) => ({ name, type: AT.INT, i }),
    float: (name, f) => ({ name, type: AT.FLOAT, f }),
    floatInit: (name, dims, data) => ({ name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) }),
    int64Init: (name, dims, values) => ({ name, dims, dataType: INT64, int64Data: values }),
    int32Init: (name, dims, values) => ({ name, dims, dataType: onnx.TensorProto.DataType.INT32, int32Data: values }),
    node: (opType, input, output, attribute = [], domain = '') => ({ opType, input, output, attribute, domain, name: output[0] }),
    model({ nodes, inputs, outputs, initializers, opset = 23, extraOpsets = [] }) {
      const m = onnx.ModelProto.create({
        irVersion: 11, // ONNX 1.18, the release that introduced opset 23
        producerName: 'posenc-bench-peers',
        opsetImport: [{ domain: '', version: opset }, ...extraOpsets],
        graph: {
          name: 'attention',
          node: nodes,
          input: inputs.map(([n, d]) => valueInfo(n, d)),
          output: outputs.map(([n, d]) => valueInfo(n, d)),
          initializer: initializers,
        },
      });
      return onnx.ModelProto.encode(m).finish();
    },
  };
}

// (a) Decomposed: what a user writes with plain ONNX ops. Inputs are 3-D [H, T, D].
function decomposedGraph(g, { encoding, heads, T, headDim }) {
  const H = heads, D = headDim, half = D / 2, scale = 1 / Math.sqrt(D);
  const dims = [H, T, D];
  const nodes = [], inits = [];
  let qIn = 'q', kIn = 'k';
  if (encoding === 'rope') {
    const tq = ropeTablesFull(T, D, scale), tk = ropeTablesFull(T, D, 1);
    inits.push(g.floatInit('cos_q', [T, D], tq.cos), g.floatInit('sin_q', [T, D], tq.sinSigned),
      g.floatInit('cos_k', [T, D], tk.cos), g.floatInit('sin_k', [T, D], tk.sinSigned),
      g.int64Init('lo_start', [1], [0]), g.int64Init('lo_end', [1], [half]),
      g.int64Init('hi_start', [1], [half]), g.int64Init('hi_end', [1], [D]), g.int64Init('axis_last', [1], [-1]));
    for (const x of ['q', 'k']) {
      nodes.push(
        g.node('Slice', [x, 'lo_start', 'lo_end', 'axis_last'], [`${x}_lo`]),
        g.node('Slice', [x, 'hi_start', 'hi_end', 'axis_last'], [`${x}_hi`]),
        g.node('Concat', [`${x}_hi`, `${x}_lo`], [`${x}_swap`], [g.int('axis', -1)]),
        g.node('Mul', [x, `cos_${x}`], [`${x}_c`]),
        g.node('Mul', [`${x}_swap`, `sin_${x}`], [`${x}_s`]),
        g.node('Add', [`${x}_c`, `${x}_s`], [`${x}_rot`]),
      );
    }
    qIn = 'q_rot'; kIn = 'k_rot';
    inits.push(g.floatInit('mask', [T, T], causalMask(T)));
  } else {
    inits.push(g.floatInit('scale', [], Float32Array.of(scale)));
    nodes.push(g.node('Mul', ['q', 'scale'], ['q_scaled']));
    qIn = 'q_scaled';
    inits.push(g.floatInit('mask', [H, T, T], alibiBias(H, T, true)));
  }
  nodes.push(
    g.node('Transpose', [kIn], ['k_t'], [{ name: 'perm', type: 7, ints: [0, 2, 1] }]),
    g.node('MatMul', [qIn, 'k_t'], ['scores']),
    g.node('Add', ['scores', 'mask'], ['scores_masked']),
    g.node('Softmax', ['scores_masked'], ['probs'], [g.int('axis', -1)]),
    g.node('MatMul', ['probs', 'v'], ['y']),
  );
  return { bytes: g.model({ nodes, inputs: [['q', dims], ['k', dims], ['v', dims]], outputs: [['y', dims]], initializers: inits }), dims };
}

// (b) Fused: opset-23 RotaryEmbedding + Attention. Inputs are 4-D [1, H, T, D] (same memory).
function fusedGraph(g, { encoding, heads, T, headDim }) {
  const H = heads, D = headDim, scale = 1 / Math.sqrt(D);
  const dims = [1, H, T, D];
  const nodes = [], inits = [];
  const attn = [g.int('is_causal', 1), g.float('scale', scale)];
  if (encoding === 'rope') {
    const { cos, sin } = ropeAngles(T, D);
    // No position_ids: ORT 1.30 then wants cos/sin as [batch, T, D/2] (a 2-D [T, D/2] cache is only
    // accepted together with position_ids).
    inits.push(g.floatInit('cos_cache', [1, T, D / 2], Float32Array.from(cos)), g.floatInit('sin_cache', [1, T, D / 2], Float32Array.from(sin)));
    nodes.push(
      g.node('RotaryEmbedding', ['q', 'cos_cache', 'sin_cache'], ['q_rot'], [g.int('interleaved', 0)]),
      g.node('RotaryEmbedding', ['k', 'cos_cache', 'sin_cache'], ['k_rot'], [g.int('interleaved', 0)]),
      g.node('Attention', ['q_rot', 'k_rot', 'v'], ['y'], attn),
    );
  } else {
    // ALiBi as a float attn_mask [1, H, T, T]; is_causal=1 adds the -inf above the diagonal.
    inits.push(g.floatInit('alibi', [1, H, T, T], alibiBias(H, T, false)));
    nodes.push(g.node('Attention', ['q', 'k', 'v', 'alibi'], ['y'], attn));
  }
  return { bytes: g.model({ nodes, inputs: [['q', dims], ['k', dims], ['v', dims]], outputs: [['y', dims]], initializers: inits }), dims };
}

// (c) Contrib: com.microsoft GroupQueryAttention with do_rotary=1 (RoPE inside the op, causal by
// construction), the op ORT's own LLM exports use. It wants [B, T, H*D] (BSNH), so the graph
// transposes q/k/v in and y out. It needs headDim % 16 == 0 and has no ALiBi.
function gqaGraph(g, { heads, T, headDim }) {
  const H = heads, D = headDim, half = D / 2;
  const dims = [1, H, T, D];
  const { cos, sin } = ropeAngles(T, D);
  const inits = [
    g.floatInit('cos_cache', [T, half], Float32Array.from(cos)), g.floatInit('sin_cache', [T, half], Float32Array.from(sin)),
    g.int32Init('seqlens_k', [1], [T - 1]), // index of the last valid key, not a count
    g.int32Init('total_seq', [], [T]),
    g.int64Init('bsh', [3], [1, T, H * D]), g.int64Init('bsnh', [4], [1, T, H, D]),
  ];
  const perm = { name: 'perm', type: 7, ints: [0, 2, 1, 3] };
  const nodes = [];
  for (const x of ['q', 'k', 'v']) nodes.push(g.node('Transpose', [x], [`${x}_bsnh`], [perm]), g.node('Reshape', [`${x}_bsnh`, 'bsh'], [`${x}_bsh`]));
  nodes.push(
    g.node('GroupQueryAttention', ['q_bsh', 'k_bsh', 'v_bsh', '', '', 'seqlens_k', 'total_seq', 'cos_cache', 'sin_cache'], ['y_bsh', 'present_k', 'present_v'],
      [g.int('num_heads', H), g.int('kv_num_heads', H), g.int('do_rotary', 1), g.int('rotary_interleaved', 0), g.float('scale', 1 / Math.sqrt(D))], 'com.microsoft'),
    g.node('Reshape', ['y_bsh', 'bsnh'], ['y_4d']),
    g.node('Transpose', ['y_4d'], ['y'], [perm]),
  );
  return { bytes: g.model({ nodes, inputs: [['q', dims], ['k', dims], ['v', dims]], outputs: [['y', dims]], initializers: inits, extraOpsets: [{ domain: 'com.microsoft', version: 1 }] }), dims };
}

// Predicted wasm-heap / JS peaks (bytes) per graph; deliberately pessimistic (no buffer reuse).
function ortFootprint(variant, { encoding, heads, T, headDim }) {
  const n = heads * T * headDim * 4, S = heads * T * T * 4, TT = T * T * 4;
  const bias = encoding === 'alibi' ? S : variant === 'decomposed' ? TT : 0;
  if (variant === 'decomposed') {
    // scores, scores+mask, probs; q/k/v in, rope temporaries, output; the initializer twice while
    // the session is created (model bytes + parsed tensor).
    return { heap: 3 * S + 2 * bias + 12 * n, js: 2 * bias + 4 * n };
  }
  if (variant === 'gqa') return { heap: 16 * n, js: 4 * n }; // measured: O(T) (RSS 352 MiB at T=32768)
  // Attention keeps a [B, H, T, T] probability buffer plus (with a mask) a same-sized mask copy.
  return { heap: 2 * S + 2 * bias + 8 * n, js: 2 * bias + 4 * n };
}

// The peers' thread count: once per process (onnxruntime-web sizes its pool when its wasm starts), from
// POSENC_BENCH_PEER_THREADS (bench/run.mjs runs a second process with the threads posenc has).
const THREADS = Math.max(1, Number(process.env.POSENC_BENCH_PEER_THREADS) || 1);

async function loadOrt() {
  const ort = await import('onnxruntime-web');
  const onnxProto = (await import('onnx-proto')).default;
  ort.env.wasm.numThreads = THREADS; // 1: no worker threads at all (documented: "If set to 1, no worker thread will be spawned")
  ort.env.wasm.simd = true; // the only binary ORT 1.30 ships is ort-wasm-simd-threaded.wasm; this makes it check SIMD
  ort.env.wasm.proxy = false; // run on the calling thread
  ort.env.logLevel = 'fatal'; // failures come back as exceptions; don't also print them in colour
  const version = ort.env.versions?.web ?? ort.env.versions?.common ?? '?'; // package.json is not in its "exports"
  return { ort, g: onnxBuilder(onnxProto.onnx), version, live: 0 };
}

function ortContender(lib, variant) {
  const { ort, g, version } = lib;
  const sessionOptions = {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: THREADS,
    interOpNumThreads: 1,
  };
  const build = { decomposed: decomposedGraph, fused: fusedGraph, gqa: gqaGraph }[variant];
  const label = { decomposed: 'decomposed graph', fused: 'opset-23 RotaryEmbedding + Attention', gqa: 'com.microsoft GroupQueryAttention, do_rotary' }[variant];
  return {
    name: `onnxruntime-web ${version} (${label}, ${THREADS} thread${THREADS > 1 ? 's' : ''})`,
    family: 'onnxruntime-web',
    variant,
    async make(spec) {
      const { encoding, T, headDim } = spec;
      if (variant === 'gqa') {
        if (encoding !== 'rope') return { ok: false, unsupported: true, reason: 'GroupQueryAttention has no ALiBi (only RoPE via do_rotary)' };
        if (headDim % 16) return { ok: false, unsupported: true, reason: `GroupQueryAttention (CPU) requires headDim % 16 == 0, got ${headDim}` };
      } else {
        const refused = guard(spec, { ...ortFootprint(variant, spec), held: lib.live, what: `onnxruntime-web ${variant} graph` });
        if (refused) return { ok: false, reason: refused };
      }
      // Known ORT 1.30 limit, checked at the boundary (T=4095 runs, 4096 fails at headDim 64;
      // 5792 runs, 5793 fails at headDim 32), so predicted instead of paying for the session.
      if (variant === 'fused' && version.startsWith('1.30.') && 2 * headDim * T * T >= 2 ** 31 && !spec.noPredict) {
        return {
          ok: false,
          reason: `onnxruntime-web ${version} opset-23 Attention fails once 2*headDim*T^2 >= 2^31 (T >= ${Math.ceil(Math.sqrt(2 ** 30 / headDim))} at headDim ${headDim}): ` +
            'its CPU kernel computes the thread-pool cost estimate SafeInt<ptrdiff_t>(2) * head_size * q_len * kv_len ' +
            '(core/providers/cpu/llm/attention.cc, ComputeAttentionProbs) and ptrdiff_t is 32-bit in wasm32, so OrtRun() ' +
            'throws "SafeIntOnOverflow() Integer overflow" whatever the head count; not attempted',
        };
      }
      let session;
      try {
        const { bytes, dims } = build(g, spec);
        session = await ort.InferenceSession.create(bytes, sessionOptions);
        const feeds = {
          q: new ort.Tensor('float32', spec.q, dims),
          k: new ort.Tensor('float32', spec.k, dims),
          v: new ort.Tensor('float32', spec.v, dims),
        };
        const run = async () => (await session.run(feeds)).y.data;
        const heap = ortFootprint(variant, spec).heap;
        return booked(lib, heap, { ok: true, run, dispose: async () => { await session?.release(); session = null; }, predictedHeapBytes: heap });
      } catch (e) {
        if (session) await session.release().catch(() => {});
        return { ok: false, reason: `onnxruntime-web ${variant}: ${e?.message ?? e}` };
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// tfjs with the wasm backend.

async function loadTfjs() {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'));
  const dist = path.join(pkgDir, 'dist') + path.sep;
  // In Node the Emscripten loader reads the .wasm with fs when given a plain filesystem path, so
  // no fetch and no network: a directory prefix (with trailing separator) is enough. Node would
  // pick the non-threaded SIMD binary anyway (tfjs reports WASM_HAS_MULTITHREAD_SUPPORT=false under
  // Node); we pin that flag and ask XNNPACK for one thread as well.
  wasm.setWasmPaths(dist);
  wasm.setThreadsCount(THREADS);
  // threaded (THREADS > 1): tfjs's own check says no under Node; the threaded binary is tried anyway
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', THREADS > 1);
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  if (!simd) throw new Error('tfjs reports no wasm SIMD support; refusing to benchmark the scalar binary');
  const ok = await tf.setBackend('wasm');
  await tf.ready();
  if (!ok || tf.getBackend() !== 'wasm') throw new Error(`tf.setBackend('wasm') failed (backend is ${tf.getBackend()})`);
  const threads = wasm.getThreadsCount();
  const version = require('@tensorflow/tfjs-backend-wasm/package.json').version;
  return { tf, version, threads, live: 0 };
}

function tfjsFootprint(variant, { encoding, heads, T, headDim }) {
  const n = heads * T * headDim * 4, S = heads * T * T * 4, TT = T * T * 4;
  const bias = encoding === 'alibi' ? S : TT;
  // scores, scores+mask, probs (all heads at once, or one head at a time), the resident mask or
  // ALiBi bias, rope temporaries and per-head copies; the bias is also built once on the JS side.
  const live = variant === 'batched' ? 3 * S : 3 * TT;
  return { heap: live + bias + 16 * n, js: bias + 4 * n };
}

// variant 'per-head': a loop over heads of 2-D matMul(q_h, transpose(k_h)) and matMul(p_h, v_h).
//   In tfjs-backend-wasm 4.22 only a 2-D matMul without transpose flags reaches XNNPACK; the batched
//   (rank-3) matMul and any transposeA/transposeB go through a slow generic loop, ~10x slower here.
// variant 'batched': the one-liner a user writes first, matMul(q, k, false, true) on [H, T, D].
function tfjsContender(lib, variant) {
  const { tf, version, threads } = lib;
  return {
    name: `tfjs-backend-wasm ${version} (SIMD, ${threads} thread, ${variant === 'batched' ? 'batched matMul' : 'per-head 2-D matMul'})`,
    family: 'tfjs',
    variant,
    async make(spec) {
      const fp = tfjsFootprint(variant, spec);
      const refused = guard(spec, { ...fp, held: lib.live, what: `tfjs ${variant} matMul/softmax` });
      if (refused) return { ok: false, reason: refused };
      const { encoding, heads: H, T, headDim: D } = spec;
      const half = D / 2, scale = 1 / Math.sqrt(D);
      const owned = [];
      const keep = (t) => { owned.push(t); return t; };
      const dispose = async () => { for (const t of owned.splice(0)) t.dispose(); };
      try {
        const q = keep(tf.tensor3d(spec.q, [H, T, D]));
        const k = keep(tf.tensor3d(spec.k, [H, T, D]));
        const v = keep(tf.tensor3d(spec.v, [H, T, D]));
        let qk; // () => [q', k'] with RoPE (and the softmax scale folded into q's tables) or scale only
        let bias; // additive [T, T] causal mask, or the ALiBi bias + mask ([H, T, T], or H x [T, T])
        if (encoding === 'rope') {
          const tq = ropeTablesFull(T, D, scale), tk = ropeTablesFull(T, D, 1);
          const cosQ = keep(tf.tensor2d(tq.cos, [T, D])), sinQ = keep(tf.tensor2d(tq.sinSigned, [T, D]));
          const cosK = keep(tf.tensor2d(tk.cos, [T, D])), sinK = keep(tf.tensor2d(tk.sinSigned, [T, D]));
          const rope = (x, c, s) => {
            const lo = tf.slice(x, [0, 0, 0], [H, T, half]);
            const hi = tf.slice(x, [0, 0, half], [H, T, half]);
            return tf.add(tf.mul(x, c), tf.mul(tf.concat([hi, lo], 2), s));
          };
          qk = () => [rope(q, cosQ, sinQ), rope(k, cosK, sinK)];
          bias = keep(tf.tensor2d(causalMask(T), [T, T]));
        } else {
          const sc = keep(tf.scalar(scale));
          qk = () => [tf.mul(q, sc), k];
          const b = alibiBias(H, T, true);
          // batched: one [H, T, T] tensor; per-head: H tensors [T, T] uploaded from subarrays
          bias = variant === 'batched' ? keep(tf.tensor3d(b, [H, T, T]))
            : Array.from({ length: H }, (_, h) => keep(tf.tensor2d(b.subarray(h * T * T, (h + 1) * T * T), [T, T])));
        }
        let body;
        if (variant === 'batched') {
          body = () => {
            const [qr, kr] = qk();
            return tf.matMul(tf.softmax(tf.add(tf.matMul(qr, kr, false, true), bias)), v);
          };
        } else {
          const biasH = Array.isArray(bias) ? bias : null;
          body = () => {
            const [qr, kr] = qk();
            const qh = tf.unstack(qr), kh = tf.unstack(kr), vh = tf.unstack(v);
            const ys = [];
            for (let h = 0; h < H; h++) {
              // inner tidy: this head's [T, T] scores/probs are freed before the next head starts
              ys.push(tf.tidy(() => tf.matMul(tf.softmax(tf.add(tf.matMul(qh[h], tf.transpose(kh[h])), biasH ? biasH[h] : bias)), vh[h])));
            }
            return tf.stack(ys);
          };
        }
        // tidy frees the intermediates; dataSync() in the timed call includes finishing the work and
        // reading it back. (Not `tf.tidy(() => y.dataSync())`: tidy then walks the returned
        // Float32Array element by element looking for tensors, which costs seconds at 8M floats.)
        const run = async () => {
          const y = tf.tidy(body);
          try { return y.dataSync(); } finally { y.dispose(); }
        };
        return booked(lib, fp.heap, { ok: true, run, dispose, predictedHeapBytes: fp.heap });
      } catch (e) {
        await dispose();
        return { ok: false, reason: `tfjs-backend-wasm ${variant}: ${e?.message ?? e}` };
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Contenders and op factories.

function unavailable(name, family, reason) {
  return { name, family, variant: null, available: false, reason, async make() { return { ok: false, reason }; } };
}

// Adds the op factories B, Bprime, C, Cprime and the generic attention(spec) to a contender.
// Each factory resolves to { ok: true, run, dispose, predictedHeapBytes } or { ok: false, reason };
// it never throws. Inputs default to makeInputs(...) when q/k/v are not given.
function withOps(c, { warmupDefault = true } = {}) {
  const attention = async (spec) => {
    const full = { headDim: 64, ...spec };
    const { heads, T, headDim } = full;
    if (!full.q) Object.assign(full, makeInputs(heads, T, headDim));
    const n = heads * T * headDim;
    for (const x of ['q', 'k', 'v']) {
      if (!(full[x] instanceof Float32Array) || full[x].length !== n) return { ok: false, reason: `${x} must be a Float32Array of ${n} ([${heads}, ${T}, ${headDim}])` };
    }
    if (headDim % 2) return { ok: false, reason: 'headDim must be even' };
    let made;
    try { made = await c.make(full); } catch (e) { made = { ok: false, reason: String(e?.message ?? e) }; }
    if (!made.ok) return made;
    // One untimed run, so an allocation failure shows up here as { ok: false } and not in the timed loop.
    if (spec.warmup ?? warmupDefault) {
      try { await made.run(); } catch (e) {
        await made.dispose().catch(() => {});
        return { ok: false, reason: `failed on first run: ${e?.message ?? e}` };
      }
    }
    return made;
  };
  const op = (name) => (args = {}) => attention({ ...OPS[name], ...(name.startsWith('B') ? args : { ...args, T: OPS[name].T, heads: OPS[name].heads }) });
  return { available: true, ...c, attention, B: op('B'), Bprime: op('Bprime'), C: op('C'), Cprime: op('Cprime') };
}

let ortLib = null, tfjsLib = null; // the libraries load once per process

// Resolves to { 'ort-decomposed', 'ort-fused', 'tfjs-wasm' }, plus two opt-in slow ones:
//   tfjsBatched: 'tfjs-wasm-batched', the naive batched matMul (~7x slower than 'tfjs-wasm');
//   ortGqa:      'ort-gqa', com.microsoft GroupQueryAttention: the only peer that runs C' (O(T)
//                memory) but ~8x slower than the decomposed graph (measured 1.1 s at B T=1024,
//                16 s at C, 151 s at C'), RoPE only, headDim % 16 == 0.
// Each contender:
//   { name, family, variant, available, reason?, attention(spec), B(args), Bprime(args), C(args), Cprime(args) }
export async function loadPeers({ tfjsBatched = false, ortGqa = false } = {}) {
  ortLib ??= loadOrt().then((lib) => ({ lib }), (e) => ({ error: e }));
  tfjsLib ??= loadTfjs().then((lib) => ({ lib }), (e) => ({ error: e }));
  const [o, t] = await Promise.all([ortLib, tfjsLib]);
  const out = {};
  if (o.lib) {
    out['ort-decomposed'] = withOps(ortContender(o.lib, 'decomposed'));
    out['ort-fused'] = withOps(ortContender(o.lib, 'fused'));
    if (ortGqa) out['ort-gqa'] = withOps(ortContender(o.lib, 'gqa'));
  } else {
    const reason = `onnxruntime-web could not be loaded (run npm --prefix bench/peers ci): ${o.error?.message ?? o.error}`;
    out['ort-decomposed'] = withOps(unavailable('onnxruntime-web (decomposed graph)', 'onnxruntime-web', reason));
    out['ort-fused'] = withOps(unavailable('onnxruntime-web (opset-23 RotaryEmbedding + Attention)', 'onnxruntime-web', reason));
  }
  if (t.lib) {
    out['tfjs-wasm'] = withOps(tfjsContender(t.lib, 'per-head'));
    if (tfjsBatched) out['tfjs-wasm-batched'] = withOps(tfjsContender(t.lib, 'batched'));
  } else {
    out['tfjs-wasm'] = withOps(unavailable('tfjs-backend-wasm', 'tfjs', `tfjs-backend-wasm could not be loaded (run npm --prefix bench/peers ci): ${t.error?.message ?? t.error}`));
  }
  return out;
}

// Runs every available contender (opt-in ones included) on small cases, T=16, 2 heads, headDim 8
// and 16 (GroupQueryAttention needs a multiple of 16), RoPE and ALiBi, against the float64
// reference. Throws if any max abs error exceeds `tol`. Resolves to [{ contender, encoding,
// headDim, maxAbsErr }]; combinations a peer does not support (reported `unsupported`) are skipped.
// allowUnavailable: a peer that does not load is left out instead of failing the check (the threaded
// run: tfjs-wasm's threaded backend does not load in Node).
export async function selfCheck({ tol = 1e-4, heads = 2, T = 16, headDims = [8, 16], allowUnavailable = false } = {}) {
  const peers = await loadPeers({ tfjsBatched: true, ortGqa: true });
  const results = [], failures = [];
  for (const headDim of headDims) {
    const inputs = makeInputs(heads, T, headDim);
    for (const encoding of ['rope', 'alibi']) {
      const ref = referenceAttention(inputs.q, inputs.k, inputs.v, { heads, T, headDim, encoding });
      for (const [id, c] of Object.entries(peers)) {
        if (!c.available) { if (!allowUnavailable) failures.push(`${id}: unavailable: ${c.reason}`); continue; }
        const made = await c.attention({ encoding, heads, T, headDim, ...inputs, warmup: false });
        if (!made.ok) { if (!made.unsupported) failures.push(`${id} ${encoding} d=${headDim}: ${made.reason}`); continue; }
        try {
          const y = await made.run();
          let err = y.length === ref.length ? 0 : Infinity;
          for (let i = 0; i < ref.length && err !== Infinity; i++) {
            const e = Math.abs(y[i] - ref[i]);
            err = Number.isNaN(e) ? Infinity : Math.max(err, e);
          }
          results.push({ contender: id, encoding, headDim, maxAbsErr: err });
          if (!(err <= tol)) failures.push(`${id} ${encoding} d=${headDim}: max abs error ${err} > ${tol}`);
        } catch (e) {
          failures.push(`${id} ${encoding} d=${headDim}: ${e?.message ?? e}`);
        } finally {
          await made.dispose();
        }
      }
    }
  }
  if (failures.length) throw new Error(`peer self-check failed:\n  ${failures.join('\n  ')}`);
  return results;
}
