// bindings/index.d.ts is written by hand (but for options.d.ts, which it re-exports, generated from the
// registry by scripts/gen-types.mjs); the registry (src/registry.cpp) is what the code does. This holds
// the declarations' `@defaultValue`s and choice unions equal to the registry's defaults and
// choices, for every options interface (keys and required-ness: strict-options.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'posenc';
import { OPTIONS } from '../../bindings/options.mjs';

await load();
const dts = ['index.d.ts', 'options.d.ts'].map((f) => readFileSync(new URL(`../../bindings/${f}`, import.meta.url), 'utf8')).join('\n');

// interface name -> { ext: [base names], keys: Map(key -> { doc, type }) }; a body ends at its
// matching brace ({@link ...} in comments is balanced).
function interfaces(source) {
  const out = new Map();
  for (const m of source.matchAll(/export interface (\w+)(?:\s+extends\s+([^{]+?))?\s*\{/g)) {
    const [, name, ext] = m;
    let depth = 1, end = m.index + m[0].length;
    for (; depth > 0; end++) depth += source[end] === '{' ? 1 : source[end] === '}' ? -1 : 0;
    const body = source.slice(m.index + m[0].length, end - 1);
    const keys = new Map();
    for (const [, doc, key, type] of body.matchAll(/(?:\/\*\*([\s\S]*?)\*\/\s*)?^\s*(?:readonly\s+)?(\w+)\??\s*:\s*([^;]+);/gm)) keys.set(key, { doc: doc ?? '', type });
    out.set(name, { ext: ext ? ext.split(',').map((s) => s.trim().replace(/^Partial<(\w+)>$/, '$1')) : [], keys });
  }
  return out;
}
const declared = interfaces(dts);
function property(iface, key) {
  const entry = declared.get(iface);
  if (!entry) return undefined;
  return entry.keys.get(key) ?? entry.ext.map((base) => property(base, key)).find(Boolean);
}

// The literal of `@defaultValue \`...\``, read as a value (2π as 2 * Math.PI).
function declaredDefault(doc) {
  const m = doc.match(/@defaultValue\s+`([^`]*)`/);
  if (!m) return { missing: true };
  const text = m[1].trim();
  if (/^'[^']*'$/.test(text)) return { value: text.slice(1, -1) };
  if (text === 'true' || text === 'false') return { value: text === 'true' };
  if (/^2\s*(π|\*\s*Math\.PI)$/.test(text)) return { value: 2 * Math.PI };
  if (/^\[.*\]$/.test(text)) return { value: JSON.parse(text.replace(/'/g, '"')) };
  if (/^-?[\d.]+(e-?\d+)?$/.test(text)) return { value: Number(text) };
  return { text };
}

test('every registry default is the @defaultValue of its declaration in index.d.ts', () => {
  let checked = 0;
  const wrong = [];
  for (const [name, table] of Object.entries(OPTIONS)) {
    if (!table.interface) continue;
    for (const [key, spec] of Object.entries(table.keys)) {
      if (!('default' in spec)) continue;
      const p = property(table.interface, key);
      assert.ok(p, `${table.interface}.${key} (table ${name}) is not declared`);
      const d = declaredDefault(p.doc);
      if (!('value' in d) || JSON.stringify(d.value) !== JSON.stringify(spec.default))
        wrong.push(`${table.interface}.${key}: registry ${JSON.stringify(spec.default)}, index.d.ts ${d.missing ? 'no @defaultValue' : JSON.stringify(d.value ?? d.text)}`);
      checked++;
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked > 60, `${checked}`);
});

test('every registry choice list is the string union of its declaration in index.d.ts', () => {
  const wrong = [];
  for (const [name, table] of Object.entries(OPTIONS)) {
    if (!table.interface) continue;
    for (const [key, spec] of Object.entries(table.keys)) {
      if (!Array.isArray(spec.type)) continue;
      const p = property(table.interface, key);
      assert.ok(p, `${table.interface}.${key} (table ${name}) is not declared`);
      // an inline union ('hf' | 'ggml') or a named one (SinusoidLayout)
      const alias = /^\w+$/.test(p.type.trim()) && dts.match(new RegExp(`export type ${p.type.trim()} =([^;]*);`));
      const names = [...(alias ? alias[1] : p.type).matchAll(/'([^']*)'/g)].map(([, s]) => s);
      if (JSON.stringify([...names].sort()) !== JSON.stringify([...spec.type].sort())) wrong.push(`${table.interface}.${key}: registry ${spec.type}, index.d.ts ${p.type}`);
    }
  }
  assert.deepEqual(wrong, []);
});
