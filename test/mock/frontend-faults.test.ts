// Failures a frontend must handle, served per request (x-mock-fault), per scenario, or at a seeded
// rate: 429 with retry headers, 500, 503, slow answers, hangs, dropped and failed streams, refusals.
import { afterEach, describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import type { Frame } from '../../mock/core/types.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { chat, chatRequest, events, finishOf, frames, headersOf, json, KEY, scenarioMock, statusOf, user, withConfig } from './helpers.js';

const fault = (mock: ReturnType<typeof createMock>, name: string, body = {}) => chat(mock, { ...user('hi'), ...body }, { 'x-mock-fault': name });
const dataFrames = (fs: Frame[]) => fs.filter((f) => 'bytes' in f && String(f.bytes).startsWith('data: '));

describe('frontend faults in the core', () => {
  it('rate-limited: 429 with retry-after (seconds) and retry-after-ms', () => {
    const mock = createMock();
    const r = fault(mock, 'rate-limited');
    expect(statusOf(r)).toBe(429);
    expect(headersOf(r)).toMatchObject({ 'retry-after': '1', 'retry-after-ms': '1000' });
    expect(json(r).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    const custom = fault(mock, 'rate-limited; retry_after_ms=2500');
    expect(headersOf(custom)).toMatchObject({ 'retry-after': '3', 'retry-after-ms': '2500' });
  });

  it('times=1 faults only the first request that names it', () => {
    const mock = createMock();
    expect(statusOf(fault(mock, 'rate-limited; times=1'))).toBe(429);
    expect(statusOf(fault(mock, 'rate-limited; times=1'))).toBe(200);
    expect(statusOf(fault(mock, 'rate-limited; times=1'))).toBe(200);
    const twice = createMock(undefined, { faults: ['server-error; times=2'] });
    expect([1, 2, 3].map(() => statusOf(chat(twice, user('hi'))))).toEqual([500, 500, 200]);
  });

  it('server-error 500, unavailable 503 with Retry-After', () => {
    const mock = createMock();
    const e500 = fault(mock, 'server-error');
    expect(statusOf(e500)).toBe(500);
    expect(json(e500).error.type).toBe('server_error');
    const e503 = fault(mock, 'unavailable; retry_after_ms=3000');
    expect(statusOf(e503)).toBe(503);
    expect(headersOf(e503)).toMatchObject({ 'retry-after': '3', 'retry-after-ms': '3000' });
  });

  it('loading: 503 "Loading model" with Retry-After on every route while the model loads, then the right answers', async () => {
    const loadingFor = (mock: ReturnType<typeof createMock>) => [
      statusOf(chat(mock, user('hi'))),
      statusOf(mock.handle({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${KEY}` } })),
    ];
    const counted = createMock(undefined, { faults: ['loading; times=2; retry_after_ms=1500'] });
    const first = chat(counted, user('hi'));
    expect(statusOf(first)).toBe(503);
    expect(headersOf(first)).toMatchObject({ 'retry-after': '2', 'retry-after-ms': '1500' });
    expect(json(first).error).toMatchObject({ message: 'Loading model', type: 'unavailable_error' });
    expect(loadingFor(counted)).toEqual([503, 200]);
    expect(loadingFor(createMock(undefined, { faults: ['loading; ms=1e15'] }))).toEqual([503, 503]);
    // Timed from the first request it answers: loaded once that long has passed, on every route.
    const timed = createMock(undefined, { faults: ['loading; ms=50'] });
    expect(statusOf(chat(timed, user('hi')))).toBe(503);
    await new Promise((r) => setTimeout(r, 60));
    expect(loadingFor(timed)).toEqual([200, 200]);
  });

  it('several faults in one header, applied in order', () => {
    const mock = createMock();
    const r = fault(mock, 'slow; delay_ms=50, server-error');
    expect(statusOf(r)).toBe(500);
    expect(mock.journal.list()[0].faults).toEqual(['slow; delay_ms=50', 'server-error']);
    const slowAfter = fault(mock, 'server-error, slow; delay_ms=50');
    expect('delayMs' in slowAfter && slowAfter.delayMs).toBe(50);
  });

  it('slow: the right answer, later; a stream’s first frame waits', () => {
    const mock = createMock();
    const r = fault(mock, 'slow; delay_ms=750');
    expect(statusOf(r)).toBe(200);
    expect('delayMs' in r && r.delayMs).toBe(750);
    expect(json(r).choices[0].message.content.length).toBeGreaterThan(0);
    const fs = frames(fault(mock, 'slow; delay_ms=750', { stream: true }));
    expect(fs[0].delayMs).toBe(750);
    expect(fs.slice(1).every((f) => f.delayMs === 0)).toBe(true);
    expect(events(fs).at(-1)).toBe('[DONE]');
  });

  it('drop-after N: a reset after N data events', () => {
    for (const n of [1, 3, 5]) {
      const fs = frames(fault(createMock(), `drop-after; chunks=${n}`, { stream: true }));
      expect(dataFrames(fs)).toHaveLength(n);
      expect(fs.at(-1)).toEqual({ delayMs: 0, reset: true });
      expect(fs.filter((f) => 'reset' in f)).toHaveLength(1);
    }
  });

  it('stream-error: a data: {"error": ...} event, then the end, without [DONE]', () => {
    const fs = frames(fault(createMock(), 'stream-error; chunks=3', { stream: true }));
    const evs = events(fs);
    expect(evs).toHaveLength(4);
    expect(evs.slice(0, 3).every((e) => e.object === 'chat.completion.chunk')).toBe(true);
    expect(evs[3]).toEqual({ error: expect.objectContaining({ message: expect.any(String), type: 'server_error' }) });
    expect(evs).not.toContain('[DONE]');
    expect(fs.some((f) => 'reset' in f)).toBe(false);
  });

  it('refusal: content_filter, the refusal text, no content', () => {
    const mock = createMock();
    const body = json(fault(mock, 'refusal'));
    expect(body.choices[0].finish_reason).toBe('content_filter');
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.refusal).toMatch(/can't help/);
    const fs = frames(fault(mock, 'refusal', { stream: true }));
    expect(finishOf(fs)).toBe('content_filter');
    expect(events(fs).some((e) => typeof e === 'object' && e.choices?.[0]?.delta?.content)).toBe(false);
    expect(events(fs).some((e) => typeof e === 'object' && e.choices?.[0]?.delta?.refusal)).toBe(true);
  });

  it('hang: an answer that never comes', () => {
    const r = fault(createMock(), 'hang');
    expect('delayMs' in r && r.delayMs).toBeGreaterThan(24 * 3600 * 1000);
  });

  it('an unknown fault name in the header is a 400 JSON error, and nothing else runs', () => {
    const mock = createMock();
    const r = fault(mock, 'server-error, no-such-fault');
    expect(statusOf(r)).toBe(400);
    expect(headersOf(r)['content-type']).toMatch(/application\/json/);
    const { error } = json(r);
    expect(error.code).toBe('unknown_fault');
    expect(error.message).toContain('no-such-fault');
  });

  it('via a scenario: only the requests it matches', () => {
    const mock = scenarioMock([
      { name: 'down', match: { last_user: 'down' }, reply: { fault: 'unavailable' } },
      { name: 'drop', match: { last_user: 'drop', stream: true }, reply: { fault: { name: 'drop-after', params: { chunks: 2 } } } },
    ]);
    expect(statusOf(chat(mock, user('down')))).toBe(503);
    expect(statusOf(chat(mock, user('up')))).toBe(200);
    const fs = frames(chat(mock, { ...user('drop'), stream: true }));
    expect(dataFrames(fs)).toHaveLength(2);
    expect(fs.at(-1)).toMatchObject({ reset: true });
    expect(mock.journal.list().map((e) => e.faults)).toEqual([['unavailable'], [], ['drop-after']]);
  });

  it('at a configured rate with a seed: about that share, the same requests on an identical mock', () => {
    const config = withConfig({ faults: { random: { rate: 0.5, seed: 42, pool: ['server-error', 'unavailable'] } } });
    const run = () => {
      const mock = createMock(config);
      return Array.from({ length: 200 }, (_, i) => statusOf(chat(mock, user(`request ${i}`))));
    };
    const first = run();
    const faulted = first.filter((s) => s !== 200).length;
    expect(faulted).toBeGreaterThan(70);
    expect(faulted).toBeLessThan(130);
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(20);
    expect(first.filter((s) => s === 503).length).toBeGreaterThan(20);
    expect(run()).toEqual(first);
    const other = createMock(withConfig({ faults: { random: { rate: 0.5, seed: 43, pool: ['server-error'] } } }));
    expect(Array.from({ length: 200 }, (_, i) => statusOf(chat(other, user(`request ${i}`))) !== 200)).not.toEqual(first.map((s) => s !== 200));
    // Rate 0 never faults; non-chat routes are never drawn for.
    const never = createMock(withConfig({ faults: { random: { rate: 0, pool: ['server-error'] } } }));
    expect(Array.from({ length: 50 }, () => statusOf(chat(never, user('x')))).every((s) => s === 200)).toBe(true);
    const always = createMock(withConfig({ faults: { random: { rate: 1, pool: ['server-error'] } } }));
    expect(statusOf(always.handle({ method: 'GET', path: '/models.json', headers: {} }))).toBe(200);
  });
});

describe('frontend faults over HTTP', () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const post = (name: string, extra: Record<string, unknown> = {}, init: RequestInit = {}) => {
    const req = chatRequest({ ...user('hi'), ...extra }, { 'x-mock-fault': name });
    return fetch(`${server!.url}/v1/chat/completions`, { method: 'POST', headers: req.headers as Record<string, string>, body: req.body as string, ...init });
  };

  it('hang: no answer comes, the client’s timeout of 200 ms is what ends the wait, and the server keeps serving', async () => {
    server = await startMockServer();
    // The hang never answers: an answer resolves this, a cut connection is a TypeError, and an
    // abort that did not work would hang the test.
    await expect(post('hang', {}, { signal: AbortSignal.timeout(200) })).rejects.toMatchObject({ name: 'TimeoutError' });
    const ok = await post('');
    expect(ok.status).toBe(200);
    expect((await (ok.json() as Promise<any>)).object).toBe('chat.completion');
  });

  it('slow: the answer arrives after the delay', async () => {
    server = await startMockServer();
    const t0 = performance.now();
    const res = await post('slow; delay_ms=150');
    expect(res.status).toBe(200);
    await (res.json() as Promise<any>);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('drop-after: the N chunks arrive, then the connection is reset mid-stream, without [DONE]', async () => {
    server = await startMockServer();
    const res = await post('drop-after; chunks=3', { stream: true });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    const read = async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString('utf8');
      }
    };
    await expect(read()).rejects.toThrow();
    expect(text).not.toContain('[DONE]');
    // Over HTTP as in-process: exactly the given number of chunks before the drop.
    expect(text.split('\n\n').filter((e) => e.startsWith('data: ')).length).toBe(3);
    expect((await post('')).status).toBe(200);
  });

  it('stream-error: the error event arrives and the stream ends cleanly, without [DONE]', async () => {
    server = await startMockServer();
    const res = await post('stream-error', { stream: true });
    const text = await res.text();
    const datas = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice(6));
    expect(datas).toHaveLength(3);
    expect(JSON.parse(datas[2]).error.type).toBe('server_error');
    expect(text).not.toContain('[DONE]');
  });

  it('rate-limited and an unknown fault, on the wire', async () => {
    server = await startMockServer();
    const limited = await post('rate-limited; retry_after_ms=200');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('retry-after-ms')).toBe('200');
    await limited.text();
    const unknown = await post('bogus');
    expect(unknown.status).toBe(400);
    expect((await (unknown.json() as Promise<any>)).error.code).toBe('unknown_fault');
  });

  it('refuses a parameter a fault does not take, or of the wrong kind, naming it', async () => {
    server = await startMockServer();
    for (const [ref, says] of [
      ['drop-after; chunk=3', 'fault "drop-after" takes no parameter "chunk" (it takes chunks, times)'],
      ['drop-after; chunks=three', 'fault "drop-after": parameter "chunks" must be a number of at least 0, not "three"'],
      ['rate-limited; times=1.5', 'fault "rate-limited": parameter "times" must be a whole number of at least 0, not "1.5"'],
      ['slow; delay_ms', 'fault "slow": parameter "delay_ms" has no value (write delay_ms=VALUE)'],
      ['server-error; chunks=2', 'fault "server-error" takes no parameter "chunks" (it takes times)'],
    ]) {
      const res = await post(ref, { stream: true });
      expect(res.status, ref).toBe(400);
      expect((await (res.json() as Promise<any>)).error.message).toBe(`x-mock-fault: ${says}`);
    }
  });
});
