// The lab panel's worker: runs the trained models (web/lab/runner.mjs, everything positional by posenc)
// off the page's thread, so the rest of the page stays responsive while 9 models × 8 sequences × 512
// tokens are computed; the page runs two of them (or more with more cores), each on part of a test set.
// Messages in:
//   { id, op: 'predict', name, task, rope?, seqs } → { id, preds: [[seq, argmax per position]], ms }
//   { id, op: 'attention', name, task, seq, window, regions: [{ q0, q1, k0, k1 }] } → { id, maps, preds, ms }:
//     maps[r] = weights [layers, heads, q1 - q0, k1 - k0] of region r (keys a query does not see: NaN)
//   { id, op: 'generate', name, prompt, steps, window, sinks, rope? } → progress { id, tokens } every 32
//     tokens, then { id, done: true, tokens, ms }
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS, loadLabModel } from './runner.mjs';
import { testSet, TASKS, TRAINED_LENGTH as L } from './task.mjs';

const N = 8 * L;
const read = async (file) => {
  const r = await fetch(new URL(`./models/${file}`, import.meta.url));
  if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`);
  return file.endsWith('.json') ? r.json() : r.arrayBuffer();
};
const ready = (async () => {
  const pe = await load();
  const models = {};
  for (const name of LAB_MODELS) models[name] = await loadLabModel(pe, name, read);
  return { pe, models };
})();
const inputs = Object.fromEntries(TASKS.map((task) => [task, testSet(task).map((t) => t.tokens.slice(0, N))]));
// the RoPE model is rerun on the same sequences at every schedule change: what of its forward no
// schedule changes (embedding, first layer's q, k, v: model.prepare) is computed once per sequence
const prepared = new Map();
const inputOf = (model, task, s) => {
  if (model.name !== 'rope') return inputs[task][s];
  const key = `${task}:${s}`;
  if (!prepared.has(key)) prepared.set(key, model.prepare(inputs[task][s]));
  return prepared.get(key);
};

function argmax(lg, V, t) {
  let best = 0;
  for (let j = 1; j < V; j++) if (lg[t * V + j] > lg[t * V + best]) best = j;
  return best;
}

self.onmessage = async ({ data }) => {
  const { id, op, name, rope, task = 'pattern' } = data;
  try {
    const { models } = await ready;
    const model = models[name];
    if (!model) throw new RangeError(`no model ${name}`);
    if (op === 'predict') {
      const t0 = performance.now();
      const preds = data.seqs.map((s) => [s, Array.from(model.predict(inputOf(model, task, s), rope ? { rope } : {}))]);
      self.postMessage({ id, preds, ms: performance.now() - t0 });
    } else if (op === 'attention') {
      const t0 = performance.now();
      const { seq, window, regions } = data;
      const T = Math.max(...regions.map((r) => r.q1));
      const weights = [];
      const lg = model.forward(inputs[task][seq].slice(0, T), { weights, ...(window ? { window } : {}) });
      const V = model.config.vocab, { layers, heads } = model.config;
      const maps = regions.map(({ q0, q1, k0, k1 }) => {
        const nq = q1 - q0, nk = k1 - k0, out = new Float32Array(layers * heads * nq * nk);
        for (let l = 0; l < layers; l++)
          for (let h = 0; h < heads; h++)
            for (let i = 0; i < nq; i++)
              for (let j = 0; j < nk; j++) {
                const q = q0 + i, k = k0 + j, seen = k <= q && (!window || k > q - window);
                out[((l * heads + h) * nq + i) * nk + j] = seen ? weights[l][(h * T + q) * T + k] : NaN;
              }
        return out;
      });
      const preds = Array.from({ length: T }, (_, t) => argmax(lg, V, t));
      self.postMessage({ id, maps, preds, ms: performance.now() - t0 });
    } else if (op === 'generate') {
      const { prompt, steps, window, sinks } = data;
      const t0 = performance.now();
      const session = model.session({ capacity: window ? sinks + window : N + 1, ...(window ? { window, sinks } : {}), ...(rope ? { rope } : {}) });
      const tokens = [];
      try {
        session.generate(prompt, steps, { onToken: (t, i) => { tokens.push(t); if (i % 32 === 31) self.postMessage({ id, tokens: tokens.slice() }); } });
      } finally {
        session.delete();
      }
      self.postMessage({ id, done: true, tokens, ms: performance.now() - t0 });
    }
  } catch (err) {
    self.postMessage({ id, error: String(err?.message ?? err) });
  }
};
