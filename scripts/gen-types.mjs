// Generates bindings/options.d.ts, the option interfaces of the encoding kinds (pe.attention's
// `encoding`), from the registry the wasm module hands to JavaScript at load (src/registry.cpp, built
// from the kinds' specs in src/encodings/): each key, its type, whether it is required, its default,
// its integer range and its choices. The prose comes from the same spec files: a `///` block before a
// field of `kFields` documents that key, one before `KindSpec makeSpec(` (the kind's spec) documents the
// interface; a key without one gets its registry `doc` line. (`///` comments cost the wasm module
// nothing; the registry's short `doc` lines are what it carries.)
//
//   node scripts/gen-types.mjs          writes bindings/options.d.ts
//   node scripts/gen-types.mjs --check  exits 1 when the committed file differs
//
// tests/node/gen-types.test.mjs fails when the committed file is stale.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load } from 'posenc';
import { OPTIONS, ENCODING_KINDS, KINDS } from '../bindings/options.mjs';

const ROOT = new URL('../', import.meta.url);
export const OUTPUT = new URL('bindings/options.d.ts', ROOT);

// The `///` blocks of src/encodings/*.cpp: { [kind]: { doc, fields: { [key]: doc } } }.
export function specDocs(dir = new URL('src/encodings/', ROOT)) {
  const out = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpp')).sort()) {
    const lines = readFileSync(new URL(file, dir), 'utf8').split('\n');
    const kind = lines.join('\n').match(/kind<\w+>\("(\w+)",/)?.[1];
    if (!kind) continue;
    const entry = (out[kind] = { file, doc: '', fields: {} });
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*\/\/\//.test(lines[i])) continue;
      const block = [];
      for (; i < lines.length && /^\s*\/\/\//.test(lines[i]); i++) block.push(lines[i].replace(/^\s*\/\/\/ ?/, ''));
      const next = lines[i] ?? '';
      const text = block.join('\n').trim();
      if (/^\s*KindSpec makeSpec\(/.test(next)) entry.doc = text;
      else {
        const key = /\bheads<&/.test(next) ? 'heads' : next.match(/"(\w+)"/)?.[1];
        if (!key) throw new Error(`src/encodings/${file}:${i + 1}: a /// block must precede a field (with its key as a string) or 'KindSpec makeSpec('`);
        entry.fields[key] = text;
      }
    }
  }
  return out;
}

const quote = (s) => `'${s}'`;
const literal = (x) => (typeof x === 'string' ? quote(x) : Array.isArray(x) ? `[${x.map(literal).join(', ')}]` : String(x));
const typeOf = (spec) => (Array.isArray(spec.type) ? spec.type.map(quote).join(' | ') : spec.type === 'integer' ? 'number' : spec.type);
const INT_MAX = 2 ** 31 - 1;

// A field's comment: its prose, "Required." for a required key (unless the prose says when it is), its
// integer range and its default (unless the prose gives its own @defaultValue).
function fieldDoc(key, spec, prose) {
  if (key === 'kind') return `\`'${spec.type[0]}'\`.`;
  let text = prose ?? (spec.doc ? spec.doc[0].toUpperCase() + spec.doc.slice(1) + '.' : '');
  const at = text.search(/(^|\s)@\w/);
  let body = (at < 0 ? text : text.slice(0, at)).trimEnd(), tags = at < 0 ? '' : text.slice(at).trim();
  if (spec.type === 'integer' && (spec.min !== undefined || spec.max !== undefined)) {
    const min = spec.min ?? -(2 ** 31), max = spec.max ?? INT_MAX;
    body += max !== INT_MAX ? ` An integer in [${min}, ${max}].` : min === 1 ? ' A positive integer.' : ` An integer ≥ ${min}.`;
  }
  if (spec.required && !/\bRequired\b/.test(body)) body += ' Required.';
  if (spec.default !== undefined && !/@defaultValue/.test(tags)) tags = `@defaultValue \`${literal(spec.default)}\`` + (tags ? `\n${tags}` : '');
  const doc = (body.trim() + (tags ? `\n${tags}` : '')).trim();
  if (!doc) throw new Error(`'${key}' has neither a /// block nor a registry doc line: document it in its kind's spec`);
  return doc;
}

function comment(text, indent) {
  const lines = text.split('\n');
  if (lines.length === 1 && indent.length + text.length + 7 <= 140) return `${indent}/** ${text} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ' ' + l : ''}`).join('\n')}\n${indent} */\n`;
}

// A table whose keys are exactly another (non-encoding) table's: `extends Partial<ThatInterface>`.
function baseOf(table, OPTIONS) {
  const keys = Object.keys(table.keys).sort().join();
  return Object.entries(OPTIONS).find(([n, t]) => !n.startsWith('encoding.') && t.interface && Object.keys(t.keys).sort().join() === keys)?.[1].interface;
}

// describe()'s rows of the encoding kinds, as the table of the Encoding union's comment.
function kindTable({ encodingKinds: ENCODING_KINDS, methods: KINDS, describe }) {
  const family = (d) => (d.family !== 'score' ? { none: 'no position', rotary: 'rotary' }[d.family] : KINDS[d.kind].scalarBias ? 'scalar bias'
    : KINDS[d.kind].perQueryState ? 'content × position' : KINDS[d.kind].stickBreaking ? 'weights in place of the softmax' : 'query scaled by its position');
  const rows = ENCODING_KINDS.map((k) => describe.find((d) => d.kind === k));
  return ['| kind | family | encodes | reference |', '|---|---|---|---|',
    ...rows.map((d) => `| \`'${d.kind}'\` | ${family(d)} | ${d.encodes} | ${d.reference} |`.replace(/\*/g, '\\*'))].map((l) => ` * ${l}`).join('\n');
}

