// Float64 references of one decoder layer's attention, per model family, written from Hugging Face
// transformers' own code — never from posenc. Source: transformers at commit c49429ed1f (2026-08-16),
// src/transformers/; `file:line` below points into it (modeling_rope_utils.py, models/<type>/modeling_<type>.py,
// models/<type>/configuration_<type>.py, masking_utils.py). Bloom's and MPT's slopes, Llama 4's and Ministral 3's
// temperatures and Gemma's scalars are each the formula of the cited line, in float64.
//
// layerSpec(config, layer) reads a config.json object the way the family's code does and says what layer
// `layer` computes; referenceRows(spec, tensors, queries, keyCount) runs it. Used by tests/node/attention-plan.test.mjs
// (every family's published config) and by the demo page's config box (one layer of the pasted config, live).

// --- frequency schedules (modeling_rope_utils.py) ------------------------------------------------------
const arangePairs = (dim) => Array.from({ length: dim / 2 }, (_, i) => (2 * i) / dim);

// _compute_default_rope_parameters: inv_freq = 1 / base^(2i/dim) (modeling_rope_utils.py:184).
const defaultInvFreq = (base, dim) => arangePairs(dim).map((e) => 1 / base ** e);

// _compute_linear_scaling_rope_parameters: inv_freq / factor.
const linearInvFreq = (base, dim, factor) => defaultInvFreq(base, dim).map((w) => w / factor);

// _compute_llama3_parameters (modeling_rope_utils.py:642-661): three wavelength bands.
function llama3InvFreq(base, dim, p) {
  const { factor, low_freq_factor: lo, high_freq_factor: hi, original_max_position_embeddings: L } = p;
  const lowWave = L / lo, highWave = L / hi;
  return defaultInvFreq(base, dim).map((w) => {
    const wave = (2 * Math.PI) / w;
    if (wave < highWave) return w;
    if (wave > lowWave) return w / factor;
    const smooth = (L / wave - lo) / (hi - lo);
    return (1 - smooth) * (w / factor) + smooth * w;
  });
}

// _compute_yarn_parameters (modeling_rope_utils.py:412-483): ramp between interpolation and extrapolation;
// attention factor 0.1 mscale ln(factor) + 1 (a ratio when mscale and mscale_all_dim are both set).
function yarn(base, dim, p, maxPositions) {
  const factor = p.factor ?? maxPositions / p.original_max_position_embeddings;
  const getMscale = (s, m = 1) => (s <= 1 ? 1 : 0.1 * m * Math.log(s) + 1);
  let attention = p.attention_factor;
  if (attention == null) attention = p.mscale && p.mscale_all_dim ? getMscale(factor, p.mscale) / getMscale(factor, p.mscale_all_dim) : getMscale(factor);
  const betaFast = p.beta_fast || 32, betaSlow = p.beta_slow || 1, L = p.original_max_position_embeddings;
  const corr = (rot) => (dim * Math.log(L / (rot * 2 * Math.PI))) / (2 * Math.log(base));
  let low = corr(betaFast), high = corr(betaSlow);
  if (p.truncate ?? true) low = Math.floor(low), high = Math.ceil(high);
  low = Math.max(low, 0), high = Math.min(high, dim - 1);
  if (low === high) high += 0.001;
  const invFreq = arangePairs(dim).map((e, i) => {
    const extra = 1 / base ** e, inter = 1 / (factor * base ** e);
    const ramp = Math.min(1, Math.max(0, (i - low) / (high - low)));
    const extrapolation = 1 - ramp;
    return inter * (1 - extrapolation) + extra * extrapolation;
  });
  return { invFreq, attention };
}

// _compute_longrope_parameters (modeling_rope_utils.py:548-577): short factors up to the original length,
// long beyond it (dynamic_rope_update's longrope_frequency_update picks by max(position_ids) + 1, :47-70);
// attention factor sqrt(1 + ln(factor) / ln(original)) with factor = max / original when not given.
function longrope(base, dim, p, maxPositions, original, seqLen) {
  const factor = p.factor ?? maxPositions / original;
  const attention = p.attention_factor ?? (factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(original)));
  const ext = seqLen > original ? p.long_factor : p.short_factor;
  return { invFreq: arangePairs(dim).map((e, i) => 1 / (ext[i] * base ** e)), attention };
}

