// The demo's "Train short, test long" panel in headless Chromium: seed 1 of every model run live in the
// page (web/lab/worker.mjs → runner → posenc) gives PyTorch's per-position counts (results.json) on both
// tasks; the small multiples draw the seeds' band and mean from results.json, the chance line and L; the
// page's tables show the same numbers as README.md's; the attention maps are the runner's pe.attention
// weights; a RoPE schedule change redraws the curve with the runner's accuracy under that schedule (timed,
// progress shown); generation through the KV cache equals greedy decoding by full forwards; every section
// with a method links its paper in the reference list. Screenshots (1280 and 390 px) go to build/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, collectErrors } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS, LAB_LABELS } from '../../web/lab/runner.mjs';
import { loadModelFromDisk, MODELS_DIR } from '../../web/lab/load-node.mjs';
import { testSet, positionAccuracy, TASKS, TRAINED_LENGTH as L } from '../../web/lab/task.mjs';
import { correctCounts, binnedSeeds, seedStats, formatStat, findings, renderFinding } from '../../web/lab/results.mjs';

const shots = fileURLToPath(new URL('../../build/screenshots/', import.meta.url));
let server, browser, context, page, pe;
const consoleErrors = [];
const results = JSON.parse(readFileSync(new URL('results.json', MODELS_DIR), 'utf8'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const clickTask = async (task) => {
  await page.click(`#lab-task [data-value="${task}"]`);
  await page.waitForFunction((t) => window.posencDemo.lab.task === t && window.posencDemo.lab.liveStatus?.[t], task, { timeout: 240000 });
};

before(async () => {
  mkdirSync(shots, { recursive: true });
  pe = await load();
  server = await startServer(0);
  browser = await launchChromium();
  context = browser.context;
  page = await context.newPage();
  collectErrors(page, consoleErrors);
  await page.goto(`http://127.0.0.1:${server.address().port}/web/#lab`);
  // 9 models × 8 sequences × 512 tokens in the page's workers, the maps, a generation: allow for a loaded machine
  await page.waitForFunction(() => document.getElementById('lab')?.dataset.ready, null, { timeout: 300000 });
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the lab panel ran every model in the page, and seed 1 equals PyTorch\'s counts on both tasks', async () => {
  assert.equal(await page.evaluate(() => document.getElementById('lab').dataset.ready), 'true');
  for (const task of ['switch', 'pattern']) {
    await clickTask(task);
    const live = await page.evaluate((t) => window.posencDemo.lab.live[t], task);
    assert.deepEqual(Object.keys(live), LAB_MODELS);
    for (const name of LAB_MODELS) {
      assert.equal(live[name].total.length, 8 * L);
      assert.deepEqual(live[name].correct, correctCounts(results, name, results.seeds[0], task), `${name}, ${task}: the page's seed 1 differs from PyTorch's`);
    }
    assert.match(await page.textContent('#lab-status'), /every per-position count equals PyTorch's/);
  }
  await clickTask('switch');
  assert.deepEqual(consoleErrors, []);
});

test('the chart: one small multiple per encoding with the seeds\' band and mean, seed 1 dotted, chance drawn, L marked; the task switches it', async () => {
  for (const task of ['switch', 'pattern']) {
    await clickTask(task);
    const drawn = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#lab-acc canvas')].map((c) => [c.dataset.model, c.plot])));
    assert.deepEqual(Object.keys(drawn), LAB_MODELS);
    for (const name of LAB_MODELS) {
      const p = drawn[name], b = binnedSeeds(results, name, task);
      assert.equal(p.title, LAB_LABELS[name]);
      assert.deepEqual(p.xs, b.xs);
      // the band is the seeds' range and the line their mean, bin by bin
      for (const [k, want] of [['lo', b.min], ['hi', b.max], ['mean', b.mean]]) p[k].forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-12, `${name} ${task} ${k}[${i}]`));
      assert.ok(p.second && p.second.length === b.xs.length, `${name}: seed 1's live line`);
      assert.deepEqual(p.hlines.map((l) => l.y), [1 / 32]);
      assert.deepEqual(p.vlines.map((l) => l.x), [L]);
      assert.ok(p.w > 100 && p.h > 60, `${name}: plot ${p.w} × ${p.h}`);
    }
    // the bands differ: what one seed did is not all that is drawn
    assert.ok(LAB_MODELS.some((n) => { const b = binnedSeeds(results, n, task); return b.max.some((v, i) => v - b.min[i] > 0.05); }), `${task}: no spread between seeds anywhere`);
    await page.locator('#lab').screenshot({ path: join(shots, `lab-${task}.png`) });
  }
  await clickTask('switch');
});

// README.md's lab table: | encoding (5 seeds) | switch: L | 2L | 4L | 8L | pattern: 8L | pattern 8L, window 48 |
function readmeRows() {
  const block = readme.match(/<!-- lab:table -->\n([\s\S]*?)\n<!-- \/lab:table -->/)[1].split('\n').slice(2);
  return Object.fromEntries(block.map((line) => { const cells = line.split('|').slice(1, -1).map((c) => c.trim()); return [cells[0], cells.slice(1)]; }));
}
const pageCells = (table) => page.$$eval(`#${table} tr`, (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.model,
  Object.fromEntries([...tr.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, td.querySelector('.v').textContent]))])));

