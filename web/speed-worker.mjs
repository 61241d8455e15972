// The speed panel's worker: times posenc (wasm SIMD128, on the threads load() chose) against plain JS loops off the page's thread,
// so the page stays responsive while it runs. Message in: { op: 'rope' | 'attention', T, reps };
// message out: the median times, the speedup and how far the two results differ.
import { load } from '../bindings/posenc.mjs';
import { ropeJs, attentionJs } from './plain-js.mjs';

const ready = load();
const median = (t) => t.slice().sort((a, b) => a - b)[t.length >> 1];
function time(fn, reps) {
  fn();  // warm-up (and the result compared below)
  const t = [];
  for (let r = 0; r < reps; r++) { const a = performance.now(); fn(); t.push(performance.now() - a); }
  return median(t);
}
function inputs(n, seed) {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = Math.sin(i * 0.37 + seed);
  return x;
}
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

self.onmessage = async ({ data: { op, T, reps = 5 } }) => {
  try {
    const pe = await ready;
    let posencMs, jsMs, diff, shape;
    if (op === 'rope') {
      const heads = 8, headDim = 128, n = heads * T * headDim, positions = Int32Array.from({ length: T }, (_, i) => i);
      const x = inputs(n, 0), buf = pe.alloc(n), js = Float32Array.from(x);
      buf.view().set(x);
      diff = maxDiff(pe.applyRope(x, { heads, tokens: T, headDim }, positions, {}), (ropeJs(js, heads, T, headDim, positions), js));
      posencMs = time(() => pe.applyRope(buf, { heads, tokens: T, headDim }, positions, { inPlace: true }), reps);
      jsMs = time(() => ropeJs(js, heads, T, headDim, positions), reps);
      buf.delete();
      shape = `[${heads}, ${T}, ${headDim}]`;
    } else {
      const heads = 8, headDim = 64, n = heads * T * headDim;
      const [q, k, v] = [inputs(n, 0), inputs(n, 1), inputs(n, 2)];
      const bufs = [q, k, v, null].map((x) => { const b = pe.alloc(n); if (x) b.view().set(x); return b; });
      const run = () => pe.attention({ q: bufs[0], k: bufs[1], v: bufs[2], heads, headDim, qLen: T, kLen: T, causal: true, encoding: { kind: 'rope' }, out: bufs[3] });
      run();
      diff = maxDiff(bufs[3].view(), attentionJs(q, k, v, heads, T, headDim, 'rope'));
      posencMs = time(run, reps);
      jsMs = time(() => attentionJs(q, k, v, heads, T, headDim, 'rope'), Math.min(reps, 3));
      bufs.forEach((b) => b.delete());
      shape = `[${heads}, ${T}, ${headDim}]`;
    }
    self.postMessage({ op, T, shape, posencMs, jsMs, speedup: jsMs / posencMs, maxDiff: diff, threads: pe.threads });
  } catch (err) {
    self.postMessage({ op, T, error: `${err.name}: ${err.message}` });
  }
};
