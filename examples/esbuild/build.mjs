// Bundles app.mjs and posenc into one ES module for the browser:
//
//   node examples/esbuild/build.mjs [outfile]      (default: examples/esbuild/dist/app.js)
//
// then serve examples/esbuild/ with any static server and open index.html.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const outfile = process.argv[2] ?? here('./dist/app.js');

await build({
  entryPoints: [here('./app.mjs')],
  outfile,
  bundle: true,          // pull in posenc (and its inlined wasm) from node_modules
  platform: 'browser',   // posenc has no Node-only imports, so nothing needs to be stubbed
  format: 'esm',         // app.mjs uses top-level await (`await load()`), which needs an ES module
  minify: true,
  logLevel: 'info',      // prints the output size
});
