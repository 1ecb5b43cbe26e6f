// The HTML report in a real browser (headless Chromium from Debian's packages, driven by
// playwright-core): failures come first, the filters show what a person asked for, the evidence
// opens to the command that replays it, and the page asks the network for nothing. A screenshot is
// kept in artifacts/ for a person to look at.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { renderHtml } from '../../report/html.js';
import { runSession } from '../../suites/session.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { browserRuns, CHROMIUM } from '../support/chromium.js';
import { within } from '../support/machine.js';

const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));

describe.skipIf(!browserRuns)('the HTML report in headless Chromium', () => {
  let browser: Browser;
  let page: string;
  beforeAll(async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: ['chat-max-tokens-ignored-streamed', 'stop-left-in-content'] }) });
    try {
      const report = await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, suites: ['chat', 'stop', 'models'] });
      page = join(mkdtempSync(join(tmpdir(), 'html-report-')), 'report.html');
      writeFileSync(page, renderHtml(report));
    } finally {
      await server.close();
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  }, within(60_000));
  afterAll(() => browser?.close());

  it(
    'shows failures first, filters by level, suite and verdict, and opens the evidence to its curl command',
    async () => {
      const tab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const asked: string[] = [];
      tab.on('request', (r) => asked.push(r.url()));
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(e.message));
      await tab.goto(pathToFileURL(page).href);

      const visible = () => tab.locator('section.check:visible');
      const all = await tab.locator('section.check').count();
      expect(await tab.locator('#shown').textContent()).toBe(`${all} of ${all} checks shown`);
      expect(await visible().first().getAttribute('data-verdict')).toBe('failing');
      expect(await visible().first().locator('h3 code').textContent()).toBe('chat.max-tokens');
      expect(await tab.locator('h1').textContent()).toBe('FAILED (exit code 1)');

      await tab.selectOption('#filter-level', 'should');
      const shoulds = await visible().count();
      expect(shoulds).toBeGreaterThan(0);
      expect(await tab.locator('section.check:visible[data-level="must"]').count()).toBe(0);
      await tab.selectOption('#filter-suite', 'stop');
      await tab.selectOption('#filter-verdict', 'finding');
      const ids = await visible().locator('h3 code').allTextContents();
      expect(ids).toEqual(['stop.not-in-content', 'stop.exact-prefix']);
      expect(await tab.locator('#shown').textContent()).toBe(`2 of ${all} checks shown`);

      const first = visible().first();
      await first.locator('details.evidence summary').first().click();
      const curl = await first.locator('pre.curl').first().textContent();
      expect(curl).toMatch(/^curl -sS -N -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions'/);
      expect(curl).toContain('"$CONFORMANCE_API_KEY"');
      expect(await first.locator('pre.curl').first().isVisible()).toBe(true);

      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.screenshot({ path: join(ARTIFACTS, 'html-report.png'), fullPage: false });
      expect(asked.every((u) => u.startsWith('file://'))).toBe(true);
      expect(errors).toEqual([]);
      const html = await tab.content();
      expect(html).not.toContain(KEY);
    },
    within(60_000),
  );
});
