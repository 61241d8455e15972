// The lab's trained models (scripts/train/train.py, weights in web/lab/models/) run through posenc by
// web/lab/runner.mjs: logits and attention weights equal PyTorch's for every model at L, 2L and 4L;
// generation through pe.KVCache (prefill in one call, in chunks, then single steps; with a window and
// sinks) equals the full forward; the per-position accuracy on both fixed test sets equals the one PyTorch
// measured, and results.json's seed 1 is exactly that; the tasks are what train.py says they are; the
// tables in README.md and docs/lab.md are the ones results.json gives; every finding the page and the
// README state holds on results.json.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS, LAB_LABELS } from '../../web/lab/runner.mjs';
import { loadModelFromDisk, MODELS_DIR } from '../../web/lab/load-node.mjs';
import { testSet, positionAccuracy, patternSequence, mulberry32, determined, TASKS, SWITCH, VOCAB, TRAINED_LENGTH as L } from '../../web/lab/task.mjs';
import { correctCounts, totalCounts, seedStats, formatStat, formatRange, findings, renderFinding } from '../../web/lab/results.mjs';
import { expectedFiles } from '../../scripts/train/table.mjs';

// Tolerance for logits: 1e-4 of the largest |logit| of the sequence. PyTorch computes the fixtures in
// float64 from the float32 weights; the runner is float32 throughout (posenc's attention, JS linear
// layers summing in double), so the differences are float32 rounding, ~1e-6 relative.
const REL_TOL = 1e-4;
// Attention weights are in [0, 1]: absolute tolerance, float32 rounding of the softmax of those logits.
const ATTN_TOL = 1e-5;

let pe, results;
const models = {};
const fixtures = {};
const readJson = (f) => JSON.parse(readFileSync(new URL(f, MODELS_DIR), 'utf8'));

before(async () => {
  pe = await load();
  results = readJson('results.json');
  for (const name of LAB_MODELS) {
    models[name] = await loadModelFromDisk(pe, name);
    const fx = readJson(`${name}.fix.json`);
    const bin = readFileSync(new URL(`${name}.fix.bin`, MODELS_DIR));
    const all = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
    fx.fixtures.forEach((f) => {
      f.logits = all.subarray(f.offset, f.offset + f.shape[0] * f.shape[1]);
      if (f.attention) f.attention.values = all.subarray(f.attention.offset, f.attention.offset + f.attention.shape.reduce((a, b) => a * b, 1));
    });
    fixtures[name] = fx;
  }
});

function worstRelative(got, want) {
  let diff = 0, scale = 0;
  for (let i = 0; i < want.length; i++) { diff = Math.max(diff, Math.abs(got[i] - want[i])); scale = Math.max(scale, Math.abs(want[i])); }
  return { rel: diff / scale, diff, scale };
}

test('the fixed test sets regenerated in JS equal the ones train.py wrote', () => {
  const committed = readJson('testset.json');
  assert.equal(committed.trainedLength, L);
  assert.deepEqual(Object.keys(committed.tasks), TASKS);
  for (const task of TASKS) assert.deepEqual(testSet(task), committed.tasks[task].sequences, task);
  // the pattern task: BOS, then the period repeated
  for (const s of committed.tasks.pattern.sequences) {
    assert.equal(s.tokens[0], 0);
    assert.deepEqual(s.segments, [[1, s.period]]);
    assert.equal(new Set(s.tokens.slice(1, 1 + s.period)).size, s.period);
    for (let t = 1 + s.period; t < s.tokens.length; t++) assert.equal(s.tokens[t], s.tokens[t - s.period]);
  }
});

