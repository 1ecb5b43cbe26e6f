// The two transports: the node:http server and the in-process interceptor serve the same core, so
// for the same requests they give the same status, headers and body bytes. A client that goes away
// stops generation; oversized, malformed and garbage requests get 4xx JSON, never a crash.
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { isStream } from '../../mock/core/types.js';
import { MAX_REQUEST_BYTES, startMockServer, type MockServer } from '../../mock/http.js';
import { interceptMock, type InterceptedMock } from '../../mock/intercept.js';
import { KEY, MODEL, scenarioMock, user, withConfig } from './helpers.js';

const ORIGIN = 'http://localhost:3000';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const chatBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: MODEL, ...user('Tell me a story.'), seed: 3, ...extra });

interface Case {
  name: string;
  path: string;
  init: RequestInit & { headers?: Record<string, string> };
}

const CASES: Case[] = [
  { name: 'a JSON completion', path: '/v1/chat/completions', init: { method: 'POST', headers: auth, body: chatBody() } },
  { name: 'a stream', path: '/v1/chat/completions', init: { method: 'POST', headers: auth, body: chatBody({ stream: true, stream_options: { include_usage: true } }) } },
  { name: 'a scripted stream', path: '/v1/chat/completions', init: { method: 'POST', headers: auth, body: chatBody({ stream: true, messages: [{ role: 'user', content: 'hello' }] }) } },
  {
    name: 'tool calls',
    path: '/v1/chat/completions',
    init: { method: 'POST', headers: auth, body: chatBody({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } } } } }] }) },
  },
  // The scheme name is case-insensitive (RFC 9110, 11.1).
  { name: 'the scheme in lower case', path: '/v1/models', init: { method: 'GET', headers: { authorization: `bearer ${KEY}` } } },
  { name: 'a 401', path: '/v1/chat/completions', init: { method: 'POST', headers: { ...auth, authorization: 'Bearer sk-nope-0000000000000000' }, body: chatBody() } },
  { name: 'a 429 with retry headers', path: '/v1/chat/completions', init: { method: 'POST', headers: { ...auth, 'x-mock-fault': 'rate-limited; retry_after_ms=1200' }, body: chatBody() } },
  { name: 'a scripted 503', path: '/v1/chat/completions', init: { method: 'POST', headers: auth, body: chatBody({ messages: [{ role: 'user', content: 'overload' }] }) } },
  { name: 'a stream error', path: '/v1/chat/completions', init: { method: 'POST', headers: { ...auth, 'x-mock-fault': 'stream-error' }, body: chatBody({ stream: true }) } },
  { name: 'a 400 for malformed JSON', path: '/v1/chat/completions', init: { method: 'POST', headers: auth, body: '{"model": ' } },
  { name: 'a 404', path: '/v1/nowhere', init: { method: 'GET', headers: auth } },
  { name: 'a 405', path: '/v1/models', init: { method: 'POST', headers: auth, body: '{}' } },
  { name: 'the model list with CORS', path: '/v1/models', init: { method: 'GET', headers: { ...auth, origin: ORIGIN } } },
  { name: 'the catalog', path: '/models.json?x=1', init: { method: 'GET' } },
  { name: 'a CORS completion', path: '/v1/chat/completions', init: { method: 'POST', headers: { ...auth, origin: ORIGIN }, body: chatBody() } },
  {
    name: 'a preflight',
    path: '/v1/chat/completions',
    init: { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-stainless-os' } },
  },
];

const config = () =>
  withConfig({
    scenarios: [
      { name: 'hello', match: { last_user: 'hello' }, reply: { chunks: ['Hel', 'lo', ' there', '!'] } },
      { name: 'overload', match: { last_user: 'overload' }, reply: { error: { status: 503, message: 'Overloaded.', type: 'server_error', code: 'overloaded', headers: { 'retry-after': '2' } } } },
    ],
  });

