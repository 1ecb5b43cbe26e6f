// Runs checks against a mock started on 127.0.0.1 for the test, and stops it afterwards.
import { expect } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import type { MockConfig } from '../../mock/config/types.js';
import type { Fault } from '../../mock/core/faults/fault.js';
import { isCatalog, withJson } from '../../mock/core/faults/rewrite.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { startMockServer } from '../../mock/http.js';
import type { ApiCheck } from '../../suites/api.js';
import type { CheckResult } from '../../engine/check.js';
import { limitsFor } from '../../engine/http.js';
import { runChecks } from '../../engine/runner.js';
import type { Target } from '../../engine/target.js';
import { ONLY_A_HANG_MS } from './machine.js';

export const KEY = DEFAULT_CONFIG.keys[0].key;
export const SECOND_KEY = DEFAULT_CONFIG.keys[1].key;

export interface RunAgainstMock {
  mock?: Mock;
  target?: Partial<Target>;
  timeoutMs?: number;
  /** The idle limit (--idle-timeout), 30 s unless given. */
  idleTimeoutMs?: number;
}

/** Results by check id. */
export async function runAgainstMock(checks: ApiCheck[], opts: RunAgainstMock = {}): Promise<Map<string, CheckResult>> {
  const server = await startMockServer({ mock: opts.mock ?? createMock() });
  try {
    const target: Target = {
      baseUrl: server.url,
      siteUrl: server.url,
      siteUrlExplicit: true,
      apiKey: KEY,
      secondApiKey: SECOND_KEY,
      models: [],
      headers: {},
      embeddedMock: false,
      ...opts.target,
    };
    const { results } = await runChecks(checks, {
      target,
      limits: limitsFor(opts.timeoutMs ?? ONLY_A_HANG_MS, undefined, opts.idleTimeoutMs),
      concurrency: 4,
      retry: { maxRetries: 1, maxWaitMs: 200 },
    });
    return new Map(results.map((r) => [r.id, r]));
  } finally {
    await server.close();
  }
}

/** Checks that judge what the run happens to receive: with nothing of their kind received they skip
 * (no answer of a default run is filtered); test/suites prove them both ways. */
export const MAY_SKIP = new Set(['errors.content-filter']);
/** The load suite's checks skip in a run (they judge a sweep, `conformance load`): test/load proves them. */
export const passing = (r: CheckResult) => r.outcome === 'pass' || (r.outcome === 'skip' && (MAY_SKIP.has(r.id) || r.suite === 'load'));

/** A readable line per result that is not a pass, for assertion messages. */
export const notPassing = (results: Map<string, CheckResult> | CheckResult[]) => [...results.values()].filter((r) => !passing(r)).map((r) => `${r.id}: ${r.outcome}: ${r.message ?? ''}`);

/** A mock (the correct one unless given) with its requests and replies rewritten: for setups the
 * fault catalogue does not name. */
export function rewrittenMock(edit: (req: MockRequest, reply: MockReply) => MockReply, editRequest: (req: MockRequest) => MockRequest = (r) => r, base: Mock = createMock()): Mock {
  return {
    config: base.config,
    journal: base.journal,
    control: base.control,
    handle: (req) => {
      const r = editRequest(req);
      return edit(r, base.handle(r));
    },
  };
}

/** The default configuration with a parameter declared by no model. */
const withoutParameter = (name: string): MockConfig => ({
  ...DEFAULT_CONFIG,
  models: DEFAULT_CONFIG.models.map((m) => ({ ...m, parameters: Object.fromEntries(Object.entries(m.parameters).filter(([k]) => k !== name)) })),
});

/** A suite where the catalog declares `name` for no model: every check not-tested, saying so. */
export async function expectNotTestedWithout(checks: ApiCheck[], name: string): Promise<void> {
  const results = await runAgainstMock(checks, { mock: createMock(withoutParameter(name)) });
  for (const r of results.values()) {
    expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
    expect(r.message).toMatch(new RegExp(`no model under test declares ${name}`));
  }
}

/** A suite against the correct mock: every check passes, each reported once. */
export async function expectPassesCorrectMock(checks: ApiCheck[]): Promise<void> {
  const results = await runAgainstMock(checks);
  expect(notPassing(results)).toEqual([]);
  expect(results.size).toBe(checks.length);
}

/** A mock whose catalog has each model's supported parameters edited; `seen` watches the requests. */
export const declaring = (edit: (params: Record<string, any>) => void, seen: (req: MockRequest) => void = () => {}): Mock =>
  rewrittenMock(
    (req, reply) =>
      isCatalog(req)
        ? withJson(reply, (doc) => {
            for (const m of doc.data) edit(m.output_modalities.find((o: { type: string }) => o.type === 'text').supported_parameters);
          })
        : reply,
    (req) => (seen(req), req),
  );

/** A mock with a deviation of its own, for the cases no fault of the catalogue sets up. */
export const mockWith = (fault: Omit<Fault, 'name' | 'description' | 'fails'>) => createMock(undefined, { faults: [{ name: 'test', description: 'test', fails: [], ...fault }] });
