// The lab's trained models (scripts/train/train.py, weights in web/lab/models/) run through posenc by
// web/lab/runner.mjs: logits equal PyTorch's for every model at L, 2L and 4L; generation through
// pe.KVCache (prefill in one call, in chunks, then single steps; with a window and sinks) equals the
// full forward; the per-position accuracy on the fixed test set equals the one PyTorch measured.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS } from '../../web/lab/runner.mjs';
import { loadModelFromDisk, MODELS_DIR } from '../../web/lab/load-node.mjs';
import { testSet, positionAccuracy, patternSequence, mulberry32, TRAINED_LENGTH as L } from '../../web/lab/task.mjs';

// Tolerance for logits: 1e-4 of the largest |logit| of the sequence. PyTorch computes the fixtures in
// float64 from the float32 weights; the runner is float32 throughout (posenc's attention, JS linear
// layers summing in double), so the differences are float32 rounding, ~1e-6 relative.
const REL_TOL = 1e-4;

let pe;
const models = {};
const fixtures = {};
const readJson = (f) => JSON.parse(readFileSync(new URL(f, MODELS_DIR), 'utf8'));

before(async () => {
  pe = await load();
  for (const name of LAB_MODELS) {
    models[name] = await loadModelFromDisk(pe, name);
    const fx = readJson(`${name}.fix.json`);
    const bin = readFileSync(new URL(`${name}.fix.bin`, MODELS_DIR));
    const all = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
    fx.fixtures.forEach((f) => { f.logits = all.subarray(f.offset, f.offset + f.shape[0] * f.shape[1]); });
    fixtures[name] = fx;
  }
});

function worstRelative(got, want) {
  let diff = 0, scale = 0;
  for (let i = 0; i < want.length; i++) { diff = Math.max(diff, Math.abs(got[i] - want[i])); scale = Math.max(scale, Math.abs(want[i])); }
  return { rel: diff / scale, diff, scale };
}

test('the fixed test set regenerated in JS equals the one train.py wrote', () => {
  const committed = readJson('testset.json');
  assert.equal(committed.trainedLength, L);
  assert.deepEqual(testSet(), committed.sequences);
  // the task itself: BOS, then the period repeated
  for (const s of committed.sequences) {
    assert.equal(s.tokens[0], 0);
    assert.equal(new Set(s.tokens.slice(1, 1 + s.period)).size, s.period);
    for (let t = 1 + s.period; t < s.tokens.length; t++) assert.equal(s.tokens[t], s.tokens[t - s.period]);
  }
});

for (const name of LAB_MODELS) {
  test(`${name}: runner logits equal PyTorch's at L, 2L, 4L (≤ ${REL_TOL} of the largest logit)`, () => {
    const m = models[name];
    const lengths = new Set();
    for (const f of fixtures[name].fixtures) {
      const rope = f.linearFactor ? { type: 'linear', factor: f.linearFactor } : undefined;
      const got = m.forward(f.tokens, { rope });
      assert.equal(got.length, f.logits.length);
      const { rel, diff, scale } = worstRelative(got, f.logits);
      assert.ok(rel <= REL_TOL, `${name}, length ${f.tokens.length}${rope ? ', PI ×' + f.linearFactor : ''}: worst |Δ| ${diff} of ${scale} (${rel})`);
      lengths.add(f.tokens.length);
    }
    assert.deepEqual([...lengths].sort((a, b) => a - b), [L, 2 * L, 4 * L]);
  });

  test(`${name}: per-position accuracy on the fixed test set equals PyTorch's`, () => {
    const m = models[name], tests = testSet(), n = 8 * L;
    const preds = tests.map((t) => m.predict(t.tokens.slice(0, n)));
    const mine = positionAccuracy(tests, preds, n);
    const torch = fixtures[name].accuracy;
    preds.forEach((p, s) => {
      const want = fixtures[name].predictions[s].pred;
      const differ = [];
      for (let q = 0; q < n; q++) if (p[q] !== want[q]) differ.push(q);
      assert.deepEqual(differ, [], `${name}, sequence ${s}: predictions differ from PyTorch's at positions ${differ.slice(0, 10)}`);
    });
    assert.deepEqual(mine.total, torch.total);
    assert.deepEqual(mine.correct, torch.correct);
  });
}

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
  for (const args of [['rope', 'posenc'], ['rope', 'posenc', '--rope', 'yarn:4'], ['alibi', 'posenc', '--window', '32', '--sinks', '4']]) {
    const r = spawnSync(process.execPath, [fileURLToPath(script), ...args], { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^prompt: posencposenc$/m);
    assert.match(r.stdout, /^cache equals full forward \(first 24 steps\): true$/m);
    const cont = r.stdout.match(/^continuation: (.*)$/m)[1];
    assert.equal(cont.length, 4 * L + 1 - 13);
  }
});
