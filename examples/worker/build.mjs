// Bundles worker.mjs and posenc into one module worker script, and puts posenc's WebAssembly file next
// to it (the worker finds it with new URL('posenc_wasm.wasm', import.meta.url)):
//
//   node examples/worker/build.mjs [outdir]      (default: examples/worker/dist)
//
// then serve examples/worker/ with any static server and open index.html.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const outdir = process.argv[2] ?? fileURLToPath(new URL('./dist', import.meta.url));
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: [fileURLToPath(new URL('./worker.mjs', import.meta.url))],
  outfile: join(outdir, 'worker.js'),
  bundle: true,
  platform: 'browser',
  format: 'esm',         // started with new Worker(url, { type: 'module' })
  minify: true,
  logLevel: 'info',
});
copyFileSync(fileURLToPath(import.meta.resolve('posenc/dist/posenc_wasm.wasm')), join(outdir, 'posenc_wasm.wasm'));
