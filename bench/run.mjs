// Runs every benchmark side by side in one process tree: the native binary, the same work in wasm
// through the npm package, and the JS peers a user would otherwise write. Prints a table and
// writes build/bench.json. Usage: node bench/run.mjs [rope|attention|cache|all]
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { load } from '../bindings/posenc.mjs';

const which = process.argv[2] ?? 'all';
const pe = await load();
const rows = [];

function median(fn, reps = 9) {
  fn();
  const t = [];
  for (let i = 0; i < reps; i++) { const a = performance.now(); fn(); t.push(performance.now() - a); }
  t.sort((x, y) => x - y);
  return t[t.length >> 1];
}

// Fastest of repeated runs (see bench/timing.hpp): used for the bandwidth ratios.
function best(fn, reps = 15) {
  fn();
  let b = Infinity;
  for (let i = 0; i < reps; i++) { const a = performance.now(); fn(); b = Math.min(b, performance.now() - a); }
  return b;
}

function native(name, build = 'native') {
  const out = execFileSync(new URL(`../build/${build}/posenc_bench`, import.meta.url).pathname, [name]).toString();
  return out.trim().split('\n').map((l) => JSON.parse(l));
}
const haveSse = existsSync(new URL('../build/native-sse/posenc_bench', import.meta.url));

// A straightforward JS RoPE (rotate_half), what a JS user would write without posenc.
function ropeJs(x, heads, tokens, headDim, positions, base = 10000) {
  const h = headDim / 2;
  const inv = Float64Array.from({ length: h }, (_, i) => base ** (-2 * i / headDim));
  const c = new Float32Array(h), s = new Float32Array(h);
  for (let t = 0; t < tokens; t++) {
    for (let i = 0; i < h; i++) { const a = positions[t] * inv[i]; c[i] = Math.cos(a); s[i] = Math.sin(a); }
    for (let hh = 0; hh < heads; hh++) {
      const o = (hh * tokens + t) * headDim;
      for (let i = 0; i < h; i++) {
        const a = x[o + i], b = x[o + i + h];
        x[o + i] = a * c[i] - b * s[i];
        x[o + i + h] = b * c[i] + a * s[i];
      }
    }
  }
}

if (which === 'all' || which === 'rope') {
  const heads = 32, tokens = 2048, headDim = 128, n = heads * tokens * headDim;
  const positions = Int32Array.from({ length: tokens }, (_, i) => i);
  const nat = native('rope');
  const sse = haveSse ? native('rope', 'native-sse') : null;
  const natCopy = nat.find((r) => r.bench === 'copy').GBs;
  const buf = pe.alloc(n), dst = pe.alloc(n);
  buf.view().fill(0.5);
  const wasmCopyMs = best(() => pe.copyBuffer(dst, buf));
  const wasmCopy = (2 * n * 4) / (wasmCopyMs / 1e3) / 1e9;
  for (const layout of ['half', 'interleaved']) {
    const ms = best(() => pe.applyRope(buf, { heads, tokens, headDim }, positions, { layout, inPlace: true }));
    const gbs = (2 * n * 4) / (ms / 1e3) / 1e9;
    const nr = nat.find((r) => r.bench === 'applyRope' && r.layout === layout);
    const row = { bench: `applyRope ${layout} [32,2048,128]`, native_ms: nr.ms, native_GBs: nr.GBs, native_of_copy: nr.GBs / natCopy,
      wasm_ms: ms, wasm_GBs: gbs, wasm_of_copy: gbs / wasmCopy, wasm_over_native: ms / nr.ms };
    if (sse) row.native_sse41_ms = sse.find((r) => r.bench === 'applyRope' && r.layout === layout).ms;
    rows.push(row);
  }
  const copyArr = Float32Array.from(buf.view());
  const jsMs = median(() => ropeJs(copyArr, heads, tokens, headDim, positions), 5);
  const plainMs = median(() => pe.applyRope(copyArr, { heads, tokens, headDim }, positions, {}), 5);
  rows.push({ bench: 'applyRope half: plain-JS loop vs posenc', js_ms: jsMs, posenc_zero_copy_ms: rows[0].wasm_ms, posenc_typed_array_ms: plainMs, speedup_zero_copy: jsMs / rows[0].wasm_ms });
  rows.push({ bench: 'copy bandwidth (read+write)', native_GBs: natCopy, wasm_GBs: wasmCopy });
  const k = nat.find((r) => r.bench === 'rotateHalf kernel');
  rows.push({ bench: 'rotateHalf kernel (4096 x 128, in cache), native', scalar_novec_us: k.scalar_novec_us, scalar_autovec_us: k.scalar_autovec_us, simd_us: k.simd_us, simd_speedup_vs_scalar: k.speedup_vs_scalar });
  buf.delete(); dst.delete();
}

