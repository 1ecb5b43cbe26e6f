// The runner against servers that break HTTP (the hostile faults of the catalogue): every run ends
// with verdicts within its limits, with readable evidence, without a hang, an unhandled rejection
// or a stack trace, and what it buffers stays bounded.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { FAULTS } from '../../mock/core/faults/index.js';
import { startMockServer } from '../../mock/http.js';
import { CHECKS } from '../../suites/index.js';
import { HttpClient, type RequestSpec, type TransportErrorKind } from '../../engine/http.js';
import { runChecks } from '../../engine/runner.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { within } from '../support/machine.js';

// The hostile servers never answer whole: any limit cuts them.
const LIMITS = { connectTimeoutMs: 300, idleTimeoutMs: 300, deadlineMs: 400, maxBodyBytes: 64 * 1024 };
/** One read from a socket is at most this large on Linux loopback with Node's defaults. */
const ONE_READ = 64 * 1024;
const HOSTILE = FAULTS.filter((f) => f.hostile);
/** How an answer of each ends: by the server's own end or failure, or by the limit that must end it
 * (an endless stream by --timeout: without it the cap would, later; silence and a drip by the idle
 * limit or --timeout, whichever fires first). --timeout may end any of them on a machine too busy
 * to answer in 400 ms. */
const ENDS: Record<string, (TransportErrorKind | 'complete')[]> = {
  'hostile-random-bytes': ['protocol', 'deadline'],
  'hostile-headers-then-nothing': ['timeout', 'deadline'],
  'hostile-drip': ['timeout', 'deadline'],
  'hostile-stream-forever': ['deadline'],
  'hostile-hundred-megabytes': ['cap', 'deadline'],
  'hostile-reset-mid-stream': ['reset', 'deadline'],
  'hostile-empty-200': ['complete', 'deadline'],
  'hostile-invalid-utf8': ['complete', 'deadline'],
  'not-the-api-html': ['complete', 'deadline'],
};

describe.each(HOSTILE)('against the fault $name', (fault) => {
  it('reads at most the cap plus one read, is ended by the limit or the failure it meets, and never throws', async () => {
    expect(ENDS, 'how its answers end is listed').toHaveProperty([fault.name]);
    const server = await startMockServer({ mock: createMock(undefined, { faults: [fault] }) });
    const http = new HttpClient(LIMITS);
    try {
      const specs: RequestSpec[] = [
        { method: 'GET' as const, url: `${server.url}/v1/models`, headers: { authorization: `Bearer ${KEY}` } },
        {
          method: 'POST' as const,
          url: `${server.url}/v1/chat/completions`,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'hi' }], stream: true }),
        },
      ];
      for (const spec of specs) {
        const r = await http.send(spec);
        expect(r.body.length).toBeLessThanOrEqual(LIMITS.maxBodyBytes);
        expect(r.bytesRead).toBeLessThanOrEqual(LIMITS.maxBodyBytes + ONE_READ);
        expect(ENDS[fault.name], `${spec.method}: ${r.error?.message ?? 'complete'} after ${r.durationMs} ms`).toContain(r.error?.kind ?? 'complete');
      }
    } finally {
      await http.close();
      await server.close();
    }
  });
});

// The runs wait on their limits most of the time: side by side, they take about as long as the longest.
describe.concurrent.each(HOSTILE)('a run against the fault $name', (fault) => {
  it('ends with a verdict for every check and readable evidence', async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: [fault] }) });
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      // Every server here ends or is ended by a limit: a run that hung would meet the test's timeout.
      const { results } = await runChecks(CHECKS, {
        target: { baseUrl: server.url, siteUrl: server.url, siteUrlExplicit: true, apiKey: KEY, secondApiKey: SECOND_KEY, models: ['mock-chat-1'], headers: {}, embeddedMock: false },
        // The quiet machine's limits, as this one meets them now: the bytes the servers send before
        // their limit come within it, however busy the machine (the evidence shows them below).
        limits: { ...LIMITS, idleTimeoutMs: within(LIMITS.idleTimeoutMs), deadlineMs: within(LIMITS.deadlineMs) },
        concurrency: 8,
        retry: { maxRetries: 0, maxWaitMs: 0 },
      });
      expect(results).toHaveLength(CHECKS.length);
      const failed = results.filter((r) => r.outcome === 'fail');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.some((r) => r.evidence.length > 0)).toBe(true);
      // The bytes seen, when there were any, are shown (cut to a readable excerpt).
      if (!['hostile-headers-then-nothing', 'hostile-empty-200'].includes(fault.name))
        expect(
          failed.some((r) => r.evidence.some((e) => (e.excerpt ?? '').length > 0)),
          'some failure shows the bytes seen',
        ).toBe(true);
      for (const r of results) {
        expect(r.message ?? '').not.toMatch(/internal error|\n\s+at /);
        for (const e of r.evidence) expect((e.excerpt ?? '').length).toBeLessThan(1400);
      }
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await server.close();
    }
  });
});
