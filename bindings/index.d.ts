// Hand-written declarations of posenc's functions and classes (Emscripten 3.1.6 cannot emit them).
// Every options object (the encoding kinds, Encoding and its members; the calls' options, SinusoidalOptions
// ... AttentionArgs, KVCacheOptions, AppendOptions, AttendOptions, RopeOptions, RopeScaling, every
// parameterCount shape) is generated
// from the registry into options.d.ts (scripts/gen-types.mjs: keys, types, defaults, ranges and docs from
// src/registry.cpp and src/encodings/) and re-exported here.
import type {
  AppendOptions, ApplyRopeOptions, AttendOptions, AttentionArgs, AttentionConfigOptions, AxialOptions,
  BinaryOptions, CodeDistanceOptions, DebertaBucketOptions, Encoding, HeadsShape, HfConfigOptions,
  KVCacheOptions, LearnedOptions, LowRankOptions, ModalityPositionsOptions, NextPositionsOptions,
  ParameterShapes, PositionIdsOptions, RandomFeaturesOptions, ResizeGridOptions, RopeEncoding, RopeOptions,
  RopeScaling, ScalarBiasEncoding, Sine2dOptions, Sine3dOptions, SinusoidalOptions, SparseOptions,
  T5BucketOptions, TemperatureEncoding, TwoLevelOptions,
} from './options.js';
export * from './options.js';

// `Symbol.dispose` (explicit resource management) is in TypeScript's lib only with esnext.disposable
// (esnext; not es2024 as of TypeScript 5.9); declared here so these types compile under other `lib`
// settings without skipLibCheck (the same declaration as TypeScript's, so it merges with it where the lib
// has it). A `using` declaration needs that lib anyway (the global type Disposable): see the README.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/**
 * posenc: transformer positional encodings computed exactly as their reference implementations do,
 * by a C++17 core compiled to WebAssembly.
 *
 * Call {@link load} once and use the {@link Posenc} object it resolves to. Position enters attention in
 * three places, and the API follows them:
 *
 * - additive: a vector per position, added to the token embeddings ({@link Posenc.sinusoidal},
 *   {@link Posenc.learned}, {@link Posenc.binary}, {@link Posenc.axial}, {@link Posenc.sine2d}, ...);
 * - rotary: q and k rotated by position ({@link Posenc.ropeFrequencies}, {@link Posenc.applyRope},
 *   {@link Posenc.ropeConfigFromHF});
 * - score terms: something added to the q·k score ({@link Posenc.attention} with an {@link Encoding},
 *   {@link Posenc.attentionBias}, {@link Posenc.t5Bucket}, {@link Posenc.alibiSlopes}, ...).
 *
 * A {@link KVCache} keeps a logical position per slot for generation.
 *
 * Conventions used on every page:
 * - Tensors are row-major. Shapes are written [a, b, c]: the last index varies fastest.
 * - Float results are fresh `Float32Array`s owned by JavaScript, integer results `Int32Array`s.
 * - Positions are integers in [0, 2^31); relative positions may be negative.
 * - A wrong type (a string for a number, `null` for an option, an unknown or misspelt option key) is a
 *   `TypeError`; a value out of range is a `RangeError`. Both name the offending field, and a failed call
 *   changes nothing (the module and any `KVCache` stay usable).
 * - Options objects are strict: each accepts exactly the keys documented on its interface. Leave an
 *   option out to get its default.
 * - Where reference implementations disagree, the difference is an option whose choices name them.
 *
 * @packageDocumentation
 */

/**
 * Float tensor input, row-major.
 *
 * - A `Float32Array` is read as it is.
 * - A `Float64Array`, another numeric typed array or a `number[]` is converted to float32 (a plain
 *   array must hold only numbers, else `TypeError`).
 * - A {@link HeapBuffer} from {@link Posenc.alloc} is read where it lies in the wasm heap (no copy).
 *
 * Each function states the shape it expects; a length that disagrees with it is a `RangeError`.
 */
export type FloatInput = Float32Array | Float64Array | ArrayLike<number> | HeapBuffer;
/**
 * Integers: positions (integers in [0, 2^31)) or relative positions (any 32-bit integer; may be negative).
 *
 * An `Int32Array` is used as it is; other integer typed arrays, `Float32Array`/`Float64Array` and
 * `number[]` are converted, checking that every element is an integer that fits in 32 bits
 * (`RangeError` naming the element otherwise, e.g. `positions[3]`).
 */
export type IntInput = Int32Array | ArrayLike<number>;
/**
 * A 0/1 mask: 1 = a real token (or a key to attend, a valid pixel), 0 = padding. Any other value is a
 * `RangeError` naming the element. Accepted as `Uint8Array`, `Int32Array` or `number[]` (as {@link IntInput}).
 */
export type MaskInput = Uint8Array | Int32Array | ArrayLike<number>;
/**
 * Where to write a float result instead of allocating a new array (the `out` option): a
 * `Float32Array` or a {@link HeapBuffer} whose length is exactly the result's (`RangeError` otherwise).
 * The call then returns this same object.
 */
export type FloatOut = Float32Array | HeapBuffer;

/**
 * A block of float32 values inside the wasm heap, from {@link Posenc.alloc}: the zero-copy path for
 * large tensors. Every function that takes a {@link FloatInput} reads a `HeapBuffer` in place, and
 * every `out` option can write into one. Free it with `delete()` (or a `using` declaration); a deleted
 * buffer passed to a function is a `RangeError`. A buffer dropped without `delete()` is freed when the
 * garbage collector finalizes it — late, and not at all if the program ends first.
 */
export interface HeapBuffer {
  /** Number of float32 elements (not bytes). */
  readonly length: number;
  /** Byte address of the first element in the wasm heap, in [0, 2^32). Throws `RangeError` once the buffer is deleted. */
  readonly byteOffset: number;
  /** Whether `delete()` has been called. */
  readonly deleted: boolean;
  /**
   * A `Float32Array` view of the buffer on the wasm heap, to fill or read it without a copy.
   * Call it again after any posenc call or allocation: when the heap grows, views made before are
   * detached (length 0). Throws `RangeError` once the buffer is deleted.
   */
  view(): Float32Array;
  /** Frees the buffer. Calling it again does nothing. */
  delete(): void;
  /** Same as `delete()`, for `using` declarations. */
  [Symbol.dispose](): void;
}

/**
 * Channel order of a sinusoidal table ({@link SinusoidalOptions.layout}); d = dim, b = base, p = position.
 *
 * - `'interleaved'`: PE[p, 2k] = sin(p·b^(−2k/d)), PE[p, 2k+1] = cos(p·b^(−2k/d)). The paper's form, as
 *   Hugging Face DistilBERT `create_sinusoidal_embeddings`; an odd d ends on a sine column.
 * - `'concat'`: all sines, then all cosines, same frequencies (Transformer-XL `PositionalEmbedding`,
 *   HF Marian `MarianSinusoidalPositionalEmbedding`): ⌈d/2⌉ sine columns then ⌊d/2⌋ cosine columns.
 * - `'tensor2tensor'`: concat with frequencies b^(−k/(d/2 − 1)), k < d/2 (tensor2tensor
 *   `get_timing_signal_1d`, fairseq `SinusoidalPositionalEmbedding`): a different table, not a
 *   permutation. An odd d gets a trailing zero column.
 */
export type SinusoidLayout = 'interleaved' | 'concat' | 'tensor2tensor';

// Every options interface below lists exactly the keys of its table in the C++ registry (src/registry.cpp; a test
// holds them equal): an unknown key is a TypeError, and so is null — leave an option out instead.

/**
 * Which channels of a head vector pair up to rotate (h = rotaryDim/2):
 * - `'half'`: pairs (i, i + h), `rotate_half` (Hugging Face Llama / GPT-NeoX, ggml NEOX mode);
 * - `'interleaved'`: pairs (2i, 2i + 1) (GPT-J `rotate_every_two`, ggml NORMAL mode).
 *
 * The frequencies are the same; the two give different results on the same weights.
 */
export type RopeLayout = 'half' | 'interleaved';

/** A config.json key the model type's Hugging Face code never reads: posenc ignores it too, and lists it. */
export interface HfIgnoredKey {
  /** The config's own path, e.g. `'config.use_mrope'` or `'config.text_config.rope_parameters.foo'`. */
  readonly key: string;
  /** Its value as the config gives it. */
  readonly value: unknown;
  /** Why it has no effect (e.g. "Hugging Face's qwen2 code does not read it"). */
  readonly reason: string;
}

