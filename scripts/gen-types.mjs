// Generates bindings/options.d.ts, the option interfaces of the encoding kinds (pe.attention's
// `encoding`) and of the calls (SinusoidalOptions ... AttentionArgs, KVCacheOptions, AttendOptions, the
// parameterCount shapes), from the registry the wasm module hands to JavaScript at load
// (src/registry.cpp, built from its tables and the kinds' specs in src/encodings/): each key, its type,
// whether it is required, its default, its integer range and its choices. The prose comes from the same
// source files: in a kind's spec, a `///` block before a field of `kFields` documents that key, one before
// `KindSpec makeSpec(` (the kind's spec) documents the interface, and a key without one gets its registry
// `doc` line; in src/registry.cpp, a `///` block before a key of a table's array documents that key and
// one before the table's row in kTables documents its interface (every key of a generated call
// interface must have one). A `@tsType T` line in a block replaces the key's TypeScript type (the
// registry's type names the JSON value; TypeScript may say more). (`///` comments cost the wasm module
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
    const entry = (out[kind] = { file, doc: '', fields: {}, scaling: {}, shapeDoc: '', shape: {} });
    let scaling = false;  // inside scalingFields() (rope.cpp): RopeScaling's keys, named by POSENC_SCALING_KEY
    let shape = false;    // inside kShape: the keys of parameterCount('<kind>')
    for (let i = 0; i < lines.length; i++) {
      if (/scalingFields\(\) \{/.test(lines[i])) scaling = true;
      if (/return fields;/.test(lines[i])) scaling = false;
      if (/\bkShape\[\] = \{/.test(lines[i])) shape = true;
      if (shape && /^\s*\};/.test(lines[i])) shape = false;
      if (!/^\s*\/\/\//.test(lines[i])) continue;
      const block = [];
      for (; i < lines.length && /^\s*\/\/\//.test(lines[i]); i++) block.push(lines[i].replace(/^\s*\/\/\/ ?/, ''));
      const next = lines[i] ?? '';
      const text = block.join('\n').trim();
      if (/^\s*KindSpec makeSpec\(/.test(next)) entry.doc = text;
      else if (/\bshapeInterface = /.test(next)) entry.shapeDoc = text;
      else if (shape) {
        const key = next.match(/"(\w+)"/)?.[1];
        if (!key) throw new Error(`src/encodings/${file}:${i + 1}: a /// block in kShape must precede a shape key`);
        entry.shape[key] = text;
      } else if (scaling) {
        const key = next.match(/POSENC_SCALING_KEY\(\w+, (\w+),/)?.[1] ?? next.match(/"(\w+)"/)?.[1];
        if (!key) throw new Error(`src/encodings/${file}:${i + 1}: a /// block in scalingFields() must precede a scaling key`);
        entry.scaling[key] = text;
      } else {
        const key = /\bheads<&/.test(next) ? 'heads' : next.match(/"(\w+)"/)?.[1];
        if (!key) throw new Error(`src/encodings/${file}:${i + 1}: a /// block must precede a field (with its key as a string) or 'KindSpec makeSpec('`);
        entry.fields[key] = text;
      }
    }
  }
  return out;
}

// The `///` blocks of src/registry.cpp: the tables read from its arrays and kTables rows,
// [{ table, interface, keys: { [key]: doc }, doc }], in kTables' order (tables with parts only: a rope or
// kind table's keys come from the specs).
export function registryDocs(file = new URL('src/registry.cpp', ROOT)) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const constants = {}, arrays = {}, rows = [];
  let array = null, block = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*\/\/\//.test(line)) {
      block.push(line.replace(/^\s*\/\/\/ ?/, ''));
      continue;
    }
    const text = block.join('\n').trim(), where = `src/registry.cpp:${i + 1}`;
    block = [];
    const constant = line.match(/^constexpr Raw (k\w+) = \w*\(?\{?"(\w+)"/);
    if (constant) constants[constant[1]] = constant[2];
    const start = line.match(/^constexpr (?:KindField|Raw) (k\w+)\[\] = \{/);
    if (start) {
      array = arrays[start[1]] = {};
      if (/\};\s*$/.test(line)) array = null;
      else continue;
    }
    if (array && /^\};/.test(line)) array = null;
    const row = line.match(/^\s*\{"([\w.]+)", "(\w*)", \{((?:part\(k\w+\)(?:, )?)*)\}(, From::\w+)?\},/);
    if (row) {
      const from = row[4]?.replace(', From::', '') ?? 'parts';
      if (row[2] && ['parts', 'rope', 'scaling'].includes(from))
        rows.push({ table: row[1], interface: row[2], parts: [...row[3].matchAll(/k\w+/g)].map((m) => m[0]), doc: text, where, from });
      else if (text) throw new Error(`${where}: a /// block documents the row of '${row[1]}', whose interface is not generated here`);
      continue;
    }
    if (!text) continue;
    if (!array) throw new Error(`${where}: a /// block must precede a key of a table's array or a row of kTables`);
    const key = line.match(/"(\w+)"/)?.[1] ?? constants[line.match(/\b(k[A-Z]\w*)\b/)?.[1]];
    if (!key) throw new Error(`${where}: a /// block must precede a key (its name as a string, or a constant that names it)`);
    array[key] = text;
  }
  return rows.map((r) => {
    const keys = {};
    for (const part of r.parts) {
      if (!arrays[part]) throw new Error(`${r.where}: no array ${part}`);
      Object.assign(keys, arrays[part]);  // a later part's key replaces an earlier one's, as in the registry
    }
    return { table: r.table, interface: r.interface, doc: r.doc, keys, where: r.where, from: r.from };
  });
}

// TypeScript's spelling of a registry type the JSON names by what it carries.
const TS_TYPES = { KVInput: 'FloatInput | Uint16Array' };
const BUILT_IN = ['Array', 'ArrayLike', 'Float32Array', 'Int32Array', 'Uint8Array', 'Uint16Array'];

const quote = (s) => `'${s}'`;
const literal = (x) => (typeof x === 'string' ? quote(x) : Array.isArray(x) ? `[${x.map(literal).join(', ')}]` : String(x));
const typeOf = (spec) => (Array.isArray(spec.type) ? spec.type.map(quote).join(' | ') : spec.type === 'integer' ? 'number' : TS_TYPES[spec.type] ?? spec.type);
const INT_MAX = 2 ** 31 - 1;

// A field's comment: its prose, "Required." for a required key (unless the prose says when it is), its
// integer range (for a call's key: unless the prose states it, naming an integer) and its default
// (unless the prose gives its own @defaultValue).
function fieldDoc(key, spec, prose, call = false) {
  if (key === 'kind' && !call) return `\`'${spec.type[0]}'\`.`;
  let text = prose ?? (spec.doc ? spec.doc[0].toUpperCase() + spec.doc.slice(1) + '.' : '');
  const at = text.search(/(^|\s)@\w/);
  let body = (at < 0 ? text : text.slice(0, at)).trimEnd(), tags = at < 0 ? '' : text.slice(at).trim();
  if (spec.type === 'integer' && (spec.min !== undefined || spec.max !== undefined) && !(call && /\binteger/i.test(body))) {
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
  // the kinds' parameterCount shapes (each kind's kShape, documented in its spec)
  const shapes = [];
  for (const kind of ENCODING_KINDS) {
    const table = OPTIONS[`parameterCount.${kind}`], d = docs[kind];
    if (!table?.interface) continue;
    if (!d.shapeDoc) throw new Error(`src/encodings/${d.file}: ${table.interface} needs a /// block before k.shapeInterface`);
    shapes.push(comment(d.shapeDoc, '') + `export interface ${table.interface} {\n`);
    for (const [key, spec] of Object.entries(table.keys)) {
      if (d.shape[key] === undefined) throw new Error(`src/encodings/${d.file}: ${table.interface}.${key} needs a /// block in kShape`);
      const type = typeOf(spec);
      for (const name of type.match(/\b[A-Z]\w*/g) ?? []) if (!BUILT_IN.includes(name)) imports.add(name);
      shapes.push(comment(fieldDoc(key, spec, d.shape[key], true), '  ') + `  ${key}${spec.required ? '' : '?'}: ${type};\n`);
    }
    shapes.push('}\n\n');
  }
  // the calls' options objects (src/registry.cpp's tables). A rope table's keys are the rope kind's (their
  // /// blocks in its spec) plus its parts'; the first rope table (ropeFrequencies: RopeOptions) lists them
  // all, the others extend Partial<RopeOptions> with their own keys. The scaling table's keys are
  // RopeScaling's (scalingFields() in the rope kind's spec).
  const calls = [], local = new Set(['Encoding', 'ScalarBiasEncoding', ...ENCODING_KINDS.map((k) => OPTIONS[`parameterCount.${k}`]?.interface).filter(Boolean)]);
  const ropeDocs = Object.values(docs).find((d) => Object.keys(d.scaling).length) ?? { fields: {}, scaling: {} };
  let ropeBase = null;
  for (const r of registryDocs()) {
    const table = OPTIONS[r.table];
    if (!table || table.interface !== r.interface) throw new Error(`${r.where}: the registry has no table '${r.table}' with interface ${r.interface}`);
    for (const key of Object.keys(r.keys)) {
      if (!Object.hasOwn(table.keys, key)) throw new Error(`src/registry.cpp: a /// block documents '${key}', which ${r.interface} (table '${r.table}') lacks`);
    }
    if (!r.doc) throw new Error(`${r.where}: the row of '${r.table}' needs a /// block (${r.interface}'s documentation)`);
    local.add(r.interface);
    const base = r.from === 'rope' && ropeBase ? ropeBase : null;
    if (r.from === 'rope' && !ropeBase) ropeBase = r;
    const outside = r.from === 'rope' ? ropeDocs.fields : r.from === 'scaling' ? ropeDocs.scaling : {};
    const own = Object.entries(table.keys).filter(([key]) => !base || !Object.hasOwn(OPTIONS[base.table].keys, key));
    calls.push(comment(r.doc, '') + `export interface ${r.interface}${base ? ` extends Partial<${base.interface}>` : ''} {${own.length ? '' : '}\n\n'}\n`);
    if (!own.length) continue;
    for (const [key, spec] of own) {
      let prose = r.keys[key] ?? outside[key], type = typeOf(spec);
      if (prose === undefined) throw new Error(`${r.interface}.${key} (table '${r.table}'): no /// block before its key in src/registry.cpp (or the rope kind's spec)`);
      const tsType = prose.match(/^@tsType (.+)$/m);
      if (tsType) [type, prose] = [tsType[1].trim(), prose.replace(/^@tsType .+$\n?/m, '').trim()];
      for (const name of type.match(/\b[A-Z]\w*/g) ?? []) if (!BUILT_IN.includes(name)) imports.add(name);
      calls.push(comment(fieldDoc(key, spec, prose, true), '  ') + `  ${key}${spec.required ? '' : '?'}: ${type};\n`);
    }
    calls.push('}\n\n');
  }
  // parameterCount's map from method to shape: every 'parameterCount.<method>' table, in registry order;
  // a table without keys is a fixed function (NoParameters). The formula is the method's describe() row.
  const formula = Object.fromEntries((registry.describe ?? []).map((d) => [d.kind, d.parameters]));
  const methods = Object.keys(OPTIONS).filter((t) => t.startsWith('parameterCount.')).map((t) => [t.slice('parameterCount.'.length), OPTIONS[t]]);
  const parameterShapes = methods.map(([method, table]) => {
    const keys = Object.keys(table.keys).length;
    if (keys && !table.interface) throw new Error(`parameterCount.${method} has keys but no interface name`);
    if (!keys) imports.add('NoParameters');
    const f = formula[method];
    const doc = !keys ? 'Fixed function: 0 parameters.' : f ? `${f}.` : `The shapes of ${method}'s learned tables.`;
    return `  /** ${doc.replace(/\*\//g, '* /')} */\n  ${method}: ${keys ? table.interface : 'NoParameters'};\n`;
  });
  // names the comments link to ({@link Posenc.t5Bucket}): imported, so that TypeScript resolves them
  for (const [, name] of [...out, ...shapes, ...calls].join('').matchAll(/\{@link (\w+)/g)) imports.add(name);
  for (const kind of ENCODING_KINDS) imports.delete(OPTIONS[`encoding.${kind}`].interface);
  for (const name of local) imports.delete(name);
  const ifaces = ENCODING_KINDS.map((k) => OPTIONS[`encoding.${k}`].interface);
  const scalar = ENCODING_KINDS.filter((k) => KINDS[k].scalarBias).map((k) => OPTIONS[`encoding.${k}`].interface);
  return `// generated by scripts/gen-types.mjs from the registry; do not edit.
// The option objects of the encoding kinds (src/encodings/*.cpp) and of the calls (src/registry.cpp's
// tables): run \`node scripts/gen-types.mjs\` after changing a key or its /// docs. bindings/index.d.ts
// re-exports every type here.

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

// --- the encoding kinds' parameterCount shapes (src/encodings/*.cpp) ---

${shapes.join('').trimEnd()}

// --- the calls' options objects (src/registry.cpp) ---

${calls.join('').trimEnd()}

/**
 * {@link Posenc.parameterCount}'s options per method: the shapes of the method's learned tables. Fixed
 * functions learn nothing and take no options ({@link NoParameters}).
 */
export interface ParameterShapes {
${parameterShapes.join('')}}
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
