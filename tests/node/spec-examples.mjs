// Each encoding kind's own valid options (its spec's `options`, src/encodings/<kind>.cpp: the registry JSON's
// methods[kind].options) and the attention call they are made for (the registry's exampleCall). The tests
// that need one valid encoding of every kind (strict-options, the fuzz, the dummy kind's path) build it
// here from the registry, so a new kind needs no line in them.
import { randomFloats } from './helpers.mjs';

// Kind's options with each tensor written {"$floats": n} filled by n floats from `floats(n, i)` (i counts
// the tensors; default: seeded floats in [-1, 1)). `methods`: the registry's methods (KINDS).
export function exampleOptions(methods, kind, floats = (n, i) => randomFloats(n, 100 + i)) {
  const o = methods[kind]?.options;
  if (!o) throw new Error(`the registry has no options example for kind '${kind}' (its spec's KindSpec::options)`);
  let i = 0;
  const fill = (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) && Object.hasOwn(x, '$floats') ? floats(x.$floats, i++) : x);
  return Object.fromEntries(Object.entries(o).map(([key, x]) => [key, fill(x)]));
}

// The example call's attention arguments (its shapes and flags) with q, k and v.
export function exampleAttention(call, floats = randomFloats) {
  const { heads, kvHeads = heads, headDim, qLen, kLen } = call;
  return { ...call, q: floats(heads * qLen * headDim, 1), k: floats(kvHeads * kLen * headDim, 2), v: floats(kvHeads * kLen * headDim, 3) };
}

// Whether a fuzz draw's call (`at`: heads, headDim, valueDim, qPos, kPos, causal, big) is the example call:
// its heads and headDim, values of headDim channels, qLen queries on the last of kLen keys at 0..kLen-1, causal.
export function isExampleCall(call, at) {
  const { heads, headDim, qLen, kLen, causal = false } = call;
  const kPos = Array.from({ length: kLen }, (_, j) => j), qPos = kPos.slice(kLen - qLen);
  return at.heads === heads && at.headDim === headDim && at.valueDim === undefined && !at.big && Boolean(at.causal) === causal &&
    at.qPos.length === qLen && at.kPos.length === kLen && at.qPos.every((p, i) => p === qPos[i]) && at.kPos.every((p, j) => p === kPos[j]);
}

// The kinds the JS fuzz (fuzz.test.mjs) draws, from a registry: { encodingKinds, methods, describe: describe()'s
// rows }. attention: every kind; attentionBias: the scalar biases; cache (KVCache.attend): all but the rotary
// kinds (a cache's rope is its own) and forgetting (its gates are the cache's); fromSpec: every kind, drawn as
// its spec's options example; missing: kinds without an options example, and describe() rows of attention
// kinds the registry has no encoding kind for (the fuzz fails on any).
export function fuzzKinds({ encodingKinds, methods, describe }) {
  const familyOf = Object.fromEntries(describe.map((d) => [d.kind, d.family]));
  return {
    attention: [...encodingKinds],
    attentionBias: encodingKinds.filter((k) => methods[k]?.scalarBias),
    cache: encodingKinds.filter((k) => familyOf[k] !== 'rotary' && k !== 'forgetting'),
    fromSpec: encodingKinds.filter((k) => methods[k]?.options),
    missing: [...encodingKinds.filter((k) => !methods[k]?.options),
      ...describe.filter((d) => d.family !== 'additive' && !encodingKinds.includes(d.kind)).map((d) => d.kind)],
  };
}
