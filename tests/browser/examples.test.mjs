// The browser examples, opened in headless Chromium (Debian's, driven by playwright-core) from the
// repository served by scripts/serve.mjs, their printed numbers held to values computed here:
// - examples/browser/: no bundler, 'posenc' resolved by an import map;
// - examples/esbuild/: build.mjs bundles app.mjs for the browser (platform 'browser', format 'esm');
//   this is also the test that the package bundles (no Node-only imports; its .wasm a separate file);
// - examples/worker/: posenc loaded only inside a module Web Worker (bundled by build.mjs), its results
//   and errors posted back; a missing .wasm or worker script reaches the page as a message saying so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, collectErrors } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
let server, base, browser, context;

before(async () => {
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launchChromium();
  context = browser.context;
});
after(async () => {
  await browser?.close();
  server?.close();
});

// Opens a page, collecting its errors (uncaught exceptions and console errors, e.g. a failed import).
async function open(url, setup) {
  const page = await context.newPage();
  const errors = [];
  collectErrors(page, errors, true);
  await setup?.(page);
  await page.goto(url);
  return { page, errors };
}

test('examples/browser: the import map resolves "posenc"; the page shows RoPE (cos p, sin p) and ALiBi slopes 2^-1 … 2^-8', async () => {
  const { page, errors } = await open(`${base}/examples/browser/`);
  await page.waitForFunction(() => !document.getElementById('status').textContent.startsWith('Loading'), null, { timeout: 20000 });
  assert.deepEqual(errors, []);
  assert.doesNotMatch(await page.textContent('#status'), /Error/);

  // RoPE of (1, 0) in the first pair at position p is (cos p, sin p) (pair 0 turns 1 rad per position)
  const rows = await page.$$eval('#rope tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells, (td) => Number(td.textContent))));
  assert.deepEqual(rows.map((r) => r[0]), [0, 1, 2, 10, 100]);
  for (const [p, x0, x1] of rows) {
    assert.ok(Math.abs(x0 - Math.cos(p)) < 2e-6 && Math.abs(x1 - Math.sin(p)) < 2e-6, `position ${p}: (${x0}, ${x1})`);
  }
  // ALiBi, 8 heads: m_h = 2^(-8(h+1)/8) = 2^-(h+1)
  const slopes = (await page.textContent('#alibi')).trim().split(/\s+/).map(Number);
  assert.deepEqual(slopes, Array.from({ length: 8 }, (_, h) => 2 ** -(h + 1)));
  await page.close();
});

test('examples/esbuild: build.mjs bundles app.mjs for the browser, and index.html runs the bundle', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-esbuild-'));
  try {
    // Build as a user would, but into a temp dir; the page's dist/app.js and dist/posenc_wasm.wasm
    // requests are answered from it.
    const outfile = join(dir, 'app.js');
    execFileSync(process.execPath, [join(root, 'examples/esbuild/build.mjs'), outfile], { cwd: root, stdio: 'pipe' });
    const { page, errors } = await open(`${base}/examples/esbuild/`, (p) =>
      Promise.all([p.route('**/examples/esbuild/dist/app.js', (route) => route.fulfill({ path: outfile, contentType: 'text/javascript' })),
        p.route('**/examples/esbuild/dist/posenc_wasm.wasm', (route) => route.fulfill({ path: join(dir, 'posenc_wasm.wasm'), contentType: 'application/wasm' }))]));
    await page.waitForFunction(() => document.getElementById('out').textContent !== 'Loading…', null, { timeout: 20000 });
    assert.deepEqual(errors, []);
    const lines = (await page.textContent('#out')).split('\n');

    // sinusoidal, dim 8: row p = sin(p·w_i), cos(p·w_i), w_i = 10000^(-2i/8)
    for (let p = 0; p < 4; p++) {
      const row = lines.find((l) => l.startsWith(`sinusoidal p=${p}:`)).split(':')[1].trim().split(' ').map(Number);
      const expected = Array.from({ length: 8 }, (_, j) => { const w = 10000 ** (-2 * Math.floor(j / 2) / 8); return j % 2 ? Math.cos(p * w) : Math.sin(p * w); });
      row.forEach((x, j) => assert.ok(Math.abs(x - expected[j]) < 2e-6, `p=${p} channel ${j}: ${x} vs ${expected[j]}`));
    }
    // KV cache, window 4, 6 tokens: the ring holds the last 4 at their own positions; the next position
    // is 6, not the slot count; the output averages the token ids still visible (all of them while t < 4).
    const steps = lines.filter((l) => l.startsWith('step ')).map((l) => {
      const [, t, slots, next, out] = l.match(/^step (\d+): slot positions \[([^\]]*)\], next position (\d+), output (\S+)$/);
      return { t: +t, slots: slots.split(',').map(Number), next: +next, out: +out };
    });
    assert.equal(steps.length, 6);
    assert.deepEqual(steps[5].slots, [4, 5, 2, 3]);
    for (const { t, slots, next, out } of steps) {
      assert.equal(next, t + 1);
      const kept = slots.filter((p) => p >= 0);
      assert.deepEqual(kept.slice().sort((a, b) => a - b), Array.from({ length: Math.min(t + 1, 4) }, (_, i) => t + 1 - Math.min(t + 1, 4) + i));
      assert.ok(out >= Math.min(...kept) - 1e-4 && out <= Math.max(...kept) + 1e-4, `step ${t}: output ${out} outside the visible ids ${kept}`);
    }
    await page.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// examples/esbuild in a cross-origin isolated page (COOP/COEP on every response), its dist/ requests
// answered from `dir` (404 for a file not there). Returns the page's output lines and posenc's warnings.
async function isolatedEsbuildPage(dir) {
  const { page, errors } = await open(`${base}/examples/esbuild/`, async (p) => {
    const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
    await p.route('**/examples/esbuild/', (route) => route.fulfill({ path: join(root, 'examples/esbuild/index.html'), contentType: 'text/html', headers: isolation }));
    await p.route('**/examples/esbuild/dist/*', (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop();
      if (!existsSync(join(dir, name))) return route.fulfill({ status: 404, body: 'not found', headers: isolation });
      return route.fulfill({ path: join(dir, name), contentType: name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript', headers: isolation });
    });
  });
  const warnings = [];
  page.on('console', (m) => { if (m.type() === 'warning' && m.text().startsWith('posenc:')) warnings.push(m.text()); });
  await page.waitForFunction(() => document.getElementById('out').textContent !== 'Loading…', null, { timeout: 20000 });
  const lines = (await page.textContent('#out')).split('\n');
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await page.close();
  return { lines, warnings, errors, cores };
}

test('examples/esbuild, cross-origin isolated: without the threaded module\'s files one warning names them and one thread runs; with the three files the README lists, threads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-esbuild-threads-'));
  try {
    execFileSync(process.execPath, [join(root, 'examples/esbuild/build.mjs'), join(dir, 'app.js')], { cwd: root, stdio: 'pipe' });
    const bare = await isolatedEsbuildPage(dir);
    assert.deepEqual(bare.errors.filter((e) => !/404/.test(e)), []);  // (the browser logs the 404 itself)
    assert.equal(bare.lines[0], 'threads: 1');
    assert.ok(bare.lines.some((l) => l.startsWith('step 5: ')), bare.lines.join('\n'));
    assert.equal(bare.warnings.length, 1, bare.warnings.join('\n'));
    assert.match(bare.warnings[0], /^posenc: load\(\) could not load its threaded module \(.*http:\/\/[^ ]+\/examples\/esbuild\/dist\/posenc_wasm_threads\.mjs.*\), so it runs on one thread/);
    assert.match(bare.warnings[0], /serve posenc's dist\/posenc_wasm_threads\.mjs, dist\/posenc_wasm_threads\.wasm and dist\/posenc_wasm_threads\.worker\.js at http:\/\/[^ ]+\/examples\/esbuild\/dist\/ \(bundlers do not copy them\)/);

    for (const f of ['posenc_wasm_threads.mjs', 'posenc_wasm_threads.wasm', 'posenc_wasm_threads.worker.js']) copyFileSync(join(root, 'dist', f), join(dir, f));
    const threaded = await isolatedEsbuildPage(dir);
    assert.deepEqual(threaded.errors, []);
    assert.deepEqual(threaded.warnings, []);
    assert.equal(threaded.lines[0], `threads: ${Math.min(threaded.cores, 16)}`);
    assert.ok(threaded.cores >= 2, `Chromium reports ${threaded.cores} core(s): the threaded module was not exercised`);
    assert.deepEqual(threaded.lines.slice(1), bare.lines.slice(1));  // the same numbers on any thread count
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Builds examples/worker into a temp dir and opens the page with its dist/ requests answered from there
// (`missing`: a file in dist/ answered with 404 instead). Returns the page's output lines.
async function workerPage(dir, missing) {
  const { page, errors } = await open(`${base}/examples/worker/`, (p) =>
    p.route('**/examples/worker/dist/*', (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop();
      // (the threaded module the worker tries first in an isolated page is not in the example: 404, as a server says)
      if (name === missing || !existsSync(join(dir, name))) return route.fulfill({ status: 404, body: 'not found' });
      // the page is cross-origin isolated (scripts/serve.mjs sends COOP/COEP): a worker script needs COEP too
      return route.fulfill({ path: join(dir, name), contentType: name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript',
        headers: { 'Cross-Origin-Embedder-Policy': 'require-corp' } });
    }));
  await page.waitForFunction(() => document.getElementById('out').textContent !== 'Loading…', null, { timeout: 20000 });
  const lines = (await page.textContent('#out')).split('\n');
  await page.close();
  return { lines, errors };
}

test('examples/worker: posenc runs inside a module worker only; results, refusals and load failures reach the page with real messages', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-worker-'));
  try {
    execFileSync(process.execPath, [join(root, 'examples/worker/build.mjs'), dir], { cwd: root, stdio: 'pipe' });

    const ok = await workerPage(dir);
    assert.deepEqual(ok.errors, []);
    // ALiBi, 8 heads: m_h = 2^-(h+1)
    const slopes = ok.lines.find((l) => l.startsWith('alibiSlopes(8): ')).split(': ')[1].split(' ').map(Number);
    assert.deepEqual(slopes, Array.from({ length: 8 }, (_, h) => 2 ** -(h + 1)));
    // RoPE of (1, 0) in pair 0 at position p is (cos p, sin p)
    for (const p of [0, 1, 2, 10]) {
      const [x0, x1] = ok.lines.find((l) => l.startsWith(`rope p=${p}: `)).split(': ')[1].split(' ').map(Number);
      assert.ok(Math.abs(x0 - Math.cos(p)) < 2e-6 && Math.abs(x1 - Math.sin(p)) < 2e-6, `position ${p}: (${x0}, ${x1})`);
    }
    // the worker's RangeError arrives as a RangeError naming the field
    assert.match(ok.lines.find((l) => l.startsWith('refused: ')), /^refused: RangeError: numHeads .+/);

    // no .wasm: the worker's load() fails, and the page says where it looked and why
    const noWasm = await workerPage(dir, 'posenc_wasm.wasm');
    const wasmError = noWasm.lines.find((l) => l.startsWith('error: '));
    assert.match(wasmError, /^error: Error: posenc: cannot fetch its WebAssembly from http:\/\/[^ ]+\/examples\/worker\/dist\/posenc_wasm\.wasm \(HTTP 404\)/);
    assert.doesNotMatch(wasmError, /\[object /);

    // no worker script: the worker's plain error Event becomes a message naming the script
    const noWorker = await workerPage(dir, 'worker.js');
    const startError = noWorker.lines.find((l) => l.startsWith('error: '));
    assert.match(startError, /^error: Error: the worker http:\/\/[^ ]+\/examples\/worker\/dist\/worker\.js could not be started/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
