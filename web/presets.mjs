// config.json excerpts for the RoPE section (field names as Hugging Face writes them; the Phi-3
// factor lists are illustrative values of the right length, not the released model's).
const phiShort = Array.from({ length: 48 }, (_, i) => +(1 + 0.004 * i).toFixed(4));
const phiLong = Array.from({ length: 48 }, (_, i) => +(1 + (i / 47) ** 2 * 45).toFixed(4));

export const PRESETS = {
  'Llama 3.1 8B (llama3)': { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, max_position_embeddings: 131072, rope_theta: 500000,
    rope_scaling: { factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  'Qwen2 7B (YaRN x4)': { model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, max_position_embeddings: 32768, rope_theta: 1000000,
    rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 32768 } },
  'DeepSeek-V3 (YaRN x40, mscale)': { model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128, qk_rope_head_dim: 64, max_position_embeddings: 163840, rope_theta: 10000,
    rope_scaling: { type: 'yarn', factor: 40, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 } },
  'Phi-3 mini 128k (longrope)': { model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096, rope_theta: 10000,
    rope_scaling: { type: 'longrope', short_factor: phiShort, long_factor: phiLong } },
  'GPT-NeoX 20B (rotary_pct 0.25)': { model_type: 'gpt_neox', hidden_size: 6144, num_attention_heads: 64, max_position_embeddings: 2048, rotary_pct: 0.25, rotary_emb_base: 10000 },
  'Mistral 7B v0.2': { model_type: 'mistral', hidden_size: 4096, num_attention_heads: 32, head_dim: 128, max_position_embeddings: 32768, rope_theta: 1000000 },
};
