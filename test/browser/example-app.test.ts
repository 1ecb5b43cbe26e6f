// The example chat page (examples/browser) in a real browser, headless Chromium from Debian's
// packages: built with Vite as an app would be, served from one origin, talking to `conformance
// mock` on another (CORS) and to the mock installed in the page. The reply arrives token by token
// (markdown rendered, emoji cut across reads arriving whole), the 429 is retried, the stream's
// error surfaces, a tool call makes its second turn, and the console stays clean. A screenshot per mode is kept in artifacts/.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { browserRuns, CHROMIUM } from '../support/chromium.js';
import { within } from '../support/machine.js';

const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/browser/', import.meta.url));
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));

/** `conformance mock --config FILE --port 0`, its URL read from the banner. */
function startCli(config: string): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'mock', '--config', config, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
      const url = /mock listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, close: () => (child.kill('SIGTERM'), exited) });
    });
    child.once('exit', (code) => reject(new Error(`conformance mock exited ${code}: ${out}`)));
  });
}

/** The built page, served as static files from an origin of its own. */
async function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.skipIf(!browserRuns)('the example chat page in headless Chromium', () => {
  let browser: Browser;
  let site: { url: string; server: Server };
  let api: { url: string; close(): Promise<void> };
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'example-app-'));
    await build({ root: EXAMPLE, configFile: join(EXAMPLE, 'vite.config.ts'), logLevel: 'silent', build: { outDir: out, emptyOutDir: true } });
    site = await serveStatic(out);
    // `conformance mock` as a frontend team starts it, with the pace the page gives its own mock.
    const config = join(out, 'mock.json');
    writeFileSync(config, JSON.stringify({ ...DEFAULT_CONFIG, timing: { ttft_ms: 120, tokens_per_second: 120 } }));
    api = await startCli(config);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  }, within(120_000));
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    site?.server.close();
    rmSync(out, { recursive: true, force: true });
  });

  for (const mode of ['http', 'page'] as const) {
    it(
      `works against the mock ${mode === 'http' ? 'over HTTP from another origin' : 'installed in the page'}`,
      async () => {
        const tab = await browser.newPage({ viewport: { width: 900, height: 1000 } });
        const problems: string[] = [];
        // The deliberate 429 is the one network error the browser may report.
        tab.on('console', (m) => m.type() === 'error' && !/status of 429/.test(m.text()) && problems.push(m.text()));
        tab.on('pageerror', (e) => problems.push(e.message));
        const outside: string[] = [];
        tab.on('request', (r) => !r.url().startsWith(site.url) && !r.url().startsWith(api.url) && outside.push(r.url()));
        await tab.goto(`${site.url}/?mode=${mode}&base=${encodeURIComponent(api.url)}`);
        // The page's status line says when a job is over (the functions run in the page).
        const settled = (job: string) => tab.waitForFunction(`/^${job}: (done|failed)$/.test(document.getElementById('status').textContent)`, undefined, { timeout: within(15_000) });
        await tab.waitForFunction(`document.getElementById('status').textContent === 'ready'`, undefined, { timeout: within(15_000) });

        // Token by token: many paints, each longer than the last, paced as the mock was told. A busy
        // machine may hand the page several chunks in one task, so the pace is held from the click:
        // a timer fires late, never early, and the last token cannot come before the first token's
        // 120 ms and ten more at 120 a second.
        const clicked = (await tab.evaluate('performance.now()')) as number;
        await tab.click('#send');
        await settled('reply');
        expect(await tab.locator('#status').textContent()).toBe('reply: done');
        const deltas = (await tab.evaluate('window.chatPage.deltas')) as { at: number; length: number }[];
        expect(deltas.length).toBeGreaterThan(10);
        expect(deltas.at(-1)!.at - clicked).toBeGreaterThan(120 + (10 * 1000) / 120);
        for (let i = 1; i < deltas.length; i++) expect(deltas[i].length).toBeGreaterThan(deltas[i - 1].length);
        const text = (await tab.evaluate('window.chatPage.text')) as string;
        expect(text.length).toBe(deltas.at(-1)!.length);
        expect((await tab.locator('#reply').textContent())!.length).toBeGreaterThan(0);

        await tab.click('#tool-demo');
        await settled('tool');
        expect(await tab.locator('#tool').textContent()).toMatch(/^get_weather\(\{"city":".*"\}\)\n→ \S/);

        await tab.click('#retry-demo');
        await settled('retry');
        expect(await tab.locator('#retry').textContent()).toMatch(/^answered after 2 attempts: \S/);

        await tab.click('#error-demo');
        await settled('stream error');
        expect(await tab.locator('#status').textContent()).toBe('stream error: failed');
        expect(await tab.locator('#error').textContent()).toMatch(/^stream error: .+/);
        // The chunks before the error were painted, the rest never came.
        expect((await tab.locator('#reply').textContent())!.length).toBeGreaterThan(0);

        // Emoji, CJK and right-to-left text with every event cut inside its characters: they arrive
        // whole, the same text as unsplit.
        await tab.selectOption('#content', 'unicode');
        await tab.fill('#prompt', 'Say hello.');
        await tab.click('#send');
        await settled('reply');
        const whole = (await tab.evaluate('window.chatPage.text')) as string;
        await tab.check('#split');
        await tab.click('#send');
        await settled('reply');
        const split = (await tab.evaluate('window.chatPage.text')) as string;
        expect(split).toBe(whole);
        expect(split).not.toContain('\uFFFD');
        expect(split).toMatch(/\p{Extended_Pictographic}/u);
        expect(await tab.locator('#reply').textContent()).toContain(
          split
            .split('\n\n')
            .find((p) => /\p{Extended_Pictographic}/u.test(p))!
            .trim(),
        );
        await tab.uncheck('#split');

        // A markdown reply, rendered as it streams: a code block, a list and a table reach the DOM.
        await tab.selectOption('#content', 'markdown');
        await tab.fill('#prompt', 'Write a long, detailed answer about streaming.');
        await tab.click('#send');
        await settled('reply');
        expect(await tab.locator('#reply pre code').count()).toBeGreaterThan(0);
        expect(await tab.locator('#reply ul li, #reply ol li').count()).toBeGreaterThan(0);
        expect(await tab.locator('#reply table').count()).toBeGreaterThan(0);

        mkdirSync(ARTIFACTS, { recursive: true });
        await tab.screenshot({ path: join(ARTIFACTS, `example-app-${mode}.png`), fullPage: true });
        expect(problems).toEqual([]);
        expect(outside).toEqual([]);
        await tab.close();
      },
      within(60_000),
    );
  }
});
