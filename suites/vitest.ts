// `chat-api-conformance/vitest`: the kit's checks as a vitest suite, for teams whose server starts
// inside their own tests. One describe per check, one test per path; a test fails exactly where a
// run would fail (the exit code's rule), a not-tested or skipped path is a skipped test.
//
//   import { describeConformance } from 'chat-api-conformance/vitest';
//   describeConformance({ start: async () => { const s = await startMyServer(); return { baseUrl: s.url, apiKey: 'k', close: () => s.close() }; } });
import { afterAll, describe, it } from 'vitest';
import type { CheckResult, PathResult } from './harness/check.js';
import { failsRun } from './harness/report/report.js';
import { runSession, type SessionOptions } from './session.js';

/** The server under test: its base URL and keys, and how to stop it once the checks are done. */
export interface ServerUnderTest {
  baseUrl: string;
  apiKey: string;
  secondApiKey?: string;
  siteUrl?: string;
  close?: () => unknown;
}

export interface ConformanceOptions extends Omit<SessionOptions, 'baseUrl' | 'apiKey' | 'secondApiKey' | 'siteUrl'> {
  /** Starts the server (or names a running one). Called while the tests are collected: the paths to
   * test come from what the server lists. */
  start: () => ServerUnderTest | Promise<ServerUnderTest>;
  /** The describe block's name. */
  name?: string;
}

export interface ConformanceCase {
  /** `chat.max-tokens`, then the path (`stream, mock-reason-1`) or `all` for a check without paths. */
  check: string;
  path: string;
  /** Skip the test, with why: not-tested or skipped by design. */
  skip?: string;
  /** Throws when the path fails the run, with what broke and the command that replays it. */
  assert(): void;
}

function failure(r: CheckResult, p: PathResult | CheckResult): string {
  const lines = [`${r.id} (${r.level}, §${r.section}): ${r.title}`, p.message ?? p.outcome];
  for (const e of p.evidence.slice(0, 3)) {
    lines.push(`  ${e.request.method} ${e.request.url}${e.status !== undefined ? ` -> ${e.status}` : ''}${e.error ? ` (${e.error})` : ''}`);
    if (e.reproduce) lines.push(`  Reproduce with: ${e.reproduce}`);
  }
  return lines.join('\n');
}

/** The tests a run's results make: one per check and path. */
export function conformanceCases(results: CheckResult[], opts: { strict?: boolean; requireComplete?: boolean } = {}): ConformanceCase[] {
  const gate = { strict: !!opts.strict, requireComplete: !!opts.requireComplete };
  return results.flatMap((r) => {
    const paths: (PathResult | CheckResult)[] = r.paths?.length ? r.paths : [r];
    return paths.map((p): ConformanceCase => {
      // A path fails the test where the check, had it failed on this path alone, would fail the run.
      const fails = failsRun({ ...r, outcome: p.outcome }, gate);
      const quiet = !fails && (p.outcome === 'not-tested' || p.outcome === 'skip');
      return {
        check: r.id,
        path: 'label' in p && p.label ? p.label : 'all',
        skip: quiet ? `${p.outcome}: ${p.message ?? ''}` : undefined,
        assert: () => {
          if (fails) throw new Error(failure(r, p));
        },
      };
    });
  });
}

/** Declares the conformance suite: starts the server while collecting, runs every selected check
 * once, and declares a test per check and path that reports its verdict. */
export function describeConformance(opts: ConformanceOptions): void {
  describe(opts.name ?? 'chat API conformance', async () => {
    const server = await opts.start();
    afterAll(() => server.close?.());
    const { start: _start, name: _name, ...session } = opts;
    const report = await runSession({ ...session, baseUrl: server.baseUrl, apiKey: server.apiKey, secondApiKey: server.secondApiKey, siteUrl: server.siteUrl });
    const byCheck = new Map<string, ConformanceCase[]>();
    for (const c of conformanceCases(report.results, report.options)) byCheck.set(c.check, [...(byCheck.get(c.check) ?? []), c]);
    for (const [check, cases] of byCheck)
      describe(check, () => {
        for (const c of cases) it.skipIf(!!c.skip)(c.path, () => c.assert());
      });
  });
}
