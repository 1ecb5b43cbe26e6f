// Where the browser client runs: a page the kit serves on 127.0.0.1 (the installed openai package
// bundled into one module by esbuild, as a frontend's build serves it), opened in headless Chromium
// through playwright-core. One module, not the package's 299 as installed, which Chromium loads anew
// in every page, five times slower (docs/clients.md, "The browser client").
// The page's origin is another than the API's, so every request of its flows is a cross-origin one,
// and CORS is judged as a browser judges it. Under a host name of the user's choice (their app's),
// Chromium maps it to 127.0.0.1, and the API sees that origin.
import { existsSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Playwright = typeof import('playwright-core');
export type Page = import('playwright-core').Page;
type Browser = import('playwright-core').Browser;
type Context = import('playwright-core').BrowserContext;

/** Debian's headless Chromium, as the kit's browser tests drive it; CONFORMANCE_CHROMIUM names another. */
export const CHROMIUM = process.env.CONFORMANCE_CHROMIUM || '/usr/bin/chromium-headless-shell';
/** How to get one, said where it is missing. */
export const CHROMIUM_HOW = `no Chromium at ${CHROMIUM}: apt-get install chromium-headless-shell (Debian, Ubuntu), or set CONFORMANCE_CHROMIUM to a Chromium or Chrome binary`;

const PAGE = '<!doctype html><meta charset="utf-8"><title>conformance clients</title><script type="module">import OpenAI from "/openai.mjs"; window.OpenAI = OpenAI; window.ready = true;</script>';

/** The least a page is given to open, whatever --timeout is: a browser's start is not a request. */
const PAGE_MIN_MS = 10_000;

/** The folder of the installed openai package, from its entry point. */
export function openaiFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('openai')));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return realpathSync(dir);
}

/** The installed openai package as one ES module for the browser, its default export the client class. */
export async function bundleOpenai(folder: string): Promise<string> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({ entryPoints: [join(folder, 'index.mjs')], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  return out.outputFiles[0].text;
}

/** A browser and the kit's page, opened once per run and host, closed with the run. */
export class PageHost {
  private browser?: Promise<Browser>;
  /** One context for the run's pages: the SDK's modules are fetched once, then come from its cache. */
  private context?: Promise<Context>;
  private server?: Promise<{ server: Server; port: number }>;

  constructor(
    private readonly playwright: Playwright,
    /** The SDK's bundle (bundleOpenai). */
    private readonly openai: string,
    private readonly host = '127.0.0.1',
  ) {}

  /** A fresh page of the kit's origin with the SDK loaded as `window.OpenAI`, within the run's
   * deadline of a request (--timeout), as the page's own requests are; 10 s at the least. */
  async page(timeoutMs: number): Promise<Page> {
    const timeout = Math.max(PAGE_MIN_MS, timeoutMs);
    this.browser ??= this.launch();
    this.context ??= this.browser.then((b) => b.newContext());
    this.server ??= this.serve();
    const [context, { port }] = await Promise.all([this.context, this.server]);
    const page = await context.newPage();
    await page.goto(`http://${this.host}:${port}/`, { timeout });
    // Run in the page: its global is the window, which Node's types do not know.
    await page.waitForFunction(() => (globalThis as unknown as { ready?: boolean }).ready === true, undefined, { timeout });
    return page;
  }

  async close(): Promise<void> {
    const [browser, server] = await Promise.allSettled([this.browser, this.server]);
    if (browser.status === 'fulfilled') await browser.value?.close();
    if (server.status === 'fulfilled' && server.value) {
      server.value.server.closeAllConnections();
      await new Promise((r) => server.value!.server.close(r));
    }
  }

  private launch(): Promise<Browser> {
    const names = this.host === '127.0.0.1' ? [] : [`--host-resolver-rules=MAP ${this.host} 127.0.0.1`];
    return this.playwright.chromium.launch({
      executablePath: CHROMIUM,
      // The browser is the run's to close: Playwright's own handlers would end the process at the
      // first Ctrl-C, before the run writes what finished.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      // A container has no sandbox to give; nothing is fetched by the browser itself.
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', ...names],
    });
  }

  /** The page and the SDK's bundle, nothing else. */
  private async serve(): Promise<{ server: Server; port: number }> {
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      if (path !== '/openai.mjs') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600, immutable' }).end(this.openai);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { server, port: (server.address() as AddressInfo).port };
  }
}
