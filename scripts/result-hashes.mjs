// Result hashes: a fixed, seeded corpus of calls through every public function of the wasm package
// and every encoding kind, hashed (SHA-256 over the results' bytes) group by group. A refactoring that
// must not change results (the engine's softmax, RoPE application, ...) proves it by leaving every
// hash as tests/fixtures/result-hashes.json has it; tests/node/result-hashes.test.mjs checks that.
// Hashes are of the wasm package only: native results may differ by kernel set (FMA).
// Every group runs at load({ threads: 1 }) and load({ threads: 2 }), which must agree (results are
// bit-identical for every thread count), so the file holds one hash per group.
//
// Usage: node scripts/result-hashes.mjs            prints the hashes, compares them with the file
//        node scripts/result-hashes.mjs --write    regenerates tests/fixtures/result-hashes.json
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'posenc';

export const FIXTURE = fileURLToPath(new URL('../tests/fixtures/result-hashes.json', import.meta.url));

// mulberry32: a small seeded generator, so the corpus is the same on every machine.
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    floats: (n, scale = 1) => Float32Array.from({ length: n }, () => (2 * next() - 1) * scale),
    positive: (n, lo = 0.1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * next()),
    bits: (n, p = 0.8) => Uint8Array.from({ length: n }, () => (next() < p ? 1 : 0)),
    ints: (n, lo, hi) => Int32Array.from({ length: n }, () => lo + Math.floor(next() * (hi - lo + 1))),
  };
}

// Feeds a value into the hash: typed arrays by their bytes, numbers as float64, containers recursively
// (object keys sorted), each with a tag so that different shapes cannot collide.
function feed(h, x) {
  if (ArrayBuffer.isView(x)) {
    h.update(`${x.constructor.name}:${x.length}:`);
    h.update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  } else if (typeof x === 'number') {
    const b = new Float64Array([x]);
    h.update('n:');
    h.update(new Uint8Array(b.buffer));
  } else if (typeof x === 'string' || typeof x === 'boolean') {
    h.update(`${typeof x}:${x};`);
  } else if (x === null || x === undefined) {
    h.update(`${x};`);
  } else if (Array.isArray(x)) {
    h.update(`a:${x.length}:`);
    for (const v of x) feed(h, v);
  } else if (typeof x === 'object') {
    const keys = Object.keys(x).sort();
    h.update(`o:${keys.length}:`);
    for (const k of keys) {
      h.update(`${k}=`);
      feed(h, x[k]);
    }
  } else {
    throw new TypeError(`cannot hash a ${typeof x}`);
  }
}

// ---- the corpus: group name -> (pe, r) => array of results ----
const ROPE_OPTIONS = [
  {},
  { layout: 'interleaved', base: 500000 },
  { partialRotaryFactor: 0.5, convention: 'ggml' },
  { scaling: { type: 'linear', factor: 2 } },
  { scaling: { type: 'ntk', factor: 4 } },
  { scaling: { type: 'dynamic', factor: 2, originalMaxPositionEmbeddings: 64 }, seqLen: 300 },
  { scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 64, betaFast: 16, mscale: 0.707 } },
  { scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 }, convention: 'ggml', layout: 'interleaved' },
  { scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 64, lowFreqFactor: 1, highFreqFactor: 4 } },
  { xposScaleBase: 512 },
];
const longrope = (rot) => ({ scaling: { type: 'longrope', originalMaxPositionEmbeddings: 64, factor: 4,
  shortFactor: Array.from({ length: rot / 2 }, (_, i) => 1 + i / rot), longFactor: Array.from({ length: rot / 2 }, (_, i) => 1 + 4 * i / rot) }, seqLen: 200 });

