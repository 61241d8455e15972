// No silent wrong readings of a config.json (issue 31): Hugging Face loads a config with a misspelt key
// or an unknown model_type's keys and ignores what it does not read, so `rope_scalling` would read as
// no scaling and `model_type: 'deepseekv3'` as a generic model with the wrong pairing. ropeConfigFromHF
// refuses both, naming what was meant, and shows everything it did ignore in an enumerable `warnings`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { load } from 'posenc';
import { PRESETS } from '../../web/presets.mjs';

const pe = await load();
const dir = new URL('../fixtures/hf/', import.meta.url);
// rotary configs only: Bloom's and MPT's (ALiBi, for attentionConfigFromHF) have no rotary setup to read
const FIXTURES = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => [f, JSON.parse(readFileSync(new URL(f, dir), 'utf8'))])
  .filter(([, c]) => !['bloom', 'mpt'].includes(c.model_type))
  .filter(([, c]) => !c.text_config?.model_type?.startsWith('gemma3'));  // two tables: layerType needed (attention-plan.test.mjs reads each)

// The object the reader reads: text_config for a multimodal config without text fields at the top.
const innerOf = (cfg) => (cfg.text_config && cfg.hidden_size === undefined && cfg.n_embd === undefined && cfg.head_dim === undefined ? cfg.text_config : cfg);
// Everything a reading returns, enumerable or not.
const reading = (cfg, options) => {
  const r = pe.ropeConfigFromHF(cfg, options);
  return JSON.stringify({ rope: { ...r }, ignored: r.ignored, temperature: r.temperature, attention: r.attention });
};
// What the model computes from a config (not the list of what was ignored), or the error.
const outcome = (cfg) => {
  try {
    const r = pe.ropeConfigFromHF(cfg);
    return JSON.stringify({ rope: { ...r, warnings: undefined }, temperature: r.temperature, attention: r.attention });
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};
const typeError = (message) => (e) => e instanceof TypeError && e.message.includes(message);

const LLAMA = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 131072, rope_theta: 500000 };
const LLAMA3 = { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 };

test('a misspelt key is a TypeError naming it and the key meant, at the top level and inside the rope parameters', () => {
  assert.throws(() => pe.ropeConfigFromHF({ ...LLAMA, rope_scalling: LLAMA3 }),
    { name: 'TypeError', message: "config: unknown key 'rope_scalling': did you mean 'rope_scaling'? (Hugging Face would load the config and ignore the key without a word)" });
  for (const [extra, message] of [
    [{ rope_thetta: 1e6 }, "config: unknown key 'rope_thetta': did you mean 'rope_theta'?"],
    [{ partial_rotary_factr: 0.5 }, "config: unknown key 'partial_rotary_factr': did you mean 'partial_rotary_factor'?"],
    [{ head_dimm: 128 }, "config: unknown key 'head_dimm': did you mean 'head_dim'?"],
    [{ max_position_embedings: 8192 }, "config: unknown key 'max_position_embedings': did you mean 'max_position_embeddings'?"],
    [{ sliding_windw: 4096 }, "config: unknown key 'sliding_windw': did you mean 'sliding_window'?"],
    [{ rope_scaling: { rope_type: 'linear', factr: 2 } }, "config.rope_scaling: unknown key 'factr': did you mean 'factor'?"],
    [{ rope_scaling: { ...LLAMA3, original_max_position_embeddings: undefined, original_max_position_embedings: 8192 } },
      "config.rope_scaling: unknown key 'original_max_position_embedings': did you mean 'original_max_position_embeddings'?"],
    [{ rope_parameters: { rope_type: 'yarn', factor: 4, orignal_max_postion_embeddings: 32768 } },
      "config.rope_parameters: unknown key 'orignal_max_postion_embeddings': did you mean 'original_max_position_embeddings'?"],
  ]) {
    const cfg = JSON.parse(JSON.stringify({ ...LLAMA, ...extra }));
    assert.throws(() => pe.ropeConfigFromHF(cfg), typeError(message), message);
    // strict says the same: a misspelling is not a key the model's code ignores
    assert.throws(() => pe.ropeConfigFromHF(cfg, { strict: true }), typeError(message), message);
  }
  // what the misspelling would have dropped: the llama3 schedule
  assert.equal(pe.ropeConfigFromHF({ ...LLAMA, rope_scaling: LLAMA3 }).scaling.type, 'llama3');
});

