// The headless Chromium every browser test runs in (Debian's /usr/bin/chromium through playwright-core,
// a throw-away profile), and the page-error collector they share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

// Returns { context, close }: close() ends the browser and removes its profile.
export async function launchChromium(viewport = { width: 1280, height: 900 }) {
  const profile = mkdtempSync(join(tmpdir(), 'posenc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Pushes the page's uncaught exceptions and console errors onto `errors`.
export function collectErrors(page, errors, withLocation = false) {
  page.on('console', (m) => { if (m.type() === 'error') errors.push(withLocation ? `${m.text()} (${m.location().url})` : m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
}