test('the switch task: fresh patterns every 16..48 tokens, switches past L in every sequence, each token determined once its pattern showed a period', () => {
  for (const s of testSet('switch')) {
    assert.equal(s.tokens[0], 0);
    assert.equal(s.tokens.length, 8 * L + 1);
    assert.equal(s.segments[0][0], 1);
    let prev = [];
    s.segments.forEach(([start, k], i) => {
      const stop = i + 1 < s.segments.length ? s.segments[i + 1][0] : s.tokens.length;
      assert.ok(k >= SWITCH.periodMin && k <= SWITCH.periodMax, `period ${k}`);
      if (i + 1 < s.segments.length) assert.ok(stop - start >= SWITCH.segmentMin && stop - start <= SWITCH.segmentMax, `segment of ${stop - start}`);
      const pat = s.tokens.slice(start, start + k);
      assert.equal(new Set(pat).size, k, 'distinct tokens in a pattern');
      assert.ok(pat.every((t) => t >= 1 && t < VOCAB && !prev.includes(t)), 'a pattern shares no token with the one before');
      for (let t = start + k; t < stop; t++) assert.equal(s.tokens[t], s.tokens[t - k]);
      prev = pat;
    });
    assert.ok(s.segments.filter(([start]) => start > L).length >= 8, 'switches past L');
  }
  // hand-worked: BOS a b a b | c d e c d — the first period of each pattern is not determined
  const known = determined({ segments: [[1, 2], [5, 3]], tokens: [0, 1, 2, 1, 2, 3, 4, 5, 3, 4] });
  assert.deepEqual(known, [false, false, false, true, true, false, false, false, true, true]);
  // positionAccuracy counts only determined targets: q predicts token q + 1
  const acc = positionAccuracy([{ segments: [[1, 2], [5, 3]], tokens: [0, 1, 2, 1, 2, 3, 4, 5, 3, 4] }], [[9, 9, 1, 9, 9, 9, 9, 3, 0]], 9);
  assert.deepEqual(acc.total, [0, 0, 1, 1, 0, 0, 0, 1, 1]);
  assert.deepEqual(acc.correct, [0, 0, 1, 0, 0, 0, 0, 1, 0]);
});

for (const name of LAB_MODELS) {
  test(`${name}: runner logits equal PyTorch's at L, 2L, 4L (≤ ${REL_TOL} of the largest logit), attention weights within ${ATTN_TOL}`, () => {
    const m = models[name];
    const lengths = new Set();
    let attentionChecked = 0;
    for (const f of fixtures[name].fixtures) {
      const rope = f.linearFactor ? { type: 'linear', factor: f.linearFactor } : undefined;
      const weights = [];
      const got = m.forward(f.tokens, { rope, weights });
      assert.equal(got.length, f.logits.length);
      const { rel, diff, scale } = worstRelative(got, f.logits);
      assert.ok(rel <= REL_TOL, `${name}, length ${f.tokens.length}${rope ? ', PI ×' + f.linearFactor : ''}: worst |Δ| ${diff} of ${scale} (${rel})`);
      lengths.add(f.tokens.length);
      if (f.attention) {
        // PyTorch's softmax rows [layers, heads, rows, T] against the runner's pe.attention weights [heads, T, T]
        const [layers, heads, nr, T] = f.attention.shape;
        assert.equal(T, f.tokens.length);
        let worst = 0;
        for (let l = 0; l < layers; l++)
          for (let h = 0; h < heads; h++)
            f.attention.rows.forEach((q, r) => {
              for (let k = 0; k < T; k++) {
                const want = f.attention.values[((l * heads + h) * nr + r) * T + k], mine = weights[l][(h * T + q) * T + k];
                worst = Math.max(worst, Math.abs(want - mine));
              }
            });
        assert.ok(worst <= ATTN_TOL, `${name}: attention weights differ by ${worst}`);
        attentionChecked++;
      }
    }
    assert.deepEqual([...lengths].sort((a, b) => a - b), [L, 2 * L, 4 * L]);
    assert.equal(attentionChecked, 1, 'the switch fixture carries attention rows');
  });

  test(`${name}: per-position predictions on both fixed test sets equal PyTorch's, and results.json's seed 1 is their count`, () => {
    const m = models[name], n = 8 * L, seed1 = results.seeds[0];
    for (const task of TASKS) {
      const tests = testSet(task);
      const preds = tests.map((t) => m.predict(t.tokens.slice(0, n)));
      preds.forEach((p, s) => {
        const want = fixtures[name].predictions[task][s];
        const differ = [];
        for (let q = 0; q < n; q++) if (p[q] !== want[q]) differ.push(q);
        assert.deepEqual(differ, [], `${name}, ${task} sequence ${s}: predictions differ from PyTorch's at positions ${differ.slice(0, 10)}`);
      });
      const mine = positionAccuracy(tests, preds, n);
      assert.deepEqual(mine.total, totalCounts(results, task), `${task}: determined positions`);
      assert.deepEqual(mine.correct, correctCounts(results, name, seed1, task), `${name}, ${task}: results.json seed ${seed1}`);
    }
  });
}