/** Headers that belong to the transport, not to the answer. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const relevant = (h: Headers) => Object.fromEntries([...h.entries()].filter(([k]) => !TRANSPORT.has(k)).sort(([a], [b]) => a.localeCompare(b)));

async function answer(base: string, c: Case) {
  const res = await fetch(`${base}${c.path}`, c.init);
  return { status: res.status, headers: relevant(res.headers), body: Buffer.from(await res.arrayBuffer()) };
}

/** A mock whose streams count the frames pulled from them. */
function counting(mock: Mock): { mock: Mock; pulled: () => number } {
  let pulled = 0;
  return {
    pulled: () => pulled,
    mock: {
      config: mock.config,
      journal: mock.journal,
      control: mock.control,
      handle(req) {
        const reply = mock.handle(req);
        if (!isStream(reply)) return reply;
        const inner = reply.stream;
        return {
          ...reply,
          stream: (function* () {
            for (const f of inner) {
              pulled++;
              yield f;
            }
          })(),
        };
      },
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the node:http adapter and interceptMock', () => {
  let server: MockServer | undefined;
  let intercepted: InterceptedMock | undefined;
  beforeEach(() => {
    // `created` is the only clock the bodies carry.
    vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    intercepted?.dispose();
    intercepted = undefined;
    await server?.close();
    server = undefined;
  });

  it('answer the same requests with the same status, headers and body bytes', async () => {
    server = await startMockServer({ mock: createMock(config()) });
    const overHttp = [];
    for (const c of CASES) overHttp.push(await answer(server.url, c));
    intercepted = interceptMock({ mock: createMock(config()) });
    const inProcess = [];
    for (const c of CASES) inProcess.push(await answer(intercepted.baseUrl, c));
    for (const [i, c] of CASES.entries()) {
      const a = overHttp[i];
      const b = inProcess[i];
      expect(b.status, c.name).toBe(a.status);
      expect(b.headers, c.name).toEqual(a.headers);
      expect(b.body.toString('utf8'), c.name).toBe(a.body.toString('utf8'));
      expect(b.body.equals(a.body), c.name).toBe(true);
    }
    expect(overHttp.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 401, 429, 503, 200, 400, 404, 405, 200, 200, 200, 204]);
    expect(overHttp[1].headers['content-type']).toMatch(/^text\/event-stream/);
    expect(overHttp[6].headers['retry-after-ms']).toBe('1200');
    expect(overHttp[12].headers['access-control-allow-origin']).toBe(ORIGIN);
    // Both journals saw the same requests.
    const strip = (m: Mock) => m.journal.list().map(({ time: _t, ...e }) => e);
    expect(strip(intercepted.mock)).toEqual(strip(server.mock));
  });

  it('interceptMock answers under its base URL only, with a path prefix, and dispose restores the network', async () => {
    server = await startMockServer();
    intercepted = interceptMock({ baseUrl: 'http://api.example.test/openai/' });
    const res = await fetch(`${intercepted.baseUrl}/v1/models`, { headers: auth });
    expect(res.status).toBe(200);
    expect((await (res.json() as Promise<any>)).data.map((m: { id: string }) => m.id)).toContain(MODEL);
    // Other URLs go to the network: here, the real server.
    const real = await fetch(`${server.url}/v1/models`, { headers: auth });
    expect(real.status).toBe(200);
    await real.text();
    expect(server.mock.journal.list()).toHaveLength(1);
    intercepted.dispose();
    intercepted = undefined;
    await expect(fetch('http://api.example.test/openai/v1/models', { headers: auth, signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  });

  const paced = () => counting(scenarioMock([{ name: 'long', match: {}, reply: { text: 'word '.repeat(400).trim() } }], { timing: { tokens_per_second: 400 } }));

  it('over HTTP, a client that aborts a stream stops generation', async () => {
    const { mock, pulled } = paced();
    server = await startMockServer({ mock });
    const ac = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: chatBody({ stream: true }), signal: ac.signal });
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/data: /g) ?? []).length < 5) text += Buffer.from((await reader.read()).value!).toString('utf8');
    ac.abort();
    await sleep(60);
    const atStop = pulled();
    await sleep(100);
    expect(pulled()).toBe(atStop);
    expect(atStop).toBeLessThan(50);
    // The server is fine and serves the next request.
    const next = await fetch(`${server.url}/v1/models`, { headers: auth });
    expect(next.status).toBe(200);
    await next.text();
  });

  it('in-process, a client that cancels a stream stops generation', async () => {
    const { mock, pulled } = paced();
    intercepted = interceptMock({ mock });
    const res = await fetch(`${intercepted.baseUrl}/v1/chat/completions`, { method: 'POST', headers: auth, body: chatBody({ stream: true }) });
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/data: /g) ?? []).length < 5) text += Buffer.from((await reader.read()).value!).toString('utf8');
    await reader.cancel();
    await sleep(60);
    const atStop = pulled();
    await sleep(100);
    expect(pulled()).toBe(atStop);
    expect(atStop).toBeLessThan(50);
  });

  it('a body over the cap gets 413 JSON, on both transports', async () => {
    const big = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(MAX_REQUEST_BYTES) }] });
    server = await startMockServer();
    const overHttp = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: big });
    expect(overHttp.status).toBe(413);
    expect(overHttp.headers.get('content-type')).toMatch(/application\/json/);
    expect((await (overHttp.json() as Promise<any>)).error.code).toBe('body_too_large');
    intercepted = interceptMock();
    const inProcess = await fetch(`${intercepted.baseUrl}/v1/chat/completions`, { method: 'POST', headers: auth, body: big });
    expect(inProcess.status).toBe(413);
    expect((await (inProcess.json() as Promise<any>)).error.code).toBe('body_too_large');
    // Just under the cap is read and judged.
    const fits = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: `{${' '.repeat(MAX_REQUEST_BYTES - 2)}}` });
    expect(fits.status).toBe(400);
    await fits.text();
  });

  it('malformed JSON and invalid UTF-8 bodies get a 400 JSON error, never a crash', async () => {
    server = await startMockServer();
    intercepted = interceptMock();
    const bodies: (string | Uint8Array)[] = ['{"model":', 'null', '[]', '"just a string"', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), new Uint8Array([0xc3, 0x28, 0xa0, 0xa1])];
    for (const base of [server.url, intercepted.baseUrl]) {
      for (const body of bodies) {
        const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: auth, body });
        expect(res.status, `${base} ${String(body)}`).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
        const { error } = await (res.json() as Promise<any>);
        expect(error.type).toBe('invalid_request_error');
        expect(typeof error.message).toBe('string');
      }
    }
    const ok = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: chatBody() });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('garbage bytes instead of HTTP get a 400, and the server keeps serving', async () => {
    server = await startMockServer();
    const { port } = new URL(server.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x0d, 0x0a, 0xc3, 0x28, 0x0d, 0x0a, 0x0d, 0x0a])));
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('end', () => resolve(got));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
      socket.setTimeout(2000, () => socket.destroy());
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    const next = await fetch(`${server.url}/v1/models`, { headers: auth });
    expect(next.status).toBe(200);
    await next.text();
  });
});