const HF_CONFIGS = [
  { model_type: 'llama', hidden_size: 64, num_attention_heads: 8, rope_theta: 500000, max_position_embeddings: 131072,
    rope_scaling: { rope_type: 'llama3', factor: 8, original_max_position_embeddings: 8192, low_freq_factor: 1, high_freq_factor: 4 } },
  { model_type: 'deepseek_v3', hidden_size: 64, num_attention_heads: 4, qk_rope_head_dim: 8, max_position_embeddings: 163840,
    rope_theta: 10000, rope_scaling: { type: 'yarn', factor: 40, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 } },
  { model_type: 'phi3', hidden_size: 32, num_attention_heads: 4, max_position_embeddings: 131072, original_max_position_embeddings: 4096,
    rope_scaling: { type: 'longrope', short_factor: [1, 1.1, 1.2, 1.3], long_factor: [1, 2, 3, 4] } },
  { model_type: 'qwen2_vl', hidden_size: 64, num_attention_heads: 4, rope_theta: 1000000, rope_scaling: { type: 'mrope', mrope_section: [2, 3, 3] } },
  { model_type: 'gpt_neox', hidden_size: 64, num_attention_heads: 2, rotary_pct: 0.25, rotary_emb_base: 10000 },
];

const range = (n, from = 0) => Int32Array.from({ length: n }, (_, i) => from + i);

// Every score-term encoding for `heads` heads of headDim, at positions below `span`.
function scoreEncodings(r, heads, headDim, span) {
  return {
    alibi: { kind: 'alibi', heads },
    alibiSymmetric: { kind: 'alibi', heads, slopes: r.positive(heads), symmetric: true },
    t5: { kind: 't5', heads, table: r.floats(32 * heads), bidirectional: true },
    t5Causal: { kind: 't5', heads, table: r.floats(16 * heads), numBuckets: 16, maxDistance: 64, bidirectional: false },
    swin: { kind: 'swin', heads, table: r.floats((2 * 4 - 1) * (2 * Math.ceil(span / 4) - 1) * heads), windowSize: [4, Math.ceil(span / 4)] },
    shaw: { kind: 'shaw', clip: 3, keyTable: r.floats(7 * headDim) },
    shawValues: { kind: 'shaw', clip: 2, keyTable: r.floats(5 * headDim), valueTable: r.floats(5 * headDim) },
    xl: { kind: 'xl', u: r.floats(heads * headDim), v: r.floats(heads * headDim), r: r.floats(heads * span * headDim) },
    deberta: { kind: 'deberta', span: 4, posKey: r.floats(heads * 8 * headDim), posQuery: r.floats(heads * 8 * headDim), bucketSize: 4, maxPosition: 16 },
    debertaC2p: { kind: 'deberta', span: 3, posKey: r.floats(heads * 6 * headDim), terms: ['c2p'], convention: 'microsoft' },
    relativeKey: { kind: 'relativeKey', table: r.floats((2 * span - 1) * headDim), maxPosition: span, keyQuery: true },
    kerpleLog: { kind: 'kerple', variant: 'log', heads, r1: r.positive(heads), r2: r.positive(heads) },
    kerplePower: { kind: 'kerple', variant: 'power', heads, r1: r.positive(heads), r2: r.positive(heads, 0.5, 1.5) },
    fire: { kind: 'fire', heads, hidden: 4, w1: r.floats(4), b1: r.floats(4), w2: r.floats(heads * 4), b2: r.floats(heads), c: 2, L: 8 },
    cope: { kind: 'cope', npos: 6, embeddings: r.floats(6 * headDim) },
    temperature: { kind: 'temperature', beta: 0.1, length: 8, offset: 1 },
  };
}

