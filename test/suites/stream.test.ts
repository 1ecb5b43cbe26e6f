// The stream suite: the correct mock passes it, legal SSE forms pass it, and each check fails on a
// mock broken in the one way its rule forbids (each broken mock names exactly what it fails).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../mock/core/faults/fault.js';
import { DONE, isChat, isModels, requestJson, withPayloads, withStreamText } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { isStream, type Frame } from '../../mock/core/types.js';
import { limitsFor } from '../../suites/harness/http.js';
import { runChecks } from '../../suites/harness/runner.js';
import { STREAM } from '../../suites/stream.js';
import { USAGE } from '../../suites/usage.js';
import { KEY, notPassing, runAgainstMock } from '../support/run.js';

const CHECKS = [...STREAM, ...USAGE];
const failed = (results: Awaited<ReturnType<typeof runAgainstMock>>) => [...results.values()].filter((r) => r.outcome === 'fail').map((r) => r.id).sort();
const explain = (results: Awaited<ReturnType<typeof runAgainstMock>>) => [...results.values()].filter((r) => r.outcome !== 'pass').map((r) => `${r.id}: ${r.outcome}: ${r.message}`).join('\n');

const withUsage = (req: Parameters<NonNullable<Fault['reply']>>[1]) => (requestJson(req)?.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
const chunkAt = (payloads: any[], pick: (p: any) => boolean) => payloads.findIndex((p) => typeof p === 'object' && pick(p));
const isFinish = (p: any) => p.choices?.[0]?.finish_reason;

const BROKEN: Fault[] = [
  {
    name: 'stream-json-content-type',
    description: 'The stream is served as application/json',
    fails: ['stream.content-type'],
    reply: (r) => (isStream(r) ? { ...r, headers: { ...r.headers, 'content-type': 'application/json' } } : r),
  },
  {
    name: 'stream-no-blank-lines',
    description: 'Events are not separated by a blank line: the whole stream is one event',
    fails: ['stream.chunk-json', 'stream.done-marker'],
    reply: (r) => withStreamText(r, (t) => t.replace(/\n\n(?=data: )/g, '\n')),
  },
  {
    name: 'stream-unterminated-last-event',
    description: 'The last event (data: [DONE]) is never ended by a blank line, so a client drops it',
    fails: ['stream.events', 'stream.done-marker'],
    reply: (r) => withStreamText(r, (t) => t.replace(/\n\n$/, '')),
  },
  {
    name: 'stream-invalid-utf8',
    description: 'A byte that is not UTF-8 inside the first content string',
    fails: ['stream.events'],
    reply: (r) =>
      withStreamText(r, (t) => {
        const at = t.indexOf('"content":"') + '"content":"'.length;
        return [{ delayMs: 0, bytes: Buffer.concat([Buffer.from(t.slice(0, at)), Buffer.from([0xff]), Buffer.from(t.slice(at))]) }];
      }),
  },
  {
    name: 'stream-reset',
    description: 'The connection is reset after the first three events',
    fails: ['stream.complete', 'stream.done-marker', 'stream.one-finish-reason', 'usage.stream-present'],
    // The pause lets the client read what was sent before the reset discards its buffers.
    reply: (r) => (isStream(r) ? { ...r, stream: [...[...r.stream].slice(0, 3), { delayMs: 30, reset: true } as Frame] } : r),
  },
  {
    name: 'stream-json-split-over-events',
    description: 'One JSON chunk is split over two events',
    fails: ['stream.chunk-json'],
    reply: (r) =>
      withPayloads(r, (ps) => {
        const text = JSON.stringify(ps[2]);
        const cut = text.indexOf(',"') + 1;
        return [...ps.slice(0, 2), text.slice(0, cut), text.slice(cut), ...ps.slice(3)];
      }),
  },
  {
    name: 'stream-chunk-object-wrong',
    description: 'Chunks say object: "chat.completion"',
    fails: ['stream.chunk-schema'],
    reply: (r) => withPayloads(r, (ps) => ps.map((p) => (typeof p === 'object' ? { ...p, object: 'chat.completion' } : p))),
  },
  {
    name: 'stream-ids-differ',
    description: 'Chunks after the second carry another id',
    fails: ['stream.single-id'],
    reply: (r) => withPayloads(r, (ps) => ps.map((p, i) => (i >= 2 && typeof p === 'object' ? { ...p, id: 'chatcmpl-other' } : p))),
  },
  {
    name: 'stream-first-delta-without-role',
    description: 'The first delta has no role',
    fails: ['stream.first-delta-role'],
    reply: (r) =>
      withPayloads(r, (ps) => {
        delete ps[0].choices[0].delta.role;
        return ps;
      }),
  },
  {
    name: 'stream-two-finish-reasons',
    description: 'A content chunk already says finish_reason "stop", before the finishing chunk',
    fails: ['stream.one-finish-reason'],
    reply: (r) =>
      withPayloads(r, (ps) => {
        ps[1].choices[0].finish_reason = 'stop';
        return ps;
      }),
  },
  {
    name: 'stream-finish-reason-outside-enum',
    description: 'The finishing chunk says finish_reason "done"',
    fails: ['stream.one-finish-reason', 'stream.chunk-schema'],
    reply: (r) =>
      withPayloads(r, (ps) => {
        ps[chunkAt(ps, isFinish)].choices[0].finish_reason = 'done';
        return ps;
      }),
  },
  {
    name: 'stream-no-done',
    description: 'The stream ends without data: [DONE]',
    fails: ['stream.done-marker'],
    reply: (r) => withPayloads(r, (ps) => ps.filter((p) => p !== DONE)),
  },
  {
    name: 'stream-event-after-done',
    description: 'A content chunk is sent again after [DONE]',
    fails: ['stream.done-marker'],
    reply: (r) => withPayloads(r, (ps) => [...ps, ps[1]]),
  },
  {
    name: 'stream-bytes-after-done',
    description: 'Stray text follows [DONE] (no data lost: it is no event)',
    fails: ['stream.done-marker'],
    reply: (r) => withStreamText(r, (t) => `${t}oops`),
  },
];

describe('stream suite', () => {
  it('the correct mock passes every check', async () => {
    const results = await runAgainstMock(CHECKS);
    expect(notPassing(results)).toEqual([]);
  });

  it('has a broken mock that fails each check', () => {
    const killed = new Set(BROKEN.flatMap((f) => f.fails));
    expect(STREAM.map((c) => c.id).filter((id) => !killed.has(id))).toEqual([]);
  });

  describe.concurrent.each(BROKEN.map((f) => [f.name, f] as const))('%s', (_name, fault) => {
    it(`fails exactly ${fault.fails.join(', ')}`, async () => {
      const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
      expect(failed(results), explain(results)).toEqual([...fault.fails].sort());
    });
  });

  it('reports a stream the server closes mid-body as cut, with what arrived', async () => {
    // A plain close (no reset) inside a chunked body: the end of the stream never comes.
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}\n\n');
        setTimeout(() => res.destroy(), 20);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const { results } = await runChecks(
        STREAM.filter((c) => c.id === 'stream.complete' || c.id === 'stream.events'),
        {
          target: { baseUrl: url, siteUrl: url, siteUrlExplicit: true, apiKey: KEY, models: ['m'], headers: {}, embeddedMock: false },
          limits: limitsFor(2_000),
          concurrency: 2,
          retry: { maxRetries: 0, maxWaitMs: 0 },
        },
      );
      const byId = new Map(results.map((r) => [r.id, r]));
      expect(byId.get('stream.complete')?.outcome).toBe('fail');
      expect(byId.get('stream.complete')?.message).toMatch(/the stream was cut before its end .* 1 events; the last bytes seen: .*"role":"assistant"/);
      expect(byId.get('stream.events')?.outcome).toBe('pass');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('passes the legal forms of SSE, and notes them', async () => {
    const legal: Record<string, string[]> = {
      'legal-data-without-space': ['data: lines without a space after the colon: '],
      'legal-mixed-line-endings': ['line endings mixed within the stream', 'lines ending in CR (', 'lines ending in CRLF ('],
      'legal-multi-line-data': ['events with several data: lines: '],
      'legal-comments': ['comment lines: '],
      'legal-event-id-retry': ['event: fields: ', 'id: fields: ', 'retry: fields: '],
      'legal-byte-drip': [],
    };
    await Promise.all(
      Object.entries(legal).map(async ([name, notes]) => {
        const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [name] }) });
        expect(notPassing(results), name).toEqual([]);
        const seen = results.get('stream.events')?.notes ?? [];
        for (const n of notes) expect(seen.some((s) => s.includes(n) && s.includes('(legal)')), `${name}: ${seen.join(' | ')}`).toBe(true);
      }),
    );
  });

  it('passes a payload split into two data: lines at a comma', async () => {
    const twoLines: Fault = {
      name: 'two-data-lines',
      description: 'Each JSON payload over two data: lines',
      fails: [],
      reply: (r) => withStreamText(r, (t) => t.replace(/^data: (\{.*?),"/gm, 'data: $1,\ndata: "')),
    };
    const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [twoLines] }) });
    expect(notPassing(results)).toEqual([]);
    expect(results.get('stream.events')?.notes?.join()).toMatch(/several data: lines/);
  });

  it('is not tested when no model is known', async () => {
    const noList: Fault = { name: 'no-list', description: 'The model list fails', fails: [], reply: (r, req) => (isModels(req) ? { status: 500, headers: {}, body: '' } : r) };
    const results = await runAgainstMock(STREAM, { mock: createMock(undefined, { faults: [noList] }) });
    for (const r of results.values()) expect(r.outcome, r.id).toBe('not-tested');
    expect(results.get('stream.events')?.message).toMatch(/--model/);
  });

  it('fails every check on a refused streaming request, naming the refusal', async () => {
    const refuse: Fault = { name: 'refuse', description: 'Streams are refused', fails: [], reply: (r, req) => (isChat(req) && isStream(r) ? { status: 400, headers: { 'content-type': 'application/json' }, body: '{}' } : r) };
    const results = await runAgainstMock(STREAM, { mock: createMock(undefined, { faults: [refuse] }) });
    for (const r of results.values()) {
      expect(r.outcome, r.id).toBe('fail');
      expect(r.message).toMatch(/refused: status 400/);
    }
  });
});
