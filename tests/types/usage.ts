// Compiled (not run) by tests/node/types.test.mjs: the hand-written declarations must accept the
// documented calls and reject wrong ones (the @ts-expect-error lines).
import { load, type Posenc, type KVCache, type Encoding, type HeapBuffer, type HfLayerType, type FloatOut } from 'posenc';

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

// Result types follow the call: a misuse below must fail to compile, and each typed variable must take
// its result as it is (no `!`, no cast).
async function exactResults(): Promise<void> {
  const pe = await load();
  const shape = { heads: 1, tokens: 1, headDim: 8 };
  const x = new Float32Array(8), buf = pe.alloc(8), out = new Float32Array(8), maybe: FloatOut = buf;

  // applyRope / rotateByDelta: a copy is a Float32Array whatever x is; inPlace returns x; out returns out
  const a1: Float32Array = pe.applyRope(x, shape, [0]);
  const a2: Float32Array = pe.applyRope(buf, shape, [0], { base: 10000 });
  const a3: HeapBuffer = pe.applyRope(buf, shape, [0], { inPlace: true });
  const a4: Float32Array = pe.applyRope(x, shape, [0], { inPlace: true });
  const a5: HeapBuffer = pe.applyRope(x, shape, [0], { out: buf });
  const a6: Float32Array = pe.applyRope([0, 1, 2, 3, 4, 5, 6, 7], shape, [0], { out });
  const d1: Float32Array = pe.rotateByDelta(x, shape, [5]);
  const d2: Float32Array = pe.rotateByDelta(buf, shape, [5]);
  const d3: HeapBuffer = pe.rotateByDelta(buf, shape, [5], { inPlace: true });
  const d4: Float32Array = pe.rotateByDelta(x, shape, [-5], { inPlace: true, layout: 'interleaved' });
  const d5: HeapBuffer = pe.rotateByDelta(x, shape, [5], { out: buf });
  const d6: FloatOut = pe.rotateByDelta(x, shape, [5], { inPlace: Math.random() > 0.5 });
  // @ts-expect-error: a copy of a HeapBuffer is a Float32Array, not a buffer
  const d7: HeapBuffer = pe.rotateByDelta(buf, shape, [5]);
  // @ts-expect-error: a number[] cannot be rotated in place, so inPlace: true does not return it
  const d8: number[] = pe.applyRope([0, 1, 2, 3, 4, 5, 6, 7], shape, [0], { inPlace: true });
  // @ts-expect-error: with inPlace decided at run time, the result may be x or a new array
  const d9: Float32Array = pe.rotateByDelta(x, shape, [5], { inPlace: Math.random() > 0.5 });
  // @ts-expect-error: option names stay checked (layot)
  pe.rotateByDelta(x, shape, [5], { layot: 'half' });

  // the other functions with `out`: the result is `out`
  const s1: HeapBuffer = pe.sinusoidal([0], { dim: 8, out: buf });
  const s2: Float32Array = pe.sine2d({ height: 2, width: 2, numPosFeats: 2 });
  const s3: FloatOut = pe.resizeGrid(new Float32Array(4), { from: [2, 2], to: [2, 2], dim: 1, out: maybe });
  // @ts-expect-error: option names stay checked (lyout)
  pe.sinusoidal([0], { dim: 8, lyout: 'concat' });

  // attention: weights / scores present exactly when asked for
  const qkv = { q: x, k: x, v: x, heads: 1, headDim: 8, qLen: 1, kLen: 1 };
  const both = pe.attention({ ...qkv, returnWeights: true, returnScores: true });
  const w1: Float32Array = both.weights, sc1: Float32Array = both.scores, o1: Float32Array = both.out;
  const w2: Float32Array = pe.attention({ ...qkv, encoding: { kind: 'alibi', heads: 1 }, returnWeights: true }).weights;
  const sc2: Float32Array = pe.attention({ ...qkv, returnScores: true, returnWeights: false }).scores;
  const o2: HeapBuffer = pe.attention({ ...qkv, out: buf, returnWeights: true }).out;
  const flag: boolean = Math.random() > 0.5;
  const w3: Float32Array | undefined = pe.attention({ ...qkv, returnWeights: flag }).weights;
  // @ts-expect-error: not asked for, so not there
  pe.attention(qkv).weights;
  // @ts-expect-error: not asked for, so not there
  pe.attention({ ...qkv, returnWeights: true }).scores;
  // @ts-expect-error: returnWeights: false returns no weights
  pe.attention({ ...qkv, returnWeights: false }).weights;
  // @ts-expect-error: a flag known only at run time leaves weights optional
  const w4: Float32Array = pe.attention({ ...qkv, returnWeights: flag }).weights;
  // @ts-expect-error: option names stay checked (returnWeight)
  pe.attention({ ...qkv, returnWeight: true });

  // KVCache.attend: rope is the cache's own, refused as an encoding (alone or in an array)
  const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: {} });
  const c1: Float32Array = cache.attend(x, { heads: 1, encoding: [{ kind: 'alibi', heads: 1 }, { kind: 'temperature', beta: 0.1, length: 8 }] }).out;
  const c2: HeapBuffer = cache.attend(x, { heads: 1, out: buf }).out;
  // @ts-expect-error: 'rope' is refused by attend
  cache.attend(x, { heads: 1, encoding: { kind: 'rope' } });
  // @ts-expect-error: 'rope' is refused by attend, also inside an array
  cache.attend(x, { heads: 1, encoding: [{ kind: 'rope', base: 10000 }, { kind: 'alibi', heads: 1 }] });
  pe.attention({ ...qkv, encoding: [{ kind: 'rope', base: 10000 }, { kind: 'alibi', heads: 1 }] });  // attention takes it

  // layer types: the reader's own names are a closed union
  const layer = pe.ropeConfigFromHF({ model_type: 'gemma2', hidden_size: 64, num_attention_heads: 2, num_hidden_layers: 2 }).attention.layers[0];
  const known: readonly HfLayerType[] = ['full_attention', 'sliding_attention', 'chunked_attention'];
  const isKnown: boolean = (known as readonly string[]).includes(layer.type);
  // @ts-expect-error: not a layer type the reader produces
  const wrong: HfLayerType = 'sliding_window';
  cache.delete();
  buf.delete();
  void [a1, a2, a3, a4, a5, a6, d1, d2, d3, d4, d5, d6, d7, d8, d9, s1, s2, s3, w1, sc1, o1, w2, sc2, o2, w3, w4, c1, c2, isKnown, wrong];
}
void exactResults;
void main;
