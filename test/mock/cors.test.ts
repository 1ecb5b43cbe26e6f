// CORS: a browser page calls the mock cross-origin. A preflight is answered, allowing the headers
// the SDKs send (Authorization by name, which a wildcard does not cover); an answer to a request
// with an allowed Origin (loopback, or named) can be read, retry headers included; a request
// without one is left untouched.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import type { MockReply } from '../../mock/core/types.js';
import { chat, headersOf, KEY, statusOf, user, serverPerTest } from './helpers.js';

const ORIGIN = 'http://localhost:5173';
const ASKED = 'authorization, content-type, x-stainless-os, x-stainless-retry-count';
const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
const corsHeaders = (r: MockReply) => Object.keys(headersOf(r)).filter((h) => h.startsWith('access-control-'));

describe('CORS', () => {
  it('answers a preflight with 204, allowing the asked headers (Authorization by name) and the methods', () => {
    const mock = createMock();
    for (const path of ['/v1/chat/completions', '/v1/models', '/models.json', '/__mock/requests']) {
      const r = mock.handle({ method: 'OPTIONS', path, headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': ASKED } });
      expect(statusOf(r)).toBe(204);
      const h = headersOf(r);
      expect(h['access-control-allow-origin']).toBe(ORIGIN);
      const allowed = list(h['access-control-allow-headers']);
      for (const name of list(ASKED)) expect(allowed).toContain(name);
      expect(allowed).toContain('authorization');
      expect(allowed).not.toContain('*');
      const methods = list(h['access-control-allow-methods']);
      for (const m of ['get', 'post', 'delete', 'options']) expect(methods).toContain(m);
      expect(Number(h['access-control-max-age'])).toBeGreaterThan(0);
      expect(list(h.vary)).toContain('origin');
    }
    // Headers the SDKs send are allowed even when a preflight does not list them.
    const bare = mock.handle({ method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin: ORIGIN } });
    expect(list(headersOf(bare)['access-control-allow-headers'])).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-stainless-retry-count']));
    // Preflights are not requests: not journaled.
    expect(mock.journal.list()).toHaveLength(0);
  });

  it('with no policy, only pages of loopback origins get the allow headers (over HTTP, the others a 403: boundary.test.ts)', () => {
    const mock = createMock();
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:4173', 'http://[::1]:3000', 'http://app.localhost']) {
      expect(headersOf(mock.handle({ method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin, 'access-control-request-method': 'POST' } }))['access-control-allow-origin']).toBe(origin);
      expect(headersOf(chat(mock, user('hi'), { origin }))['access-control-allow-origin']).toBe(origin);
    }
    const foreign = 'https://evil.example';
    expect(corsHeaders(mock.handle({ method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin: foreign, 'access-control-request-method': 'POST' } }))).toEqual([]);
    expect(corsHeaders(chat(mock, user('hi'), { origin: foreign }))).toEqual([]);
    expect(corsHeaders(mock.handle({ method: 'GET', path: '/__mock/requests', headers: { origin: foreign } }))).toEqual([]);
  });

  it('with cors.origins and cors.headers, mirrors a real policy: other origins are not allowed, only the listed headers are', () => {
    const mock = createMock({ ...DEFAULT_CONFIG, cors: { origins: [ORIGIN], headers: ['authorization', 'content-type'] } });
    const ours = mock.handle({
      method: 'OPTIONS',
      path: '/v1/chat/completions',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, x-custom' },
    });
    expect(headersOf(ours)['access-control-allow-origin']).toBe(ORIGIN);
    expect(list(headersOf(ours)['access-control-allow-headers'])).toEqual(['authorization', 'content-type']);
    const theirs = mock.handle({ method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(corsHeaders(theirs)).toEqual([]);
    const answered = chat(mock, user('hi'), { origin: 'https://evil.example' });
    expect(statusOf(answered)).toBe(200);
    expect(corsHeaders(answered)).toEqual([]);
    expect(headersOf(chat(mock, user('hi'), { origin: ORIGIN }))['access-control-allow-origin']).toBe(ORIGIN);
    const any = createMock({ ...DEFAULT_CONFIG, cors: { origins: ['*'] } });
    expect(headersOf(chat(any, user('hi'), { origin: 'https://anyone.example' }))['access-control-allow-origin']).toBe('https://anyone.example');
    // The mock's own routes are never opened by *.
    expect(corsHeaders(any.handle({ method: 'GET', path: '/__mock/requests', headers: { origin: 'https://anyone.example' } }))).toEqual([]);
  });

  it('lets a page read every answer to a request with an Origin, retry headers exposed', () => {
    const mock = createMock();
    const replies: MockReply[] = [
      chat(mock, user('hi'), { origin: ORIGIN }),
      chat(mock, { ...user('hi'), stream: true }, { origin: ORIGIN }),
      chat(mock, user('hi'), { origin: ORIGIN, 'x-mock-fault': 'rate-limited' }),
      chat(mock, user('hi'), { origin: ORIGIN }, 'sk-not-a-key-000000000000000'),
      chat(mock, user('hi'), { origin: ORIGIN, 'x-mock-fault': 'no-such-fault' }),
      mock.handle({ method: 'GET', path: '/nowhere', headers: { origin: ORIGIN } }),
      mock.handle({ method: 'GET', path: '/models.json', headers: { origin: ORIGIN } }),
      mock.handle({ method: 'GET', path: '/__mock/requests', headers: { origin: ORIGIN } }),
    ];
    expect(replies.map(statusOf)).toEqual([200, 200, 429, 401, 400, 404, 200, 200]);
    for (const r of replies) {
      const h = headersOf(r);
      expect(h['access-control-allow-origin']).toBe(ORIGIN);
      expect(list(h['access-control-expose-headers'])).toEqual(expect.arrayContaining(['retry-after', 'retry-after-ms']));
      expect(list(h.vary)).toContain('origin');
    }
    expect(headersOf(replies[2])['retry-after']).toBe('1');
  });

  it('adds nothing to a request without an Origin', () => {
    const mock = createMock();
    const replies = [
      chat(mock, user('hi')),
      chat(mock, { ...user('hi'), stream: true }),
      chat(mock, user('hi'), { 'x-mock-fault': 'rate-limited' }),
      mock.handle({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } }),
      mock.handle({ method: 'GET', path: '/nowhere', headers: {} }),
    ];
    for (const r of replies) {
      expect(corsHeaders(r)).toEqual([]);
      expect(headersOf(r).vary).toBeUndefined();
    }
  });

  describe('over HTTP', () => {
    const serve = serverPerTest();

    it('the preflight and the answer carry the headers on the wire', async () => {
      const server = await serve();
      const pre = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': ASKED },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(list(pre.headers.get('access-control-allow-headers') ?? '')).toEqual(expect.arrayContaining(list(ASKED)));
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { origin: ORIGIN, authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-mock-fault': 'rate-limited; retry_after_ms=1500' },
        body: JSON.stringify({ model: 'mock-chat-1', ...user('hi') }),
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(list(res.headers.get('access-control-expose-headers') ?? '')).toEqual(expect.arrayContaining(['retry-after', 'retry-after-ms']));
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('retry-after-ms')).toBe('1500');
      await res.text();
      const plain = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
      expect([...plain.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
      await plain.text();
    });
  });
});
