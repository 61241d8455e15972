// Every method in the library side by side, generated from the library's own table (pe.describe(),
// src/registry.cpp and src/encodings/): nothing here is typed into the page. Learned parameters are
// computed by pe.parameterCount for the example shapes the registry gives (a BERT-base-sized model: 512
// positions, d = 768, 12 heads of 64); the paper and code links come from the registry too.
import { $, demo, bindSegmented, timed } from '../common.mjs';
import { KINDS } from '../../bindings/options.mjs';
import { seedStats, formatStat } from '../lab/results.mjs';

// "Defined past the trained length" (pe.describe(): the method computes values there) is not "generalises
// past it": that is measured, by the lab's trained models on its switch task (web/lab/models/results.json,
// 5 seeds). The lab's model for each kind it trains:
const LAB_MODEL = { none: 'nope', sinusoidal: 'sinusoidal', learned: 'learned', rope: 'rope', alibi: 'alibi', t5: 't5', kerple: 'kerple', fire: 'fire', forgetting: 'fox', stickBreaking: 'stickbreaking' };
const GENERALISES = 0.9, FAILS = 0.5;   // mean accuracy at 4L: at or above → yes, at or below → no, between → partly
/** The measured verdict for a kind: { verdict: 'yes' | 'partly' | 'no', text, note } or null (not measured). */
export function measuredVerdict(results, kind) {
  const name = LAB_MODEL[kind];
  if (!results || !name || !results.models[name]) return null;
  const st = seedStats(results, name, 'switch'), a = st['4L'];
  const verdict = a.mean >= GENERALISES ? 'yes' : a.mean <= FAILS ? 'no' : 'partly';
  let note = `4L: ${formatStat(a)}, L: ${formatStat(st['1L'])} (${a.n} seeds)`;
  if (kind === 'rope' && results.models['rope-pi']) note += `; PI fine-tuned at ${results.piFactor}L: ${formatStat(seedStats(results, 'rope-pi', 'switch')['4L'])}`;
  return { verdict, text: verdict, note };
}

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

// On a phone each method is a card: its name, family and a line of verdicts (parameters, beyond training
// length, KV cache), with the rest behind a "details" button (24 open cards were 11,000 px).
function verdictLine(count, m, measured) {
  const line = document.createElement('span');
  line.className = 'verdicts';
  const badge = (text, ok, title) => {
    const b = document.createElement('span');
    b.className = ok === undefined ? 'neutral' : ok ? 'yes' : 'no';
    b.textContent = text;
    b.title = title;
    return b;
  };
  const params = count === 0 ? 'no parameters' : count === null ? 'learned table' : `${count.toLocaleString('en-US')} parameters`;
  line.append(badge(params, count === 0, 'learned parameters (BERT-base-sized model)'),
    badge(m.extrapolates ? 'defined past L' : 'fixed length', undefined, 'defined past the trained length'),
    ...(measured ? [badge(`generalises: ${measured.text}`, measured.verdict === 'yes' ? true : measured.verdict === 'no' ? false : undefined, 'generalises past the trained length (measured in the lab)')] : []),
    badge(m.kvCacheFriendly ? 'cache-friendly' : 'cache recomputes', m.kvCacheFriendly, 'KV cache'));
  return line;
}

export function compareSection(pe) {
  const filter = { family: 'all' };
  let results = null, redraw = null;
  fetch(new URL('../lab/models/results.json', import.meta.url)).then((r) => (r.ok ? r.json() : null)).then((r) => { results = r; redraw?.(); }).catch(() => {});
  // which rows show: the family buttons and the three checkboxes combine (and)
  const applyFilter = timed('compare', () => {
    const noParams = $('compare-noparams').checked, extrapolates = $('compare-defined').checked, kv = $('compare-kv').checked;
    const rows = [...$('compare-body').rows];
    let shown = 0;
    for (const tr of rows) {
      const d = tr.dataset;
      tr.hidden = !((filter.family === 'all' || d.family === filter.family) && (!noParams || d.parameters === '0')
        && (!extrapolates || d.extrapolates === 'true') && (!kv || d.kv === 'true'));
      if (!tr.hidden) shown++;
    }
    $('compare-count').textContent = shown === rows.length ? `${rows.length} methods` : `${shown} of ${rows.length} methods`;
  });
  bindSegmented('compare-family', filter, 'family', applyFilter);
  for (const id of ['compare-noparams', 'compare-defined', 'compare-kv']) $(id).addEventListener('input', applyFilter);

  return (redraw = function draw() {
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
      let count = m.parameters === '0' ? 0 : null;
      if (m.parameterMethod) {
        const n = pe.parameterCount(m.parameterMethod, KINDS[m.parameterMethod]?.example ?? {});
        counts[m.kind] = count = n;
        params = n === 0 ? cell('0', 'num') : noted(n.toLocaleString('en-US'), m.parameters, { className: 'num' });
      }
      // count null: learned, but no parameterCount shape (twoLevel; resizeGrid resizes a table it is given)
      Object.assign(tr.dataset, { kind: m.kind, family: m.family, parameters: count === null ? 'learned' : String(count), extrapolates: String(m.extrapolates), kv: String(m.kvCacheFriendly) });
      const more = document.createElement('button');
      more.type = 'button';
      more.className = 'more';
      more.textContent = 'details';
      more.setAttribute('aria-expanded', 'false');
      more.addEventListener('click', () => {
        const open = tr.classList.toggle('open');
        more.setAttribute('aria-expanded', String(open));
        more.textContent = open ? 'less' : 'details';
      });
      const measured = measuredVerdict(results, m.kind);
      name.append(verdictLine(count, m, measured), more);
      // reference reproduced, then the paper and the upstream code
      const ref = document.createElement('td');
      ref.className = 'ref';
      ref.append(document.createTextNode(m.reference));
      const links = KINDS[m.kind];
      const sources = document.createElement('small');
      if (links?.paper || links?.code) sources.append('paper: ', linkList(links?.paper, '—'), ' · code: ', linkList(links?.code, '—'));
      else sources.append(linkList(null, 'no single paper or upstream: the design\'s own math'));
      ref.append(sources);
      tr.append(name, labelled(cell(m.encodes, 'encodes'), 'encodes'), labelled(params, 'learned parameters'),
        labelled(noted(m.extrapolates ? 'yes' : 'no', m.extrapolation), 'defined past the trained length'),
        labelled(measured ? noted(measured.text, measured.note, { verdict: measured.verdict === 'partly' ? undefined : measured.verdict === 'yes' })
          : noted('not measured', 'not among the lab\'s models'), 'generalises past it (lab, switch task)'),
        labelled(noted(m.kvCacheFriendly ? 'yes' : 'no', m.kvCache, { verdict: m.kvCacheFriendly }), 'KV cache'),
        labelled(ref, 'reference reproduced'));
      return tr;
    });
    $('compare-body').replaceChildren(...rows);
    demo.parameterCounts = counts;
    demo.compareMeasured = !!results;
    applyFilter();
  });
}