test("the page's tables show README.md's numbers (mean ± sd over the seeds), and README's findings", async () => {
  const rows = readmeRows();
  assert.deepEqual(Object.keys(rows), LAB_MODELS.map((n) => LAB_LABELS[n]));
  await clickTask('switch');
  const sw = await pageCells('lab-table');
  await clickTask('pattern');
  const pa = await pageCells('lab-table'), probe = await pageCells('lab-probe');
  for (const name of LAB_MODELS) {
    const r = rows[LAB_LABELS[name]];
    assert.deepEqual(r.slice(0, 4), ['1L', '2L', '4L', '8L'].map((w) => sw[name][`plain:${w}`]), `${name}: switch`);
    assert.equal(r[4], pa[name]['plain:8L'], `${name}: pattern 8L`);
    assert.equal(r[5], probe[name]['window48:8L'], `${name}: pattern 8L, window 48`);
    // and they are the numbers results.json gives (not just equal to each other)
    assert.equal(r[2], formatStat(seedStats(results, name, 'switch')['4L']));
  }
  // the findings, word for word as the README states them
  const pageFindings = await page.$$eval('#lab-findings li', (lis) => lis.map((li) => li.textContent));
  const list = findings(results);
  assert.deepEqual(pageFindings, list.map((f) => renderFinding(f, 'text')));
  for (const f of list) assert.ok(readme.includes(renderFinding(f, 'markdown')), `README lacks: ${renderFinding(f, 'text')}`);
  await clickTask('switch');
});

