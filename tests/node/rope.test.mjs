// Rotary family through the package: schedules (HF modeling_rope_utils definitions), config.json
// reading, relative property, inverse rotation, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { load } from 'posenc';
import { maxAbsDiff, randomFloats } from './helpers.mjs';

const pe = await load();
const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/hf/${name}.json`, import.meta.url), 'utf8'));
const closeRel = (a, b, rel = 1e-6) => Math.abs(a - b) <= rel * Math.abs(b);
const defaultFreqs = (R, base) => Array.from({ length: R / 2 }, (_, i) => base ** (-2 * i / R));

test('ropeConfigFromHF: Llama 2 / Llama 3 / Mistral (plain rope_theta, head_dim or hidden/heads)', () => {
  assert.deepEqual(pe.ropeConfigFromHF(fixture('llama-2-7b')), { headDim: 128, base: 10000, layout: 'half' });
  assert.deepEqual(pe.ropeConfigFromHF(fixture('llama-3-8b')), { headDim: 128, base: 500000, layout: 'half' });
  assert.deepEqual(pe.ropeConfigFromHF(fixture('mistral-7b')), { headDim: 128, base: 1000000, layout: 'half' });
});

test('Llama 3.1 config: llama3 bands over original_max_position_embeddings 8192', () => {
  const cfg = pe.ropeConfigFromHF(fixture('llama-3.1-8b'));
  assert.deepEqual(cfg.scaling, { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 8192, lowFreqFactor: 1, highFreqFactor: 4 });
  const f = pe.ropeFrequencies(cfg);
  const base = defaultFreqs(128, 500000);
  base.forEach((w, i) => {
    const wavelen = 2 * Math.PI / w;
    let want;
    if (wavelen < 8192 / 4) want = w;
    else if (wavelen > 8192 / 1) want = w / 8;
    else { const s = (8192 / wavelen - 1) / (4 - 1); want = (1 - s) * w / 8 + s * w; }
    assert.ok(closeRel(f.invFreq[i], want), `pair ${i}: ${f.invFreq[i]} vs ${want}`);
  });
  assert.equal(f.attentionScale, 1);
});

test('Qwen2 YaRN and the newer rope_parameters form read the same', () => {
  const a = pe.ropeConfigFromHF(fixture('qwen2-7b-yarn'));
  const b = pe.ropeConfigFromHF(fixture('rope-parameters-yarn'));
  assert.deepEqual(a, { headDim: 128, base: 1000000, layout: 'half', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32768 } });
  assert.deepEqual(b, a);
  const f = pe.ropeFrequencies(a);
  assert.ok(Math.abs(f.attentionScale - (0.1 * Math.log(4) + 1)) < 1e-12);
  // YaRN definition: correction dims for beta 32 / 1, floor/ceil, linear ramp
  const R = 128, cd = (n) => (R * Math.log(32768 / (n * 2 * Math.PI))) / (2 * Math.log(1000000));
  const lo = Math.max(Math.floor(cd(32)), 0), hi = Math.min(Math.ceil(cd(1)), R - 1);
  defaultFreqs(R, 1000000).forEach((w, i) => {
    const ramp = Math.min(1, Math.max(0, (i - lo) / (hi - lo)));
    assert.ok(closeRel(f.invFreq[i], (w / 4) * ramp + w * (1 - ramp)), `pair ${i}`);
  });
});

test('DeepSeek-V3: yarn with mscale = mscale_all_dim gives attention factor 1; rope head dim 64', () => {
  const cfg = pe.ropeConfigFromHF(fixture('deepseek-v3'));
  assert.equal(cfg.headDim, 64);
  assert.equal(cfg.scaling.factor, 40);
  assert.equal(pe.ropeFrequencies(cfg).attentionScale, 1);
  assert.ok(Math.abs(pe.ropeFrequencies({ ...cfg, convention: 'ggml' }).attentionScale - (1 + 0.1 * Math.log(40))) < 1e-12);
});

test('Phi-3 longrope: factor = max/original, short factors up to 4096 tokens, long beyond', () => {
  const raw = fixture('phi-3-mini-128k');
  const cfg = pe.ropeConfigFromHF(raw);
  assert.equal(cfg.headDim, 96);
  assert.equal(cfg.scaling.factor, 32);
  assert.equal(cfg.scaling.originalMaxPositionEmbeddings, 4096);
  const base = defaultFreqs(96, 10000);
  for (const [seqLen, list] of [[4096, raw.rope_scaling.short_factor], [4097, raw.rope_scaling.long_factor], [undefined, raw.rope_scaling.short_factor]]) {
    const f = pe.ropeFrequencies({ ...cfg, seqLen });
    base.forEach((w, i) => assert.ok(closeRel(f.invFreq[i], w / list[i]), `seqLen ${seqLen} pair ${i}`));
    assert.ok(Math.abs(f.attentionScale - Math.sqrt(1 + Math.log(32) / Math.log(4096))) < 1e-12);
  }
});

test('GPT-NeoX rotary_pct, Phi-2 partial_rotary_factor, GPT-J rotary_dim (interleaved)', () => {
  const neox = pe.ropeConfigFromHF(fixture('gpt-neox-20b'));
  assert.deepEqual(neox, { headDim: 96, base: 10000, layout: 'half', partialRotaryFactor: 0.25 });
  assert.equal(pe.ropeFrequencies(neox).rotaryDim, 24);
  const phi2 = pe.ropeConfigFromHF(fixture('phi-2-partial'));
  assert.equal(pe.ropeFrequencies(phi2).rotaryDim, 32);
  const gptj = pe.ropeConfigFromHF(fixture('gpt-j-6b'));
  assert.deepEqual(gptj, { headDim: 256, base: 10000, layout: 'interleaved', partialRotaryFactor: 0.25 });
  assert.equal(pe.ropeFrequencies(gptj).rotaryDim, 64);
});

test('dynamic NTK through JS: identical to default at/below Lmax, larger base above', () => {
  const opts = { headDim: 64, scaling: { type: 'dynamic', factor: 2, originalMaxPositionEmbeddings: 2048 } };
  const plain = pe.ropeFrequencies({ headDim: 64 });
  assert.deepEqual(Array.from(pe.ropeFrequencies({ ...opts, seqLen: 2048 }).invFreq), Array.from(plain.invFreq));
  const f = pe.ropeFrequencies({ ...opts, seqLen: 8192 });
  const b = 10000 * (2 * 8192 / 2048 - 1) ** (64 / 62);
  defaultFreqs(64, b).forEach((w, i) => assert.ok(closeRel(f.invFreq[i], w)));
});

test('relative property: q_rot(m)·k_rot(n) depends only on n − m (1e-5, positions up to 1e6), every schedule', () => {
  const q = randomFloats(64, 11), k = randomFloats(64, 12);
  const schedules = [
    {}, { scaling: { type: 'linear', factor: 4 } }, { scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 4096 } },
    { scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 8192, lowFreqFactor: 1, highFreqFactor: 4 }, base: 500000 },
    { partialRotaryFactor: 0.5, layout: 'interleaved' },
  ];
  for (const o of schedules) {
    const dot = (m, n) => {
      const a = pe.applyRope(q, { heads: 1, tokens: 1, headDim: 64 }, [m], o);
      const b = pe.applyRope(k, { heads: 1, tokens: 1, headDim: 64 }, [n], o);
      return a.reduce((s, x, i) => s + x * b[i], 0);
    };
    for (const d of [0, 3, 250]) {
      const ref = dot(0, d);
      for (const m of [1000, 123457, 999000]) assert.ok(Math.abs(dot(m, m + d) - ref) < 1e-5, `${JSON.stringify(o)} m=${m} d=${d}`);
    }
  }
});

test('rotateByDelta: rotate(δ) moves position p to p+δ; rotate(−δ)∘rotate(δ) is the identity to 1e-6', () => {
  const heads = 2, tokens = 4, headDim = 32;
  const shape = { heads, tokens, headDim };
  const opts = { partialRotaryFactor: 0.5, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 512 } };
  const x = randomFloats(heads * tokens * headDim, 3);
  const p = [5, 100, 7, 0], d = [10, -50, 1000000, 2 ** 30];
  const moved = pe.rotateByDelta(pe.applyRope(x, shape, p, opts), shape, d, opts);
  const direct = pe.applyRope(x, shape, p.map((v, i) => v + d[i]), opts);
  assert.ok(maxAbsDiff(moved, direct) < 2e-6, `${maxAbsDiff(moved, direct)}`);
  for (const layout of ['half', 'interleaved']) {
    const back = pe.rotateByDelta(pe.rotateByDelta(x, shape, d, { ...opts, layout }), shape, d.map((v) => -v), { ...opts, layout });
    assert.ok(maxAbsDiff(back, x) < 1e-6);
  }
});

test('bad rope configs are clear errors', () => {
  const cases = [
    [() => pe.ropeFrequencies({ headDim: 64, scaling: { type: 'magic', factor: 2 } }), RangeError, /scaling.type/],
    [() => pe.ropeFrequencies({ headDim: 64, scaling: { type: 'linear', factor: 0.5 } }), RangeError, /scaling.factor/],
    [() => pe.ropeFrequencies({ headDim: 64, scaling: { type: 'linear' } }), RangeError, /scaling.factor/],
    [() => pe.ropeFrequencies({ headDim: 64, scaling: { type: 'yarn', factor: 4 } }), RangeError, /originalMaxPositionEmbeddings/],
    [() => pe.ropeFrequencies({ headDim: 64, scaling: { type: 'dynamic', factor: 2 }, seqLen: 9000 }), RangeError, /originalMaxPositionEmbeddings/],
    [() => pe.ropeFrequencies({ headDim: 66, partialRotaryFactor: 0.5 }), RangeError, /rotaryDim/],
    [() => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'longrope', originalMaxPositionEmbeddings: 16, shortFactor: [1, 1, 1], longFactor: [1, 1, 1, 1] } }), RangeError, /shortFactor/],
    [() => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'longrope', originalMaxPositionEmbeddings: 16, shortFactor: [1, 1, 1, 1], longFactor: [1, 1] } }), RangeError, /longFactor/],
    [() => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'longrope', originalMaxPositionEmbeddings: 16, shortFactor: [1, 1, 1, 'x'], longFactor: [1, 1, 1, 1] } }), TypeError, /shortFactor\[3\]/],
    [() => pe.ropeFrequencies({ headDim: 8, convention: 'llama' }), RangeError, /convention/],
    [() => pe.ropeConfigFromHF({ hidden_size: 4096, num_attention_heads: 32, rope_scaling: { rope_type: 'weird', factor: 2 } }), RangeError, /rope_type/],
    [() => pe.ropeConfigFromHF({ hidden_size: 4096, num_attention_heads: 32, rope_scaling: { rope_type: 'yarn', factor: 2 } }), RangeError, /original_max_position_embeddings/],
    [() => pe.ropeConfigFromHF({ num_attention_heads: 32 }), RangeError, /head_dim/],
    [() => pe.ropeConfigFromHF('{}'), TypeError, /config/],
    [() => pe.rotateByDelta(new Float32Array(8), { heads: 1, tokens: 1, headDim: 8 }, [0.5], {}), RangeError, /deltas\[0\]/],
  ];
  for (const [fn, type, re] of cases) assert.throws(fn, (e) => e instanceof type && re.test(e.message), String(fn));
  assert.equal(pe.ropeFrequencies({ headDim: 8 }).rotaryDim, 8);
});

test('multi-axis RoPE: Qwen2-VL mrope_section from config.json, positions [axes, tokens]; axial2d; xPos', () => {
  const cfg = pe.ropeConfigFromHF({ model_type: 'qwen2_vl', hidden_size: 3584, num_attention_heads: 28, rope_theta: 1000000,
    rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } });
  assert.deepEqual(cfg, { headDim: 128, base: 1000000, layout: 'half', multiAxis: 'mrope', sections: [16, 24, 24] });
  const f = pe.ropeFrequencies(cfg);
  assert.equal(f.axes, 3);
  assert.equal(f.axisOfPair[15], 0);
  assert.equal(f.axisOfPair[16], 1);
  assert.equal(f.axisOfPair[40], 2);
  const x = randomFloats(128 * 2, 3);
  const text = pe.applyRope(x, { heads: 1, tokens: 2, headDim: 128 }, [7, 8, 7, 8, 7, 8], cfg);  // t = h = w: plain RoPE
  const plain = pe.applyRope(x, { heads: 1, tokens: 2, headDim: 128 }, [7, 8], { base: 1000000 });
  assert.ok(maxAbsDiff(text, plain) < 1e-7);
  assert.throws(() => pe.applyRope(x, { heads: 1, tokens: 2, headDim: 128 }, [7, 8], cfg), (e) => e instanceof RangeError && /positions/.test(e.message));
  const ax = pe.ropeFrequencies({ headDim: 16, base: 100, multiAxis: 'axial2d' });
  assert.deepEqual(Array.from(ax.axisOfPair), [0, 0, 0, 0, 1, 1, 1, 1]);
  const xp = pe.ropeFrequencies({ headDim: 8, xposScaleBase: 512 });
  assert.equal(xp.rotaryDim, 8);
  assert.throws(() => pe.ropeFrequencies({ headDim: 16, multiAxis: 'mrope', sections: [2, 2] }), (e) => e instanceof RangeError && /sections/.test(e.message));
  // xPos through attention: queries scale up, keys down, so scores depend on m - n only
  const q = randomFloats(8, 5), k = randomFloats(8 * 2, 6), v = randomFloats(8 * 2, 7);
  const run = (base) => pe.attention({ q, k, v, heads: 1, headDim: 8, qLen: 1, kLen: 2, qPositions: [base + 5], kPositions: [base + 1, base + 4],
    encoding: { kind: 'rope', xposScaleBase: 512 }, returnScores: true }).scores;
  assert.ok(maxAbsDiff(run(0), run(300)) < 1e-5);
});

test('ropeConfigFromHF validates eagerly and names the config.json key, on every fixture and mutations of each', async () => {
  const pe = await load();
  // rotary configs only: Bloom's and MPT's (ALiBi, for attentionConfigFromHF) have no rotary setup to read
  const names = readdirSync(new URL('../fixtures/hf/', import.meta.url)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5))
    .filter((n) => !['bloom', 'mpt'].includes(fixture(n).model_type))
    .filter((n) => !fixture(n).text_config?.model_type?.startsWith('gemma3'));  // two tables: layerType needed (attention-plan.test.mjs reads each)
  assert.ok(names.length >= 11);
  for (const name of names) {
    const cfg = fixture(name);
    const ok = pe.ropeConfigFromHF(cfg);  // every fixture as published reads, and its frequencies compute
    assert.ok(pe.ropeFrequencies({ ...ok, seqLen: 1 }).invFreq.every(Number.isFinite), name);
    const inner = cfg.hidden_size === undefined && cfg.n_embd === undefined && cfg.text_config ? cfg.text_config : cfg;
    const holder = inner.rope_parameters?.rope_theta !== undefined ? ['rope_parameters', inner.rope_parameters] : ['', inner];
    const fixedBase = ['gptj', 'codegen'].includes(inner.model_type);
    if (fixedBase) {
      // GPT-J's code fixes base 10000 and never reads rope_theta: any value is ignored and listed
      for (const bad of [-1, 0, 1, 'abc', [1]]) {
        const got = pe.ropeConfigFromHF({ ...cfg, rope_theta: bad });
        assert.equal(got.base, 10000);
        assert.deepEqual(got.ignored.map((i) => i.key), ['config.rope_theta'], `${name} rope_theta ${bad}`);
      }
    }
    for (const bad of fixedBase ? [] : [-1, 0, 1, NaN, Infinity]) {
      const m = structuredClone(cfg);
      const target = holder[0] ? (m.text_config && inner === cfg.text_config ? m.text_config : m)[holder[0]] : (inner === cfg.text_config ? m.text_config : m);
      target.rope_theta = bad;
      assert.throws(() => pe.ropeConfigFromHF(m), (e) => e instanceof RangeError && /rope_theta/.test(e.message), `${name} rope_theta ${bad}`);
    }
    for (const bad of fixedBase ? [] : ['abc', null, [1], { a: 1 }]) {
      const m = structuredClone(cfg);
      (inner === cfg.text_config ? m.text_config : m).rope_theta = bad;
      if (holder[0]) delete (inner === cfg.text_config ? m.text_config : m).rope_parameters.rope_theta;
      assert.throws(() => pe.ropeConfigFromHF(m), (e) => (e instanceof TypeError || e instanceof RangeError) && /rope_theta/.test(e.message), `${name} rope_theta ${bad}`);
    }
    for (const bad of [2, -0.5, 0, 'half']) {
      const m = structuredClone(cfg);
      (inner === cfg.text_config ? m.text_config : m).partial_rotary_factor = bad;
      assert.throws(() => pe.ropeConfigFromHF(m), (e) => (e instanceof TypeError || e instanceof RangeError) && /partial_rotary_factor/.test(e.message), `${name} partial_rotary_factor ${bad}`);
    }
    const scaling = inner.rope_scaling ?? inner.rope_parameters;
    if (scaling && (scaling.rope_type ?? scaling.type) && !['default', 'mrope'].includes(scaling.rope_type ?? scaling.type) && scaling.factor !== undefined) {
      const key = inner.rope_scaling ? 'rope_scaling' : 'rope_parameters';
      for (const bad of ['two', 0.5, -1, NaN]) {
        const m = structuredClone(cfg);
        (inner === cfg.text_config ? m.text_config : m)[key].factor = bad;
        assert.throws(() => pe.ropeConfigFromHF(m), (e) => (e instanceof TypeError || e instanceof RangeError) && new RegExp(`${key}\\.factor`).test(e.message), `${name} factor ${bad}`);
      }
    }
  }
  // the cases a user pasting configs from the internet meets, each naming the key to fix
  const base = { head_dim: 64, max_position_embeddings: 4096 };
  assert.throws(() => pe.ropeConfigFromHF({ ...base, rope_scaling: { rope_type: 'linear' } }), /config\.rope_scaling\.factor is required/);
  assert.throws(() => pe.ropeConfigFromHF({ ...base, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 0 } }),
    /config\.rope_scaling\.original_max_position_embeddings/);
  assert.throws(() => pe.ropeConfigFromHF({ ...base, rope_scaling: { rope_type: 'wat', factor: 2 } }), /one of 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'/);
});

test('ropeConfigFromHF is the C++ reader: model families, Qwen3-VL interleaved M-RoPE, layer types, YaRN factor rule, error types', () => {
  // Cohere pairs (2i, 2i+1) (repeat_interleave in modeling_cohere.py); StableLM-epoch's rope_pct is read
  assert.equal(pe.ropeConfigFromHF({ model_type: 'cohere', hidden_size: 8192, num_attention_heads: 64, rope_theta: 8e6 }).layout, 'interleaved');
  const epoch = pe.ropeConfigFromHF({ model_type: 'stablelm_epoch', hidden_size: 2560, num_attention_heads: 32, rope_pct: 0.25 });
  assert.equal(pe.ropeFrequencies(epoch).rotaryDim, 20);
  // Qwen3-VL: pair k follows h when k % 3 == 1 and k < 60, w when k % 3 == 2 and k < 60, else t (apply_interleaved_mrope)
  const q3 = pe.ropeConfigFromHF({ model_type: 'qwen3_vl', text_config: { model_type: 'qwen3_vl_text', hidden_size: 4096, num_attention_heads: 32,
    head_dim: 128, rope_theta: 5000000, rope_scaling: { rope_type: 'default', mrope_section: [24, 20, 20], mrope_interleaved: true } } });
  assert.deepEqual(q3, { headDim: 128, base: 5000000, layout: 'half', multiAxis: 'mrope', sections: [24, 20, 20], mropeInterleaved: true });
  const f = pe.ropeFrequencies(q3);
  assert.deepEqual(Array.from(f.axisOfPair), Array.from({ length: 64 }, (_, k) => (k % 3 === 1 && k < 60 ? 1 : k % 3 === 2 && k < 60 ? 2 : 0)));
  // applyRope with [axes, tokens] positions turns pair k by its own axis's position
  const x = randomFloats(128, 41), pos = [3, 11, 29];
  const y = pe.applyRope(x, { heads: 1, tokens: 1, headDim: 128 }, pos, q3);
  for (let k = 0; k < 64; k++) {
    const a = pos[f.axisOfPair[k]] * f.invFreq[k];
    assert.ok(Math.abs(y[k] - (x[k] * Math.cos(a) - x[k + 64] * Math.sin(a))) < 2e-6, `pair ${k}`);
  }
  // Gemma 3: one table per layer type; without layerType, an error listing them
  const gemma = { model_type: 'gemma3_text', hidden_size: 2560, num_attention_heads: 8, head_dim: 256, rope_theta: 1e6,
    rope_local_base_freq: 10000, rope_scaling: { rope_type: 'linear', factor: 8 } };
  assert.throws(() => pe.ropeConfigFromHF(gemma), (e) => e instanceof RangeError && /'full_attention', 'sliding_attention'/.test(e.message));
  assert.deepEqual(pe.ropeConfigFromHF(gemma, { layerType: 'full_attention' }), { headDim: 256, base: 1e6, layout: 'half', scaling: { type: 'linear', factor: 8 } });
  assert.deepEqual(pe.ropeConfigFromHF(gemma, { layerType: 'sliding_attention' }), { headDim: 256, base: 10000, layout: 'half' });
  assert.throws(() => pe.ropeConfigFromHF(gemma, { layerType: 3 }), TypeError);
  assert.throws(() => pe.ropeConfigFromHF(gemma, { layerTpye: 'full_attention' }), (e) => e instanceof TypeError && /did you mean 'layerType'/.test(e.message));
  // transformers 4.46-4.50 replaced YaRN's factor by max / original positions
  const yarn = { hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 131072,
    rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 8192 } };
  assert.equal(pe.ropeConfigFromHF(yarn).scaling.factor, 4);
  assert.equal(pe.ropeConfigFromHF(yarn, { yarnFactor: 'legacy' }).scaling.factor, 16);
  // a wrong JSON type is a TypeError, a bad value a RangeError, a value JSON cannot hold names its path
  assert.throws(() => pe.ropeConfigFromHF({ head_dim: 64, rope_theta: 'big' }), (e) => e instanceof TypeError && e.message.includes('config.rope_theta'));
  assert.throws(() => pe.ropeConfigFromHF({ head_dim: 64, rope_scaling: { type: 'linear', factor: Infinity } }),
    (e) => e instanceof RangeError && e.message.includes('config.rope_scaling.factor must be a finite number'));
  const loop = { head_dim: 64 }; loop.self = loop;
  assert.throws(() => pe.ropeConfigFromHF(loop), (e) => e instanceof TypeError && e.message.includes('config.self'));
  assert.throws(() => pe.ropeConfigFromHF({ model_type: 'bloom', hidden_size: 64, n_head: 2 }), (e) => e instanceof RangeError && /ALiBi/.test(e.message));
});
