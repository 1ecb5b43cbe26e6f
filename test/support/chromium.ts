// Debian's headless Chromium, as the browser tests drive it through playwright-core: no sandbox (a
// container), nothing fetched by the browser itself, made-up names (evil.test) mapped to 127.0.0.1
// so that pages of "other sites" need no network. A missing browser skips the tests, unless
// CONFORMANCE_BROWSER_REQUIRED=1 (CI) makes it a failure. Scrollbars: hidden, as Playwright launches
// it, unless asked for (a page whose boxes scroll, measured and shown in screenshots as a window on
// Linux or Windows draws it, each scrollbar taking its width).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium-headless-shell';
export const browserRuns = existsSync(CHROMIUM) || process.env.CONFORMANCE_BROWSER_REQUIRED === '1';
export const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));

export function launchChromium(names: string[] = [], { scrollbars = false } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    ...(scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...(names.length ? [`--host-resolver-rules=${names.map((n) => `MAP ${n} 127.0.0.1`).join(', ')}`] : []),
    ],
  });
}
