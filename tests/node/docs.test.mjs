// The API reference: `npm run docs` (TypeDoc) builds it from bindings/index.d.ts without a single
// warning (a declaration without a doc comment is one), twice in a row; it has a page with a
// description for every exported function and a described section for every method of the API
// object, the cache and heap buffers; and every @example in index.d.ts type-checks against the
// declarations and runs against the package.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'posenc';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dts = readFileSync(join(root, 'bindings/index.d.ts'), 'utf8');
const out = join(root, JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')).out);

// --- what index.d.ts declares -------------------------------------------------------------------
const code = dts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
const exportedFunctions = [...code.matchAll(/^export (?:declare )?function (\w+)/gm)].map((m) => m[1]);
// Members of an interface, in declaration order: methods `name(` / `name<T>(` and properties `name:`.
function members(name) {
  const start = code.indexOf(`export interface ${name} {`);
  assert.ok(start >= 0, `index.d.ts declares no interface ${name}`);
  let depth = 0, i = code.indexOf('{', start);
  const from = i;
  for (; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) break;
  }
  const body = code.slice(from + 1, i);
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+|\[Symbol\.\w+\])\??(?:<[^>]*>)?[(:]/gm)].map((m) => m[1]);
}

// --- reading TypeDoc's HTML -----------------------------------------------------------------------
const text = (html) => html.replace(/<[^>]*>/g, ' ').replace(/&[a-z#0-9]+;/g, ' ').replace(/\s+/g, ' ').trim();
// The summary of a member or function: TypeDoc's first `tsd-comment` block that is not a block tag
// (@example, @see, ...), before the parameter and return lists (whose comments must not count).
const SUMMARY = /<div class="tsd-comment tsd-typography">(?!\s*<div class="tsd-tag-)([\s\S]*?)<\/div>/;
function description(html) {
  const end = html.search(/tsd-type-parameters|tsd-parameters|tsd-returns-title/);
  return text(html.slice(0, end < 0 ? html.length : end).match(SUMMARY)?.[1] ?? '');
}
const withoutSummary = (html) => html.replace(SUMMARY, '');
// A function page's description: the comment under its signature.
const functionDescription = (page) => description(page.slice(page.indexOf('tsd-description')));
// The member sections of an interface page, by anchor id (TypeDoc lower-cases the member name).
function memberSections(page) {
  const sections = new Map();
  for (const chunk of page.split('<section class="tsd-panel tsd-member">').slice(1)) {
    const id = chunk.match(/<h3 class="tsd-anchor-link" id="([^"]+)"/)?.[1];
    if (id) sections.set(id, chunk);
  }
  return sections;
}
const anchorOf = (member) => member.replace(/^\[Symbol\.(\w+)\]$/, '$1').toLowerCase();

function generate() {
  const r = spawnSync('npm', ['run', 'docs', '--silent'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const log = `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
  return { status: r.status, log };
}

// Run twice, the second time over the first one's output plus a stale file.
let first, second, staleLeft;
before(() => {
  first = generate();
  if (first.status !== 0) return;
  writeFileSync(join(out, 'stale.html'), 'left over from an older run');
  second = generate();
  staleLeft = existsSync(join(out, 'stale.html'));
});
const generated = () => first?.status === 0 && second?.status === 0;

test('npm run docs builds the reference without warnings, and again over its own output', () => {
  assert.equal(first.status, 0, first.log);
  assert.doesNotMatch(first.log, /\[(warning|error)\]/, first.log);
  assert.equal(second.status, 0, second.log);
  assert.doesNotMatch(second.log, /\[(warning|error)\]/, second.log);
  assert.equal(staleLeft, false, 'the output folder is cleaned before each run');
  assert.ok(existsSync(join(out, 'index.html')));
});

test('every exported function has a page with a description', () => {
  assert.ok(generated(), 'the docs were not generated');
  assert.ok(exportedFunctions.includes('load'), `found ${exportedFunctions}`);
  for (const name of exportedFunctions) {
    const file = join(out, 'functions', `${name}.html`);
    assert.ok(existsSync(file), `no page for ${name}`);
    const page = readFileSync(file, 'utf8');
    assert.ok(functionDescription(page).length > 20, `${name}: empty description`);
    assert.match(page, /tsd-tag-example/, `${name}: no example`);
  }
  // and the index page links to each
  const index = readFileSync(join(out, 'index.html'), 'utf8');
  for (const name of exportedFunctions) assert.match(index, new RegExp(`href="functions/${name}\\.html"`), name);
});

test('every method of Posenc, KVCache and HeapBuffer is described; every API function has an example', () => {
  assert.ok(generated(), 'the docs were not generated');
  let checked = 0;
  for (const iface of ['Posenc', 'KVCache', 'HeapBuffer']) {
    const names = members(iface);
    assert.ok(names.length >= (iface === 'Posenc' ? 30 : 5), `${iface}: found only ${names}`);
    const sections = memberSections(readFileSync(join(out, 'interfaces', `${iface}.html`), 'utf8'));
    for (const name of names) {
      const section = sections.get(anchorOf(name));
      assert.ok(section, `${iface}.${name}: no section on ${iface}.html`);
      assert.ok(description(section).length > 10, `${iface}.${name}: empty description`);
      checked++;
    }
  }
  assert.ok(checked >= 45, `${checked}`);
  // one example per function of the API object and per cache method that does something
  const posenc = memberSections(readFileSync(join(out, 'interfaces', 'Posenc.html'), 'utf8'));
  for (const name of members('Posenc')) assert.match(posenc.get(anchorOf(name)), /tsd-tag-example/, `Posenc.${name}: no example`);
  const cache = memberSections(readFileSync(join(out, 'interfaces', 'KVCache.html'), 'utf8'));
  for (const name of ['append', 'attend', 'shift', 'renumber', 'positions', 'nextPositions']) assert.match(cache.get(anchorOf(name)), /tsd-tag-example/, `KVCache.${name}`);
});

test('the checks above fail on a page without a description', () => {
  assert.ok(generated(), 'the docs were not generated');
  // the same pages with only their summary removed (parameters, returns and examples left in place)
  const page = readFileSync(join(out, 'functions', 'load.html'), 'utf8');
  assert.ok(functionDescription(page).length > 20);
  const stripped = page.slice(0, page.indexOf('tsd-description')) + withoutSummary(page.slice(page.indexOf('tsd-description')));
  assert.notEqual(stripped, page);
  assert.equal(functionDescription(stripped), '');
  const sections = memberSections(readFileSync(join(out, 'interfaces', 'Posenc.html'), 'utf8'));
  const alibi = sections.get('alibislopes');
  assert.match(alibi, /tsd-parameters/);
  assert.match(alibi, /tsd-tag-example/);
  assert.ok(description(alibi).length > 10);
  assert.equal(description(withoutSummary(alibi)), '');
  assert.throws(() => members('NoSuchInterface'));
});

// --- the examples ------------------------------------------------------------------------------
// Every ```ts block after an @example tag, with the line of its doc comment.
const examples = [];
for (const m of dts.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
  const body = m[1].split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n');
  for (const e of body.matchAll(/@example\s*```ts\n([\s\S]*?)```/g)) examples.push({ line: dts.slice(0, m.index).split('\n').length, code: e[1] });
}
const IMPORT = /^import \{ load \} from 'posenc';$/m;

test('every @example type-checks against index.d.ts', () => {
  assert.ok(examples.length >= members('Posenc').length + exportedFunctions.length, `${examples.length} examples`);
  // inside the package, so that 'posenc' resolves to its own declarations
  const dir = join(root, 'build', 'docs-examples');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const functions = examples.map(({ line, code }, i) => `// index.d.ts line ${line}\nexport async function example${i}(): Promise<void> {\n${code.replace(IMPORT, '')}}\n`);
  writeFileSync(join(dir, 'examples.ts'), `import { load, type Posenc } from 'posenc';\ndeclare const pe: Posenc;\nvoid load;\n\n${functions.join('\n')}`);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext',
      lib: ['ES2022', 'ESNext.Disposable'], types: [] },
    files: ['examples.ts'],
  }));
  let output = '';
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  } catch (e) {
    output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  assert.equal(output, '', output);
});

test('every @example runs against the package', async () => {
  const pe = await load();
  const AsyncFunction = (async () => {}).constructor;
  for (const { line, code } of examples) {
    const body = code.replace(IMPORT, '');
    // an example that loads the module itself declares its own `pe`
    const run = /\bconst pe\b/.test(body) ? new AsyncFunction('load', body).bind(null, load) : new AsyncFunction('pe', 'load', body).bind(null, pe, load);
    await assert.doesNotReject(run, `the example of index.d.ts line ${line}`);
  }
});
