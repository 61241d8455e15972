// The README's per-family table of pe.attentionConfigFromHF: what each published config's layers plan (read by the
// C++ reader through the package) and the largest difference from the family's transformers code that the tests
// measure (tests/node/plan-cases.mjs). `node scripts/plan-table.mjs --write` rewrites it between the markers;
// tests/node/attention-plan.test.mjs holds the README to it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CASES } from '../tests/node/plan-cases.mjs';

const BEGIN = '<!-- plan-table:begin -->', END = '<!-- plan-table:end -->';
const readmeUrl = new URL('../README.md', import.meta.url);

const short = (x) => (x === 0 ? '0' : x.toExponential(0));

// What a layer's plan does, in a few words.
function describe(plan) {
  const a = plan.attention, parts = [];
  const enc = Array.isArray(a.encoding) ? a.encoding : [a.encoding];
  const kinds = enc.map((e) => e.kind);
  if (kinds.includes('rope')) {
    const r = enc.find((e) => e.kind === 'rope');
    const scaling = r.scaling ? ` ${r.scaling.type}` : '';
    const R = Math.trunc(a.headDim * (r.partialRotaryFactor ?? 1));
    const partial = r.rotaryOffset ? ` on channels ${r.rotaryOffset}–${r.rotaryOffset + R - 1} of ${a.headDim}`
      : r.partialRotaryFactor && r.partialRotaryFactor !== 1 ? ` ×${r.partialRotaryFactor}` : '';
    parts.push(`RoPE ${r.layout}${partial}${r.multiAxis ? ` ${r.multiAxis}` : ''}${scaling}, θ ${r.base}`);
  } else if (kinds.includes('alibi')) {
    parts.push('ALiBi');
  } else {
    parts.push('NoPE');
  }
  if (kinds.includes('temperature')) parts.push('temperature');
  if (a.valueDim) parts.push(`values ${a.valueDim} wide`);
  if (a.window) parts.push(`window ${a.window}`);
  if (a.chunk) parts.push(`chunk ${a.chunk}`);
  if (a.softcap) parts.push(`softcap ${a.softcap}`);
  if (plan.requires.length) parts.push(`needs ${plan.requires.join(', ')}`);
  parts.push(`scale ${plan.scaleRule}`);
  return parts.join('; ');
}

export function planTable(measured) {
  const lines = [BEGIN, '| family | config.json: layer (type): what it computes | max error: attention / cache |', '|---|---|---|'];
  const groups = [...new Set(CASES.map((c) => c.group))];
  for (const group of groups) {
    const cases = CASES.filter((c) => c.group === group);
    const plans = cases.map((c) => `\`${c.fixture}\` ${measured.get(c.fixture).map((r) => `${r.layer} (${r.plan.layer.type}): ${describe(r.plan)}`).join('; ')}`);
    const errors = cases.map((c) => {
      const rows = measured.get(c.fixture);
      return `\`${c.fixture}\` ${short(Math.max(...rows.map((r) => r.attention)))} / ${short(Math.max(...rows.map((r) => r.cache)))}`;
    });
    lines.push(`| ${group} | ${plans.join('<br>')} | ${errors.join('<br>')} |`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { load } = await import('posenc');
  const { runCase } = await import('../tests/node/plan-cases.mjs');
  const pe = await load();
  const measured = new Map(CASES.map((c) => [c.fixture, runCase(pe, c)]));
  const table = planTable(measured);
  const readme = readFileSync(readmeUrl, 'utf8');
  const begin = readme.indexOf(BEGIN), end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`README.md needs the markers ${BEGIN} and ${END}`);
  if (process.argv.includes('--write')) {
    writeFileSync(readmeUrl, readme.slice(0, begin) + table + readme.slice(end));
    console.log('README.md: plan table written');
  } else {
    process.stdout.write(table);
  }
}
