// Speed, measured here: posenc's wasm core against the plain-JS loops a user would otherwise write,
// in a Web Worker (the page stays responsive), at a size the reader picks.
import { $, bindInput, bindSegmented, demo } from '../common.mjs';
import { barChart, cssWidth, resize } from '../plot.mjs';

export function speedSection() {
  const state = { op: 'attention' };
  const worker = new Worker(new URL('../speed-worker.mjs', import.meta.url), { type: 'module' });
  const button = $('speed-run'), out = $('speed-out');
  let running = false;
  const labels = { rope: 'applyRope, 8 heads × 128, positions 0..T−1', attention: 'causal attention with RoPE, 8 heads × 64' };

  // posenc runs on every core when the page is cross-origin isolated (npm start's server sends COOP/COEP)
  const threadsLabel = (n) => `${n} thread${n === 1 ? '' : 's'}`;
  const results = {};  // the last result of each operation, shown again when the reader switches back
  const shapeOf = (op, T) => (op === 'rope' ? `[8, ${T}, 128]` : `[8, ${T}, 64]`);
  // before a run: the chart says what "run" will measure, instead of an empty box
  function plan(canvas, T) {
    const dpr = window.devicePixelRatio || 1, w = Math.max(280, cssWidth(canvas) || canvas.width);
    const lines = [
      ['600 13px', '#1c2330', `Not run yet. “run” will time ${state.op === 'rope' ? 'applyRope' : 'causal attention with RoPE'} at ${shapeOf(state.op, T)} [heads, tokens, head dim]:`],
      ['12px', '#1f8a70', `■ posenc (wasm SIMD128, ${globalThis.crossOriginIsolated ? 'on every core: this page is cross-origin isolated' : 'one thread: this page is not cross-origin isolated'})`],
      ['12px', '#c0392b', '■ plain JavaScript loops (float64)'],
      ['12px', '#4a5368', 'median of 5 runs each after a warm-up (plain-JS attention: 3), in a Web Worker; then both outputs are compared.'],
    ];
    // wrap on words to the canvas width first, so the canvas is as tall as the text (a phone wraps more)
    const ctx = canvas.getContext('2d'), rows = [];
    let y = 18;
    for (const [font, color, text] of lines) {
      ctx.font = `${font} system-ui, sans-serif`;
      let line = '';
      for (const word of text.split(' ')) {
        if (line && ctx.measureText(`${line} ${word}`).width > w - 24) { rows.push([font, color, line, y]); y += 17; line = word; } else line = line ? `${line} ${word}` : word;
      }
      rows.push([font, color, line, y]); y += 22;
    }
    const h = Math.max(w < 520 ? 150 : 120, y - 6);
    resize(canvas, Math.round(w * dpr), Math.round(h * dpr));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.textBaseline = 'middle';
    for (const [font, color, text, ty] of rows) { ctx.font = `${font} system-ui, sans-serif`; ctx.fillStyle = color; ctx.fillText(text, 12, ty); }
    canvas.planHeight = h;
  }

  function draw() {
    const T = Number($('speed-T').value), r = results[`${state.op}:${T}`] ?? results[state.op];
    $('speed-what').textContent = labels[state.op];
    if (!r) {
      plan($('speed-bars'), T);
      out.textContent = 'Press “run” to time both here, on this machine.';
      return;
    }
    barChart($('speed-bars'), [
      { name: `posenc (wasm SIMD128, ${threadsLabel(r.threads)})`, value: r.posencMs, color: '#1f8a70' },
      { name: 'plain JavaScript', value: r.jsMs, color: '#c0392b' },
    ], { unit: 'ms' });
    out.textContent = `${r.T === T ? 'Last result' : `Last result (at T = ${r.T}; press run for ${T})`}, ${r.shape}: posenc ${r.posencMs.toFixed(1)} ms on ${threadsLabel(r.threads)}, plain JS ${r.jsMs.toFixed(1)} ms — ${r.speedup.toFixed(1)}× faster; `
      + `the two results differ by at most ${r.maxDiff.toExponential(1)} (float32 against float64 arithmetic).`;
  }
  worker.onmessage = ({ data }) => {
    running = false;
    button.disabled = false;
    button.textContent = 'run';
    if (data.error) { out.textContent = data.error; return; }
    demo.speed = data;
    results[data.op] = results[`${data.op}:${data.T}`] = data;
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
  bindInput('speed-T', state, 'T', draw);
  return draw;
}
