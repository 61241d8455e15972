// Shared bits of the demo page.
export const $ = (id) => document.getElementById(id);
export const COLORS = ['#c0392b', '#2f5fb3', '#1f8a70', '#e8a33d', '#8e44ad', '#4a5368'];
export const SCHEDULE_COLORS = ['#9aa1ae', '#2f5fb3', '#1f8a70', '#e8a33d', '#8e44ad', '#c0392b'];
// For the browser test: what was drawn, and from where.
export const demo = (window.posencDemo = { source: null });

// Wires an <input>/<select> to a state key, mirrors its value into #id-out, and redraws.
// show(value) is what #id-out displays (default: the raw value).
export function bindInput(id, state, key, draw, parse = Number, show = String) {
  const el = $(id);
  draw = timedFor(el, draw);
  const out = $(`${id}-out`);
  if (out) out.textContent = show(el.value);
  el.addEventListener('input', () => {
    state[key] = parse(el.value);
    if (out) out.textContent = show(el.value);
    draw();
  });
}

// A segmented control: buttons with data-value inside #id.
export function bindSegmented(id, state, key, draw) {
  const buttons = document.querySelectorAll(`#${id} [data-value]`);
  draw = timedFor($(id), draw);
  for (const b of buttons) {
    b.addEventListener('click', () => {
      state[key] = b.dataset.value;
      buttons.forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
      draw();
    });
  }
}

// Deterministic pseudo-random floats for demo tensors (so figures are stable between reloads).
export function demoFloats(n, seed) {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; out[i] = (s / 2 ** 32) * 2 - 1; }
  return out;
}

// Redraw timing, for the reader's devtools and the browser test: every redraw wrapped by timed() is
// logged in window.posencDemo.redraws as {panel, ms, sinceInput}: ms is the redraw itself, sinceInput the
// time from the input event that caused it (event.timeStamp) to the redraw's end. The section's
// data-redraw-ms attribute holds the latest.
demo.redraws = [];
let pendingInput = null;
for (const type of ['input', 'change', 'click']) {
  document.addEventListener(type, (e) => {
    pendingInput = e;
    // cleared in the next task: the listeners of this event (and the redraws they run) all see it
    setTimeout(() => { if (pendingInput === e) pendingInput = null; }, 0);
  }, true);
}
// The panel a control belongs to: the nearest [data-panel], else its section.
export const panelOf = (el) => el.closest('[data-panel]')?.dataset.panel ?? el.closest('section')?.id ?? 'page';
function timedFor(el, draw) { return draw.timedPanel ? draw : timed(panelOf(el), draw); }
export function timed(panel, draw) {
  const f = (...args) => {
    const t0 = performance.now(), cause = pendingInput;
    const result = draw(...args);
    const t1 = performance.now();
    const entry = { panel, ms: t1 - t0, sinceInput: cause ? t1 - cause.timeStamp : null, toFrame: null, control: cause?.target?.id || cause?.target?.closest?.('[id]')?.id || null };
    demo.redraws.push(entry);
    // input to the next frame: the redraw plus the style, layout and paint it causes
    if (cause) requestAnimationFrame(() => setTimeout(() => { entry.toFrame = performance.now() - cause.timeStamp; }, 0));
    if (demo.redraws.length > 500) demo.redraws.splice(0, 250);
    const section = document.getElementById(panel);
    if (section) section.dataset.redrawMs = (t1 - t0).toFixed(2);
    return result;
  };
  f.timedPanel = panel;
  return f;
}
