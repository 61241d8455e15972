// Speed, measured here: posenc's wasm core against the plain-JS loops a user would otherwise write,
// in a Web Worker (the page stays responsive), at a size the reader picks.
import { $, bindSegmented, demo } from '../common.mjs';
import { barChart } from '../plot.mjs';

export function speedSection() {
  const state = { op: 'attention' };
  const worker = new Worker(new URL('../speed-worker.mjs', import.meta.url), { type: 'module' });
  const button = $('speed-run'), out = $('speed-out');
  let running = false;
  const labels = { rope: 'applyRope, 8 heads × 128, positions 0..T−1', attention: 'causal attention with RoPE, 8 heads × 64' };

  function draw() {
    const r = demo.speed;
    $('speed-what').textContent = labels[state.op];
    if (!r || r.op !== state.op) {
      barChart($('speed-bars'), [], {});
      out.textContent = 'Press “run” to time both here, on this machine.';
      return;
    }
    barChart($('speed-bars'), [
      { name: 'posenc (wasm SIMD128)', value: r.posencMs, color: '#1f8a70' },
      { name: 'plain JavaScript', value: r.jsMs, color: '#c0392b' },
    ], { unit: 'ms' });
    out.textContent = `${r.shape}: posenc ${r.posencMs.toFixed(1)} ms, plain JS ${r.jsMs.toFixed(1)} ms — ${r.speedup.toFixed(1)}× faster; `
      + `the two results differ by at most ${r.maxDiff.toExponential(1)} (float32 against float64 arithmetic).`;
  }
  worker.onmessage = ({ data }) => {
    running = false;
    button.disabled = false;
    button.textContent = 'run';
    if (data.error) { out.textContent = data.error; return; }
    demo.speed = data;
    draw();
  };
  button.addEventListener('click', () => {
    if (running) return;
    running = true;
    button.disabled = true;
    button.textContent = 'running…';
    out.textContent = 'Timing in a Web Worker: the page stays usable meanwhile.';
    worker.postMessage({ op: state.op, T: Number($('speed-T').value) });
  });
  bindSegmented('speed-op', state, 'op', draw);
  return draw;
}
