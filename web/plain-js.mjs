// What a JavaScript user would write without posenc: plain loops over typed arrays. The benchmark
// (bench/run.mjs) and the demo's speed panel (web/speed-worker.mjs) time posenc against these.

// RoPE, rotate_half pairing (Llama / NeoX), x [heads, tokens, headDim] in place, angles in double.
export function ropeJs(x, heads, tokens, headDim, positions, base = 10000) {
  const h = headDim / 2;
  const inv = Float64Array.from({ length: h }, (_, i) => base ** (-2 * i / headDim));
  const c = new Float32Array(h), s = new Float32Array(h);
  for (let t = 0; t < tokens; t++) {
    for (let i = 0; i < h; i++) { const a = positions[t] * inv[i]; c[i] = Math.cos(a); s[i] = Math.sin(a); }
    for (let hh = 0; hh < heads; hh++) {
      const o = (hh * tokens + t) * headDim;
      for (let i = 0; i < h; i++) {
        const a = x[o + i], b = x[o + i + h];
        x[o + i] = a * c[i] - b * s[i];
        x[o + i + h] = b * c[i] + a * s[i];
      }
    }
  }
}

// Plain-JS causal attention (what a JS user would write): scores row, softmax, weighted sum.
export function attentionJs(q, k, v, heads, T, d, encoding) {
  const out = new Float32Array(heads * T * d), s = new Float64Array(T), scale = 1 / Math.sqrt(d);
  const slopes = Float64Array.from({ length: heads }, (_, h) => 2 ** (-8 * (h + 1) / heads));
  let qq = q, kk = k;
  if (encoding === 'rope') {
    qq = Float32Array.from(q); kk = Float32Array.from(k);
    const pos = Int32Array.from({ length: T }, (_, i) => i);
    ropeJs(qq, heads, T, d, pos); ropeJs(kk, heads, T, d, pos);
  }
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < T; i++) {
      let m = -Infinity;
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += qq[(h * T + i) * d + c] * kk[(h * T + j) * d + c];
        s[j] = dot * scale - (encoding === 'alibi' ? slopes[h] * (i - j) : 0);
        if (s[j] > m) m = s[j];
      }
      let l = 0;
      for (let j = 0; j <= i; j++) { s[j] = Math.exp(s[j] - m); l += s[j]; }
      for (let j = 0; j <= i; j++) {
        const w = s[j] / l;
        for (let c = 0; c < d; c++) out[(h * T + i) * d + c] += w * v[(h * T + j) * d + c];
      }
    }
  return out;
}
