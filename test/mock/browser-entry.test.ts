// The mock's browser entry reaches nothing of Node: every module it imports, followed through the
// built files, imports no `node:` module and names no Node global, so a bundler needs no polyfill.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('../../dist/mock/browser.js', import.meta.url));

function graph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'(\.[^']+\.js)'/g)) visit(resolve(dirname(file), m[1]));
  };
  visit(entry);
  return seen;
}

describe('chat-api-conformance/mock/browser', () => {
  it('imports no node: module and uses no Buffer, process or require, through every file it reaches', () => {
    const files = graph(ENTRY);
    expect(files.size).toBeGreaterThan(20);
    const offenders: string[] = [];
    for (const [file, text] of files) {
      const code = text.replace(/\/\/.*$/gm, '');
      if (/from\s*'node:|import\('node:|\brequire\(/.test(code)) offenders.push(`${file}: imports Node`);
      // Reached at run time only where Node is there (bytes.ts, the gzip variation): never at import.
      if (/^(?!.*globalThis).*\b(Buffer|process)\./m.test(code)) offenders.push(`${file}: uses a Node global`);
    }
    expect(offenders).toEqual([]);
  });
});

describe('the browser entry, run here', () => {
  const KEY = 'sk-mock-alpha-000000000000000000000001';
  const chat = (url: string, body: object) =>
    new Request(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('fetchHandler answers web Requests as the server does: a model list, a stream to [DONE], a 401', async () => {
    const { fetchHandler, DEFAULT_BROWSER_URL } = await import('../../mock/browser.js');
    const handler = fetchHandler();
    const list = await handler(new Request(`${DEFAULT_BROWSER_URL}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } }));
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['mock-chat-1', 'mock-reason-1']);
    const stream = await handler(chat(DEFAULT_BROWSER_URL, { model: 'mock-chat-1', stream: true, messages: [{ role: 'user', content: 'Hi' }] }));
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await stream.text()).toMatch(/data: \[DONE\]\n\n$/);
    const refused = await handler(new Request(`${DEFAULT_BROWSER_URL}/v1/models`));
    expect(refused.status).toBe(401);
    expect(handler.mock.journal.list()).toHaveLength(3);
  });

  it('a configuration mistake throws, naming the field', async () => {
    const { installMock, DEFAULT_CONFIG } = await import('../../mock/browser.js');
    expect(() => installMock({ config: { ...DEFAULT_CONFIG, timing: { ttft_ms: -1 } } })).toThrow(/timing\.ttft_ms: expected a number >= 0, found -1/);
    expect(() => installMock({ config: { scenario: [] } as never })).toThrow(/scenario: unknown field: did you mean scenarios\?/);
  });

  it('a configuration gives only what it changes: the rest is the built-in one', async () => {
    const { fetchHandler, DEFAULT_BROWSER_URL } = await import('../../mock/browser.js');
    const handler = fetchHandler({ config: { scenarios: [{ name: 'hello', match: { last_user: 'hello' }, reply: { text: 'Hi there!' } }] } });
    const r = await handler(chat(DEFAULT_BROWSER_URL, { model: 'mock-chat-1', messages: [{ role: 'user', content: 'hello' }] }));
    expect(((await r.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe('Hi there!');
  });

  it('installMock answers fetch under its base URL until disposed, then gives fetch back', async () => {
    const { installMock } = await import('../../mock/browser.js');
    const original = globalThis.fetch;
    const page = installMock({ baseUrl: 'http://page.mock.test' });
    expect(globalThis.fetch).not.toBe(original);
    try {
      const r = await fetch(chat(page.baseUrl, { model: 'mock-chat-1', messages: [{ role: 'user', content: 'Repeat exactly: in the page' }] }));
      expect(((await r.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe('in the page');
    } finally {
      page.dispose();
    }
    // Restored: no request of this test leaves the process.
    expect(globalThis.fetch).toBe(original);
  });
});
