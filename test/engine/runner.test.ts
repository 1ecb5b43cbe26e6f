// The runner's promises to a CI pipeline: a 429 beyond the retry budget is not-tested, not
// failed; a filtered-out check sends nothing; identical requests are sent once.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { CHECKS } from '../../suites/index.js';
import { exitCodeFor } from '../../report/report.js';
import { runChecks, selectChecks } from '../../engine/runner.js';
import { notTested, pass, type Check } from '../../engine/check.js';
import { limitsFor } from '../../engine/http.js';
import { runAgainstMock } from '../support/run.js';
import { runSession } from '../../suites/session.js';
import { KEY, SECOND_KEY } from '../support/run.js';

describe('the runner', () => {
  it('charges a break a blocked check saw to its owner on the same point, an axis value the owner never takes left aside', async () => {
    // The owner passes its own paths; the blocked check, on an order of its own, saw the owner's part broken.
    const point = (v: string) => ({ value: v, label: v });
    const owner: Check = {
      id: 'x.owner',
      suite: 'x',
      title: 'owner',
      section: '1',
      level: 'must',
      paths: { model: [point('m1'), point('m2')], order: [point('first'), point('later')] },
      run: async () => pass(),
    };
    const blocked: Check = {
      id: 'x.blocked',
      suite: 'x',
      title: 'blocked',
      section: '1',
      level: 'must',
      paths: { model: [point('m2')], order: [point('mixed')] },
      run: async () => notTested('needs the owner: see x.owner', 'x.owner', 'the part was broken'),
    };
    const target = { baseUrl: 'http://127.0.0.1:9', siteUrl: 'http://127.0.0.1:9', siteUrlExplicit: true, apiKey: KEY, models: [], headers: {}, embeddedMock: false };
    // Nothing listens at port 9 (never answers); no check here sends a request.
    const { results } = await runChecks([owner, blocked], { target, limits: limitsFor(1_000), concurrency: 1, retry: { maxRetries: 0, maxWaitMs: 0 } });
    const paths = results[0].paths!.map((p) => `${p.label}=${p.outcome}`);
    // Its first path on the same model, and no path of a point it does not have.
    expect(paths).toEqual(['m1, first=pass', 'm1, later=pass', 'm2, first=fail', 'm2, later=pass']);
    expect(results[0].message).toBe('[m2, first] the part was broken (seen by x.blocked [m2, mixed])');
  });

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