/**
 * The layer types posenc's config reader gives a layer itself (src/rotary/hf_config.cpp): `'sliding_attention'`
 * sets {@link HfLayer.window}, `'chunked_attention'` (Llama 4) {@link HfLayer.chunk}.
 */
export type HfLayerType = 'full_attention' | 'sliding_attention' | 'chunked_attention';
/** One decoder layer's attention, as the model type's code builds it ({@link HfAttentionShape.layers}). */
export interface HfLayer {
  /**
   * One of the {@link HfLayerType}s the reader assigns from the family's rule, or, when the config has
   * `layer_types`, that list's entry as written (e.g. Qwen3-Next's `'linear_attention'`, which posenc reads
   * as full attention: no window, no chunk).
   */
  readonly type: HfLayerType | (string & {});
  /** `false` for a NoPE layer (Llama 4 / SmolLM3 `no_rope_layers[i] = 0`, Cohere2 and hybrid EXAONE 4 global layers). */
  readonly rope: boolean;
  /** Sliding window in tokens (attention's `window`), 0 = none. */
  readonly window: number;
  /** Chunked attention (Llama 4 RoPE layers): queries see only keys of their own chunk of this many tokens; 0 = none. */
  readonly chunk: number;
  /** Whether the result's `temperature` scales this layer's queries. */
  readonly temperature: boolean;
}

/** The attention shape of a config ({@link Posenc.ropeConfigFromHF}'s `attention`). */
export interface HfAttentionShape {
  /** `num_attention_heads` (or `n_head`, `num_heads`, `n_heads`); 0 when the config has none. */
  readonly heads: number;
  /** `num_key_value_heads` (`num_kv_heads`, Falcon `multi_query` = 1, DBRX `attn_config.kv_n_heads`); default `heads`. */
  readonly kvHeads: number;
  /** q·k channels per head: `head_dim`, else hidden / heads (DeepSeek MLA: `qk_nope_head_dim + qk_rope_head_dim`). */
  readonly headDim: number;
  /** The sliding window some layer uses (0 = none). */
  readonly slidingWindow: number;
  /** One per `num_hidden_layers` (empty when the config does not give the count): `layer_types`, else the family's pattern. */
  readonly layers: readonly HfLayer[];
}

/** Which layer a plan is for, as the config makes it ({@link Posenc.attentionConfigFromHF}'s `layer`). */
export interface AttentionPlanLayer extends HfLayer {
  /** The layer index asked for. */
  readonly index: number;
}

/**
 * One decoder layer's attention, as its model's transformers code computes it: {@link Posenc.attentionConfigFromHF}.
 * Frozen; spread its parts into the calls (`{ ...plan.attention, q, k, v, qLen, kLen }`).
 */
export interface AttentionPlan {
  /**
   * For {@link Posenc.attention}: heads, kvHeads, headDim, causal, scale (always given: the family's), encoding
   * (the layer type's rope table, `{ kind: 'none' }` on NoPE layers, the query temperature, ALiBi, or rope and
   * temperature together), and window, chunk and softcap when the layer has them. DeepSeek V2 / V3 (multi-head
   * latent attention): headDim is `qk_nope_head_dim + qk_rope_head_dim`, the rope table rotates from
   * `rotaryOffset` = `qk_nope_head_dim` on, and `valueDim` is `v_head_dim` (v and out are that wide).
   */
  readonly attention: Readonly<Pick<AttentionArgs, 'heads' | 'kvHeads' | 'headDim' | 'valueDim' | 'causal' | 'scale' | 'encoding' | 'window' | 'chunk' | 'softcap'>>;
  /**
   * For `new pe.KVCache({ capacity, ...plan.cache })`: kvHeads, headDim, and valueDim, rope, window and chunk when
   * the layer has them (a chunked layer's cache also keeps `window` = chunk: it holds one chunk, as Hugging Face's
   * does). `capacity` must hold the window.
   */
  readonly cache: Readonly<Pick<KVCacheOptions, 'kvHeads' | 'headDim' | 'valueDim' | 'rope' | 'window' | 'chunk'>>;
  /** For {@link KVCache.attend}: heads, scale, and the encoding on top of the cache's rope (temperature, ALiBi) and softcap. */
  readonly attend: Readonly<Pick<AttendOptions, 'heads' | 'scale' | 'encoding' | 'softcap'>>;
  /**
   * Checkpoint tensors the layer needs besides q, k and v, by the option that takes them: `['sinkLogits']` for
   * gpt-oss (its per-head `sinks`), `[]` otherwise.
   */
  readonly requires: readonly 'sinkLogits'[];
  /** The layer: index, type, rope (false: NoPE or ALiBi), window, chunk, temperature. */
  readonly layer: AttentionPlanLayer;
  /** Where the scale comes from, in the config's words: `'head_dim^-1/2 (head_dim 128)'`, `'query_pre_attn_scalar^-1/2 (224)'`, `'attention_multiplier (0.015625)'`. */
  readonly scaleRule: string;
  /** Present when the reading ignored or assumed something (as {@link Posenc.ropeConfigFromHF}'s `warnings`). */
  readonly warnings?: readonly string[];
  /** Keys the model type's code does not read (not enumerable). */
  readonly ignored: readonly HfIgnoredKey[];
  /** The model_type whose rules were followed (not enumerable). */
  readonly modelType: string;
}

/** What {@link Posenc.ropeFrequencies} returns: the angle each rotary pair turns by per position, and the scale. */
export interface RopeFrequencies {
  /**
   * Angular frequency of each rotary pair, in radians per position: [rotaryDim/2]. Pair i of a token at
   * position p turns by p·invFreq[i]. (posenc forms the angles in float64 from these float64 values;
   * this array is their float32 rounding.)
   */
  invFreq: Float32Array;
  /**
   * Multiplies cos and sin of every rotated channel (HF `attention_scaling`, ggml `mscale`): 1 except
   * for YaRN and longrope. In (0, 1e4].
   */
  attentionScale: number;
  /**
   * Channels that rotate: int(headDim·partialRotaryFactor), even; they start at `rotaryOffset` (0 by
   * default), and the other channels pass through.
   */
  rotaryDim: number;
  /** Number of position axes: sections.length for `'mrope'`, 2 for `'axial2d'`. Present only when it exceeds 1. */
  axes?: number;
  /** [rotaryDim/2]: the axis (0-based) whose position drives each pair. Present only with `axes`. */
  axisOfPair?: Int32Array;
}

/** No options: the method learns no parameters (any key is a `TypeError`). */
export type NoParameters = Record<string, never>;

/**
 * The API object that {@link load} resolves to. Every method validates its arguments before anything
 * runs (see the conventions on the package page) and returns fresh JS-owned arrays.
 *
 * Examples on this page assume `const pe = await load();`.
 */
export interface Posenc {
  /**
   * Fixed sinusoidal position table (Vaswani et al. 2017) in one of three reference layouts
   * ({@link SinusoidLayout}), to add to token embeddings. Angles are formed in float64, so rows stay
   * within 1e-6 of exact at every position up to 2^31 − 1 (float32 angle math is ~1e-3 off at 65535).
   *
   * @param positions - Positions to encode [T]: integers in [0, 2^31).
   * @param options - Width, base, layout ({@link SinusoidalOptions}).
   * @returns [T, dim] float32, row t for positions[t] (or `options.out`).
   * @see Hugging Face DistilBERT `create_sinusoidal_embeddings` (`'interleaved'`), Transformer-XL
   * `PositionalEmbedding` / HF Marian (`'concat'`), tensor2tensor `get_timing_signal_1d` / fairseq
   * `SinusoidalPositionalEmbedding` (`'tensor2tensor'`).
   * @example
   * ```ts
   * const table = pe.sinusoidal([0, 1, 2, 3], { dim: 8 });  // [4, 8], interleaved sin/cos
   * table[8];                                                // sin(1·10000^0) = sin(1) ≈ 0.8415
   * const t2t = pe.sinusoidal([0, 1, 2, 3], { dim: 8, layout: 'tensor2tensor' });
   * ```
   */
  sinusoidal<O extends FloatOut = Float32Array>(positions: IntInput, options: SinusoidalOptions & { out?: O }): O;

