// The HTML report of a load sweep in headless Chromium: its two charts are SVG drawn in the page
// (the latency percentiles and the held-rule rate against the steps), the rule that broke under load
// is named and drawn falling, and the page asks the network for nothing. The charts' screenshot is
// kept in artifacts/load-chart.png; UPDATE_DOCS=1 writes it to docs/load-chart.png, for docs/load.md.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { renderHtml } from '../../report/html.js';
import type { RunReport } from '../../report/report.js';
import { ARTIFACTS, browserRuns, launchChromium } from '../support/chromium.js';
import { loadAgainstMock } from '../support/load.js';
import { KEY } from '../support/run.js';
import { within } from '../support/machine.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

describe.skipIf(!browserRuns)('the HTML report of a load sweep in headless Chromium', () => {
  let browser: Browser;
  let page: string;
  let report: RunReport;
  beforeAll(async () => {
    // Paced, so that the latency grows with the load; streams cut past 1 in flight, so a rule breaks.
    const mock = createMock({ ...DEFAULT_CONFIG, timing: { ttft_ms: 40, tokens_per_second: 400 } }, { faults: ['load-stream-cut'] });
    report = await loadAgainstMock(mock, { concurrency: [1, 2, 4, 8], requests: 16 });
    page = join(mkdtempSync(join(tmpdir(), 'load-report-')), 'report.html');
    writeFileSync(page, renderHtml(report));
    browser = await launchChromium();
  }, within(60_000));
  afterAll(() => browser?.close());

  it(
    'draws the latency and the held-rule rate against the steps as SVG, names what broke under load, and fetches nothing',
    async () => {
      const tab = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 2 });
      const asked: string[] = [];
      tab.on('request', (r) => asked.push(r.url()));
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(e.message));
      await tab.goto(pathToFileURL(page).href);

      const latency = tab.locator('svg[data-chart="latency"]');
      const held = tab.locator('svg[data-chart="held"]');
      expect(await latency.isVisible()).toBe(true);
      expect(await held.isVisible()).toBe(true);
      // A point per step on each line, and lines that are drawn (a path with segments).
      for (const series of ['ttft p50', 'e2e p99']) {
        expect(await latency.locator(`circle[data-point="${series}"]`).count()).toBe(4);
        expect(await latency.locator(`path[data-series="${series}"]`).getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+){3}$/);
      }
      expect(await held.locator('circle[data-point="stream.complete"]').count()).toBe(4);
      // stream.complete holds at 1 in flight and falls below 100% from 2 on.
      const ys = await held.locator('circle[data-point="stream.complete"]').evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('cy'))));
      expect(ys[1]).toBeGreaterThan(ys[0]);
      expect(await tab.locator('[data-breaks="stream.complete"]').count()).toBe(1);
      expect(await tab.locator('table[data-table="profile"] tbody tr').count()).toBe(5);
      expect(await tab.locator('section.check#stream\\.complete').getAttribute('data-verdict')).toBe('failing');

      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.locator('.charts').screenshot({ path: join(ARTIFACTS, 'load-chart.png') });
      if (process.env.UPDATE_DOCS === '1') copyFileSync(join(ARTIFACTS, 'load-chart.png'), join(DOCS, 'load-chart.png'));
      await tab.screenshot({ path: join(ARTIFACTS, 'load-report.png'), fullPage: false });
      expect(asked.every((u) => u.startsWith('file://'))).toBe(true);
      expect(errors).toEqual([]);
      expect(await tab.content()).not.toContain(KEY);
    },
    within(60_000),
  );
});
