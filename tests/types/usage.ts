// Compiled (not run) by tests/node/types.test.mjs: the hand-written declarations must accept the
// documented calls and reject wrong ones (the @ts-expect-error lines).
import { load, type Posenc, type KVCache, type Encoding } from 'posenc';

async function main(): Promise<void> {
  const pe: Posenc = await load();
  const table: Float32Array = pe.sinusoidal([0, 1, 2], { dim: 8, layout: 'concat' });
  const f = pe.ropeFrequencies({ headDim: 128, base: 500000, scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 } });
  const r: number = f.rotaryDim + f.attentionScale + f.invFreq[0];
  const cfg = pe.ropeConfigFromHF({ hidden_size: 4096, num_attention_heads: 32 });
  const notes: readonly string[] = cfg.warnings ?? [];
  pe.ropeConfigFromHF({ model_type: 'new_model', hidden_size: 64, num_attention_heads: 2 }, { unknownModelType: 'generic', strict: true });
  // @ts-expect-error: unknownModelType is 'error' or 'generic'
  pe.ropeConfigFromHF({ model_type: 'llama' }, { unknownModelType: 'llama' });
  pe.applyRope(new Float32Array(8), { heads: 1, tokens: 1, headDim: 8 }, [0], { ...cfg, layout: 'interleaved' });
  const enc: Encoding = { kind: 't5', heads: 2, table: new Float32Array(64), bidirectional: false };
  const res = pe.attention({ q: new Float32Array(16), k: new Float32Array(16), v: new Float32Array(16), heads: 2, headDim: 8, qLen: 1, kLen: 1, encoding: enc, returnWeights: true });
  const w: Float32Array | undefined = res.weights;
  const cache: KVCache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: { base: 10000 } });
  cache.append(new Float32Array(8), new Float32Array(8)).append(new Float32Array(8), new Float32Array(8), { mask: [1] });
  const next: Int32Array = cache.nextPositions();
  cache.delete();
  const buf = pe.alloc(8);
  buf.view().fill(1);
  buf[Symbol.dispose]();
  const ids: Int32Array = pe.positionIds([0, 1, 1], { style: 'roberta' });
  const g: number = pe.codeDistance(7, 8, { bits: 4, code: 'gray' });
  const grid: Float32Array = pe.resizeGrid(new Float32Array(4), { from: [2, 2], to: [3, 3], dim: 1 });
  // @ts-expect-error: layout names are fixed strings
  pe.sinusoidal([0], { dim: 8, layout: 'sideways' });
  // @ts-expect-error: dim is required
  pe.sinusoidal([0], {});
  // @ts-expect-error: encoding kinds are a closed set
  pe.attentionBias({ kind: 'magic' }, [0], [0]);
  void [table, r, w, next, ids, g, grid, notes];
}
void main;
