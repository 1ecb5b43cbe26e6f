// What a machine lacks for some tests, said once at the start of `npm test` (vitest's globalSetup), so
// that a fresh clone skips nothing without saying why. The tests skip on the same conditions.
import { existsSync } from 'node:fs';
import { browserRuns, CHROMIUM } from './chromium.js';

export const curlRuns = existsSync('/usr/bin/curl') || existsSync('/bin/curl');

const MISSING: [boolean, string][] = [
  [browserRuns, `the browser tests (test/browser/): ${CHROMIUM} is not installed (apt-get install chromium-headless-shell; .ci/run installs it, and there a missing browser fails)`],
  [curlRuns, 'the curl replay test (test/engine/curl.test.ts): curl is not installed (apt-get install curl)'],
];

export default function setup(): void {
  for (const [runs, what] of MISSING) if (!runs) process.stderr.write(`skipping ${what}\n`);
}
