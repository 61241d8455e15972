// Query temperature (Llama 4, Ministral 3) through the package, and what ropeConfigFromHF returns
// besides the rotary table: keys Hugging Face ignores, the temperature, the attention shape.
// Expected values: HF's formulas written out here in float64, and published config.json fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats, ropeReference } from './helpers.mjs';

const pe = await load();
const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/hf/${name}.json`, import.meta.url), 'utf8'));

// modeling_ministral3 _get_llama_4_attn_scale and modeling_llama4 attn_temperature_tuning, in float64
const ministralScale = (beta, L0, p) => 1 + beta * Math.log(1 + Math.floor(p / L0));
const llama4Scale = (attnScale, floorScale, p) => Math.log1p(Math.floor((p + 1) / floorScale)) * attnScale + 1;

// Causal GQA attention in float64 with an optional rope (half, base 10000) and temperature {beta, length, offset}.
function reference({ q, k, v, heads, kvHeads, headDim: d, qPositions, kPositions, rope, t }) {
  const qLen = qPositions.length, kLen = kPositions.length;
  const invFreq = Array.from({ length: d / 2 }, (_, i) => 10000 ** (-2 * i / d));
  const row = (x, at, p) => { const r = Array.from(x.subarray(at, at + d)); return rope ? ropeReference(r, p, invFreq, 'half') : r; };
  const out = new Float64Array(heads * qLen * d);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kvHeads));
    for (let i = 0; i < qLen; i++) {
      const s = t ? 1 + t.beta * Math.log(1 + Math.floor((qPositions[i] + (t.offset ?? 0)) / t.length)) : 1;
      const qi = row(q, (h * qLen + i) * d, qPositions[i]).map((x) => x * s);
      const logits = [], keys = [];
      for (let j = 0; j < kLen; j++) {
        if (kPositions[j] > qPositions[i]) continue;
        const kj = row(k, (g * kLen + j) * d, kPositions[j]);
        logits.push(qi.reduce((a, x, c) => a + x * kj[c], 0) / Math.sqrt(d));
        keys.push(j);
      }
      const m = Math.max(...logits);
      const z = logits.reduce((a, l) => a + Math.exp(l - m), 0);
      keys.forEach((j, n) => {
        const w = Math.exp(logits[n] - m) / z;
        for (let c = 0; c < d; c++) out[(h * qLen + i) * d + c] += w * v[(g * kLen + j) * d + c];
      });
    }
  }
  return out;
}

test('ropeConfigFromHF: Ministral 3 temperature equals modeling_ministral3 at 0, L0 - 1, L0, 5 L0, 2^24', () => {
  const cfg = pe.ropeConfigFromHF(fixture('ministral-3-8b'));
  assert.deepEqual({ ...cfg.temperature }, { kind: 'temperature', beta: 0.1, length: 16384, offset: 0 });
  assert.deepEqual(cfg.ignored, []);
  assert.equal(cfg.scaling.type, 'yarn');
  assert.deepEqual({ ...cfg.attention, layers: cfg.attention.layers.length }, { heads: 32, kvHeads: 8, headDim: 128, slidingWindow: 0, layers: 34 });
  assert.ok(cfg.attention.layers.every((l) => l.type === 'full_attention' && l.rope && l.window === 0 && l.temperature));
  // the scale as attention applies it: a one-key attention's weight-free output is v, so read it off
  // scores instead: score(q at p) / score(q at 0) = s(p) for the same q and k (no rope).
  const L0 = 16384, d = 4;
  const q = new Float32Array([0.5, -0.25, 0.125, 1]), k = new Float32Array([1, 0.5, -0.5, 0.25]), v = new Float32Array(d);
  const score = (p) => pe.attention({ q, k, v, heads: 1, headDim: d, qLen: 1, kLen: 1, qPositions: [p], kPositions: [0],
    encoding: cfg.temperature, returnScores: true }).scores[0];
  const base = score(0);
  for (const p of [0, L0 - 1, L0, 5 * L0, 2 ** 24]) {
    const want = ministralScale(0.1, L0, p);
    assert.ok(Math.abs(score(p) / base - want) < 1e-6 * want, `p = ${p}: ${score(p) / base} vs ${want}`);
  }
});

test('ropeConfigFromHF: Llama 4 temperature on its NoPE layers equals modeling_llama4 (offset 1)', () => {
  const raw = fixture('llama-4-scout-17b-16e');
  const cfg = pe.ropeConfigFromHF(raw);
  assert.deepEqual({ ...cfg.temperature }, { kind: 'temperature', beta: 0.1, length: 8192, offset: 1 });
  assert.equal(cfg.layout, 'interleaved');
  assert.equal(cfg.attention.layers.length, 48);
  cfg.attention.layers.forEach((l, i) => {
    const nope = raw.text_config.no_rope_layers[i] === 0;
    assert.deepEqual({ ...l }, { type: nope ? 'full_attention' : 'chunked_attention', rope: !nope, window: 0, chunk: nope ? 0 : 8192, temperature: nope }, `layer ${i}`);
  });
  assert.equal(cfg.attention.kvHeads, 8);
  const d = 4, q = new Float32Array([0.5, -0.25, 0.125, 1]), k = new Float32Array([1, 0.5, -0.5, 0.25]), v = new Float32Array(d);
  const score = (p) => pe.attention({ q, k, v, heads: 1, headDim: d, qLen: 1, kLen: 1, qPositions: [p], kPositions: [0],
    encoding: cfg.temperature, returnScores: true }).scores[0];
  const base = score(0);
  for (const p of [0, 8190, 8191, 8192, 5 * 8192, 2 ** 24]) {
    const want = llama4Scale(0.1, 8192, p);
    assert.ok(Math.abs(score(p) / base - want) < 1e-6 * want, `p = ${p}`);
  }
  // tuning off: no temperature anywhere
  const off = pe.ropeConfigFromHF({ ...raw, text_config: { ...raw.text_config, attn_temperature_tuning: false } });
  assert.equal(off.temperature, null);
  assert.ok(off.attention.layers.every((l) => !l.temperature));
});

test('attention with temperature = float64 reference (GQA, causal; alone and with RoPE); cache = attention far past the window', () => {
  const heads = 4, kvHeads = 2, headDim = 8, qLen = 3, kLen = 7;
  const q = randomFloats(heads * qLen * headDim, 1), k = randomFloats(kvHeads * kLen * headDim, 2), v = randomFloats(kvHeads * kLen * headDim, 3);
  const kPositions = Array.from({ length: kLen }, (_, j) => 40000 + j), qPositions = kPositions.slice(kLen - qLen);
  const t = { kind: 'temperature', beta: 0.7, length: 2, offset: 1 };
  for (const rope of [false, true]) {
    const got = pe.attention({ q, k, v, heads, kvHeads, headDim, qLen, kLen, qPositions, kPositions, causal: true,
      encoding: rope ? [{ kind: 'rope' }, t] : t }).out;
    assert.ok(maxAbsDiff(got, reference({ q, k, v, heads, kvHeads, headDim, qPositions, kPositions, rope, t })) < 2e-6, `rope ${rope}`);
    assert.ok(maxAbsDiff(got, reference({ q, k, v, heads, kvHeads, headDim, qPositions, kPositions, rope })) > 1e-3);
  }
  // the cache: 40 tokens through a window of 4 (+1 sink); the query at logical position 39
  const T = 40, kk = randomFloats(kvHeads * T * headDim, 4), vv = randomFloats(kvHeads * T * headDim, 5), q1 = randomFloats(heads * headDim, 6);
  const cache = new pe.KVCache({ kvHeads, headDim, capacity: 5, window: 4, sinks: 1, rope: {} });
  cache.append(kk, vv);
  const t8 = { kind: 'temperature', beta: 0.5, length: 8 };
  const { out } = cache.attend(q1, { heads, encoding: t8 });
  const kept = [0, 36, 37, 38, 39];
  const pick = (x) => { const o = new Float32Array(kvHeads * kept.length * headDim); let n = 0;
    for (let g = 0; g < kvHeads; g++) for (const j of kept) { o.set(x.subarray((g * T + j) * headDim, (g * T + j + 1) * headDim), n); n += headDim; } return o; };
  const want = reference({ q: q1, k: pick(kk), v: pick(vv), heads, kvHeads, headDim, qPositions: [39], kPositions: kept, rope: true, t: t8 });
  assert.ok(maxAbsDiff(out, want) < 2e-6);
  const viaAttention = pe.attention({ q: q1, k: pick(kk), v: pick(vv), heads, kvHeads, headDim, qLen: 1, kLen: 5, qPositions: [39], kPositions: kept,
    causal: true, encoding: [{ kind: 'rope' }, t8] }).out;
  assert.ok(maxAbsDiff(out, viaAttention) < 1e-5);
  // bad options name the field; the cache is unchanged
  const before = cache.positions();
  assert.throws(() => cache.attend(q1, { heads, encoding: { kind: 'temperature', beta: 0.5, length: 0 } }), (e) => e instanceof RangeError && /encoding\.length/.test(e.message));
  assert.deepEqual(cache.positions(), before);
  cache.delete();
  const base = { q, k, v, heads, kvHeads, headDim, qLen, kLen };
  assert.throws(() => pe.attention({ ...base, encoding: { kind: 'temperature', beta: 0.1 } }), (e) => e instanceof TypeError && /length/.test(e.message));
  assert.throws(() => pe.attention({ ...base, encoding: { kind: 'temperature', beta: 0.1, length: 8, offest: 1 } }), (e) => e instanceof TypeError && /offest/.test(e.message));
  assert.throws(() => pe.attention({ ...base, encoding: { kind: 'temperature', beta: Infinity, length: 8 } }), (e) => e instanceof RangeError && /encoding\.beta/.test(e.message));
  assert.throws(() => pe.attention({ ...base, encoding: { kind: 'temperature', beta: 0.1, length: 1.5 } }), (e) => e instanceof RangeError && /encoding\.length/.test(e.message));
  assert.throws(() => pe.attention({ ...base, encoding: { kind: 'temperature', beta: 0.1, length: 8, offset: -1 } }), (e) => e instanceof RangeError && /encoding\.offset/.test(e.message));
  assert.throws(() => pe.attention({ ...base, encoding: [t, t] }), (e) => e instanceof RangeError && /temperature/.test(e.message));
  assert.equal(pe.parameterCount('temperature', {}), 0);
  assert.equal(pe.describe().find((d) => d.kind === 'temperature').family, 'score');
});

test('ropeConfigFromHF: keys HF ignores are accepted and listed (real configs), refused under strict', () => {
  const cases = [
    ['qwen2.5-0.5b', 'config.use_mrope', false],
    ['smollm2-135m', 'config.rope_interleaved', false],
    ['stablelm-3b-4e1t', 'config.rotary_scaling_factor', 1],
  ];
  for (const [name, key, value] of cases) {
    const raw = fixture(name);
    const cfg = pe.ropeConfigFromHF(raw);
    assert.equal(cfg.ignored.length, 1, name);
    assert.equal(cfg.ignored[0].key, key);
    assert.equal(cfg.ignored[0].value, value);
    assert.ok(cfg.ignored[0].reason.length > 0);
    assert.ok(!Object.keys(cfg).includes('ignored'), 'not enumerable: { ...cfg } stays rope options');
    pe.ropeFrequencies({ ...cfg, seqLen: 1 });  // the spread result passes as rope options
    assert.throws(() => pe.ropeConfigFromHF(raw, { strict: true }), (e) => e instanceof RangeError && e.message.startsWith(key), name);
  }
  // the tables themselves, from each family's code
  const qwen = pe.ropeConfigFromHF(fixture('qwen2.5-0.5b'));
  assert.deepEqual({ ...qwen, warnings: undefined }, { headDim: 64, base: 1e6, layout: 'half', warnings: undefined });  // warnings: config-typos.test.mjs
  assert.deepEqual({ ...qwen.attention, layers: undefined }, { heads: 14, kvHeads: 2, headDim: 64, slidingWindow: 0, layers: undefined });
  assert.ok(qwen.attention.layers.every((l) => l.window === 0));  // use_sliding_window false
  const smol = pe.ropeConfigFromHF(fixture('smollm2-135m'));
  assert.deepEqual({ ...smol, warnings: undefined }, { headDim: 64, base: 100000, layout: 'half', warnings: undefined });
  assert.equal(smol.attention.kvHeads, 3);
  const stable = pe.ropeConfigFromHF(fixture('stablelm-3b-4e1t'));
  assert.equal(pe.ropeFrequencies(stable).rotaryDim, 20);  // rope_pct 0.25 of 80
  // a key of another family, GPT-J's fixed base, an unknown key inside the rope parameters
  const llama = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32 };
  for (const [extra, key] of [[{ rope_local_base_freq: 10000 }, 'config.rope_local_base_freq'], [{ rope_interleave: true }, 'config.rope_interleave'],
    [{ no_rope_layers: [1, 0] }, 'config.no_rope_layers'], [{ rope_scaling: { type: 'linear', factor: 2, finetuned: true } }, 'config.rope_scaling.finetuned']]) {
    assert.deepEqual(pe.ropeConfigFromHF({ ...llama, ...extra }).ignored.map((i) => i.key), [key]);
    assert.throws(() => pe.ropeConfigFromHF({ ...llama, ...extra }, { strict: true }), (e) => e instanceof RangeError && e.message.startsWith(key));
  }
  const gptj = pe.ropeConfigFromHF({ model_type: 'gptj', n_embd: 4096, n_head: 16, rope_theta: 500000 });
  assert.equal(gptj.base, 10000);
  assert.deepEqual(gptj.ignored.map((i) => [i.key, i.value]), [['config.rope_theta', 500000]]);
  // an unknown model type read generically: posenc cannot know its code, so an unread rotary key stays an error
  assert.throws(() => pe.ropeConfigFromHF({ model_type: 'brand_new', hidden_size: 64, num_attention_heads: 2, use_mrope: false }, { unknownModelType: 'generic' }),
    (e) => e instanceof RangeError && /config\.use_mrope/.test(e.message));
  assert.throws(() => pe.ropeConfigFromHF(llama, { strict: 1 }), (e) => e instanceof TypeError && /strict/.test(e.message));
});
