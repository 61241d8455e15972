// What the npm package ships to a browser, raw and gzipped (level 9): the wasm, Emscripten's JS, the
// bindings as published, the same JS as a bundler ships it (esbuild --minify), and 'posenc/browser' (both
// minified at build, for pages without a bundler). docs/package-size.md.
// Usage: node scripts/size.mjs [--write | --check] [build folder holding posenc_wasm.mjs + posenc_wasm.wasm]
// (default dist/). --write puts the table and the budget into docs/package-size.md between the size:begin /
// size:end markers; --check (npm test) fails when the package as a bundler ships it is over its budget
// (scripts/size-budget.json: 150 kB plus each feature's stated allowance) or that page's table is stale.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const mode = process.argv.find((a) => a === '--write' || a === '--check');
const dir = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? join(root, 'dist');
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
const table = ['| file | raw kB | gzipped kB |', '|---|---:|---:|', ...rows.map(([what, raw, z]) => `| ${what} | ${kB(raw)} | ${kB(z)} |`)];

// The budget: the base and each feature's allowance, with why it is worth its bytes.
const budget = JSON.parse(readFileSync(join(root, 'scripts/size-budget.json'), 'utf8'));
const limit = budget.base + budget.allowances.reduce((a, f) => a + f.kB, 0);
const measured = minified[1] / 1000;
const budgetText = [
  `Budget (\`scripts/size-budget.json\`, checked by \`npm test\`): ${budget.base} kB gzipped as a minifying bundler ships the package, ` +
    `plus what each feature below costs, measured when it landed — ${limit.toFixed(1)} kB in all; measured now: **${measured.toFixed(1)} kB**.`,
  '',
  '| feature | kB gzipped | why it is worth it |', '|---|---:|---|',
  ...budget.allowances.map((f) => `| ${f.feature} | ${f.kB.toFixed(1)} | ${f.why} |`),
];
const block = ['<!-- size:begin (node scripts/size.mjs --write) -->', ...table, '', ...budgetText, '<!-- size:end -->'].join('\n');

const pagePath = join(root, 'docs', 'package-size.md');
const page = readFileSync(pagePath, 'utf8');
const blockAt = /<!-- size:begin[^]*?<!-- size:end -->/;
if (mode === '--write') {
  if (!blockAt.test(page)) throw new Error('docs/package-size.md has no size:begin / size:end markers');
  writeFileSync(pagePath, page.replace(blockAt, block));
} else if (mode === '--check') {
  let failed = false;
  if (measured > limit) {
    console.error(`size: ${measured.toFixed(1)} kB gzipped as bundled, over the budget of ${limit.toFixed(1)} kB (scripts/size-budget.json)`);
    failed = true;
  }
  if (page.match(blockAt)?.[0] !== block) {
    console.error('size: the table in docs/package-size.md is stale: run `node scripts/size.mjs --write` after building (bash scripts/build.sh wasm)');
    failed = true;
  }
  if (failed) process.exit(1);
  console.log(`size: ${measured.toFixed(1)} kB gzipped as a bundler ships it, within the budget of ${limit.toFixed(1)} kB; docs/package-size.md current`);
} else {
  console.log(table.join('\n'));
}
