// The mock's local boundary over HTTP: pages of loopback origins reach it, others are refused with a
// 403 before anything happens (no journal line, no fault used, no upstream call with the key), and
// a request addressed to a foreign name (DNS rebinding) is refused on every route. The flags and
// the configuration open exactly what they name.
import { execFile, spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { banner, boundaryLines } from '../../mock/banner.js';
import { boundaryGuard, hostAllowed, isLoopbackAddress, isLoopbackOrigin, originAllowed } from '../../mock/boundary.js';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { loadConfigFile } from '../../mock/config/load.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { startRecorder, type Recorder } from '../../mock/record/server.js';
import { startCountingUpstream, type CountingUpstream } from '../support/counting-upstream.js';
import { KEY, MODEL } from './helpers.js';
import { within } from '../support/machine.js';

const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));
const UPSTREAM_KEY = 'sk-upstream-real-key-000000000000000042';
const FOREIGN = 'http://evil.example:3000';
const CHAT_BODY = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with any Host header (fetch may not set one). */
function send(url: string, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${opts.path}`, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const chatHeaders = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...extra });
const corsOf = (a: Answer) => Object.keys(a.headers).filter((h) => h.startsWith('access-control-'));
const errorOf = (a: Answer) => (JSON.parse(a.body) as { error: { code: string; message: string; type: string } }).error;
const hostOf = (url: string) => new URL(url).host;
const portOf = (url: string) => new URL(url).port;

describe('the rules', () => {
  it('loopback origins are http(s) on localhost, *.localhost, 127.0.0.0/8 or [::1], any port', () => {
    for (const o of [
      'http://localhost',
      'http://localhost:5173',
      'https://localhost:8443',
      'http://app.localhost:3000',
      'http://127.0.0.1:9',
      'http://127.200.3.4',
      'http://[::1]:3000',
      'HTTP://LOCALHOST:80/',
    ])
      expect([o, isLoopbackOrigin(o)]).toEqual([o, true]);
    for (const o of [
      'http://evil.example',
      'http://evillocalhost:3000',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'http://128.0.0.1',
      'http://[::2]',
      'null',
      'file://',
      'ftp://localhost',
      'http://localhost:5173, http://evil.example',
      'localhost:5173',
      '',
    ])
      expect([o, isLoopbackOrigin(o)]).toEqual([o, false]);
  });

  it('named origins are matched as browsers send them; * opens the API routes, never /__mock/', () => {
    expect(originAllowed('https://app.example.com', ['https://App.Example.com:443/'], '/v1/models')).toBe(true);
    expect(originAllowed('https://app.example.com:8443', ['https://app.example.com'], '/v1/models')).toBe(false);
    expect(originAllowed('http://app.example.com', ['https://app.example.com'], '/v1/models')).toBe(false);
    expect(originAllowed('tauri://localhost', ['tauri://localhost'], '/v1/models')).toBe(true);
    expect(originAllowed('https://anyone.example', ['*'], '/v1/chat/completions')).toBe(true);
    expect(originAllowed('https://anyone.example', ['*'], '/__mock/requests')).toBe(false);
    expect(originAllowed('https://app.example.com', ['*', 'https://app.example.com'], '/__mock/requests')).toBe(true);
    expect(originAllowed('http://localhost:1234', [], '/__mock/requests')).toBe(true);
    // Pages opened from file:// send "null": only when named.
    expect(originAllowed('null', [], '/v1/models')).toBe(false);
    expect(originAllowed('null', ['null'], '/v1/models')).toBe(true);
  });

  it('hosts: IP literals, localhost and *.localhost, and the names given (.name for subdomains)', () => {
    for (const h of [undefined, '127.0.0.1:8080', '10.1.2.3', '[::1]:8080', '[fe80::1]', 'localhost:8080', 'LOCALHOST', 'localhost.:8080', 'app.localhost:3000'])
      expect([h, hostAllowed(h, [])]).toEqual([h, true]);
    for (const h of ['evil.example:8080', 'evillocalhost', 'localhost.evil.example', '127.0.0.1.evil.example', 'mock.team.lan', '', 'a b', 'user@127.0.0.1'])
      expect([h, hostAllowed(h, [])]).toEqual([h, false]);
    expect(hostAllowed('mock.team.lan:8080', ['mock.team.lan'])).toBe(true);
    expect(hostAllowed('other.team.lan:8080', ['mock.team.lan'])).toBe(false);
    expect(hostAllowed('a.team.lan', ['.team.lan'])).toBe(true);
    expect(hostAllowed('team.lan', ['.team.lan'])).toBe(true);
    expect(hostAllowed('evilteam.lan', ['.team.lan'])).toBe(false);
  });

  it('the guard remembers verdicts per value, and a flood of made-up names changes none of them', () => {
    const guard = boundaryGuard({ origins: [], hosts: ['mock.team.lan'] }, 'http');
    const status = (headers: Record<string, string>) => (guard({ method: 'GET', path: '/__mock/requests', headers }) === undefined ? 'passes' : 'refused');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 300; i++) expect(status({ host: `n${i}.evil.example` })).toBe('refused');
      expect(status({ host: 'mock.team.lan:80' })).toBe('passes');
      expect(status({ host: 'evil.example' })).toBe('refused');
      // Its own origin depends on the Host it came with.
      expect(status({ host: 'mock.team.lan:80', origin: 'http://mock.team.lan' })).toBe('passes');
      expect(status({ host: '127.0.0.1:80', origin: 'http://mock.team.lan' })).toBe('refused');
    }
  });

  it('a loopback address to listen on is 127.0.0.0/8, ::1 or localhost', () => {
    expect(['127.0.0.1', '127.0.0.2', '::1', 'localhost'].map(isLoopbackAddress)).toEqual([true, true, true, true]);
    expect(['0.0.0.0', '::', '192.168.1.5', 'mybox.lan'].map(isLoopbackAddress)).toEqual([false, false, false, false]);
  });

  it('the banner names the origins and hosts allowed, and warns of * and of an address the network reaches', () => {
    const lines = banner('http://0.0.0.0:8080', { ...DEFAULT_CONFIG, cors: { origins: ['https://app.example.com', '*'] }, allowed_hosts: ['mock.team.lan'] }, { faults: [], host: '0.0.0.0' }).split(
      '\n',
    );
    expect(lines).toContain(
      'origins allowed: loopback (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port), https://app.example.com, and any page (*) on the API routes; more with --allow-origin ORIGIN',
    );
    expect(lines).toContain('hosts allowed: IP addresses, localhost, *.localhost, mock.team.lan; more with --allowed-host NAME');
    expect(lines.filter((l) => l.startsWith('warning: '))).toEqual([
      'warning: origin * is allowed: any web page open in a browser here can call the mock and read the answers (the /__mock/ routes stay with the origins named)',
      'warning: listening on 0.0.0.0, reachable from the network: anyone who can reach this machine can call the mock',
    ]);
    expect(boundaryLines({ origins: [], hosts: [] }, '127.0.0.1', true).filter((l) => l.startsWith('warning'))).toEqual([]);
    expect(boundaryLines({ origins: [], hosts: [] }, '0.0.0.0', true).at(-1)).toMatch(/and spend the upstream key$/);
  });

  it('a configuration naming something that is not an origin or a host name is refused, naming the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'boundary-config-'));
    const file = join(dir, 'mock.json');
    try {
      writeFileSync(file, JSON.stringify({ ...DEFAULT_CONFIG, cors: { origins: ['app.example.com'] }, allowed_hosts: ['mock.team.lan:8080'] }, null, 2));
      let message = '';
      try {
        loadConfigFile(file);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: cors\\.origins\\[0\\]: expected an origin such as http://app\\.example\\.com:3000`));
      expect(message).toContain('allowed_hosts[0]: expected a host name such as mock.team.lan');
      writeFileSync(file, JSON.stringify({ ...DEFAULT_CONFIG, cors: { origins: ['https://app.example.com', '*'] }, allowed_hosts: ['mock.team.lan', '.team.lan'] }));
      expect(loadConfigFile(file).allowed_hosts).toEqual(['mock.team.lan', '.team.lan']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('conformance mock over HTTP', () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const serve = async (config = DEFAULT_CONFIG, faults: string[] = []) => (server = await startMockServer({ mock: createMock(config, { faults }) }));

  it('a foreign Origin gets a 403 and no CORS grant, before anything happens: no journal line, no fault used', async () => {
    const s = await serve(DEFAULT_CONFIG, ['rate-limited; times=1']);
    const pre = await send(s.url, {
      method: 'OPTIONS',
      path: '/v1/chat/completions',
      headers: { origin: FOREIGN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    const chat = await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: FOREIGN }), body: CHAT_BODY });
    const journal = await send(s.url, { path: '/__mock/requests', headers: { origin: FOREIGN } });
    const clear = await send(s.url, { method: 'DELETE', path: '/__mock/requests', headers: { origin: FOREIGN } });
    for (const a of [pre, chat, journal, clear]) {
      expect(a.status).toBe(403);
      expect(corsOf(a)).toEqual([]);
      expect(a.headers['content-type']).toBe('application/json');
      expect(errorOf(a).code).toBe('origin_not_allowed');
      expect(errorOf(a).message).toContain(`--allow-origin ${FOREIGN}`);
    }
    expect(s.mock.journal.list()).toEqual([]);
    // The fault's one use is still there for the first allowed request.
    const first = await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: 'http://localhost:5173' }), body: CHAT_BODY });
    const second = await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: 'http://localhost:5173' }), body: CHAT_BODY });
    expect([first.status, second.status]).toEqual([429, 200]);
    expect(s.mock.journal.list()).toHaveLength(2);
  });

  it('pages of loopback origins on other ports are answered and may read the answer', async () => {
    const s = await serve();
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:4173', 'http://[::1]:3000', 'http://app.localhost:8080', 'https://localhost:8443']) {
      const pre = await send(s.url, {
        method: 'OPTIONS',
        path: '/v1/chat/completions',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(origin);
      const chat = await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin }), body: CHAT_BODY });
      expect(chat.status).toBe(200);
      expect(chat.headers['access-control-allow-origin']).toBe(origin);
      const journal = await send(s.url, { path: '/__mock/requests', headers: { origin } });
      expect(journal.status).toBe(200);
      expect(journal.headers['access-control-allow-origin']).toBe(origin);
    }
  });

  it('a foreign Host (DNS rebinding) gets a 403 naming --allowed-host on every route, whatever its Origin', async () => {
    const s = await serve();
    const host = `evil.example:${portOf(s.url)}`;
    const requests: Parameters<typeof send>[1][] = [
      { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ host }), body: CHAT_BODY },
      { path: '/v1/models', headers: { host, authorization: `Bearer ${KEY}` } },
      { path: '/models.json', headers: { host } },
      { path: '/__mock/requests', headers: { host } },
      { method: 'DELETE', path: '/__mock/requests', headers: { host } },
      { method: 'OPTIONS', path: '/v1/chat/completions', headers: { host, origin: `http://${host}`, 'access-control-request-method': 'POST' } },
      { path: '/nowhere', headers: { host, origin: 'http://localhost:5173' } },
    ];
    for (const r of requests) {
      const a = await send(s.url, r);
      expect([r.path, a.status]).toEqual([r.path, 403]);
      expect(corsOf(a)).toEqual([]);
      expect(errorOf(a).code).toBe('host_not_allowed');
      expect(errorOf(a).message).toContain('--allowed-host evil.example');
    }
    expect(s.mock.journal.list()).toEqual([]);
    // The same requests by address or by localhost are answered.
    for (const name of [hostOf(s.url), `localhost:${portOf(s.url)}`]) expect((await send(s.url, { path: '/models.json', headers: { host: name } })).status).toBe(200);
  });

  it('cors.origins and allowed_hosts open exactly what they name; * opens the API routes but not /__mock/', async () => {
    const s = await serve({ ...DEFAULT_CONFIG, cors: { origins: ['https://app.example.com'] }, allowed_hosts: ['mock.team.lan'] });
    const port = portOf(s.url);
    const named = await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: 'https://app.example.com' }), body: CHAT_BODY });
    expect(named.status).toBe(200);
    expect(named.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect((await send(s.url, { path: '/__mock/requests', headers: { origin: 'https://app.example.com' } })).status).toBe(200);
    for (const origin of ['https://app.example.com:8443', 'http://app.example.com', 'https://other.example.com'])
      expect([origin, (await send(s.url, { path: '/models.json', headers: { origin } })).status]).toEqual([origin, 403]);
    expect((await send(s.url, { path: '/models.json', headers: { host: `mock.team.lan:${port}` } })).status).toBe(200);
    expect((await send(s.url, { path: '/models.json', headers: { host: `other.team.lan:${port}` } })).status).toBe(403);
    // A page the mock serves itself, under a name it was allowed: its own origin.
    expect((await send(s.url, { path: '/__mock/requests', headers: { host: `mock.team.lan:${port}`, origin: `http://mock.team.lan:${port}` } })).status).toBe(200);
    expect((await send(s.url, { path: '/__mock/requests', headers: { host: `mock.team.lan:${port}`, origin: `http://mock.team.lan:${Number(port) + 1}` } })).status).toBe(403);
    await server!.close();

    const any = await serve({ ...DEFAULT_CONFIG, cors: { origins: ['*'] } });
    const chat = await send(any.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: FOREIGN }), body: CHAT_BODY });
    expect(chat.status).toBe(200);
    expect(chat.headers['access-control-allow-origin']).toBe(FOREIGN);
    const journal = await send(any.url, { path: '/__mock/requests', headers: { origin: FOREIGN } });
    expect(journal.status).toBe(403);
    expect(corsOf(journal)).toEqual([]);
    expect(errorOf(journal).message).toContain('not opened by *');
    const pre = await send(any.url, { method: 'OPTIONS', path: '/__mock/requests', headers: { origin: FOREIGN, 'access-control-request-method': 'DELETE' } });
    expect(pre.status).toBe(403);
    expect(corsOf(pre)).toEqual([]);
  });

  it('a write to /__mock/ that a plain HTML form could send is refused; JSON or an x-mock- header passes to the route', async () => {
    const s = await serve();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const a = await send(s.url, { method: 'POST', path: '/__mock/requests', headers: type ? { 'content-type': type } : {}, body: 'a=b' });
      expect([type, a.status]).toEqual([type, 403]);
      expect(errorOf(a).code).toBe('form_write_refused');
    }
    // Past the boundary: the journal route takes GET and DELETE, so the core answers 405.
    expect((await send(s.url, { method: 'POST', path: '/__mock/requests', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(405);
    expect((await send(s.url, { method: 'POST', path: '/__mock/requests', headers: { 'content-type': 'text/plain', 'x-mock-control': '1' }, body: '{}' })).status).toBe(405);
    expect((await send(s.url, { method: 'DELETE', path: '/__mock/requests' })).status).toBe(200);
    // The API's own routes are not the mock's: a form's POST there is judged by the API.
    expect((await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'text/plain', authorization: `Bearer ${KEY}` }, body: CHAT_BODY })).status).toBe(200);
  });

  it("another site's <img>, <script>, link, form or frame (Fetch metadata: no fetch) is refused before anything happens; the dashboard page opens from anywhere", async () => {
    const s = await serve();
    s.mock.control.set({ fault: 'server-error', times: 1 });
    const fetchMeta = (site: string, mode: string, dest: string) => ({ 'sec-fetch-site': site, 'sec-fetch-mode': mode, 'sec-fetch-dest': dest });
    const img = await send(s.url, { path: '/v1/models', headers: fetchMeta('cross-site', 'no-cors', 'image') });
    expect(img.status).toBe(403);
    expect(errorOf(img).code).toBe('cross_site_request');
    // Navigations: a frame, an <object>, a link, a form posted; from another site or another origin of the same site.
    const refused = [
      await send(s.url, { path: '/v1/models', headers: fetchMeta('cross-site', 'navigate', 'iframe') }),
      await send(s.url, { path: '/models.json', headers: fetchMeta('cross-site', 'navigate', 'object') }),
      await send(s.url, { path: '/__mock/requests', headers: fetchMeta('cross-site', 'navigate', 'document') }),
      await send(s.url, { path: '/__mock/requests/1', headers: fetchMeta('same-site', 'navigate', 'iframe') }),
      await send(s.url, { method: 'POST', path: '/v1/chat/completions', headers: { ...chatHeaders(), ...fetchMeta('same-site', 'navigate', 'document') }, body: CHAT_BODY }),
    ];
    for (const a of refused) {
      expect(a.status).toBe(403);
      expect(corsOf(a)).toEqual([]);
      expect(errorOf(a).code).toBe('cross_site_navigation');
    }
    // No journal line, the live setting's one use still there.
    expect(s.mock.journal.list()).toEqual([]);
    expect(s.mock.control.get().settings[0].left).toEqual({ fault: 1 });
    // The dashboard page opens from a link of any site; the address bar (none) and the mock's own
    // page (same-origin) reach any route: the first of them spends the live setting.
    expect((await send(s.url, { path: '/__mock/', headers: fetchMeta('cross-site', 'navigate', 'document') })).status).toBe(200);
    expect((await send(s.url, { path: '/models.json', headers: fetchMeta('none', 'navigate', 'document') })).status).toBe(500);
    expect((await send(s.url, { path: '/models.json', headers: fetchMeta('same-origin', 'no-cors', 'script') })).status).toBe(200);
    expect(s.mock.journal.list().map((e) => e.status)).toEqual([500, 200]);
  });
});