  /**
   * RoPE frequencies of a configuration: the angle each rotary pair turns by per position (radians per
   * position), the attention scale folded into cos/sin, and the rotary dim. Computed in float64 as
   * Hugging Face `modeling_rope_utils` (`_compute_default_rope_parameters` and the `_compute_*_parameters`
   * of each {@link RopeScaling} type), or as llama.cpp with convention `'ggml'`.
   *
   * @param options - The rotary configuration; `headDim` is required ({@link RopeOptions}).
   * @returns invFreq [rotaryDim/2], attentionScale, rotaryDim (and the axes for multi-axis RoPE).
   * @see Hugging Face `modeling_rope_utils` (`ROPE_INIT_FUNCTIONS`); llama.cpp ggml `rope_yarn` and
   * `ggml_rope_yarn_corr_dims` for convention `'ggml'`.
   * @example
   * ```ts
   * // Llama 3.1: base 500000, llama3 scaling
   * const { invFreq, attentionScale, rotaryDim } = pe.ropeFrequencies({
   *   headDim: 128, base: 500000,
   *   scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
   * });
   * // rotaryDim = 128, invFreq.length = 64, invFreq[0] = 1 (radian per position), attentionScale = 1
   * ```
   */
  ropeFrequencies(options: RopeOptions): RopeFrequencies;
  /**
   * Reads the rotary setup of a model from its parsed Hugging Face `config.json`, as the model's own
   * modeling code derives it, returning options that {@link Posenc.ropeFrequencies},
   * {@link Posenc.applyRope}, a rope {@link RopeEncoding} and {@link KVCacheOptions.rope} accept as
   * they are. The same reader serves C++ (`posenc::ropeConfigFromHF`).
   *
   * Rules are chosen per `model_type` (the text model's, for a multimodal config with a `text_config`),
   * following each family's `modeling_*.py` in transformers. An unknown model type is a `TypeError` naming
   * the nearest known ones (`{ unknownModelType: 'generic' }` reads it with the Llama rules); a config without
   * `model_type` is read with the Llama rules and says so in `warnings`. The
   * table of families is `docs/hf-families.md` in the repository. In short:
   * - head dim: `head_dim`, else hidden_size / num_attention_heads (or their GPT-2 / T5 spellings);
   *   DeepSeek's rope head `qk_rope_head_dim`;
   * - rotating channels: `partial_rotary_factor`, `rotary_pct`, `rope_pct` or `rotary_dim`, else the
   *   family's default (e.g. GPT-NeoX 0.25, Phi 0.5, GPT-J 64 channels);
   * - base: `rope_theta` (inside the rope parameters or at top level) or `rotary_emb_base`, else the
   *   family's default; where that default changed between transformers versions the field is required;
   * - layout: `'interleaved'` for the families whose code rotates pairs (2i, 2i + 1) (GPT-J, CodeGen,
   *   Cohere, DeepSeek, GLM, Llama 4, ...), `'half'` otherwise;
   * - schedule: `rope_parameters` (transformers 5) or `rope_scaling` with `rope_type`/`type` and the
   *   fields that type uses (fields of another type are skipped, as Hugging Face only warns). An explicit
   *   `factor` wins (but see {@link HfConfigOptions.yarnFactor}); without one (DeepSeek-V3 YaRN, Phi-3
   *   longrope) factor = max_position_embeddings / original_max_position_embeddings;
   * - M-RoPE: `mrope_section` (Qwen2-VL, contiguous sections) and Qwen3-VL's interleaved sections.
   *
   * Read as Hugging Face reads it: a key the model type's code never reads (Qwen2.5's `use_mrope`, SmolLM2's
   * `rope_interleaved`, StableLM-epoch's `rotary_scaling_factor`, `rope_local_base_freq` outside Gemma 3,
   * `rope_theta` in GPT-J, an unrecognised key inside the rope parameters) is ignored and listed in `ignored`
   * and `warnings`; `{ strict: true }` refuses it instead. A misspelt key — one no model type's config uses,
   * a few edits from a key this model type reads (`rope_scalling`, `rope_thetta`, `factr` inside
   * `rope_scaling`) — is a `TypeError`: `config: unknown key 'rope_scalling': did you mean 'rope_scaling'?`.
   * A key the code reads and posenc does not implement, an unknown
   * rotary key of a model type read generically, or a model type without rotary embeddings (BERT,
   * GPT-2, T5, Bloom, ...) is an error naming it. Configs with one rotary table per layer type (Gemma 3,
   * ModernBERT) need {@link HfConfigOptions.layerType}. The schedule is range-checked as ropeFrequencies would. Add
   * `seqLen` yourself for dynamic NTK and longrope.
   *
   * @param config - The parsed config.json object (JSON values only: NaN, ±∞, functions or cycles are named errors).
   * @param options - Which layer type's table, the YaRN factor rule, strictness and what an unknown
   * model type means ({@link HfConfigOptions}).
   * @returns headDim, base and layout; partialRotaryFactor, scaling, multiAxis, sections and
   * mropeInterleaved only when the config sets them.
   * @throws `TypeError` (a value of the wrong JSON type, an unknown model type, a misspelt key) or
   * `RangeError` naming the config.json key to fix, e.g. `config.rope_scaling.factor must be a number >= 1 (got 0.5)`.
   * @see Hugging Face `modeling_rope_utils` (`rope_config_validation`, `_compute_*_parameters`) and each
   * model's `modeling_*.py`.
   * @example
   * ```ts
   * const rope = pe.ropeConfigFromHF({
   *   model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 131072, rope_theta: 500000,
   *   rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4,
   *     original_max_position_embeddings: 8192 },
   * });
   * // { headDim: 128, base: 500000, layout: 'half', scaling: { type: 'llama3', factor: 8, ... } }
   * const { invFreq } = pe.ropeFrequencies(rope);
   * ```
   */
  ropeConfigFromHF(config: object, options?: HfConfigOptions): RopeOptions & {
    /** Which channels pair up, from the model type (always present). */
    layout: RopeLayout;
    /**
     * Keys the model type's Hugging Face code does not read, so posenc ignored them (empty with
     * `strict`, which refuses them). Not enumerable, like `temperature` and `attention`: spreading the
     * result (`{ ...rope, kind: 'rope' }`) copies only the rotary options.
     */
    readonly ignored: readonly HfIgnoredKey[];
    /**
     * Present (and enumerable, so printing the result shows it) when the reading ignored or assumed
     * something: one sentence per ignored key (`'config.use_mrope is ignored: Hugging Face's qwen2 code
     * does not read it'`) and for a missing `model_type`. `strict` refuses each instead. Passing the result
     * on as rope options is fine: this array is left out there (a copy of it is an unknown option).
     */
    readonly warnings?: readonly string[];
    /**
     * The query temperature of the layers whose `attention.layers[i].temperature` is set, or `null`:
     * Ministral 3 `{ beta: llama_4_scaling_beta, length: rope original_max_position_embeddings, offset: 0 }`
     * on every layer; Llama 4 `{ beta: attn_scale, length: floor_scale, offset: 1 }` on its NoPE layers
     * when `attn_temperature_tuning` is on (its default).
     */
    readonly temperature: Readonly<TemperatureEncoding> | null;
    /** Heads, kv heads, head dim, sliding window and per-layer types ({@link HfAttentionShape}). */
    readonly attention: HfAttentionShape;
  };
  /**
   * One decoder layer's attention from a parsed Hugging Face `config.json`, as the model's own transformers code
   * computes it: objects to spread into {@link Posenc.attention}, `new pe.KVCache` and {@link KVCache.attend}. Read
   * by the same reader as {@link Posenc.ropeConfigFromHF} (C++: `posenc::attentionConfigFromHF`).
   *
   * The plan holds the head counts; the softmax scale as the family's code computes it (head_dim^−½; Gemma 2 / 3
   * query_pre_attn_scalar^−½; Granite attention_multiplier; MPT attn_config.softmax_scale); the rotary table of the
   * layer's type (Gemma 3's local and global tables), or none on NoPE layers (Llama 4, SmolLM3, Cohere2, EXAONE 4);
   * the query temperature (Llama 4's NoPE layers, Ministral 3); the sliding window (keys with q − k ≥ window masked,
   * as Hugging Face's mask) or chunk; ALiBi (Bloom, MPT); logit soft-capping (Gemma 2's `attn_logit_softcapping`;
   * `final_logit_softcapping` caps the LM head's logits, not attention, and is not part of it); and `requires`:
   * checkpoint tensors the caller brings (gpt-oss's sink logits).
   *
   * q, k and v are the projections as the model's code holds them right before RoPE (after any q / k norm; Llama 4's
   * L2 norm, which its code applies after RoPE, may be applied before it: rotations keep norms), in posenc's
   * [heads, tokens, headDim] layout. Phi-3's longrope switches to its long factors when a sequence passes
   * `original_max_position_embeddings`: add `seqLen` to the rope options then, as Hugging Face does.
   *
   * @param config - The parsed config.json object.
   * @param options - The layer and the reading's options ({@link AttentionConfigOptions}).
   * @returns The plan ({@link AttentionPlan}).
   * @throws `RangeError` naming `layer` and num_hidden_layers for a layer past the config's, or the key that makes
   * the layer's attention one posenc cannot reproduce (Falcon's `alibi`, Gemma's `use_bidirectional_attention` on a
   * sliding layer, ...); `TypeError` for an unknown option (`layerType` included) or a value of the wrong JSON type;
   * every error of {@link Posenc.ropeConfigFromHF}.
   * @example
   * ```ts
   * // google/gemma-2-2b-it's attention keys: layer 0 slides over 4096 keys, caps logits at 50, scales by 256^-1/2
   * const config = { model_type: 'gemma2', hidden_size: 2304, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256,
   *   num_hidden_layers: 26, query_pre_attn_scalar: 256, attn_logit_softcapping: 50.0, sliding_window: 4096, rope_theta: 10000.0 };
   * const plan = pe.attentionConfigFromHF(config, { layer: 0 });  // plan.attention.window === 4096, softcap === 50
   * const qLen = 2, kLen = 3;
   * const q = new Float32Array(8 * qLen * 256).fill(0.1), k = new Float32Array(4 * kLen * 256).fill(0.2), v = k.slice();
   * const { out } = pe.attention({ q, k, v, qLen, kLen, ...plan.attention });
   * const cache = new pe.KVCache({ capacity: 4096, ...plan.cache });  // the capacity holds the window
   * cache.append(k, v);
   * const step = cache.attend(q, { ...plan.attend });  // equals `out`
   * cache.delete();
   * ```
   */
  attentionConfigFromHF(config: object, options: AttentionConfigOptions): AttentionPlan;
  /**
   * Applies RoPE to head vectors: the first rotaryDim channels of each vector turn by position·invFreq
   * and are multiplied by attentionScale (as Hugging Face and ggml fold it into cos/sin); channels
   * ≥ rotaryDim pass through. An odd rotary dim is a `RangeError`. Angles are formed in float64, so
   * rotations stay within 1e-6 of exact up to position 2^31 − 1. With `xposScaleBase` this applies the
   * query-side xPos scale ζ^(p/γ).
   *
   * @typeParam X - The type of `x`, returned as it is with `inPlace: true` (a Float32Array or a {@link HeapBuffer}).
   * @param x - Head vectors [heads, tokens, headDim] (q or k of one sequence).
   * @param shape - [heads, tokens, headDim] of `x` ({@link HeadsShape}).
   * @param positions - Position of each token [tokens], integers in [0, 2^31); [axes, tokens] for multi-axis RoPE.
   * @param options - The rotary configuration and layout ({@link ApplyRopeOptions}); default RoPE base 10000, `'half'` layout.
   * @returns The rotated tensor [heads, tokens, headDim]: a new Float32Array, or `x` with `inPlace`, or `options.out`.
   * @see Hugging Face `apply_rotary_pos_emb` / `rotate_half` (layout `'half'`), GPT-J `rotate_every_two`
   * (`'interleaved'`), ggml NEOX / NORMAL rope modes.
   * @example
   * ```ts
   * const heads = 2, tokens = 3, headDim = 64;
   * const q = new Float32Array(heads * tokens * headDim).fill(1);
   * const qRot = pe.applyRope(q, { heads, tokens, headDim }, [10, 11, 12], { base: 500000 });
   * // the same rotation, written into q itself
   * pe.applyRope(q, { heads, tokens, headDim }, [10, 11, 12], { base: 500000, inPlace: true });
   * ```
   */
  applyRope<X extends Float32Array | HeapBuffer>(x: X, shape: HeadsShape, positions: IntInput,
    options: ApplyRopeOptions & { inPlace: true }): X;
  /** With `out`: writes the rotated tensor there and returns `out` (`x` is left unchanged). */
  applyRope<O extends FloatOut>(x: FloatInput, shape: HeadsShape, positions: IntInput,
    options: ApplyRopeOptions & { inPlace?: false; out: O }): O;
  /** Without `inPlace` or `out`: returns a new Float32Array (also for a {@link HeapBuffer} `x`, which is left unchanged). */
  applyRope(x: FloatInput, shape: HeadsShape, positions: IntInput,
    options?: ApplyRopeOptions & { inPlace?: false; out?: undefined }): Float32Array;
  /** Options not known at compile time (`inPlace` a boolean, `out` maybe given): `x`, `out` or a new Float32Array. */
  applyRope(x: FloatInput, shape: HeadsShape, positions: IntInput, options?: ApplyRopeOptions): FloatOut;

