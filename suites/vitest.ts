// `chat-api-conformance/vitest`: the kit's checks as a vitest suite, for teams whose server starts
// inside their own tests. One describe per check, one test per path; a test fails exactly where a
// run would fail (the exit code's rule). Every other path that did not pass is a skipped test with
// its reason (vitest's skip note): a not-tested, not-served or skipped path, and one that broke
// without failing the run (a should without `strict: true`, a failure the baseline expects, a flaky
// path), which is also annotated (a warning with what broke). None is a silent green tick. Both
// annotations and failures are placed at the describeConformance call in the team's test file. Each test's `task.meta.conformance`
// holds the verdict (check, path, level, outcome), for reporters (the JSON reporter writes it).
//
//   import { describeConformance } from 'chat-api-conformance/vitest';
//   describeConformance({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.KEY });                       // a running server
//   describeConformance({ start: async () => { const s = await startMyServer(); return { baseUrl: s.url, apiKey: 'k', close: () => s.close() }; } });
//   describeConformance({ baseUrl, apiKey, clients: true });   // and the client flows (docs/clients.md), one test per flow and model
import { afterAll, describe, it, type TestContext } from 'vitest';
import type { CheckResult, PathResult } from '../engine/check.js';
import { failsRun, flowFailsRun, gateOf } from '../report/report.js';
import type { FlowResult } from '../report/clients.js';
import { explanation } from '../report/client-matrix.js';
import { runSession, type SessionOptions } from './session.js';

/** The server under test: its base URL and keys, and how to stop it once the checks are done. */
export interface ServerUnderTest {
  baseUrl: string;
  apiKey: string;
  secondApiKey?: string;
  siteUrl?: string;
  close?: () => unknown;
}

interface CommonOptions extends Omit<SessionOptions, 'baseUrl' | 'apiKey' | 'secondApiKey' | 'siteUrl' | 'beside'> {
  /** The describe block's name. */
  name?: string;
  /** The client flows too (docs/clients.md), beside the checks: every installed client, or those
   * named; loaded only when asked. A test per flow and model, judged as `conformance clients` judges. */
  clients?: boolean | { clients?: string[]; flows?: string[] };
}

/** A server the tests start: called while the tests are collected (the paths to test come from what
 * the server lists), stopped by its close once they are done. */
export interface StartedServer extends CommonOptions {
  start: () => ServerUnderTest | Promise<ServerUnderTest>;
}

/** A server already running: its base URL and keys. */
export type RunningServer = CommonOptions & Omit<ServerUnderTest, 'close'> & { start?: undefined };

export type ConformanceOptions = StartedServer | RunningServer;

const USAGE = "describeConformance takes a running server, { baseUrl: 'http://127.0.0.1:8080', apiKey }, or one it starts, { start: async () => ({ baseUrl, apiKey, close }) }";

/** How to reach the server the options name (started when they say how), or a TypeError that says
 * both forms: thrown while the file is collected, where the mistake is. */
function serverOf(opts: ConformanceOptions): () => ServerUnderTest | Promise<ServerUnderTest> {
  if (!opts || typeof opts !== 'object') throw new TypeError(`${USAGE}; it was given ${opts === null ? 'null' : typeof opts}`);
  const start: unknown = opts.start;
  if (typeof start === 'function') return start as StartedServer['start'];
  if (start !== undefined) throw new TypeError(`${USAGE}; start is ${typeof start}, not a function`);
  const { baseUrl, apiKey, secondApiKey, siteUrl } = opts as RunningServer;
  if (typeof baseUrl !== 'string' || !baseUrl) throw new TypeError(`${USAGE}; neither was given`);
  if (typeof apiKey !== 'string' || !apiKey) throw new TypeError(`${USAGE}; apiKey is missing for ${baseUrl}`);
  return () => ({ baseUrl, apiKey, secondApiKey, siteUrl });
}

export interface ConformanceCase {
  /** `chat.max-tokens`, then the path (`stream, mock-reason-1`) or `all` for a check without paths. */
  check: string;
  path: string;
  level: CheckResult['level'];
  outcome: PathResult['outcome'];
  /** Skip the test, with why: not-tested or skipped by design, or a failure that does not fail the
   * run (then `warning` says what broke). */
  skip?: string;
  /** A failure that does not fail the run: what broke and how to replay it, for an annotation. */
  warning?: string;
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
  const gate = gateOf({ options: { strict: !!opts.strict, requireComplete: !!opts.requireComplete }, results });
  return results.flatMap((r) => {
    const paths: (PathResult | CheckResult)[] = r.paths?.length ? r.paths : [r];
    return paths.map((p): ConformanceCase => {
      // A path fails the test where the check, had it failed on this path alone, would fail the run;
      // any other outcome but a pass is shown as a skip with its reason, never as a pass.
      const fails = failsRun({ ...r, outcome: p.outcome, unjudged: p.unjudged }, gate);
      const shortfall = !fails && p.outcome !== 'pass';
      // What broke without failing the run: a failure (a should without strict, one the baseline
      // expects) or a flaky path (broken, then held when sent again).
      const failed = shortfall && p.outcome === 'fail';
      const broke = failed || (shortfall && p.outcome === 'flaky');
      return {
        check: r.id,
        path: 'label' in p && p.label ? p.label : 'all',
        level: r.level,
        outcome: p.outcome,
        skip: shortfall ? `${failed ? `${r.level} failed (${r.expected ? 'the baseline expects it' : 'fails the run only with strict: true'})` : p.outcome}: ${p.message ?? ''}` : undefined,
        warning: broke ? failure(r, p) : undefined,
        assert: () => {
          if (fails) throw new Error(failure(r, p));
        },
      };
    });
  });
}

