// The runner's promises to a CI pipeline: a 429 beyond the retry budget is not-tested, not
// failed; a filtered-out check sends nothing; identical requests are sent once.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { CHECKS } from '../../suites/index.js';
import { exitCodeFor } from '../../report/report.js';
import { selectChecks } from '../../engine/runner.js';
import { runAgainstMock } from '../support/run.js';
import { runSession } from '../../suites/session.js';
import { KEY, SECOND_KEY } from '../support/run.js';

describe('the runner', () => {
  it('leaves a check not-tested, not failed, when the server stays at 429 past Retry-After', async () => {
    const results = await runAgainstMock(selectChecks(CHECKS, { suites: ['chat'] }), { mock: createMock(undefined, { faults: ['rate-limited; retry_after_ms=20'] }) });
    const outcomes = [...results.values()].map((r) => r.outcome);
    expect(outcomes).not.toContain('fail');
    expect(outcomes).toContain('not-tested');
    expect([...results.values()].find((r) => r.outcome === 'not-tested')?.message).toMatch(/rate limited/);
    expect(exitCodeFor([...results.values()], { strict: true, requireComplete: false })).toBe(0);
    expect(exitCodeFor([...results.values()], { strict: false, requireComplete: true })).toBe(1);
  });

  it('passes after a 429 that the retry gets past', async () => {
    const mock = createMock(undefined, { faults: ['rate-limited; retry_after_ms=20; times=1'] });
    const results = await runAgainstMock(selectChecks(CHECKS, { checks: ['models.list-shape'] }), { mock });
    expect(results.get('models.list-shape')?.outcome).toBe('pass');
    expect(mock.journal.list().map((e) => e.status)).toEqual([429, 200]);
  });

  it('sends only what the selected checks need, each distinct request once', async () => {
    const mock = createMock();
    const server = await startMockServer({ mock });
    try {
      await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, checks: ['models.unique-ids', 'models.object-constants', 'models.list-shape'] });
      // The probe (reachable, the key not refused), then the one model list the three checks share.
      expect(mock.journal.list().map((e) => `${e.method} ${e.path} ${e.key_id ?? '-'}`)).toEqual(['GET /v1/models alpha', 'GET /v1/models alpha']);
      mock.journal.clear();
      await runSession({ baseUrl: server.url, apiKey: KEY, suites: ['catalog'], checks: ['catalog.status-200'] });
      expect(mock.journal.list().map((e) => e.path)).toEqual(['/v1/models', '/models.json']);
    } finally {
      await server.close();
    }
  });

  it('selects by suite and by glob over ids', () => {
    expect(selectChecks(CHECKS, { suites: ['stream'] }).every((c) => c.suite === 'stream')).toBe(true);
    expect(selectChecks(CHECKS, { checks: ['usage.stream-*'] }).map((c) => c.id)).toEqual(CHECKS.filter((c) => c.id.startsWith('usage.stream-')).map((c) => c.id));
    expect(selectChecks(CHECKS, { checks: ['no.such.*'] })).toEqual([]);
  });
});
