// Runs every benchmark side by side in one process tree and computes every ratio within the run:
// posenc native (the bench binaries), posenc wasm SIMD (the npm package), posenc wasm scalar (the
// same code built without SIMD128), plain JS, and the peers a JS user would pick (bench/peers:
// onnxruntime-web, tfjs-wasm). Contenders of one op run interleaved, round by round, so a noisy
// neighbour slows all of them alike. Prints a summary, writes build/bench.json and build/bench.md
// (the tables of docs/performance.md). Usage: node bench/run.mjs [all|rope|attention|cache|peak|fox|foxdecode]
// Threads: every posenc figure at 1 thread and at all cores (THREADS) side by side; the peers run on
// one thread here and, for the equal-thread comparison, at THREADS in a second process
// (`node bench/run.mjs peers-threaded`, POSENC_BENCH_PEER_THREADS: onnxruntime-web sizes its pool once).
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { load } from '../bindings/posenc.mjs';
import { ropeJs, attentionJs } from '../web/plain-js.mjs';

const which = process.argv[2] ?? 'all';
const want = (s) => which === 'all' || which === s;
const THREADS = os.availableParallelism();
const pe = await load({ threads: 1 });
const peN = await load({ threads: THREADS });
const here = (p) => new URL(p, import.meta.url).pathname;
const results = { machine: machine(), ops: {} };

function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  let flags = '';
  try { flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? ''; } catch { /* not Linux */ }
  const simd = flags.includes('avx512f') ? 'AVX-512' : flags.includes('avx2') ? 'AVX2' : 'SSE';
  return { cpu, cores: os.cpus().length, memGiB: Math.round(os.totalmem() / 2 ** 30), nativeSimd: simd, node: process.version };
}

const sorted = (t) => [...t].sort((a, b) => a - b);
const stats = (t) => ({ median_ms: sorted(t)[t.length >> 1], min_ms: Math.min(...t), runs: t.length });

// Times contenders interleaved: `rounds` rounds, each running every contender once (after one
// warm-up each). contenders: [{ id, run: async () => any }]
async function interleaved(contenders, rounds) {
  const times = Object.fromEntries(contenders.map((c) => [c.id, []]));
  for (const c of contenders) await c.run();
  for (let r = 0; r < rounds; r++)
    for (const c of contenders) {
      const a = performance.now();
      await c.run();
      times[c.id].push(performance.now() - a);
    }
  return Object.fromEntries(Object.entries(times).map(([id, t]) => [id, stats(t)]));
}

// build/native is the portable library (kernels chosen at run time; `kernels` forces a set through
// POSENC_KERNELS); build/native-march the same code compiled with -march=native.
function native(args, build = 'native', bin = 'posenc_bench', kernels = '', threads = 1) {
  const env = { ...process.env, POSENC_THREADS: String(threads) };
  if (kernels) env.POSENC_KERNELS = kernels; else delete env.POSENC_KERNELS;
  const out = execFileSync(here(`../build/${build}/${bin}`), args, { env }).toString();
  return out.trim().split('\n').map((l) => JSON.parse(l));
}
function wasmNode(file) {
  return JSON.parse(execFileSync(process.execPath, ['--no-liftoff', here(file)]).toString().trim().split('\n').pop());
}

// posenc's scalar wasm build: the same bindings, loaded next to the module built without SIMD128.
const scalarPkg = here('../build/wasm-scalar/pkg/bindings/posenc.mjs');
const peScalar = existsSync(scalarPkg) ? await (await import(scalarPkg)).load() : null;

// ---- peak: the multiply-add ceiling natively and in wasm ----------------------------------------
if (want('peak') || want('attention')) {
  // the ceiling at the machine's widest vectors: peak.cpp measures what it is compiled for
  const nat = native([], existsSync(here('../build/native-march/posenc_peak')) ? 'native-march' : 'native', 'posenc_peak')[0];
  const wasm = wasmNode('../build/wasm/posenc_peak_wasm.cjs');
  results.ops.peak = { native_gflops: nat.gflops, native_lanes: nat.lanes, native_fma: nat.fma, wasm_gflops: wasm.gflops, wasm_lanes: wasm.lanes };
}

// The native attention figures are taken before the peers load: for seconds after onnxruntime-web and
// tfjs-wasm start, this 2-core machine's other core is busy (measured: native B 24 ms instead of 16).
const natAttention = want('attention') ? native(['attention']) : null;
const natAttentionN = want('attention') ? native(['attention'], 'native', 'posenc_bench', '', THREADS) : null;
// the same native code at wasm's vector width (4 lanes): the portable library with its SSE4.1 kernels forced
const natSseAttention = want('attention') ? native(['attention'], 'native', 'posenc_bench', 'sse4.1') : [];
// the portable library's dispatched kernels against the whole library compiled with -march=native
const natMarchAttention = want('attention') && existsSync(here('../build/native-march/posenc_bench')) ? native(['attention'], 'native-march') : [];

const maxAbsDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };

