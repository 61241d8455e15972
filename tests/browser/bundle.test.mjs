// A browser app that bundles posenc with esbuild (platform: browser) runs in Chromium: the package
// carries no Node-only imports and its wasm is inlined.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

let context, profile;
before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'posenc-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test('esbuild bundles `import { load } from "posenc"` for the browser, and the bundle runs', async () => {
  const app = `import { load } from 'posenc';
    const pe = await load();
    const cache = new pe.KVCache({ kvHeads: 1, headDim: 4, capacity: 4, rope: {} });
    cache.append(new Float32Array(8), new Float32Array(8));
    window.result = { s: Array.from(pe.sinusoidal([1], { dim: 2 })), next: Array.from(cache.nextPositions()), slopes: Array.from(pe.alibiSlopes(3)) };`;
  const out = await build({
    stdin: { contents: app, resolveDir: fileURLToPath(new URL('../..', import.meta.url)) },
    bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setContent(`<!doctype html><script type="module">${out.outputFiles[0].text.replace(/<\/script/g, '<\\/script')}</script>`);
  await page.waitForFunction(() => window.result, null, { timeout: 20000 });
  const r = await page.evaluate(() => window.result);
  assert.deepEqual(errors, []);
  assert.ok(Math.abs(r.s[0] - Math.sin(1)) < 1e-7 && Math.abs(r.s[1] - Math.cos(1)) < 1e-7);
  assert.deepEqual(r.next, [2]);
  assert.deepEqual(r.slopes, [1 / 16, 1 / 256, 1 / 4]);
});
