// The live control (mock/core/control.ts): faults, content and pace switched while the mock runs,
// for the next N requests or until reset, per key or model; the same state in-process
// (mock.control) and over HTTP (/__mock/control), refused with a 400 naming the field, recorded in
// the journal entry of each request it touched, and behind the mock's boundary.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { FAULTS } from '../../mock/core/faults/index.js';
import { chat, contentDeltas, frames, json, KEY, MODEL, REASONER, SECOND_KEY, serverPerTest, statusOf, user, withConfig } from './helpers.js';

const control = (mock: Mock, method: string, body?: unknown, path = '/__mock/control') =>
  mock.handle({ method, path, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const hi = (mock: Mock, extra: Record<string, unknown> = {}, key = KEY) => chat(mock, { ...user('hi'), ...extra }, {}, key);
const errorOf = (r: ReturnType<Mock['handle']>) => json(r).error as { message: string; param: string | null; code: string };

describe('mock.control, in-process', () => {
  it('"the next two requests get a 429": then the mock answers as before', () => {
    const mock = createMock();
    mock.control.set({ fault: 'rate-limited; retry_after_ms=250', times: 2 });
    expect([hi(mock), hi(mock), hi(mock)].map(statusOf)).toEqual([429, 429, 200]);
    expect(mock.control.get().settings).toEqual([]);
  });

  it("a fault's own times counts its requests; the setting ends when every part is spent", () => {
    const mock = createMock();
    mock.control.set({ fault: 'rate-limited; times=1', content: 'markdown' });
    expect(mock.control.get().settings).toMatchObject([{ id: 1, fault: 'rate-limited; times=1', content: 'markdown', left: { fault: 1, content: null } }]);
    expect(statusOf(hi(mock))).toBe(429);
    expect(statusOf(hi(mock))).toBe(200);
    expect(mock.control.get().settings).toMatchObject([{ left: { fault: 0, content: null } }]);
    mock.control.reset();
    expect(mock.control.get().settings).toEqual([]);
  });

  it('content and pace apply to chat requests only, and change the reply (a prepared reply is not reused)', () => {
    const mock = createMock();
    const plain = json(hi(mock)).choices[0].message.content;
    expect(json(hi(mock)).choices[0].message.content).toBe(plain);
    mock.control.set({ content: 'markdown', times: 1 });
    expect(statusOf(mock.handle({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } }))).toBe(200);
    expect(mock.control.get().settings).toHaveLength(1);
    const marked = json(hi(mock)).choices[0].message.content;
    expect(marked).not.toBe(plain);
    expect(marked).toMatch(/```|^#|\n- |\|/m);
    expect(json(hi(mock)).choices[0].message.content).toBe(plain);
    mock.control.set({ pace: { ttft_ms: 40, tokens_per_second: 1000 } });
    const r = hi(mock);
    expect('delayMs' in r && r.delayMs).toBeGreaterThanOrEqual(40);
    const streamed = frames(hi(mock, { stream: true }));
    expect(streamed.find((f) => f.delayMs > 0)?.delayMs).toBeGreaterThanOrEqual(40);
    expect(contentDeltas(streamed).join('')).toBe(plain);
  });

  it('a setting for one key or one model leaves the others alone', () => {
    const mock = createMock();
    mock.control.set({ fault: 'server-error', key: 'beta' });
    mock.control.set({ fault: 'unavailable', model: REASONER });
    expect(statusOf(hi(mock))).toBe(200);
    expect(statusOf(hi(mock, {}, SECOND_KEY))).toBe(500);
    expect(statusOf(hi(mock, { model: REASONER }))).toBe(503);
    expect(statusOf(mock.handle({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } }))).toBe(200);
  });

  it('the journal records what touched each request, and only those', () => {
    const mock = createMock();
    mock.control.set({ fault: 'rate-limited', times: 1, content: 'code' });
    hi(mock);
    hi(mock);
    mock.control.reset();
    hi(mock);
    const [first, second, third] = mock.journal.list();
    expect(first).toMatchObject({ status: 429, faults: ['rate-limited'], model: MODEL, control: [{ id: 1, fault: 'rate-limited', content: 'code' }] });
    expect(second).toMatchObject({ status: 200, faults: [], control: null, content: 'prose' });
    expect(third.control).toBeNull();
  });

  it('a bad change throws, naming the field, with the message the x-mock-fault header gets, and changes nothing', () => {
    const mock = createMock();
    mock.control.set({ content: 'code' });
    const viaHeader = errorOf(chat(mock, user('hi'), { 'x-mock-fault': 'rate-limited; retry_after_ms=soon' }));
    expect(() => mock.control.set({ fault: 'rate-limited; retry_after_ms=soon' })).toThrow(viaHeader.message.replace('x-mock-fault: ', 'fault: '));
    expect(() => mock.control.set({ fault: 'no-such-fault' })).toThrow(/fault: no fault named "no-such-fault"/);
    expect(() => mock.control.set({ content: 'poetry' })).toThrow(/content: unknown content profile "poetry"/);
    expect(() => mock.control.set({ pace: { jitter: 2 } })).toThrow(/\/pace\/jitter/);
    expect(() => mock.control.set({ times: 2 } as never)).toThrow(/invalid control/);
    expect(() => mock.control.replace([{ content: 'markdown' }, { fault: 'nope' }])).toThrow(/settings\[1\]\.fault/);
    expect(mock.control.get().settings).toMatchObject([{ id: 1, content: 'code' }]);
  });

  it('a key given in place of its id is refused and never repeated', () => {
    const mock = createMock();
    let message = '';
    try {
      mock.control.set({ fault: 'server-error', key: KEY });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^key: that is a key; give its id \(the ids are alpha, beta/);
    expect(message).not.toContain(KEY);
  });
});

describe('/__mock/control, over the core', () => {
  it('GET, POST, PUT and DELETE: the state, a setting added, all replaced, reset', () => {
    const mock = createMock(withConfig({}));
    expect(json(control(mock, 'GET'))).toEqual({ object: 'mock.control', settings: [] });
    expect(json(control(mock, 'POST', { fault: 'rate-limited; times=1' })).settings).toMatchObject([{ id: 1, left: { fault: 1 } }]);
    expect(
      json(
        control(mock, 'PUT', {
          settings: [
            { content: 'markdown', times: 3 },
            { pace: { ttft_ms: 5 }, model: MODEL },
          ],
        }),
      ).settings,
    ).toMatchObject([
      { id: 2, content: 'markdown', left: { content: 3 } },
      { id: 3, pace: { ttft_ms: 5 }, model: MODEL, left: { pace: null } },
    ]);
    expect(json(control(mock, 'DELETE', undefined, '/__mock/control/2')).settings.map((s: { id: number }) => s.id)).toEqual([3]);
    expect(statusOf(control(mock, 'DELETE', undefined, '/__mock/control/2'))).toBe(404);
    expect(json(control(mock, 'DELETE'))).toEqual({ object: 'mock.control', settings: [] });
    const options = json(control(mock, 'GET', undefined, '/__mock/control/options'));
    // Each fault with what it is and its parameters' defaults and help: a page offers a choice, not a blank.
    expect(options.faults.find((f: { name: string }) => f.name === 'rate-limited')).toMatchObject({
      kind: 'frontend',
      fails: [],
      params: [{ name: 'retry_after_ms', default: 1000, describe: 'the wait the Retry-After headers ask for' }],
    });
    expect(options.faults.find((f: { name: string }) => f.name === 'chat-model-other')).toMatchObject({ kind: 'deviation', fails: ['chat.model-echo'], params: [] });
    expect(new Set(options.faults.map((f: { kind: string }) => f.kind))).toEqual(new Set(['frontend', 'deviation', 'legal', 'hostile']));
    expect(options.faults).toHaveLength(FAULTS.length);
    expect(options).toMatchObject({ keys: ['alpha', 'beta'], profiles: expect.arrayContaining(['markdown']) });
    expect(JSON.stringify(options)).not.toContain(KEY);
  });

  it.each([
    [{ fault: 'no-such-fault' }, 'fault', 'unknown_fault', /^fault: no fault named/],
    [{ fault: 'rate-limited; retry_after_ms=-1' }, 'fault', 'unknown_fault', /parameter "retry_after_ms" must be a number/],
    [{ content: 'markdown; split=words' }, 'content', 'unknown_content', /^content: unknown split "words"/],
    [{ pace: { ttft_ms: 'slow' } }, 'pace', 'invalid_control', /\/pace\/ttft_ms: must be number \[mock control\]/],
    [{ fault: 'server-error', times: 0 }, 'times', 'invalid_control', /\/times: must be >= 1/],
    [{ fault: 'server-error', colour: 'red' }, null, 'invalid_control', /additional properties \(colour\)/],
    [{ model: MODEL }, null, 'invalid_control', /must have required property/],
    [{ fault: 'server-error', model: 'gpt-none' }, 'model', 'unknown_model', /^model: no model "gpt-none"/],
  ])('%j is refused with a 400 naming the field', (body, param, code, message) => {
    const mock = createMock();
    const r = control(mock, 'POST', body);
    expect(statusOf(r)).toBe(400);
    expect(errorOf(r)).toMatchObject({ param, code });
    expect(errorOf(r).message).toMatch(message);
    expect(json(control(mock, 'GET')).settings).toEqual([]);
  });

  it('a body that is no JSON, and a method it does not take, are refused', () => {
    const mock = createMock();
    expect(errorOf(mock.handle({ method: 'POST', path: '/__mock/control', headers: {}, body: 'fault=server-error' })).code).toBe('invalid_json');
    const r = control(mock, 'PATCH', {});
    expect(statusOf(r)).toBe(405);
    expect('headers' in r && r.headers.allow).toBe('GET, POST, PUT, DELETE');
  });
});

/** A request with any headers (fetch may not set Host). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('/__mock/control over HTTP, behind the boundary', () => {
  const server = serverPerTest();
  const json = { 'content-type': 'application/json' };
  const setting = JSON.stringify({ fault: 'server-error', times: 1 });

  it('curl and fetch set, read and reset it; a loopback page reads it with CORS', async () => {
    const { url, mock } = await server();
    const set = await fetch(`${url}/__mock/control`, { method: 'POST', headers: json, body: setting });
    expect(set.status).toBe(200);
    expect(mock.control.get().settings).toHaveLength(1);
    const page = await send(url, 'GET', '/__mock/control', { origin: 'http://localhost:5173' });
    expect(page.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    const chat = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { ...json, authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: MODEL, ...user('hi') }) });
    expect(chat.status).toBe(500);
    expect(((await (await fetch(`${url}/__mock/control`, { method: 'DELETE' })).json()) as { settings: unknown[] }).settings).toEqual([]);
  });

  it('a foreign Origin or Host gets a 403 and no CORS grant, and nothing changes', async () => {
    const { url, mock } = await server();
    const port = new URL(url).port;
    const tries = [
      await send(url, 'POST', '/__mock/control', { ...json, origin: 'http://evil.example' }, setting),
      await send(url, 'OPTIONS', '/__mock/control', { origin: 'http://evil.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' }),
      await send(url, 'DELETE', '/__mock/control', { origin: 'http://evil.example' }),
      await send(url, 'GET', '/__mock/control', { origin: 'http://evil.example' }),
      await send(url, 'POST', '/__mock/control', { ...json, host: `evil.example:${port}` }, setting),
      await send(url, 'POST', '/__mock/control', { ...json, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, setting),
    ];
    for (const t of tries) {
      expect(t.status).toBe(403);
      expect(Object.keys(t.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    expect(mock.control.get().settings).toEqual([]);
    expect(mock.journal.list()).toEqual([]);
  });

  it('a form-encoded POST (what a plain HTML form sends) is refused before the core', async () => {
    const { url, mock } = await server();
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const r = await send(url, 'POST', '/__mock/control', { 'content-type': type }, setting);
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body).error.code).toBe('form_write_refused');
    }
    expect(mock.control.get().settings).toEqual([]);
  });
});
