// The dashboard's routes on the node:http adapter: the page and its files (small, local, a strict
// CSP), the event stream (rows and control state; nothing followed while no page listens), one
// request's detail and its curl (the key as $MOCK_API_KEY, never the key), and --no-dashboard.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ASSET_PATHS, PAGE_DIR } from '../../mock/dashboard/assets.js';
import type { Row } from '../../mock/dashboard/live.js';
import { CHAT, KEY, MODEL, serverPerTest, user } from './helpers.js';
import { within } from '../support/machine.js';

const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));

/** A page's event stream, read as it comes: each event's name and data. */
async function listen(
  url: string,
): Promise<{ events: { event: string; data: string }[]; text: () => string; close(): void; until(f: (e: { event: string; data: string }) => boolean): Promise<void> }> {
  const ctl = new AbortController();
  const res = await fetch(`${url}/__mock/events`, { signal: ctl.signal });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: { event: string; data: string }[] = [];
  let text = '';
  let buffer = '';
  const waiters: (() => void)[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const piece = decoder.decode(chunk, { stream: true });
        text += piece;
        buffer += piece;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data !== undefined) events.push({ event, data });
        }
        waiters.splice(0).forEach((w) => w());
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    text: () => text,
    close: () => ctl.abort(),
    until: async (f) => {
      // A guard against an event that never comes, not a speed: the wait ends when it comes.
      const deadline = Date.now() + within(15_000);
      while (!events.some(f)) {
        if (Date.now() > deadline) throw new Error(`no such event in ${JSON.stringify(events)}`);
        await new Promise<void>((r) => (waiters.push(r), setTimeout(r, 50)));
      }
    },
  };
}

const post = (url: string, body: unknown, key = KEY) =>
  fetch(`${url}${CHAT}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the page', () => {
  const server = serverPerTest();

  it('is served at /__mock/ with a strict CSP, nosniff, no referrer and no CORS grant; its files are small and local', async () => {
    const { url } = await server();
    let total = 0;
    for (const path of ASSET_PATHS) {
      const res = await fetch(`${url}/__mock/${path}`, { headers: { origin: 'http://localhost:5173' } });
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const text = await res.text();
      total += Buffer.byteLength(text);
      // Nothing from another origin (the SVG's own namespace is no request).
      expect(text.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\/|\/\/[a-z]/i);
      // No inline script or style for the CSP to refuse.
      if (path === '') expect(text).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/);
    }
    expect(total).toBeLessThan(150 * 1024);
    expect((await fetch(`${url}/__mock`)).status).toBe(200);
    expect((await fetch(`${url}/__mock/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(405);
    // The page's script is what the build made of mock/dashboard/page/app.ts, shipped as it is.
    expect(readFileSync(join(PAGE_DIR, 'app.js'), 'utf8')).toContain('/__mock/events');
  });

  it('is off with dashboard: false (a 404 JSON error), while the control API stays', async () => {
    const { url } = await server({ dashboard: false });
    for (const path of ['/__mock/', '/__mock', '/__mock/dashboard.js', '/__mock/events', '/__mock/requests/1']) {
      const res = await fetch(`${url}${path}`);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 404, 'application/json']);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    expect((await fetch(`${url}/__mock/control`)).status).toBe(200);
  });
});