  /**
   * Rotates already-rotated vectors by a position delta per token: moves keys rotated at position p to
   * p + delta (cache renumbering, context shift, attention sinks) without applying the attention scale
   * again. rotateByDelta(−δ) after rotateByDelta(δ) returns the input to float tolerance. With
   * `xposScaleBase` the key-side xPos scale ζ^(−δ/γ) is applied.
   *
   * @typeParam X - The type of `x`, returned as it is with `inPlace: true` (a Float32Array or a {@link HeapBuffer}).
   * @param x - Rotated head vectors [heads, tokens, headDim].
   * @param shape - [heads, tokens, headDim] of `x` ({@link HeadsShape}).
   * @param deltas - Position change of each token [tokens]: integers in [−(2^31 − 1), 2^31 − 1], may be negative.
   * @param options - The same rotary configuration the vectors were rotated with ({@link ApplyRopeOptions}).
   * @returns The moved tensor [heads, tokens, headDim]: a new Float32Array, or `x` with `inPlace`, or `options.out`.
   * @see llama.cpp context shift (`llama_kv_self_seq_add` re-rotates cached K by the delta).
   * @example
   * ```ts
   * const shape = { heads: 1, tokens: 2, headDim: 8 };
   * const k = new Float32Array(16).fill(1);
   * const at5 = pe.applyRope(k, shape, [5, 6]);
   * const at105 = pe.rotateByDelta(at5, shape, [100, 100]);  // ≈ pe.applyRope(k, shape, [105, 106])
   * ```
   */
  rotateByDelta<X extends Float32Array | HeapBuffer>(x: X, shape: HeadsShape, deltas: IntInput,
    options: ApplyRopeOptions & { inPlace: true }): X;
  /** With `out`: writes the moved tensor there and returns `out` (`x` is left unchanged). */
  rotateByDelta<O extends FloatOut>(x: FloatInput, shape: HeadsShape, deltas: IntInput,
    options: ApplyRopeOptions & { inPlace?: false; out: O }): O;
  /** Without `inPlace` or `out`: returns a new Float32Array (also for a {@link HeapBuffer} `x`, which is left unchanged). */
  rotateByDelta(x: FloatInput, shape: HeadsShape, deltas: IntInput,
    options?: ApplyRopeOptions & { inPlace?: false; out?: undefined }): Float32Array;
  /** Options not known at compile time (`inPlace` a boolean, `out` maybe given): `x`, `out` or a new Float32Array. */
  rotateByDelta(x: FloatInput, shape: HeadsShape, deltas: IntInput, options?: ApplyRopeOptions): FloatOut;

