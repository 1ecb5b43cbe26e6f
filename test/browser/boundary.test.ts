// The mock's local boundary in a real browser, headless Chromium from Debian's packages, with a
// made-up name (evil.test) mapped to 127.0.0.1 by Chromium itself, so no network is needed:
// (a) a page of another site cannot read the journal, nor make the recorder call the upstream with
//     the developer's key, by fetch, a form, an image or a no-cors request;
// (b) a page whose origin is the mock's own port under a foreign name (DNS rebinding) gets 403s;
// (c) a page on a localhost origin still streams a reply, through the mock and the recorder;
// (d) a page of another site that frames (<iframe>, <object>) or navigates to the recorder or the
//     mock gets 403s: the upstream receives nothing, whatever the path, and the mock writes no
//     journal line and spends no live setting.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { startRecorder, type Recorder } from '../../mock/record/server.js';
import { startCountingUpstream, type CountingUpstream } from '../support/counting-upstream.js';
import { browserRuns, CHROMIUM } from '../support/chromium.js';
import { within } from '../support/machine.js';

const KEY = DEFAULT_CONFIG.keys[0].key;
const UPSTREAM_KEY = 'sk-upstream-real-key-000000000000000042';
const MARKER = 'journal-secret-marker-7781';

/** Which requests a server got and what it answered. */
function watch(server: Server): string[] {
  const seen: string[] = [];
  server.on('request', (req, res) => res.once('finish', () => seen.push(`${req.method} ${req.url} ${res.statusCode}`)));
  return seen;
}