// For every key of a published config whose absence changes the reading, a misspelling of it is refused,
// naming it: otherwise the misspelt config would read as the config without the key.
test('every key that matters in each fixture, misspelt, is refused naming it', () => {
  const holderAt = (cfg, path) => path.split('.').slice(1).reduce((o, key) => o[key], cfg);
  const misspell = (k) => [k + k.at(-1), k.slice(0, -2) + k.at(-1) + k.at(-2)].filter((w) => w !== k);  // a letter twice; the last two swapped
  let checked = 0;
  for (const [file, cfg] of FIXTURES) {
    const top = innerOf(cfg) === cfg ? 'config' : 'config.text_config';
    const paths = [top, ...['rope_scaling', 'rope_parameters'].filter((p) => holderAt(cfg, top)[p]).map((p) => `${top}.${p}`)];
    const whole = outcome(cfg);
    for (const path of paths) {
      for (const k of Object.keys(holderAt(cfg, path))) {
        const without = structuredClone(cfg);
        delete holderAt(without, path)[k];
        if (outcome(without) === whole) continue;  // the model does not depend on this key (or it is ignored and listed)
        for (const wrong of misspell(k)) {
          const m = structuredClone(cfg), h = holderAt(m, path);
          h[wrong] = h[k];
          delete h[k];
          assert.throws(() => pe.ropeConfigFromHF(m), typeError(`${path}: unknown key '${wrong}': did you mean '${k}'?`), `${file}: ${path}.${wrong}`);
          checked++;
        }
      }
    }
  }
  assert.ok(checked >= 100, `only ${checked} misspellings checked`);
});

test('every fixture reads; what it ignores is in an enumerable warnings list, and strict says truly why it refuses', () => {
  for (const [file, cfg] of FIXTURES) {
    const r = pe.ropeConfigFromHF(cfg);
    const expected = r.ignored.map((i) => `${i.key} is ignored: ${i.reason}`);
    if (expected.length) {
      assert.deepEqual(r.warnings, expected, file);
      assert.ok(Object.keys(r).includes('warnings'), `${file}: warnings is enumerable`);
      for (const i of r.ignored) assert.ok(!/changes the rotary embedding/.test(i.reason), file);
      assert.throws(() => pe.ropeConfigFromHF(cfg, { strict: true }),
        (e) => e instanceof RangeError && e.message.startsWith(`${r.ignored[0].key} is ignored: `) && !/changes the rotary embedding/.test(e.message), file);
    } else {
      assert.equal(r.warnings, undefined, file);
      assert.equal(reading(cfg, { strict: true }), reading(cfg), file);
    }
    // the option for unknown types does not touch a known one
    assert.equal(reading(cfg, { unknownModelType: 'generic' }), reading(cfg), file);
  }
  // the three published configs with a key their model's code never reads
  const ignoredKeys = Object.fromEntries(FIXTURES.map(([f, c]) => [f, pe.ropeConfigFromHF(c).ignored.map((i) => i.key)]).filter(([, k]) => k.length));
  assert.deepEqual(ignoredKeys, { 'qwen2.5-0.5b.json': ['config.use_mrope'], 'smollm2-135m.json': ['config.rope_interleaved'],
    'stablelm-3b-4e1t.json': ['config.rotary_scaling_factor'] });
});