// The rope parameters as transformers standardises them: rope_parameters, else rope_scaling plus rope_theta
// (RotaryEmbeddingConfigMixin.standardize_rope_params), type 'default' when absent.
function schedule(params, { base, dim, maxPositions, original, seqLen }) {
  const type = params?.rope_type ?? params?.type ?? 'default';
  if (type === 'default' || type === 'mrope') return { invFreq: defaultInvFreq(base, dim), attention: 1 };
  if (type === 'linear') return { invFreq: linearInvFreq(base, dim, params.factor), attention: 1 };
  if (type === 'llama3') return { invFreq: llama3InvFreq(base, dim, params), attention: 1 };
  if (type === 'yarn') return yarn(base, dim, params, maxPositions);
  if (type === 'longrope' || type === 'su') return longrope(base, dim, params, maxPositions, original, seqLen);
  if (type === 'dynamic') {
    // _compute_dynamic_ntk_parameters (modeling_rope_utils.py:326-341): the default table until the sequence
    // passes the original length
    const L = params.original_max_position_embeddings ?? maxPositions;
    if (!(seqLen > L)) return { invFreq: defaultInvFreq(base, dim), attention: 1 };
    const b = base * ((params.factor * seqLen) / L - (params.factor - 1)) ** (dim / (dim - 2));
    return { invFreq: defaultInvFreq(b, dim), attention: 1 };
  }
  throw new Error(`reference: rope type ${type} not written`);
}

// --- ALiBi slopes ----------------------------------------------------------------------------------
// modeling_bloom.py:63-79 build_alibi_tensor: 2^(-8k/c) for the closest power of two c, then odd powers of
// the 2c base for the remaining heads.
export function bloomSlopes(heads) {
  const c = 2 ** Math.floor(Math.log2(heads));
  const base = 2 ** -(2 ** -(Math.log2(c) - 3));
  const slopes = Array.from({ length: c }, (_, k) => base ** (k + 1));
  if (c !== heads) {
    const extra = 2 ** -(2 ** -(Math.log2(2 * c) - 3));
    for (let k = 0; k < Math.min(c, heads - c); k++) slopes.push(extra ** (2 * k + 1));
  }
  return slopes;
}
// modeling_mpt.py:49-61 build_mpt_alibi_tensor (alibi_bias_max 8): 1 / 2^(k 8 / n2) over the next power of two
// n2, the odd-indexed then even-indexed ones kept when heads is not a power of two.
export function mptSlopes(heads, biasMax = 8) {
  const n2 = 2 ** Math.ceil(Math.log2(heads));
  const all = Array.from({ length: n2 }, (_, k) => 1 / 2 ** ((k + 1) * (biasMax / n2)));
  if (n2 === heads) return all;
  return [...all.filter((_, i) => i % 2 === 1), ...all.filter((_, i) => i % 2 === 0)].slice(0, heads);
}

// --- what one layer computes ---------------------------------------------------------------------
const pick = (...xs) => xs.find((x) => x !== undefined && x !== null);

