// The mock's dashboard (/__mock/) in headless Chromium: it loads with no console error and nothing
// from another origin; a chat sent by curl shows by itself, with the start of what was asked
// and answered, its detail with the body, the streamed pieces on their time line and a curl that,
// run in a shell, gets the same answer; rows of requests served before the page opened read as live
// ones do (key, times); the list takes the window's height and hides empty columns; the live control
// picks a fault from the catalogue with its parameters and help (a 429 for one request, markdown,
// reset) and changes the next replies; a body holding markup shows as text; a page of another site
// cannot use the control API; the page comes back by itself after the mock restarts. Elements are
// selected by id and data attributes, never by their text. At 1,280 and 800 px wide, with a long
// model id and a total of seconds in the list, every header, cell and control shows its text whole
// and every column can be reached (the list scrolls sideways in its box, shaded where more lies).
// At 800 px the search box keeps its width and each streamed piece one line; streams are marked, a
// dropped one is no green 200, and Reset all empties the form. Screenshots with a streamed request
// open, at 1,280 and 800 px, are kept in artifacts/ (dashboard.png, dashboard-narrow.png);
// UPDATE_DOCS=1 writes them to docs/, for the guides. Scrollbars show, as a window on Linux draws them.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { ARTIFACTS, browserRuns, launchChromium } from '../support/chromium.js';
import { within } from '../support/machine.js';

const run = promisify(execFile);
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
/** A row by what it is, never by its text (a time ending in .404 holds "404"). */
const row = (attrs: Record<string, string>) =>
  `#rows tr${Object.entries(attrs)
    .map(([k, v]) => `[data-${k}="${v}"]`)
    .join('')}`;
const CHAT_ROW = row({ path: '/v1/chat/completions' });
/** The first row of these attributes, and the text of one of its cells. */
const firstRow = (tab: Page, attrs: Record<string, string>) => tab.locator(row(attrs)).first();
const cellText = (tab: Page, attrs: Record<string, string>, col: string) => firstRow(tab, attrs).locator(`td[data-col="${col}"]`).textContent();
const KEY = DEFAULT_CONFIG.keys[0].key;
/** How long the page is given to show what it is waited for: a guard against a page that never does,
 * not a speed (a wait ends as soon as the page shows it). */
const REACTS = 15_000;
/** A long id, as a dated preview is named: the model column shows it whole. */
const LONG_MODEL = 'mock-chat-1-long-context-preview-2026-01-15';
const CONFIG = {
  ...DEFAULT_CONFIG,
  timing: { ttft_ms: 40, tokens_per_second: 300 },
  models: [...DEFAULT_CONFIG.models, { ...DEFAULT_CONFIG.models[0], id: LONG_MODEL, name: 'Mock Chat 1, long context preview' }],
  keys: DEFAULT_CONFIG.keys.map((k) => (k.id === 'alpha' ? { ...k, models: [...k.models, LONG_MODEL] } : k)),
};

/** What a person could not read at the window's width, each as `what: why` (runs in the page; the
 * tests are type-checked without the DOM's types): a shown header or cell of no width, or narrower
 * or lower than its text (cut); a control narrower than the text it shows (a select's chosen option,
 * an empty field's placeholder: each measured on a copy sized to that text) or past its section or
 * the window; the list's box past the window, the page wider than it, a table wider than its box
 * where the box does not scroll sideways. Empty when everything reads whole. */
