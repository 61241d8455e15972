// pe.attentionConfigFromHF (issue 33, items 2 and 3): for each family's published config.json, one layer of each
// layer type, random q/k/v at the real head counts and dims, through pe.attention and through a KVCache (one
// prefill append, then decode steps), held to the float64 reference written from that family's transformers code
// (web/plan-reference.mjs cites file:line of transformers c49429ed1f). The measured errors are the README's table
// (scripts/plan-table.mjs writes it; the last test holds it current).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'posenc';
import { CASES, runCase, fixture } from './plan-cases.mjs';
import { layerSpec, referenceRows } from '../../web/plan-reference.mjs';
import { planTable } from '../../scripts/plan-table.mjs';

const pe = await load();
const TOLERANCE = 2e-5;  // float32 engine against float64 over |v| <= 1
const measured = new Map();

for (const c of CASES) {
  test(`attentionConfigFromHF: ${c.family} (${c.fixture}, layers ${c.layers.join(', ')}) equals its transformers code`, () => {
    const rows = runCase(pe, c);
    measured.set(c.fixture, rows);
    for (const r of rows) {
      assert.ok(r.attention <= TOLERANCE, `layer ${r.layer}: pe.attention differs from the reference by ${r.attention}`);
      assert.ok(r.cache <= TOLERANCE, `layer ${r.layer}: the cache differs from the reference by ${r.cache}`);
    }
  });
}

test('the plan is what each family\'s code says: scale, window, chunk, NoPE, softcap, sinks', () => {
  const plan = (name, layer) => pe.attentionConfigFromHF(fixture(name), { layer });
  const g2 = plan('gemma-2-2b-it', 0);
  assert.equal(g2.attention.scale, 256 ** -0.5);
  assert.equal(g2.attention.softcap, 50);
  assert.equal(g2.attention.window, 4096);
  assert.equal(g2.attend.softcap, 50);
  assert.equal(plan('gemma-2-2b-it', 1).attention.window, undefined);
  const oss = plan('gpt-oss-20b', 0);
  assert.deepEqual(oss.requires, ['sinkLogits']);
  assert.equal(oss.attention.window, 128);
  assert.deepEqual(plan('llama-3-8b', 0).requires, []);
  const scout = plan('llama-4-scout-17b-16e', 3);
  assert.deepEqual(scout.attention.encoding, { kind: 'temperature', beta: 0.1, length: 8192, offset: 1 });
  assert.equal(scout.cache.rope, undefined);
  const chunked = plan('llama-4-scout-17b-16e', 0);
  assert.equal(chunked.attention.chunk, 8192);
  assert.equal(chunked.cache.window, 8192);
  assert.equal(chunked.attention.encoding.kind, 'rope');
  // Falcon-7B: multi_query wins over num_kv_heads (FalconConfig writes the head count there) unless new_decoder_architecture
  const falcon = fixture('falcon-7b');
  assert.equal(pe.attentionConfigFromHF({ ...falcon, num_kv_heads: 71 }, { layer: 0 }).attention.kvHeads, 1);
  assert.equal(pe.attentionConfigFromHF({ ...falcon, num_kv_heads: 71, new_decoder_architecture: true }, { layer: 0 }).attention.kvHeads, 71);
  const bloom = plan('bloom-176b', 0);
  assert.deepEqual(bloom.attention.encoding, { kind: 'alibi', heads: 112 });
  assert.equal(bloom.cache.rope, undefined);
  assert.deepEqual(bloom.attend.encoding, { kind: 'alibi', heads: 112 });
  // DeepSeek's MLA: q.k heads of qk_nope + qk_rope, the rope head from qk_nope_head_dim on, values of v_head_dim;
  // yarn_apply_mscale's mscale(40, mscale_all_dim)^2 on the scale (modeling_deepseek_v3.py:279-286)
  for (const [name, all] of [['deepseek-v3', 1], ['deepseek-v2-lite', 0.707]]) {
    const ds = plan(name, 0), m = 0.1 * all * Math.log(40) + 1;
    assert.equal(ds.attention.headDim, 192);
    assert.equal(ds.attention.valueDim, 128);
    assert.equal(ds.cache.valueDim, 128);
    assert.equal(ds.attention.encoding.rotaryOffset, 128);
    assert.equal(Math.trunc(192 * ds.attention.encoding.partialRotaryFactor), 64);
    assert.equal(ds.attention.encoding.layout, 'interleaved');
    assert.ok(Math.abs(ds.attention.scale / (192 ** -0.5 * m * m) - 1) < 1e-12, `${name}: scale ${ds.attention.scale}`);
  }
  assert.equal(pe.attentionConfigFromHF({ ...fixture('deepseek-v3'), rope_interleave: false }, { layer: 0 }).attention.encoding.layout, 'half');
});

