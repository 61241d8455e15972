// Hand-written declarations for posenc (Emscripten 3.1.6 cannot emit them).

/** Float tensor input: row-major data, or a heap buffer from `pe.alloc` (zero-copy). */
export type FloatInput = Float32Array | Float64Array | ArrayLike<number> | HeapBuffer;
/** Integer positions (>= 0) or relative positions. */
export type IntInput = Int32Array | ArrayLike<number>;
/** 0/1 mask, 1 = real token. */
export type MaskInput = Uint8Array | Int32Array | ArrayLike<number>;
/** Where to write a float result instead of allocating: a Float32Array or a heap buffer. */
export type FloatOut = Float32Array | HeapBuffer;

export interface HeapBuffer {
  readonly length: number;
  readonly byteOffset: number;
  readonly deleted: boolean;
  /** A Float32Array on the wasm heap. Call again after any allocation: heap growth detaches old views. */
  view(): Float32Array;
  delete(): void;
  [Symbol.dispose](): void;
}

export type SinusoidLayout = 'interleaved' | 'concat' | 'tensor2tensor';

export interface RopeScaling {
  type: 'none' | 'default' | 'linear' | 'ntk' | 'dynamic' | 'yarn' | 'llama3' | 'longrope';
  factor?: number;
  originalMaxPositionEmbeddings?: number;
  betaFast?: number;
  betaSlow?: number;
  mscale?: number;
  mscaleAllDim?: number;
  attentionFactor?: number;
  truncate?: boolean;
  lowFreqFactor?: number;
  highFreqFactor?: number;
  shortFactor?: ArrayLike<number>;
  longFactor?: ArrayLike<number>;
}

export interface RopeOptions {
  headDim: number;
  base?: number;
  partialRotaryFactor?: number;
  scaling?: RopeScaling;
  /** Sequence length: dynamic NTK and longrope choose their frequencies by it. */
  seqLen?: number;
  convention?: 'hf' | 'ggml';
  /** Multi-axis RoPE: positions become [axes, tokens]. */
  multiAxis?: 'none' | 'mrope' | 'axial2d';
  /** M-RoPE pairs per axis (t, h, w), summing to rotaryDim/2, e.g. [16, 24, 24]. */
  sections?: ArrayLike<number>;
  /** xPos scale base gamma (e.g. 512): queries scale up, keys down. */
  xposScaleBase?: number;
}

export interface RopeFrequencies {
  invFreq: Float32Array;
  attentionScale: number;
  rotaryDim: number;
  /** Present for multi-axis RoPE. */
  axes?: number;
  axisOfPair?: Int32Array;
}

export type RopeLayout = 'half' | 'interleaved';

export interface ApplyRopeOptions extends Partial<RopeOptions> {
  layout?: RopeLayout;
  inPlace?: boolean;
  out?: FloatOut;
}

export interface Posenc {
  /** [T, dim] sinusoidal table at the given positions. */
  /** paddingIdx: that position's row is zeros (fairseq; pair with positionIds style 'roberta'). */
  sinusoidal(positions: IntInput, options: { dim: number; base?: number; layout?: SinusoidLayout; paddingIdx?: number; out?: FloatOut }): Float32Array;

  ropeFrequencies(options: RopeOptions): RopeFrequencies;
  /** Reads rope settings from a parsed Hugging Face config.json. */
  ropeConfigFromHF(config: object): RopeOptions & { layout: RopeLayout };
  /** x: [heads, tokens, headDim]; rotates channels < rotaryDim by position, scaled by attentionScale. */
  applyRope<T extends FloatInput>(x: T, shape: { heads: number; tokens: number; headDim: number }, positions: IntInput,
    options?: ApplyRopeOptions): T extends HeapBuffer ? HeapBuffer | Float32Array : Float32Array;

  /** Rotates already-rotated vectors by a position delta per token (cache renumbering); no extra scale. */
  rotateByDelta(x: FloatInput, shape: { heads: number; tokens: number; headDim: number }, deltas: IntInput,
    options?: ApplyRopeOptions): Float32Array | HeapBuffer;

  // --- additive ---
  learned(positions: IntInput, options: { table: FloatInput; dim: number; outOfRange?: 'error' | 'clamp' | 'interpolate'; interpolateTo?: number; out?: FloatOut }): Float32Array;
  positionIds(mask: MaskInput, options?: { batch?: number; length?: number; style?: 'hf' | 'roberta'; paddingIdx?: number; past?: number }): Int32Array;
  nextPositions(mask: MaskInput, options?: { batch?: number; length?: number; past?: number }): Int32Array;
  modalityPositions(modalities: IntInput, options: { offsets: ArrayLike<number>; lengths?: ArrayLike<number> }): Int32Array;
  binary(positions: IntInput, options: { bits: number; dim?: number; code?: 'binary' | 'gray'; radix?: number; table?: FloatInput; out?: FloatOut }): Float32Array;
  /** Digits in which the codes of a and b differ (binary 7 -> 8: 4, Gray: 1). */
  codeDistance(a: number, b: number, options: { bits: number; code?: 'binary' | 'gray'; radix?: number }): number;
  lowRank(positions: IntInput, options: { coefficients: FloatInput; basis: FloatInput; rank: number; dim: number; out?: FloatOut }): Float32Array;
  sparse(positions: IntInput, options: { indices: IntInput; values: FloatInput; k: number; basis: FloatInput; dim: number; out?: FloatOut }): Float32Array;
  randomFeatures(positions: IntInput, options: { dim: number; seed?: number; kind?: 'fourier' | 'mlp'; sigma?: number; scale?: number; hidden?: number; out?: FloatOut }): Float32Array;
  axial(positions: IntInput, options: { shape: ArrayLike<number>; tables: FloatInput[]; dims: ArrayLike<number>; combine?: 'concat' | 'sum'; out?: FloatOut }): Float32Array;
  twoLevel(segments: IntInput, options: { segmentTable: FloatInput; innerTable: FloatInput; segmentDim: number; innerDim: number; combine?: 'concat' | 'sum'; out?: FloatOut }): Float32Array;
  sine2d(options: SineOptions & { height: number; width: number }): Float32Array;
  sine3d(options: SineOptions & { frames: number; height: number; width: number }): Float32Array;
  resizeGrid(grid: FloatInput, options: { from: [number, number]; to: [number, number]; dim: number; mode?: 'bicubic' | 'bilinear';
    mapping?: 'size' | 'scaleFactor'; prefixTokens?: number; out?: FloatOut }): Float32Array;
  /** Learned parameters a method needs, from its shapes. */
  parameterCount(method: string, options?: Record<string, unknown>): number;

