// dist/posenc.browser.mjs: bindings/posenc.mjs and Emscripten's JS bundled and minified (esbuild), for pages
// that load the package without a bundler (`import { load } from 'posenc/browser'`; a bundler minifies the
// sources itself, and keeps their magic comments). It sits in dist/ beside the .wasm files, so the URLs the
// code builds from import.meta.url ('posenc_wasm.wasm', '../dist/posenc_wasm_threads.mjs') resolve as from
// the sources.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  entryPoints: [`${root}bindings/posenc.mjs`], outfile: `${root}dist/posenc.browser.mjs`, bundle: true, minify: true, format: 'esm',
  platform: 'browser', legalComments: 'none', logLevel: 'warning',
});