test('the attention maps are the runner\'s pe.attention weights, before and past L, with and without the window', async () => {
  const regions = [{ q0: L - 24, q1: L, k0: 0, k1: L }, { q0: 3 * L - 24, q1: 3 * L, k0: 0, k1: 3 * L }];
  for (const [model, seq, window] of [['rope', '0', '0'], ['learned', '2', '0'], ['alibi', '1', '48'], ['fox', '0', '0'], ['stickbreaking', '1', '48']]) {
    await page.selectOption('#lab-attn-window', window);
    await page.selectOption('#lab-attn-seq', { value: seq });  // a value: the labels are 1 … 8
    await page.selectOption('#lab-attn-model', model);
    await page.waitForFunction(([m, s, w]) => { const a = window.posencDemo.lab.attention; return a && a.model === m && a.seq === Number(s) && a.window === Number(w); }, [model, seq, window], { timeout: 60000 });
    const got = await page.evaluate(() => { const a = window.posencDemo.lab.attention; return { maps: a.maps.map((m) => Array.from(m)), task: a.task }; });
    const m = await loadModelFromDisk(pe, model);
    const tokens = testSet(got.task)[Number(seq)].tokens.slice(0, 3 * L), weights = [];
    m.forward(tokens, { weights, ...(Number(window) ? { window: Number(window) } : {}) });
    const T = tokens.length;
    regions.forEach((r, k) => {
      const nq = r.q1 - r.q0, nk = r.k1 - r.k0;
      let worst = 0, masked = 0;
      for (let l = 0; l < 2; l++)
        for (let h = 0; h < 4; h++)
          for (let i = 0; i < nq; i++) {
            let sum = 0;
            for (let j = 0; j < nk; j++) {
              const v = got.maps[k][((l * 4 + h) * nq + i) * nk + j], q = r.q0 + i, key = r.k0 + j;
              const seen = key <= q && (!Number(window) || key > q - Number(window));
              if (!seen) { assert.ok(v === null || Number.isNaN(v), 'a key the query does not see is drawn masked'); masked++; continue; }
              worst = Math.max(worst, Math.abs(v - weights[l][(h * T + q) * T + key]));
              sum += v;
            }
            // stick-breaking: what the stick leaves weighs no key, so a row sums to at most 1
            if (model === 'stickbreaking') assert.ok(sum <= 1 + 1e-4, `row ${r.q0 + i} of layer ${l} head ${h} sums to ${sum}`);
            else if (k === 0 || !Number(window)) assert.ok(Math.abs(sum - 1) < 1e-4, `row ${r.q0 + i} of layer ${l} head ${h} sums to ${sum}`);
          }
      assert.ok(worst < 1e-6, `${model}: page weights differ from the runner's by ${worst}`);
      assert.ok(masked > 0);
    });
    assert.equal(await page.$$eval('#lab-attn-a canvas, #lab-attn-b canvas', (cs) => cs.filter((c) => c.plot).length), 16);
  }
  await page.locator('[data-panel="lab-attn"]').screenshot({ path: join(shots, 'lab-attention.png') });
  await page.selectOption('#lab-attn-window', '0');
});

test('a RoPE schedule change redraws the curve with the runner\'s accuracy under that schedule; the click to its curve is timed (median of 10)', async (t) => {
  const m = await loadModelFromDisk(pe, 'rope');
  const task = await page.evaluate(() => window.posencDemo.lab.task);
  const tests = testSet(task);
  const settled = ([s, f]) => { const l = window.posencDemo.lab, r = l.rope; return r && r.run === l.ropeLatest && (s === null || r.schedule === s) && r.factor === f; };
  // every schedule against the runner in Node
  for (const [schedule, factor] of [['yarn', '8'], ['linear', '4'], ['ntk', '4'], ['dynamic', '4']]) {
    await page.selectOption('#lab-factor', factor);
    await page.waitForFunction(settled, [null, Number(factor)], { timeout: 60000 });
    await page.click(`#lab-schedule [data-value="${schedule}"]`);
    await page.waitForFunction(settled, [schedule, Number(factor)], { timeout: 60000 });
    const got = await page.evaluate(() => window.posencDemo.lab.rope);
    const rope = { type: schedule, factor: Number(factor) };
    const want = positionAccuracy(tests, tests.map((s) => m.predict(s.tokens.slice(0, 8 * L), { rope })), 8 * L);
    assert.deepEqual(got.accuracy.correct, want.correct, `${schedule} ×${factor}`);
    assert.deepEqual(got.accuracy.total, want.total);
  }
  // the timing: 10 clicks, each after the previous redraw settled; the progress bar fills while it computes
  await page.evaluate(() => {
    const p = document.getElementById('lab-rope-progress');
    window.posencDemo.progressSeen = [];
    const desc = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, 'value');
    Object.defineProperty(p, 'value', { get() { return desc.get.call(this); }, set(v) { window.posencDemo.progressSeen.push(v); desc.set.call(this, v); } });
  });
  const ms = [], order = ['ntk', 'yarn', 'linear', 'dynamic', 'ntk', 'yarn', 'linear', 'dynamic', 'ntk', 'yarn'];
  for (const schedule of order) {
    await page.evaluate(() => { window.posencDemo.progressSeen.length = 0; });
    await page.click(`#lab-schedule [data-value="${schedule}"]`);
    await page.waitForFunction(settled, [schedule, 4], { timeout: 60000 });
    const r = await page.evaluate(() => window.posencDemo.lab.rope);
    ms.push(r.ms.total);
    const seen = await page.evaluate(() => window.posencDemo.progressSeen.slice());
    // progress: reset to 0, then one step per sequence as it arrives, then full
    assert.deepEqual(seen.slice(0, 1), [0], `${schedule}: progress not reset`);
    assert.ok(seen.filter((v) => v > 0 && v < 8).length >= 1, `${schedule}: no progress shown while computing (${seen})`);
  }
  const sorted = ms.slice().sort((a, b) => a - b), median = (sorted[4] + sorted[5]) / 2;
  t.diagnostic(`RoPE schedule click → curve drawn, ms: ${ms.map((x) => x.toFixed(0)).join(', ')}; median ${median.toFixed(0)} ms (progress shown during each)`);
  await page.click('#lab-schedule [data-value="none"]');
  await page.waitForFunction(settled, ['none', 4], { timeout: 60000 });
  await page.locator('[data-panel="lab-rope"]').screenshot({ path: join(shots, 'lab-rope.png') });
});

