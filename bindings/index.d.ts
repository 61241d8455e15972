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

// Every options interface below lists exactly the keys of its table in bindings/options.mjs (a test
// holds them equal): an unknown key is a TypeError, and so is null — leave an option out instead.

/** A frequency schedule; each `type` takes only its own keys (see bindings/options.mjs). */
export interface RopeScaling {
  /** 'default' = 'none', 'su' = 'longrope', 'ntk_aware' = 'ntk'. */
  type: 'none' | 'default' | 'linear' | 'ntk' | 'ntk_aware' | 'dynamic' | 'yarn' | 'llama3' | 'longrope' | 'su';
  /** Required by linear, ntk, dynamic, yarn and llama3; optional for longrope. */
  factor?: number;
  /** Required by dynamic, yarn, llama3 and longrope. */
  originalMaxPositionEmbeddings?: number;
  /** yarn only. */
  betaFast?: number;
  /** yarn only. */
  betaSlow?: number;
  /** yarn only. */
  mscale?: number;
  /** yarn only. */
  mscaleAllDim?: number;
  /** yarn and longrope. */
  attentionFactor?: number;
  /** yarn only. */
  truncate?: boolean;
  /** Required by llama3 (and only llama3). */
  lowFreqFactor?: number;
  /** Required by llama3 (and only llama3). */
  highFreqFactor?: number;
  /** Required by longrope (and only longrope). */
  shortFactor?: ArrayLike<number>;
  /** Required by longrope (and only longrope). */
  longFactor?: ArrayLike<number>;
}

export type RopeLayout = 'half' | 'interleaved';

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
  /** M-RoPE pairs assigned to t, h, w round-robin, as Qwen3-VL's apply_interleaved_mrope does (default false: contiguous sections). */
  mropeInterleaved?: boolean;
  /** xPos scale base gamma (e.g. 512): queries scale up, keys down. */
  xposScaleBase?: number;
  /** Which channels pair up; frequencies do not depend on it (so ropeConfigFromHF's result passes as is). */
  layout?: RopeLayout;
  /** Only 'rope': a rope encoding may be passed as it is. */
  kind?: 'rope';
}

/** How ropeConfigFromHF reads a config.json. */
export interface HfConfigOptions {
  /** For configs with one rotary table per layer type (Gemma 3): 'full_attention' or 'sliding_attention'. */
  layerType?: string;
  /** YaRN factor: 'explicit' (the factor field, default) or 'legacy' (max / original positions, transformers 4.46–4.50). */
  yarnFactor?: 'explicit' | 'legacy';
}

export interface RopeFrequencies {
  invFreq: Float32Array;
  attentionScale: number;
  rotaryDim: number;
  /** Present for multi-axis RoPE. */
  axes?: number;
  axisOfPair?: Int32Array;
}

/** headDim, when given, must equal the shape's. */
export interface ApplyRopeOptions extends Partial<RopeOptions> {
  inPlace?: boolean;
  out?: FloatOut;
}

export interface HeadsShape {
  heads: number;
  tokens: number;
  headDim: number;
}

export interface SinusoidalOptions {
  dim: number;
  base?: number;
  layout?: SinusoidLayout;
  /** That position's row is zeros (fairseq; pair with positionIds style 'roberta'). */
  paddingIdx?: number;
  out?: FloatOut;
}

export interface LearnedOptions {
  table: FloatInput;
  dim: number;
  outOfRange?: 'error' | 'clamp' | 'interpolate';
  interpolateTo?: number;
  out?: FloatOut;
}

export interface PositionIdsOptions {
  batch?: number;
  length?: number;
  style?: 'hf' | 'roberta';
  paddingIdx?: number;
  past?: number;
}

export interface NextPositionsOptions {
  batch?: number;
  length?: number;
  past?: number;
}

export interface ModalityPositionsOptions {
  offsets: ArrayLike<number>;
  lengths?: ArrayLike<number>;
}

export interface BinaryOptions {
  bits: number;
  dim?: number;
  code?: 'binary' | 'gray';
  radix?: number;
  table?: FloatInput;
  out?: FloatOut;
}

export interface CodeDistanceOptions {
  bits: number;
  code?: 'binary' | 'gray';
  radix?: number;
}

export interface LowRankOptions {
  coefficients: FloatInput;
  basis: FloatInput;
  rank: number;
  dim: number;
  out?: FloatOut;
}

export interface SparseOptions {
  indices: IntInput;
  values: FloatInput;
  k: number;
  basis: FloatInput;
  dim: number;
  out?: FloatOut;
}

