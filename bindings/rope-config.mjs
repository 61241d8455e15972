// Reading a Hugging Face config.json's RoPE settings: the reader is the C++ one (src/rotary/hf_config.cpp),
// so JS and C++ read a config identically; this side only turns the object into JSON text.
import * as v from './validate.mjs';
import { wire, READER_WARNINGS } from './options.mjs';

// The result lists only what the config sets.
export function makeRopeConfigFromHF(call) {
  return function ropeConfigFromHF(config, options) {
    if (config === null || typeof config !== 'object' || Array.isArray(config) || ArrayBuffer.isView(config))
      throw new TypeError(`config must be a parsed config.json object (got ${v.describe(config)})`);
    const r = call('ropeConfigFromHF', (s) => ({ config: jsonText(config), options: wire(s, options, 'ropeConfigFromHF') })).value;
    // Not enumerable: spreading the result ({ ...rope, kind: 'rope' }) copies only the rotary options.
    const attention = { ...r.attention, layers: Object.freeze(r.attention.layers.map(Object.freeze)) };
    const rope = Object.defineProperties(r.rope, {
      ignored: { value: Object.freeze(r.ignored.map(Object.freeze)), enumerable: false },
      temperature: { value: r.temperature && Object.freeze(r.temperature), enumerable: false },
      attention: { value: Object.freeze(attention), enumerable: false },
    });
    // Enumerable, so that printing the result shows what was ignored or assumed; this very array is
    // accepted (and left out) wherever the result is passed as rope options (options.mjs `wire`).
    if (r.warnings.length) READER_WARNINGS.add(rope.warnings = Object.freeze(r.warnings));
    return rope;
  };
}

// One decoder layer's attention plan (src/attention/hf_plan.cpp): objects to spread into pe.attention,
// new pe.KVCache and cache.attend, frozen; `requires` names the checkpoint tensors the caller brings.
export function makeAttentionConfigFromHF(call) {
  return function attentionConfigFromHF(config, options) {
    if (config === null || typeof config !== 'object' || Array.isArray(config) || ArrayBuffer.isView(config))
      throw new TypeError(`config must be a parsed config.json object (got ${v.describe(config)})`);
    const r = call('attentionConfigFromHF', (s) => ({ config: jsonText(config), options: wire(s, options, 'attentionConfigFromHF') })).value;
    const plan = { attention: r.attention, cache: r.cache, attend: r.attend, requires: r.requires, layer: r.layer, scaleRule: r.scaleRule };
    // the keys the model type's code does not read, as ropeConfigFromHF lists them (not enumerable)
    Object.defineProperties(plan, { modelType: { value: r.modelType, enumerable: false }, ignored: { value: r.ignored, enumerable: false } });
    if (r.warnings.length) plan.warnings = r.warnings;
    return deepFreeze(plan);
  };
}

function deepFreeze(x) {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const key of Object.getOwnPropertyNames(x)) deepFreeze(x[key]);
  }
  return x;
}

// JSON.stringify would turn NaN and Infinity into null (read as "absent"), drop functions and
// throw on BigInt or cycles without naming the key: each is an error naming its path here.
function jsonText(config) {
  const seen = new Set();
  const walk = (x, path) => {
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) throw new RangeError(`${path} must be a finite number (got ${x})`);
    } else if (typeof x === 'bigint' || typeof x === 'function' || typeof x === 'symbol') {
      throw new TypeError(`${path} must be a JSON value (got a ${typeof x})`);
    } else if (x !== null && typeof x === 'object') {
      if (seen.has(x)) throw new TypeError(`${path} refers back to itself: a config.json cannot`);
      seen.add(x);
      if (Array.isArray(x) || ArrayBuffer.isView(x)) Array.from(x).forEach((e, i) => walk(e, `${path}[${i}]`));
      else for (const [k, e] of Object.entries(x)) walk(e, `${path}.${k}`);
      seen.delete(x);
    }
  };
  walk(config, 'config');
  return JSON.stringify(config, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x));
}
