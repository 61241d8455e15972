// bindings/options.d.ts is generated from the registry and the kinds' specs (scripts/gen-types.mjs):
// the committed file must be what the generator makes now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate, specDocs, registryDocs, OUTPUT } from '../../scripts/gen-types.mjs';

test('bindings/options.d.ts is what scripts/gen-types.mjs generates from the registry', async () => {
  const committed = readFileSync(OUTPUT, 'utf8'), fresh = await generate();
  if (committed === fresh) return;
  const a = committed.split('\n'), b = fresh.split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  assert.fail(`bindings/options.d.ts is stale: run \`node scripts/gen-types.mjs\` and commit the result.\n` +
    `first difference, line ${i + 1}:\n  committed: ${a[i]}\n  generated: ${b[i]}`);
});

test('a /// block documents a field of kFields or the kind (makeSpec), nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-gentypes-'));
  const spec = (body) => `KindSpec k = kind<K>("demo", "DemoEncoding", Family::score, kFields);\nconstexpr KindField kFields[] = {\n${body}\n};\n/// The demo.\nKindSpec makeSpec(Tag<DemoEncoding>) {\n`;
  writeFileSync(join(dir, 'demo.cpp'), spec('    /// The table.\n    req<&K::table>("table", "FloatInput"),\n    /// Heads.\n    heads<&K::heads>(),'));
  assert.deepEqual(specDocs(pathToFileURL(dir + '/')).demo, { file: 'demo.cpp', doc: 'The demo.', fields: { table: 'The table.', heads: 'Heads.' }, scaling: {}, shapeDoc: '', shape: {} });
  // RopeScaling's keys (scalingFields(), rope.cpp): named by POSENC_SCALING_KEY's member, not its type string
  writeFileSync(join(dir, 'demo.cpp'), spec('    /// Heads.\n    heads<&K::heads>(),') + `const std::vector<KindField>& scalingFields() {
    static const std::vector<KindField> fields = {
        /// The factor.
        scaled(POSENC_SCALING_KEY(opt, factor, "number", "context extension factor"), kAllScaled),
    };
    return fields;
}
`);
  assert.deepEqual(specDocs(pathToFileURL(dir + '/')).demo, { file: 'demo.cpp', doc: 'The demo.', fields: { heads: 'Heads.' }, scaling: { factor: 'The factor.' },
    shapeDoc: '', shape: {} });
  // its parameterCount shape: a block before k.shapeInterface documents the interface, one in kShape a key
  // (not the kind's field of the same name)
  writeFileSync(join(dir, 'demo.cpp'), spec('    /// Heads.\n    heads<&K::heads>(),') + `        /// Shape of the demo.
        k.shapeInterface = "DemoShape";
        static constexpr registry::Raw kShape[] = {
            /// Heads of the table.
            size("heads"),
        };
`);
  assert.deepEqual(specDocs(pathToFileURL(dir + '/')).demo, { file: 'demo.cpp', doc: 'The demo.', fields: { heads: 'Heads.' }, scaling: {},
    shapeDoc: 'Shape of the demo.', shape: { heads: 'Heads of the table.' } });
  writeFileSync(join(dir, 'demo.cpp'), spec('    /// Stray.\n    atLeast(0,'));
  assert.throws(() => specDocs(pathToFileURL(dir + '/')), /demo\.cpp:\d+: a \/\/\/ block must precede a field/);
});

// src/registry.cpp's tables: a /// block before a key of an array documents it (a constant such as kOut
// names its key), one before a kTables row documents the interface; a later part's key replaces an
// earlier one's; a block anywhere else is an error.
test('a /// block in src/registry.cpp documents a key of a table array or a kTables row, nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-gentypes-'));
  const file = join(dir, 'registry.cpp');
  const source = (stray = '') => `constexpr Raw kOut = opt("out", "FloatOut");
constexpr KindField kA[] = {
    /// The width.
    b::req<&A::dim>("dim", "integer"),
    /// Where it goes.
    key(kOut),
};
constexpr KindField kB[] = {
    /// The width, again.
    /// @tsType Width
    b::req<&B::dim>("dim", "integer"),
};
${stray}constexpr RawTable kTables[] = {
    /// Options of A.
    {"a", "AOptions", {part(kA), part(kB)}},
    {"b", "", {}, From::kindTables},
};
`;
  writeFileSync(file, source());
  assert.deepEqual(registryDocs(pathToFileURL(file)), [{ table: 'a', interface: 'AOptions', doc: 'Options of A.',
    keys: { dim: 'The width, again.\n@tsType Width', out: 'Where it goes.' }, where: `src/registry.cpp:15`, from: 'parts' }]);
  writeFileSync(file, source('/// Stray.\nint x = 0;\n'));
  assert.throws(() => registryDocs(pathToFileURL(file)), /src\/registry\.cpp:14: a \/\/\/ block must precede a key of a table's array or a row of kTables/);
});