// ---- A: applyRope in place vs copy bandwidth ----------------------------------------------------
if (want('rope')) {
  const heads = 32, tokens = 2048, headDim = 128, n = heads * tokens * headDim;
  const positions = Int32Array.from({ length: tokens }, (_, i) => i);
  const nat = native(['rope']), natN = native(['rope'], 'native', 'posenc_bench', '', THREADS);
  const natCopy = nat.find((r) => r.bench === 'copy').GBs;
  const bufN = peN.alloc(n);
  bufN.view().fill(0.5);
  const buf = pe.alloc(n), dst = pe.alloc(n);
  buf.view().fill(0.5);
  const arr = Float32Array.from(buf.view());
  const t = await interleaved([
    { id: 'copy', run: () => pe.copyBuffer(dst, buf) },
    { id: 'half', run: () => pe.applyRope(buf, { heads, tokens, headDim }, positions, { layout: 'half', inPlace: true }) },
    { id: 'interleaved', run: () => pe.applyRope(buf, { heads, tokens, headDim }, positions, { layout: 'interleaved', inPlace: true }) },
    { id: 'halfThreads', run: () => peN.applyRope(bufN, { heads, tokens, headDim }, positions, { layout: 'half', inPlace: true }) },
    { id: 'js', run: () => ropeJs(arr, heads, tokens, headDim, positions) },
  ], 9);
  const bytes = 2 * n * 4, gbs = (ms) => bytes / (ms / 1e3) / 1e9;
  const wasmCopy = gbs(t.copy.min_ms);
  results.ops.A = { shape: '[32, 2048, 128]', copy_native_GBs: natCopy, copy_wasm_GBs: wasmCopy, plain_js: t.js };
  for (const layout of ['half', 'interleaved']) {
    const nr = nat.find((r) => r.bench === 'applyRope' && r.layout === layout);
    const nN = natN.find((r) => r.bench === 'applyRope' && r.layout === layout);
    results.ops.A[layout] = { native_ms: nr.ms, native_of_copy: nr.GBs / natCopy, wasm: t[layout], wasm_of_copy: gbs(t[layout].min_ms) / wasmCopy,
      native_threads_ms: nN.ms, native_threads_of_copy: nN.GBs / natCopy };
  }
  results.ops.A.scaling = { threads: THREADS, native_copy_threads_GBs: natN.find((r) => r.bench === 'copy').GBs, native: results.ops.A.half.native_ms / results.ops.A.half.native_threads_ms, wasm: t.half.median_ms / t.halfThreads.median_ms,
    wasm_1: t.half, wasm_threads: t.halfThreads };
  bufN.delete();
  results.ops.A.js_over_wasm = t.js.median_ms / t.half.median_ms;
  buf.delete(); dst.delete();
}

// peers (installed by scripts/bench.sh into bench/peers/node_modules)
let peers = null, peersError = null;
if (want('attention') || which === 'peers-threaded') {
  try {
    const mod = await import('./peers/peers.mjs');
    await mod.selfCheck({ allowUnavailable: which === 'peers-threaded' });
    peers = { mod, contenders: await mod.loadPeers() };
  } catch (e) {
    peersError = String(e?.message ?? e);
  }
}

// ---- B, B', C, C': causal attention ------------------------------------------------------------
async function attentionOp(op, { heads, T, encoding, rounds, plainJs }, threadedPeers = false) {
  const headDim = 64, n = heads * T * headDim;
  const inputs = peers ? peers.mod.makeInputs(heads, T, headDim) : null;
  const { q, k, v } = inputs ?? (() => {
    const x = { q: new Float32Array(n), k: new Float32Array(n), v: new Float32Array(n) };
    for (let i = 0; i < n; i++) { x.q[i] = Math.sin(i * 0.37); x.k[i] = Math.cos(i * 0.91 + 0.5); x.v[i] = Math.sin(i * 0.13 + 1); }
    return x;
  })();
  const enc = encoding === 'rope' ? { kind: 'rope' } : { kind: 'alibi', heads };
  const contenders = [], cleanup = [], outputs = {}, notes = {};
  const posencContender = (id, api) => {
    const [qb, kb, vb, ob] = [q, k, v, null].map((x) => { const b = api.alloc(n); if (x) b.view().set(x); return b; });
    cleanup.push(() => [qb, kb, vb, ob].forEach((b) => b.delete()));
    contenders.push({ id, run: () => { api.attention({ q: qb, k: kb, v: vb, heads, headDim, qLen: T, kLen: T, causal: true, encoding: enc, out: ob }); } });
    outputs[id] = () => Float32Array.from(ob.view());
  };
  posencContender('posenc_wasm_simd', pe);
  if (!threadedPeers && peScalar) posencContender('posenc_wasm_scalar', peScalar);
  // posenc on all cores: in the second process, next to 1 thread and the peers at the same count (this
  // process's plain-JS and peer runs leave V8 background work that competes for the other core)
  if (threadedPeers) posencContender('posenc_wasm_simd_threads', peN);
  if (plainJs) contenders.push({ id: 'plain_js', run: () => attentionJs(q, k, v, heads, T, headDim, encoding) });
  if (peers) {
    const factory = { B: 'B', "B'": 'Bprime', C: 'C', "C'": 'Cprime' }[op];
    for (const [id, c] of Object.entries(peers.contenders)) {
      if (!c.available) { notes[id] = c.reason; continue; }
      const r = await c[factory]({ T, heads, q, k, v });
      if (!r.ok) { notes[id] = r.reason; continue; }
      let last = null;
      contenders.push({ id, run: async () => { last = await r.run(); } });
      outputs[id] = () => last;
      cleanup.push(() => r.dispose());
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 3000));  // let the peers' start-up work settle (see natAttention)
  const t = await interleaved(contenders, rounds);
  // every contender computed the same thing: its output against posenc's
  const ref = outputs.posenc_wasm_simd();
  const agreement = {};
  for (const [id, get] of Object.entries(outputs)) if (get() && get() !== ref) agreement[id] = maxAbsDiff(ref, get());
  for (const f of cleanup) await f();
  return { heads, T, headDim, encoding, times: t, not_run: notes, max_abs_diff_vs_posenc: agreement };
}

const attentionSpecs = [
  ['B', { heads: 8, T: 1024, encoding: 'rope', rounds: 7, plainJs: true }],
  ["B'", { heads: 8, T: 1024, encoding: 'alibi', rounds: 7, plainJs: true }],
  ['C', { heads: 8, T: 4096, encoding: 'rope', rounds: 3, plainJs: false }],
];
// The second process: posenc and the peers at THREADS threads, interleaved; prints one JSON line.
if (which === 'peers-threaded') {
  const out = {};
  for (const [op, spec] of attentionSpecs) {
    const r = await attentionOp(op, { ...spec, plainJs: false }, true);
    const ort = fastestPeer(r.times, 'ort-'), tf = fastestPeer(r.times, 'tfjs-'), w = r.times.posenc_wasm_simd_threads.median_ms;
    out[op] = { threads: THREADS, times: r.times, wasm_scaling: r.times.posenc_wasm_simd.median_ms / w, not_run: r.not_run, max_abs_diff_vs_posenc: r.max_abs_diff_vs_posenc, onnxruntime_graph: ort,
      wasm_over_onnxruntime: ort ? w / r.times[ort].median_ms : null, wasm_over_tfjs: tf ? w / r.times[tf].median_ms : null };
  }
  console.log(JSON.stringify(out));
  process.exit(0);
}