export interface RandomFeaturesOptions {
  dim: number;
  seed?: number;
  kind?: 'fourier' | 'mlp';
  sigma?: number;
  scale?: number;
  hidden?: number;
  out?: FloatOut;
}

export interface AxialOptions {
  shape: ArrayLike<number>;
  tables: FloatInput[];
  dims: ArrayLike<number>;
  combine?: 'concat' | 'sum';
  out?: FloatOut;
}

export interface TwoLevelOptions {
  segmentTable: FloatInput;
  innerTable: FloatInput;
  segmentDim: number;
  innerDim: number;
  combine?: 'concat' | 'sum';
  out?: FloatOut;
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

export interface Sine2dOptions extends SineOptions {
  height: number;
  width: number;
}

export interface Sine3dOptions extends Sine2dOptions {
  frames: number;
}

export interface ResizeGridOptions {
  from: [number, number];
  to: [number, number];
  dim: number;
  mode?: 'bicubic' | 'bilinear';
  mapping?: 'size' | 'scaleFactor';
  prefixTokens?: number;
  out?: FloatOut;
}

export interface T5BucketOptions {
  bidirectional?: boolean;
  numBuckets?: number;
  maxDistance?: number;
}

export interface DebertaBucketOptions {
  bucketSize: number;
  maxPosition: number;
  convention?: 'hf' | 'microsoft';
}

/** parameterCount's options per method: the shapes of its learned tables (fixed functions take none). */
export interface ParameterShapes {
  sinusoidal: NoParameters;
  rope: NoParameters;
  alibi: NoParameters;
  sine2d: NoParameters;
  sine3d: NoParameters;
  randomFeatures: NoParameters;
  learned: LearnedShape;
  binary: BinaryShape;
  lowRank: LowRankShape;
  sparse: SparseShape;
  axial: AxialShape;
  t5: T5Shape;
  swin: SwinShape;
  shaw: ShawShape;
  relativeKey: RelativeKeyShape;
  xl: XLShape;
  deberta: DebertaShape;
}
export type NoParameters = Record<string, never>;
export interface LearnedShape {
  maxPositions: number;
  dim: number;
}
export interface BinaryShape {
  bits: number;
  dim: number;
  radix?: number;
  /** false: fixed ±1 digits, nothing learned. */
  learned?: boolean;
}
export interface LowRankShape {
  maxPositions: number;
  rank: number;
  dim: number;
}
export interface SparseShape {
  maxPositions: number;
  k: number;
  basisSize: number;
  dim: number;
}
export interface AxialShape {
  shape: ArrayLike<number>;
  dims: ArrayLike<number>;
}
export interface T5Shape {
  heads: number;
  numBuckets?: number;
}
export interface SwinShape {
  windowSize: [number, number];
  heads: number;
}
export interface ShawShape {
  clip: number;
  headDim: number;
  /** false: key table only. */
  values?: boolean;
}
export interface RelativeKeyShape {
  maxPosition: number;
  headDim: number;
}
export interface XLShape {
  heads: number;
  headDim: number;
  dModel: number;
}
export interface DebertaShape {
  span: number;
  hidden: number;
}

export interface Posenc {
  /** [T, dim] sinusoidal table at the given positions. */
  sinusoidal(positions: IntInput, options: SinusoidalOptions): Float32Array;

  ropeFrequencies(options: RopeOptions): RopeFrequencies;
  /** Reads rope settings from a parsed Hugging Face config.json. */
  ropeConfigFromHF(config: object, options?: HfConfigOptions): RopeOptions & { layout: RopeLayout };
  /** x: [heads, tokens, headDim]; rotates channels < rotaryDim by position, scaled by attentionScale. */
  applyRope<T extends FloatInput>(x: T, shape: HeadsShape, positions: IntInput,
    options?: ApplyRopeOptions): T extends HeapBuffer ? HeapBuffer | Float32Array : Float32Array;

  /** Rotates already-rotated vectors by a position delta per token (cache renumbering); no extra scale. */
  rotateByDelta(x: FloatInput, shape: HeadsShape, deltas: IntInput, options?: ApplyRopeOptions): Float32Array | HeapBuffer;