/** The stack frame of the team's test file that declared the suite, or its first line when the
 * declaration came from another file (a helper): where an annotation of one of its tests points. */
function frameIn(file: string, declaredAt: string): string {
  return declaredAt.split('\n').find((line) => line.includes(`${file}:`)) ?? `    at ${file}:1:1`;
}

/** Annotates the test as if from the team's test file. vitest places an annotation at the first
 * frame of the test file on the stack of `annotate`, and the GitHub Actions reporter drops one with
 * no place; called from this package no frame is the test file's, so for the one synchronous call
 * that reads the stack, the frame of the describeConformance call is appended to every stack made. */
function annotateAt(ctx: TestContext, message: string, declaredAt: string): Promise<unknown> {
  const frame = frameIn(ctx.task.file.filepath, declaredAt);
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (error, frames) => `${prepare ? prepare(error, frames) : [String(error), ...frames.map((f) => `    at ${f}`)].join('\n')}\n${frame}`;
  try {
    return ctx.annotate(message, 'warning');
  } finally {
    Error.prepareStackTrace = prepare;
  }
}

/** One case as a test: its verdict in the task's meta; a shortfall annotated (vitest >= 3.2) at the
 * describeConformance call and skipped with its reason; a failure thrown. */
async function judge(c: ConformanceCase, ctx: TestContext, declaredAt: string): Promise<void> {
  Object.assign(ctx.task.meta, { conformance: { check: c.check, path: c.path, level: c.level, outcome: c.outcome } });
  if (c.warning && typeof ctx.annotate === 'function') await annotateAt(ctx, c.warning, declaredAt);
  if (c.skip !== undefined) ctx.skip(c.skip);
  try {
    c.assert();
  } catch (error) {
    // The package's own frames tell the team nothing: the failure is placed at their declaration.
    if (error instanceof Error) error.stack = `${String(error)}\n${frameIn(ctx.task.file.filepath, declaredAt)}`;
    throw error;
  }
}

/** Declares the conformance suite: starts the server while collecting, runs every selected check
 * once, and declares a test per check and path that reports its verdict. */
export function describeConformance(opts: ConformanceOptions): void {
  const reach = serverOf(opts);
  const declaredAt = new Error('describeConformance').stack ?? '';
  describe(opts.name ?? 'chat API conformance', async () => {
    const server = await reach();
    afterAll(() => server.close?.());
    const { start: _start, name: _name, clients, ...rest } = opts as StartedServer & Partial<ServerUnderTest>;
    const { baseUrl: _b, apiKey: _k, secondApiKey: _s, siteUrl: _u, ...session } = rest;
    // The clients room is imported only when its flows are asked for: a suite runs where no SDK is.
    const choice = clients === true ? {} : clients || undefined;
    const beside = choice ? (await import('../clients/session.js')).clientsBeside({ ...choice, concurrency: session.concurrency }) : undefined;
    const report = await runSession({ ...session, baseUrl: server.baseUrl, apiKey: server.apiKey, secondApiKey: server.secondApiKey, siteUrl: server.siteUrl, beside });
    const byCheck = new Map<string, ConformanceCase[]>();
    for (const c of conformanceCases(report.results, report.options)) byCheck.set(c.check, [...(byCheck.get(c.check) ?? []), c]);
    for (const [check, cases] of byCheck)
      describe(check, () => {
        for (const c of cases) it(c.path, (ctx) => judge(c, ctx, declaredAt));
      });
    if (report.clients) {
      const flows = flowCases(report.clients.results, report.options, report.results);
      describe('client flows', () => {
        for (const missing of report.clients!.clients.filter((c) => !c.installed)) it.skip(`${missing.name}: not installed (${missing.missing ?? ''}; ${report.clients!.install ?? ''})`, () => {});
        for (const flow of new Set(flows.map((c) => c.check)))
          describe(flow, () => {
            for (const c of flows.filter((x) => x.check === flow)) it(c.path, (ctx) => judge(c, ctx, declaredAt));
          });
      });
    }
  });
}

/** The tests a run's client flows make: one per flow and model, failing where the flow fails the run
 * (conformance clients' gate, weighed with the run's `results`), with the checks that explain it or
 * the word that none does. */
export function flowCases(flows: readonly FlowResult[], opts: { strict?: boolean; requireComplete?: boolean } = {}, results: readonly CheckResult[] = []): ConformanceCase[] {
  const gate = gateOf({ options: { strict: !!opts.strict, requireComplete: !!opts.requireComplete }, results });
  return flows.flatMap((f) =>
    f.paths.map((p): ConformanceCase => {
      const fails = flowFailsRun({ ...f, outcome: p.outcome }, gate);
      const shortfall = !fails && p.outcome !== 'pass';
      const why = [`${f.id} (${f.failureLevel ?? f.level}): ${f.title}`, `does: ${f.does}`, p.message ?? p.outcome, explanation(f)];
      for (const e of p.evidence.slice(0, 3)) {
        why.push(`  ${e.request.method} ${e.request.url}${e.status !== undefined ? ` -> ${e.status}` : ''}${e.error ? ` (${e.error})` : ''}`);
        if (e.reproduce) why.push(`  Reproduce with: ${e.reproduce}`);
      }
      const broke = shortfall && (p.outcome === 'fail' || p.outcome === 'flaky');
      return {
        check: f.id,
        path: p.label,
        level: f.failureLevel ?? f.level,
        outcome: p.outcome,
        skip: shortfall ? `${broke ? 'failed, a convention no failed must explains (fails the run only with strict: true)' : p.outcome}: ${p.message ?? ''}` : undefined,
        warning: broke ? why.join('\n') : undefined,
        assert: () => {
          if (fails) throw new Error(why.join('\n'));
        },
      };
    }),
  );
}
