// What the npm package ships to a browser, raw and gzipped (level 9): the wasm, Emscripten's JS, the
// bindings as published, the same JS as a bundler ships it (esbuild --minify), and 'posenc/browser' (both
// minified at build, for pages without a bundler). README "Package size".
// Usage: node scripts/size.mjs [build folder holding posenc_wasm.mjs + posenc_wasm.wasm] (default dist/)
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = process.argv[2] ?? join(root, 'dist');
const kB = (n) => (n / 1000).toFixed(1);
const gz = (buf) => gzipSync(buf, { level: 9 }).length;
const rows = [];
const add = (what, buf) => { rows.push([what, buf.length, gz(buf)]); return buf; };

add('wasm (posenc_wasm.wasm)', readFileSync(join(dir, 'posenc_wasm.wasm')));
const glue = add("Emscripten's JS (posenc_wasm.mjs)", readFileSync(join(dir, 'posenc_wasm.mjs')));
const bindings = Buffer.concat(readdirSync(join(root, 'bindings')).filter((f) => f.endsWith('.mjs')).map((f) => readFileSync(join(root, 'bindings', f))));
add('bindings/*.mjs as published', bindings);
const minify = async (entry, external) => Buffer.from((await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm',
  platform: 'browser', write: false, external, logLevel: 'silent' })).outputFiles[0].contents);
add("Emscripten's JS, minified by esbuild", await minify(join(dir, 'posenc_wasm.mjs'), []));
add('bindings, bundled and minified by esbuild', await minify(join(root, 'bindings/posenc.mjs'), ['../dist/posenc_wasm.mjs']));
add("'posenc/browser' (dist/posenc.browser.mjs: both, minified at build)", readFileSync(join(dir, 'posenc.browser.mjs')));
const total = (names) => rows.filter((r) => names.includes(r[0])).reduce((a, r) => [a[0] + r[1], a[1] + r[2]], [0, 0]);
const asPublished = total([rows[0][0], rows[1][0], rows[2][0]]), minified = total([rows[0][0], rows[3][0], rows[4][0]]);
const bundled = total([rows[0][0], rows[5][0]]);
rows.push(['total as published (wasm + JS)', ...asPublished], ['total as a minifying bundler ships it', ...minified],
  ["total as published, without a bundler (wasm + 'posenc/browser')", ...bundled]);
console.log('| file | raw kB | gzipped kB |\n|---|---:|---:|');
for (const [what, raw, z] of rows) console.log(`| ${what} | ${kB(raw)} | ${kB(z)} |`);
