// The runner against servers that break HTTP: every run ends with verdicts, within its limits,
// with evidence and without a hang, an unhandled rejection or a stack trace.
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../suites/index.js';
import { HttpClient } from '../../suites/harness/http.js';
import { runChecks } from '../../suites/harness/runner.js';
import { HOSTILE, startHostile } from '../support/hostile.js';

const LIMITS = { connectTimeoutMs: 300, idleTimeoutMs: 300, deadlineMs: 400, maxBodyBytes: 64 * 1024 };

describe.each(HOSTILE)('against a server that answers with $name', (hostile) => {
  it('reads at most the cap plus one read, and never throws', async () => {
    const server = await startHostile(hostile);
    const http = new HttpClient(LIMITS);
    try {
      const r = await http.send({ method: 'GET', url: `${server.url}/v1/models`, headers: {} });
      expect(r.body.length).toBeLessThanOrEqual(LIMITS.maxBodyBytes);
      expect(r.bytesRead).toBeLessThanOrEqual(LIMITS.maxBodyBytes + 64 * 1024);
      expect(r.durationMs).toBeLessThan(LIMITS.deadlineMs + 500);
      if (hostile.name !== 'invalid-utf8-in-json' && hostile.name !== 'empty-200') expect(r.complete).toBe(false);
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('ends a run of every check with verdicts and readable evidence', async () => {
    const server = await startHostile(hostile);
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const started = performance.now();
      const { results } = await runChecks(CHECKS, {
        target: { baseUrl: server.url, siteUrl: server.url, siteUrlExplicit: true, apiKey: 'sk-hostile-test-key-000000', secondApiKey: 'sk-hostile-test-key-000001', models: ['m'], headers: {}, embeddedMock: false },
        limits: LIMITS,
        concurrency: 8,
        retry: { maxRetries: 0, maxWaitMs: 0 },
      });
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(results).toHaveLength(CHECKS.length);
      expect(results.filter((r) => r.outcome === 'fail').length).toBeGreaterThan(0);
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