export const GROUPS = {
  additive(pe, r) {
    const pos = Int32Array.from([0, 1, 2, 7, 100, 4095]);
    const out = [];
    for (const layout of ['interleaved', 'concat', 'tensor2tensor']) out.push(pe.sinusoidal(pos, { dim: 10, layout, base: layout === 'concat' ? 500 : 10000 }));
    out.push(pe.sinusoidal([3, 4], { dim: 6, paddingIdx: 1 }));
    const table = r.floats(8 * 3);
    out.push(pe.learned([0, 5, 7], { table, dim: 3 }), pe.learned([0, 9, 70], { table, dim: 3, outOfRange: 'clamp' }),
      pe.learned([0, 3, 11], { table, dim: 3, outOfRange: 'interpolate', interpolateTo: 12 }));
    const mask = Uint8Array.from([0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1]);
    out.push(pe.positionIds(mask, { batch: 2, length: 6 }), pe.positionIds(mask, { batch: 2, length: 6, style: 'roberta', paddingIdx: 1, past: 3 }),
      pe.nextPositions(mask, { batch: 2, length: 6, past: 5 }));
    out.push(pe.modalityPositions([0, 0, 1, 1, 0, 2], { offsets: [0, 100, 200] }));
    out.push(pe.binary([0, 3, 5, 7], { bits: 3 }), pe.binary([0, 3, 5, 7], { bits: 3, code: 'gray' }),
      pe.binary([0, 4, 8], { bits: 2, radix: 3, dim: 2, table: r.floats(2 * 3 * 2) }));
    out.push(pe.codeDistance(3, 5, { bits: 3 }), pe.codeDistance(3, 5, { bits: 3, code: 'gray' }), pe.codeDistance(2, 7, { bits: 2, radix: 3 }));
    out.push(pe.lowRank([0, 2, 1], { coefficients: r.floats(3 * 2), basis: r.floats(2 * 4), rank: 2, dim: 4 }));
    out.push(pe.sparse([0, 2], { indices: [0, 1, 2, 0, 1, 2], values: r.floats(6), k: 2, basis: r.floats(3 * 3), dim: 3 }));
    out.push(pe.randomFeatures(pos, { dim: 8, seed: 7 }), pe.randomFeatures([1, 2, 3], { dim: 4, kind: 'mlp', hidden: 6, sigma: 2, scale: 0.5, seed: 3 }));
    out.push(pe.axial([0, 3, 5], { shape: [2, 3], tables: [r.floats(2 * 2), r.floats(3 * 2)], dims: [2, 2], combine: 'sum' }),
      pe.axial([0, 7], { shape: [2, 2, 2], tables: [r.floats(2), r.floats(4), r.floats(2)], dims: [1, 2, 1] }));
    out.push(pe.twoLevel([0, 0, 1, 2, 2], { segmentTable: r.floats(3 * 2), innerTable: r.floats(3 * 3), segmentDim: 2, innerDim: 3 }));
    out.push(pe.sine2d({ height: 3, width: 4, numPosFeats: 8 }), pe.sine2d({ height: 2, width: 3, numPosFeats: 4, normalize: true, temperature: 20, mask: [1, 1, 0, 1, 0, 0] }));
    out.push(pe.sine3d({ frames: 2, height: 2, width: 3, numPosFeats: 4, normalize: true }));
    out.push(pe.resizeGrid(r.floats(1 * 2 + 3 * 3 * 2), { from: [3, 3], to: [5, 4], dim: 2, prefixTokens: 1 }),
      pe.resizeGrid(r.floats(2 * 2 * 3), { from: [2, 2], to: [3, 5], dim: 3, mode: 'bilinear', mapping: 'scaleFactor' }));
    const buf = pe.alloc(6 * 4);
    pe.sinusoidal(pos, { dim: 4, out: buf });  // the zero-copy path
    const src = pe.alloc(5);
    src.view().set(r.floats(5));
    const dst = pe.alloc(5);
    pe.copyBuffer(dst, src);
    out.push(buf.view().slice(), dst.view().slice());
    for (const b of [buf, src, dst]) b.delete();
    return out;
  },

  relative(pe, r) {
    const rel = Int32Array.from([-300, -130, -17, -3, -1, 0, 1, 2, 9, 64, 200, 2 ** 31 - 1, -(2 ** 31)]);
    const out = [pe.t5Bucket(rel), pe.t5Bucket(rel, { bidirectional: false, numBuckets: 16, maxDistance: 64 })];
    out.push(pe.debertaBucket(rel, { bucketSize: 256, maxPosition: 512 }), pe.debertaBucket(rel, { bucketSize: 4, maxPosition: 10, convention: 'microsoft' }),
      pe.debertaBucket(rel, { bucketSize: 0, maxPosition: 8 }));
    out.push(pe.alibiSlopes(8), pe.alibiSlopes(12), pe.swinRelativeIndex([3, 2]));
    const heads = 3, q = Int32Array.from([0, 4, 9, 15]), k = range(16);
    const e = scoreEncodings(r, heads, 4, 16);
    for (const name of ['alibi', 'alibiSymmetric', 't5', 't5Causal', 'swin', 'kerpleLog', 'kerplePower', 'fire']) out.push(pe.attentionBias(e[name], q, k));
    out.push(pe.attentionBias([e.alibi, e.t5, e.fire], q, k));
    return out;
  },

  rotary(pe, r) {
    const out = [];
    const headDim = 16, heads = 2, tokens = 5, x = r.floats(heads * tokens * headDim);
    const positions = Int32Array.from([0, 1, 2, 90, 5000]);
    for (const o of [...ROPE_OPTIONS, longrope(headDim)]) {
      out.push(pe.ropeFrequencies({ headDim, ...o }));
      out.push(pe.applyRope(x, { heads, tokens, headDim }, o.xposScaleBase ? Int32Array.from([0, 1, 2, 90, 500]) : positions, o));
    }
    for (const cfg of HF_CONFIGS) out.push(pe.ropeFrequencies(pe.ropeConfigFromHF(cfg)));
    const mrope = { multiAxis: 'mrope', sections: [2, 3, 3] }, axial = { multiAxis: 'axial2d' };
    out.push(pe.applyRope(x, { heads, tokens, headDim }, r.ints(3 * tokens, 0, 50), mrope),
      pe.applyRope(x, { heads, tokens, headDim }, r.ints(2 * tokens, 0, 50), axial));
    const inPlace = pe.alloc(x.length);
    inPlace.view().set(x);
    pe.applyRope(inPlace, { heads, tokens, headDim }, positions, { inPlace: true, layout: 'interleaved' });
    out.push(inPlace.view().slice());
    inPlace.delete();
    const deltas = [-1000, -3, 0, 7, 300];
    out.push(pe.rotateByDelta(x, { heads, tokens, headDim }, deltas, {}), pe.rotateByDelta(x, { heads, tokens, headDim }, deltas, { layout: 'interleaved', scaling: { type: 'linear', factor: 2 } }));
    // long enough to use the pool's chunks (128 tokens per task)
    const T = 700, big = r.floats(4 * T * 32);
    out.push(pe.applyRope(big, { heads: 4, tokens: T, headDim: 32 }, range(T, 3), {}),
      pe.rotateByDelta(big, { heads: 4, tokens: T, headDim: 32 }, Array.from({ length: T }, (_, i) => i - 350), { layout: 'interleaved' }));
    return out;
  },

  // Every kind through the streaming path: small shapes, GQA, qLen != kLen, masks.
  attentionKinds(pe, r) {
    const heads = 4, kvHeads = 2, headDim = 8, qLen = 5, kLen = 13;
    const q = r.floats(heads * qLen * headDim), k = r.floats(kvHeads * kLen * headDim), v = r.floats(kvHeads * kLen * headDim);
    const base = { q, k, v, heads, kvHeads, headDim, qLen, kLen };
    const e = scoreEncodings(r, heads, headDim, kLen);
    const encodings = { none: { kind: 'none' }, rope: { kind: 'rope' }, ...e,
      ropeYarn: { kind: 'rope', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 8 }, layout: 'interleaved' },
      ropeXpos: { kind: 'rope', xposScaleBase: 512, partialRotaryFactor: 0.5 },
      ropeAlibi: [{ kind: 'rope' }, e.alibi], ropeTemperature: [{ kind: 'rope', base: 500000 }, e.temperature],
      scoreArray: [e.t5, e.kerpleLog, e.shaw] };
    const out = [];
    for (const [name, encoding] of Object.entries(encodings)) {
      const causal = name !== 't5' && name !== 'swin' && name !== 'alibiSymmetric';
      out.push(name, pe.attention({ ...base, encoding, causal }).out);
    }
    out.push(pe.attention({ ...base, encoding: e.alibi, causal: true, window: 4 }).out,
      pe.attention({ ...base, encoding: { kind: 'rope' }, keyMask: r.bits(kLen), scale: 0.3 }).out,
      pe.attention({ ...base, encoding: e.t5, qPositions: [2, 9, 9, 20, 30], kPositions: r.ints(kLen, 0, 30), causal: true }).out);
    // multi-axis RoPE: rotation positions per axis, maskPositions for the masks
    const mrope = { kind: 'rope', multiAxis: 'mrope', sections: [1, 1, 2] };
    out.push(pe.attention({ ...base, encoding: mrope, causal: true, qPositions: r.ints(3 * qLen, 0, 20), kPositions: r.ints(3 * kLen, 0, 20),
      maskPositions: range(kLen) }).out);
    return out;
  },

  // Weights and scores requested: the materialised path.
  attentionMaterialised(pe, r) {
    const heads = 4, kvHeads = 1, headDim = 16, qLen = 9, kLen = 150;
    const q = r.floats(heads * qLen * headDim), k = r.floats(kvHeads * kLen * headDim), v = r.floats(kvHeads * kLen * headDim);
    const base = { q, k, v, heads, kvHeads, headDim, qLen, kLen };
    const e = scoreEncodings(r, heads, headDim, kLen);
    const out = [];
    for (const encoding of [{ kind: 'none' }, { kind: 'rope' }, e.alibi, e.shawValues, e.deberta, e.cope, [{ kind: 'rope' }, e.t5Causal]]) {
      out.push(pe.attention({ ...base, encoding, causal: true, returnWeights: true, returnScores: true }));
      out.push(pe.attention({ ...base, encoding, causal: true, window: 40, returnWeights: true }));
      out.push(pe.attention({ ...base, encoding, keyMask: r.bits(kLen, 0.5), returnScores: true }));
    }
    return out;
  },

  // Shapes big enough for the pool to split (2 threads), and decode steps (qLen 1, kLen past
  // kDecodeChunkKeys) that take the decode split and its merge.
  attentionLarge(pe, r) {
    const out = [];
    {
      const heads = 4, kvHeads = 2, headDim = 32, T = 300;
      const q = r.floats(heads * T * headDim), k = r.floats(kvHeads * T * headDim), v = r.floats(kvHeads * T * headDim);
      const base = { q, k, v, heads, kvHeads, headDim, qLen: T, kLen: T };
      const e = scoreEncodings(r, heads, headDim, T);
      for (const extra of [{ causal: true, encoding: { kind: 'rope' } }, { causal: true, window: 70, encoding: e.alibi }, { encoding: e.t5 },
        { causal: true, encoding: { kind: 'rope', layout: 'interleaved' }, returnWeights: true }, { causal: true, encoding: e.shawValues },
        { causal: true, encoding: e.temperature }])
        out.push(pe.attention({ ...base, ...extra }));
      // qLen != kLen: queries at the last qLen key positions
      out.push(pe.attention({ ...base, q: q.subarray(0, heads * 40 * headDim), qLen: 40, causal: true, encoding: { kind: 'rope' } }).out);
    }
    {
      const heads = 4, kvHeads = 2, headDim = 32, kLen = 4500;
      const q = r.floats(heads * headDim), k = r.floats(kvHeads * kLen * headDim), v = r.floats(kvHeads * kLen * headDim);
      const base = { q, k, v, heads, kvHeads, headDim, qLen: 1, kLen };
      const e = scoreEncodings(r, heads, headDim, 64);
      for (const extra of [{ causal: true, encoding: { kind: 'rope' } }, { encoding: { kind: 'none' } }, { causal: true, window: 3000, encoding: e.alibi },
        { encoding: e.t5Causal, keyMask: r.bits(kLen, 0.7) }, { encoding: e.kerpleLog, qPositions: [2000], causal: true },
        { encoding: e.shawValues, causal: true }, { encoding: { kind: 'rope' }, returnWeights: true }])
        out.push(pe.attention({ ...base, ...extra }));
    }
    return out;
  },

  kvCache(pe, r) {
    const out = [];
    const kvHeads = 2, headDim = 16, heads = 4;
    const tokens = (b, T) => [r.floats(b * kvHeads * T * headDim), r.floats(b * kvHeads * T * headDim)];
    const slice = (x, b, T, t0, n) => {  // tokens [t0, t0 + n) of [b, kvHeads, T, headDim]
      const y = new Float32Array(b * kvHeads * n * headDim);
      for (let i = 0; i < b * kvHeads; i++) y.set(x.subarray((i * T + t0) * headDim, (i * T + t0 + n) * headDim), i * n * headDim);
      return y;
    };
    const state = (c) => [c.positions(), c.nextPositions()];
    const ropes = [{}, { layout: 'interleaved', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32 } },
      { scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 16, lowFreqFactor: 1, highFreqFactor: 4 }, partialRotaryFactor: 0.5 }];
    for (const rope of ropes) {
      // one append, chunks, token by token: each attended after every call
      const T = 300, [k, v] = tokens(1, T);
      for (const pieces of [[T], [100, 130, 70], Array(20).fill(1)]) {
        const c = new pe.KVCache({ kvHeads, headDim, capacity: 400, rope });
        let t0 = 0;
        for (const n of pieces) {
          c.append(slice(k, 1, T, t0, n), slice(v, 1, T, t0, n));
          t0 += n;
          out.push(c.attend(r.floats(heads * Math.min(n, 4) * headDim), { heads }).out);
        }
        out.push(...state(c));
        c.delete();
      }
    }
    {  // window + sinks, a batch with padding, score terms on top, shift and renumber
      const c = new pe.KVCache({ batch: 2, kvHeads, headDim, capacity: 40, window: 32, sinks: 4, rope: { base: 500000 } });
      const e = scoreEncodings(r, heads, headDim, 200);
      const [k, v] = tokens(2, 90);
      c.append(k, v, { mask: Uint8Array.from({ length: 180 }, (_, i) => (i < 5 ? 0 : 1)) });
      out.push(c.attend(r.floats(2 * heads * 90 * headDim), { heads }).out, ...state(c));
      for (let s = 0; s < 12; s++) {
        const [k1, v1] = tokens(2, 1);
        c.append(k1, v1);
        out.push(c.attend(r.floats(2 * heads * headDim), { heads, encoding: [e.alibi, e.temperature][s % 2] }).out);
      }
      c.shift(7);
      out.push(c.attend(r.floats(2 * heads * headDim), { heads, encoding: e.t5Causal }).out, ...state(c));
      c.renumber(Int32Array.from(c.positions(), (p) => (p < 0 ? -1 : p + (p % 3))));
      out.push(c.attend(r.floats(2 * heads * 2 * headDim), { heads, qPositions: [100, 101, 90, 95], causal: false, scale: 0.5 }).out, ...state(c));
      c.delete();
    }
    {  // no rope (raw keys), explicit positions; long, for the decode split
      const c = new pe.KVCache({ kvHeads, headDim, capacity: 4200 });
      const [k, v] = tokens(1, 4200);
      c.append(k, v, { positions: range(4200, 10) });
      out.push(c.attend(r.floats(heads * headDim), { heads }).out, c.attend(r.floats(heads * headDim), { heads, encoding: { kind: 'alibi', heads } }).out);
      c.delete();
    }
    {  // rope cache, long: decode steps over rotated, packed keys
      const c = new pe.KVCache({ kvHeads, headDim, capacity: 4200, rope: { scaling: { type: 'linear', factor: 2 } } });
      const [k, v] = tokens(1, 4100);
      c.append(k, v);
      out.push(c.attend(r.floats(heads * headDim), { heads }).out);
      c.shift(5);
      out.push(c.attend(r.floats(heads * headDim), { heads }).out);
      c.delete();
    }
    {  // multi-axis rope in the cache
      const c = new pe.KVCache({ kvHeads, headDim, capacity: 16, rope: { multiAxis: 'mrope', sections: [2, 3, 3] } });
      const [k, v] = tokens(1, 6);
      c.append(k, v, { positions: r.ints(3 * 6, 0, 10), maskPositions: range(6) });
      out.push(c.attend(r.floats(heads * 2 * headDim), { heads, qPositions: r.ints(3 * 2, 0, 10), maskPositions: [6, 7] }).out);
      c.delete();
    }
    {  // dynamic NTK as Hugging Face updates it
      const c = new pe.KVCache({ kvHeads, headDim, capacity: 64, rope: { scaling: { type: 'dynamic', factor: 2, originalMaxPositionEmbeddings: 16 } }, dynamic: 'hf' });
      for (const T of [10, 20, 5]) {
        const [k, v] = tokens(1, T);
        c.append(k, v);
        out.push(c.attend(r.floats(heads * headDim), { heads }).out);
      }
      c.delete();
    }
    return out;
  },

  metadata(pe) {
    return [pe.describe(), ['sinusoidal', 'rope', 'alibi'].map((m) => pe.parameterCount(m)),
      pe.parameterCount('t5', { heads: 8 }), pe.parameterCount('shaw', { clip: 4, headDim: 16, values: true }),
      pe.parameterCount('axial', { shape: [4, 5], dims: [3, 2] })];
  },
};