test('generation in the page equals greedy decoding by full forwards', async () => {
  const cases = [{ model: 'rope', window: '0', sinks: '0' }, { model: 'alibi', window: '32', sinks: '4' }, { model: 'rope-pi', window: '0', sinks: '0' },
    { model: 'stickbreaking', window: '32', sinks: '4' }, { model: 'fox', window: '32', sinks: '4' }];  // the ring walked in token order; FoX's gates kept per slot
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

test('every section with a method links its paper in the reference list, and the list links out', async () => {
  const REQUIRED = ['vaswani', 'shaw', 'raffel', 'press', 'su', 'chen', 'bloc97', 'peng', 'ding', 'llama3', 'xiao', 'kazemnejad', 'chi', 'li', 'golovneva'];
  const refs = await page.$$eval('#refs ol.refs li', (lis) => lis.map((li) => ({ id: li.id, href: li.querySelector('a[href^="http"]')?.href })));
  for (const r of REQUIRED) assert.ok(refs.some((x) => x.id === `ref-${r}`), `no reference ref-${r}`);
  for (const r of refs) assert.match(r.href ?? '', /^https:\/\/(arxiv\.org\/abs\/\d{4}\.\d{4,5}|www\.reddit\.com\/r\/LocalLLaMA\/)/, r.id);
  // every internal #ref- link reaches an entry
  const links = await page.$$eval('a[href^="#ref-"]', (as) => as.map((a) => a.getAttribute('href').slice(1)));
  for (const id of links) assert.ok(refs.some((x) => x.id === id), `${id}: no such reference`);
  // each section that shows a method names its papers
  const SECTIONS = { order: ['vaswani', 'press'], sinusoidal: ['vaswani'], terms: ['vaswani'], rotation: ['su'], rope: ['su', 'chen', 'bloc97', 'peng', 'llama3', 'ding'],
    context: ['chen', 'bloc97', 'peng', 'llama3', 'ding'], lab: ['press', 'kazemnejad', 'chen', 'peng', 'xiao', 'chi', 'li', 'raffel', 'su'],
    scores: ['press', 'raffel', 'shaw', 'chi', 'li', 'golovneva'], cache: ['xiao'] };
  for (const [id, want] of Object.entries(SECTIONS)) {
    const have = await page.$$eval(`#${id} .papers a[href^="#ref-"]`, (as) => as.map((a) => a.getAttribute('href').slice(5)));
    for (const r of want) assert.ok(have.includes(r), `section ${id} does not link ref-${r} (links ${have})`);
  }
  // the methods table links each method's paper itself (pe.describe()); the lab's measured column links the lab
  assert.ok(await page.$eval('#compare thead', (h) => !!h.querySelector('a[href="#lab"]')));
  await page.locator('#refs').screenshot({ path: join(shots, 'references.png') });
});

test('the methods table splits "defined past L" from "generalises past it", the latter from results.json', async () => {
  await page.waitForFunction(() => window.posencDemo.compareMeasured, null, { timeout: 30000 });
  const rows = await page.$$eval('#compare-body tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.kind, [...tr.children].map((td) => td.textContent)])));
  const head = await page.$$eval('table.methods thead th', (ths) => ths.map((th) => th.textContent));
  const defined = head.findIndex((h) => /defined past the trained length/.test(h)), measured = head.findIndex((h) => /generalises past it/.test(h));
  assert.ok(defined > 0 && measured === defined + 1, head.join(' | '));
  for (const [kind, name] of [['alibi', 'alibi'], ['learned', 'learned'], ['rope', 'rope'], ['sinusoidal', 'sinusoidal'], ['none', 'nope']]) {
    const a = seedStats(results, name, 'switch')['4L'];
    const verdict = a.mean >= 0.9 ? 'yes' : a.mean <= 0.5 ? 'no' : 'partly';
    assert.ok(rows[kind][measured].startsWith(verdict), `${kind}: ${rows[kind][measured]}`);
    assert.ok(rows[kind][measured].includes(formatStat(a)), `${kind}: ${rows[kind][measured]}`);
  }
  // RoPE and sinusoidal are defined everywhere: the defined column says yes, uncoloured; no green verdict the lab's curves contradict
  for (const kind of ['rope', 'sinusoidal']) {
    const span = await page.$eval(`#compare-body tr[data-kind="${kind}"] td:nth-child(${defined + 1}) span`, (s) => s.className);
    assert.equal(span, '');
    const v = await page.$eval(`#compare-body tr[data-kind="${kind}"] td:nth-child(${measured + 1}) span`, (s) => s.className);
    assert.notEqual(v, 'yes', `${kind} is shown as generalising`);
  }
  assert.match(rows.cope[measured], /not measured/);
});

test('the lab fits a 390 px phone', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(800);
  const overflow = await page.evaluate(() => {
    const lab = document.getElementById('lab');
    const wide = [...lab.querySelectorAll('canvas, table, .controls, .stats')].filter((el) => el.getBoundingClientRect().right > lab.getBoundingClientRect().right + 1).map((el) => el.id || el.tagName);
    const tables = [...lab.querySelectorAll('.table-wrap')].filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.querySelector('tbody').id);
    return { page: document.documentElement.scrollWidth - window.innerWidth, lab: lab.scrollWidth - lab.clientWidth, wide, tables };
  });
  assert.ok(overflow.page <= 0, `the page scrolls sideways by ${overflow.page} px`);
  assert.ok(overflow.lab <= 0, `the lab panel overflows by ${overflow.lab} px`);
  assert.deepEqual(overflow.wide, []);
  assert.deepEqual(overflow.tables, [], 'a lab table scrolls sideways');
  // one small multiple per row, each still a readable chart
  const widths = await page.$$eval('#lab-acc canvas', (cs) => cs.map((c) => c.plot.w));
  assert.ok(widths.every((w) => w > 200), `small multiples ${widths}`);
  await page.locator('#lab').screenshot({ path: join(shots, 'lab-390.png') });
  await page.locator('#refs').screenshot({ path: join(shots, 'references-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForTimeout(400);
  assert.deepEqual(consoleErrors, []);
});
