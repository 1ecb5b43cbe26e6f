// The request journal: what the mock received and how it answered, by key id (never the key),
// cleared by DELETE, bounded by journal_size, the same in-process and over HTTP.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { chat, json, KEY, MODEL, scenarioMock, SECOND_KEY, statusOf, user, withConfig, serverPerTest } from './helpers.js';

const journalOf = (mock: ReturnType<typeof createMock>) => {
  const r = mock.handle({ method: 'GET', path: '/__mock/requests', headers: {} });
  expect(statusOf(r)).toBe(200);
  return json(r) as { object: string; data: any[] };
};

describe('the journal', () => {
  it('records method, path, parsed body, key id, scenario, faults, status and stream', () => {
    const mock = scenarioMock([{ name: 'greeting', match: { last_user: 'hello' }, reply: { text: 'Hi.' } }]);
    chat(mock, user('hello'));
    const streamed = chat(mock, { ...user('something'), stream: true }, { 'x-mock-fault': 'server-error' }, SECOND_KEY);
    expect(statusOf(streamed)).toBe(500);
    mock.handle({ method: 'GET', path: '/v1/models?limit=5', headers: { authorization: `Bearer ${SECOND_KEY}` } });
    mock.handle({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${KEY}` }, body: '{not json' });
    const { object, data } = journalOf(mock);
    expect(object).toBe('list');
    expect(data).toHaveLength(4);
    expect(data[0]).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/chat/completions',
      key_id: 'alpha',
      body: { model: MODEL, messages: [{ role: 'user', content: 'hello' }] },
      scenario: 'greeting',
      faults: [],
      status: 200,
      stream: false,
    });
    expect(Date.parse(data[0].time)).not.toBeNaN();
    expect(data[1]).toMatchObject({ seq: 2, key_id: 'beta', scenario: null, faults: ['server-error'], status: 500, body: { stream: true } });
    expect(data[2]).toMatchObject({ seq: 3, method: 'GET', path: '/v1/models?limit=5', key_id: 'beta', body: null, status: 200 });
    expect(data[3]).toMatchObject({ seq: 4, key_id: 'alpha', body: '{not json', status: 400 });
  });

  it('never holds a key: not the configured ones, not a wrong one, not a malformed header', () => {
    const mock = createMock();
    const wrong = 'sk-wrong-but-secret-key-0000000000009';
    chat(mock, user('hi'));
    chat(mock, { ...user('hi'), stream: true }, {}, SECOND_KEY);
    expect(statusOf(chat(mock, user('hi'), {}, wrong))).toBe(401);
    expect(statusOf(mock.handle({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Basic ${wrong}x` }, body: '{}' }))).toBe(401);
    mock.handle({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } });
    const r = mock.handle({ method: 'GET', path: '/__mock/requests', headers: {} });
    const text = 'body' in r ? String(r.body) : '';
    expect(JSON.parse(text).data).toHaveLength(5);
    for (const secret of [KEY, SECOND_KEY, wrong]) expect(text).not.toContain(secret);
    expect(JSON.parse(text).data.map((e: { key_id: string | null }) => e.key_id)).toEqual(['alpha', 'beta', null, null, 'alpha']);
  });

  it('DELETE clears it, and reading or clearing it is not journaled', () => {
    const mock = createMock();
    chat(mock, user('a'));
    chat(mock, user('b'));
    const cleared = mock.handle({ method: 'DELETE', path: '/__mock/requests', headers: {} });
    expect(json(cleared)).toEqual({ cleared: 2 });
    expect(journalOf(mock).data).toEqual([]);
    expect(mock.journal.list()).toHaveLength(0);
    chat(mock, user('c'));
    expect(journalOf(mock).data.map((e) => e.body.messages[0].content)).toEqual(['c']);
    const post = mock.handle({ method: 'POST', path: '/__mock/requests', headers: {} });
    expect(statusOf(post)).toBe(405);
  });

  it('is bounded by journal_size: the oldest entries go first', () => {
    const mock = createMock(withConfig({ journal_size: 3 }));
    for (const t of ['1', '2', '3', '4', '5']) chat(mock, user(t));
    const data = journalOf(mock).data;
    expect(data.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(data.map((e) => e.body.messages[0].content)).toEqual(['3', '4', '5']);
    const none = createMock(withConfig({ journal_size: 0 }));
    chat(none, user('x'));
    expect(journalOf(none).data).toEqual([]);
  });

  describe('over HTTP', () => {
    const serve = serverPerTest();

    it('GET /__mock/requests shows what mock.journal.list() holds; DELETE empties both', async () => {
      const server = await serve();
      const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
      await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: MODEL, ...user('one') }) })).text();
      await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: MODEL, ...user('two'), stream: true }) })).text();
      await (await fetch(`${server.url}/v1/models`, { headers })).text();
      const res = await fetch(`${server.url}/__mock/requests`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(JSON.parse(text).data).toEqual(JSON.parse(JSON.stringify(server.mock.journal.list())));
      expect(JSON.parse(text).data).toHaveLength(3);
      expect(text).not.toContain(KEY);
      const del = await fetch(`${server.url}/__mock/requests`, { method: 'DELETE' });
      expect(await (del.json() as Promise<any>)).toEqual({ cleared: 3 });
      expect(server.mock.journal.list()).toHaveLength(0);
      expect((await ((await fetch(`${server.url}/__mock/requests/`)).json() as Promise<any>)).data).toEqual([]);
    });
  });
});
