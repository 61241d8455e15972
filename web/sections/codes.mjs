// Binary vs Gray position codes: the bit patterns, and how many bits flip between neighbours.
import { heatmapFigure, lineChart } from '../plot.mjs';
import { $, bindSegmented, demo } from '../common.mjs';

export function codesSection(pe) {
  const state = { code: 'binary' };
  const bits = 6, N = 64;
  function draw() {
    const positions = Int32Array.from({ length: N }, (_, i) => i);
    // fixed ±1 code, [N, bits], least significant bit first; shown most significant at the top row
    const code = pe.binary(positions, { bits, code: state.code });
    const img = new Float32Array(bits * N);
    for (let p = 0; p < N; p++) for (let k = 0; k < bits; k++) img[(bits - 1 - k) * N + p] = code[p * bits + k];
    heatmapFigure($('codes-bits'), img, bits, N, {
      colorbar: false, plotAspect: 0.14, minPlotHeight: 60, xLabel: 'position p', yLabel: 'bit',
      yTicks: Array.from({ length: bits }, (_, r) => ({ i: r, text: `2^${bits - 1 - r}` })),
      xTicks: [0, 8, 16, 24, 32, 40, 48, 56, 63].map((p) => ({ i: p, text: String(p) })),
    });
    const flips = Array.from({ length: N - 1 }, (_, p) => pe.codeDistance(p, p + 1, { bits, code: state.code }));
    demo.codes = { code: state.code, flips };
    lineChart($('codes-flips'), [{ name: `${state.code} bits flipped from p to p+1`, color: state.code === 'gray' ? '#1f8a70' : '#c0392b', ys: flips, points: true }],
      { xLabel: 'position p (the step p → p + 1)', yLabel: 'bits flipped', yMin: 0, yMax: bits, aspect: 0.3 });
    $('codes-caption').textContent = state.code === 'binary'
      ? `7 → 8 flips ${pe.codeDistance(7, 8, { bits })} bits and 31 → 32 flips ${pe.codeDistance(31, 32, { bits })}: neighbours can look far apart.`
      : `Gray code: every step flips exactly one bit (7 → 8: ${pe.codeDistance(7, 8, { bits, code: 'gray' })}), so neighbouring positions stay close.`;
  }
  bindSegmented('codes-kind', state, 'code', draw);
  return draw;
}
