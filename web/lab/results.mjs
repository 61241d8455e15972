// The lab's results over seeds (web/lab/models/results.json, written by scripts/train/train.py --summary):
// for every model, seed, task and evaluation ('plain' as trained, 'window48' the window probe, 'pi4' the
// RoPE model with position interpolation at inference only), the number of the 8 test sequences predicted
// right at each position, one digit per position. The page, docs/lab.md and README.md all read their
// numbers through these functions, so they cannot disagree; the tests hold seed 1 to the runner's own
// predictions on the committed weights.
import { TRAINED_LENGTH as L } from './task.mjs';

export const WINDOWS = ['1L', '2L', '4L', '8L'];

/** Per-position correct counts of one model, seed, task and evaluation, as numbers. */
export function correctCounts(results, name, seed, task, variant = 'plain') {
  const s = results.models[name]?.[String(seed)]?.tasks[task]?.[variant];
  if (s === undefined) throw new RangeError(`results.json has no ${name} seed ${seed} ${task} ${variant}`);
  return Array.from(s, (c) => c.charCodeAt(0) - 48);
}

export const totalCounts = (results, task) => Array.from(results.total[task], (c) => c.charCodeAt(0) - 48);
export const seedsOf = (results, name) => Object.keys(results.models[name] ?? {}).map(Number).sort((a, b) => a - b);

/** Accuracy over the last L/2 positions up to L, 2L, 4L, 8L (train.py's windows()). */
export function windowAccuracy(correct, total, m) {
  let c = 0, t = 0;
  for (let q = m * L - L / 2; q < m * L; q++) { c += correct[q]; t += total[q]; }
  return c / t;
}

/**
 * Over the seeds: { n, mean, sd (sample standard deviation, 0 for one seed), min, max, values } of the
 * accuracy up to each of L, 2L, 4L, 8L.
 */
export function seedStats(results, name, task, variant = 'plain') {
  const total = totalCounts(results, task), out = {};
  const seeds = seedsOf(results, name);
  for (const w of WINDOWS) {
    const m = Number(w[0]);
    const values = seeds.map((s) => windowAccuracy(correctCounts(results, name, s, task, variant), total, m));
    const n = values.length, mean = values.reduce((a, b) => a + b, 0) / n;
    const sd = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
    out[w] = { n, mean, sd, min: Math.min(...values), max: Math.max(...values), values };
  }
  return out;
}

/** A table cell: mean ± sd in whole percent ("92 ± 1 %"). */
export const formatStat = (s) => `${(100 * s.mean).toFixed(0)} ± ${(100 * s.sd).toFixed(0)} %`;
/** The range beneath it: "88–95". */
export const formatRange = (s) => `${(100 * s.min).toFixed(0)}–${(100 * s.max).toFixed(0)}`;

/** Per-bin accuracy (bins of `bin` positions) of each seed: { xs, seeds: [[...]], mean, min, max }. */
export function binnedSeeds(results, name, task, variant = 'plain', bin = 8) {
  const total = totalCounts(results, task), n = total.length;
  const seeds = seedsOf(results, name).map((s) => binned(correctCounts(results, name, s, task, variant), total, bin));
  const xs = seeds[0].xs, k = xs.length;
  const col = (i) => seeds.map((s) => s.ys[i]);
  return {
    xs, seeds: seeds.map((s) => s.ys),
    mean: Array.from({ length: k }, (_, i) => col(i).reduce((a, b) => a + b, 0) / seeds.length),
    min: Array.from({ length: k }, (_, i) => Math.min(...col(i))),
    max: Array.from({ length: k }, (_, i) => Math.max(...col(i))),
    n,
  };
}

/** Per-bin accuracy of one run: bins of `bin` positions with at least one determined token. */
export function binned(correct, total, bin = 8) {
  const xs = [], ys = [];
  for (let s = 0; s < total.length; s += bin) {
    let c = 0, t = 0;
    for (let q = s; q < s + bin; q++) { c += correct[q]; t += total[q]; }
    if (t) { xs.push(s + bin); ys.push(c / t); }
  }
  return { xs, ys };
}

