// The demo page: every number drawn here comes from the posenc WebAssembly core.
import { load } from '../bindings/posenc.mjs';
import { $, demo, timed } from './common.mjs';
import { sinusoidalSection } from './sections/sinusoidal.mjs';
import { codesSection } from './sections/codes.mjs';
import { ropeSection } from './sections/rope.mjs';
import { scoresSection } from './sections/scores.mjs';
import { cacheSection, cacheStoreSection } from './sections/cache.mjs';
import { compareSection } from './sections/compare.mjs';
import { speedSection } from './sections/speed.mjs';
import { orderSection } from './sections/order.mjs';
import { termsSection } from './sections/terms.mjs';
import { rotationSection } from './sections/rotation.mjs';
import { rotationVariantsSection } from './sections/rotation-variants.mjs';
import { relativeSection } from './sections/relative.mjs';
import { contextSection } from './sections/context.mjs';
import { cacheSimSection } from './sections/cache-sim.mjs';
import { grid2dSection } from './sections/grid2d.mjs';
import { urlState } from './url-state.mjs';

async function main() {
  const status = $('status');
  try {
    const t0 = performance.now();
    const pe = await load();
    demo.source = 'wasm';
    demo.api = pe;
    const sections = { order: orderSection, sinusoidal: sinusoidalSection, grid2d: grid2dSection, terms: termsSection, codes: codesSection, rotation: rotationSection, 'rotation-variants': rotationVariantsSection,
      rope: ropeSection, context: contextSection, scores: scoresSection, relative: relativeSection, cache: cacheSection, 'cache-store': cacheStoreSection, 'cache-sim': cacheSimSection, compare: compareSection, speed: speedSection };
    const draws = Object.entries(sections).map(([id, s]) => timed(id, s(pe)));
    for (const d of draws) d();
    demo.url = urlState();  // the URL's state (?id=value) applied through the controls, and kept current
    let resizeTimer;
    window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => draws.forEach((d) => d()), 120); });
    status.textContent = `WebAssembly core loaded in ${(performance.now() - t0).toFixed(0)} ms (SIMD128). Every figure below is computed by it.`;
    status.classList.add('ok');
    document.body.dataset.ready = 'true';
  } catch (err) {
    status.textContent = `Could not start the WebAssembly core: ${err.message}`;
    status.classList.add('err');
    document.body.dataset.ready = 'error';
    throw err;
  }
}
main();
