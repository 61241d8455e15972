// Prints docs/lab.md's "Train short, test long" tables from the committed models: accuracy at L, 2L,
// 4L, 8L (over the 32 positions up to each) per encoding, and for the RoPE model per schedule and
// factor, all computed by the runner (posenc) on the fixed test set. Run by `npm run train` after
// training (needs the wasm build: npm run build); `node scripts/train/table.mjs` alone reprints it.
import { load } from '../../bindings/posenc.mjs';
import { LAB_MODELS, LAB_LABELS } from '../../web/lab/runner.mjs';
import { loadModelFromDisk } from '../../web/lab/load-node.mjs';
import { testSet, positionAccuracy, windows, TRAINED_LENGTH as L } from '../../web/lab/task.mjs';

const pe = await load();
const tests = testSet(), N = 8 * L;
const pct = (x) => `${(100 * x).toFixed(0)} %`;
const row = (name, w) => `| ${name} | ${['1L', '2L', '4L', '8L'].map((k) => pct(w[k])).join(' | ')} |`;
const accuracy = (m, options) => windows(positionAccuracy(tests, tests.map((t) => m.predict(t.tokens.slice(0, N), options)), N));

console.log('| encoding | L | 2L | 4L | 8L |\n|---|---|---|---|---|');
for (const name of LAB_MODELS) console.log(row(LAB_LABELS[name], accuracy(await loadModelFromDisk(pe, name))));

const rope = await loadModelFromDisk(pe, 'rope');
console.log('\n| RoPE schedule (at inference) | L | 2L | 4L | 8L |\n|---|---|---|---|---|');
console.log(row('none', accuracy(rope)));
for (const factor of [4, 8]) {
  for (const [type, label] of [['linear', 'PI (linear)'], ['ntk', 'NTK-aware'], ['dynamic', 'dynamic NTK'], ['yarn', 'YaRN']]) {
    console.log(row(`${label} ×${factor}`, accuracy(rope, { rope: { type, factor } })));
  }
}
