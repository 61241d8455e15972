// Runs one of the lab's trained models (web/lab/models/, trained at L = 64 by `npm run train`) with
// posenc: greedy generation through pe.KVCache, one cache per layer, past the trained length.
//
//   node examples/node/lab-generate.mjs [model] [pattern] [--window N] [--sinks N] [--rope TYPE:FACTOR]
//   node examples/node/lab-generate.mjs rope posenc --rope yarn:8
//
// Prints the continuation, the first position where it leaves the pattern, and checks that the
// cached generation equals greedy decoding with full forwards (pe.attention over the whole sequence;
// with a window, the same window). Exits non-zero if it does not.
import { load } from 'posenc';
import { LAB_MODELS } from '../../web/lab/runner.mjs';
import { loadModelFromDisk } from '../../web/lab/load-node.mjs';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz012345';
const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); return i < 0 ? undefined : args.splice(i, 2)[1]; };
const window = Number(flag('--window') ?? 0), sinks = Number(flag('--sinks') ?? 0);
const ropeArg = flag('--rope');
const [name = 'rope', text = 'posenc'] = args;
if (!LAB_MODELS.includes(name)) throw new RangeError(`model must be one of ${LAB_MODELS.join(', ')} (got ${name})`);
const rope = ropeArg ? { type: ropeArg.split(':')[0], factor: Number(ropeArg.split(':')[1] ?? 1) } : undefined;

const pe = await load();
const model = await loadModelFromDisk(pe, name);
const pattern = [...new Set([...text.toLowerCase()].filter((c) => LETTERS.includes(c)))].map((c) => LETTERS.indexOf(c) + 1);
if (pattern.length < 2) throw new RangeError('pattern: give at least two distinct letters (a-z, 0-5)');
const prompt = [0, ...pattern, ...pattern];
const total = 4 * model.L;                        // continue to position 4L = 256
const steps = total + 1 - prompt.length;

const session = model.session({ capacity: window ? sinks + window : total + 1, ...(window ? { window, sinks } : {}), rope });
const generated = session.generate(prompt, steps);
session.delete();

const expected = (pos) => pattern[(pos - 1) % pattern.length];
let first = null, correct = 0;
generated.forEach((t, i) => { if (t === expected(prompt.length + i)) correct++; else first ??= prompt.length + i; });
console.log(`model: ${name}${rope ? ` with ${rope.type} x${rope.factor}` : ''}${window ? `, window ${window}, sinks ${sinks}` : ''}`);
console.log(`prompt: ${prompt.slice(1).map((t) => LETTERS[t - 1]).join('')}`);
console.log(`continuation: ${generated.map((t) => LETTERS[t - 1] ?? '.').join('')}`);
console.log(`correct: ${correct} of ${steps}`);
console.log(`first error at position: ${first ?? 'none'} (trained length ${model.L})`);

// the check: the same greedy continuation from full forwards, no cache. With a window (and sinks), the
// forward attends exactly as the cache keeps keys; one step at a time matches the cache's own steps.
const seq = prompt.slice(), V = model.config.vocab;
// (dynamic NTK: the cache derives its base from its capacity, so the forward is given the same length)
const forwardOptions = { rope, ropeSeqLen: window ? sinks + window : total + 1, ...(window ? { window, sinks } : {}) };
for (let s = 0; s < Math.min(steps, 24); s++) {
  const lg = model.forward(seq, forwardOptions);
  const t = seq.length - 1;
  let best = 0;
  for (let j = 1; j < V; j++) if (lg[t * V + j] > lg[t * V + best]) best = j;
  seq.push(best);
}
const agree = seq.slice(prompt.length).every((t, i) => t === generated[i]);
console.log(`cache equals full forward (first ${seq.length - prompt.length} steps): ${agree}`);
if (!agree) process.exit(1);
