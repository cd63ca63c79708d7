/**
 * Headless Chromium for the browser tests: Debian's `chromium` (`.ci/run` installs it), driven by
 * playwright-core. Without it the tests are skipped, saying why.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `test/browser: skipping the browser tests: ${CHROMIUM} is missing (.ci/run installs Debian's chromium)`,
  );

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with a fresh profile; `close` also removes the profile. */
export async function launchChromium(viewport?: {
  width: number;
  height: number;
}): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'fauxlab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...(viewport && { viewport }),
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