// spec: { heads, kvHeads, headDim, valueDim, scale, softcap, sinks, causal, window, chunk, rope, temperature, alibi }
//   valueDim: v's channels when they differ from q.k's (DeepSeek); rope: null (NoPE) or { rotaryDim, pairs:
//   'half' | 'adjacent', attention, invFreq(seqLen), mrope, offset (the first rotated channel, DeepSeek's qk_nope_head_dim) }
//   (half: channel i with i + R/2, rotate_half; adjacent: 2i with 2i + 1, rotate_every_two / view_as_complex /
//   repeat_interleave); window: keys with q - k < window (masking_utils.py:92-99 sliding_window_overlay);
//   chunk: keys with k // chunk == q // chunk (masking_utils.py:104-111 chunked_overlay).
export function layerSpec(config, layer) {
  const c = config.text_config && config.hidden_size === undefined ? config.text_config : config;
  const type = c.model_type ?? config.model_type;
  const heads = pick(c.num_attention_heads, c.n_head, c.n_heads);
  const hidden = pick(type === 'bloom' ? c.n_embed : undefined, c.hidden_size, c.n_embd, c.d_model);
  const layers = pick(c.num_hidden_layers, c.n_layer, c.n_layers);
  if (!(layer >= 0 && layer < layers)) throw new Error(`reference: layer ${layer} of ${layers}`);
  const params = c.rope_parameters ?? c.rope_scaling ?? null;
  const s = { heads, kvHeads: pick(c.num_key_value_heads, heads), causal: true, window: 0, chunk: 0, softcap: 0, sinks: false, temperature: null, alibi: null };
  const standardRope = ({ dim, base, pairs = 'half', fraction = 1, p = params, maxPositions = c.max_position_embeddings,
    original = pick(c.original_max_position_embeddings, p?.original_max_position_embeddings) } = {}) => {
    const R = Math.trunc(dim * fraction);
    const at = (seqLen) => schedule(p, { base, dim: R, maxPositions, original, seqLen });
    return { rotaryDim: R, pairs, attention: at(0).attention, invFreq: (seqLen) => at(seqLen).invFreq, mrope: null };
  };
  const theta = (dflt) => pick(params?.rope_theta, c.rope_theta, dflt);
  const layerTypes = (fallback) => c.layer_types ?? Array.from({ length: layers }, (_, i) => fallback(i));

  switch (type) {
    case 'llama': case 'mistral': case 'mixtral': case 'qwen2': case 'qwen2_moe': case 'qwen3': case 'qwen3_moe':
    case 'olmo2': case 'granite': case 'internlm2': case 'ministral3': {
      // modeling_llama.py:226 scaling = head_dim**-0.5; rotate_half over the whole head (LlamaRotaryEmbedding).
      // internlm2 is remote code (the checkpoints' modeling_internlm2.py, read in public copies): Llama's attention
      // (q k^T / sqrt(head_dim), rotate_half), InternLM2DynamicNTKScalingRotaryEmbedding changing the base only past
      // max_position_embeddings
      s.headDim = pick(c.head_dim, type === 'qwen3' || type === 'qwen3_moe' ? 128 : undefined, hidden / heads);
      s.scale = s.headDim ** -0.5;
      s.rope = standardRope({ dim: s.headDim, base: theta(type === 'mixtral' ? 1e6 : 10000) });
      if (type === 'granite') s.scale = c.attention_multiplier ?? 1;  // modeling_granite.py:124
      if (type === 'mistral' || type === 'mixtral' || type === 'ministral3')  // modeling_mistral.py:172, modeling_mixtral.py:332
        s.window = c.sliding_window ?? 0;
      if (['qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe'].includes(type)) {
        // configuration_qwen2.py:84-93: sliding_window only with use_sliding_window, from max_window_layers on;
        // modeling_qwen2.py:193
        const w = c.use_sliding_window ? (c.sliding_window ?? 4096) : null;
        const types = layerTypes((i) => (w != null && i >= (c.max_window_layers ?? 28) ? 'sliding_attention' : 'full_attention'));
        if (types[layer] === 'sliding_attention') s.window = w;
      }
      if (type === 'ministral3') {
        // modeling_ministral3.py:105-106, 146-150: q * (1 + beta ln(1 + floor(p / original_max_position_embeddings)))
        s.temperature = { beta: params.llama_4_scaling_beta, length: params.original_max_position_embeddings, offset: 0 };
      }
      break;
    }
    case 'llama4': case 'llama4_text': {
      s.headDim = c.head_dim;
      s.scale = s.headDim ** -0.5;  // modeling_llama4.py:320
      const ropeLayers = c.no_rope_layers?.length ? c.no_rope_layers : Array.from({ length: layers }, (_, i) => Number((i + 1) % (c.no_rope_layer_interval ?? 4) !== 0));
      const useRope = Boolean(ropeLayers[layer]);  // modeling_llama4.py:326 use_rope = no_rope_layers[layer_idx]
      // view_as_complex over adjacent channel pairs (modeling_llama4.py:238-241)
      s.rope = useRope ? standardRope({ dim: s.headDim, base: theta(500000), pairs: 'adjacent' }) : null;
      // configuration_llama4.py:197-200: rope layers chunked_attention, the others full_attention
      if (useRope) s.chunk = c.attention_chunk_size ?? 8192;
      const tuning = c.attn_temperature_tuning ?? true;
      // modeling_llama4.py:367-374: NoPE layers, q * (log1p(floor((p + 1) / floor_scale)) * attn_scale + 1)
      if (!useRope && tuning) s.temperature = { beta: c.attn_scale ?? 0.1, length: c.floor_scale ?? 8192, offset: 1 };
      break;
    }
    case 'qwen2_vl': case 'qwen2_5_vl': case 'qwen3_vl': case 'qwen3_vl_text': case 'qwen3_vl_moe': case 'qwen3_vl_moe_text': {
      const v3 = type.startsWith('qwen3');
      s.headDim = pick(c.head_dim, v3 ? 128 : undefined, hidden / heads);
      s.scale = s.headDim ** -0.5;  // modeling_qwen2_vl.py:494, modeling_qwen3_vl.py:448
      s.rope = standardRope({ dim: s.headDim, base: theta(v3 ? 5e6 : 1e6) });
      // modeling_qwen2_vl.py:212-216: sections over the rotate_half cos/sin (contiguous t, h, w);
      // modeling_qwen3_vl.py:372-387 apply_interleaved_mrope: pair k to h when k % 3 == 1 and k < 3 s_h, w when
      // k % 3 == 2 and k < 3 s_w, else t
      s.rope.mrope = { sections: params?.mrope_section ?? [24, 20, 20], interleaved: v3 };
      break;
    }
    case 'gemma': case 'gemma2': case 'gemma3': case 'gemma3_text': {
      s.headDim = c.head_dim ?? 256;
      s.scale = type === 'gemma' ? s.headDim ** -0.5 : (c.query_pre_attn_scalar ?? 256) ** -0.5;  // modeling_gemma.py:237, modeling_gemma2.py:229, modeling_gemma3.py:318
      if (type === 'gemma2') s.softcap = c.attn_logit_softcapping === undefined ? 50 : (c.attn_logit_softcapping ?? 0);  // modeling_gemma2.py:245
      if (type.startsWith('gemma3')) s.softcap = c.attn_logit_softcapping ?? 0;
      let types = null;
      if (type === 'gemma2') types = layerTypes((i) => ((i + 1) % 2 ? 'sliding_attention' : 'full_attention'));
      if (type.startsWith('gemma3')) types = layerTypes((i) => ((i + 1) % (c.sliding_window_pattern ?? 6) ? 'sliding_attention' : 'full_attention'));
      const sliding = types?.[layer] === 'sliding_attention';
      if (sliding) s.window = c.sliding_window ?? 4096;  // modeling_gemma2.py:246, modeling_gemma3.py:335
      if (type.startsWith('gemma3') && sliding) {
        // configuration_gemma3.py:142-158: the sliding layers' table is default RoPE at rope_local_base_freq
        s.rope = standardRope({ dim: s.headDim, base: c.rope_local_base_freq ?? 10000, p: null });
      } else {
        s.rope = standardRope({ dim: s.headDim, base: theta(type.startsWith('gemma3') ? 1e6 : 10000) });
      }
      break;
    }
    case 'cohere': case 'cohere2': {
      s.headDim = type === 'cohere2' ? hidden / heads : pick(c.head_dim, hidden / heads);  // configuration_cohere2.py:93
      s.scale = s.headDim ** -0.5;  // modeling_cohere.py:220, modeling_cohere2.py:195
      // modeling_cohere.py:115, 175-180: frequencies repeat_interleave'd, rotate on (2i, 2i + 1)
      s.rope = standardRope({ dim: s.headDim, base: theta(10000), pairs: 'adjacent' });
      if (type === 'cohere2') {
        const types = layerTypes((i) => ((i + 1) % (c.sliding_window_pattern ?? 4) ? 'sliding_attention' : 'full_attention'));
        if (types[layer] === 'sliding_attention') s.window = c.sliding_window;
        else s.rope = null;  // modeling_cohere2.py:229-230: RoPE only where sliding_window is set
      }
      break;
    }
    case 'exaone4': {
      s.headDim = pick(c.head_dim, hidden / heads);
      s.scale = s.headDim ** -0.5;  // modeling_exaone4.py:206
      const w = c.sliding_window ?? null;
      const types = layerTypes((i) => (w != null && (i + 1) % (c.sliding_window_pattern ?? 4) !== 0 ? 'sliding_attention' : 'full_attention'));
      const sliding = types[layer] === 'sliding_attention';
      s.rope = w == null || sliding ? standardRope({ dim: s.headDim, base: theta(10000) }) : null;  // modeling_exaone4.py:241
      if (sliding) s.window = w;  // :259
      break;
    }
    case 'smollm3': {
      s.headDim = pick(c.head_dim, hidden / heads);
      s.scale = s.headDim ** -0.5;  // modeling_smollm3.py:183
      const ropeLayers = c.no_rope_layers ?? Array.from({ length: layers }, (_, i) => Number((i + 1) % (c.no_rope_layer_interval ?? 4) !== 0));
      s.rope = ropeLayers[layer] ? standardRope({ dim: s.headDim, base: theta(2000000) }) : null;
      // configuration_smollm3.py:106-113: sliding on NoPE layers when use_sliding_window
      if (c.use_sliding_window && c.sliding_window != null && !ropeLayers[layer]) s.window = c.sliding_window;
      break;
    }
    case 'gpt_oss': {
      s.headDim = c.head_dim ?? 64;
      s.scale = s.headDim ** -0.5;  // modeling_gpt_oss.py:277
      s.rope = standardRope({ dim: s.headDim, base: theta(150000) });  // _apply_rotary_emb: torch.chunk halves (:215-223)
      const types = layerTypes((i) => (i % 2 === 0 ? 'sliding_attention' : 'full_attention'));
      if (types[layer] === 'sliding_attention') s.window = c.sliding_window ?? 128;  // :292
      s.sinks = true;  // :293 sinks [heads]; eager_attention_forward :246-256 softmax(cat(scores, sinks))[..., :-1]
      break;
    }
    case 'phi3': {
      s.headDim = pick(c.head_dim, hidden / heads);
      s.scale = s.headDim ** -0.5;  // modeling_phi3.py:210
      const p = params && (p0 => (p0.type === 'su' || p0.type === 'yarn' ? { ...p0, type: 'longrope' } : p0))(params);
      s.rope = standardRope({ dim: s.headDim, base: theta(10000), fraction: pick(c.partial_rotary_factor, 1), p,
        original: pick(c.original_max_position_embeddings, p?.original_max_position_embeddings) });  // apply_rotary_pos_emb :191-196: the first rotary_dim channels
      s.window = c.sliding_window ?? 0;  // modeling_phi3.py:257, 395
      break;
    }
    case 'glm4': case 'glm': {
      s.headDim = pick(c.head_dim, 128);
      s.scale = s.headDim ** -0.5;  // modeling_glm4.py:206
      // modeling_glm4.py:179-189: cos/sin of the first half repeat_interleave'd, rotate (2i, 2i + 1) over rotary_dim
      s.rope = standardRope({ dim: s.headDim, base: theta(10000), pairs: 'adjacent', fraction: pick(c.partial_rotary_factor, 0.5) });
      break;
    }
    case 'stablelm': case 'stablelm_epoch': case 'persimmon': case 'fuyu': case 'gpt_neox': {
      s.headDim = hidden / heads;
      s.scale = s.headDim ** -0.5;  // modeling_stablelm.py:243, modeling_persimmon.py:216, modeling_gpt_neox.py:188
      // stablelm_epoch: the checkpoints' own modeling_stablelm_epoch.py (stabilityai/stablelm-3b-4e1t, remote code; read
      // in the copy github.com/Zumwaltboi68/stable-code-3b): rotary_ndims = int(head_dim * rope_pct), rotate_half over
      // them, base rope_theta, q k^T / sqrt(head_dim) (Attention._init_rope, Attention.forward)
      const fraction = type === 'gpt_neox' ? pick(c.rotary_pct, 0.25) : type === 'stablelm_epoch' ? c.rope_pct
        : pick(c.partial_rotary_factor, type === 'stablelm' ? 0.25 : 0.5);
      s.rope = standardRope({ dim: s.headDim, base: pick(c.rotary_emb_base, theta(10000)), fraction });
      break;
    }
    case 'gptj': {
      s.headDim = hidden / heads;
      s.scale = 1 / Math.sqrt(s.headDim);  // modeling_gptj.py:96, 148: attn_weights / sqrt(head_dim)
      // create_sinusoidal_positions with base 10000 over rotary_dim; rotate_every_two (modeling_gptj.py:57-67)
      s.rope = standardRope({ dim: s.headDim, base: 10000, pairs: 'adjacent', fraction: (c.rotary_dim ?? 64) / s.headDim, p: null });
      break;
    }
    case 'falcon': {
      s.headDim = hidden / heads;
      // modeling_falcon.py:251: kv heads num_kv_heads (new_decoder_architecture), 1 with multi_query, else heads
      s.kvHeads = c.new_decoder_architecture ? c.num_kv_heads : c.multi_query ? 1 : heads;
      s.scale = 1 / Math.sqrt(s.headDim);  // :354
      s.rope = standardRope({ dim: s.headDim, base: theta(10000) });
      break;
    }
    case 'bloom': {
      s.headDim = hidden / heads;
      s.scale = 1 / Math.sqrt(s.headDim);  // modeling_bloom.py:186, 270-274: alibi + q k^T / sqrt(head_dim)
      s.rope = null;
      const m = bloomSlopes(heads);
      s.alibi = (h, j) => m[h] * j;  // :86-88: slope * (cumsum(mask) - 1), the key's index
      break;
    }
    case 'mpt': {
      s.headDim = hidden / heads;
      s.scale = c.attn_config?.softmax_scale ?? 1 / Math.sqrt(hidden / heads);  // modeling_mpt.py:76-78
      s.rope = null;
      const m = mptSlopes(heads);
      s.alibi = (h, j, kLen) => m[h] * (j - (kLen - 1));  // :49, 61 and :112-119: the last key_length columns
      break;
    }
    case 'deepseek_v2': case 'deepseek_v3': {
      // multi-head latent attention, per head (modeling_deepseek_v3.py DeepseekV3Attention.forward :428-466,
      // modeling_deepseek_v2.py likewise): q and k heads of qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
      // (configuration_deepseek_v3.py:123), the last qk_rope_head_dim channels rotated (query_states = cat(q_pass, q_rot),
      // key_states = [k_nope, k_rot]), values of v_head_dim; every head its own k and v (expand_kv)
      const nope = c.qk_nope_head_dim, ropeDim = c.qk_rope_head_dim;
      s.headDim = nope + ropeDim;
      s.valueDim = c.v_head_dim;
      // yarn_apply_mscale (modeling_deepseek_v3.py:279-286, modeling_deepseek_v2.py:289-296)
      s.scale = s.headDim ** -0.5;
      const ropeType = params?.rope_type ?? params?.type ?? 'default';
      if (ropeType !== 'default' && params.mscale_all_dim) {
        const m = params.factor <= 1 ? 1 : 0.1 * params.mscale_all_dim * Math.log(params.factor) + 1;
        s.scale *= m * m;
      }
      // the rope head is a table of its own (configuration_deepseek_v3.py:124 head_dim = qk_rope_head_dim); V2's
      // apply_rotary_emb rotates view_as_complex pairs (2i, 2i + 1) (modeling_deepseek_v2.py:267-280), V3's
      // apply_rotary_pos_emb_interleave the same pairs when rope_interleave (default true), rotate_half otherwise
      // (:454-457; the interleaved path writes its result de-interleaved, the same permutation on q and k, so q.k is
      // that of the pairs (2i, 2i + 1))
      const adjacent = type === 'deepseek_v2' || (c.rope_interleave ?? true);
      s.rope = { ...standardRope({ dim: ropeDim, base: theta(10000), pairs: adjacent ? 'adjacent' : 'half' }), offset: nope };
      break;
    }
    default:
      throw new Error(`reference: no rules written for model_type ${type}`);
  }
  return s;
}

