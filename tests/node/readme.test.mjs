// The README and docs/: the README stays a short page for users (its quickstart is the example npm test
// runs, its two commands are the package's), every relative link in README.md, docs/*.md and
// examples/README.md reaches a file (and a heading, for #anchors), the package-size table lives in
// docs/package-size.md, and no page reads as a measurement diary (dates, "today", per-session runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const pages = ['README.md', ...docs, 'examples/README.md'];

// Markdown outside fenced code blocks (a link or a date inside code is code, not prose).
const prose = (text) => text.replace(/^(```+|~~~+).*\n[\s\S]*?^\1\s*$/gm, '').replace(/`[^`\n]*`/g, '``');
// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered.
function anchors(text) {
  const seen = new Map(), out = new Set();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, (c) => (c === '_' ? c : ''));
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}
const links = (text) => [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);

test('the README is a short page for users, and links every page of docs/', () => {
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 300, `README.md has ${lines} lines (at most 300: the rest belongs in docs/)`);
  for (const page of docs) assert.ok(links(readme).includes(page), `README.md does not link ${page}`);
});

test('the README names the two commands, exactly as package.json runs them', () => {
  const block = readme.match(/## The two commands\s+```sh\n([\s\S]*?)```/)?.[1];
  assert.ok(block, 'README.md has no "The two commands" section with a sh block');
  const commands = block.split('\n').filter(Boolean).map((l) => l.replace(/\s+#.*$/, ''));
  assert.deepEqual(commands, ['npm start', 'npm test']);
  const { scripts } = JSON.parse(read('package.json'));
  assert.match(scripts.start, /scripts\/serve\.mjs/);
  assert.equal(scripts.test, 'bash scripts/test.sh');
});

test("the README's JavaScript quickstart is examples/node/quickstart.mjs, which npm test runs", () => {
  const block = readme.match(/## Quickstart in JavaScript\s+```js\n([\s\S]*?)```/)?.[1];
  assert.ok(block, 'README.md has no "Quickstart in JavaScript" section with a js block');
  assert.equal(block, read('examples/node/quickstart.mjs'));
  assert.match(read('tests/node/examples.test.mjs'), /examples\/node\/quickstart\.mjs/);
});

test('every relative link in README.md, docs/*.md and examples/README.md reaches a file and a heading', () => {
  let checked = 0;
  for (const page of pages) {
    const text = read(page);
    for (const link of links(text)) {
      if (/^[a-z][a-z+.-]*:/i.test(link)) continue;  // http:, https:, mailto:
      const [path, anchor] = link.split('#');
      const target = path ? join(root, dirname(page), decodeURIComponent(path)) : join(root, page);
      assert.ok(relative(root, target) && !relative(root, target).startsWith('..'), `${page}: ${link} leaves the repository`);
      assert.ok(existsSync(target), `${page}: ${link} — no such file`);
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md')) {
        assert.ok(anchors(readFileSync(target, 'utf8')).has(anchor), `${page}: ${link} — no heading #${anchor}`);
      }
      checked++;
    }
  }
  assert.ok(checked >= 30, `only ${checked} links found`);
});

test("link and heading extraction: GitHub's anchors, code blocks and spans skipped", () => {
  assert.ok(anchors('## Quickstart in C++\n## The first call is slower\n## First program: RoPE from a config.json\n')
    .has('quickstart-in-c'));
  assert.ok(anchors('## First program: RoPE from a config.json\n').has('first-program-rope-from-a-configjson'));
  assert.ok(!anchors('## Threads\n').has('thread'));
  assert.deepEqual(links('see [a](docs/a.md#x) and `[b](c.md)`\n```\n[d](e.md)\n```\n'), ['docs/a.md#x']);
});

test('the package-size table lives in docs/package-size.md, once', () => {
  const page = read('docs/package-size.md');
  assert.equal(page.match(/<!-- size:begin/g)?.length, 1);
  assert.equal(page.match(/<!-- size:end -->/g)?.length, 1);
  assert.doesNotMatch(readme, /size:begin/, 'the size block belongs in docs/package-size.md (scripts/size.mjs writes it there)');
  assert.match(read('scripts/size.mjs'), /'docs', 'package-size\.md'/);
});

// Current facts only: a date, a time of day, "today" or a session's run is history, which stays in git.
const DIARY = [
  /\b20\d\d-\d\d-\d\d\b/, /\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b/,
  /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}\b/, /\b(at|of|run of|runs of) \d{1,2}:\d\d\b/,
  /\btoday\b/i, /\byesterday\b/i, /\b(this|previous|last|same) session\b/i, /\bthis round\b/i, /\bUTC\b/,
];
test('no page reads as a measurement diary', () => {
  for (const page of pages) {
    const lines = read(page).split('\n');
    lines.forEach((line, i) => {
      for (const re of DIARY) assert.doesNotMatch(line, re, `${page}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.match('measured 2026-12-03 14:30 UTC', DIARY[0]);
  assert.match('the run of 3 Dec', DIARY[1]);
  assert.match('the run of 14:20', DIARY[3]);
});