test('seed statistics, hand-worked: three seeds at 100 %, 50 % and 75 % are 75 ± 25 % (sample sd), range 50–100', () => {
  const n = 8 * L, digits = (c) => String(c).repeat(n);
  const fake = { total: { switch: digits(8) }, models: { m: { 1: { tasks: { switch: { plain: digits(8) } } }, 2: { tasks: { switch: { plain: digits(4) } } }, 3: { tasks: { switch: { plain: digits(6) } } } } } };
  const st = seedStats(fake, 'm', 'switch');
  for (const w of ['1L', '2L', '4L', '8L']) {
    assert.equal(st[w].n, 3);
    assert.ok(Math.abs(st[w].mean - 0.75) < 1e-15 && Math.abs(st[w].sd - 0.25) < 1e-15, JSON.stringify(st[w]));
  }
  assert.equal(formatStat(st['4L']), '75 ± 25 %');
  assert.equal(formatRange(st['4L']), '50–100');
  // a window counts only its own 32 positions: seed 2 right only in the window up to 4L gives 1/3 there, 0 elsewhere
  const only4L = Array.from({ length: n }, (_, q) => (q >= 4 * L - L / 2 && q < 4 * L ? 8 : 0)).join('');
  const one = seedStats({ total: fake.total, models: { m: { 1: { tasks: { switch: { plain: only4L } } } } } }, 'm', 'switch');
  assert.deepEqual(['1L', '2L', '4L', '8L'].map((w) => one[w].mean), [0, 0, 1, 0]);
  assert.equal(one['4L'].sd, 0);
});

test('results.json: every model, 5 seeds, both tasks, each evaluation; the seeds are separate runs', () => {
  assert.deepEqual(Object.keys(results.models), LAB_MODELS);
  assert.ok(results.seeds.length >= 5);
  for (const name of LAB_MODELS) {
    const variants = ['plain', `window${results.probeWindow}`, ...(name === 'rope' ? [`pi${results.piFactor}`] : [])];
    assert.deepEqual(Object.keys(results.models[name]).map(Number), results.seeds, name);
    for (const seed of results.seeds) {
      for (const task of TASKS) assert.deepEqual(Object.keys(results.models[name][seed].tasks[task]).sort(), variants.sort(), `${name} ${seed} ${task}`);
    }
    // counts never exceed the determined positions
    for (const task of TASKS) {
      const total = totalCounts(results, task);
      for (const seed of results.seeds) correctCounts(results, name, seed, task).forEach((c, q) => assert.ok(c <= total[q], `${name} ${seed} ${task} q=${q}`));
    }
    // not one run written five times
    const runs = new Set(results.seeds.map((s) => results.models[name][s].tasks.switch.plain + results.models[name][s].finalLoss));
    assert.equal(runs.size, results.seeds.length, `${name}: seeds identical`);
  }
});

test('the switch task separates them: the clamped learned table at or below 50 % at 4L, at least one encoding above 90 %', (t) => {
  const learned = seedStats(results, 'learned', 'switch')['4L'];
  assert.ok(learned.mean <= 0.5, `learned at 4L: ${learned.mean}`);
  assert.ok(seedStats(results, 'learned', 'switch')['1L'].mean >= 0.9, 'the learned model has learnt the task inside L');
  const above = LAB_MODELS.filter((n) => seedStats(results, n, 'switch')['4L'].mean > 0.9);
  assert.ok(above.length >= 1, 'no encoding above 90 % at 4L');
  // and the pattern task cannot: there the learned table scores past L by reading the prefix
  assert.ok(seedStats(results, 'learned', 'pattern')['4L'].mean > 0.8);
  t.diagnostic(`learned at 4L: ${(100 * learned.mean).toFixed(1)} %; above 90 % at 4L: ${above.join(', ')}`);
});

