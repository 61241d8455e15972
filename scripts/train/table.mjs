// The lab's tables in README.md and docs/lab.md, between <!-- lab:NAME --> and <!-- /lab:NAME --> marks:
// every number over seeds comes from web/lab/models/results.json through web/lab/results.mjs (the
// functions the page uses), the RoPE schedule table from the runner (posenc) on seed 1's committed RoPE
// weights. `node scripts/train/table.mjs` prints them, `--write` puts them in the two files (run by
// `npm run train`), `--check` fails when a file differs (tests/node/lab.test.mjs runs the check).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LAB_MODELS, LAB_LABELS } from '../../web/lab/runner.mjs';
import { testSet, positionAccuracy, windows, TRAINED_LENGTH as L } from '../../web/lab/task.mjs';
import { seedStats, formatStat, formatRange, findings, renderFinding, WINDOWS } from '../../web/lab/results.mjs';

const root = new URL('../../', import.meta.url);
const HEAD = { '1L': 'L', '2L': '2L', '4L': '4L', '8L': '8L' };
const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i ? '---:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const withRange = (s) => `${formatStat(s)} (${formatRange(s)})`;

/** The blocks that depend on results.json only: { readme: {...}, lab: {...} } by mark name. */
export function resultBlocks(results) {
  const st = (n, task, v) => seedStats(results, n, task, v);
  const n = results.seeds.length;
  const readme = table([`encoding (${n} seeds)`, 'switch: L', '2L', '4L', '8L', 'pattern: 8L', 'pattern 8L, window 48'],
    LAB_MODELS.map((m) => {
      const sw = st(m, 'switch'), pa = st(m, 'pattern'), pw = st(m, 'pattern', 'window48');
      return [LAB_LABELS[m], ...WINDOWS.map((w) => formatStat(sw[w])), formatStat(pa['8L']), formatStat(pw['8L'])];
    }));
  const byTask = (task) => table(['encoding', ...WINDOWS.map((w) => HEAD[w])],
    LAB_MODELS.map((m) => { const s = st(m, task); return [LAB_LABELS[m], ...WINDOWS.map((w) => withRange(s[w]))]; }));
  const probe = table(['encoding', 'pattern 4L', '8L', 'window 48: 4L', '8L', 'switch 4L', '8L', 'window 48: 4L', '8L'],
    LAB_MODELS.map((m) => [LAB_LABELS[m], ...['pattern', 'switch'].flatMap((task) => {
      const f = st(m, task), w = st(m, task, 'window48');
      return [f['4L'], f['8L'], w['4L'], w['8L']].map(formatStat);
    })]));
  const pi = table(['RoPE model', 'switch: L', '2L', '4L', '8L', 'pattern: L', '4L', '8L'], [
    ['trained at L, no scaling', st('rope', 'switch'), st('rope', 'pattern')],
    [`PI ×${results.piFactor} at inference only`, st('rope', 'switch', `pi${results.piFactor}`), st('rope', 'pattern', `pi${results.piFactor}`)],
    [`PI ×${results.piFactor}, fine-tuned ${results.budget.fineTuneSteps} steps at ${results.piFactor}L`, st('rope-pi', 'switch'), st('rope-pi', 'pattern')],
  ].map(([name, sw, pa]) => [name, ...WINDOWS.map((w) => formatStat(sw[w])), ...['1L', '4L', '8L'].map((w) => formatStat(pa[w]))]));
  const found = findings(results).map((f) => `- ${renderFinding(f, 'markdown')}`).join('\n');
  return { readme: { 'lab:table': readme, 'lab:findings': found }, lab: { 'lab:switch': byTask('switch'), 'lab:pattern': byTask('pattern'), 'lab:probe': probe, 'lab:pi': pi } };
}

/** docs/lab.md's RoPE schedule table: seed 1's RoPE model under each schedule at inference (the runner). */
export async function scheduleBlock(pe) {
  const { loadModelFromDisk } = await import('../../web/lab/load-node.mjs');
  const rope = await loadModelFromDisk(pe, 'rope');
  const N = 8 * L, tests = testSet('switch');
  const acc = (options) => windows(positionAccuracy(tests, tests.map((t) => rope.predict(t.tokens.slice(0, N), options)), N));
  const pct = (x) => `${(100 * x).toFixed(0)} %`;
  const rows = [['none', acc()]];
  for (const factor of [4, 8]) {
    for (const [type, label] of [['linear', 'PI (linear)'], ['ntk', 'NTK-aware'], ['dynamic', 'dynamic NTK'], ['yarn', 'YaRN']]) {
      rows.push([`${label} ×${factor}`, acc({ rope: { type, factor } })]);
    }
  }
  return { 'lab:schedules': table(['RoPE schedule at inference (seed 1, switch task)', 'L', '2L', '4L', '8L'], rows.map(([n, w]) => [n, ...WINDOWS.map((k) => pct(w[k]))])) };
}

/** Replaces each <!-- NAME --> … <!-- /NAME --> block of `text` by blocks[NAME]; throws on a missing mark. */
export function fill(text, blocks, file) {
  for (const [name, body] of Object.entries(blocks)) {
    const re = new RegExp(`(<!-- ${name} -->)[\\s\\S]*?(<!-- /${name} -->)`);
    if (!re.test(text)) throw new Error(`${file}: no <!-- ${name} --> … <!-- /${name} --> block`);
    text = text.replace(re, (_, a, b) => `${a}\n${body}\n${b}`);
  }
  return text;
}

export async function expectedFiles(pe) {
  const results = JSON.parse(readFileSync(new URL('web/lab/models/results.json', root), 'utf8'));
  const blocks = resultBlocks(results);
  const lab = { ...blocks.lab, ...(pe ? await scheduleBlock(pe) : {}) };
  const out = {};
  for (const [file, b] of [['README.md', blocks.readme], ['docs/lab.md', lab]]) {
    const text = readFileSync(new URL(file, root), 'utf8');
    out[file] = { text, want: fill(text, b, file) };
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { load } = await import('../../bindings/posenc.mjs');
  const files = await expectedFiles(await load());
  const mode = process.argv[2];
  let stale = 0;
  for (const [file, { text, want }] of Object.entries(files)) {
    if (mode === '--write') { if (text !== want) writeFileSync(new URL(file, root), want); console.log(`${file}: ${text === want ? 'unchanged' : 'written'}`); }
    else if (mode === '--check') { if (text !== want) { stale++; console.error(`${file}: its lab tables differ from results.json (node scripts/train/table.mjs --write)`); } }
    else console.log(`== ${file}\n${want.match(/<!-- lab:[\s\S]*?<!-- \/lab:[a-z]+ -->/g).join('\n\n')}`);
  }
  if (stale) process.exit(1);
}