  // --- additive ---
  learned(positions: IntInput, options: LearnedOptions): Float32Array;
  positionIds(mask: MaskInput, options?: PositionIdsOptions): Int32Array;
  nextPositions(mask: MaskInput, options?: NextPositionsOptions): Int32Array;
  modalityPositions(modalities: IntInput, options: ModalityPositionsOptions): Int32Array;
  binary(positions: IntInput, options: BinaryOptions): Float32Array;
  /** Digits in which the codes of a and b differ (binary 7 -> 8: 4, Gray: 1). */
  codeDistance(a: number, b: number, options: CodeDistanceOptions): number;
  lowRank(positions: IntInput, options: LowRankOptions): Float32Array;
  sparse(positions: IntInput, options: SparseOptions): Float32Array;
  randomFeatures(positions: IntInput, options: RandomFeaturesOptions): Float32Array;
  axial(positions: IntInput, options: AxialOptions): Float32Array;
  twoLevel(segments: IntInput, options: TwoLevelOptions): Float32Array;
  sine2d(options: Sine2dOptions): Float32Array;
  sine3d(options: Sine3dOptions): Float32Array;
  resizeGrid(grid: FloatInput, options: ResizeGridOptions): Float32Array;
  /** Learned parameters a method needs, from its shapes. */
  parameterCount<M extends keyof ParameterShapes>(method: M, options?: ParameterShapes[M]): number;

  // --- relative / attention ---
  t5Bucket(relativePositions: IntInput, options?: T5BucketOptions): Int32Array;
  alibiSlopes(numHeads: number): Float32Array;
  debertaBucket(relativePositions: IntInput, options: DebertaBucketOptions): Int32Array;
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

export type Encoding =
  | NoneEncoding | RopeEncoding | AlibiEncoding | T5Encoding | SwinEncoding | ShawEncoding | XLEncoding | DebertaEncoding | RelativeKeyEncoding;

export interface NoneEncoding {
  kind: 'none';
}
/** headDim, when given, must equal the attention's. */
export interface RopeEncoding extends Partial<RopeOptions> {
  kind: 'rope';
}
export interface AlibiEncoding {
  kind: 'alibi';
  heads?: number;
  slopes?: FloatInput;
  symmetric?: boolean;
}
export interface T5Encoding {
  kind: 't5';
  heads?: number;
  table: FloatInput;
  bidirectional?: boolean;
  numBuckets?: number;
  maxDistance?: number;
}
export interface SwinEncoding {
  kind: 'swin';
  heads?: number;
  table: FloatInput;
  windowSize: [number, number];
}
export interface ShawEncoding {
  kind: 'shaw';
  clip: number;
  keyTable: FloatInput;
  valueTable?: FloatInput;
}
export interface XLEncoding {
  kind: 'xl';
  u: FloatInput;
  v: FloatInput;
  r?: FloatInput;
  wR?: FloatInput;
  dModel?: number;
}
export interface DebertaEncoding {
  kind: 'deberta';
  posKey?: FloatInput;
  posQuery?: FloatInput;
  span: number;
  bucketSize?: number;
  maxPosition?: number;
  convention?: 'hf' | 'microsoft';
  terms?: Array<'c2p' | 'p2c'>;
}
export interface RelativeKeyEncoding {
  kind: 'relativeKey';
  table: FloatInput;
  maxPosition: number;
  keyQuery?: boolean;
}

export interface AttentionArgs {
  q: FloatInput;
  k: FloatInput;
  v: FloatInput;
  heads: number;
  kvHeads?: number;
  headDim: number;
  qLen: number;
  kLen: number;
  qPositions?: IntInput;
  kPositions?: IntInput;
  causal?: boolean;
  window?: number;
  keyMask?: MaskInput;
  scale?: number;
  encoding?: Encoding;
  returnWeights?: boolean;
  returnScores?: boolean;
  out?: FloatOut;
}

export interface KVCacheOptions {
  batch?: number;
  kvHeads: number;
  headDim: number;
  capacity: number;
  /** Keep only the last `window` tokens (ring buffer) after `sinks` first tokens. */
  window?: number;
  sinks?: number;
  rope?: KVCacheRope;
}

/** The cache's own rope; headDim, when given, must equal the cache's. */
export interface KVCacheRope extends Partial<RopeOptions> {}

/** positions / mask: [batch*T]. */
export interface AppendOptions {
  positions?: IntInput;
  mask?: MaskInput;
}

export interface AttendOptions {
  heads: number;
  encoding?: Encoding;
  qPositions?: IntInput;
  causal?: boolean;
  scale?: number;
  out?: FloatOut;
}

export interface KVCache {
  readonly batch: number;
  readonly capacity: number;
  /** k, v raw [batch, kvHeads, T, headDim]. */
  append(k: FloatInput, v: FloatInput, options?: AppendOptions): this;
  /** q [batch, heads, qLen, headDim]. */
  attend(q: FloatInput, options: AttendOptions): { out: Float32Array };
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