function fastestPeer(times, family) {
  const ids = Object.keys(times).filter((id) => id.startsWith(family));
  if (!ids.length) return null;
  return ids.reduce((a, b) => (times[a].median_ms <= times[b].median_ms ? a : b));
}

if (want('attention')) {
  const nat = natAttention, natSse = natSseAttention;
  const flops = (heads, T, d) => 2 * heads * T * T * d;  // causal: QK and PV over the kept half
  for (const [op, spec] of attentionSpecs) {
    const r = await attentionOp(op, spec);
    const nr = nat.find((x) => x.op === op), ns = natSse.find((x) => x.op === op);
    r.native = { median_ms: nr.median_ms, min_ms: nr.min_ms };
    const nN = natAttentionN.find((x) => x.op === op);
    r.native_threads = { threads: THREADS, median_ms: nN.median_ms, min_ms: nN.min_ms };
    r.scaling = { threads: THREADS, native: nr.median_ms / nN.median_ms };
    if (ns) r.native_sse41 = { median_ms: ns.median_ms, min_ms: ns.min_ms };
    const nm = natMarchAttention.find((x) => x.op === op);
    if (nm) r.native_march = { median_ms: nm.median_ms, min_ms: nm.min_ms, dispatched_over_march: nr.median_ms / nm.median_ms };
    const w = r.times.posenc_wasm_simd.median_ms;
    const ort = fastestPeer(r.times, 'ort-'), tf = fastestPeer(r.times, 'tfjs-');
    const peersDone = [ort, tf].filter(Boolean);
    const fastest = peersDone.length ? peersDone.reduce((a, b) => (r.times[a].median_ms <= r.times[b].median_ms ? a : b)) : null;
    const f = flops(spec.heads, spec.T, 64);
    const peak = results.ops.peak;
    r.ratios = {
      wasm_over_onnxruntime: ort ? w / r.times[ort].median_ms : null, onnxruntime_graph: ort,
      wasm_over_tfjs: tf ? w / r.times[tf].median_ms : null,
      wasm_over_fastest_peer: fastest ? w / r.times[fastest].median_ms : null, fastest_peer: fastest,
      wasm_simd_speedup_over_scalar: r.times.posenc_wasm_scalar ? r.times.posenc_wasm_scalar.median_ms / w : null,
      wasm_over_native: w / nr.median_ms,
      wasm_over_native_sse41: ns ? w / ns.median_ms : null,
      plain_js_over_wasm: r.times.plain_js ? r.times.plain_js.median_ms / w : null,
      wasm_gflops: f / (w / 1e3) / 1e9, native_gflops: f / (nr.median_ms / 1e3) / 1e9,
      wasm_of_peak: peak ? f / (w / 1e3) / 1e9 / peak.wasm_gflops : null,
      native_of_peak: peak ? f / (nr.median_ms / 1e3) / 1e9 / peak.native_gflops : null,
    };
    results.ops[op] = r;
  }
  // the peers at THREADS threads against posenc at THREADS, in a process of their own
  if (peers && THREADS > 1) {
    try {
      const out = execFileSync(process.execPath, ['--no-liftoff', here('./run.mjs'), 'peers-threaded'],
        { env: { ...process.env, POSENC_BENCH_PEER_THREADS: String(THREADS) }, maxBuffer: 1 << 26 }).toString().trim().split('\n').pop();
      results.equal_threads = JSON.parse(out);
    } catch (e) {
      results.equal_threads_error = String(e?.message ?? e);
    }
  }
  for (const [op, x] of Object.entries(results.equal_threads ?? {}))
    Object.assign(results.ops[op].scaling, { wasm: x.wasm_scaling, wasm_1: x.times.posenc_wasm_simd, wasm_threads: x.times.posenc_wasm_simd_threads });
  results.ops["B'"].ratios.alibi_over_rope_wasm = results.ops["B'"].times.posenc_wasm_simd.median_ms / results.ops.B.times.posenc_wasm_simd.median_ms;

  // C': 32768 tokens, one head: memory must stay O(T d). Peers predicting a T x T matrix refuse.
  const T = 32768, n = T * 64;
  const rss = native(['attention-rss', '1', String(T)])[0];
  const rssN = native(['attention-rss', '1', String(T)], 'native', 'posenc_bench', '', THREADS)[0];
  const bufs = ['q', 'k', 'v', 'o'].map(() => pe.alloc(n));
  for (const b of bufs.slice(0, 3)) b.view().fill(0.01);
  const [q, k, v, o] = bufs;
  const heapBefore = pe.heapBytes();
  const t0 = performance.now();
  pe.attention({ q, k, v, heads: 1, headDim: 64, qLen: T, kLen: T, causal: true, encoding: { kind: 'rope' }, out: o });
  const wasmMs = performance.now() - t0;
  bufs.forEach((b) => b.delete());
  const bufsN = ['q', 'k', 'v', 'o'].map(() => peN.alloc(n));
  for (const b of bufsN.slice(0, 3)) b.view().fill(0.01);
  const t1 = performance.now();
  peN.attention({ q: bufsN[0], k: bufsN[1], v: bufsN[2], heads: 1, headDim: 64, qLen: T, kLen: T, causal: true, encoding: { kind: 'rope' }, out: bufsN[3] });
  const wasmThreadsMs = performance.now() - t1;
  bufsN.forEach((b) => b.delete());
  const peerNotes = {};
  if (peers)
    for (const [id, c] of Object.entries(peers.contenders)) {
      const r = c.available ? await c.Cprime({}) : { ok: false, reason: c.reason };
      peerNotes[id] = r.ok ? 'completed (not timed here)' : r.reason;
      if (r.ok) await r.dispose();
    }
  results.ops["C'"] = { heads: 1, T, headDim: 64, native_ms: rss.ms, native_peak_rss_MiB: rss.peakRssMiB, tensors_MiB: rss.tensorsMiB,
    TxT_matrix_MiB: rss.TxT_floatMiB, wasm_ms: wasmMs, wasm_heap_growth_MiB: (pe.heapBytes() - heapBefore) / 2 ** 20, peers: peerNotes,
    native_threads_ms: rssN.ms, native_threads_peak_rss_MiB: rssN.peakRssMiB, wasm_threads_ms: wasmThreadsMs,
    scaling: { threads: THREADS, native: rss.ms / rssN.ms, wasm: wasmMs / wasmThreadsMs } };
  if (peersError) results.peers_error = peersError;
}

