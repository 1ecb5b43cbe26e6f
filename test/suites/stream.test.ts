// The stream suite: the correct mock passes it, legal SSE forms pass it (and are noted), and a cut
// or refused stream is reported. That each check fails on a mock broken in the one way its rule
// forbids is proven by the fault catalogue (mock/core/faults/stream.ts, test/faults.test.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../mock/core/faults/fault.js';
import { isChat, isModels, withStreamText } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { isStream } from '../../mock/core/types.js';
import { limitsFor } from '../../engine/http.js';
import { runChecks } from '../../engine/runner.js';
import { STREAM } from '../../suites/stream.js';
import { CHECKS as ALL } from '../../suites/index.js';
import { USAGE } from '../../suites/usage.js';
import { KEY, notPassing, runAgainstMock } from '../support/run.js';
import { ONLY_A_HANG_MS } from '../support/machine.js';

const CHECKS = [...STREAM, ...USAGE];

describe('stream suite', () => {
  it('the correct mock passes every check', async () => {
    const results = await runAgainstMock(CHECKS);
    expect(notPassing(results)).toEqual([]);
  });

  it('leaves the chunk rules not-tested when no event is JSON, pointing at stream.chunk-json', async () => {
    const results = await runAgainstMock(STREAM, { mock: createMock(undefined, { faults: ['stream-no-blank-lines'] }) });
    for (const id of ['stream.chunk-schema', 'stream.single-id', 'stream.first-delta-role', 'stream.one-finish-reason']) {
      expect(results.get(id)?.outcome, id).toBe('not-tested');
      expect(results.get(id)?.message, id).toMatch(/see stream\.chunk-json/);
    }
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
          limits: limitsFor(ONLY_A_HANG_MS),
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
        for (const n of notes)
          expect(
            seen.some((s) => s.includes(n) && s.includes('(legal)')),
            `${name}: ${seen.join(' | ')}`,
          ).toBe(true);
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

  it('leaves every check not-tested on a refused streaming request, blocked by the check whose request it is, naming the refusal', async () => {
    const refuse: Fault = {
      name: 'refuse',
      description: 'Streams are refused',
      fails: [],
      reply: (r, req) => (isChat(req) && isStream(r) ? { status: 400, headers: { 'content-type': 'application/json' }, body: '{}' } : r),
    };
    const results = await runAgainstMock(STREAM, { mock: createMock(undefined, { faults: [refuse] }) });
    for (const r of results.values()) {
      expect(r.outcome, r.id).toBe('not-tested');
      expect(r.blockedBy, r.id).toEqual(['chat.role.user']);
      expect(r.message).toMatch(/not served: status 400\): see chat\.role\.user/);
    }
  });
});

describe('stream rules on every stream', () => {
  it.concurrent.each([
    ['stream-no-done-tool-calls', 'stream.done-marker', /tool/],
    ['stream-first-delta-without-role-structured', 'stream.first-delta-role', /response_format/],
    ['stream-usage-before-finish-tool-calls', 'usage.stream-position', /tool/],
  ])('%s: %s fails, naming the stream it broke on, with that stream as its first evidence', async (fault, id, label) => {
    const results = await runAgainstMock(
      ALL.filter((c) => c.suite !== 'catalog'),
      { mock: createMock(undefined, { faults: [fault] }) },
    );
    const r = results.get(id)!;
    expect(r.outcome, `${r.outcome}: ${r.message}`).toBe('fail');
    expect(r.message).not.toContain('the basic stream');
    expect(r.message).toMatch(label);
    const path = r.paths!.find((p) => p.outcome === 'fail')!;
    expect(path.evidence[0].label).toMatch(label);
    expect(JSON.parse(path.evidence[0].request.body!).stream).toBe(true);
  });
});
