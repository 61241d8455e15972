// The lab's synthetic task, "continue the pattern": BOS (token 0) followed by k distinct content tokens
// (1..32) repeated to the end. Every token after the first period equals the token k back, so a model
// has to find where the pattern started again. Same generator as scripts/train/train.py (mulberry32),
// so the fixed test set is regenerated here and checked equal to the committed one by the tests.

export const VOCAB = 33;
export const TRAINED_LENGTH = 64;
export const TEST_SEED = 20230;
export const TEST_SEQS = 8;

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

/** BOS + `length` tokens repeating `period` distinct content tokens drawn with `rnd`. */
export function patternSequence(period, length, rnd) {
  const pool = Array.from({ length: VOCAB - 1 }, (_, i) => i + 1);
  for (let i = 0; i < period; i++) {
    const j = i + Math.floor(rnd() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  const out = [0];
  for (let t = 0; t < length; t++) out.push(pool[t % period]);
  return out;
}

/** The fixed test set: 8 sequences of 8L predicted tokens, periods 2, 4, ..., 16. */
export function testSet(L = TRAINED_LENGTH) {
  const rnd = mulberry32(TEST_SEED);
  return Array.from({ length: TEST_SEQS }, (_, i) => {
    const period = 2 + 2 * i;
    return { period, tokens: patternSequence(period, 8 * L, rnd) };
  });
}

/**
 * Greedy next-token accuracy per predicted position over a set of sequences: predictions[s] holds the
 * argmax at input positions 0..n-1 (predicting tokens 1..n). Position q counts once q >= period.
 * Returns { correct, total } indexed by q (predicted token q + 1, i.e. "position q + 1").
 */
export function positionAccuracy(tests, predictions, n) {
  const correct = new Array(n).fill(0), total = new Array(n).fill(0);
  tests.forEach((t, s) => {
    for (let q = t.period; q < n; q++) {
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