function unreadable(): string[] {
  const { document, innerWidth, getComputedStyle, Option } = globalThis as any;
  const out: string[] = [];
  const shown = (e: any) => !e.hidden && e.getClientRects().length > 0;
  for (const cell of document.querySelectorAll('#requests th, #requests td')) {
    if (!shown(cell)) continue;
    const what = `${cell.tagName.toLowerCase()}[data-col="${cell.dataset.col}"] ${JSON.stringify(cell.textContent)}`;
    if (cell.clientWidth === 0 || cell.clientHeight === 0) out.push(`${what}: no width`);
    else if (cell.scrollWidth > cell.clientWidth || cell.scrollHeight > cell.clientHeight)
      out.push(`${what}: ${cell.scrollWidth}x${cell.scrollHeight} of text in ${cell.clientWidth}x${cell.clientHeight}`);
  }
  for (const c of document.querySelectorAll('#control select, #control input, #control button, #requests .toolbar select, #requests .toolbar input')) {
    if (!shown(c)) continue;
    const what = `#${c.id}`;
    const text = c.tagName === 'SELECT' ? c.selectedOptions[0]?.text : c.tagName === 'INPUT' && !c.value ? c.placeholder : '';
    if (text) {
      const copy = c.cloneNode(false);
      copy.removeAttribute('id');
      if (c.tagName === 'SELECT') copy.append(new Option(text));
      Object.assign(copy.style, { position: 'absolute', visibility: 'hidden', width: 'auto', minWidth: '0', maxWidth: 'none', flex: 'none', fieldSizing: 'content' });
      c.parentElement.append(copy);
      const need = copy.getBoundingClientRect().width;
      copy.remove();
      if (need > c.getBoundingClientRect().width + 0.5) out.push(`${what}: ${JSON.stringify(text)} needs ${need.toFixed(1)} px, has ${c.getBoundingClientRect().width.toFixed(1)}`);
    } else if (c.scrollWidth > c.clientWidth) out.push(`${what}: ${c.scrollWidth} px of text in ${c.clientWidth}`);
    const section = c.closest('section');
    const edge = section.getBoundingClientRect().left + section.clientLeft + section.clientWidth;
    if (c.getBoundingClientRect().right > Math.min(edge, innerWidth) + 0.5) out.push(`${what}: past its section's edge`);
  }
  const box = document.querySelector('#requests .table');
  if (box.getBoundingClientRect().right > innerWidth + 0.5) out.push('the list: past the window');
  if (document.documentElement.scrollWidth > innerWidth) out.push(`the page: ${document.documentElement.scrollWidth} px wide in ${innerWidth}`);
  if (box.querySelector('table').offsetWidth > box.clientWidth && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) out.push('the list: wider than its box, which does not scroll');
  return out;
}

/** The content a stream or a JSON answer carries. */
function contentOf(text: string): string {
  if (!text.startsWith('data:')) return JSON.parse(text).choices[0].message.content;
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? '')
    .join('');
}

