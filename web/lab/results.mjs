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