test("docs/lab.md's account of the seeds holds: two groups no seed crosses at 4L, FIRE between and most spread, ALiBi and KERPLE not ordered", () => {
  const at4 = (n) => seedStats(results, n, 'switch')['4L'];
  const failing = ['nope', 'sinusoidal', 'learned', 'rope', 't5'], working = ['alibi', 'kerple', 'rope-pi'];
  const worst = Math.max(...failing.flatMap((n) => at4(n).values)), best = Math.min(...working.flatMap((n) => at4(n).values));
  assert.equal(Math.round(100 * worst), 36, `failing models' best seed: ${worst}`);
  assert.ok(best >= 0.9, `working models' worst seed: ${best}`);
  assert.equal(formatRange(at4('fire')), '43–79');
  assert.ok(at4('fire').min > worst && at4('fire').max < best, 'FIRE lies between the groups');
  for (const n of LAB_MODELS) assert.ok(at4(n).sd <= at4('fire').sd, `${n} varies more than FIRE`);
  for (const [a, b] of [['alibi', 'kerple'], ['rope', 't5']]) assert.ok(Math.abs(at4(a).mean - at4(b).mean) < at4(a).sd + at4(b).sd, `${a} and ${b} are ordered`);
  assert.equal(formatRange(seedStats(results, 'rope-pi', 'switch')['8L']), '39–68');
  const docs = readFileSync(new URL('../../docs/lab.md', import.meta.url), 'utf8');
  for (const phrase of ['below 36 %', '(43–79 %)', '(39–68 %)', ...['alibi', 'kerple', 'rope', 't5'].map((n) => `${LAB_LABELS[n].split(' ')[0]}'s ${formatStat(at4(n))}`)]) assert.ok(docs.includes(phrase), `docs/lab.md: ${phrase}`);
});

test('every finding the page and README.md state holds on results.json', () => {
  const list = findings(results);
  assert.ok(list.length >= 5);
  for (const f of list) assert.ok(f.holds, `does not hold: ${renderFinding(f, 'text')}`);
  // the README carries each of them, word for word
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const f of list) assert.ok(readme.includes(renderFinding(f, 'markdown')), `README.md lacks: ${renderFinding(f, 'markdown')}`);
});

test("README.md's and docs/lab.md's lab tables are the ones results.json (and the runner, for the RoPE schedules) give", async () => {
  const files = await expectedFiles(pe);
  for (const [file, { text, want }] of Object.entries(files)) assert.equal(text, want, `${file}: node scripts/train/table.mjs --write`);
});

// A prompt of the task: BOS + a period of 7 repeated over 100 tokens (past L), continued greedily.
const prompt = patternSequence(7, 100, mulberry32(99));
const STEPS = 40;

// Feeds tokens through a session as `plan` says (a list of chunk sizes; the rest one by one) and
// returns the logits of every fed token, [tokens, vocab].
function feedAll(session, tokens, plan) {
  const out = [];
  let i = 0;
  for (const c of plan) { out.push(...session.feed(tokens.slice(i, i + c))); i += c; }
  for (; i < tokens.length; i++) out.push(...session.feed([tokens[i]]));
  return Float32Array.from(out);
}

// The greedy continuation by full forwards (no cache): the reference sequence for the cache tests.
function greedyByForward(m, tokens, steps, options) {
  const seq = tokens.slice(), V = m.config.vocab;
  for (let s = 0; s < steps; s++) {
    const lg = m.forward(seq, options), t = seq.length - 1;
    let best = 0;
    for (let j = 1; j < V; j++) if (lg[t * V + j] > lg[t * V + best]) best = j;
    seq.push(best);
  }
  return seq;
}

