// Loaded by index.html, whose import map resolves 'posenc'. Writes a RoPE rotation and the ALiBi
// slopes into the page.
import { load } from 'posenc';

const status = document.getElementById('status');
try {
  const pe = await load();

  // RoPE: rotate the vector (1, 0, ..., 0) at a few positions. With the default 'half' layout, pair 0
  // is channels (0, headDim/2) and turns by position × 1 rad, so the result there is (cos p, sin p).
  const headDim = 64, positions = [0, 1, 2, 10, 100];
  const x = new Float32Array(positions.length * headDim);
  for (let t = 0; t < positions.length; t++) x[t * headDim] = 1;
  const rotated = pe.applyRope(x, { heads: 1, tokens: positions.length, headDim }, positions);   // base 10000
  const rows = positions.map((p, t) => {
    const row = rotated.subarray(t * headDim, (t + 1) * headDim);
    return `<tr><td>${p}</td><td>${row[0].toFixed(6)}</td><td>${row[headDim / 2].toFixed(6)}</td></tr>`;
  });
  document.querySelector('#rope tbody').innerHTML = rows.join('');

  // ALiBi: one slope per head, m_h = 2^(-8(h+1)/heads) for a power-of-two head count.
  document.getElementById('alibi').textContent = Array.from(pe.alibiSlopes(8)).join(' ');

  status.textContent = 'Computed by the posenc WebAssembly core.';
} catch (e) {
  status.textContent = `Error: ${e.message}`;
  throw e;
}
