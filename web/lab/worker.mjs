// The lab panel's worker: runs the trained models (web/lab/runner.mjs, everything positional by posenc)
// off the page's thread, so the rest of the page stays responsive while 8 models × 8 sequences × 512
// tokens are computed; the page runs two of them (or more with more cores), each on part of the test
// set. Messages in: { id, op: 'predict', name, rope?, seqs } → { id, preds: [[seq, argmax per position]], ms };
// { id, op: 'generate', name, prompt, steps, window, sinks, rope? } → progress { id, tokens } every 32
// tokens, then { id, done: true, tokens, ms }.
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS, loadLabModel } from './runner.mjs';
import { testSet, TRAINED_LENGTH as L } from './task.mjs';

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
const tests = testSet();
const inputs = tests.map((t) => t.tokens.slice(0, N));
// the RoPE model is rerun on the same sequences at every schedule change: what of its forward no
// schedule changes (embedding, first layer's q, k, v: model.prepare) is computed once per sequence
const prepared = new Map();
const inputOf = (model, s) => {
  if (model.kind !== 'rope') return inputs[s];
  if (!prepared.has(s)) prepared.set(s, model.prepare(inputs[s]));
  return prepared.get(s);
};

self.onmessage = async ({ data }) => {
  const { id, op, name, rope } = data;
  try {
    const { models } = await ready;
    const model = models[name];
    if (op === 'predict') {
      const t0 = performance.now();
      const preds = data.seqs.map((s) => [s, Array.from(model.predict(inputOf(model, s), rope ? { rope } : {}))]);
      self.postMessage({ id, preds, ms: performance.now() - t0 });
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
