// Times several wasm builds of the package against each other, interleaved round by round in one
// process (so a noisy neighbour slows all alike): the hot paths a build flag could slow. Used to choose
// the wasm build flags (docs/package-size.md). Each argument is a build folder holding
// posenc_wasm.mjs + posenc_wasm.wasm (e.g. made with different -DPOSENC_WASM_* options):
//   node --no-liftoff bench/builds.mjs build/wasm /tmp/other-build ...   (ROUNDS=15: rounds per op, default 9)
import { cpSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dirs = process.argv.slice(2);
if (!dirs.length) throw new Error('usage: node --no-liftoff bench/builds.mjs <build dir>...');

// Each build is loaded through its own copy of the bindings (as scripts/bench.sh does for the scalar build).
const apis = [];
for (const d of dirs) {
  const pkg = join(resolve(d), 'pkg');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  cpSync(join(root, 'bindings'), join(pkg, 'bindings'), { recursive: true });
  for (const f of ['posenc_wasm.mjs', 'posenc_wasm.wasm']) cpSync(join(d, f), join(pkg, 'dist', f));
  apis.push(await (await import(pathToFileURL(join(pkg, 'bindings', 'posenc.mjs')))).load());
}

const fill = (b, f) => { const x = b.view(); for (let i = 0; i < x.length; i++) x[i] = f(i); return b; };
function setups(pe) {
  const ops = {};
  {  // A: applyRope in place, [32, 2048, 128]
    const heads = 32, tokens = 2048, headDim = 128;
    const buf = fill(pe.alloc(heads * tokens * headDim), () => 0.5);
    const positions = Int32Array.from({ length: tokens }, (_, i) => i);
    ops['A applyRope [32,2048,128]'] = () => pe.applyRope(buf, { heads, tokens, headDim }, positions, { inPlace: true });
  }
  for (const [name, encoding] of [['B rope', { kind: 'rope' }], ["B' alibi", { kind: 'alibi', heads: 8 }],
    ['B t5', { kind: 't5', table: new Float32Array(32 * 8).map((_, i) => Math.sin(i)), numBuckets: 32, maxDistance: 128 }]]) {
    const heads = 8, T = 1024, headDim = 64, n = heads * T * headDim;
    const [q, k, v, out] = [0.37, 0.91, 0.13, 0].map((w) => fill(pe.alloc(n), (i) => Math.sin(i * w)));
    ops[`${name} causal attention [8,1024,64]`] = () => pe.attention({ q, k, v, heads, headDim, qLen: T, kLen: T, causal: true, encoding, out });
    if (name === 'B rope') {  // Gemma 2's soft-capping and gpt-oss's sinks on B (issue 33)
      const sinkLogits = new Float32Array(heads).map((_, h) => h - 4);
      ops['B rope + softcap 50'] = () => pe.attention({ q, k, v, heads, headDim, qLen: T, kLen: T, causal: true, encoding, softcap: 50, out });
      ops['B rope + sinkLogits'] = () => pe.attention({ q, k, v, heads, headDim, qLen: T, kLen: T, causal: true, encoding, sinkLogits, out });
    }
  }
  {  // D: one decode step against 32768 cached tokens, 32 query heads on 8 kv heads; and a 512-token append
    const kvHeads = 8, headDim = 64, cached = 32768;
    const k = fill(pe.alloc(kvHeads * cached * headDim), () => 0.1), v = fill(pe.alloc(kvHeads * cached * headDim), () => 0.2);
    const cache = new pe.KVCache({ kvHeads, headDim, capacity: cached + 1, rope: {} });
    cache.append(k, v);
    const q = new Float32Array(32 * headDim).fill(0.3);
    ops['D decode step, 32 heads, 32768 cached'] = () => cache.attend(q, { heads: 32 });
    const chunk = 512;
    const ck = fill(pe.alloc(kvHeads * chunk * headDim), (i) => Math.sin(i)), cv = fill(pe.alloc(kvHeads * chunk * headDim), (i) => Math.cos(i));
    const ring = new pe.KVCache({ kvHeads, headDim, capacity: 4096, window: 4096, rope: {} });
    ops['append 512 tokens (window cache, rope)'] = () => ring.append(ck, cv);
  }
  return ops;
}

const perBuild = apis.map(setups);
const rounds = Number(process.env.ROUNDS ?? 9);
console.log(`| op | ${dirs.join(' | ')} |\n|---|${dirs.map(() => '---').join('|')}|`);
for (const op of Object.keys(perBuild[0])) {
  const times = dirs.map(() => []);
  perBuild.forEach((ops) => ops[op]());  // warm-up
  for (let r = 0; r < rounds; r++)
    perBuild.forEach((ops, b) => { const t = performance.now(); ops[op](); times[b].push(performance.now() - t); });
  const median = (t) => t.sort((a, b) => a - b)[t.length >> 1];
  console.log(`| ${op} | ${times.map((t) => median(t).toFixed(2) + ' ms').join(' | ')} |`);
}
