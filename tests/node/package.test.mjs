// The npm package as a user installs it: pack, install the tarball into an empty project, import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

test('npm pack → npm install → import { load } from "posenc" works in a fresh project', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'posenc-pack-'));
  try {
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--loglevel=error'], { cwd: root, stdio: 'pipe' });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack produced no tarball');
    const app = join(dir, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', join(dir, tarball), '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, stdio: 'pipe' });
    // 'posenc/browser' (one minified file for pages without a bundler) is the same API over the same wasm
    writeFileSync(join(app, 'main.mjs'), `import { load } from 'posenc';
import { load as loadMinified } from 'posenc/browser';
const results = [];
for (const pe of [await load(), await loadMinified({ threads: 1 })]) {
  const t = pe.sinusoidal([1], { dim: 2 });
  let refused;
  try { pe.sinusoidal([1], { dim: 2, bsae: 3 }); } catch (e) { refused = e.name + ': ' + e.message; }
  results.push([t[0], t[1], pe.alibiSlopes(3)[2], refused]);
}
console.log(JSON.stringify(results));`);
    const [out, minified] = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }));
    assert.ok(Math.abs(out[0] - Math.sin(1)) < 1e-7);
    assert.ok(Math.abs(out[1] - Math.cos(1)) < 1e-7);
    assert.equal(out[2], 0.25);
    assert.equal(out[3], "TypeError: unknown option 'bsae' in sinusoidal options (did you mean 'base'?)");
    assert.deepEqual(minified, out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
