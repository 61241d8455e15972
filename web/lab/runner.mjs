// The lab's model runner: tiny decoder-only transformers trained by scripts/train/train.py, run with
// everything positional done by posenc — the additive tables (pe.sinusoidal, pe.learned), attention
// with the model's encoding (pe.attention: RoPE and its context-extension schedules, ALiBi, T5, KERPLE,
// FIRE, forgetting attention's gates, stick-breaking in place of softmax, or none; its weights for the
// attention maps) and generation through pe.KVCache (one
// cache per layer; window and sinks selectable). 'rope-pi' is the RoPE model fine-tuned with position
// interpolation (its manifest's config.ropeScaling, applied by default).
// Embeddings, layer norms, linear layers and the MLP are plain JS over Float32Array.
//
// Used by the demo (web/sections/lab.mjs), the tests (tests/node/lab.test.mjs,
// tests/browser/lab.test.mjs) and examples/node/lab-generate.mjs.

export const LAB_MODELS = ['nope', 'sinusoidal', 'learned', 'rope', 'rope-pi', 'alibi', 't5', 'kerple', 'fire', 'fox', 'stickbreaking'];
export const LAB_LABELS = {
  nope: 'NoPE', sinusoidal: 'sinusoidal', learned: 'learned (clamped past L)', rope: 'RoPE',
  'rope-pi': 'RoPE + PI ×4, fine-tuned at 4L', alibi: 'ALiBi', t5: 'T5 buckets', kerple: 'KERPLE (log)', fire: 'FIRE',
  fox: 'FoX (forget gates)', stickbreaking: 'stick-breaking',
};
/** RoPE schedules the runner applies at inference (posenc RopeScaling types). */
export const ROPE_SCHEDULES = ['none', 'linear', 'ntk', 'dynamic', 'yarn'];

/**
 * Loads one model. `read(file)` returns the file's bytes (ArrayBuffer / Uint8Array) or, for .json, its
 * text or parsed object; files are `<name>.json` and `<name>.bin` from web/lab/models/.
 */
export async function loadLabModel(pe, name, read) {
  const mj = await read(`${name}.json`);
  const manifest = typeof mj === 'string' ? JSON.parse(mj) : mj;
  const bin = await read(`${name}.bin`);
  return new LabModel(pe, manifest, toFloat32(bin));
}

function toFloat32(bin) {
  if (bin instanceof ArrayBuffer) return new Float32Array(bin.slice(0));
  const u8 = bin instanceof Uint8Array ? bin : new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength);
  const copy = new Uint8Array(u8.byteLength);
  copy.set(u8);
  return new Float32Array(copy.buffer);   // the files are little-endian float32, as every platform here
}

// y[t, o] = b[o] + Σ_i x[t, i]·W[o, i]   (x [T, I], W [O, I]: torch.nn.Linear layout). Blocked 2 tokens
// × 4 outputs so each load serves several multiply-adds (about 3x a plain triple loop in V8; the page
// redraws whole accuracy curves through this). Sums in double, rounded once to float32.
function linear(x, T, I, W, b, O, out = new Float32Array(T * O)) {
  let t = 0;
  for (; t + 2 <= T; t += 2) {
    const x0 = t * I, x1 = x0 + I, y0 = t * O, y1 = y0 + O;
    let o = 0;
    for (; o + 4 <= O; o += 4) {
      const w0 = o * I, w1 = w0 + I, w2 = w1 + I, w3 = w2 + I;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
      for (let i = 0; i < I; i++) {
        const u = x[x0 + i], v = x[x1 + i], p = W[w0 + i], q = W[w1 + i], r = W[w2 + i], s = W[w3 + i];
        a0 += u * p; a1 += u * q; a2 += u * r; a3 += u * s;
        c0 += v * p; c1 += v * q; c2 += v * r; c3 += v * s;
      }
      out[y0 + o] = a0 + b[o]; out[y0 + o + 1] = a1 + b[o + 1]; out[y0 + o + 2] = a2 + b[o + 2]; out[y0 + o + 3] = a3 + b[o + 3];
      out[y1 + o] = c0 + b[o]; out[y1 + o + 1] = c1 + b[o + 1]; out[y1 + o + 2] = c2 + b[o + 2]; out[y1 + o + 3] = c3 + b[o + 3];
    }
    for (; o < O; o++) out[y0 + o] = dot(x, x0, W, o * I, I) + b[o], out[y1 + o] = dot(x, x1, W, o * I, I) + b[o];
  }
  for (; t < T; t++) for (let o = 0; o < O; o++) out[t * O + o] = dot(x, t * I, W, o * I, I) + b[o];
  return out;
}

