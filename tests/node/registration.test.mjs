// Every encoding kind is registered everywhere it must be (docs/adding-an-encoding.md lists the places):
// a kind added (its spec in src/encodings/, the registry's source of ENCODING_KINDS) but missed in one of
// the other places fails here, not in a user's call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { load } from 'posenc';
import { OPTIONS, ENCODING_KINDS, PARAMETER_METHODS } from '../../bindings/options.mjs';

const read = (p) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
const pe = await load();

test('every registered kind is described by one spec in src/encodings/ (name, fields, term, describe() row)', () => {
  const specs = readdirSync(new URL('../../src/encodings/', import.meta.url)).filter((f) => f.endsWith('.cpp')).map((f) => read(`src/encodings/${f}`));
  for (const kind of ENCODING_KINDS) {
    const owners = specs.filter((src) => new RegExp(`kind<\\w+>\\(\\s*"${kind}",`).test(src));
    assert.equal(owners.length, 1, `${kind}: ${owners.length} specs in src/encodings/ name it`);
  }
});

test('every kind has an options table, a parameter count, a describe() row and a typed interface', () => {
  const described = new Set(pe.describe().map((d) => d.kind));
  const dts = read('bindings/index.d.ts') + read('bindings/options.d.ts');  // the kinds' interfaces: options.d.ts (generated)
  const docs = read('docs/adding-an-encoding.md');
  for (const kind of ENCODING_KINDS) {
    assert.ok(OPTIONS[`encoding.${kind}`], `${kind}: no 'encoding.${kind}' table (its spec in src/encodings/)`);
    assert.ok(described.has(kind), `${kind}: no describe() row (its spec in src/encodings/)`);
    if (kind === 'none') continue;  // NoPE: nothing to count (its describe() row has parameterMethod null)
    assert.ok(PARAMETER_METHODS.includes(kind), `${kind}: no 'parameterCount.${kind}' table (its spec in src/encodings/)`);
    assert.ok(OPTIONS[`parameterCount.${kind}`], `${kind}: no 'parameterCount.${kind}' table (its spec in src/encodings/)`);
  }
  for (const kind of ENCODING_KINDS) assert.match(dts, new RegExp(`kind: '${kind}'`), `${kind}: no interface with kind: '${kind}' in bindings/options.d.ts (run node scripts/gen-types.mjs)`);
  assert.match(docs, /src\/encodings\//);
});

test('every kind has a parameter formula (its spec in src/encodings/) for its shapes', () => {
  const sample = { integer: 3, IntInput: [3], '[number, number]': [3, 3] };
  for (const kind of ENCODING_KINDS) {
    if (kind === 'none') continue;
    const shape = Object.fromEntries(Object.entries(OPTIONS[`parameterCount.${kind}`].keys).filter(([, s]) => s.required).map(([k, s]) => [k, sample[s.type]]));
    const n = pe.parameterCount(kind, shape);
    assert.ok(Number.isSafeInteger(n) && n >= 0, `${kind}: ${n}`);
  }
});

test('the table-free kinds run through pe.attention, and an unknown key in each is a TypeError', () => {
  // the kinds that need no learned table, with their required fields
  const sample = {
    none: {}, rope: {}, alibi: {}, temperature: { beta: 0.1, length: 2 },
  };
  const heads = 2, len = 3, hd = 4;
  const q = new Float32Array(heads * len * hd).fill(0.25), k = q.slice(), v = q.slice();
  for (const kind of Object.keys(sample)) {
    const enc = { kind, ...sample[kind] };
    const { out } = pe.attention({ q, k, v, heads, headDim: hd, qLen: len, kLen: len, encoding: enc });
    assert.equal(out.length, q.length, kind);
    assert.throws(() => pe.attention({ q, k, v, heads, headDim: hd, qLen: len, kLen: len, encoding: { ...enc, notAField: 1 } }), TypeError, kind);
  }
});