  // --- additive ---
  /**
   * Looks positions up in a learned position table (rows = positions), with an explicit policy for
   * positions past its end ({@link LearnedOptions.outOfRange}).
   *
   * @param positions - Positions [T]: integers in [0, 2^31).
   * @param options - The table and the out-of-range policy ({@link LearnedOptions}).
   * @returns [T, dim] float32 (or `options.out`).
   * @see BERT `position_embeddings` / GPT-2 `wpe` lookups (Hugging Face); positions from
   * {@link Posenc.positionIds}.
   * @example
   * ```ts
   * const table = new Float32Array([0, 0, 1, 1, 2, 2, 3, 3]);              // [4 rows, dim 2]
   * pe.learned([0, 3], { table, dim: 2 });                                  // [0, 0, 3, 3]
   * pe.learned([5], { table, dim: 2, outOfRange: 'clamp' });                // [3, 3]: the last row
   * ```
   */
  learned<O extends FloatOut = Float32Array>(positions: IntInput, options: LearnedOptions & { out?: O }): O;
  /**
   * Position ids for a padded batch, from its attention mask: each row counts only its real tokens, so
   * left padding does not shift positions.
   *
   * @param mask - [batch, length] 0/1, 1 = real token.
   * @param options - Batch, style, paddingIdx, past ({@link PositionIdsOptions}).
   * @returns [batch, length] Int32Array.
   * @see Hugging Face `generate` (`cumsum(attention_mask) − 1`, pads set to 1) for style `'hf'`; fairseq
   * `make_positions` / HF RoBERTa `create_position_ids_from_input_ids` for `'roberta'`.
   * @example
   * ```ts
   * const mask = [0, 0, 1, 1,
   *               1, 1, 1, 1];
   * pe.positionIds(mask, { batch: 2 });                     // [1, 1, 0, 1,  0, 1, 2, 3]
   * pe.positionIds(mask, { batch: 2, style: 'roberta' });   // [1, 1, 2, 3,  2, 3, 4, 5]
   * ```
   */
  positionIds(mask: MaskInput, options?: PositionIdsOptions): Int32Array;
  /**
   * The position each row's next token takes: past + the number of real tokens in the row (never the
   * padded length). Generation continues there.
   *
   * @param mask - [batch, length] 0/1, 1 = real token.
   * @param options - Batch and past ({@link NextPositionsOptions}).
   * @returns [batch] Int32Array.
   * @example
   * ```ts
   * pe.nextPositions([0, 0, 1, 1,  1, 1, 1, 1], { batch: 2 });   // [2, 4]
   * ```
   */
  nextPositions(mask: MaskInput, options?: NextPositionsOptions): Int32Array;
  /**
   * Positions for interleaved modalities with an offset per modality: token t of modality m gets
   * offsets[m] + (its index among m's tokens), e.g. text from 0 and image patches from 128.
   * No single upstream reference.
   *
   * @param modalities - Modality of each token [T]: integers in [0, offsets.length).
   * @param options - Offsets and optional lengths per modality ({@link ModalityPositionsOptions}).
   * @returns [T] Int32Array of positions.
   * @example
   * ```ts
   * pe.modalityPositions([0, 1, 1, 0], { offsets: [0, 128] });   // [0, 128, 129, 1]
   * ```
   */
  modalityPositions(modalities: IntInput, options: ModalityPositionsOptions): Int32Array;
  /**
   * Position codes: each position written with `bits` digits of radix r (plain or Gray code), as fixed
   * ±1 digits or a sum of learned digit vectors. No single upstream reference; every choice is an
   * option ({@link BinaryOptions}).
   *
   * @param positions - Positions [T]: integers in [0, radix^bits).
   * @param options - Digits, code, radix, optional table ({@link BinaryOptions}).
   * @returns [T, dim] float32 (or `options.out`), least significant digit first.
   * @example
   * ```ts
   * pe.binary([5, 6], { bits: 3 });                  // 5 = 101b → [1, -1, 1], 6 = 110b → [-1, 1, 1]
   * pe.binary([6], { bits: 3, code: 'gray' });       // gray(6) = 101b → [1, -1, 1]
   * ```
   */
  binary<O extends FloatOut = Float32Array>(positions: IntInput, options: BinaryOptions & { out?: O }): O;
  /**
   * Number of digits in which the codes of two positions differ: binary 7 → 8 flips 4 bits, Gray code 1.
   *
   * @param a - A position: an integer in [0, 2^31).
   * @param b - Another position: an integer in [0, 2^31).
   * @param options - Digits, code, radix ({@link CodeDistanceOptions}).
   * @returns The number of differing digits, in [0, bits].
   * @example
   * ```ts
   * pe.codeDistance(7, 8, { bits: 4 });                  // 4
   * pe.codeDistance(7, 8, { bits: 4, code: 'gray' });    // 1
   * ```
   */
  codeDistance(a: number, b: number, options: CodeDistanceOptions): number;
  /**
   * Low-rank position table: PE[p] = coefficients[p]·basis. No single upstream reference.
   *
   * @param positions - Positions [T]: integers in [0, rows of coefficients).
   * @param options - Coefficients, basis and their sizes ({@link LowRankOptions}).
   * @returns [T, dim] float32 (or `options.out`).
   * @example
   * ```ts
   * // coefficients [2 positions, rank 2], basis [rank 2, dim 3]
   * pe.lowRank([1], { coefficients: [1, 2, 3, 4], basis: [1, 0, 1, 0, 1, 1], rank: 2, dim: 3 });   // [3, 4, 7]
   * ```
   */
  lowRank<O extends FloatOut = Float32Array>(positions: IntInput, options: LowRankOptions & { out?: O }): O;
  /**
   * Sparse position table: each position is a weighted sum of k basis vectors,
   * PE[p] = Σ_i values[p, i]·basis[indices[p, i]]. No single upstream reference.
   *
   * @param positions - Positions [T]: integers in [0, rows of indices).
   * @param options - Indices, weights, basis ({@link SparseOptions}).
   * @returns [T, dim] float32 (or `options.out`).
   * @example
   * ```ts
   * // position 0 = 1·basis[0] + 0.5·basis[2]
   * pe.sparse([0], { indices: [0, 2], values: [1, 0.5], k: 2, basis: [1, 0, 0, 1, 4, 4], dim: 2 });   // [3, 2]
   * ```
   */
  sparse<O extends FloatOut = Float32Array>(positions: IntInput, options: SparseOptions & { out?: O }): O;
  /**
   * Function-generated encoding: PE[p] = f(p / scale) for a fixed random function (random Fourier
   * features or a small random MLP) drawn from a seed; the same seed gives the same numbers on every
   * platform. No single upstream reference.
   *
   * @param positions - Positions [T]: integers in [0, 2^31).
   * @param options - Width, seed, feature map ({@link RandomFeaturesOptions}).
   * @returns [T, dim] float32 (or `options.out`).
   * @example
   * ```ts
   * const a = pe.randomFeatures([0, 5, 99], { dim: 16, seed: 7 });
   * const b = pe.randomFeatures([0, 5, 99], { dim: 16, seed: 7 });   // equal to a
   * ```
   */
  randomFeatures<O extends FloatOut = Float32Array>(positions: IntInput, options: RandomFeaturesOptions & { out?: O }): O;
  /**
   * Axial position embeddings: the position's mixed-radix digits (first axis slowest) look up one small
   * table per axis, concatenated or summed.
   *
   * @param positions - Positions [T]: integers below the product of `shape`.
   * @param options - Axis sizes, tables, widths ({@link AxialOptions}).
   * @returns [T, Σ dims] float32 for `'concat'`, [T, dims[0]] for `'sum'` (or `options.out`).
   * @see Reformer `AxialPositionEmbeddings` (Hugging Face / trax).
   * @example
   * ```ts
   * // 12 positions as a 3 × 4 grid: W0 [3, 2] for the row, W1 [4, 3] for the column
   * const W0 = new Float32Array(3 * 2), W1 = new Float32Array(4 * 3);
   * const pe11 = pe.axial([11], { shape: [3, 4], tables: [W0, W1], dims: [2, 3] });   // [1, 5]: W0[2] ++ W1[3]
   * ```
   */
  axial<O extends FloatOut = Float32Array>(positions: IntInput, options: AxialOptions & { out?: O }): O;
  /**
   * Two-level positions: a vector for the segment plus a vector for the index inside the segment (the
   * index restarts whenever the segment id changes). No single upstream reference.
   *
   * @param segments - Segment id of each token [T]: integers in [0, rows of segmentTable).
   * @param options - The two tables and how they combine ({@link TwoLevelOptions}).
   * @returns [T, segmentDim + innerDim] float32 for `'concat'`, [T, segmentDim] for `'sum'` (or `options.out`).
   * @example
   * ```ts
   * const v = pe.twoLevel([0, 0, 1, 1, 1], { segmentTable: [100, 200], innerTable: [1, 2, 3], segmentDim: 1, innerDim: 1 });
   * // [100, 1,  100, 2,  200, 1,  200, 2,  200, 3]
   * ```
   */
  twoLevel<O extends FloatOut = Float32Array>(segments: IntInput, options: TwoLevelOptions & { out?: O }): O;
  /**
   * 2-D sine position encoding of an image grid, as DETR `PositionEmbeddingSine`: y channels first, then
   * x, interleaved sin/cos within each half ({@link Sine2dOptions}).
   *
   * @param options - Grid size, channels per axis, normalisation, optional mask ({@link Sine2dOptions}).
   * @returns [height·width, 2·numPosFeats] float32, cells in row-major order (or `options.out`).
   * @see DETR `PositionEmbeddingSine` (facebookresearch/detr; Hugging Face `DetrSinePositionEmbedding`,
   * whose mask is 1 = valid pixel, as here).
   * @example
   * ```ts
   * const pos = pe.sine2d({ height: 3, width: 4, numPosFeats: 8, normalize: true });   // [12, 16]
   * ```
   */
  sine2d<O extends FloatOut = Float32Array>(options: Sine2dOptions & { out?: O }): O;
  /**
   * 3-D sine position encoding of a video grid: DETR's 2-D form with a time axis in front (channels t,
   * then y, then x). No single upstream reference beyond DETR's per-axis formula.
   *
   * @param options - Grid size, channels per axis, normalisation, optional mask ({@link Sine3dOptions}).
   * @returns [frames·height·width, 3·numPosFeats] float32, cells in row-major order (or `options.out`).
   * @example
   * ```ts
   * const pos = pe.sine3d({ frames: 2, height: 2, width: 2, numPosFeats: 4 });   // [8, 12]
   * ```
   */
  sine3d<O extends FloatOut = Float32Array>(options: Sine3dOptions & { out?: O }): O;
  /**
   * Resizes a grid of ViT position embeddings to another patch grid (bicubic or bilinear), copying
   * prefix tokens (CLS, registers) unchanged.
   *
   * @param grid - [prefixTokens + from[0]·from[1], dim] embeddings, grid cells in row-major order.
   * @param options - Sizes, interpolation, coordinate mapping ({@link ResizeGridOptions}).
   * @returns [prefixTokens + to[0]·to[1], dim] float32 (or `options.out`).
   * @see Hugging Face ViT `interpolate_pos_encoding` (mapping `'size'`), DINO / older HF (`'scaleFactor'`),
   * PyTorch `F.interpolate(mode='bicubic', align_corners=False)`.
   * @example
   * ```ts
   * // a 14 × 14 grid with a CLS row, dim 768, to 16 × 16
   * const grid = new Float32Array((1 + 14 * 14) * 768);
   * const resized = pe.resizeGrid(grid, { from: [14, 14], to: [16, 16], dim: 768, prefixTokens: 1 });   // [257, 768]
   * ```
   */
  resizeGrid<O extends FloatOut = Float32Array>(grid: FloatInput, options: ResizeGridOptions & { out?: O }): O;
  /**
   * Learned parameters a method needs, from the shapes of its tables ({@link ParameterShapes}): the
   * comparison used in the demo's table. Every size is checked, so a count is a non-negative safe
   * integer (`RangeError` past 2^53).
   *
   * @typeParam M - The method name.
   * @param method - One of the keys of {@link ParameterShapes}.
   * @param options - The method's shapes; fixed methods take none.
   * @returns The number of learned parameters.
   * @example
   * ```ts
   * pe.parameterCount('learned', { maxPositions: 512, dim: 768 });   // 393216
   * pe.parameterCount('swin', { windowSize: [7, 7], heads: 4 });     // 676
   * pe.parameterCount('rope');                                       // 0
   * ```
   */
  parameterCount<M extends keyof ParameterShapes>(method: M, options?: ParameterShapes[M]): number;