for (const name of LAB_MODELS) {
  test(`${name}: generation through pe.KVCache equals the full forward (one-shot prefill, chunked prefill, steps)`, () => {
    const m = models[name];
    const seq = greedyByForward(m, prompt, 8, {});
    // the cache's rotary schedule: rope-pi's own linear ×4 by default, as in the forward; capacity is
    // the length dynamic NTK would read, unused by the linear schedule
    const full = m.forward(seq);
    for (const plan of [[prompt.length], [16, 16, 16, 16, 16, 16, 4], []]) {
      const s = m.session({ capacity: 256 });
      const got = feedAll(s, seq, plan);
      s.delete();
      const { rel, diff } = worstRelative(got, full);
      assert.ok(rel <= REL_TOL, `${name}, chunks ${plan.join(',') || 'steps only'}: worst |Δ| ${diff} (${rel})`);
    }
    // generate() itself: prompt in one call, then STEPS greedy steps, equals greedy full forwards
    const s = m.session({ capacity: 256 });
    const gen = s.generate(prompt, STEPS);
    s.delete();
    assert.deepEqual(gen, greedyByForward(m, prompt, STEPS, {}).slice(prompt.length));
  });

  test(`${name}: generation through a windowed pe.KVCache (window 48, with and without 4 sinks; one-shot, chunked, steps) equals windowed attention`, () => {
    const m = models[name];
    const seq = prompt.slice(0, 90);
    for (const sinks of [0, 4]) {
      const full = m.forward(seq, { window: 48, sinks });
      // one append longer than the window, chunks shorter and longer than it, and single steps: a query
      // must see exactly the keys at p - 48 < j <= p plus the sinks however the tokens arrived
      for (const plan of [[90], [16, 16, 16, 16, 16, 10], [7, 33, 50], [60], []]) {
        const s = m.session({ window: 48, sinks });
        const got = feedAll(s, seq, plan);
        s.delete();
        const { rel, diff } = worstRelative(got, full);
        assert.ok(rel <= REL_TOL, `${name}, window 48, sinks ${sinks}, chunks ${plan.join(',') || 'steps only'}: worst |Δ| ${diff} (${rel})`);
      }
    }
  });
}

test('rope-pi: the fine-tuned model runs with its own schedule (linear ×4) by default; without it its logits change', () => {
  const m = models['rope-pi'];
  assert.deepEqual(m.config.ropeScaling, { type: 'linear', factor: 4 });
  const seq = prompt.slice(0, 80);
  const a = m.forward(seq), b = m.forward(seq, { rope: { type: 'linear', factor: 4 } }), c = m.forward(seq, { rope: { type: 'none' } });
  assert.deepEqual(a, b);
  assert.ok(worstRelative(c, a).rel > 1e-3, 'the schedule changed nothing');
});

test('rope: the cache with each context-extension schedule equals attention with it', () => {
  const m = models.rope, seq = prompt.slice(0, 80);
  for (const rope of [{ type: 'linear', factor: 4 }, { type: 'ntk', factor: 4 }, { type: 'dynamic', factor: 4 }, { type: 'yarn', factor: 4 }]) {
    const full = m.forward(seq, { rope });
    // dynamic NTK: the cache uses seqLen = capacity, the forward seqLen = its length: make them equal
    const s = m.session({ capacity: seq.length, rope });
    const got = feedAll(s, seq, [40]);
    s.delete();
    const { rel, diff } = worstRelative(got, full);
    assert.ok(rel <= REL_TOL, `rope ${rope.type}: worst |Δ| ${diff} (${rel})`);
  }
});

test('rope: YaRN at factor 4 scales attention (its logits differ from NTK-by-parts without the scale)', () => {
  // the attention scale is part of the schedule: YaRN's 0.1·ln(4) + 1 multiplies cos and sin
  const m = models.rope, seq = prompt.slice(0, 80);
  const a = m.forward(seq, { rope: { type: 'yarn', factor: 4 } });
  const f = pe.ropeFrequencies({ headDim: 16, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: L } });
  assert.ok(Math.abs(f.attentionScale - (0.1 * Math.log(4) + 1)) < 1e-6);
  const b = m.forward(seq, { rope: { type: 'yarn', factor: 4, attentionFactor: 1 } });
  assert.ok(worstRelative(a, b).rel > 1e-3, 'the attention scale changed nothing');
});

test('examples/node/lab-generate.mjs runs a trained model through the cache and checks itself', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = new URL('../../examples/node/lab-generate.mjs', import.meta.url);
  for (const args of [['rope', 'posenc'], ['rope', 'posenc', '--rope', 'yarn:4'], ['alibi', 'posenc', '--window', '32', '--sinks', '4'], ['rope-pi', 'posenc']]) {
    const r = spawnSync(process.execPath, [fileURLToPath(script), ...args], { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^prompt: posencposenc$/m);
    assert.match(r.stdout, /^cache equals full forward \(first 24 steps\): true$/m);
    const cont = r.stdout.match(/^continuation: (.*)$/m)[1];
    assert.equal(cont.length, 4 * L + 1 - 13);
  }
});