function dot(x, xo, W, wo, n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += x[xo + i] * W[wo + i];
  return s;
}

// [T, row] holding n projections of H·Dh side by side (as linear() gives them for weights stacked by
// rows; row ≥ n·H·Dh) -> n arrays [H, T, Dh] (the layout pe.attention and pe.KVCache take)
function splitHeads(y, T, n, H, Dh, row = n * H * Dh) {
  const HD = H * Dh, outs = [];
  for (let m = 0; m < n; m++) {
    const out = new Float32Array(H * T * Dh);
    for (let h = 0; h < H; h++)
      for (let t = 0; t < T; t++) {
        const src = t * row + m * HD + h * Dh;
        out.set(y.subarray(src, src + Dh), (h * T + t) * Dh);
      }
    outs.push(out);
  }
  return outs;
}

function layerNorm(x, T, D, w, b, eps) {
  const out = new Float32Array(T * D);
  for (let t = 0; t < T; t++) {
    const o = t * D;
    let mean = 0;
    for (let i = 0; i < D; i++) mean += x[o + i];
    mean /= D;
    let v = 0;
    for (let i = 0; i < D; i++) { const c = x[o + i] - mean; v += c * c; }
    const r = 1 / Math.sqrt(v / D + eps);
    for (let i = 0; i < D; i++) out[o + i] = (x[o + i] - mean) * r * w[i] + b[i];
  }
  return out;
}

// [H, T, Dh] -> [T, H·Dh]
function mergeHeads(a, H, T, Dh) {
  const out = new Float32Array(T * H * Dh);
  for (let h = 0; h < H; h++)
    for (let t = 0; t < T; t++)
      for (let d = 0; d < Dh; d++) out[t * H * Dh + h * Dh + d] = a[(h * T + t) * Dh + d];
  return out;
}

export class LabModel {
  constructor(pe, manifest, weights) {
    this.pe = pe;
    this.name = manifest.name;
    this.config = manifest.config;
    this.training = manifest.training;
    this.w = {};
    for (const t of manifest.tensors) {
      const n = t.shape.reduce((a, b) => a * b, 1);
      this.w[t.name] = weights.subarray(t.offset, t.offset + n);
    }
    const c = this.config;
    this.kind = c.encoding;
    // q, k and v of each layer as one [3·D, D] matrix (rows stacked: each output is the same sum as
    // from its own matrix), so one pass over the activations gives all three; FoX's forget-gate logits
    // (one per head) as H more rows
    this.gates = this.kind === 'fox' ? c.heads : 0;
    this.wqkv = [];
    for (let l = 0; l < c.layers; l++) {
      const p = `layers.${l}.`, D = c.dim, O = 3 * D + this.gates, W = new Float32Array(O * D), b = new Float32Array(O);
      ['q', 'k', 'v'].forEach((m, j) => { W.set(this.w[p + 'w' + m], j * D * D); b.set(this.w[p + 'b' + m], j * D); });
      if (this.gates) { W.set(this.w[p + 'wf'], 3 * D * D); b.set(this.w[p + 'bf'], 3 * D); }
      this.wqkv.push({ W, b });
    }
    this.L = c.trainedLength;
    // score terms (everything but RoPE: those are the same in attention and in the cache)
    const w = this.w;
    this.scoreTerm = {
      nope: { kind: 'none' }, sinusoidal: { kind: 'none' }, learned: { kind: 'none' }, rope: { kind: 'none' },
      alibi: { kind: 'alibi' },   // slopes: pe.alibiSlopes(heads), as trained
      t5: { kind: 't5', table: w['t5.table'], bidirectional: false, numBuckets: c.t5Buckets, maxDistance: c.t5MaxDistance },
      kerple: { kind: 'kerple', variant: 'log', r1: w['kerple.r1'], r2: w['kerple.r2'] },
      fire: { kind: 'fire', hidden: c.fireHidden, w1: w['fire.w1'], b1: w['fire.b1'], w2: w['fire.w2'], b2: w['fire.b2'] },
      fox: { kind: 'forgetting' },   // in attention with each call's logForget; a cache holds its own
      stickbreaking: { kind: 'stickBreaking' },
    }[this.kind];
    if (!this.scoreTerm) throw new RangeError(`unknown encoding ${this.kind}`);
  }