  // --- relative / attention ---
  /**
   * T5 relative-position buckets of relative positions j − i (key − query): exact buckets for small
   * distances, log-spaced ones up to maxDistance ({@link T5BucketOptions}).
   *
   * @param relativePositions - Key position − query position [n]: 32-bit integers, may be negative.
   * @param options - Direction, bucket count, max distance ({@link T5BucketOptions}).
   * @returns [n] Int32Array of buckets in [0, numBuckets).
   * @see Hugging Face `T5Attention._relative_position_bucket` (Raffel et al. 2020).
   * @example
   * ```ts
   * pe.t5Bucket([0, -3, 3, -20, -128, 1000]);                 // [0, 3, 19, 10, 15, 31]
   * pe.t5Bucket([5, -5, -20], { bidirectional: false });       // [0, 5, 17]
   * ```
   */
  t5Bucket(relativePositions: IntInput, options?: T5BucketOptions): Int32Array;
  /**
   * ALiBi head slopes m_h, computed in float64 as the paper's reference code: for n a power of two,
   * 2^(−8(h+1)/n); otherwise the c = 2^⌊log2 n⌋ slopes of c heads, then the even-indexed slopes of 2c
   * heads (so the list is not monotone: n = 3 → [1/16, 1/256, 1/4]).
   *
   * @param numHeads - Number of heads: an integer in [1, 2^20].
   * @returns [numHeads] float32 slopes.
   * @see Press et al. 2022, `get_slopes` in ofirpress/attention_with_linear_biases (also Hugging Face Bloom `build_alibi_tensor`).
   * @example
   * ```ts
   * pe.alibiSlopes(8);   // [1/2, 1/4, 1/8, ..., 1/256]
   * pe.alibiSlopes(3);   // [1/16, 1/256, 1/4]
   * ```
   */
  alibiSlopes(numHeads: number): Float32Array;
  /**
   * DeBERTa relative-position buckets of relative positions i − j (query − key): log buckets with
   * mid = bucketSize/2, in either reference's convention ({@link DebertaBucketOptions}).
   *
   * @param relativePositions - Query position − key position [n]: 32-bit integers, may be negative.
   * @param options - Bucket size, max position, convention ({@link DebertaBucketOptions}).
   * @returns [n] Int32Array of signed buckets.
   * @see Hugging Face `make_log_bucket_position` / `build_relative_position` (DeBERTa-v2), microsoft/DeBERTa
   * `build_relative_position`.
   * @example
   * ```ts
   * pe.debertaBucket([-600, 200, 511], { bucketSize: 256, maxPosition: 512 });            // [-270, 169, 255]
   * pe.debertaBucket([-600], { bucketSize: 256, maxPosition: 512, convention: 'microsoft' }); // [-255]
   * ```
   */
  debertaBucket(relativePositions: IntInput, options: DebertaBucketOptions): Int32Array;
  /**
   * Swin's relative position index for one window: token p sits at (p / ww, p % ww) and the pair
   * (query, key) maps to (Δh + wh − 1)(2ww − 1) + (Δw + ww − 1), Δ = query − key coordinates: the row of
   * the [(2wh − 1)(2ww − 1), heads] bias table.
   *
   * @param windowSize - [wh, ww] in patches: positive integers with wh·ww ≤ 16384.
   * @returns [N, N] Int32Array, N = wh·ww.
   * @see Swin Transformer `WindowAttention.relative_position_index` (Liu et al. 2021).
   * @example
   * ```ts
   * const idx = pe.swinRelativeIndex([7, 7]);   // [49, 49], values in [0, 169)
   * ```
   */
  swinRelativeIndex(windowSize: [number, number]): Int32Array;
  /**
   * The [heads, Tq, Tk] bias a scalar-bias encoding adds to the attention scores, at the given logical
   * positions (no masking): ALiBi −m_h·(i − j) (paper form; −m_h·|i − j| when symmetric), T5
   * table[bucket(j − i), h], Swin table[index(i, j), h], KERPLE and FIRE as defined on their encodings;
   * an array of them adds up.
   *
   * @param encoding - A {@link ScalarBiasEncoding} (a bias per head, query and key), or an array of them (same `heads`); its `heads` is required here (no call fixes it). Other kinds are a `RangeError`.
   * @param qPositions - Query positions [Tq]: integers in [0, 2^31).
   * @param kPositions - Key positions [Tk]: integers in [0, 2^31).
   * @returns [heads, Tq, Tk] float32.
   * @example
   * ```ts
   * const bias = pe.attentionBias({ kind: 'alibi', heads: 3 }, [5, 6], [0, 5]);
   * // head 0 (slope 1/16): query 5 → [-5/16, 0], query 6 → [-6/16, -1/16]
   * ```
   */
  attentionBias(encoding: ScalarBiasEncoding | ScalarBiasEncoding[], qPositions: IntInput, kPositions: IntInput): Float32Array;
  /**
   * What posenc implements: one entry per encoding kind {@link Posenc.attention} accepts and per additive
   * function, from the C++ table (`posenc::describe()`). The demo's comparison table and the docs are
   * generated from it.
   * @returns A frozen array of {@link MethodDescription}.
   * @example
   * ```ts
   * const rope = pe.describe().find((d) => d.kind === 'rope');
   * // rope.family === 'rotary', rope.parameters === '0', rope.kvCacheFriendly === true
   * ```
   */
  describe(): readonly MethodDescription[];
  /**
   * Multi-head attention with any one positional {@link Encoding}, on posenc's streaming engine:
   * score(i, j) = scale·(q̃_i·k̃_j + content(i, j)) + bias(i, j), masked (causal, window, key mask),
   * softmax over keys, out_i = Σ_j w_ij·(v_j + valueTerm(i, j)). Positions are data: every query and key
   * has an explicit logical position.
   *
   * Query head h reads kv head ⌊h / (heads/kvHeads)⌋ (grouped-query attention, as `repeat_kv`). Weights
   * and scores are only materialised when asked for. A query row whose keys are all masked gets zeros.
   * Inputs with NaN or ±∞, or whose norms would let a score leave float range, are a `RangeError`.
   *
   * @typeParam W - `returnWeights` as written: `true` makes `weights` present in the result type.
   * @typeParam S - `returnScores` as written: `true` makes `scores` present in the result type.
   * @typeParam O - The type of `args.out`, returned as `out`.
   * @param args - Tensors, sizes, positions, masks and the encoding ({@link AttentionArgs}).
   * @returns `out` [heads, qLen, valueDim] (headDim unless given); `weights` (softmax) and `scores` (final pre-softmax logits after
   * scale, bias and masking; masked = −Infinity), both [heads, qLen, kLen], when requested ({@link AttentionResult}).
   * @example
   * ```ts
   * const heads = 4, kvHeads = 2, headDim = 16, qLen = 1, kLen = 8;
   * const q = new Float32Array(heads * qLen * headDim).fill(0.1);
   * const k = new Float32Array(kvHeads * kLen * headDim).fill(0.2);
   * const v = new Float32Array(kvHeads * kLen * headDim).fill(0.3);
   * const { out, weights } = pe.attention({ q, k, v, heads, kvHeads, headDim, qLen, kLen, causal: true,
   *   encoding: { kind: 'alibi' }, returnWeights: true });
   * // out [4, 1, 16]; weights [4, 1, 8]; the query sits at position 7, after every key
   * ```
   * @example
   * ```ts
   * // DeepSeek V3 (MLA): q·k heads of 128 + 64 channels, RoPE on the trailing 64, values of 128
   * const heads = 16, qLen = 4, kLen = 4, headDim = 192, valueDim = 128;
   * const q = new Float32Array(heads * qLen * headDim).fill(0.01), k = new Float32Array(heads * kLen * headDim).fill(0.02);
   * const v = new Float32Array(heads * kLen * valueDim).fill(0.5);
   * const { out } = pe.attention({ q, k, v, heads, headDim, valueDim, qLen, kLen, causal: true,
   *   encoding: { kind: 'rope', partialRotaryFactor: 64 / 192, rotaryOffset: 128, layout: 'interleaved' } });
   * // out [16, 4, 128]
   * ```
   */
  attention<W extends boolean = false, S extends boolean = false, O extends FloatOut = Float32Array>(
    args: AttentionArgs & { returnWeights?: W; returnScores?: S; out?: O }): AttentionResult<W, S, O>;

