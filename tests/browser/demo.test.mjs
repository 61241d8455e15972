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
  // the figure draws each cell as a block inside its plot rectangle (canvas.plot, CSS px): sample every cell's centre
  const { plot, pixels, cw } = await page.evaluate(() => {
    const c = document.getElementById('sin-heatmap');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return { plot: c.plot, pixels: Array.from(d), cw: c.width };
  });
  assert.equal(plot.rows, 64);
  assert.equal(plot.cols, 64);
  const colors = new Set();
  let worst = 0;
  for (let p = 0; p < 64; p++) {
    for (let j = 0; j < 64; j++) {
      const w = Math.pow(10000, -2 * Math.floor(j / 2) / 64);
      const expected = divergingColor(j % 2 === 0 ? Math.sin(p * w) : Math.cos(p * w));
      const x = Math.floor((plot.x + (j + 0.5) * plot.w / 64) * plot.dpr), y = Math.floor((plot.y + (p + 0.5) * plot.h / 64) * plot.dpr);
      const o = 4 * (y * cw + x);
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

test('every section draws from the core: codes, RoPE + config.json, score terms, KV cache, comparison table', async () => {
  await page.click('[data-layout="interleaved"]');
  const d = await page.evaluate(() => ({
    codes: window.posencDemo.codes, rope: window.posencDemo.rope, ropeConfig: window.posencDemo.ropeConfig,
    scores: window.posencDemo.scores, cache: window.posencDemo.cache, counts: window.posencDemo.parameterCounts,
  }));
  // binary: 7 -> 8 flips 4 bits; 63 entries of neighbour distances
  assert.equal(d.codes.flips.length, 63);
  assert.equal(d.codes.flips[7], 4);
  // RoPE schedules: linear (PI) divides every frequency by the factor -> wavelengths x 8
  const [orig, linear] = d.rope;
  assert.ok(Math.abs(linear.wavelengths[10] / orig.wavelengths[10] - 8) < 1e-3);
  // the default preset is Llama 3.1: head dim 128, theta 500000, llama3 scaling
  assert.equal(d.ropeConfig.cfg.headDim, 128);
  assert.equal(d.ropeConfig.cfg.scaling.type, 'llama3');
  // ALiBi, 8 heads, head 0: bias of the first query row is 0 at j = 0; weights rows sum to 1
  assert.equal(d.scores.kind, 'alibi');
  assert.equal(d.scores.bias[0], 0);
  assert.ok(Math.abs(d.scores.weightsRowSum - 1) < 1e-5);
  // cache: 30 tokens through a window of 2 sinks + 18: next position 30, 20 slots filled; the slot-count mistake changes the output
  assert.equal(d.cache.next, 30);
  assert.equal(d.cache.filled, 20);
  assert.ok(d.cache.diff > 1e-3);
  assert.equal(d.counts.learned, 512 * 768);
  // precision figure: posenc within 1e-6 of exact everywhere; float32 angle math visibly off at 65536
  const prec = await page.evaluate(() => window.posencDemo.precision);
  assert.ok(prec.maxOurs < 1e-6, `posenc error ${prec.maxOurs}`);
  assert.ok(prec.f32At65535 > 1e-4, `float32 error ${prec.f32At65535}`);  // base 500000, all 64 pairs
  // DeBERTa conventions: differ only for distances <= -max_position (HF: row 0, microsoft: row 1)
  const deb = await page.evaluate(() => window.posencDemo.deberta);
  assert.equal(deb.lastDifference, -512);
  assert.equal(deb.hfAt, 0);
  assert.equal(deb.msAt, 1);
  assert.equal(d.counts.rope, 0);
  // the comparison table is generated from pe.describe(): every method, the new ones included
  const described = await page.evaluate(() => [...document.querySelectorAll('#compare-body tr code')].map((c) => c.textContent));
  for (const kind of ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'deberta', 'kerple', 'fire', 'cope', 'resizeGrid']) assert.ok(described.includes(kind), kind);
  assert.equal(d.counts.kerple, 2 * 12);

  // interactions: Gray code, a T5 view, a bad config.json shows the error instead of a blank
  await page.click('#codes-kind [data-value="gray"]');
  assert.ok((await page.evaluate(() => window.posencDemo.codes.flips)).every((f) => f === 1));
  await page.click('#scores-kind [data-value="t5"]');
  assert.equal(await page.evaluate(() => window.posencDemo.scores.kind), 't5');
  await page.fill('#rope-config', '{"hidden_size": 4096, "num_attention_heads": 32, "rope_scaling": {"rope_type": "yarn", "factor": 4}}');
  assert.match(await page.textContent('#rope-config-out'), /RangeError: .*original_max_position_embeddings/);
  await page.selectOption('#rope-preset', { index: 1 });
  assert.equal(await page.evaluate(() => window.posencDemo.ropeConfig.cfg.scaling.type), 'yarn');
  await page.click('#cache-append1');
  assert.equal(await page.evaluate(() => window.posencDemo.cache.next), 31);
  await page.click('#cache-shift');  // 20 kept tokens renumbered 0..19
  assert.equal(await page.evaluate(() => window.posencDemo.cache.next), 20);
  assert.deepEqual((await page.evaluate(() => window.posencDemo.cache.positions)).slice().sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
  // why order matters: without an encoding each word's output is identical in both sentences; with one it is not.
  // The test recomputes the no-encoding outputs itself (softmax(x xᵀ / 4) x, in float64) and holds the page to them.
  const order = await page.evaluate(() => window.posencDemo.order);
  assert.equal(order.enc, 'none');
  assert.deepEqual(order.match, [0, 4, 2, 3, 1]);
  assert.ok(order.diffs.every((d) => d < 1e-6), `no-encoding outputs differ: ${order.diffs}`);
  {
    const x = order.inputA, T = 5, D = 16;
    let worst = 0;
    for (let i = 0; i < T; i++) {
      const s = Array.from({ length: T }, (_, j) => { let d = 0; for (let c = 0; c < D; c++) d += x[i * D + c] * x[j * D + c]; return d / 4; });
      const m = Math.max(...s), e = s.map((v) => Math.exp(v - m)), l = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < D; c++) {
        let o = 0;
        for (let j = 0; j < T; j++) o += (e[j] / l) * x[j * D + c];
        worst = Math.max(worst, Math.abs(o - order.outA[i * D + c]));
      }
    }
    assert.ok(worst < 1e-5, `the drawn outputs are softmax(x xᵀ / √16) x to ${worst}`);
  }
  for (const enc of ['sinusoidal', 'rope', 'alibi']) {
    await page.click(`#order-enc [data-value="${enc}"]`);
    const o = await page.evaluate(() => window.posencDemo.order);
    assert.equal(o.enc, enc);
    assert.ok(Math.max(...o.diffs) > 1e-3, `${enc}: the encoding should tell the two orders apart (${o.diffs})`);
  }
  await page.click('#order-enc [data-value="none"]');

  // four terms: their sum is the engine's score; the position-position map recomputed here from the page's p, W_q, W_k
  for (const layout of ['interleaved', 'tensor2tensor']) {
    await page.click(`#terms-layout [data-value="${layout}"]`);
    const terms = await page.evaluate(() => window.posencDemo.terms);
    assert.equal(terms.layout, layout);
    assert.ok(terms.diff < 1e-5, `four terms vs engine scores: ${terms.diff}`);
    const { T, p, Wq, Wk, pp } = terms, D = 16;
    const proj = (i, W) => Array.from({ length: D }, (_, c) => { let s = 0; for (let k = 0; k < D; k++) s += p[i * D + k] * W[k * D + c]; return s; });
    let worst = 0;
    for (let i = 0; i < T; i++) {
      const a = proj(i, Wq);
      for (let j = 0; j < T; j++) { const b = proj(j, Wk); worst = Math.max(worst, Math.abs(a.reduce((s, x, c) => s + x * b[c], 0) / 4 - pp[i * T + j])); }
    }
    assert.ok(worst < 1e-5, `position·position term off by ${worst}`);
  }
  await page.click('#terms-layout [data-value="interleaved"]');

  // RoPE turns: the fast pair points at angle m (mod 2 pi); shifting both positions leaves q.k unchanged
  await page.fill('#rotation-m', '37');
  await page.dispatchEvent('#rotation-m', 'input');
  await page.fill('#rotation-shift', '500000');
  await page.dispatchEvent('#rotation-shift', 'input');
  const rot = await page.evaluate(() => window.posencDemo.rotation);
  assert.equal(rot.m, 37);
  assert.equal(rot.shift, 500000);
  assert.ok(Math.abs(rot.fast[0] - Math.cos(37)) < 1e-6 && Math.abs(rot.fast[1] - Math.sin(37)) < 1e-6, `fast pair ${rot.fast}`);
  const wSlow = 10000 ** (-2 * 31 / 64);
  assert.ok(Math.abs(rot.slow[0] - Math.cos(37 * wSlow)) < 1e-6 && Math.abs(rot.slow[1] - Math.sin(37 * wSlow)) < 1e-6, `slow pair ${rot.slow}`);
  assert.ok(Math.abs(rot.s1 - rot.s0) < 1e-4, `shifted score ${rot.s1} vs ${rot.s0}`);

  // speed panel: both implementations run in a worker and agree; the page stays responsive meanwhile
  await page.selectOption('#speed-T', '128');
  await page.click('#speed-run');
  assert.equal(await page.evaluate(() => document.getElementById('speed-run').disabled), true);
  await page.waitForFunction(() => window.posencDemo.speed, null, { timeout: 60000 });
  const speed = await page.evaluate(() => window.posencDemo.speed);
  assert.equal(speed.op, 'attention');
  assert.equal(speed.shape, '[8, 128, 64]');
  assert.ok(speed.posencMs > 0 && speed.jsMs > 0);
  assert.ok(speed.maxDiff < 1e-4, `posenc and plain JS attention differ by ${speed.maxDiff}`);
  assert.match(await page.textContent('#speed-out'), /faster/);
  await page.click('#speed-op [data-value="rope"]');
  await page.click('#speed-run');
  await page.waitForFunction(() => window.posencDemo.speed.op === 'rope', null, { timeout: 60000 });
  const rope = await page.evaluate(() => window.posencDemo.speed);
  assert.equal(rope.shape, '[8, 128, 128]');
  assert.ok(rope.maxDiff < 1e-5, `posenc and plain JS RoPE differ by ${rope.maxDiff}`);
  for (const id of ['order', 'sinusoidal', 'terms', 'codes', 'rotation', 'rope', 'scores', 'cache', 'compare', 'speed']) {
    await page.locator(`#${id}`).screenshot({ path: join(shots, `section-${id}.png`) });
  }
  assert.deepEqual(consoleErrors, []);
});

test('narrow screens get a one-column layout', async () => {
  await page.setViewportSize({ width: 420, height: 900 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page overflows horizontally by ${overflow}px`);
  await page.screenshot({ path: join(shots, 'demo-mobile.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});