// Runs every group on one module: { group: sha256 hex }.
export function hashes(pe, seed = 20240601) {
  const res = {};
  for (const [name, group] of Object.entries(GROUPS)) {
    const h = createHash('sha256');
    feed(h, group(pe, rng(seed)));
    res[name] = h.digest('hex');
  }
  return res;
}

// Both thread counts; throws when they disagree (a broken guarantee, not a changed baseline).
export async function computeHashes() {
  const [one, two] = [await load({ threads: 1 }), await load({ threads: 2 })];
  const a = hashes(one), b = hashes(two);
  const differ = Object.keys(a).filter((g) => a[g] !== b[g]);
  if (differ.length) throw new Error(`1 and 2 threads give different results in: ${differ.join(', ')}`);
  if (two.threads !== 2) console.warn(`posenc: the threaded module runs ${two.threads} thread(s) here; the thread check is weaker`);
  return a;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const got = await computeHashes();
  for (const [g, h] of Object.entries(got)) console.log(`${h}  ${g}`);
  if (process.argv.includes('--write')) {
    writeFileSync(FIXTURE, JSON.stringify(got, null, 2) + '\n');
    console.log(`wrote ${FIXTURE}`);
  } else {
    let want = {};
    try { want = JSON.parse(readFileSync(FIXTURE, 'utf8')); } catch { /* no baseline yet */ }
    const changed = Object.keys(got).filter((g) => want[g] !== got[g]);
    console.log(changed.length ? `differs from the baseline in: ${changed.join(', ')}` : 'matches the baseline');
    process.exitCode = changed.length ? 1 : 0;
  }
  console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
