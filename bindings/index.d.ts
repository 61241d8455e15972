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
}

export interface RopeFrequencies {
  invFreq: Float32Array;
  attentionScale: number;
  rotaryDim: number;
}

export type RopeLayout = 'half' | 'interleaved';

export interface ApplyRopeOptions extends Partial<RopeOptions> {
  layout?: RopeLayout;
  inPlace?: boolean;
  out?: FloatOut;
}

export interface Posenc {
  /** [T, dim] sinusoidal table at the given positions. */
  sinusoidal(positions: IntInput, options: { dim: number; base?: number; layout?: SinusoidLayout; out?: FloatOut }): Float32Array;

  ropeFrequencies(options: RopeOptions): RopeFrequencies;
  /** Reads rope settings from a parsed Hugging Face config.json. */
  ropeConfigFromHF(config: object): RopeOptions & { layout: RopeLayout };
  /** x: [heads, tokens, headDim]; rotates channels < rotaryDim by position, scaled by attentionScale. */
  applyRope<T extends FloatInput>(x: T, shape: { heads: number; tokens: number; headDim: number }, positions: IntInput,
    options?: ApplyRopeOptions): T extends HeapBuffer ? HeapBuffer | Float32Array : Float32Array;

  /** A heap-resident buffer of `length` floats for the zero-copy path. */
  alloc(length: number): HeapBuffer;
}

/** Instantiates the WebAssembly module (once) and resolves to the API. */
export function load(): Promise<Posenc>;
export default load;