// ---- D: decode steps against 32768 cached tokens, each K/V storage (issue 34) -----------------------
// A step appends one token and attends one query: `heads` query heads over 8 kv heads × headDim, RoPE, the
// four storages' caches interleaved round by round (a noisy neighbour slows all alike), at 1 thread and at
// THREADS. Bytes read per step: every cached key and value once, in its stored format. With
// POSENC_BENCH_BASELINE=<another checkout's bindings/posenc.mjs>, that package's float32 cache runs
// interleaved with them ("f32 then": the storage dispatch must not cost the default path).
const STORAGES = ['f32', 'f16', 'bf16', 'q8'];
const DECODE_SHAPES = [[64, 8], [64, 32], [128, 8], [128, 32]];  // [headDim, query heads]
const bytesPerToken = (storage, kvHeads, headDim) => kvHeads * 2 * (storage === 'f32' ? 4 * headDim : storage === 'q8' ? headDim / 32 * 34 : 2 * headDim);
if (want('cache')) {
  const baselineModule = process.env.POSENC_BENCH_BASELINE ? await import(process.env.POSENC_BENCH_BASELINE) : null;
  const peThen = baselineModule ? await baselineModule.load({ threads: 1 }) : null;
  const nat = native(['decode']), natN = native(['decode'], 'native', 'posenc_bench', '', THREADS);
  const kvHeads = 8, cached = 32768, rounds = 15;
  results.ops.D = { cached, kvHeads, rounds, threads: THREADS, baseline: process.env.POSENC_BENCH_BASELINE ?? null, shapes: [] };
  for (const headDim of [64, 128]) {
    const n = kvHeads * cached * headDim;
    const k = pe.alloc(n), v = pe.alloc(n), dst = pe.alloc(n);
    const kv = k.view(), vv = v.view();
    for (let i = 0; i < n; i++) { kv[i] = Math.sin(i * 0.37); vv[i] = Math.cos(i * 0.11); }
    const capacity = cached + 2 * (rounds + 2);
    const one = {}, all = {};
    for (const storage of STORAGES) {
      one[storage] = new pe.KVCache({ kvHeads, headDim, capacity, rope: {}, storage });
      one[storage].append(k, v);
      all[storage] = new peN.KVCache({ kvHeads, headDim, capacity, rope: {}, storage });
      all[storage].append(k.view(), v.view());  // copied into the threaded module's heap
    }
    let then = null;
    if (peThen) { then = new peThen.KVCache({ kvHeads, headDim, capacity, rope: {} }); then.append(k.view(), v.view()); }
    const kStep = new Float32Array(kvHeads * headDim).fill(0.1), vStep = kStep.slice();
    for (const heads of [8, 32]) {
      const q = new Float32Array(heads * headDim).fill(0.3);
      // one-thread steps also record their CPU time (this thread's: on a shared machine the time other
      // processes take the core away is left out; memory stalls stay in)
      const cpu = {};
      const step = (c, id) => () => {
        const a = process.cpuUsage();
        c.append(kStep, vStep);
        c.attend(q, { heads });
        if (id) { const u = process.cpuUsage(a); (cpu[id] ??= []).push((u.user + u.system) / 1000); }
      };
      const contenders = [{ id: 'copy', run: () => pe.copyBuffer(dst, k) }];
      for (const storage of STORAGES) contenders.push({ id: storage, run: step(one[storage], storage) }, { id: `${storage}Threads`, run: step(all[storage]) });
      if (then) contenders.push({ id: 'f32Then', run: step(then, 'f32Then') });
      const t = await interleaved(contenders, rounds);
      const cpuMedian = (id) => { const x = cpu[id].slice(1).sort((a, b) => a - b); return x[x.length >> 1]; };  // (the warm-up left out)
      const copyGBs = (2 * n * 4) / (t.copy.min_ms / 1e3) / 1e9;
      const row = { headDim, heads, kvHeads, copy_wasm_GBs: copyGBs, f32_then: t.f32Then ?? null, f32_then_cpu_ms: then ? cpuMedian('f32Then') : null, storages: {} };
      for (const storage of STORAGES) {
        const bytes = cached * bytesPerToken(storage, kvHeads, headDim);
        const nr = nat.find((x) => x.storage === storage && x.heads === heads && x.headDim === headDim);
        const nN = natN.find((x) => x.storage === storage && x.heads === heads && x.headDim === headDim);
        const w = t[storage], wN = t[`${storage}Threads`];
        row.storages[storage] = { bytesPerToken: bytesPerToken(storage, kvHeads, headDim), wasm: w, wasm_threads: wN,
          wasm_cpu_ms: cpuMedian(storage), wasm_cpu_speedup_over_f32: cpuMedian('f32') / cpuMedian(storage),
          wasm_GBs: bytes / (w.min_ms / 1e3) / 1e9, wasm_of_copy: bytes / (w.min_ms / 1e3) / 1e9 / copyGBs,
          wasm_speedup_over_f32: t.f32.median_ms / w.median_ms, wasm_threads_speedup_over_f32: t.f32Threads.median_ms / wN.median_ms,
          native_median_ms: nr.median_ms, native_min_ms: nr.min_ms, native_threads_median_ms: nN.median_ms, native_GBs: nr.GBs, native_of_copy: nr.GBs / nr.copyGBs,
          native_speedup_over_f32: nat.find((x) => x.storage === 'f32' && x.heads === heads && x.headDim === headDim).median_ms / nr.median_ms,
          scaling: { native: nr.median_ms / nN.median_ms, wasm: w.median_ms / wN.median_ms } };
      }
      results.ops.D.shapes.push(row);
    }
    for (const c of [...Object.values(one), ...Object.values(all)]) c.delete();
    then?.delete();
    k.delete(); v.delete(); dst.delete();
  }
  results.ops.D.error = storageErrors();
}

