// Every method in the library side by side, generated from the library's own table (pe.describe(),
// src/describe.cpp): nothing here is typed into the page except the model size the counts are for.
// Learned parameters are computed by pe.parameterCount for a BERT-base-sized model (512 positions,
// d = 768, 12 heads of 64).
import { $, demo } from '../common.mjs';
import { METHOD_LINKS } from '../links.mjs';

const L = 512, d = 768, heads = 12, headDim = 64;
// The shapes each parameterCount method takes, for that model.
const SHAPES = {
  learned: { maxPositions: L, dim: d },
  binary: { bits: 9, dim: d },
  lowRank: { maxPositions: L, rank: 32, dim: d },
  sparse: { maxPositions: L, k: 4, basisSize: 64, dim: d },
  axial: { shape: [16, 32], dims: [256, 512] },
  t5: { heads },
  swin: { windowSize: [7, 7], heads },
  shaw: { clip: 16, headDim },
  relativeKey: { maxPosition: L, headDim },
  xl: { heads, headDim, dModel: d },
  deberta: { span: 256, hidden: d },
  kerple: { heads },
  fire: { heads, hidden: 32 },
  cope: { npos: 64, headDim },
};
const FAMILY_TAG = { additive: 'add', rotary: 'rot', score: 'score', none: 'none' };

function cell(text, className) {
  const td = document.createElement('td');
  if (className) td.className = className;
  td.textContent = text;
  return td;
}

// A headline (a count, or yes / no) with its explanation in small print beneath.
function noted(head, note, { className, verdict } = {}) {
  const td = document.createElement('td');
  if (className) td.className = className;
  const strong = document.createElement('span');
  strong.textContent = head;
  if (verdict !== undefined) strong.className = verdict ? 'yes' : 'no';
  const small = document.createElement('small');
  small.textContent = note;
  td.append(strong, small);
  return td;
}

// links [[text, url]] as anchors, or a note when there are none
function linkList(links, none) {
  const span = document.createElement('span');
  span.className = 'links';
  if (!links?.length) { span.textContent = none; span.classList.add('none'); return span; }
  links.forEach(([text, url], i) => {
    if (i) span.append(' · ');
    const a = document.createElement('a');
    a.href = url; a.textContent = text; a.target = '_blank'; a.rel = 'noopener';
    span.append(a);
  });
  return span;
}
const labelled = (td, label) => { td.dataset.label = label; return td; };

export function compareSection(pe) {
  return function draw() {
    const counts = {};
    const rows = pe.describe().map((m) => {
      const tr = document.createElement('tr');
      // method: its option name, family and the models that use it
      const name = document.createElement('td');
      name.className = 'method';
      name.innerHTML = `<code>${m.kind}</code> <span class="tag ${FAMILY_TAG[m.family]}">${m.family === 'none' ? 'NoPE' : m.family}</span>`;
      const used = document.createElement('small');
      used.textContent = m.usedIn;
      name.append(used);
      let params = cell(m.parameters, 'num');
      if (m.parameterMethod) {
        const n = pe.parameterCount(m.parameterMethod, SHAPES[m.parameterMethod] ?? {});
        counts[m.kind] = n;
        params = n === 0 ? cell('0', 'num') : noted(n.toLocaleString('en-US'), m.parameters, { className: 'num' });
      }
      // reference reproduced, then the paper and the upstream code
      const ref = document.createElement('td');
      ref.className = 'ref';
      ref.append(document.createTextNode(m.reference));
      const links = METHOD_LINKS[m.kind];
      const sources = document.createElement('small');
      if (links?.paper || links?.code) sources.append('paper: ', linkList(links?.paper, '—'), ' · code: ', linkList(links?.code, '—'));
      else sources.append(linkList(null, 'no single paper or upstream: the design\'s own math'));
      ref.append(sources);
      tr.append(name, labelled(cell(m.encodes, 'encodes'), 'encodes'), labelled(params, 'learned parameters'),
        labelled(noted(m.extrapolates ? 'yes' : 'no', m.extrapolation, { verdict: m.extrapolates }), 'beyond training length'),
        labelled(noted(m.kvCacheFriendly ? 'yes' : 'no', m.kvCache, { verdict: m.kvCacheFriendly }), 'KV cache'),
        labelled(ref, 'reference reproduced'));
      return tr;
    });
    $('compare-body').replaceChildren(...rows);
    demo.parameterCounts = counts;
  };
}
