// Compiled (not run) by tests/node/types.test.mjs with tsconfig.using.json: `using` (TypeScript >= 5.2)
// needs the global type Disposable, which only the esnext.disposable lib (or esnext / es2024+ libs
// that include it) declares; usage.ts compiles without it.
import { load } from 'posenc';

export async function generate(): Promise<number> {
  const pe = await load();
  using cache = new pe.KVCache({ kvHeads: 1, headDim: 8, capacity: 4, rope: {} });   // freed at the end of the block
  using x = pe.alloc(8);
  x.view().fill(1);
  cache.append(x, x);
  return cache.attend(x, { heads: 1 }).out[0];
}
