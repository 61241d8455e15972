// Bundles app.mjs and posenc into one ES module for the browser, and puts posenc's WebAssembly file
// next to it:
//
//   node examples/esbuild/build.mjs [outfile]      (default: examples/esbuild/dist/app.js)
//
// then serve examples/esbuild/ with any static server and open index.html.
import { build } from 'esbuild';
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const outfile = process.argv[2] ?? here('./dist/app.js');

await build({
  entryPoints: [here('./app.mjs')],
  outfile,
  bundle: true,          // pull in posenc's JS from node_modules
  platform: 'browser',   // posenc has no Node-only imports, so nothing needs to be stubbed
  format: 'esm',         // app.mjs uses top-level await (`await load()`), which needs an ES module
  minify: true,
  logLevel: 'info',      // prints the output size
});

// posenc finds its .wasm with `new URL('posenc_wasm.wasm', import.meta.url)`; in the bundle that is the
// bundle's own folder. Vite and webpack copy such files by themselves; esbuild does not.
copyFileSync(fileURLToPath(import.meta.resolve('posenc/dist/posenc_wasm.wasm')), join(dirname(outfile), 'posenc_wasm.wasm'));
