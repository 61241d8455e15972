// The per-family cases of pe.attentionConfigFromHF: published config.json files (tests/fixtures/hf,
// SOURCES.md), one or more layers each (one of each layer type), random q/k/v at the config's real head counts
// and head dims, run through pe.attention and through a KVCache (one prefill append, then decode steps), against
// the float64 reference written from each family's transformers code (web/plan-reference.mjs, which the demo page runs too).
// Used by tests/node/attention-plan.test.mjs and scripts/plan-table.mjs (the README table).
import { readFileSync } from 'node:fs';
import { layerSpec, referenceRows } from '../../web/plan-reference.mjs';

export const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/hf/${name}.json`, import.meta.url), 'utf8'));

// group: the README row (cases in README order); family: the test's name; fixture: tests/fixtures/hf/<fixture>.json; layers: indices (one per layer type);
// kLen: keys (raised past the window or the chunk); amp: q/k amplitude (Gemma 2's logits reach its cap);
// mrope: M-RoPE positions that differ per axis.
export const CASES = [
  { group: 'Llama', family: 'Llama 2', fixture: 'llama-2-7b', layers: [0] },
  { group: 'Llama', family: 'Llama 3', fixture: 'llama-3-8b', layers: [31] },
  { group: 'Llama', family: 'Llama 3.1 (llama3 scaling)', fixture: 'llama-3.1-8b', layers: [5], kLen: 40, positionOffset: 9000 },
  { group: 'Llama', family: 'Llama 3.2 1B (llama3 ×32, head_dim 64)', fixture: 'llama-3.2-1b', layers: [15], positionOffset: 70000 },
  { group: 'Llama', family: 'Llama 4 Scout (chunked, NoPE, temperature)', fixture: 'llama-4-scout-17b-16e', layers: [0, 3], positionOffset: 8180 },
  { group: 'Mistral, Mixtral, Ministral 3', family: 'Mistral 7B v0.1 (sliding window)', fixture: 'mistral-7b-v0.1', layers: [0] },
  { group: 'Mistral, Mixtral, Ministral 3', family: 'Mistral 7B v0.2', fixture: 'mistral-7b', layers: [0] },
  { group: 'Mistral, Mixtral, Ministral 3', family: 'Mixtral 8x7B', fixture: 'mixtral-8x7b', layers: [31] },
  { group: 'Mistral, Mixtral, Ministral 3', family: 'Ministral 3 (temperature)', fixture: 'ministral-3-8b', layers: [2], positionOffset: 40000 },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen2 (YaRN)', fixture: 'qwen2-7b-yarn', layers: [3] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen2.5', fixture: 'qwen2.5-0.5b', layers: [23] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen3 4B (head_dim ≠ hidden / heads)', fixture: 'qwen3-4b', layers: [35] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen3 30B-A3B (qwen3_moe)', fixture: 'qwen3-30b-a3b', layers: [47] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen1.5-MoE (qwen2_moe)', fixture: 'qwen1.5-moe-a2.7b', layers: [0] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen2-VL 7B (M-RoPE)', fixture: 'qwen2-vl-7b', layers: [0] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen2.5-VL 7B (M-RoPE)', fixture: 'qwen2.5-vl-7b', layers: [27] },
  { group: 'Qwen2, Qwen2.5, Qwen3 (+ MoE, VL: M-RoPE)', family: 'Qwen3-VL 8B (interleaved M-RoPE)', fixture: 'qwen3-vl-8b', layers: [0] },
  { group: 'Gemma 1, 2, 3', family: 'Gemma 7B', fixture: 'gemma-7b', layers: [0] },
  { group: 'Gemma 1, 2, 3', family: 'Gemma 2 2B (softcap, scalar, sliding)', fixture: 'gemma-2-2b-it', layers: [0, 1], amp: 6 },
  { group: 'Gemma 1, 2, 3', family: 'Gemma 2 27B (query_pre_attn_scalar 144 ≠ head_dim 128)', fixture: 'gemma-2-27b', layers: [2, 3], amp: 6 },
  { group: 'Gemma 1, 2, 3', family: 'Gemma 3 12B (local/global tables)', fixture: 'gemma-3-12b', layers: [0, 5] },
  { group: 'gpt-oss', family: 'gpt-oss 20B (sinks, sliding)', fixture: 'gpt-oss-20b', layers: [0, 1] },
  { group: 'Cohere, Cohere2, EXAONE 4', family: 'Command R (Cohere, interleaved)', fixture: 'command-r-v01', layers: [0] },
  { group: 'Cohere, Cohere2, EXAONE 4', family: 'Command R7B (Cohere2: sliding RoPE, global NoPE)', fixture: 'command-r7b', layers: [0, 3] },
  { group: 'Cohere, Cohere2, EXAONE 4', family: 'EXAONE 4.0 32B (sliding RoPE, global NoPE)', fixture: 'exaone-4.0-32b', layers: [0, 3] },
  { group: 'Granite, OLMo 2, GLM-4, InternLM2, SmolLM2, SmolLM3', family: 'Granite 4.1 3B (attention_multiplier)', fixture: 'granite-4.1-3b', layers: [39] },
  { group: 'Granite, OLMo 2, GLM-4, InternLM2, SmolLM2, SmolLM3', family: 'SmolLM2 (Llama rules)', fixture: 'smollm2-135m', layers: [1] },
  { group: 'Granite, OLMo 2, GLM-4, InternLM2, SmolLM2, SmolLM3', family: 'SmolLM3 3B (NoPE every 4th layer)', fixture: 'smollm3-3b', layers: [2, 3] },
  { group: 'Granite, OLMo 2, GLM-4, InternLM2, SmolLM2, SmolLM3', family: 'OLMo 2 7B', fixture: 'olmo-2-7b', layers: [0] },
  { group: 'Granite, OLMo 2, GLM-4, InternLM2, SmolLM2, SmolLM3', family: 'GLM-4 9B (partial interleaved)', fixture: 'glm-4-9b', layers: [39] },
  { group: 'Granite, OLMo 2, GLM-4, InternLM2, SmolLM2, SmolLM3', family: 'InternLM2 chat 1.8B (dynamic NTK, remote code)', fixture: 'internlm2-chat-1.8b', layers: [0] },
  { group: 'Phi-3, Phi-4-mini', family: 'Phi-3 mini 128k (longrope)', fixture: 'phi-3-mini-128k', layers: [7] },
  { group: 'Phi-3, Phi-4-mini', family: 'Phi-4-mini (partial rotary 0.75)', fixture: 'phi-4-mini', layers: [0] },
  { group: 'GPT-NeoX, GPT-J, StableLM, Falcon, Persimmon, Fuyu', family: 'GPT-NeoX 20B (partial rotary)', fixture: 'gpt-neox-20b', layers: [0] },
  { group: 'GPT-NeoX, GPT-J, StableLM, Falcon, Persimmon, Fuyu', family: 'GPT-J 6B (interleaved, rotary_dim 64)', fixture: 'gpt-j-6b', layers: [27] },
  { group: 'GPT-NeoX, GPT-J, StableLM, Falcon, Persimmon, Fuyu', family: 'StableLM 3B 4E1T (remote code)', fixture: 'stablelm-3b-4e1t', layers: [0] },
  { group: 'GPT-NeoX, GPT-J, StableLM, Falcon, Persimmon, Fuyu', family: 'Falcon 7B (multi-query, 71 heads)', fixture: 'falcon-7b', layers: [0] },
  { group: 'GPT-NeoX, GPT-J, StableLM, Falcon, Persimmon, Fuyu', family: 'Persimmon 8B (partial rotary 0.5)', fixture: 'persimmon-8b', layers: [0] },
  { group: 'GPT-NeoX, GPT-J, StableLM, Falcon, Persimmon, Fuyu', family: 'Fuyu 8B (Persimmon text model)', fixture: 'fuyu-8b', layers: [35] },
  { group: 'Bloom, MPT (ALiBi)', family: 'Bloom 560M (ALiBi)', fixture: 'bloom-560m', layers: [0] },
  { group: 'Bloom, MPT (ALiBi)', family: 'Bloom 176B (ALiBi, 112 heads)', fixture: 'bloom-176b', layers: [69], kLen: 24 },
  { group: 'Bloom, MPT (ALiBi)', family: 'MPT 7B (ALiBi)', fixture: 'mpt-7b-instruct', layers: [0] },
  { group: 'DeepSeek V2, V3 (MLA)', family: 'DeepSeek-V2-Lite (MLA, YaRN ×40, mscale 0.707)', fixture: 'deepseek-v2-lite', layers: [26], positionOffset: 5000 },
  { group: 'DeepSeek V2, V3 (MLA)', family: 'DeepSeek-V3 (MLA, YaRN ×40, mscale 1)', fixture: 'deepseek-v3', layers: [0], kLen: 16 },
];

// Deterministic floats in [-amp, amp) (xorshift32).
function randoms(n, seed, amp) {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * amp;
  }
  return out;
}

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

// [heads, T, hd] rows t0 .. t1 - 1 of a [heads, T, hd] tensor.
function tokens(x, heads, T, hd, t0, t1) {
  const out = new Float32Array(heads * (t1 - t0) * hd);
  for (let h = 0; h < heads; h++) out.set(x.subarray((h * T + t0) * hd, (h * T + t1) * hd), h * (t1 - t0) * hd);
  return out;
}

// One layer of a case: the plan, and the largest |posenc - reference| through attention and through the cache.
export function runLayer(pe, c, layer) {
  const config = fixture(c.fixture);
  const plan = pe.attentionConfigFromHF(config, { layer });
  const spec = layerSpec(config, layer);
  const { heads, kvHeads, headDim: hd } = spec, vd = spec.valueDim ?? hd;
  const qLen = 3, steps = 3;
  const reach = Math.max(spec.window, spec.chunk);
  const kLen = Math.max(c.kLen ?? 32, reach ? reach + qLen + steps + 5 : 0);
  const P = kLen - steps;                 // the cache's prefill
  const Q = qLen + steps;                 // query tokens: P - qLen .. kLen - 1
  const q0 = P - qLen;
  const amp = c.amp ?? 1.5, seed = layer * 7919 + c.fixture.length;
  const q = randoms(heads * Q * hd, seed + 1, amp), k = randoms(kvHeads * kLen * hd, seed + 2, amp), v = randoms(kvHeads * kLen * vd, seed + 3, 1);
  const sinkLogits = spec.sinks ? randoms(heads, seed + 4, 3) : undefined;
  const extra = plan.requires.includes('sinkLogits') ? { sinkLogits } : {};
  const off = c.positionOffset ?? 0;  // positions start here (a window or chunk boundary, a temperature step)
  const positions = Array.from({ length: kLen }, (_, i) => off + i);
  // M-RoPE: a (t, h, w) position per token that differs per axis, as an image's tokens have; the masks use the
  // sequence index (Hugging Face masks by cache position)
  const mrope = Boolean(spec.rope?.mrope);
  const axisPos = (j) => [j, j + (j % 5), j + 2 * (j % 3)];
  const rot = (from, to) => (mrope ? [0, 1, 2].flatMap((a) => positions.slice(from, to).map((p) => axisPos(p)[a])) : positions.slice(from, to));
  const seqOf = (from, to) => (mrope ? { maskPositions: positions.slice(from, to) } : {});
  const t = { q, qTokens: Q, k, v, kTokens: kLen, sinkLogits,
    qPos: (i) => (mrope ? axisPos(off + q0 + i) : off + q0 + i), kPos: (j) => (mrope ? axisPos(off + j) : off + j),
    qSeq: (i) => off + q0 + i, kSeq: (j) => off + j };

  // pe.attention: the last qLen queries over every key
  const att = pe.attention({ q: tokens(q, heads, Q, hd, Q - qLen, Q), k, v, qLen, kLen, kPositions: rot(0, kLen),
    qPositions: rot(kLen - qLen, kLen), ...seqOf(0, kLen), ...plan.attention, ...extra });
  const wantAtt = referenceRows(spec, t, [Q - qLen, Q - qLen + 1, Q - qLen + 2], kLen);
  const attention = maxDiff(att.out, wantAtt);

  // the cache: one prefill append of P tokens, attend with its last qLen queries, then `steps` decode steps
  const capacity = plan.cache.window ? plan.cache.window : kLen;
  const cache = new pe.KVCache({ capacity, ...plan.cache });
  let cacheError = 0;
  try {
    cache.append(tokens(k, kvHeads, kLen, hd, 0, P), tokens(v, kvHeads, kLen, vd, 0, P), { positions: rot(0, P), ...seqOf(0, P) });
    const qAt = (from, to) => (mrope ? { qPositions: rot(from, to), ...seqOf(from, to) } : {});
    const pre = cache.attend(tokens(q, heads, Q, hd, 0, qLen), { ...plan.attend, ...extra, ...qAt(q0, P) });
    cacheError = maxDiff(pre.out, referenceRows(spec, t, [0, 1, 2], P));
    for (let s = 0; s < steps; s++) {
      const at = mrope ? { positions: rot(P + s, P + s + 1), ...seqOf(P + s, P + s + 1) } : undefined;
      cache.append(tokens(k, kvHeads, kLen, hd, P + s, P + s + 1), tokens(v, kvHeads, kLen, vd, P + s, P + s + 1), at);
      const step = cache.attend(tokens(q, heads, Q, hd, qLen + s, qLen + s + 1), { ...plan.attend, ...extra, ...qAt(P + s, P + s + 1) });
      cacheError = Math.max(cacheError, maxDiff(step.out, referenceRows(spec, t, [qLen + s], P + s + 1)));
    }
  } finally {
    cache.delete();
  }
  return { plan, spec, kLen, attention, cache: cacheError };
}

export function runCase(pe, c) {
  return c.layers.map((layer) => ({ layer, ...runLayer(pe, c, layer) }));
}