describe('the event stream and the detail', () => {
  const server = serverPerTest();

  it('says of each answer whether it ended whole or was cut (a stream the mock dropped), a page open or not', async () => {
    const { url } = await server();
    const stream = (fault?: string) =>
      fetch(`${url}${CHAT}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...(fault ? { 'x-mock-fault': fault } : {}) },
        body: JSON.stringify({ model: MODEL, stream: true, ...user('Tell me a long story.') }),
      }).then((r) => r.text().catch(() => 'cut'));
    await stream('drop-after; chunks=3');
    await stream();
    const page = await listen(url);
    await stream('drop-after; chunks=3');
    const rows = async () => {
      await page.until((e) => e.event === 'rows' && JSON.parse(e.data).some((r: Row) => r.seq === 3 && r.cut !== null));
      return new Map(
        page.events
          .filter((e) => e.event === 'rows')
          .flatMap((e) => JSON.parse(e.data) as Row[])
          .map((r) => [r.seq, r.cut]),
      );
    };
    // Before the page opened (from the trail), then while it listened: the status is 200 each time.
    expect(Object.fromEntries(await rows())).toEqual({ 1: true, 2: false, 3: true });
    page.close();
  });

  it('times requests while no page listens; a page gets the state, the latest rows as a live page shows them, then each request', async () => {
    const { url } = await server();
    await (await post(url, { model: MODEL, ...user('before any page') })).text();
    const page = await listen(url);
    await page.until((e) => e.event === 'rows');
    expect(page.events.map((e) => e.event).slice(0, 3)).toEqual(['hello', 'control', 'rows']);
    const [history] = JSON.parse(page.events[2].data);
    // Its times and what was asked, though no page saw it; its answer was not kept.
    expect(history).toMatchObject({ seq: 1, key: 'alpha', model: MODEL, status: 200, asked: 'before any page', answered: null });
    expect(history.total_ms).toBeGreaterThanOrEqual(history.ttfb_ms);
    expect(history.ttfb_ms).toBeGreaterThanOrEqual(0);
    await (await post(url, { model: MODEL, stream: true, ...user('with a page') })).text();
    await page.until((e) => e.event === 'rows' && JSON.parse(e.data).some((r: { seq: number; total_ms: number | null }) => r.seq === 2 && r.total_ms !== null));
    await fetch(`${url}/__mock/control`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'markdown', times: 1 }) });
    await page.until((e) => e.event === 'control' && JSON.parse(e.data).settings.length === 1);
    // A key the mock does not know: told apart by a salted hash, never shown.
    const stranger = 'sk-not-a-key-of-this-mock-00000000001';
    expect((await post(url, { model: MODEL, ...user('who?') }, stranger)).status).toBe(401);
    await page.until((e) => e.event === 'rows' && JSON.parse(e.data).some((r: { seq: number }) => r.seq === 3));
    const row = page.events
      .filter((e) => e.event === 'rows')
      .flatMap((e) => JSON.parse(e.data))
      .find((r: { seq: number }) => r.seq === 3);
    expect(row).toMatchObject({ key_id: null, key: expect.stringMatching(/^unknown [0-9a-f]{6}$/), status: 401, error: { code: 'invalid_api_key' } });
    page.close();
    expect(page.text()).not.toContain(KEY);
    expect(page.text()).not.toContain(stranger);
  });

  it('a row shows the start of the last user message and of the answer: text, a call, an error', async () => {
    const { url } = await server();
    const page = await listen(url);
    await page.until((e) => e.event === 'rows');
    const long = `${'A question that goes on. '.repeat(10)}The end.`;
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
    const sent = [
      {
        model: MODEL,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Repeat exactly: one  two\nthree' },
        ],
      },
      { model: MODEL, stream: true, ...user('Repeat exactly: streamed words') },
      { model: MODEL, ...user(long) },
      { model: MODEL, ...user('weather?'), tools: [weather], tool_choice: 'required' },
      { model: MODEL, stream: true, ...user('weather, streamed?'), tools: [weather], tool_choice: 'required' },
      { model: 'no-such-model', ...user('who answers?') },
    ];
    for (const body of sent) await (await post(url, body)).text();
    await page.until((e) => e.event === 'rows' && JSON.parse(e.data).some((r: Row) => r.seq === sent.length && r.total_ms !== null));
    const latest = new Map<number, Row>();
    for (const e of page.events.filter((e) => e.event === 'rows')) for (const r of JSON.parse(e.data) as Row[]) latest.set(r.seq, r);
    const rows = [...latest.values()].sort((a, b) => a.seq - b.seq);
    expect(rows.map((r) => r.asked)).toEqual(['Repeat exactly: one two three', 'Repeat exactly: streamed words', `${long.slice(0, 119)}…`, 'weather?', 'weather, streamed?', 'who answers?']);
    expect(rows[0].answered).toBe('one two three');
    expect(rows[1].answered).toBe('streamed words');
    for (const r of [rows[3], rows[4]]) expect(r.answered).toMatch(/^get_weather\(\{"city":"[^"]*"\}\)$/);
    expect(rows[5].answered).toBe("The model 'no-such-model' does not exist or you do not have access to it.");
    page.close();
  });

  it("a request's detail: its body, its answer (a stream's pieces with their times), its curl with $MOCK_API_KEY", async () => {
    const { url } = await server();
    // Served while no page listened: the entry and a curl, no answer.
    await (await post(url, { model: MODEL, ...user('unseen') })).text();
    const unseen = (await (await fetch(`${url}/__mock/requests/1`)).json()) as { answer: unknown; curl: string; entry: { body: unknown } };
    expect(unseen.answer).toBeNull();
    expect(unseen.entry.body).toEqual({ model: MODEL, ...user('unseen') });
    expect(unseen.curl).toContain(`'authorization: Bearer '"$MOCK_API_KEY"`);
    const page = await listen(url);
    await page.until((e) => e.event === 'rows');
    await (
      await fetch(`${url}${CHAT}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-mock-content': 'code' },
        body: JSON.stringify({ model: MODEL, stream: true, ...user('seen') }),
      })
    ).text();
    await page.until((e) => e.event === 'rows' && JSON.parse(e.data).some((r: { seq: number; total_ms: number | null }) => r.seq === 2 && r.total_ms !== null));
    const text = await (await fetch(`${url}/__mock/requests/2`)).text();
    expect(text).not.toContain(KEY);
    const seen = JSON.parse(text) as { answer: { status: number; chunks: { at_ms: number; text: string }[]; ttfb_ms: number; total_ms: number }; curl: string };
    expect(seen.answer.status).toBe(200);
    expect(seen.answer.chunks.at(-1)!.text).toBe('data: [DONE]\n\n');
    expect(seen.answer.total_ms).toBeGreaterThanOrEqual(seen.answer.ttfb_ms);
    expect(seen.curl).toContain("-H 'x-mock-content: code'");
    expect(seen.curl).toContain(`-X POST '${url}/v1/chat/completions'`);
    // A refusal names its field and the document's section.
    await (await post(url, { model: MODEL, messages: [{ role: 'robot', content: 'x' }] })).text();
    await page.until((e) => e.event === 'rows' && JSON.parse(e.data).some((r: { seq: number }) => r.seq === 3));
    const refused = (await (await fetch(`${url}/__mock/requests/3`)).json()) as { refusal: { field: string; section: string } };
    expect(refused.refusal).toMatchObject({ field: 'messages.0.role', section: '2.2' });
    expect((await fetch(`${url}/__mock/requests/99`)).status).toBe(404);
    page.close();
  });
});

it('conformance mock --no-dashboard: the banner says so and /__mock/ is a 404 JSON error', async () => {
  const child = spawn(process.execPath, [BIN, 'mock', '--port', '0', '--no-dashboard'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (b: Buffer) => {
        text += b;
        if (text.includes('keys (test values')) resolve(text);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
    });
    expect(out).toContain('dashboard: off (--no-dashboard)');
    const url = /mock listening on (http:\/\/\S+)/.exec(out)![1];
    const res = await fetch(`${url}/__mock/`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  } finally {
    child.kill('SIGTERM');
  }
});
