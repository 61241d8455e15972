// Shared helpers for the Node tests: references are computed here in float64 from the published
// definitions, never by calling posenc.
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

// Deterministic pseudo-random floats in [-1, 1) (xorshift32), so failures reproduce.
export function randomFloats(n, seed = 1) {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

// Exact-ish RoPE of one head vector in float64.
export function ropeReference(x, p, invFreq, layout, scale = 1) {
  const y = Array.from(x);
  const h = invFreq.length;
  for (let i = 0; i < h; i++) {
    const [a, b] = layout === 'half' ? [i, i + h] : [2 * i, 2 * i + 1];
    const c = Math.cos(p * invFreq[i]) * scale, s = Math.sin(p * invFreq[i]) * scale;
    y[a] = x[a] * c - x[b] * s;
    y[b] = x[b] * c + x[a] * s;
  }
  return y;
}
