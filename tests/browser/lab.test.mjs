// The demo's "Train short, test long" panel in headless Chromium: the per-position accuracy the page
// computes live (web/lab/worker.mjs → runner → posenc) equals the one PyTorch measured for every model;
// a RoPE schedule change redraws the curve with the accuracy the runner gives in Node; generation
// through the KV cache equals greedy decoding by full forwards. Screenshots (desktop and 390 px) go to
// build/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, collectErrors } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS } from '../../web/lab/runner.mjs';
import { loadModelFromDisk, MODELS_DIR } from '../../web/lab/load-node.mjs';
import { testSet, positionAccuracy, TRAINED_LENGTH as L } from '../../web/lab/task.mjs';

const shots = fileURLToPath(new URL('../../build/screenshots/', import.meta.url));
let server, browser, context, page, pe;
const consoleErrors = [];
const fixture = (name) => JSON.parse(readFileSync(new URL(`${name}.fix.json`, MODELS_DIR), 'utf8'));

before(async () => {
  mkdirSync(shots, { recursive: true });
  pe = await load();
  server = await startServer(0);
  browser = await launchChromium();
  context = browser.context;
  page = await context.newPage();
  collectErrors(page, consoleErrors);
  await page.goto(`http://127.0.0.1:${server.address().port}/web/#lab`);
  // 8 models × 8 sequences × 512 tokens in the page's worker, then a generation: allow for a loaded machine
  await page.waitForFunction(() => document.getElementById('lab')?.dataset.ready, null, { timeout: 240000 });
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the lab panel ran every model in the page', async () => {
  assert.equal(await page.evaluate(() => document.getElementById('lab').dataset.ready), 'true');
  const names = await page.evaluate(() => Object.keys(window.posencDemo.lab.accuracy));
  assert.deepEqual(names, LAB_MODELS);
  const rows = await page.$$eval('#lab-table tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, LAB_MODELS.length);
  assert.deepEqual(consoleErrors, []);
});

test("the page's per-position accuracy equals PyTorch's for every model", async () => {
  const pageAcc = await page.evaluate(() => window.posencDemo.lab.accuracy);
  for (const name of LAB_MODELS) {
    const torch = fixture(name).accuracy;
    assert.equal(pageAcc[name].total.length, 8 * L);
    assert.deepEqual(pageAcc[name].total, torch.total, `${name}: counted positions differ`);
    assert.deepEqual(pageAcc[name].correct, torch.correct, `${name}: correct predictions per position differ from PyTorch's`);
  }
});

test('a RoPE schedule change redraws the curve with the runner\'s accuracy under that schedule', async (t) => {
  const m = await loadModelFromDisk(pe, 'rope');
  const tests = testSet();
  const report = [];
  for (const [schedule, factor] of [['yarn', '8'], ['linear', '4'], ['ntk', '4'], ['dynamic', '4'], ['yarn', '4']]) {
    // set the factor first and let its redraw (and any it superseded) finish — the latest requested run
    // drawn — so the schedule click is timed on its own, not queued behind the factor's forward
    const settled = ([s, f]) => { const l = window.posencDemo.lab, r = l.rope; return r && r.run === l.ropeLatest && (s === null || r.schedule === s) && r.factor === f; };
    await page.selectOption('#lab-factor', factor);
    await page.waitForFunction(settled, [null, Number(factor)], { timeout: 60000 });
    await page.click(`#lab-schedule [data-value="${schedule}"]`);
    await page.waitForFunction(settled, [schedule, Number(factor)], { timeout: 60000 });
    const got = await page.evaluate(() => window.posencDemo.lab.rope);
    const rope = { type: schedule, factor: Number(factor) };
    const want = positionAccuracy(tests, tests.map((s) => m.predict(s.tokens.slice(0, 8 * L), { rope })), 8 * L);
    assert.deepEqual(got.accuracy.correct, want.correct, `${schedule} ×${factor}`);
    assert.deepEqual(got.accuracy.total, want.total);
    report.push(`${schedule} ×${factor}: ${got.ms.total.toFixed(0)} ms (forward ${got.ms.compute.toFixed(0)} ms)`);
  }
  t.diagnostic(`RoPE schedule change → curve redrawn: ${report.join('; ')}`);
  assert.equal(report.length, 5);
  await page.locator('#lab').screenshot({ path: join(shots, 'lab.png') });
});

test('generation in the page equals greedy decoding by full forwards', async () => {
  const cases = [{ model: 'rope', window: '0', sinks: '0' }, { model: 'alibi', window: '32', sinks: '4' }];
  for (const c of cases) {
    await page.selectOption('#lab-gen-window', c.window);
    await page.selectOption('#lab-gen-sinks', c.sinks);
    await page.selectOption('#lab-gen-model', c.model);
    await page.waitForFunction((cc) => { const g = window.posencDemo.lab.generation; return g && g.model === cc.model && g.window === Number(cc.window) && g.sinks === Number(cc.sinks); },
      c, { timeout: 60000 });
    const g = await page.evaluate(() => window.posencDemo.lab.generation);
    const m = await loadModelFromDisk(pe, c.model);
    // full forwards without a cache (with the cache's window and sinks), first 40 steps
    const seq = g.prompt.slice(), V = m.config.vocab, window = Number(c.window), sinks = Number(c.sinks);
    for (let s = 0; s < 40; s++) {
      const lg = m.forward(seq, window ? { window, sinks } : {});
      const t = seq.length - 1;
      let best = 0;
      for (let j = 1; j < V; j++) if (lg[t * V + j] > lg[t * V + best]) best = j;
      seq.push(best);
    }
    assert.deepEqual(g.tokens.slice(0, 40), seq.slice(g.prompt.length), `${c.model}, window ${c.window}, sinks ${c.sinks}`);
    assert.equal(g.prompt.length + g.tokens.length, 8 * L + 1);
  }
  assert.deepEqual(consoleErrors, []);
});

test('the lab fits a 390 px phone', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(600);
  const overflow = await page.evaluate(() => {
    const lab = document.getElementById('lab');
    return { page: document.documentElement.scrollWidth - window.innerWidth, lab: lab.scrollWidth - lab.clientWidth };
  });
  assert.ok(overflow.page <= 0, `the page scrolls sideways by ${overflow.page} px`);
  assert.ok(overflow.lab <= 0, `the lab panel overflows by ${overflow.lab} px`);
  await page.locator('#lab').screenshot({ path: join(shots, 'lab-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
});