// Each storage's error against float32 attention over the same keys and values: |out − out_f32| / max
// |out_f32| per element, max and mean over 16 decode queries, with random activations (uniform ±2) and
// real-scale ones (a Llama-like key: two outlier channels up to ~25, the rest within ±1.5, values ×0.05);
// 4096 cached tokens, 8 kv heads × 128, 32 query heads, RoPE. And what re-rotation costs: the same after
// cache.shift(1000) and shift(-1000) (two conversions more per key), against the unshifted float32 cache.
function storageErrors() {
  const kvHeads = 8, heads = 32, headDim = 128, T = 4096, queries = 16;
  const rand = (seed) => { let s = seed >>> 0 || 1; return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32 * 2 - 1; }; };
  const make = (kind, seed) => {
    const r = rand(seed), x = new Float32Array(kind === 'q' ? heads * queries * headDim : kvHeads * (T + queries) * headDim);
    for (let i = 0; i < x.length; i++) {
      const c = i % headDim, outlier = c === 3 || c === headDim / 2 + 3, u = r() * 1.5;
      x[i] = kind === 'random' ? r() * 2 : kind === 'k' ? (outlier ? u * 8 + 13 : u) : kind === 'v' ? u * 0.05 : (outlier ? u * 4 : u);
    }
    return x;
  };
  const out = {};
  for (const activations of ['random', 'real-scale']) {
    const k = activations === 'random' ? make('random', 1) : make('k', 1), v = activations === 'random' ? make('random', 2) : make('v', 2);
    const q = activations === 'random' ? make('random', 3).subarray(0, heads * queries * headDim) : make('q', 3);
    const rows = (x, t0, m) => { const o = new Float32Array(kvHeads * m * headDim); for (let h = 0; h < kvHeads; h++) o.set(x.subarray((h * (T + queries) + t0) * headDim, (h * (T + queries) + t0 + m) * headDim), h * m * headDim); return o; };
    const caches = Object.fromEntries(STORAGES.map((storage) => [storage, new pe.KVCache({ kvHeads, headDim, capacity: T + queries, rope: {}, storage })]));
    const shifted = Object.fromEntries(STORAGES.map((storage) => [storage, new pe.KVCache({ kvHeads, headDim, capacity: T + queries, rope: {}, storage })]));
    for (const c of [...Object.values(caches), ...Object.values(shifted)]) c.append(rows(k, 0, T), rows(v, 0, T));
    for (const c of Object.values(shifted)) c.shift(1000).shift(-1000);
    const err = Object.fromEntries(STORAGES.map((s) => [s, { max: 0, sum: 0, n: 0, shiftMax: 0, shiftSum: 0 }]));
    for (let i = 0; i < queries; i++) {
      for (const c of [...Object.values(caches), ...Object.values(shifted)]) c.append(rows(k, T + i, 1), rows(v, T + i, 1));
      const qi = q.subarray(i * heads * headDim, (i + 1) * heads * headDim);
      const ref = caches.f32.attend(qi, { heads }).out;
      let top = 0;
      for (const x of ref) top = Math.max(top, Math.abs(x));
      for (const storage of STORAGES) {
        const o = caches[storage].attend(qi, { heads }).out, os = shifted[storage].attend(qi, { heads }).out, e = err[storage];
        for (let j = 0; j < ref.length; j++) {
          const d = Math.abs(o[j] - ref[j]) / top, ds = Math.abs(os[j] - ref[j]) / top;
          e.max = Math.max(e.max, d); e.sum += d; e.n++;
          e.shiftMax = Math.max(e.shiftMax, ds); e.shiftSum += ds;
        }
      }
    }
    for (const c of [...Object.values(caches), ...Object.values(shifted)]) c.delete();
    out[activations] = Object.fromEntries(STORAGES.map((s) => [s, { max: err[s].max, mean: err[s].sum / err[s].n, shift_max: err[s].shiftMax, shift_mean: err[s].shiftSum / err[s].n }]));
  }
  return out;
}

// ---- the 2024-2025 mechanisms at B's size (issue 36): wasm, one thread, interleaved with B ------------
// B's shape and inputs (8 heads, 1024 tokens, 64 channels, causal), posenc's wasm SIMD build: RoPE with the
// softmax (B itself), no position term with the softmax, stick-breaking alone and over RoPE.
// `node bench/run.mjs mechanisms` runs this alone.
if (want('attention') || want('mechanisms')) {
  const heads = 8, T = 1024, headDim = 64, n = heads * T * headDim, rounds = 7;
  const bufs = ['q', 'k', 'v', 'o'].map(() => pe.alloc(n));
  const [qb, kb, vb, ob] = bufs;
  const [qv, kv, vv] = [qb, kb, vb].map((b) => b.view());
  for (let i = 0; i < n; i++) { qv[i] = Math.sin(i * 0.37); kv[i] = Math.cos(i * 0.91 + 0.5); vv[i] = Math.sin(i * 0.13 + 1); }  // B's inputs without the peers
  const kinds = {
    rope_softmax: { kind: 'rope' },
    none_softmax: { kind: 'none' },
    stickBreaking: { kind: 'stickBreaking' },
    rope_stickBreaking: [{ kind: 'rope' }, { kind: 'stickBreaking' }],
  };
  const contenders = Object.entries(kinds).map(([id, encoding]) => ({ id, run: () => { pe.attention({ q: qb, k: kb, v: vb, heads, headDim, qLen: T, kLen: T, causal: true, encoding, out: ob }); } }));
  // Stick-breaking's cost depends on the logits: a row stops at the key where its stick is used up (B's
  // inputs: after a few dozen keys). Its worst case, every stick lasting past all 1024 keys: every logit
  // −9 (σ = 1.2e-4; q = 1, k = −9/8 in every channel, scale 1/8), so every key is walked.
  const [qf, kf] = [pe.alloc(n), pe.alloc(n)];
  qf.view().fill(1);
  kf.view().fill(-9 / 8);
  bufs.push(qf, kf);
  contenders.push({ id: 'stickBreaking_every_key', run: () => { pe.attention({ q: qf, k: kf, v: vb, heads, headDim, qLen: T, kLen: T, causal: true, encoding: { kind: 'stickBreaking' }, out: ob }); } });
  const times = await interleaved(contenders, rounds);
  bufs.forEach((b) => b.delete());
  const m = (id) => times[id].median_ms;
  results.ops.mechanisms = { heads, T, headDim, rounds, threads: 1, times,
    ratios: { stickBreaking_over_none: m('stickBreaking') / m('none_softmax'), rope_stickBreaking_over_rope: m('rope_stickBreaking') / m('rope_softmax'),
      stickBreaking_every_key_over_none: m('stickBreaking_every_key') / m('none_softmax') } };
}

