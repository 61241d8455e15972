// The fixed cost of one API call: calls too small to measure anything else (one position, one head
// vector, a 1x1 attention), timed in a loop. Each argument is a package root holding bindings/ and
// dist/ (default: this checkout), so two builds can be compared side by side in one process run.
//   node bench/call-overhead.mjs [package root ...]
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const roots = process.argv.length > 2 ? process.argv.slice(2) : [fileURLToPath(new URL('..', import.meta.url))];
const apis = [];
for (const r of roots) apis.push(await (await import(pathToFileURL(join(resolve(r), 'bindings', 'posenc.mjs')))).load({ threads: 1 }));

const x = new Float32Array(64).fill(0.5), head = [1, 2, 3, 4];
const llama3 = { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };
const ops = {
  'sinusoidal, one position': (pe) => pe.sinusoidal([0], { dim: 4 }),
  'applyRope [1, 1, 64]': (pe) => pe.applyRope(x, { heads: 1, tokens: 1, headDim: 64 }, [5], { base: 500000 }),
  'applyRope [1, 1, 64], llama3 scaling': (pe) => pe.applyRope(x, { heads: 1, tokens: 1, headDim: 64 }, [5], { base: 500000, scaling: llama3 }),
  'RoPE attention 1 x 1, headDim 4': (pe) => pe.attention({ heads: 1, headDim: 4, qLen: 1, kLen: 1, q: head, k: head, v: head, encoding: { kind: 'rope' } }),
};
const time = (f) => {
  for (let i = 0; i < 3000; i++) f();
  const n = 20000, t = performance.now();
  for (let i = 0; i < n; i++) f();
  return ((performance.now() - t) / n) * 1000;
};
console.log(`| call | ${roots.join(' | ')} |\n|---|${roots.map(() => '---:').join('|')}|`);
for (const [name, op] of Object.entries(ops)) {
  const us = apis.map(() => []);
  for (let round = 0; round < 3; round++) apis.forEach((pe, i) => us[i].push(time(() => op(pe))));  // interleaved rounds
  console.log(`| ${name} | ${us.map((u) => `${Math.min(...u).toFixed(1)} µs`).join(' | ')} |`);
}