describe.skipIf(!browserRuns)('the mock and the recorder in headless Chromium, against pages of other sites', () => {
  let browser: Browser;
  let upstream: CountingUpstream;
  let mock: MockServer;
  let recorder: Recorder;
  let site: Server;
  let sitePort: number;
  let dir: string;
  let mockSeen: string[];
  let recorderSeen: string[];
  const port = (url: string) => new URL(url).port;

  beforeAll(async () => {
    upstream = await startCountingUpstream();
    mock = await startMockServer({ mock: createMock({ ...DEFAULT_CONFIG, timing: { ttft_ms: 30, tokens_per_second: 400 } }) });
    dir = mkdtempSync(join(tmpdir(), 'boundary-browser-'));
    recorder = await startRecorder({ dir, mode: 'record', upstream: upstream.url, upstreamKey: UPSTREAM_KEY });
    // Something private in the journal, as a developer's app leaves there.
    await (
      await fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: MARKER }] }),
      })
    ).text();
    mockSeen = watch(mock.server);
    recorderSeen = watch(recorder.server);
    // The other site's page (and the developer's own, on localhost): an empty document to run in.
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a page</title><iframe name="sink"></iframe>'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    sitePort = (site.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
    });
  }, within(60_000));
  afterAll(async () => {
    await browser?.close();
    await recorder?.close();
    await mock?.close();
    await upstream?.close();
    site?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    '(a) a page of http://evil.test cannot read the journal nor make the recorder call the upstream',
    async () => {
      const tab = await browser.newPage();
      await tab.goto(`http://evil.test:${sitePort}/`);
      const tried = await tab.evaluate(
        async ({ mockUrl, recorderUrl, key }) => {
          const out: Record<string, string> = {};
          const body = JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'spend the key' }] });
          const attempt = async (name: string, f: () => Promise<Response>) => {
            try {
              const r = await f();
              out[name] = r.type === 'opaque' ? 'opaque' : `read ${r.status}: ${(await r.text()).slice(0, 80)}`;
            } catch (e) {
              out[name] = `blocked (${(e as Error).name})`;
            }
          };
          await attempt('journal', () => fetch(`${mockUrl}/__mock/requests`));
          await attempt('clear the journal', () => fetch(`${mockUrl}/__mock/requests`, { method: 'DELETE' }));
          await attempt('chat with a key', () =>
            fetch(`${recorderUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body }),
          );
          await attempt('chat as a simple request', () => fetch(`${recorderUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body }));
          await attempt('chat in no-cors mode', () => fetch(`${recorderUrl}/v1/chat/completions`, { method: 'POST', mode: 'no-cors', body }));
          // Ways that need no script's reading at all: an image, and a form posted into a frame.
          // (This function runs in the page; the tests are type-checked without the DOM's types.)
          const { document, Image } = globalThis as unknown as { document: any; Image: new () => { onload: unknown; onerror: unknown; src: string } };
          await new Promise((r) => {
            const img = new Image();
            img.onload = img.onerror = r;
            img.src = `${recorderUrl}/v1/models`;
          });
          await new Promise((r) => {
            const frame = document.querySelector('iframe')!;
            frame.onload = r;
            const form = Object.assign(document.createElement('form'), { method: 'POST', action: `${recorderUrl}/v1/chat/completions`, enctype: 'text/plain', target: 'sink' });
            const field = Object.assign(document.createElement('input'), { type: 'hidden', name: '{"model":"mock-chat-1","messages":[{"role":"user","content":"x', value: '"}]}' });
            form.append(field);
            document.body.append(form);
            form.submit();
          });
          return out;
        },
        { mockUrl: mock.url, recorderUrl: recorder.url, key: KEY },
      );
      await tab.close();
      expect(tried).toEqual({
        journal: 'blocked (TypeError)',
        'clear the journal': 'blocked (TypeError)',
        'chat with a key': 'blocked (TypeError)',
        'chat as a simple request': 'blocked (TypeError)',
        'chat in no-cors mode': 'opaque',
      });
      // The requests the browser did send reached the servers and were refused there; none went on.
      expect(mockSeen).toEqual(['GET /__mock/requests 403', 'OPTIONS /__mock/requests 403']);
      expect(recorderSeen).toEqual(['OPTIONS /v1/chat/completions 403', 'POST /v1/chat/completions 403', 'POST /v1/chat/completions 403', 'GET /v1/models 403', 'POST /v1/chat/completions 403']);
      expect(upstream.seen).toEqual([]);
      expect(mock.mock.journal.list()).toHaveLength(1);
    },
    within(30_000),
  );

  it(
    '(b) a page served as http://evil.test:MOCKPORT (DNS rebinding: the same port, a foreign name) gets 403s it can read',
    async () => {
      mockSeen.length = 0;
      recorderSeen.length = 0;
      for (const [server, seen] of [
        [mock, mockSeen],
        [recorder, recorderSeen],
      ] as const) {
        const tab = await browser.newPage();
        // The attacker's page, now resolving to this machine: same origin as the mock, so it reads what it gets.
        const landing = await tab.goto(`http://evil.test:${port(server.url)}/`);
        expect(landing?.status()).toBe(403);
        const got = await tab.evaluate(async (key) => {
          const answers = [
            await fetch('/__mock/requests'),
            await fetch('/v1/chat/completions', {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'hi' }] }),
            }),
            await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } }),
          ];
          return Promise.all(answers.map(async (r) => ({ status: r.status, error: ((await r.json()) as { error: { code: string; message: string } }).error })));
        }, KEY);
        await tab.close();
        for (const g of got) {
          expect(g.status).toBe(403);
          expect(g.error.code).toBe('host_not_allowed');
          expect(g.error.message).toContain('--allowed-host evil.test');
          expect(g.error.message).not.toContain(MARKER);
        }
        expect(seen).toEqual(['GET / 403', 'GET /__mock/requests 403', 'POST /v1/chat/completions 403', 'GET /v1/models 403']);
      }
      expect(upstream.seen).toEqual([]);
      expect(mock.mock.journal.list()).toHaveLength(1);
    },
    within(30_000),
  );

  it(
    "(d) frames, objects and navigations of a page of http://evil.test reach neither the upstream nor the mock's journal or live settings",
    async () => {
      mockSeen.length = 0;
      recorderSeen.length = 0;
      mock.mock.control.set({ fault: 'server-error', times: 1 });
      const tab = await browser.newPage();
      await tab.goto(`http://evil.test:${sitePort}/`);
      const paths = ['/v1/files', '/v1/organization/usage', '/v1/models', '/v1/chat/completions'];
      await tab.evaluate(
        async ({ mockUrl, recorderUrl, paths }) => {
          // (Runs in the page; the tests are type-checked without the DOM's types.)
          const { document } = globalThis as unknown as { document: any };
          const load = (tag: 'iframe' | 'object', url: string) =>
            new Promise((r) => {
              const e = document.createElement(tag);
              e.onload = e.onerror = r;
              setTimeout(r, 3000);
              if (tag === 'iframe') e.src = url;
              else e.data = url;
              document.body.append(e);
            });
          for (const path of paths) {
            await load('iframe', `${recorderUrl}${path}`);
            await load('object', `${recorderUrl}${path}`);
          }
          await load('iframe', `${mockUrl}/v1/models`);
          await load('object', `${mockUrl}/models.json`);
        },
        { mockUrl: mock.url, recorderUrl: recorder.url, paths },
      );
      // The page itself navigated to the recorder (a link followed, location set): refused, and readable as a 403.
      const [landing] = await Promise.all([
        tab.waitForNavigation(),
        tab.evaluate((url) => ((globalThis as unknown as { location: { href: string } }).location.href = url), `${recorder.url}/v1/models`),
      ]);
      expect(landing?.status()).toBe(403);
      expect(((await landing!.json()) as { error: { code: string } }).error.code).toBe('cross_site_navigation');
      await tab.close();
      expect(recorderSeen.length).toBeGreaterThanOrEqual(paths.length * 2 + 1);
      expect(recorderSeen.every((s) => s.endsWith(' 403'))).toBe(true);
      expect(mockSeen.sort()).toEqual(['GET /models.json 403', 'GET /v1/models 403']);
      expect(upstream.seen).toEqual([]);
      expect(mock.mock.journal.list()).toHaveLength(1);
      expect(mock.mock.control.get().settings[0].left).toEqual({ fault: 1 });
      mock.mock.control.reset();
    },
    within(30_000),
  );

  it(
    '(c) a page on a localhost origin streams a reply from the mock, reads the journal, and records through the recorder',
    async () => {
      const tab = await browser.newPage();
      await tab.goto(`http://localhost:${sitePort}/`);
      const got = await tab.evaluate(
        async ({ mockUrl, recorderUrl, key }) => {
          const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
          const res = await fetch(`${mockUrl}/v1/chat/completions`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ model: 'mock-chat-1', stream: true, messages: [{ role: 'user', content: 'Tell me a long story.' }] }),
          });
          const reader = res.body!.getReader();
          const decoder = new TextDecoder();
          let text = '';
          let reads = 0;
          for (let r = await reader.read(); !r.done; r = await reader.read()) {
            reads++;
            text += decoder.decode(r.value, { stream: true });
          }
          const journal = (await (await fetch(`${mockUrl}/__mock/requests`)).json()) as { data: unknown[] };
          const recorded = (await (
            await fetch(`${recorderUrl}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'Hello.' }] }) })
          ).json()) as { choices: { message: { content: string } }[] };
          return {
            status: res.status,
            reads,
            events: text.split('\n\n').filter((e) => e.startsWith('data: {')).length,
            done: text.trimEnd().endsWith('data: [DONE]'),
            journal: journal.data.length,
            recorded: recorded.choices[0].message.content,
          };
        },
        { mockUrl: mock.url, recorderUrl: recorder.url, key: KEY },
      );
      await tab.close();
      expect(got.status).toBe(200);
      expect(got.reads).toBeGreaterThan(5);
      expect(got.events).toBeGreaterThan(5);
      expect(got.done).toBe(true);
      expect(got.journal).toBe(2);
      expect(got.recorded).toBe('From the upstream.');
      expect(upstream.seen.map((r) => [r.method, r.path, r.authorization === `Bearer ${UPSTREAM_KEY}`])).toEqual([['POST', '/v1/chat/completions', true]]);
    },
    within(30_000),
  );
});
