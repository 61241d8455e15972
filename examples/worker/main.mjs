// The page side: starts the worker (dist/worker.js, built by build.mjs), sends it requests and shows
// the replies. posenc itself is loaded only inside the worker.
const workerUrl = new URL('./dist/worker.js', import.meta.url);
const worker = new Worker(workerUrl, { type: 'module' });

const pending = new Map();
let nextId = 0;
let broken = null;
// Calls pe[op](...args) in the worker; resolves to its result, rejects with the worker's error.
function call(op, ...args) {
  if (broken) return Promise.reject(broken);
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}
const ERRORS = { RangeError, TypeError };
worker.onmessage = ({ data: { id, result, error } }) => {
  const p = pending.get(id);
  pending.delete(id);
  if (error) p.reject(new (ERRORS[error.name] ?? Error)(error.message));
  else p.resolve(result);
};
// A worker that cannot start (its script missing, an import that does not resolve, a syntax error)
// fires a plain Event with no message: name the script rather than let "[object Event]" through.
worker.onerror = (e) => {
  e.preventDefault();
  broken = new Error(e.message || `the worker ${workerUrl} could not be started: its script or one of its imports failed to load (see the browser console)`);
  for (const p of pending.values()) p.reject(broken);
  pending.clear();
};

const out = document.getElementById('out');
const lines = [];
try {
  // ALiBi slopes for 8 heads: m_h = 2^-(h+1)
  lines.push(`alibiSlopes(8): ${Array.from(await call('alibiSlopes', 8)).join(' ')}`);
  // RoPE of (1, 0, ..., 0) at positions 0, 1, 2, 10: pair 0 turns 1 rad per position -> (cos p, sin p)
  const headDim = 4, positions = [0, 1, 2, 10];
  const x = new Float32Array(positions.length * headDim);
  for (let t = 0; t < positions.length; t++) x[t * headDim] = 1;
  const rotated = await call('applyRope', x, { heads: 1, tokens: positions.length, headDim }, positions);
  positions.forEach((p, t) => lines.push(`rope p=${p}: ${rotated[t * headDim].toFixed(6)} ${rotated[t * headDim + headDim / 2].toFixed(6)}`));
  // A refused call: the worker's RangeError arrives as a RangeError with posenc's message.
  try {
    await call('alibiSlopes', 0);
  } catch (e) {
    lines.push(`refused: ${e.name}: ${e.message}`);
  }
} catch (e) {
  lines.push(`error: ${e.name}: ${e.message}`);
}
out.textContent = lines.join('\n');
