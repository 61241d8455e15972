// config.json excerpts for the RoPE section (field names as Hugging Face writes them; the Phi-3
// factor lists are illustrative values of the right length, not the released model's).
const phiShort = Array.from({ length: 48 }, (_, i) => +(1 + 0.004 * i).toFixed(4));
const phiLong = Array.from({ length: 48 }, (_, i) => +(1 + (i / 47) ** 2 * 45).toFixed(4));

export const PRESETS = {
  'Llama 3.1 8B (llama3)': { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, max_position_embeddings: 131072, rope_theta: 500000,
    rope_scaling: { factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  'Qwen2 7B (YaRN x4)': { model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, num_key_value_heads: 4, num_hidden_layers: 28, max_position_embeddings: 32768, rope_theta: 1000000,
    rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 32768 } },
  'DeepSeek-V3 (YaRN x40, mscale)': { model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128, num_key_value_heads: 128, num_hidden_layers: 61,
    kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128, max_position_embeddings: 163840, rope_theta: 10000,
    rope_scaling: { type: 'yarn', factor: 40, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 } },
  'Phi-3 mini 128k (longrope)': { model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, num_hidden_layers: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096, rope_theta: 10000,
    rope_scaling: { type: 'longrope', short_factor: phiShort, long_factor: phiLong } },
  'GPT-NeoX 20B (rotary_pct 0.25)': { model_type: 'gpt_neox', hidden_size: 6144, num_attention_heads: 64, num_hidden_layers: 44, max_position_embeddings: 2048, rotary_pct: 0.25, rotary_emb_base: 10000 },
  // text_config keys of meta-llama/Llama-4-Scout-17B-16E (tests/fixtures/hf): RoPE with chunked attention on three
  // layers of four, the fourth NoPE with query temperature
  'Llama 4 Scout (chunked RoPE + NoPE)': { model_type: 'llama4_text', hidden_size: 5120, num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128,
    num_hidden_layers: 48, max_position_embeddings: 262144, rope_theta: 500000, attention_chunk_size: 8192,
    attn_temperature_tuning: 4, attn_scale: 0.1, floor_scale: 8192,
    no_rope_layers: Array.from({ length: 48 }, (_, i) => (i % 4 === 3 ? 0 : 1)),
    rope_scaling: { factor: 8, high_freq_factor: 4, low_freq_factor: 1, original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  // google/gemma-3-4b-pt's text_config: five sliding-window layers (local base 10000) to one global (linear ×8)
  'Gemma 3 4B (local + global)': { model_type: 'gemma3_text', hidden_size: 2560, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256,
    num_hidden_layers: 34, max_position_embeddings: 131072, rope_theta: 1000000, rope_local_base_freq: 10000,
    sliding_window: 1024, sliding_window_pattern: 6, rope_scaling: { factor: 8, rope_type: 'linear' } },
  // Qwen/Qwen2.5-0.5B's config.json (tests/fixtures/hf), rotary and attention keys: use_mrope is written but not read
  'Qwen2.5 0.5B (an unread key)': { model_type: 'qwen2', hidden_size: 896, num_attention_heads: 14, num_key_value_heads: 2, num_hidden_layers: 24,
    max_position_embeddings: 32768, rope_theta: 1000000, sliding_window: 32768, max_window_layers: 24, use_sliding_window: false, use_mrope: false },
  'Mistral 7B v0.2': { model_type: 'mistral', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, num_hidden_layers: 32, max_position_embeddings: 32768, rope_theta: 1000000 },
};