  // --- relative / attention ---
  t5Bucket(relativePositions: IntInput, options?: { bidirectional?: boolean; numBuckets?: number; maxDistance?: number }): Int32Array;
  alibiSlopes(numHeads: number): Float32Array;
  debertaBucket(relativePositions: IntInput, options: { bucketSize: number; maxPosition: number; convention?: 'hf' | 'microsoft' }): Int32Array;
  swinRelativeIndex(windowSize: [number, number]): Int32Array;
  /** [heads, Tq, Tk] bias of a scalar-bias encoding (alibi, t5, swin). */
  attentionBias(encoding: Encoding, qPositions: IntInput, kPositions: IntInput): Float32Array;
  attention(args: AttentionArgs): { out: Float32Array; weights?: Float32Array; scores?: Float32Array };

  KVCache: new (options: KVCacheOptions) => KVCache;

  /** A heap-resident buffer of `length` floats for the zero-copy path. */
  alloc(length: number): HeapBuffer;
  /** Bytes in the wasm heap now. */
  heapBytes(): number;
  /** Benchmark yardstick: memcpy between two heap buffers. */
  copyBuffer(dst: HeapBuffer, src: HeapBuffer): void;
}

export interface SineOptions {
  numPosFeats?: number;
  temperature?: number;
  normalize?: boolean;
  scale?: number;
  /** 1 = valid cell (HF polarity). */
  mask?: MaskInput;
  out?: FloatOut;
}

export type Encoding =
  | { kind: 'none' }
  | ({ kind: 'rope'; layout?: RopeLayout } & Partial<RopeOptions>)
  | { kind: 'alibi'; heads?: number; slopes?: FloatInput; symmetric?: boolean }
  | { kind: 't5'; heads?: number; table: FloatInput; bidirectional?: boolean; numBuckets?: number; maxDistance?: number }
  | { kind: 'swin'; heads?: number; table: FloatInput; windowSize: [number, number] }
  | { kind: 'shaw'; clip: number; keyTable: FloatInput; valueTable?: FloatInput }
  | { kind: 'xl'; u: FloatInput; v: FloatInput; r?: FloatInput; wR?: FloatInput; dModel?: number }
  | { kind: 'deberta'; posKey?: FloatInput; posQuery?: FloatInput; span: number; bucketSize?: number; maxPosition?: number;
      convention?: 'hf' | 'microsoft'; terms?: Array<'c2p' | 'p2c'> }
  | { kind: 'relativeKey'; table: FloatInput; maxPosition: number; keyQuery?: boolean };

export interface AttentionArgs {
  q: FloatInput; k: FloatInput; v: FloatInput;
  heads: number; kvHeads?: number; headDim: number; qLen: number; kLen: number;
  qPositions?: IntInput; kPositions?: IntInput;
  causal?: boolean; window?: number; keyMask?: MaskInput; scale?: number;
  encoding?: Encoding;
  returnWeights?: boolean; returnScores?: boolean;
  out?: FloatOut;
}

export interface KVCacheOptions {
  batch?: number; kvHeads: number; headDim: number; capacity: number;
  /** Keep only the last `window` tokens (ring buffer) after `sinks` first tokens. */
  window?: number; sinks?: number;
  rope?: Partial<RopeOptions> & { layout?: RopeLayout };
}

export interface KVCache {
  readonly batch: number;
  readonly capacity: number;
  /** k, v raw [batch, kvHeads, T, headDim]; positions/mask [batch*T]. */
  append(k: FloatInput, v: FloatInput, options?: { positions?: IntInput; mask?: MaskInput }): this;
  /** q [batch, heads, qLen, headDim]. */
  attend(q: FloatInput, options: { heads: number; encoding?: Encoding; qPositions?: IntInput; causal?: boolean; scale?: number; out?: FloatOut }): { out: Float32Array };
  shift(delta: number): this;
  renumber(newPositions: IntInput): this;
  /** [batch, capacity], -1 = empty slot. */
  positions(): Int32Array;
  nextPositions(): Int32Array;
  delete(): void;
  [Symbol.dispose](): void;
}

/** Instantiates the WebAssembly module (once) and resolves to the API. */
export function load(): Promise<Posenc>;
export default load;