  /**
   * The RoPE options for a schedule: `{ type, factor, ...other RopeScaling fields }` with type one of
   * ROPE_SCHEDULES (default: the one the model was fine-tuned with, config.ropeScaling, else none). The
   * original length of 'dynamic' and 'yarn' is the trained length; `seqLen` feeds dynamic NTK.
   */
  ropeOptions(schedule = this.config.ropeScaling, seqLen = 0) {
    const { type = 'none', factor = 1, ...more } = schedule ?? {};
    const r = { base: this.config.ropeBase, layout: 'half' };
    if (type === 'none' || type === 'default') return r;
    const scaling = { type, factor, ...more };
    if (type === 'dynamic' || type === 'yarn') scaling.originalMaxPositionEmbeddings = this.L;
    return { ...r, scaling, ...(type === 'dynamic' ? { seqLen } : {}) };
  }

  // token embeddings + the additive encoding at `positions`: [T, D]
  embed(tokens, positions) {
    const { dim: D } = this.config;
    const T = tokens.length, x = new Float32Array(T * D), E = this.w.tok_emb;
    for (let t = 0; t < T; t++) x.set(E.subarray(tokens[t] * D, tokens[t] * D + D), t * D);
    let add = null;
    if (this.kind === 'sinusoidal') add = this.pe.sinusoidal(positions, { dim: D, base: this.config.sinusoidalBase, layout: 'interleaved' });
    if (this.kind === 'learned') add = this.pe.learned(positions, { table: this.w.pos_emb, dim: D, outOfRange: 'clamp' });
    if (add) for (let i = 0; i < x.length; i++) x[i] += add[i];
    return x;
  }

  // one block's MLP and output: x += W2·relu(W1·LN(x))
  mlp(x, T, l) {
    const { dim: D, mlp: M, lnEps } = this.config, w = this.w, p = `layers.${l}.`;
    const h = layerNorm(x, T, D, w[p + 'ln2.w'], w[p + 'ln2.b'], lnEps);
    const u = linear(h, T, D, w[p + 'w1'], w[p + 'b1'], M);
    for (let i = 0; i < u.length; i++) if (u[i] < 0) u[i] = 0;
    const y = linear(u, T, M, w[p + 'w2'], w[p + 'b2'], D);
    for (let i = 0; i < x.length; i++) x[i] += y[i];
  }