describe.skipIf(!browserRuns)('the dashboard in headless Chromium', () => {
  let browser: Browser;
  let mock: MockServer;
  let site: Server;
  let sitePort: number;

  const chat = async (body: Record<string, unknown>) => {
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat-1', ...body }),
    });
    return { status: res.status, text: await res.text() };
  };

  /** The dashboard in a fresh tab, with what it logs and where it goes kept for the asserts. */
  async function open(): Promise<{ tab: Page; problems: string[]; outside: string[] }> {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    const outside: string[] = [];
    tab.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    tab.on('pageerror', (e) => problems.push(e.message));
    tab.on('dialog', (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
    tab.on('request', (r) => !r.url().startsWith(mock.url) && outside.push(r.url()));
    const res = await tab.goto(`${mock.url}/__mock/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'/);
    await tab.waitForSelector('#connection[data-state="live"]', { timeout: within(REACTS) });
    // The catalogue has arrived: the form can be used.
    await expect.poll(() => tab.locator('#fault option').count(), { timeout: within(REACTS) }).toBeGreaterThan(10);
    return { tab, problems, outside };
  }

  /** A chat with the long model that takes seconds (a live pace for it alone): a row's widest values. */
  const slowLong = (stream: boolean) => {
    mock.mock.control.set({ pace: { ttft_ms: 2100 }, times: 1 });
    return chat({ model: LONG_MODEL, stream, messages: [{ role: 'user', content: 'Summarise the incident report of last night: its timeline, and what each team did about it.' }] });
  };

  /** At this window's size: nothing unreadable, and every column reachable. A table wider than its box
   * is shaded on its right; scrolled to its end, the shade moves to the left, the time column stays at
   * the left and the last column shows whole in the box; every column fits beside the time column.
   * Left scrolled back to its start. Whether the list scrolls sideways. */
  async function readableAt(tab: Page, width: number, height: number): Promise<boolean> {
    await tab.setViewportSize({ width, height });
    const box = tab.locator('#table-box');
    const frame = tab.locator('#table-frame');
    expect(await tab.evaluate(unreadable), `at ${width} px`).toEqual([]);
    const wider = await box.evaluate((b) => b.scrollWidth > b.clientWidth);
    await expect.poll(() => frame.getAttribute('data-more-right'), { timeout: within(REACTS) }).toBe(String(wider));
    expect(await frame.getAttribute('data-more-left')).toBe('false');
    if (!wider) return false;
    await box.evaluate((b) => b.scrollTo({ left: b.scrollWidth }));
    await expect.poll(() => frame.getAttribute('data-more-left'), { timeout: within(REACTS) }).toBe('true');
    expect(await frame.getAttribute('data-more-right')).toBe('false');
    const place = await box.evaluate((b) => {
      const inner = b.getBoundingClientRect().left + b.clientLeft;
      const heads = [...b.querySelectorAll('th')].filter((th) => !th.hidden);
      const time = heads.find((th) => th.dataset.col === 'time')!;
      return {
        timeAt: time.getBoundingClientRect().left - inner,
        lastPast: heads.at(-1)!.getBoundingClientRect().right - (inner + b.clientWidth),
        tooWide: heads.filter((th) => th !== time && th.offsetWidth > b.clientWidth - time.offsetWidth).map((th) => th.dataset.col),
        table: b.querySelector('table')!.offsetWidth - b.scrollWidth,
      };
    });
    expect(place.timeAt).toBeCloseTo(0, 0);
    expect(place.lastPast).toBeLessThanOrEqual(0.5);
    expect(place.tooWide).toEqual([]);
    expect(place.table).toBeLessThanOrEqual(0);
    expect(await tab.evaluate(unreadable), `at ${width} px, scrolled to the end`).toEqual([]);
    await box.evaluate((b) => b.scrollTo({ left: 0 }));
    await expect.poll(() => frame.getAttribute('data-more-left'), { timeout: within(REACTS) }).toBe('false');
    return true;
  }

  beforeAll(async () => {
    mock = await startMockServer({ mock: createMock(CONFIG) });
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another site</title>'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    sitePort = (site.address() as AddressInfo).port;
    browser = await launchChromium(['evil.test'], { scrollbars: true });
  }, within(60_000));
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    site?.close();
  });

  it(
    'shows a chat sent by curl on the open page, with no reload; its detail holds the body, the streamed pieces and a curl that replays it',
    async () => {
      const { tab, problems, outside } = await open();
      const body = JSON.stringify({ model: 'mock-chat-1', stream: true, messages: [{ role: 'user', content: 'Tell me about the dashboard.' }] });
      const first = run('curl', ['-sS', '-N', '-X', 'POST', `${mock.url}/v1/chat/completions`, '-H', `authorization: Bearer ${KEY}`, '-H', 'content-type: application/json', '--data-raw', body]);
      // Pushed to the page: it is never reloaded. How soon is a speed figure, never asserted; the
      // wait only keeps a row that never comes from hanging the test.
      const streamed = tab.locator(CHAT_ROW).first();
      await streamed.waitFor({ timeout: within(REACTS) });
      const answered = contentOf((await first).stdout);

      // Once its answer has ended, the row has its times and the start of the answer beside the
      // question; its detail shows the whole stream.
      await expect.poll(() => streamed.locator('td[data-col="total"]').textContent(), { timeout: within(REACTS) }).toMatch(/\d+ ms$/);
      expect(await streamed.locator('td[data-col="asked"]').textContent()).toBe('Tell me about the dashboard.');
      const preview = (await streamed.locator('td[data-col="answered"]').textContent())!;
      expect(preview.length).toBeGreaterThan(20);
      expect(answered.replace(/\s+/g, ' ').trim().startsWith(preview.replace(/…$/, ''))).toBe(true);
      await streamed.click();
      await tab.waitForSelector('#answer-chunks:not([hidden]) li', { timeout: within(REACTS) });
      expect(await tab.locator('#detail-body').textContent()).toContain('Tell me about the dashboard.');
      const pieces = await tab.locator('#answer-chunks li').count();
      expect(pieces).toBeGreaterThan(5);
      const offsets = (await tab.locator('#answer-chunks .at').allTextContents()).map((t) => Number(/\+([\d.]+) ms/.exec(t)![1]));
      expect(offsets[0]).toBeGreaterThanOrEqual(30);
      expect(offsets.at(-1)!).toBeGreaterThan(offsets[0]);
      expect(await tab.locator('#answer-chunks .text').first().textContent()).toBe('role assistant');
      expect(await tab.locator('#answer-chunks .text').last().textContent()).toBe('[DONE]');
      expect(
        (await tab.locator('#answer-chunks .text').allTextContents())
          .filter((t) => t.startsWith('"'))
          .map((t) => JSON.parse(t))
          .join(''),
      ).toBe(answered);
      expect(await tab.locator('#detail-meta').textContent()).toContain('key alpha');

      const curl = (await tab.locator('#detail-curl').textContent())!;
      expect(curl).toContain('"$MOCK_API_KEY"');
      expect(curl).not.toContain(KEY);
      expect(await tab.content()).not.toContain(KEY);
      const replay = await run('sh', ['-c', curl], { env: { ...process.env, MOCK_API_KEY: KEY } });
      expect(contentOf(replay.stdout)).toBe(answered);
      expect(answered.length).toBeGreaterThan(20);

      // A few more of what an app meets, for the screenshot: a model list, a tool call, a 429, a
      // refusal, a plain answer; each row with the start of what was asked and answered.
      await fetch(`${mock.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
      const weather = {
        type: 'function',
        function: { name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      };
      await chat({ messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [weather] });
      await fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-mock-fault': 'rate-limited; retry_after_ms=500' },
        body,
      });
      await chat({ messages: [{ role: 'robot', content: 'hi' }] });
      await chat({ messages: [{ role: 'user', content: 'Write a haiku about streaming tokens.' }] });
      await slowLong(true);
      await expect.poll(() => tab.locator('#rows tr').count(), { timeout: within(REACTS) }).toBe(8);
      await expect.poll(() => tab.locator(`${row({ done: 'true' })}`).count(), { timeout: within(REACTS) }).toBe(8);
      // The slow one, the latest: a total of seconds (a lower bound: the pace it was given), its model whole.
      expect(await tab.locator('#rows tr').first().locator('td[data-col="total"]').textContent()).toMatch(/^\d{4,} ms$/);
      expect(await tab.locator('#rows tr').first().locator('td[data-col="model"]').textContent()).toBe(LONG_MODEL);
      expect(await tab.locator(`${row({ status: '429' })} td[data-col="answered"]`).textContent()).toMatch(/rate limit/i);
      expect((await tab.locator(`${row({ status: '200' })} td[data-col="answered"]`).allTextContents()).filter((t) => /^get_weather\(\{"city":"[^"]*"\}\)$/.test(t))).toHaveLength(1);
      // No scenario and no content profile of its own here: those columns hide.
      for (const col of ['scenario']) expect(await tab.locator(`#requests th[data-col="${col}"]`).isHidden()).toBe(true);
      for (const col of ['asked', 'answered', 'key', 'faults']) expect(await tab.locator(`#requests th[data-col="${col}"]`).isVisible()).toBe(true);
      // Every column readable at half a laptop's screen and at a laptop's: at 800 px the list scrolls
      // sideways, its outcome and times in view before it is scrolled.
      expect(await readableAt(tab, 800, 900)).toBe(true);
      const totalInView = await tab
        .locator('#table-box')
        .evaluate((b) => b.querySelector('th[data-col="total"]')!.getBoundingClientRect().right <= b.getBoundingClientRect().left + b.clientLeft + b.clientWidth);
      expect(totalInView).toBe(true);
      await readableAt(tab, 1280, 1000);
      mkdirSync(ARTIFACTS, { recursive: true });
      // No row lit by the pointer that clicked: the screenshot shows the open row as selected, alone.
      await tab.mouse.move(0, 0);
      await tab.screenshot({ path: join(ARTIFACTS, 'dashboard.png') });
      if (process.env.UPDATE_DOCS === '1') copyFileSync(join(ARTIFACTS, 'dashboard.png'), join(DOCS, 'dashboard.png'));
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
      await tab.close();
    },
    within(30_000),
  );

  it(
    'sets, from the page, a 429 for the next request, then markdown; reset brings the configured answers back',
    async () => {
      const { tab, problems } = await open();
      const plain = await chat({ messages: [{ role: 'user', content: 'Say something.' }] });
      expect(plain.status).toBe(200);

      // Picked from the catalogue, grouped with what a frontend meets first; the fault's help and a
      // field per parameter, its default shown.
      expect(await tab.locator('#fault optgroup').first().getAttribute('data-kind')).toBe('frontend');
      await tab.selectOption('#fault', 'rate-limited');
      const wait = tab.locator('#fault-params input[data-param="retry_after_ms"]');
      expect(await wait.getAttribute('placeholder')).toBe('1000');
      expect(await tab.locator('#fault-params label').textContent()).toContain('the wait the Retry-After headers ask for');
      expect(await tab.locator('#fault-help').textContent()).toMatch(/^429 with Retry-After/);
      await tab.selectOption('#fault', 'chat-model-other');
      expect(await tab.locator('#fault-params input').count()).toBe(0);
      expect(await tab.locator('#fault-help').textContent()).toContain('Fails chat.model-echo.');

      await tab.selectOption('#fault', 'rate-limited');
      await wait.fill('250');
      await tab.fill('#times', '1');
      await tab.click('#apply');
      await tab.waitForSelector('#in-effect li', { timeout: within(REACTS) });
      expect(await tab.locator('#in-effect li').textContent()).toContain('fault rate-limited; retry_after_ms=250 (1 left)');
      expect(await tab.locator('#control-error').textContent()).toBe('');
      const limited = await fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'Say something.' }] }),
      });
      expect([limited.status, limited.headers.get('retry-after-ms')]).toEqual([429, '250']);
      expect((await chat({ messages: [{ role: 'user', content: 'Say something.' }] })).status).toBe(200);
      // The row of the 429 names the setting that made it.
      await firstRow(tab, { status: '429' }).waitFor({ timeout: within(REACTS) });
      expect(await cellText(tab, { status: '429' }, 'faults')).toMatch(/^rate-limited; retry_after_ms=250 · live #\d+$/);
      // Spent, the setting has ended, on every open page.
      await expect.poll(() => tab.locator('#in-effect li').count(), { timeout: within(REACTS) }).toBe(0);

      // A bad value is refused with the x-mock-fault header's own message.
      await wait.fill('-5');
      await tab.click('#apply');
      await expect
        .poll(() => tab.locator('#control-error').textContent(), { timeout: within(REACTS) })
        .toBe('fault: fault "rate-limited": parameter "retry_after_ms" must be a number of at least 0, not "-5"');

      await tab.selectOption('#fault', '');
      await tab.fill('#times', '');
      await tab.selectOption('#profile', 'markdown');
      await tab.click('#apply');
      await expect.poll(() => tab.locator('#in-effect li').count(), { timeout: within(REACTS) }).toBe(1);
      const marked = await chat({ messages: [{ role: 'user', content: 'Say something.' }] });
      expect(contentOf(marked.text)).not.toBe(contentOf(plain.text));
      expect(contentOf(marked.text)).toMatch(/```|^#+ |^- |\|/m);

      await tab.click('#reset');
      await tab.waitForSelector('#none-in-effect:not([hidden])', { timeout: within(REACTS) });
      expect(await tab.locator('#in-effect li').count()).toBe(0);
      expect(mock.mock.control.get().settings).toEqual([]);
      expect(contentOf((await chat({ messages: [{ role: 'user', content: 'Say something.' }] })).text)).toBe(contentOf(plain.text));
      // The one error the browser may report: the bad fault's deliberate 400.
      expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
      await tab.close();
    },
    within(30_000),
  );

  it(
    'at 800 px wide keeps its search box and one line per streamed event; marks streams; a dropped stream is no green 200; Reset all empties the form',
    async () => {
      mock.mock.journal.clear();
      const { tab, problems } = await open();
      await tab.setViewportSize({ width: 800, height: 900 });
      const long = { model: 'mock-reason-1', messages: [{ role: 'user', content: 'Tell me about the dashboard at length.' }] };
      await chat({ ...long, stream: true });
      const dropped = await fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-mock-fault': 'drop-after; chunks=3' },
        body: JSON.stringify({ ...long, stream: true }),
      });
      await dropped.text().catch(() => undefined);
      await chat({ ...long, messages: [{ role: 'user', content: 'Not streamed.' }] });
      await slowLong(false);
      await expect.poll(() => tab.locator(row({ done: 'true' })).count(), { timeout: within(REACTS) }).toBe(4);
      expect(await tab.locator('#rows tr').first().locator('td[data-col="total"]').textContent()).toMatch(/^\d{4,} ms$/);

      // The search box keeps a width to type in; the selects wrap below it.
      expect((await tab.locator('#filter-text').boundingBox())!.width).toBeGreaterThan(150);
      // A stream is marked as one; a plain answer is not.
      expect(await tab.locator(`${row({ stream: 'true' })} td[data-col="path"] .mark[data-mark="stream"]`).count()).toBe(2);
      expect(await tab.locator(`${row({ stream: 'false' })} .mark`).count()).toBe(0);
      // The stream the mock dropped says so, in the colour of a failure, not a success's green.
      const cut = tab.locator(`${row({ cut: 'true' })} td[data-col="status"]`);
      expect(await cut.textContent()).toBe('200 cut');
      const colour = (sel: string) =>
        tab
          .locator(sel)
          .first()
          .evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color);
      const whole = `${row({ stream: 'true', cut: 'false' })} td[data-col="status"]`;
      expect(await colour(`${row({ cut: 'true' })} td[data-col="status"]`)).not.toBe(await colour(whole));
      expect(await colour(`${row({ cut: 'true' })} td[data-col="status"]`)).toBe('rgb(207, 34, 46)');
      // Ids are read whole: the model column is as wide as its longest id; so is every other column,
      // the list scrolling sideways in its box.
      const model = tab.locator(`${row({ cut: 'false' })} td[data-col="model"]`).first();
      expect(await model.textContent()).toBe(LONG_MODEL);
      expect(await model.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
      expect(await readableAt(tab, 800, 900)).toBe(true);

      // A whole stream open: each event on one line of the time line, whatever its text.
      await tab.locator(row({ stream: 'true', cut: 'false' })).click();
      await tab.waitForSelector('#answer-chunks:not([hidden]) li', { timeout: within(REACTS) });
      expect(await tab.locator('#detail-title').textContent()).toMatch(/→ 200, streamed$/);
      const heights = await tab.locator('#answer-chunks li').evaluateAll((lis) => lis.map((li) => li.getBoundingClientRect().height));
      const line = await tab
        .locator('#answer-chunks .text')
        .first()
        .evaluate((e) => Number.parseFloat(e.ownerDocument.defaultView!.getComputedStyle(e).lineHeight));
      expect(heights.length).toBeGreaterThan(5);
      expect(Math.max(...heights)).toBeLessThan(line * 1.5 + 4);
      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.mouse.move(0, 0);
      await tab.screenshot({ path: join(ARTIFACTS, 'dashboard-narrow.png') });
      if (process.env.UPDATE_DOCS === '1') copyFileSync(join(ARTIFACTS, 'dashboard-narrow.png'), join(DOCS, 'dashboard-narrow.png'));

      // Reset all ends the settings and empties the form: a second Apply sets nothing again.
      await tab.selectOption('#fault', 'rate-limited');
      await tab.locator('#fault-params input[data-param="retry_after_ms"]').fill('250');
      await tab.fill('#times', '2');
      await tab.click('#apply');
      await expect.poll(() => tab.locator('#in-effect li').count(), { timeout: within(REACTS) }).toBe(1);
      await tab.click('#reset');
      await expect.poll(() => tab.locator('#in-effect li').count(), { timeout: within(REACTS) }).toBe(0);
      expect([await tab.inputValue('#fault'), await tab.inputValue('#times'), await tab.locator('#fault-params input').count()]).toEqual(['', '', 0]);
      await tab.click('#apply');
      expect(await tab.locator('#control-error').textContent()).toBe('Choose a fault, a content or a pace first.');
      expect(mock.mock.control.get().settings).toEqual([]);
      expect(problems).toEqual([]);
      await tab.close();
    },
    within(30_000),
  );

  it(
    'shows what a client sent as text: markup in a body, a model or a fault runs nothing and creates no element',
    async () => {
      const { tab, problems } = await open();
      const xss = '<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2</script>';
      await chat({ messages: [{ role: 'user', content: xss }] });
      const refused = await chat({ model: xss, messages: [{ role: 'user', content: 'hi' }] });
      expect(refused.status).toBe(404);
      await firstRow(tab, { status: '404' }).waitFor({ timeout: within(REACTS) });
      expect(await cellText(tab, { status: '404' }, 'model')).toContain('<img src=x onerror=');
      await firstRow(tab, { status: '200' }).click();
      await expect.poll(() => tab.locator('#detail-body').textContent(), { timeout: within(REACTS) }).toContain('onerror');
      expect(await tab.locator('#detail-body').textContent()).toContain(xss.replace(/"/g, '\\"'));
      expect(await cellText(tab, { status: '200' }, 'asked')).toBe(xss);
      await firstRow(tab, { status: '404' }).click();
      await expect.poll(() => tab.locator('#refusal').textContent(), { timeout: within(REACTS) }).toContain('does not exist');
      expect(await tab.locator('#refusal').textContent()).toContain('field model');
      expect(await tab.evaluate('window.__xss')).toBeUndefined();
      expect(await tab.locator('main img, main script').count()).toBe(0);
      expect(problems).toEqual([]);
      await tab.close();
    },
    within(30_000),
  );

  it(
    'rows of requests served before the page opened read as live ones: the same key label, their times, what was asked',
    async () => {
      const stranger = 'sk-not-a-key-of-this-mock-000000000042';
      const unknown = () => fetch(`${mock.url}/v1/models`, { headers: { authorization: `Bearer ${stranger}` } });
      mock.mock.journal.clear();
      expect((await unknown()).status).toBe(401);
      await chat({ stream: true, messages: [{ role: 'user', content: 'Asked before any page was open.' }] });
      const { tab, problems } = await open();
      await expect.poll(() => tab.locator('#rows tr').count(), { timeout: within(REACTS) }).toBe(2);
      const before = tab.locator(row({ status: '401' }));
      const label = (await before.locator('td[data-col="key"]').textContent())!;
      expect(label).toMatch(/^unknown [0-9a-f]{6}$/);
      const history = tab.locator(CHAT_ROW);
      expect(await history.locator('td[data-col="asked"]').textContent()).toBe('Asked before any page was open.');
      for (const r of [before, history]) {
        expect(await r.getAttribute('data-done')).toBe('true');
        expect(await r.locator('td[data-col="ttfb"]').textContent()).toMatch(/^\d+ ms$/);
        expect(await r.locator('td[data-col="total"]').textContent()).toMatch(/^\d+ ms$/);
      }
      // The same key, live: the same label.
      expect((await unknown()).status).toBe(401);
      await expect.poll(() => tab.locator(row({ status: '401' })).count(), { timeout: within(REACTS) }).toBe(2);
      expect(await tab.locator(`${row({ status: '401' })} td[data-col="key"]`).allTextContents()).toEqual([label, label]);
      expect(await tab.content()).not.toContain(stranger);
      expect(problems).toEqual([]);
      await tab.close();
    },
    within(30_000),
  );

  it(
    "the list takes the window's height, beside the detail when one is open",
    async () => {
      const { tab } = await open();
      await chat({ messages: [{ role: 'user', content: 'Fill a row.' }] });
      await tab
        .locator(CHAT_ROW)
        .first()
        .waitFor({ timeout: within(REACTS) });
      const list = tab.locator('#requests .table');
      const bottom = async () => {
        const box = (await list.boundingBox())!;
        return box.y + box.height;
      };
      // Its bottom is the window's, less the section's padding, at any window height.
      for (const height of [1000, 640]) {
        await tab.setViewportSize({ width: 1400, height });
        await expect.poll(bottom, { timeout: within(REACTS) }).toBeGreaterThan(height - 40);
        expect(await bottom()).toBeLessThanOrEqual(height);
      }
      // A request open: the detail takes its share below, the list the rest, the page no more than the window.
      await tab.locator(CHAT_ROW).first().click();
      await tab.waitForSelector('#detail:not([hidden])', { timeout: within(REACTS) });
      const detail = (await tab.locator('#detail').boundingBox())!;
      expect(detail.y + detail.height).toBeLessThanOrEqual(641);
      expect(await bottom()).toBeLessThanOrEqual(detail.y + 1);
      expect((await list.boundingBox())!.height).toBeGreaterThan(150);
      expect(await tab.evaluate('document.documentElement.scrollHeight')).toBeLessThanOrEqual(640);
      await tab.close();
    },
    within(30_000),
  );

  it(
    'a refused request shows which field and which section of the document',
    async () => {
      const { tab } = await open();
      const bad = await chat({ messages: [{ role: 'robot', content: 'hi' }] });
      expect(bad.status).toBe(400);
      await firstRow(tab, { status: '400' }).click();
      await tab.waitForSelector('#refusal:not([hidden])', { timeout: within(REACTS) });
      expect(await tab.locator('#refusal').textContent()).toMatch(/^Refused \(field messages\.0\.role, section 2\.2 of the document\): invalid request: /);
      await tab.close();
    },
    within(30_000),
  );

  it(
    'opens a request 5,000 arrays deep (its start, as text), and says how many requests the bounded journal dropped',
    async () => {
      const small = await startMockServer({ mock: createMock({ ...CONFIG, journal_size: 3 }) });
      try {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on('pageerror', (e) => problems.push(e.message));
        await tab.goto(`${small.url}/__mock/`);
        await tab.waitForSelector('#connection[data-state="live"]', { timeout: within(REACTS) });
        expect(await tab.locator('#dropped').getAttribute('data-dropped')).toBe('0');
        const send = (body: string) => fetch(`${small.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body });
        for (let i = 0; i < 4; i++) await (await send(JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: `n${i}` }] }))).text();
        const deep = await send(`{"model":"mock-chat-1","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(5000)}${']'.repeat(5000)}}`);
        expect(deep.status).toBe(400);
        await deep.text();
        await tab.waitForSelector('#dropped[data-dropped="2"]:not([hidden])', { timeout: within(REACTS) });
        await tab.locator('#rows tr[data-seq="5"]').click();
        await tab.waitForSelector('#body-cut[data-kept="start"]:not([hidden])', { timeout: within(REACTS) });
        expect(await tab.locator('#detail-body').textContent()).toMatch(/^\{"model":"mock-chat-1","messages":\[\{"role":"user","content":"hi"\}\],"x":\[\[\[/);
        expect(problems).toEqual([]);
        await tab.close();
      } finally {
        await small.close();
      }
    },
    within(30_000),
  );

  it(
    'a page of another site cannot use the control API, and a foreign name cannot serve the dashboard',
    async () => {
      const tab = await browser.newPage();
      await tab.goto(`http://evil.test:${sitePort}/`);
      const tried = await tab.evaluate(async (mockUrl) => {
        const out: Record<string, string> = {};
        const attempt = async (name: string, f: () => Promise<Response>) => {
          try {
            const r = await f();
            out[name] = r.type === 'opaque' ? 'opaque' : `read ${r.status}`;
          } catch (e) {
            out[name] = `blocked (${(e as Error).name})`;
          }
        };
        const json = { 'content-type': 'application/json' };
        const setting = JSON.stringify({ fault: 'server-error' });
        await attempt('read', () => fetch(`${mockUrl}/__mock/control`));
        await attempt('set', () => fetch(`${mockUrl}/__mock/control`, { method: 'POST', headers: json, body: setting }));
        await attempt('replace', () => fetch(`${mockUrl}/__mock/control`, { method: 'PUT', headers: json, body: JSON.stringify({ settings: [{ fault: 'server-error' }] }) }));
        await attempt('reset', () => fetch(`${mockUrl}/__mock/control`, { method: 'DELETE' }));
        await attempt('set as a simple request', () => fetch(`${mockUrl}/__mock/control`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: setting }));
        await attempt('set in no-cors mode', () => fetch(`${mockUrl}/__mock/control`, { method: 'POST', mode: 'no-cors', body: setting }));
        await attempt('events', () => fetch(`${mockUrl}/__mock/events`));
        await attempt('detail', () => fetch(`${mockUrl}/__mock/requests/1`));
        return out;
      }, mock.url);
      await tab.close();
      expect(tried).toEqual({
        read: 'blocked (TypeError)',
        set: 'blocked (TypeError)',
        replace: 'blocked (TypeError)',
        reset: 'blocked (TypeError)',
        'set as a simple request': 'blocked (TypeError)',
        'set in no-cors mode': 'opaque',
        events: 'blocked (TypeError)',
        detail: 'blocked (TypeError)',
      });
      expect(mock.mock.control.get().settings).toEqual([]);
      // DNS rebinding: the mock's own port under a foreign name.
      const rebound = await browser.newPage();
      expect((await rebound.goto(`http://evil.test:${new URL(mock.url).port}/__mock/`))?.status()).toBe(403);
      await rebound.close();
    },
    within(30_000),
  );

  it(
    "comes back by itself after the mock restarts, with the new mock's journal",
    async () => {
      const { tab } = await open();
      await chat({ messages: [{ role: 'user', content: 'before the restart' }] });
      await tab
        .locator('#rows tr')
        .first()
        .waitFor({ timeout: within(REACTS) });
      const port = Number(new URL(mock.url).port);
      await mock.close();
      await tab.waitForSelector('#connection[data-state="reconnecting"]', { timeout: within(REACTS) });
      mock = await startMockServer({ mock: createMock(CONFIG), port });
      await tab.waitForSelector('#connection[data-state="live"]', { timeout: within(REACTS) });
      await expect.poll(() => tab.locator('#rows tr').count(), { timeout: within(REACTS) }).toBe(0);
      await chat({ messages: [{ role: 'user', content: 'after the restart' }] });
      await tab
        .locator('#rows tr')
        .first()
        .waitFor({ timeout: within(REACTS) });
      expect(await tab.locator('#rows tr').count()).toBe(1);
      await tab.close();
    },
    within(30_000),
  );
});