  /**
   * The {@link KVCache} class: `new pe.KVCache(options)` creates a cache that keeps a logical position
   * per slot (see {@link KVCacheOptions}). Free it with `delete()` or a `using` declaration (a cache
   * dropped without it is freed when the garbage collector finalizes it: late, and not guaranteed).
   *
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 2, headDim: 64, capacity: 4096, rope: { base: 500000 } });
   * cache.delete();
   * ```
   */
  KVCache:
    /** Creates a cache; `options` are checked before anything is allocated. */
    new (options: KVCacheOptions) => KVCache;

  /**
   * A heap-resident buffer for the zero-copy path: pass it wherever a {@link FloatInput} is taken, or as
   * `out`. Fill it through `view()`.
   *
   * @param length - Number of float32 elements: an integer in [1, 2^30 − 16].
   * @returns A new {@link HeapBuffer}; `delete()` it when done.
   * @throws `RangeError` when the wasm heap (at most 4 GiB) cannot hold it, stating the bytes needed, the
   * bytes free in the heap and how far it can still grow.
   * @example
   * ```ts
   * const x = pe.alloc(8 * 1024 * 64);              // [8 heads, 1024 tokens, 64]
   * x.view().fill(0.5);
   * pe.applyRope(x, { heads: 8, tokens: 1024, headDim: 64 }, Int32Array.from({ length: 1024 }, (_, i) => i), { inPlace: true });
   * x.delete();
   * ```
   */
  alloc(length: number): HeapBuffer;
  /**
   * Size of the wasm heap now, in bytes. It grows on demand (up to 4 GiB) and never shrinks.
   *
   * @returns Bytes.
   * @example
   * ```ts
   * const before = pe.heapBytes();
   * ```
   */
  heapBytes(): number;
  /**
   * The threads this module's calls use, the calling thread included: what {@link load} chose — 1
   * for the single-thread module, else the threaded module's count. Results never depend on it.
   *
   * @example
   * ```ts
   * const label = `posenc: ${pe.threads} thread${pe.threads === 1 ? '' : 's'}`;
   * ```
   */
  readonly threads: number;
  /**
   * Benchmark yardstick: copies `src` into `dst` inside wasm (memcpy), the bandwidth an in-place
   * operation is measured against.
   *
   * @param dst - Destination buffer, the same length as `src`.
   * @param src - Source buffer.
   * @throws `TypeError` unless both are {@link HeapBuffer}s; `RangeError` when the lengths differ.
   * @example
   * ```ts
   * const a = pe.alloc(1024), b = pe.alloc(1024);
   * pe.copyBuffer(b, a);
   * a.delete(); b.delete();
   * ```
   */
  copyBuffer(dst: HeapBuffer, src: HeapBuffer): void;
}

/** The encodings {@link KVCache.attend} accepts: every {@link Encoding} but `'rope'` (the cache has its own `rope`). */
export type AttendEncoding = Exclude<Encoding, RopeEncoding>;
/** One method posenc implements, as {@link Posenc.describe} lists it. */
export interface MethodDescription {
  /** The option name: an encoding kind (`'rope'`, `'alibi'`, …) or an additive function (`'sinusoidal'`, …). */
  readonly kind: string;
  /** Where position enters: added to embeddings, rotating q and k, a term in the score, or nowhere (NoPE). */
  readonly family: 'additive' | 'rotary' | 'score' | 'none';
  /** What the position enters as, in words. */
  readonly encodes: string;
  /** Learned parameters as a formula in the dimensions (`'0'` for fixed functions). */
  readonly parameters: string;
  /** The {@link Posenc.parameterCount} method that counts them, or `null` when there is none. */
  readonly parameterMethod: string | null;
  /**
   * Whether the method is defined past the trained length (gives values there) — not whether a model trained
   * with it generalises there, which only a measurement tells (the demo's lab, docs/lab.md).
   */
  readonly extrapolates: boolean;
  /** How it behaves beyond the trained length. */
  readonly extrapolation: string;
  /** Whether cached keys stay valid as generation continues. */
  readonly kvCacheFriendly: boolean;
  /** Why (or why not) it suits a KV cache. */
  readonly kvCache: string;
  /** The implementation whose numbers posenc reproduces. */
  readonly reference: string;
  /** Models that use it. */
  readonly usedIn: string;
}


/**
 * What {@link Posenc.attention} returns. The type parameters are the call's `returnWeights`, `returnScores`
 * and `out` as written: `weights` / `scores` are present when asked for with `true`, absent when not asked
 * for, and optional when the flag is only known as a `boolean`.
 */
export type AttentionResult<W extends boolean = false, S extends boolean = false, O extends FloatOut = Float32Array> = {
  /** The attention output [heads, qLen, valueDim] (valueDim = headDim unless given; or `args.out`). */
  out: O;
} & ([W] extends [false] ? {} : [W] extends [true] ? {
  /** Softmax weights [heads, qLen, kLen]; masked entries are 0. */
  weights: Float32Array;
} : {
  /**
   * Weights [heads, qLen, kLen], when `returnWeights` was true; masked entries are 0. The softmax's, or with
   * `'stickBreaking'` the stick-breaking weights (rows sum to at most 1).
   */
  weights?: Float32Array;
}) & ([S] extends [false] ? {} : [S] extends [true] ? {
  /** Final pre-softmax logits [heads, qLen, kLen] after scale, bias and masking (masked = −Infinity). */
  scores: Float32Array;
} : {
  /** Final pre-softmax logits [heads, qLen, kLen] (masked = −Infinity), when `returnScores` was true. */
  scores?: Float32Array;
});