test('Phi-3 past original_max_position_embeddings: the plan with seqLen added switches to the long factors, as HF does', () => {
  // dynamic_rope_update's longrope_frequency_update (modeling_rope_utils.py:47-70): long factors once max(position_ids) + 1 > 4096
  const config = fixture('phi-3-mini-128k'), plan = pe.attentionConfigFromHF(config, { layer: 0 });
  const spec = layerSpec(config, 0), { heads, kvHeads, headDim: hd } = spec, kLen = 24, off = 5000, seqLen = off + kLen;
  const f = (n, s) => Float32Array.from({ length: n }, (_, i) => Math.sin(s * 977 + i * 1.618) * 1.5);
  const q = f(heads * 2 * hd, 1), k = f(kvHeads * kLen * hd, 2), v = f(kvHeads * kLen * hd, 3);
  const kPositions = Array.from({ length: kLen }, (_, j) => off + j);
  const t = { q, qTokens: 2, k, v, kTokens: kLen, qPos: (i) => off + kLen - 2 + i, kPos: (j) => off + j, seqLen };
  const want = referenceRows(spec, t, [0, 1], kLen);
  const run = (encoding) => pe.attention({ q, k, v, qLen: 2, kLen, kPositions, qPositions: kPositions.slice(-2), ...plan.attention, encoding }).out;
  const diff = (a) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - want[i])), 0);
  assert.ok(diff(run({ ...plan.attention.encoding, seqLen })) <= TOLERANCE, 'with seqLen: the long factors');
  assert.ok(diff(run(plan.attention.encoding)) > 1e-3, 'without seqLen the short factors differ from HF here');
});

test('a layer past num_hidden_layers, a config posenc cannot plan, unknown options: clear errors', () => {
  const llama = fixture('llama-3-8b');
  assert.throws(() => pe.attentionConfigFromHF(llama, { layer: 32 }), (e) => e instanceof RangeError && /layer/.test(e.message) && /num_hidden_layers \(32\)/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF(llama, { layer: -1 }), (e) => e instanceof RangeError && /layer/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF(llama, {}), (e) => e instanceof TypeError && /layer/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF(llama, { layer: 0, layerTyp: 'x' }), (e) => e instanceof TypeError && /layerTyp/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF(llama, { layer: 0, layerType: 'full_attention' }), (e) => e instanceof TypeError && /layerType/.test(e.message));
  // a head count is needed (the fuzzer found a plan with 0 heads: tests/fuzz/regressions/hf_config/plan-without-heads)
  assert.throws(() => pe.attentionConfigFromHF({ model_type: 'llama', head_dim: 64, num_hidden_layers: 2 }, { layer: 0 }),
    (e) => e instanceof RangeError && /^config\.num_attention_heads is required/.test(e.message));
  const { num_hidden_layers: _, ...noLayers } = llama;
  assert.throws(() => pe.attentionConfigFromHF(noLayers, { layer: 0 }), (e) => e instanceof RangeError && /num_hidden_layers/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF({ model_type: 'falcon', hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 2, alibi: true }, { layer: 0 }),
    (e) => e instanceof RangeError && /config\.alibi/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF({ model_type: 'gpt2', n_embd: 64, n_head: 4, n_layer: 2 }, { layer: 0 }), (e) => e instanceof RangeError && /model_type/.test(e.message));
  // multi-head latent attention: sized by all three of DeepSeek's keys, planned for the model types whose code posenc follows
  const { v_head_dim: _v, ...noValueDim } = fixture('deepseek-v3');
  assert.throws(() => pe.attentionConfigFromHF(noValueDim, { layer: 0 }), (e) => e instanceof RangeError && /^config\.v_head_dim is required/.test(e.message));
  assert.throws(() => pe.attentionConfigFromHF({ ...fixture('deepseek-v3'), model_type: 'kimi_k2' }, { layer: 0, unknownModelType: 'generic' }),
    (e) => e instanceof RangeError && /^config\.qk_nope_head_dim/.test(e.message) && /'deepseek_v2' and 'deepseek_v3' only/.test(e.message));
  const emb = { ...fixture('gemma-3-12b').text_config, use_bidirectional_attention: true };
  assert.throws(() => pe.attentionConfigFromHF(emb, { layer: 0 }), (e) => e instanceof RangeError && /use_bidirectional_attention/.test(e.message));
  assert.equal(pe.attentionConfigFromHF(emb, { layer: 5 }).attention.causal, false);
});

test('the README table is the one these measurements make (node scripts/plan-table.mjs --write)', () => {
  for (const c of CASES) if (!measured.has(c.fixture)) measured.set(c.fixture, runCase(pe, c));
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const begin = readme.indexOf('<!-- plan-table:begin -->'), end = readme.indexOf('<!-- plan-table:end -->');
  assert.ok(begin >= 0 && end > begin, 'README.md has the plan-table markers');
  assert.equal(readme.slice(begin, end), planTable(measured), 'README.md plan table is stale: run node scripts/plan-table.mjs --write');
});
