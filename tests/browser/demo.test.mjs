// Opens the demo in headless Chromium (Debian's, driven by playwright-core), checks that the
// figures were drawn from the wasm core's values, and saves screenshots under build/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { divergingColor } from '../../web/plot.mjs';

const shots = fileURLToPath(new URL('../../build/screenshots/', import.meta.url));
let server, context, page, base, profile;
const consoleErrors = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}`;
  profile = mkdtempSync(join(tmpdir(), 'posenc-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(`${base}/web/`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 30000 });
});

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test('the page loads the wasm core without errors', async () => {
  assert.equal(await page.evaluate(() => document.body.dataset.ready), 'true');
  assert.equal(await page.evaluate(() => window.posencDemo.source), 'wasm');
  assert.equal(await page.evaluate(() => typeof WebAssembly.validate), 'function');
  assert.deepEqual(consoleErrors, []);
});

test('the heatmap pixels are the sinusoidal table (paper layout), not a blank canvas', async () => {
  const { width, height, pixels } = await page.evaluate(() => {
    const c = document.getElementById('sin-heatmap');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return { width: c.width, height: c.height, pixels: Array.from(d) };
  });
  assert.equal(width, 64);
  assert.equal(height, 64);
  const colors = new Set();
  let worst = 0;
  for (let p = 0; p < 64; p++) {
    for (let j = 0; j < 64; j++) {
      const w = Math.pow(10000, -2 * Math.floor(j / 2) / 64);
      const expected = divergingColor(j % 2 === 0 ? Math.sin(p * w) : Math.cos(p * w));
      const o = 4 * (p * 64 + j);
      for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(pixels[o + k] - expected[k]));
      colors.add(pixels.slice(o, o + 3).join(','));
    }
  }
  assert.ok(worst <= 1, `pixel colors differ from the reference table by up to ${worst}`);
  assert.ok(colors.size > 200, `only ${colors.size} distinct colors: the canvas looks blank`);
  await page.screenshot({ path: join(shots, 'demo.png'), fullPage: true });
});

test('controls redraw from the core: tensor2tensor layout at dim 32', async () => {
  await page.click('[data-layout="tensor2tensor"]');
  await page.$eval('#sin-dim', (el) => { el.value = '32'; el.dispatchEvent(new Event('input')); });
  const s = await page.evaluate(() => ({ layout: window.posencDemo.sinusoidal.layout, dim: window.posencDemo.sinusoidal.dim, row: Array.from(window.posencDemo.sinusoidal.table.slice(5 * 32, 6 * 32)) }));
  assert.equal(s.layout, 'tensor2tensor');
  assert.equal(s.dim, 32);
  // t2t: 16 timescales 10000^(-k/15); sines then cosines
  for (let k = 0; k < 16; k++) {
    const w = Math.pow(10000, -k / 15);
    assert.ok(Math.abs(s.row[k] - Math.sin(5 * w)) < 1e-6);
    assert.ok(Math.abs(s.row[16 + k] - Math.cos(5 * w)) < 1e-6);
  }
  await page.screenshot({ path: join(shots, 'demo-t2t.png'), fullPage: false });
});

test('narrow screens get a one-column layout', async () => {
  await page.setViewportSize({ width: 420, height: 900 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page overflows horizontally by ${overflow}px`);
  await page.screenshot({ path: join(shots, 'demo-mobile.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});