test('the result with its warnings passes as rope options; a copy of the warnings is an unknown option', () => {
  const [, qwen] = FIXTURES.find(([f]) => f === 'qwen2.5-0.5b.json');
  const rope = pe.ropeConfigFromHF(qwen);
  assert.deepEqual(rope.warnings, ["config.use_mrope is ignored: Hugging Face's qwen2 code does not read it"]);
  assert.ok(Object.isFrozen(rope.warnings));
  const plain = pe.ropeFrequencies({ headDim: 64, base: 1e6 });
  assert.deepEqual(pe.ropeFrequencies(rope).invFreq, plain.invFreq);
  const x = Float32Array.from({ length: 64 * 2 }, (_, i) => Math.sin(i));
  assert.deepEqual(pe.applyRope(x, { heads: 1, tokens: 2, headDim: 64 }, [3, 9], rope), pe.applyRope(x, { heads: 1, tokens: 2, headDim: 64 }, [3, 9], { base: 1e6 }));
  const q = Float32Array.from({ length: 64 }, (_, i) => Math.cos(i)), k = x, v = x;
  const att = (encoding) => pe.attention({ q, k, v, heads: 1, headDim: 64, qLen: 1, kLen: 2, encoding }).out;
  assert.deepEqual(att({ ...rope, kind: 'rope' }), att({ kind: 'rope', base: 1e6 }));
  const cache = new pe.KVCache({ kvHeads: 1, headDim: 64, capacity: 4, rope });
  cache.delete();
  assert.throws(() => pe.ropeFrequencies({ ...rope, warnings: [...rope.warnings] }),
    (e) => e instanceof TypeError && /unknown option 'warnings'/.test(e.message) && /ropeConfigFromHF's report/.test(e.message));
});

test("an unknown model_type is a TypeError naming it and the nearest known types; { unknownModelType: 'generic' } reads it as Llama", () => {
  const deepseek = { hidden_size: 7168, num_attention_heads: 128, qk_rope_head_dim: 64, rope_theta: 10000 };
  assert.throws(() => pe.ropeConfigFromHF({ ...deepseek, model_type: 'deepseekv3' }), {
    name: 'TypeError',
    message: "config.model_type 'deepseekv3' is not a model type posenc knows, and Hugging Face's AutoConfig refuses it too. Did you mean 'deepseek_v3'? " +
      "(To read it with the generic Llama rules anyway, pass unknownModelType: 'generic'.)",
  });
  // what it would have read otherwise: DeepSeek-V3 pairs (2i, 2i + 1) (rope_interleave defaults to true)
  assert.equal(pe.ropeConfigFromHF({ ...deepseek, model_type: 'deepseek_v3' }).layout, 'interleaved');
  const gemma = { hidden_size: 3584, num_attention_heads: 16, head_dim: 256, num_hidden_layers: 42 };
  assert.throws(() => pe.ropeConfigFromHF({ ...gemma, model_type: 'gemma-2' }), typeError("config.model_type 'gemma-2' is not a model type posenc knows"));
  assert.throws(() => pe.ropeConfigFromHF({ ...gemma, model_type: 'gemma-2' }), typeError("Did you mean 'gemma2'?"));
  // Gemma2Config: sliding_window 4096 on the even layers
  const g2 = pe.ropeConfigFromHF({ ...gemma, model_type: 'gemma2' }).attention;
  assert.deepEqual([g2.slidingWindow, g2.layers[0].window, g2.layers[1].window], [4096, 4096, 0]);
  assert.throws(() => pe.ropeConfigFromHF({ ...LLAMA, model_type: 'llama-3' }), typeError("config.model_type 'llama-3' is not a model type posenc knows"));
  assert.throws(() => pe.ropeConfigFromHF({ ...LLAMA, model_type: 'llama-3' }), typeError("Did you mean 'llama' or 'llama4'?"));
  assert.throws(() => pe.ropeConfigFromHF({ model_type: 'mistral3', text_config: { ...LLAMA, model_type: 'lama' } }),
    typeError("config.text_config.model_type 'lama' is not a model type posenc knows"));

  const generic = pe.ropeConfigFromHF({ ...deepseek, model_type: 'deepseekv3' }, { unknownModelType: 'generic' });
  assert.deepEqual({ ...generic }, { headDim: 64, base: 10000, layout: 'half' });  // the Llama rules, as asked: no warning
  assert.equal(pe.ropeConfigFromHF({ ...LLAMA, model_type: 'llama-3' }, { unknownModelType: 'generic', strict: true }).headDim, 128);
  // the option is checked like every option
  assert.throws(() => pe.ropeConfigFromHF(LLAMA, { unknownModelType: 'llama' }), (e) => e instanceof RangeError && /unknownModelType must be one of 'error', 'generic'/.test(e.message));
  assert.throws(() => pe.ropeConfigFromHF(LLAMA, { unknownModelTyp: 'generic' }), typeError("did you mean 'unknownModelType'?"));
});

test('a config without model_type is read with the Llama rules and says so; strict refuses it unless generic is asked for', () => {
  const { model_type: _, ...bare } = LLAMA;
  const r = pe.ropeConfigFromHF(bare);
  assert.deepEqual({ ...r, warnings: undefined }, { headDim: 128, base: 500000, layout: 'half', warnings: undefined });
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /^config\.model_type is missing, so the config is read with the generic Llama rules/);
  assert.throws(() => pe.ropeConfigFromHF(bare, { strict: true }), (e) => e instanceof RangeError && e.message.startsWith('config.model_type is missing'));
  assert.equal(pe.ropeConfigFromHF(bare, { strict: true, unknownModelType: 'generic' }).warnings, undefined);
});

test("the web page's config presets all read, with nothing to warn about but their documented unread key", () => {
  for (const [name, cfg] of Object.entries(PRESETS)) {
    const r = pe.ropeConfigFromHF(cfg, name.startsWith('Gemma 3') ? { layerType: 'full_attention' } : undefined);
    assert.deepEqual(r.warnings ?? [], name.startsWith('Qwen2.5') ? ["config.use_mrope is ignored: Hugging Face's qwen2 code does not read it"] : [], name);
  }
});