// The file's text. `registry`: the registry JSON's { tables, encodingKinds, methods, describe } (default: the
// module's, installed at load); `docs`: specDocs()'s (a test passes a registry with a kind of its own, and
// its docs: tests/node/kind-spec-dummy.test.mjs).
export async function generate({ registry, docs = specDocs() } = {}) {
  if (!registry) {
    const pe = await load({ threads: 1 });
    registry = { tables: OPTIONS, encodingKinds: ENCODING_KINDS, methods: KINDS, describe: pe.describe() };
  }
  return text(registry, docs);
}

function text(registry, docs) {
  const { tables: OPTIONS, encodingKinds: ENCODING_KINDS, methods: KINDS } = registry;
  const imports = new Set(), out = [];
  for (const kind of ENCODING_KINDS) {
    const table = OPTIONS[`encoding.${kind}`], d = docs[kind];
    if (!d) throw new Error(`no spec file in src/encodings/ names the kind '${kind}'`);
    for (const key of Object.keys(d.fields)) {
      if (!Object.hasOwn(table.keys, key)) throw new Error(`src/encodings/${d.file}: a /// block documents '${key}', which ${table.interface} lacks`);
    }
    const base = baseOf(table, OPTIONS);
    if (base) imports.add(base);
    out.push(comment(d.doc || `The '${kind}' encoding.`, '') + `export interface ${table.interface}${base ? ` extends Partial<${base}>` : ''} {\n`);
    for (const [key, spec] of Object.entries(table.keys)) {
      if (base && !spec.required) continue;
      const type = typeOf(spec);
      for (const name of type.match(/\b[A-Z]\w*/g) ?? []) if (!['Array', 'ArrayLike'].includes(name)) imports.add(name);
      out.push(comment(fieldDoc(key, spec, d.fields[key]), '  ') + `  ${key}${spec.required ? '' : '?'}: ${type};\n`);
    }
    out.push('}\n\n');
  }
  // names the comments link to ({@link Posenc.t5Bucket}): imported, so that TypeScript resolves them
  for (const [, name] of out.join('').matchAll(/\{@link (\w+)/g)) imports.add(name);
  for (const kind of ENCODING_KINDS) imports.delete(OPTIONS[`encoding.${kind}`].interface);
  const ifaces = ENCODING_KINDS.map((k) => OPTIONS[`encoding.${k}`].interface);
  const scalar = ENCODING_KINDS.filter((k) => KINDS[k].scalarBias).map((k) => OPTIONS[`encoding.${k}`].interface);
  return `// generated by scripts/gen-types.mjs from the registry; do not edit.
// The option objects of the encoding kinds (src/encodings/*.cpp): run \`node scripts/gen-types.mjs\` after
// changing a kind's keys or docs. bindings/index.d.ts re-exports every type here.

import type { ${[...imports].sort().join(', ')} } from './index.js';

/**
 * A positional encoding for {@link Posenc.attention}, {@link Posenc.attentionBias} and
 * {@link KVCache.attend}, selected by \`kind\`. Each kind accepts exactly its own keys (a key of another
 * kind is a \`TypeError\` saying which kind it belongs to). Tables are row-major float arrays.
 *
${kindTable(registry)}
 */
export type Encoding =
${ifaces.map((n) => `  | ${n}`).join('\n')};

/** The encodings that are a scalar bias per (head, query, key), accepted by {@link Posenc.attentionBias}. */
export type ScalarBiasEncoding = ${scalar.join(' | ')};

${out.join('').trimEnd()}
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = await generate();
  const path = fileURLToPath(OUTPUT);
  if (process.argv.includes('--check')) {
    if (readFileSync(path, 'utf8') !== text) {
      console.error('bindings/options.d.ts is stale: run `node scripts/gen-types.mjs`');
      process.exit(1);
    }
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}