// --- running it ------------------------------------------------------------------------------------
// Rotates one head row (float64) at position p (or [t, h, w] with M-RoPE), as the family pairs channels.
function rotate(row, rope, pos, invFreq) {
  const y = Array.from(row), R = rope.rotaryDim, half = R / 2;
  for (let i = 0; i < half; i++) {
    let p = pos;
    if (rope.mrope) {
      const [st, sh, sw] = rope.mrope.sections;
      const axis = rope.mrope.interleaved
        ? (i % 3 === 1 && i < 3 * sh ? 1 : i % 3 === 2 && i < 3 * sw ? 2 : 0)
        : (i < st ? 0 : i < st + sh ? 1 : 2);
      p = pos[axis];
    }
    const o = rope.offset ?? 0;
    const a = o + (rope.pairs === 'half' ? i : 2 * i), b = o + (rope.pairs === 'half' ? i + half : 2 * i + 1);
    const cos = Math.cos(p * invFreq[i]) * rope.attention, sin = Math.sin(p * invFreq[i]) * rope.attention;
    y[a] = row[a] * cos - row[b] * sin;
    y[b] = row[b] * cos + row[a] * sin;
  }
  return y;
}

// Output rows [heads, queries.length, valueDim] (valueDim = headDim unless the spec says) for query rows `queries` (indices into q's token axis, with
// their positions) over keys 0 .. keyCount - 1 of k / v.
//   t: { q, qTokens, k, v ([kvHeads, kTokens, valueDim]), kTokens, qPos(i) -> position (or [t, h, w]), kPos(j), seq(i) / seq(j) -> sequence index
//        for the masks (defaults to the position), sinkLogits, seqLen for longrope / dynamic }
export function referenceRows(spec, t, queries, keyCount) {
  const { heads, kvHeads, headDim: hd } = spec, vd = spec.valueDim ?? hd;
  const group = heads / kvHeads;
  const invFreq = spec.rope ? spec.rope.invFreq(t.seqLen ?? 0) : null;
  const out = new Float64Array(heads * queries.length * vd);
  const qSeq = t.qSeq ?? t.qPos, kSeq = t.kSeq ?? t.kPos;
  // rotated keys, once per kv head
  const keys = [];
  for (let g = 0; g < kvHeads; g++) {
    const rows = [];
    for (let j = 0; j < keyCount; j++) {
      const row = t.k.subarray((g * t.kTokens + j) * hd, (g * t.kTokens + j + 1) * hd);
      rows.push(spec.rope ? rotate(row, spec.rope, t.kPos(j), invFreq) : Array.from(row));
    }
    keys.push(rows);
  }
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / group);  // repeat_kv
    queries.forEach((qi, r) => {
      let qrow = Array.from(t.q.subarray((h * t.qTokens + qi) * hd, (h * t.qTokens + qi + 1) * hd));
      if (spec.rope) qrow = rotate(qrow, spec.rope, t.qPos(qi), invFreq);
      if (spec.temperature) {
        const { beta, length, offset } = spec.temperature;
        const p = qSeq(qi);
        qrow = qrow.map((x) => x * (1 + beta * Math.log(1 + Math.floor((p + offset) / length))));
      }
      const logits = [], allowed = [];
      const pq = qSeq(qi);
      for (let j = 0; j < keyCount; j++) {
        const pk = kSeq(j);
        let ok = !spec.causal || pk <= pq;
        if (spec.window) ok = ok && pq - pk < spec.window;
        if (spec.chunk) ok = ok && Math.floor(pk / spec.chunk) === Math.floor(pq / spec.chunk);
        let sc = 0;
        for (let c = 0; c < hd; c++) sc += qrow[c] * keys[g][j][c];
        sc *= spec.scale;
        if (spec.alibi) sc += spec.alibi(h, j, keyCount);
        if (spec.softcap) sc = spec.softcap * Math.tanh(sc / spec.softcap);
        logits.push(sc);
        allowed.push(ok);
      }
      let m = -Infinity;
      logits.forEach((x, j) => { if (allowed[j]) m = Math.max(m, x); });
      if (spec.sinks) m = Math.max(m, t.sinkLogits[h]);
      let den = spec.sinks ? Math.exp(t.sinkLogits[h] - m) : 0;
      const w = logits.map((x, j) => (allowed[j] ? Math.exp(x - m) : 0));
      w.forEach((x) => { den += x; });
      const o = out.subarray((h * queries.length + r) * vd, (h * queries.length + r + 1) * vd);
      for (let j = 0; j < keyCount; j++) {
        if (!w[j]) continue;
        const p = w[j] / den;
        for (let c = 0; c < vd; c++) o[c] += p * t.v[(g * t.kTokens + j) * vd + c];
      }
    });
  }
  return out;
}
