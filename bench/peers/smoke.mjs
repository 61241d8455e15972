// Smoke test for the peers: selfCheck(), then one untimed warm-up and one timed run of each
// contender on B (causal RoPE attention, [8, T, 64]).
// Usage: node bench/peers/smoke.mjs [--all] [T=1024] [op=B]
//   --all also times the opt-in slow contenders (tfjs batched matMul, ORT GroupQueryAttention).
import { loadPeers, selfCheck, makeInputs, OPS } from './peers.mjs';

const args = process.argv.slice(2);
const all = args.includes('--all');
const [tArg, opArg] = args.filter((a) => a !== '--all');
const op = opArg ?? 'B';
const spec = OPS[op];
if (!spec) throw new Error(`unknown op ${op}; one of ${Object.keys(OPS).join(', ')}`);
const T = op.startsWith('B') ? Number(tArg ?? spec.T) : spec.T;

const checks = await selfCheck();
const worst = checks.reduce((m, c) => Math.max(m, c.maxAbsErr), 0);
console.log(`selfCheck ok: ${checks.length} graph/encoding/headDim cases vs the plain-JS reference (float64 sums), worst max abs error ${worst.toExponential(1)}`);

const peers = await loadPeers({ tfjsBatched: all, ortGqa: all });
const inputs = makeInputs(spec.heads, T, spec.headDim);
for (const [id, c] of Object.entries(peers)) {
  const t0 = performance.now();
  const made = await c[op]({ T, ...inputs }); // includes one untimed warm-up run
  const setupMs = performance.now() - t0;
  if (!made.ok) { console.log(`${id.padEnd(18)} ${op} T=${T}: not run: ${made.reason}`); continue; }
  const a = performance.now();
  const y = await made.run();
  const ms = performance.now() - a;
  let sum = 0;
  for (let i = 0; i < y.length; i++) sum += y[i];
  console.log(`${id.padEnd(18)} ${op} [${spec.heads},${T},${spec.headDim}] ${spec.encoding}: ${ms.toFixed(1).padStart(7)} ms ` +
    `(setup+warm-up ${setupMs.toFixed(0)} ms, checksum ${sum.toFixed(4)})  ${c.name}`);
  await made.dispose();
}
