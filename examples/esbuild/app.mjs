// A browser app that imports posenc like any npm package; build.mjs bundles it with esbuild into one
// file and copies posenc's WebAssembly file (posenc_wasm.wasm) next to it.
import { load } from 'posenc';

const pe = await load();
// 1 unless the page is cross-origin isolated and the threaded module's files are served (README, Use it)
const lines = [`threads: ${pe.threads}`];

// Sinusoidal position table (Vaswani et al.): row p = [sin(p·w0), cos(p·w0), sin(p·w1), cos(p·w1), ...].
const dim = 8;
const table = pe.sinusoidal([0, 1, 2, 3], { dim });   // Float32Array [4, 8], row-major
for (let p = 0; p < 4; p++) lines.push(`sinusoidal p=${p}: ${Array.from(table.subarray(p * dim, (p + 1) * dim), (x) => x.toFixed(6)).join(' ')}`);

// Generation with a KV cache that keeps only the last 4 tokens (a sliding window) and rotates keys
// with RoPE at their logical positions. Token t's value vector is all t, so each attention output is
// an average of the token ids the query can still see.
const headDim = 8;
const cache = new pe.KVCache({ kvHeads: 1, headDim, capacity: 4, window: 4, rope: { base: 10000 } });
for (let t = 0; t < 6; t++) {
  cache.append(new Float32Array(headDim).fill(0.5), new Float32Array(headDim).fill(t));   // one token: k, v [kvHeads, 1, headDim]
  const { out } = cache.attend(new Float32Array(headDim).fill(0.5), { heads: 1 });       // its query, at position t
  lines.push(`step ${t}: slot positions [${cache.positions()}], next position ${cache.nextPositions()[0]}, output ${out[0].toFixed(4)}`);
}
cache.delete();   // a cache lives in the wasm heap: free it when done

document.getElementById('out').textContent = lines.join('\n');