// Plain-JS causal attention with ALiBi (what a JS user would write): scores row, softmax, weighted sum.
function attentionJs(q, k, v, heads, T, d, slopes) {
  const out = new Float32Array(heads * T * d), s = new Float64Array(T), scale = 1 / Math.sqrt(d);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < T; i++) {
      let m = -Infinity;
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += q[(h * T + i) * d + c] * k[(h * T + j) * d + c];
        s[j] = dot * scale - slopes[h] * (i - j);
        if (s[j] > m) m = s[j];
      }
      let l = 0;
      for (let j = 0; j <= i; j++) { s[j] = Math.exp(s[j] - m); l += s[j]; }
      for (let j = 0; j <= i; j++) {
        const w = s[j] / l;
        for (let c = 0; c < d; c++) out[(h * T + i) * d + c] += w * v[(h * T + j) * d + c];
      }
    }
  }
  return out;
}

if (which === 'all' || which === 'attention') {
  const nat = native('attention');
  for (const T of [1024, 4096]) {
    const heads = 8, headDim = 64, n = heads * T * headDim;
    const bufs = ['q', 'k', 'v', 'o'].map(() => pe.alloc(n));
    for (const b of bufs.slice(0, 3)) { const view = b.view(); for (let i = 0; i < n; i++) view[i] = Math.sin(i * 0.37); }
    const [q, k, v, o] = bufs;
    const reps = T > 1024 ? 3 : 5;
    const rope = median(() => pe.attention({ q, k, v, heads, headDim, qLen: T, kLen: T, causal: true, encoding: { kind: 'rope' }, out: o }), reps);
    const alibi = median(() => pe.attention({ q, k, v, heads, headDim, qLen: T, kLen: T, causal: true, encoding: { kind: 'alibi', heads }, out: o }), reps);
    const nr = nat.find((r) => r.T === T);
    const row = { bench: `causal attention [8,${T},64]`, native_rope_ms: nr.rope_ms, wasm_rope_ms: rope, native_alibi_ms: nr.alibi_ms, wasm_alibi_ms: alibi,
      wasm_over_native_rope: rope / nr.rope_ms, wasm_over_native_alibi: alibi / nr.alibi_ms };
    if (T === 1024) {
      const qa = Float32Array.from(q.view()), ka = Float32Array.from(k.view()), va = Float32Array.from(v.view());
      const slopes = pe.alibiSlopes(heads);
      const js = median(() => attentionJs(qa, ka, va, heads, T, headDim, slopes), 1);
      row.plain_js_alibi_ms = js;
      row.speedup_vs_plain_js = js / alibi;
    }
    rows.push(row);
    bufs.forEach((b) => b.delete());
  }
  const rss = JSON.parse(execFileSync(new URL('../build/native/posenc_bench', import.meta.url).pathname, ['attention-rss', '1', '32768']).toString());
  const before = process.memoryUsage().rss;
  const T = 32768, n = T * 64;
  const bufs = ['q', 'k', 'v', 'o'].map(() => pe.alloc(n));
  for (const b of bufs.slice(0, 3)) b.view().fill(0.01);
  const [q, k, v, o] = bufs;
  const heapBefore = pe.heapBytes();
  const t0 = performance.now();
  pe.attention({ q, k, v, heads: 1, headDim: 64, qLen: T, kLen: T, causal: true, encoding: { kind: 'rope' }, out: o });
  rows.push({ bench: 'attention T=32768, 1 head, dim 64: peak memory', native_peak_rss_MiB: rss.peakRssMiB, tensors_MiB: rss.tensorsMiB,
    TxT_matrix_would_be_MiB: rss.TxT_floatMiB, native_ms: rss.ms, wasm_ms: performance.now() - t0,
    wasm_heap_MiB: pe.heapBytes() / 2 ** 20, wasm_heap_growth_MiB: (pe.heapBytes() - heapBefore) / 2 ** 20, node_rss_delta_MiB: (process.memoryUsage().rss - before) / 2 ** 20 });
  bufs.forEach((b) => b.delete());
}

if (which === 'all' || which === 'cache') {
  const [nat] = native('cache');
  const kvHeads = 8, headDim = 64, heads = 8, cached = 32768, n = kvHeads * cached * headDim;
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: cached + 1, rope: {} });
  const k = pe.alloc(n), v = pe.alloc(n), dst = pe.alloc(n);
  k.view().fill(0.1); v.view().fill(0.2);
  cache.append(k, v);
  const q = new Float32Array(heads * headDim).fill(0.3);
  const ms = best(() => cache.attend(q, { heads }), 15);
  const copyMs = best(() => pe.copyBuffer(dst, k), 15);
  const bytes = 2 * n * 4;
  rows.push({ bench: 'decode step, 32768 cached tokens, 8 kv heads x 64', native_ms: nat.ms, native_GBs: nat.GBs, native_of_copy: nat.GBs / nat.copyGBs,
    wasm_ms: ms, wasm_GBs: bytes / (ms / 1e3) / 1e9, wasm_of_copy: (bytes / (ms / 1e3)) / ((2 * n * 4) / (copyMs / 1e3)), wasm_over_native: ms / nat.ms });
  cache.delete(); k.delete(); v.delete(); dst.delete();
}

const fmt = (v) => (typeof v === 'number' ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(v < 1 ? 3 : 2)) : v);
for (const r of rows) console.log(Object.entries(r).map(([k, v]) => `${k}=${fmt(v)}`).join('  '));
mkdirSync(new URL('../build/', import.meta.url), { recursive: true });
writeFileSync(new URL('../build/bench.json', import.meta.url), JSON.stringify(rows, null, 2));