// ---- what the lab shows, stated once for the page and README.md ------------------------------------------
// Each finding: its verdict, whether it holds on results.json (a predicate over the numbers it quotes:
// tests/node/lab.test.mjs fails if a retrained results.json contradicts a sentence), and its text as parts:
// strings, { ref } (a paper of the page's reference list) and { stat: [model, task, window, evaluation] }.
export const REF_LINKS = {
  vaswani: ['Vaswani et al.', 'https://arxiv.org/abs/1706.03762'], press: ['Press et al.', 'https://arxiv.org/abs/2108.12409'],
  kazemnejad: ['Kazemnejad et al.', 'https://arxiv.org/abs/2305.19466'], chen: ['Chen et al.', 'https://arxiv.org/abs/2306.15595'],
  peng: ['Peng et al.', 'https://arxiv.org/abs/2309.00071'], chi: ['Chi et al.', 'https://arxiv.org/abs/2205.09921'],
  li: ['Li et al.', 'https://arxiv.org/abs/2310.04418'], raffel: ['Raffel et al.', 'https://arxiv.org/abs/1910.10683'],
  xiao: ['Xiao et al.', 'https://arxiv.org/abs/2309.17453'], su: ['Su et al.', 'https://arxiv.org/abs/2104.09864'],
  lin: ['Lin et al.', 'https://arxiv.org/abs/2503.02130'], tan: ['Tan et al.', 'https://arxiv.org/abs/2410.17980'],
};