/**
 * A KV cache that keeps the logical position of every slot: a slot is not a position. Keys are stored
 * rotated at their positions (with the cache's `rope`), a sliding window keeps its keys' original
 * positions, left padding gets no position, and {@link KVCache.attend} runs on the same engine as
 * {@link Posenc.attention} (equal to it on the kept keys at their logical positions, with the window
 * and sinks as a mask by position — whether a prefill came in one append or in chunks). Every method
 * validates fully before changing anything, so a failed call leaves the cache as it was.
 * Create one with `new pe.KVCache(options)` ({@link KVCacheOptions}).
 */
export interface KVCache {
  /** Sequences (batch rows), as constructed. */
  readonly batch: number;
  /** Slots per batch row, as constructed. */
  readonly capacity: number;
  /** How keys and values are held ({@link KVCacheOptions.storage}), as constructed. */
  readonly storage: 'f32' | 'f16' | 'bf16' | 'q8';
  /**
   * Bytes the cache holds for keys and values: every slot of `capacity` (allocated at construction; keys
   * in blocks of 64 slots), plus keys held past capacity for the last append while it holds any. A
   * `forgetting` cache adds, from its first append: 8 bytes per head and slot (each slot's summed log gate),
   * 8 per head and batch row (the running sums), and attend's tables, 4 bytes per head and slot and 8 per
   * head and 64-slot block.
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 8, headDim: 64, capacity: 1024, storage: 'f16' });
   * cache.bytes;   // 2097152: 8 kv heads × 1024 slots × 64 channels × 2 bytes, for keys and for values
   * cache.delete();
   * ```
   */
  readonly bytes: number;
  /**
   * Appends T tokens per row. Keys are raw (unrotated): the cache rotates them with its own `rope` at
   * their logical positions. T is k.length / (batch·kvHeads·headDim).
   *
   * @param k - Raw keys [batch, kvHeads, T, headDim]: floats, or with `kvType` f16 / bf16 bits.
   * @param v - Values [batch, kvHeads, T, valueDim] (the cache's valueDim: headDim unless set), likewise.
   * @param options - Explicit positions and a padding mask ({@link AppendOptions}).
   * @returns The cache, for chaining.
   * @throws `RangeError` when a row without a window would exceed its capacity, or when the cache's
   * `storage` cannot hold a key (after RoPE) or value.
   * @example
   * ```ts
   * const cache = new pe.KVCache({ batch: 2, kvHeads: 1, headDim: 8, capacity: 16, rope: {} });
   * const k = new Float32Array(2 * 1 * 4 * 8).fill(0.1), v = new Float32Array(2 * 1 * 4 * 8).fill(1);
   * cache.append(k, v, { mask: [0, 0, 1, 1,  1, 1, 1, 1] });   // row 0 is left-padded
   * cache.nextPositions();                                      // [2, 4]
   * cache.delete();
   * ```
   */
  append(k: FloatInput | Uint16Array, v: FloatInput | Uint16Array, options?: AppendOptions): this;
  /**
   * Attends queries to the cached keys at their logical positions: each query sees the keys its
   * position allows (causal; with a window, p − window < j ≤ p and the sinks), including keys the last
   * append pushed out of the window that its own tokens still need. Queries are rotated with the cache's
   * own `rope`; `encoding` adds score terms on top. qLen is q.length / (batch·heads·headDim).
   *
   * @param q - Queries [batch, heads, qLen, headDim], unrotated.
   * @param options - Heads, score terms, positions, causal, scale ({@link AttendOptions}).
   * @returns `out` [batch, heads, qLen, valueDim] (the cache's valueDim: headDim unless set).
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 2, headDim: 16, capacity: 64, rope: { base: 10000 } });
   * cache.append(new Float32Array(2 * 5 * 16).fill(0.1), new Float32Array(2 * 5 * 16).fill(1));
   * const { out } = cache.attend(new Float32Array(4 * 1 * 16).fill(0.1), { heads: 4 });   // query at position 4
   * cache.delete();
   * ```
   */
  attend<O extends FloatOut = Float32Array>(q: FloatInput, options: AttendOptions & { out?: O }): {
    /** The attention output [batch, heads, qLen, valueDim] (or `options.out`). */
    out: O
  };
  /**
   * Moves every cached position (and each row's next position) by `delta` and re-rotates the cached
   * keys accordingly (llama.cpp context shift), held keys included. Every moved position must stay in [0, 2^31).
   *
   * @param delta - Position change: an integer, may be negative.
   * @returns The cache, for chaining.
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 8, rope: {} });
   * cache.append(new Float32Array(4 * 8), new Float32Array(4 * 8));   // positions 0..3
   * cache.shift(1000);                                                 // positions 1000..1003
   * cache.delete();
   * ```
   */
  shift(delta: number): this;
  /**
   * Gives the cached tokens new logical positions and re-rotates their keys (StreamingLLM-style
   * renumbering after eviction, moving sinks). Each row's next position becomes its largest new
   * position + 1. Keys held for the last append's queries (see {@link KVCacheOptions.window}) are let go.
   *
   * @param newPositions - [batch, capacity] in {@link KVCache.positions} order: integers in [0, 2^31) for occupied slots, −1 for empty ones (which must stay −1).
   * @returns The cache, for chaining.
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: {} });
   * cache.append(new Float32Array(3 * 8), new Float32Array(3 * 8));   // positions [0, 1, 2, -1]
   * cache.renumber([0, 10, 11, -1]);                                   // next position: 12
   * cache.delete();
   * ```
   */
  renumber(newPositions: IntInput): this;
  /**
   * Logical position of every slot.
   *
   * @returns [batch, capacity] Int32Array; −1 = empty slot.
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, window: 2 });
   * cache.append(new Float32Array(3 * 8), new Float32Array(3 * 8));
   * cache.positions();   // [2, 1, -1, -1]: the ring keeps the last 2 tokens at their own positions
   * cache.delete();
   * ```
   */
  positions(): Int32Array;
  /**
   * The position each row's next appended token takes: one past its last token, whatever the slot
   * count (after 100 tokens in a 20-slot window it is 100, not 20).
   *
   * @returns [batch] Int32Array.
   * @example
   * ```ts
   * const cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 20, window: 20 });
   * cache.append(new Float32Array(100 * 8), new Float32Array(100 * 8));
   * cache.nextPositions();   // [100]
   * cache.delete();
   * ```
   */
  nextPositions(): Int32Array;
  /** Frees the cache. Calling it again does nothing; any other method on a deleted cache is a `RangeError`. */
  delete(): void;
  /** Same as `delete()`, for `using` declarations. */
  [Symbol.dispose](): void;
}

/** Options of {@link load}. */
export interface LoadOptions {
  /**
   * Threads for attention, `KVCache.attend` and `applyRope`. `'auto'` (default): every core (at most 16)
   * where shared memory works — Node (≥ 20.16), or a browser page that is `crossOriginIsolated`
   * (served with `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy:
   * require-corp`) — through the threaded module (its worker pool is created at load); elsewhere the
   * single-thread module. A positive integer caps that count; `1` always loads the single-thread
   * module. Results are the same bytes whatever the count. See {@link Posenc.threads}.
   *
   * In a browser the threaded module is loaded at run time from `../dist/posenc_wasm_threads.mjs`
   * relative to `bindings/posenc.mjs` (with its `posenc_wasm_threads.wasm` and
   * `posenc_wasm_threads.worker.js`); a bundler does not copy them, so a bundled page uses the
   * single-thread module unless those three files are served at that place relative to the bundle.
   * When the threaded module cannot be loaded, `load()` falls back to one thread and says so once with
   * `console.warn`, naming the file and the place.
   */
  threads?: 'auto' | number;
}

/**
 * Instantiates the WebAssembly module (once per thread count; later calls resolve to the same object)
 * and resolves to the API. Works in Node ≥ 20, browsers and bundlers.
 *
 * @param options - The thread count ({@link LoadOptions}); an unknown key is a `TypeError` naming it,
 * `threads` that is not `'auto'` or a positive integer a `TypeError` / `RangeError` naming `threads`.
 * @returns The {@link Posenc} API object.
 * @example
 * ```ts
 * import { load } from 'posenc';
 * const pe = await load();
 * const table = pe.sinusoidal([0, 1, 2], { dim: 16 });   // [3, 16]
 * const single = await load({ threads: 1 });              // single.threads === 1
 * ```
 */
export function load(options?: LoadOptions): Promise<Posenc>;
export default load;
