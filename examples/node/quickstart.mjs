import { load } from 'posenc';
const pe = await load();                                     // the wasm module, once
const heads = 2, tokens = 4, headDim = 8, n = heads * tokens * headDim;
const q = Float32Array.from({ length: n }, (_, i) => Math.sin(i)), k = q.map((x) => x / 2), v = q.slice();
const rope = pe.ropeConfigFromHF({ model_type: 'llama', hidden_size: 16, num_attention_heads: 2, rope_theta: 10000 });
const qRot = pe.applyRope(q, { heads, tokens, headDim }, [0, 1, 2, 3], rope);  // rotated copy of q
const { out } = pe.attention({ q, k, v, heads, headDim, qLen: tokens, kLen: tokens, causal: true,
  encoding: { ...rope, kind: 'rope' } });                    // RoPE applied inside attention
const bias = pe.attentionBias({ kind: 'alibi', heads }, [0, 1, 2, 3], [0, 1, 2, 3]);  // [heads, 4, 4]
console.log(qRot.length, out.length, bias[4]);               // 64 64 -0.0625
