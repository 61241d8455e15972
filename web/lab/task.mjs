// The lab's two synthetic tasks, both "continue the pattern" (BOS = token 0, content tokens 1..32):
//   pattern — k distinct tokens (k = 2..16) repeated to the end: every token after the first period is the
//             one k back. Every answer already occurs in the first L tokens, so a model can score past L by
//             reading the prefix.
//   switch  — the pattern switches to a fresh one (k = 2..8 tokens, none in the pattern before it) every
//             16..48 tokens: what determines a token past L lies past L.
// A token is determined once its pattern has shown one full period. Same generators as
// scripts/train/train.py (mulberry32), so the fixed test sets are regenerated here and checked equal to
// the committed ones by the tests.

export const VOCAB = 33;
export const TRAINED_LENGTH = 64;
export const TASKS = ['pattern', 'switch'];
export const TEST_SEED = { pattern: 20230, switch: 20231 };
export const TEST_SEQS = 8;
export const SWITCH = { periodMin: 2, periodMax: 8, segmentMin: 16, segmentMax: 48 };

/** mulberry32: uniform floats in [0, 1), bit-identical to train.py's lcg_rng. */
export function mulberry32(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `period` distinct content tokens not in `exclude` (Fisher-Yates draws from rnd; train.py's draw_pattern). */
export function drawPattern(period, rnd, exclude = []) {
  const pool = [];
  for (let t = 1; t < VOCAB; t++) if (!exclude.includes(t)) pool.push(t);
  for (let i = 0; i < period; i++) {
    const j = i + Math.floor(rnd() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, period);
}

/** BOS + `length` tokens repeating `period` distinct content tokens drawn with `rnd` (a token array). */
export function patternSequence(period, length, rnd) {
  const pat = drawPattern(period, rnd);
  const out = [0];
  for (let t = 0; t < length; t++) out.push(pat[t % period]);
  return out;
}

/**
 * BOS + `length` tokens of the switch task: { segments: [[start index, period], ...], tokens }.
 * train.py's switch_sequence.
 */
export function switchSequence(length, rnd) {
  const { periodMin, periodMax, segmentMin, segmentMax } = SWITCH;
  const tokens = [0], segments = [];
  let prev = [];
  while (tokens.length - 1 < length) {
    const k = periodMin + Math.floor(rnd() * (periodMax - periodMin + 1));
    const n = segmentMin + Math.floor(rnd() * (segmentMax - segmentMin + 1));
    const pat = drawPattern(k, rnd, prev);
    segments.push([tokens.length, k]);
    for (let i = 0; i < n; i++) tokens.push(pat[i % k]);
    prev = pat;
  }
  tokens.length = length + 1;
  return { segments: segments.filter((s) => s[0] <= length), tokens };
}

/** known[i] for each token index i of a test sequence: true once its pattern has shown one full period. */
export function determined({ segments, tokens }) {
  const known = new Array(tokens.length).fill(false);
  segments.forEach(([start, k], s) => {
    const stop = s + 1 < segments.length ? segments[s + 1][0] : tokens.length;
    for (let i = start + k; i < stop; i++) known[i] = true;
  });
  return known;
}

/**
 * A fixed test set: 8 sequences of 8L predicted tokens. 'pattern': periods 2, 4, ..., 16, each
 * { period, segments, tokens }; 'switch': { segments, tokens }.
 */
export function testSet(task = 'pattern', L = TRAINED_LENGTH) {
  if (!TASKS.includes(task)) throw new RangeError(`task must be one of ${TASKS.join(', ')} (got ${task})`);
  const rnd = mulberry32(TEST_SEED[task]);
  return Array.from({ length: TEST_SEQS }, (_, i) => {
    if (task === 'switch') return switchSequence(8 * L, rnd);
    const period = 2 + 2 * i;
    return { period, segments: [[1, period]], tokens: patternSequence(period, 8 * L, rnd) };
  });
}

/**
 * Greedy next-token accuracy per predicted position over a set of sequences: predictions[s] holds the
 * argmax at input positions 0..n-1 (predicting tokens 1..n). Position q counts where token q + 1 is
 * determined. Returns { correct, total } indexed by q (predicted token q + 1, i.e. "position q + 1").
 */
export function positionAccuracy(tests, predictions, n) {
  const correct = new Array(n).fill(0), total = new Array(n).fill(0);
  tests.forEach((t, s) => {
    const known = determined(t);
    for (let q = 0; q < n; q++) {
      if (!known[q + 1]) continue;
      total[q]++;
      if (predictions[s][q] === t.tokens[q + 1]) correct[q]++;
    }
  });
  return { correct, total };
}

/** Accuracy over the last L/2 predicted positions up to L, 2L, 4L, 8L (train.py's windows()). */
export function windows({ correct, total }, L = TRAINED_LENGTH) {
  const out = {};
  for (const m of [1, 2, 4, 8]) {
    let c = 0, t = 0;
    for (let q = m * L - L / 2; q < m * L; q++) { c += correct[q]; t += total[q]; }
    out[`${m}L`] = c / t;
  }
  return out;
}