export function findings(results) {
  const st = (n, task, w, v = 'plain') => seedStats(results, n, task, v)[w].mean;
  const S = (n, task, w, v = 'plain') => ({ stat: [n, task, w, v], value: seedStats(results, n, task, v)[w] });
  const ref = (r) => ({ ref: r });
  const pi = `pi${results.piFactor}`, probe = `window${results.probeWindow}`;
  return [
    {
      verdict: 'Reproduced', holds: st('learned', 'switch', '1L') >= 0.9 && st('learned', 'switch', '4L') <= 0.5 && st('sinusoidal', 'switch', '4L') <= 0.5,
      parts: ['absolute encodings do not generalise past the trained length (', ref('kazemnejad'), ', ', ref('press'), '): on the switch task the clamped learned table scores ',
        S('learned', 'switch', '1L'), ' at L and ', S('learned', 'switch', '4L'), ' at 4L, sinusoidal ', S('sinusoidal', 'switch', '1L'), ' and ', S('sinusoidal', 'switch', '4L'), '.'],
    },
    {
      verdict: 'Reproduced', holds: st('rope', 'switch', '1L') >= 0.9 && st('rope', 'switch', '4L') <= 0.5,
      parts: ['RoPE trained short fails long (', ref('peng'), '): ', S('rope', 'switch', '1L'), ' at L, ', S('rope', 'switch', '4L'), ' at 4L.'],
    },
    {
      verdict: 'Reproduced', holds: st('rope', 'switch', '1L', pi) < st('rope', 'switch', '1L') - 0.2 && st('rope-pi', 'switch', '4L') >= 0.9 && st('rope-pi', 'switch', '8L') < st('rope-pi', 'switch', '4L') - 0.1,
      parts: ['position interpolation works with its fine-tune (', ref('chen'), '): dividing positions by 4 at inference only gives ', S('rope', 'switch', '1L', pi), ' at L; after ',
        `${results.budget.fineTuneSteps} steps of fine-tuning at 4L it gives `, S('rope-pi', 'switch', '4L'), ' at 4L, and ', S('rope-pi', 'switch', '8L'), ' at 8L, past the length it was tuned to.'],
    },
    {
      verdict: 'Reproduced', holds: st('alibi', 'switch', '4L') >= 0.9 && st('kerple', 'switch', '4L') >= 0.9,
      parts: ['ALiBi (', ref('press'), ') and KERPLE (', ref('chi'), ') trained short stay accurate long: ALiBi ', S('alibi', 'switch', '4L'), ' at 4L and ', S('alibi', 'switch', '8L'),
        ' at 8L, KERPLE ', S('kerple', 'switch', '4L'), ' at 4L.'],
    },
    {
      verdict: 'Not reproduced', holds: st('alibi', 'switch', '4L') >= 0.9 && st('nope', 'switch', '1L') < 0.8,
      parts: ['ALiBi poorly suited and NoPE the best (', ref('kazemnejad'), '): here ALiBi generalises, and NoPE has not learnt the switch task even at L (', S('nope', 'switch', '1L'),
        ') in the budget every model gets. The task is a copy whose source is always recent, which suits ALiBi\'s recency bias; their reasoning and mathematical tasks are not.'],
    },
    {
      verdict: 'Not reproduced', holds: st('fire', 'switch', '4L') < st('alibi', 'switch', '4L') - 0.1 && st('fire', 'switch', '4L') < st('kerple', 'switch', '4L') - 0.1 && st('fire', 'switch', '4L') > st('t5', 'switch', '4L') + 0.2,
      parts: ['FIRE generalising better than the relative encodings before it (', ref('li'), '): here it keeps ', S('fire', 'switch', '4L'), ' at 4L, above T5\'s ',
        S('t5', 'switch', '4L'), ' but below ALiBi and KERPLE, and varies most between seeds.'],
    },
    {
      verdict: 'Reproduced', holds: st('fox', 'switch', '4L') >= 0.9 && st('fox', 'switch', '8L') >= 0.9 && st('stickbreaking', 'switch', '4L') >= 0.9 && st('stickbreaking', 'switch', '8L') >= 0.9,
      parts: ['forgetting attention (', ref('lin'), ') and stick-breaking attention (', ref('tan'), '), neither with any position encoding, generalise past L: FoX ', S('fox', 'switch', '4L'),
        ' at 4L and ', S('fox', 'switch', '8L'), ' at 8L, stick-breaking ', S('stickbreaking', 'switch', '4L'), ' and ', S('stickbreaking', 'switch', '8L'),
        '. Both learn a preference for recent tokens (a forget gate, a stick broken from the nearest key back), which this task rewards.'],
    },
    {
      verdict: 'The control', holds: st('learned', 'pattern', '8L') >= 0.8 && st('learned', 'pattern', '8L', probe) <= 0.5 && st('rope', 'pattern', '8L', probe) > st('rope', 'pattern', '8L') + 0.2,
      parts: ['the pattern task cannot tell them apart: the learned table scores ', S('learned', 'pattern', '8L'), ' at 8L by reading the first L tokens; limited to a 48-token window it drops to ',
        S('learned', 'pattern', '8L', probe), ', while the window lifts RoPE from ', S('rope', 'pattern', '8L'), ' to ', S('rope', 'pattern', '8L', probe), ' (only distances it was trained on remain).'],
    },
  ];
}

/** A finding as 'text' (what the page's list item reads), 'markdown' (README.md) or 'html' (the page). */
export function renderFinding(f, mode = 'text') {
  const body = f.parts.map((p) => {
    if (typeof p === 'string') return mode === 'html' ? p.replace(/&/g, '&amp;').replace(/</g, '&lt;') : p;
    if (p.ref) {
      const [label, url] = REF_LINKS[p.ref];
      return mode === 'markdown' ? `[${label}](${url})` : mode === 'html' ? `<a href="#ref-${p.ref}">${label}</a>` : label;
    }
    return mode === 'html' ? `<span class="stat">${formatStat(p.value)}</span>` : formatStat(p.value);
  }).join('');
  const head = mode === 'markdown' ? `**${f.verdict}**` : mode === 'html' ? `<strong>${f.verdict}</strong>` : f.verdict;
  return `${head} — ${body}`;
}
