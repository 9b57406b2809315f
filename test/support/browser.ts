import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package; .ci/run installs it and sets REQUIRE_BROWSER, so CI never skips a browser suite. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.REQUIRE_BROWSER) throw new Error(`REQUIRE_BROWSER is set but there is no Chromium at ${CHROMIUM}`);
if (!haveChromium) console.warn(`[browser tests] SKIPPED: no Chromium at ${CHROMIUM}. Install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH.`);

/** Headless Chromium, quiet: no network of its own, no updates, no first-run pages. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
