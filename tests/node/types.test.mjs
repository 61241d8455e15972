// The hand-written TypeScript declarations compile against the documented usage (tests/types/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// tsconfig.json: lib ES2022 + ESNext.Disposable + DOM; tsconfig.es2022.json: lib ES2022 alone (no
// Symbol.dispose in the lib: index.d.ts declares it), both without skipLibCheck.
for (const config of ['tsconfig.json', 'tsconfig.es2022.json'])
test(`bindings/index.d.ts type-checks the documented calls and rejects wrong ones (${config})`, () => {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  const project = fileURLToPath(new URL(`../types/${config}`, import.meta.url));
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  } catch (e) {
    output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  assert.equal(output, '', output);
});