  // [q, k, v] of layer l, and for FoX a fourth: the log forget gates [H, T] (log σ of the gate logits)
  qkv(x, T, l) {
    const { dim: D, heads: H, headDim: Dh, lnEps } = this.config, w = this.w, p = `layers.${l}.`;
    const h = layerNorm(x, T, D, w[p + 'ln1.w'], w[p + 'ln1.b'], lnEps), { W, b } = this.wqkv[l];
    const O = 3 * D + this.gates, y = linear(h, T, D, W, b, O), out = splitHeads(y, T, 3, H, Dh, O);
    if (this.gates) {
      const g = new Float32Array(H * T);
      // log σ(z) = −softplus(−z), written to stay finite and exact at both ends
      for (let t = 0; t < T; t++) for (let i = 0; i < H; i++) { const z = y[t * O + 3 * D + i]; g[i * T + t] = z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z)); }
      out.push(g);
    }
    return out;
  }

  attnOut(x, a, T, l) {
    const { dim: D, heads: H, headDim: Dh } = this.config, w = this.w, p = `layers.${l}.`;
    const y = linear(mergeHeads(a, H, T, Dh), T, D, w[p + 'wo'], w[p + 'bo'], D);
    for (let i = 0; i < x.length; i++) x[i] += y[i];
  }

  logits(x, T) {
    const { dim: D, vocab: V, lnEps } = this.config, w = this.w;
    return linear(layerNorm(x, T, D, w['ln_f.w'], w['ln_f.b'], lnEps), T, D, w['head.w'], w['head.b'], V);
  }

  /** The encoding pe.attention gets for a sequence of T tokens (FoX: with the layer's gates, `logForget`). */
  encoding(T, rope, seqLen = T, logForget = null) {
    if (this.kind === 'rope') return { kind: 'rope', ...this.ropeOptions(rope, seqLen) };
    if (this.kind === 'fox') return { kind: 'forgetting', logForget };
    return this.scoreTerm;
  }

  /**
   * The part of a forward over `tokens` no option changes: the embedding (with the additive encoding)
   * and the first layer's q, k, v — RoPE and its schedules, windows and sinks all act inside attention.
   * forward() and predict() take the result in place of the tokens, so a caller rerunning the same
   * sequences under other options (the page's RoPE schedule controls) does not redo it.
   */
  prepare(tokens) {
    const T = tokens.length;
    const positions = Int32Array.from({ length: T }, (_, i) => i);
    const x = this.embed(tokens, positions);
    const [q, k, v, g] = this.qkv(x, T, 0);
    return new LabPrepared(this, T, x, q, k, v, g);
  }

  /**
   * Full causal forward over `tokens` (positions 0..T-1; or a prepare() result): logits [T, vocab].
   * Options: `rope` ({ type, factor }: RoPE schedule at inference, RoPE model only; `ropeSeqLen`: the
   * length dynamic NTK derives its base from, default T); `window` / `sinks`: the attention a KV cache
   * with that window and sinks gives (query i sees keys 0..sinks-1 and the last `window` tokens up to i);
   * `weights`: an array that receives each layer's attention weights [heads, T, T] (pe.attention's
   * softmax; not with sinks).
   */
  forward(tokens, { rope, ropeSeqLen, window, sinks = 0, weights } = {}) {
    const { heads: H, headDim: Dh, layers } = this.config, pe = this.pe;
    const pre = tokens instanceof LabPrepared ? tokens : this.prepare(tokens);
    if (pre.model !== this) throw new TypeError('tokens: prepared by another model');
    const T = pre.T, x = pre.x.slice();
    for (let l = 0; l < layers; l++) {
      const [q, k, v, g] = l === 0 ? [pre.q, pre.k, pre.v, pre.g] : this.qkv(x, T, l);
      const encoding = this.encoding(T, rope, ropeSeqLen ?? T, g);
      let a;
      if (window && sinks > 0) {
        if (weights) throw new RangeError('weights: not with sinks');
        a = this.#sinkWindowAttention(q, k, v, T, encoding, window, sinks);
      } else {
        const r = pe.attention({ q, k, v, heads: H, headDim: Dh, qLen: T, kLen: T, causal: true, encoding,
          ...(window ? { window } : {}), ...(weights ? { returnWeights: true } : {}) });
        a = r.out;
        weights?.push(r.weights);
      }
      this.attnOut(x, a, T, l);
      this.mlp(x, T, l);
    }
    return this.logits(x, T);
  }

  // one query row at a time, over exactly the keys a cache with sinks + window keeps (the reference).
  // FoX: the kept keys' gates are the differences of the running sums G at them, so that G_i − G_j is the
  // sum over every token between, kept or not (as a cache's stored sums give it)
  #sinkWindowAttention(q, k, v, T, encoding, window, sinks) {
    const { heads: H, headDim: Dh } = this.config;
    const out = new Float32Array(H * T * Dh);
    let G = null;
    if (encoding.kind === 'forgetting') {
      G = new Float64Array(H * T);
      for (let h = 0; h < H; h++) for (let t = 0, s = 0; t < T; t++) G[h * T + t] = s += encoding.logForget[h * T + t];
    }
    for (let i = 0; i < T; i++) {
      const keep = [];
      for (let j = 0; j <= i; j++) if (j < sinks || j > i - window) keep.push(j);
      const n = keep.length, qi = new Float32Array(H * Dh), ks = new Float32Array(H * n * Dh), vs = new Float32Array(H * n * Dh);
      for (let h = 0; h < H; h++) {
        qi.set(q.subarray((h * T + i) * Dh, (h * T + i + 1) * Dh), h * Dh);
        keep.forEach((j, r) => {
          ks.set(k.subarray((h * T + j) * Dh, (h * T + j + 1) * Dh), (h * n + r) * Dh);
          vs.set(v.subarray((h * T + j) * Dh, (h * T + j + 1) * Dh), (h * n + r) * Dh);
        });
      }
      let enc = encoding;
      if (G) {
        const lf = new Float32Array(H * n);
        for (let h = 0; h < H; h++) keep.forEach((j, r) => { lf[h * n + r] = Math.min(0, G[h * T + j] - (r ? G[h * T + keep[r - 1]] : 0)); });
        enc = { kind: 'forgetting', logForget: lf };
      }
      const o = this.pe.attention({ q: qi, k: ks, v: vs, heads: H, headDim: Dh, qLen: 1, kLen: n, causal: true, encoding: enc,
        qPositions: [i], kPositions: keep }).out;
      for (let h = 0; h < H; h++) out.set(o.subarray(h * Dh, (h + 1) * Dh), (h * T + i) * Dh);
    }
    return out;
  }

  /** Greedy prediction (argmax of the logits) at every position of `tokens` (or a prepare() result). */
  predict(tokens, options) {
    const V = this.config.vocab, lg = this.forward(tokens, options), T = lg.length / V;
    const pred = new Int32Array(T);
    for (let t = 0; t < T; t++) {
      let best = 0;
      for (let j = 1; j < V; j++) if (lg[t * V + j] > lg[t * V + best]) best = j;
      pred[t] = best;
    }
    return pred;
  }

  /**
   * A generation session: one pe.KVCache per layer. Options: `capacity` (slots; default 8L + 1),
   * `window`, `sinks`, `rope` ({ type, factor }, RoPE model only; dynamic NTK uses seqLen = capacity).
   */
  session(options = {}) { return new LabSession(this, options); }
}