// ---- F: forgetting attention (FoX) at B's size beside RoPE attention, wasm SIMD, one thread ------
// Interleaved round by round: B's RoPE, FoX alone (its decay as the only position term), FoX + RoPE (an
// encoding array, as FoX models with RoPE run). Log gates log σ(x), x spread over (1, 5) per head and token.
if (want('fox')) {
  const heads = 8, T = 1024, headDim = 64, n = heads * T * headDim, rounds = 9;
  const [qb, kb, vb, ob] = [0, 1, 2, 3].map(() => pe.alloc(n));
  const [q, k, v] = [qb, kb, vb].map((b) => b.view());
  for (let i = 0; i < n; i++) { q[i] = Math.sin(i * 0.37); k[i] = Math.cos(i * 0.91 + 0.5); v[i] = Math.sin(i * 0.13 + 1); }
  const logForget = Float32Array.from({ length: heads * T }, (_, i) => -Math.log1p(Math.exp(-(3 + 2 * Math.sin(i * 0.7)))));
  const run = (encoding) => () => { pe.attention({ q: qb, k: kb, v: vb, heads, headDim, qLen: T, kLen: T, causal: true, encoding, out: ob }); };
  const t = await interleaved([
    { id: 'rope', run: run({ kind: 'rope' }) },
    { id: 'forgetting', run: run({ kind: 'forgetting', logForget }) },
    { id: 'rope_forgetting', run: run([{ kind: 'rope' }, { kind: 'forgetting', logForget }]) },
  ], rounds);
  [qb, kb, vb, ob].forEach((b) => b.delete());
  results.ops.F = { heads, T, headDim, rounds, times: t,
    forgetting_over_rope: t.forgetting.median_ms / t.rope.median_ms, rope_forgetting_over_rope: t.rope_forgetting.median_ms / t.rope.median_ms };
}

// ---- FD: a forgetting cache's decode step, wasm SIMD, one thread -------------------------------------
// Append one token with its log gates, attend one query per head with { kind: 'forgetting' }, against
// `cached` tokens; interleaved beside the same step of POSENC_BENCH_BASELINE's package (another checkout's
// bindings/posenc.mjs, e.g. before a change) when given. `node bench/run.mjs foxdecode`.
if (want('foxdecode')) {
  const baselineModule = process.env.POSENC_BENCH_BASELINE ? await import(process.env.POSENC_BENCH_BASELINE) : null;
  const peThen = baselineModule ? await baselineModule.load({ threads: 1 }) : null;
  const heads = 8, kvHeads = 8, headDim = 64, rounds = 41;
  results.ops.FD = { heads, kvHeads, headDim, rounds, baseline: process.env.POSENC_BENCH_BASELINE ?? null, shapes: [] };
  for (const cached of [4096, 32768]) {
    const n = kvHeads * cached * headDim;
    const k = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37)), v = Float32Array.from({ length: n }, (_, i) => Math.cos(i * 0.11));
    const logForget = Float32Array.from({ length: heads * cached }, (_, i) => -Math.log1p(Math.exp(-(3 + 2 * Math.sin(i * 0.7)))));
    const make = (p) => { const c = new p.KVCache({ kvHeads, headDim, capacity: cached + rounds + 8, forgetting: true }); c.append(k, v, { logForget }); return c; };
    const kStep = new Float32Array(kvHeads * headDim).fill(0.1), vStep = kStep.slice(), gStep = new Float32Array(heads).fill(-0.05);
    const q = new Float32Array(heads * headDim).fill(0.3), encoding = { kind: 'forgetting' };
    const step = (c) => () => { c.append(kStep, vStep, { logForget: gStep }); c.attend(q, { heads, encoding }); };
    const now = make(pe), then = peThen ? make(peThen) : null;
    const t = await interleaved([{ id: 'now', run: step(now) }, ...(then ? [{ id: 'then', run: step(then) }] : [])], rounds);
    now.delete();
    then?.delete();
    results.ops.FD.shapes.push({ cached, times: t, now_over_then: t.then ? t.now.median_ms / t.then.median_ms : null });
  }
}

// ---- output ---------------------------------------------------------------------------------
mkdirSync(here('../build/'), { recursive: true });
writeFileSync(here('../build/bench.json'), JSON.stringify(results, null, 2));
const md = markdown(results);
writeFileSync(here('../build/bench.md'), md);
console.log(md);