describe('the recorder', () => {
  let upstream: CountingUpstream;
  let recorder: Recorder;
  let dir: string;
  beforeAll(async () => {
    upstream = await startCountingUpstream();
    dir = mkdtempSync(join(tmpdir(), 'boundary-record-'));
    recorder = await startRecorder({ dir, mode: 'record', upstream: upstream.url, upstreamKey: UPSTREAM_KEY, allowOrigins: ['https://app.example.com'] });
  });
  afterAll(async () => {
    await recorder.close();
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a foreign Origin or Host never reaches the upstream: 403, and the key is not sent', async () => {
    const host = `evil.example:${portOf(recorder.url)}`;
    const refused = [
      await send(recorder.url, { method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin: FOREIGN, 'access-control-request-method': 'POST' } }),
      await send(recorder.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: FOREIGN }), body: CHAT_BODY }),
      await send(recorder.url, { method: 'POST', path: '/v1/chat/completions', headers: { origin: FOREIGN, 'content-type': 'text/plain' }, body: CHAT_BODY }),
      await send(recorder.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ host }), body: CHAT_BODY }),
      await send(recorder.url, { path: '/v1/models', headers: { host } }),
      await send(recorder.url, { path: '/v1/models', headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } }),
    ];
    expect(refused.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(refused.map((a) => errorOf(a).code)).toEqual(['origin_not_allowed', 'origin_not_allowed', 'origin_not_allowed', 'host_not_allowed', 'host_not_allowed', 'cross_site_request']);
    for (const a of refused) expect(corsOf(a)).toEqual([]);
    expect(upstream.seen).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);

    // A loopback page and the origin named are proxied, with the upstream's key in the client's place.
    for (const origin of ['http://localhost:5173', 'https://app.example.com']) {
      const a = await send(recorder.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin }), body: CHAT_BODY });
      expect(a.status).toBe(200);
      expect(a.headers['access-control-allow-origin']).toBe(origin);
      expect(JSON.parse(a.body).choices[0].message.content).toBe('From the upstream.');
    }
    expect(upstream.seen.map((r) => [r.method, r.path, r.authorization === `Bearer ${UPSTREAM_KEY}`])).toEqual([
      ['POST', '/v1/chat/completions', true],
      ['POST', '/v1/chat/completions', true],
    ]);
  });

  it('a navigation or a frame of another site (no Origin: Fetch metadata) never reaches the upstream, on any path', async () => {
    const before = upstream.seen.length;
    const navigations = [
      ['/v1/files', 'iframe'],
      ['/v1/organization/usage', 'object'],
      ['/v1/models', 'document'],
      ['/v1/chat/completions', 'iframe'],
    ].map(([path, dest]) =>
      send(recorder.url, { path, headers: { authorization: `Bearer ${KEY}`, cookie: 'session=1', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': dest } }),
    );
    for (const a of await Promise.all(navigations)) {
      expect(a.status).toBe(403);
      expect(errorOf(a).code).toBe('cross_site_navigation');
    }
    expect(upstream.seen.length).toBe(before);
  });

  it("forwards only the API's routes, only with a Bearer credential (the public catalog aside), and only the headers the API needs", async () => {
    const before = upstream.seen.length;
    const refused = [
      await send(recorder.url, { path: '/v1/files', headers: chatHeaders() }),
      await send(recorder.url, { path: '/v1/organization/usage', headers: chatHeaders() }),
      await send(recorder.url, { method: 'DELETE', path: '/v1/models', headers: chatHeaders() }),
      await send(recorder.url, { path: '/v1/models' }),
      await send(recorder.url, { method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Basic ${KEY}`, 'content-type': 'application/json' }, body: CHAT_BODY }),
    ];
    expect(refused.map((a) => [a.status, errorOf(a).code])).toEqual([
      [404, 'not_found'],
      [404, 'not_found'],
      [405, 'method_not_allowed'],
      [401, 'missing_api_key'],
      [401, 'invalid_api_key'],
    ]);
    expect(upstream.seen.length).toBe(before);
    const browserish = {
      cookie: 'session=secret-cookie-77',
      origin: 'http://localhost:5173',
      referer: 'http://localhost:5173/app',
      'sec-fetch-site': 'same-site',
      'sec-fetch-mode': 'cors',
      'sec-fetch-dest': 'empty',
      'accept-language': 'en',
      'x-mock-fault': 'server-error',
      'x-stainless-os': 'Linux',
      accept: 'application/json',
    };
    expect((await send(recorder.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders(browserish), body: CHAT_BODY })).status).toBe(200);
    expect((await send(recorder.url, { path: '/models.json', headers: { ...browserish, authorization: `Bearer ${KEY}` } })).status).toBe(200);
    const [chat, catalog] = upstream.seen.slice(before);
    expect(Object.keys(chat.headers).sort()).toEqual(['accept', 'accept-encoding', 'authorization', 'connection', 'content-length', 'content-type', 'host', 'x-stainless-os']);
    expect(chat.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    // The catalog is public: no key goes with it, the client's or the upstream's.
    expect(catalog.path).toBe('/models.json');
    expect(catalog.authorization).toBeUndefined();
  });

  it('a replay refuses the same way: its journal is not readable from a foreign Origin', async () => {
    const replay = await startRecorder({ dir, mode: 'replay' });
    try {
      const foreign = await send(replay.url, { path: '/__mock/requests', headers: { origin: FOREIGN } });
      expect(foreign.status).toBe(403);
      expect(corsOf(foreign)).toEqual([]);
      const rebound = await send(replay.url, { path: '/__mock/requests', headers: { host: `evil.example:${portOf(replay.url)}` } });
      expect(rebound.status).toBe(403);
      expect((await send(replay.url, { path: '/__mock/requests', headers: { origin: 'http://localhost:5173' } })).status).toBe(200);
    } finally {
      await replay.close();
    }
  });

  it('recording (or a replay that falls back to the upstream) on a non-loopback address needs allowRemote', async () => {
    const before = upstream.seen.length;
    await expect(startRecorder({ dir, mode: 'record', upstream: upstream.url, host: '0.0.0.0' })).rejects.toThrow(
      '--record on --host 0.0.0.0 would let anyone who can reach this machine spend the upstream key: listen on a loopback address (the default, 127.0.0.1), or add --allow-remote-record to mean it',
    );
    await expect(startRecorder({ dir, mode: 'replay', fallback: true, upstream: upstream.url, host: '::' })).rejects.toThrow(/^--fallback upstream on --host :: would let anyone/);
    expect(upstream.seen).toHaveLength(before);
  });
});

describe('on the command line', () => {
  /** `conformance mock ARGS --port 0`: its URL and what it printed, once it listens. */
  function start(args: string[]): Promise<{ url: string; out: string; stop(): void }> {
    const child = spawn(process.execPath, [BIN, 'mock', ...args, '--pace', 'instant', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b;
        const url = / on (https?:\/\/\S+)/.exec(out)?.[1];
        if (url && out.includes('hosts allowed:')) resolve({ url, out, stop: () => child.kill() });
      });
      child.once('exit', (code) => reject(new Error(`conformance mock exited ${code}: ${out}`)));
    });
  }
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mock', ...args, '--port', '0'], { timeout: within(10_000) }, (_err, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
    });

  it('--allow-origin and --allowed-host (repeatable) open exactly what they name, and the banner says so', async () => {
    const m = await start(['--allow-origin', 'http://evil.example:3000', '--allow-origin', 'https://app.example.com', '--allowed-host', 'mock.team.lan']);
    try {
      expect(m.out).toContain(
        'origins allowed: loopback (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port), http://evil.example:3000, https://app.example.com; more with --allow-origin ORIGIN',
      );
      expect(m.out).toContain('hosts allowed: IP addresses, localhost, *.localhost, mock.team.lan; more with --allowed-host NAME');
      expect(m.out).not.toContain('warning');
      const port = portOf(m.url);
      const statuses = async (headers: Record<string, string>) => (await send(m.url, { path: '/__mock/requests', headers })).status;
      expect(await statuses({ origin: 'http://evil.example:3000' })).toBe(200);
      expect(await statuses({ origin: 'https://app.example.com' })).toBe(200);
      expect(await statuses({ origin: 'http://evil.example:3001' })).toBe(403);
      expect(await statuses({ host: `mock.team.lan:${port}` })).toBe(200);
      expect(await statuses({ host: `other.team.lan:${port}` })).toBe(403);
      const a = await send(m.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: 'http://evil.example:3000' }), body: CHAT_BODY });
      expect(a.headers['access-control-allow-origin']).toBe('http://evil.example:3000');
    } finally {
      m.stop();
    }
  });

  it('--allow-origin "*" is taken as written, with a warning; a value that is not an origin or a host name is exit 2', async () => {
    const m = await start(['--allow-origin', '*']);
    try {
      expect(m.out).toContain('warning: origin * is allowed: any web page open in a browser here can call the mock and read the answers (the /__mock/ routes stay with the origins named)');
      expect((await send(m.url, { path: '/models.json', headers: { origin: FOREIGN } })).status).toBe(200);
      expect((await send(m.url, { path: '/__mock/requests', headers: { origin: FOREIGN } })).status).toBe(403);
    } finally {
      m.stop();
    }
    expect(await run(['--allow-origin', 'evil.example'])).toEqual({
      code: 2,
      stderr: 'conformance: --allow-origin: expected an origin such as http://app.example.com:3000 (scheme, host and port; no path), or *; found "evil.example"\n',
    });
    expect(await run(['--allowed-host', 'http://mock.team.lan'])).toEqual({
      code: 2,
      stderr: 'conformance: --allowed-host: expected a host name such as mock.team.lan, or .team.lan for it and its subdomains (no scheme, no port); found "http://mock.team.lan"\n',
    });
    expect((await run(['--allow-remote-record'])).code).toBe(2);
  });

  it('--record on a non-loopback --host without --allow-remote-record is exit 2 saying why; the recorder names who may call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'boundary-record-'));
    const upstream = await startCountingUpstream();
    try {
      const refused = await run(['--record', dir, '--upstream', upstream.url, '--host', '0.0.0.0']);
      expect(refused).toEqual({
        code: 2,
        stderr:
          'conformance: --record on --host 0.0.0.0 would let anyone who can reach this machine spend the upstream key: listen on a loopback address (the default, 127.0.0.1), or add --allow-remote-record to mean it\n',
      });
      const fallback = await run(['--replay', dir, '--fallback', 'upstream', '--upstream', upstream.url, '--host', '0.0.0.0']);
      expect(fallback.code).toBe(2);
      expect(fallback.stderr).toMatch(/^conformance: --fallback upstream on --host 0\.0\.0\.0 would let anyone/);
      const rec = await start(['--record', dir, '--upstream', upstream.url, '--allow-origin', 'https://app.example.com']);
      try {
        expect(rec.out).toContain('origins allowed: loopback (http(s)://localhost, *.localhost, 127.0.0.0/8, [::1], any port), https://app.example.com; more with --allow-origin ORIGIN');
        const foreign = await send(rec.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: FOREIGN }), body: CHAT_BODY });
        expect(foreign.status).toBe(403);
        expect(upstream.seen).toEqual([]);
        const named = await send(rec.url, { method: 'POST', path: '/v1/chat/completions', headers: chatHeaders({ origin: 'https://app.example.com' }), body: CHAT_BODY });
        expect(named.status).toBe(200);
        expect(upstream.seen).toHaveLength(1);
      } finally {
        rec.stop();
      }
    } finally {
      await upstream.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