// a prepare() result: read by forward() only (q, k, v are never written; x is copied before use)
class LabPrepared {
  constructor(model, T, x, q, k, v, g) { Object.assign(this, { model, T, x, q, k, v, g }); Object.freeze(this); }
}

export class LabSession {
  constructor(model, { capacity, window, sinks = 0, rope } = {}) {
    const c = model.config;
    this.model = model;
    this.capacity = capacity ?? (window ? sinks + window : 8 * model.L + 1);
    const ropeOpt = model.kind === 'rope' ? { rope: model.ropeOptions(rope, this.capacity) } : {};
    this.caches = [];
    for (let l = 0; l < c.layers; l++) {
      this.caches.push(new model.pe.KVCache({ kvHeads: c.heads, headDim: c.headDim, capacity: this.capacity,
        ...(window ? { window } : {}), sinks, ...ropeOpt, ...(model.kind === 'fox' ? { forgetting: true } : {}) }));
    }
    this.next = 0;
  }

  /** Appends `tokens` (one chunk) through every layer's cache; returns their logits [chunk, vocab]. */
  feed(tokens) {
    const m = this.model, { heads: H, headDim: Dh, layers } = m.config, T = tokens.length;
    const positions = Int32Array.from({ length: T }, (_, i) => this.next + i);
    const x = m.embed(tokens, positions);
    for (let l = 0; l < layers; l++) {
      const [q, k, v, logForget] = m.qkv(x, T, l);
      const cache = this.caches[l];
      cache.append(k, v, ...(logForget ? [{ logForget }] : []));
      const a = cache.attend(q, { heads: H, encoding: m.scoreTerm }).out;
      m.attnOut(x, a, T, l);
      m.mlp(x, T, l);
    }
    this.next += T;
    return m.logits(x, T);
  }

  /** Greedy continuation: feeds `prompt` in chunks of `chunk` tokens (default all at once), then `n` steps. */
  generate(prompt, n, { chunk = prompt.length, onToken } = {}) {
    const V = this.model.config.vocab, out = [];
    let last = null;
    for (let s = 0; s < prompt.length; s += chunk) last = this.feed(prompt.slice(s, s + chunk));
    let lg = last.subarray(last.length - V);
    for (let i = 0; i < n; i++) {
      let best = 0;
      for (let j = 1; j < V; j++) if (lg[j] > lg[best]) best = j;
      out.push(best);
      onToken?.(best, i);
      if (i + 1 < n) lg = this.feed([best]);
    }
    return out;
  }

  delete() { for (const c of this.caches) c.delete(); this.caches = []; }
}