function markdown(r) {
  const f = (x, d = 1) => (x == null ? '—' : Number(x).toFixed(d));
  const ms = (s) => (s ? `${f(s.median_ms)} (min ${f(s.min_ms)})` : '—');
  const lines = [`Machine: ${r.machine.cpu}, ${r.machine.cores} cores, native ${r.machine.nativeSimd}, Node ${r.machine.node}. Times in ms: median of the rounds (min).`, ''];
  const p = r.ops.peak;
  if (p) lines.push(`Multiply-add ceiling (bench/peak.cpp): native ${f(p.native_gflops)} GFLOP/s (${p.native_lanes} lanes${p.native_fma ? ', FMA' : ''}), wasm SIMD128 ${f(p.wasm_gflops)} GFLOP/s (mul + add).`, '');
  const att = ['B', "B'", 'C'].filter((o) => r.ops[o]);
  if (att.length) {
    lines.push('| op | posenc wasm SIMD | posenc wasm scalar | posenc native | onnxruntime-web | tfjs-wasm | plain JS | ratios |', '|---|---|---|---|---|---|---|---|');
    for (const op of att) {
      const o = r.ops[op], t = o.times, x = o.ratios;
      const ort = x.onnxruntime_graph, tf = fastestPeer(t, 'tfjs-');
      const ortCell = ort ? `${ms(t[ort])} ${ort.replace('ort-', '')}` : (Object.entries(o.not_run).filter(([id]) => id.startsWith('ort')).map(([id, why]) => `${id}: ${why}`).join('; ') || '—');
      const tfCell = tf ? ms(t[tf]) : (o.not_run['tfjs-wasm'] ?? '—');
      lines.push(`| ${op} ${o.encoding} [${o.heads}, ${o.T}, 64] | ${ms(t.posenc_wasm_simd)} · ${f(x.wasm_gflops)} GFLOP/s (${f(100 * x.wasm_of_peak, 0)} % of peak) | ${ms(t.posenc_wasm_scalar)} | ${f(o.native.median_ms)} · ${f(x.native_gflops)} GFLOP/s (${f(100 * x.native_of_peak, 0)} %) | ${ortCell} | ${tfCell} | ${ms(t.plain_js)} | `
        + `**${f(x.wasm_over_onnxruntime, 2)}×** ORT, ${f(x.wasm_over_fastest_peer, 2)}× fastest peer, SIMD/scalar ${f(x.wasm_simd_speedup_over_scalar, 1)}×, wasm/native ${f(x.wasm_over_native, 2)}× (SSE4.1 build ${f(x.wasm_over_native_sse41, 2)}×)`
        + `${x.alibi_over_rope_wasm ? `, B′/B ${f(x.alibi_over_rope_wasm, 2)}` : ''} |`);
    }
  }
  const mech = r.ops.mechanisms;
  if (mech) {
    lines.push('', `The 2024-2025 mechanisms at B's size [${mech.heads}, ${mech.T}, ${mech.headDim}], causal, posenc wasm SIMD, 1 thread, interleaved (medians, ms):`, '',
      '| encoding | wasm | over softmax |', '|---|---|---|');
    const base = { rope_softmax: null, none_softmax: null, stickBreaking: 'none_softmax', rope_stickBreaking: 'rope_softmax', stickBreaking_every_key: 'none_softmax' };
    const name = (id) => (id === 'stickBreaking_every_key' ? 'stickBreaking, every key walked (logits −9)' : id.replace('_', ' + '));
    for (const [id, t] of Object.entries(mech.times))
      lines.push(`| ${name(id)} | ${ms(t)} | ${base[id] ? `${f(t.median_ms / mech.times[base[id]].median_ms, 2)}× ${name(base[id])}` : '—'} |`);
  }
  const fx = r.ops.F;
  if (fx) lines.push('', `F: forgetting attention at B's size [${fx.heads}, ${fx.T}, ${fx.headDim}], causal, wasm SIMD, 1 thread, interleaved (${fx.rounds} rounds): `
    + `RoPE ${ms(fx.times.rope)}, FoX ${ms(fx.times.forgetting)} (${f(fx.forgetting_over_rope, 2)}× RoPE's), FoX + RoPE ${ms(fx.times.rope_forgetting)} (${f(fx.rope_forgetting_over_rope, 2)}×).`);
  const fd = r.ops.FD;
  if (fd) for (const x of fd.shapes)
    lines.push('', `FD: forgetting cache decode step (append 1 token + attend, ${fd.heads} heads × ${fd.headDim}, ${x.cached} cached), wasm SIMD, 1 thread, interleaved (${fd.rounds} rounds): `
      + `this package ${ms(x.times.now)}${x.times.then ? `, the baseline ${ms(x.times.then)} (${f(x.now_over_then, 2)}× its time)` : ''}.`);
  const c = r.ops["C'"];
  if (c) lines.push('', `C′ causal RoPE [1, 32768, 64]: posenc native ${f(c.native_ms, 0)} ms at peak RSS ${f(c.native_peak_rss_MiB, 0)} MiB (tensors ${f(c.tensors_MiB, 0)} MiB; a T×T matrix would be ${f(c.TxT_matrix_MiB, 0)} MiB); wasm ${f(c.wasm_ms, 0)} ms, heap growth ${f(c.wasm_heap_growth_MiB, 0)} MiB. Peers: ${Object.entries(c.peers).map(([id, why]) => `${id} — ${why}`).join('; ') || '—'}.`);
  const d = r.ops.D;
  if (d) {
    lines.push('', `Decode step (append one token, attend one query; RoPE) against ${d.cached} cached tokens, ${d.kvHeads} kv heads; wasm and native at 1 thread and at ${d.threads}; `
      + 'speed-up: the float32 storage\'s median over this storage\'s, in the same run; of copy: bytes read per step (every cached key and value once, as stored) per second, over the copy bandwidth of one thread.', '',
      `| headDim × query heads | storage | bytes / token / layer | wasm 1 thread | speed-up | CPU time, speed-up | of copy | wasm ${d.threads} threads | speed-up | native 1 thread | speed-up | of copy | native ${d.threads} threads |`,
      '|---|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|');
    for (const row of d.shapes) {
      for (const [storage, x] of Object.entries(row.storages))
        lines.push(`| ${row.headDim} × ${row.heads} | ${storage} | ${x.bytesPerToken} | ${ms(x.wasm)} | ${f(x.wasm_speedup_over_f32, 2)}× | ${f(x.wasm_cpu_ms, 1)} ms, ${f(x.wasm_cpu_speedup_over_f32, 2)}× | ${f(100 * x.wasm_of_copy, 0)} % | ${ms(x.wasm_threads)} | ${f(x.wasm_threads_speedup_over_f32, 2)}× | ${f(x.native_median_ms, 2)} | ${f(x.native_speedup_over_f32, 2)}× | ${f(100 * x.native_of_copy, 0)} % | ${f(x.native_threads_median_ms, 2)} |`);
      if (row.f32_then) lines.push(`| ${row.headDim} × ${row.heads} | f32, the baseline package | — | ${ms(row.f32_then)} | ${f(row.storages.f32.wasm.median_ms / row.f32_then.median_ms, 2)}× its time | ${f(row.f32_then_cpu_ms, 1)} ms: f32 takes ${f(row.storages.f32.wasm_cpu_ms / row.f32_then_cpu_ms, 2)}× | — | — | — | — | — | — | — |`);
    }
    if (d.error) {
      lines.push('', 'Error against float32 attention over the same cache (|out − out_f32| / max |out_f32| over 16 decode queries; 4096 cached, 8 kv heads × 128, 32 query heads, RoPE), '
        + 'and after shift(1000) and shift(−1000) (re-rotation: two conversions more per key):', '',
        '| activations | storage | max | mean | after re-rotation: max | mean |', '|---|---|---:|---:|---:|---:|');
      const e = (x) => (x === 0 ? '0' : x.toExponential(1));
      for (const [act, byStorage] of Object.entries(d.error))
        for (const [storage, x] of Object.entries(byStorage)) lines.push(`| ${act} | ${storage} | ${e(x.max)} | ${e(x.mean)} | ${e(x.shift_max)} | ${e(x.shift_mean)} |`);
    }
  }
  // threads: every op at 1 thread and at all cores, within this run
  const scal = [['A applyRope half [32, 2048, 128]', r.ops.A && { ...r.ops.A.scaling, n1: r.ops.A.half.native_ms, nN: r.ops.A.half.native_threads_ms, w1: r.ops.A.scaling.wasm_1.median_ms, wN: r.ops.A.scaling.wasm_threads.median_ms }],
    ...['B', "B'", 'C'].map((op) => [`${op} [8, ${r.ops[op]?.T}, 64]`, r.ops[op] && { ...r.ops[op].scaling, n1: r.ops[op].native.median_ms, nN: r.ops[op].native_threads.median_ms, w1: r.ops[op].scaling.wasm_1?.median_ms, wN: r.ops[op].scaling.wasm_threads?.median_ms }]),
    ["C′ [1, 32768, 64] (one run)", c && { ...c.scaling, n1: c.native_ms, nN: c.native_threads_ms, w1: c.wasm_ms, wN: c.wasm_threads_ms }],
    ...(d ? d.shapes.filter((row) => row.headDim === 64).map((row) => [`D decode f32, ${row.heads} query heads over 8 × 64`, { ...row.storages.f32.scaling, threads: d.threads,
      n1: row.storages.f32.native_median_ms, nN: row.storages.f32.native_threads_median_ms, w1: row.storages.f32.wasm.median_ms, wN: row.storages.f32.wasm_threads.median_ms }]) : [])]
    .filter(([, x]) => x);
  if (scal.length) {
    const n = scal[0][1].threads;
    lines.push('', `| 1 → ${n} threads (medians, ms) | native 1 | native ${n} | speed-up (efficiency) | wasm 1 | wasm ${n} | speed-up (efficiency) |`, '|---|---|---|---|---|---|---|');
    for (const [name, x] of scal)
      lines.push(`| ${name} | ${f(x.n1, 2)} | ${f(x.nN, 2)} | **${f(x.native, 2)}×** (${f(100 * x.native / n, 0)} %) | ${f(x.w1, 1)} | ${f(x.wN, 1)} | **${f(x.wasm, 2)}×** (${f(100 * x.wasm / n, 0)} %) |`);
  }
  const eq = r.equal_threads;
  if (eq) {
    lines.push('', '| equal threads (medians, ms) | posenc wasm | onnxruntime-web | posenc / ORT | tfjs-wasm |', '|---|---|---|---|---|');
    for (const [op, x] of Object.entries(eq)) {
      const tf = fastestPeer(x.times, 'tfjs-');
      lines.push(`| ${op} at ${x.threads} threads | ${ms(x.times.posenc_wasm_simd_threads)} (1 thread: ${ms(x.times.posenc_wasm_simd)}) | ${x.onnxruntime_graph ? `${ms(x.times[x.onnxruntime_graph])} ${x.onnxruntime_graph.replace('ort-', '')}` : '—'} | **${f(x.wasm_over_onnxruntime, 2)}×** | ${tf ? ms(x.times[tf]) : (x.not_run['tfjs-wasm'] ?? '—')} |`);
    }
  }
  if (r.ops.A?.scaling) lines.push('', `applyRope at ${r.ops.A.scaling.threads} threads natively: ${f(r.ops.A.half.native_threads_of_copy * 100, 0)} % of one thread's copy bandwidth; memcpy on ${r.ops.A.scaling.threads} threads: ${f(r.ops.A.scaling.native_copy_threads_GBs, 1)} GB/s against ${f(r.ops.A.copy_native_GBs, 1)} on one (A is bound by memory).`);
  if (r.equal_threads_error) lines.push('', `equal-thread peers: ${r.equal_threads_error}`);
  const a = r.ops.A;
  if (a) {
    lines.push('', '| applyRope [32, 2048, 128] in place | native | wasm | wasm of copy |', '|---|---|---|---|');
    for (const l of ['half', 'interleaved']) lines.push(`| ${l} | ${f(a[l].native_ms, 2)} ms (${f(100 * a[l].native_of_copy, 0)} % of copy) | ${ms(a[l].wasm)} | ${f(100 * a[l].wasm_of_copy, 0)} % |`);
    lines.push(`| plain-JS loop | — | ${ms(a.plain_js)} | posenc ${f(a.js_over_wasm, 1)}× faster |`);
  }
  return lines.join('\n') + '\n';
}
