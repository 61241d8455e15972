// The page's state in its URL, so a configuration can be shared: every control the reader changes
// (range, select, checkbox, segmented buttons, inside a panel and with an id) is written to the query
// string as id=value — only those changed away from the page's default — and a URL with such a query
// sets the controls on load, through the same events a reader's input fires.
const segValue = (b) => b.dataset.value ?? b.dataset.layout;

function controls() {
  const list = [];
  for (const el of document.querySelectorAll('main section input[id], main section select[id]')) {
    if (el.type === 'range' || el.type === 'checkbox' || el.tagName === 'SELECT') list.push({ id: el.id, el, kind: el.type === 'checkbox' ? 'check' : 'value' });
  }
  for (const el of document.querySelectorAll('main section .seg[id]')) {
    if (el.querySelector('[data-value], [data-layout]')) list.push({ id: el.id, el, kind: 'seg' });
  }
  // document order, so applying a URL sets a preset before the controls after it
  return list.sort((a, b) => (a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
}
function read(c) {
  if (c.kind === 'check') return c.el.checked ? '1' : '0';
  if (c.kind === 'seg') { const b = c.el.querySelector('[aria-pressed="true"]'); return b ? segValue(b) : null; }
  return c.el.value;
}
function write(c, value) {
  if (c.kind === 'seg') {
    const b = [...c.el.querySelectorAll('[data-value], [data-layout]')].find((x) => segValue(x) === value);
    if (b && b.getAttribute('aria-pressed') !== 'true') b.click();
    return !!b;
  }
  if (c.kind === 'check') {
    const on = value === '1';
    if (c.el.checked !== on) { c.el.checked = on; c.el.dispatchEvent(new Event('input', { bubbles: true })); c.el.dispatchEvent(new Event('change', { bubbles: true })); }
    return true;
  }
  if (c.el.tagName === 'SELECT' && ![...c.el.options].some((o) => o.value === value)) return false;
  if (c.el.value !== value) {
    c.el.value = value;
    if (c.el.value !== value && c.el.type !== 'range') return false;
    c.el.dispatchEvent(new Event('input', { bubbles: true }));
    c.el.dispatchEvent(new Event('change', { bubbles: true }));
  }
  return true;
}

// Call once the sections have drawn: applies the URL's state, then keeps the URL current.
export function urlState() {
  const list = controls(), byId = new Map(list.map((c) => [c.id, c]));
  const defaults = new Map(list.map((c) => [c.id, read(c)]));
  const touched = new Set();  // only controls the reader set (a preset that moves other controls does not record them)
  const params = new URLSearchParams(location.search);
  for (const [id, value] of params) {  // in URL order, which is the page's order when the page wrote it
    const c = byId.get(id);
    if (c && write(c, value)) touched.add(id);
  }
  const update = () => {
    const q = new URLSearchParams();
    for (const c of list) {
      if (!touched.has(c.id)) continue;
      const v = read(c);
      if (v !== null && v !== defaults.get(c.id)) q.set(c.id, v);
    }
    const search = q.toString();
    const url = `${location.pathname}${search ? `?${search}` : ''}${location.hash}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
  };
  const mark = (e) => {
    const c = list.find((x) => x.el === e.target || (x.kind === 'seg' && x.el.contains(e.target)));
    if (c) { touched.add(c.id); update(); }  // the control's own listeners ran first (they sit on it; this one on the document)
  };
  for (const type of ['input', 'change', 'click']) document.addEventListener(type, mark);
  update();
  return { controls: list.map((c) => c.id) };
}
