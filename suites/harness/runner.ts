// Select checks by filters, run them with bounded concurrency, collect results with evidence.
import picomatch from 'picomatch';
import { fail, type Check, type CheckResult, type Verdict } from './check.js';
import { evidenceOf, Exchanges, type Exchange, type RetryPolicy } from './exchanges.js';
import { HttpClient, type Limits, type RequestSpec } from './http.js';
import { Redactor } from './redact.js';
import type { Target } from './target.js';

/** What a check sees: the target, a memoized sender, and run-wide memoized discoveries. */
export interface CheckContext {
  target: Target;
  limits: Limits;
  send(spec: RequestSpec, label?: string): Promise<Exchange>;
  /** Run-wide memo for derived facts (the model list, the catalog): computed once, on demand.
   * The exchanges it made become evidence of every check that awaits it. */
  memo<T>(key: string, fn: (ctx: CheckContext) => Promise<T>): Promise<T>;
}

export interface Filters {
  suites?: string[];
  /** Globs over check ids (`stream.*`). */
  checks?: string[];
}

export function selectChecks<C extends Check<CheckContext>>(all: readonly C[], filters: Filters): C[] {
  const suiteSet = filters.suites?.length ? new Set(filters.suites) : undefined;
  const matchers = filters.checks?.length ? filters.checks.map((g) => picomatch(g)) : undefined;
  return all.filter((c) => (!suiteSet || suiteSet.has(c.suite)) && (!matchers || matchers.some((m) => m(c.id))));
}

export interface RunOptions {
  target: Target;
  limits: Limits;
  concurrency: number;
  retry: RetryPolicy;
  signal?: AbortSignal;
  /** Called as each check ends, for progress output. */
  onResult?: (r: CheckResult) => void;
}

export interface RunOutcome {
  results: CheckResult[];
  requestsSent: number;
}

export async function runChecks(checks: readonly Check<CheckContext>[], opts: RunOptions): Promise<RunOutcome> {
  const http = new HttpClient(opts.limits);
  const exchanges = new Exchanges(http, opts.concurrency, opts.retry, opts.signal);
  const redactor = new Redactor().add(opts.target.apiKey).add(opts.target.secondApiKey);
  for (const v of Object.values(opts.target.headers)) redactor.add(v);
  const memos = new Map<string, Promise<{ value: unknown; used: Exchange[] }>>();

  /** `used`: the exchanges a check sent itself; `inherited`: those of the discoveries it awaited. */
  const makeContext = (used: Exchange[], inherited: Exchange[] = used): CheckContext => {
    const ctx: CheckContext = {
      target: opts.target,
      limits: opts.limits,
      async send(spec, label) {
        const ex = await exchanges.send({ ...spec, headers: { ...opts.target.headers, ...spec.headers } }, label);
        if (!used.includes(ex)) used.push(ex);
        return ex;
      },
      async memo<T>(key: string, fn: (c: CheckContext) => Promise<T>): Promise<T> {
        let p = memos.get(key);
        if (!p) {
          const inner: Exchange[] = [];
          p = fn(makeContext(inner)).then((value) => ({ value, used: inner }));
          memos.set(key, p);
        }
        const { value, used: inner } = await p;
        for (const ex of inner) if (!inherited.includes(ex)) inherited.push(ex);
        return value as T;
      },
    };
    return ctx;
  };

  // A check bounds itself through its requests' deadlines; this one catches a check that waits on
  // something else, so a run always ends.
  const checkDeadline = Math.max(opts.limits.deadlineMs * 8, 2_000);

  const runOne = async (check: Check<CheckContext>): Promise<CheckResult> => {
    const used: Exchange[] = [];
    const inherited: Exchange[] = [];
    const started = performance.now();
    let verdict: Verdict;
    let timer: NodeJS.Timeout | undefined;
    try {
      verdict = await Promise.race([
        check.run(makeContext(used, inherited)),
        new Promise<Verdict>((resolve) => {
          timer = setTimeout(() => resolve(fail(`the check did not finish within ${checkDeadline} ms`)), checkDeadline);
        }),
      ]);
    } catch (e) {
      // A check that throws is a defect of the kit, reported as such instead of crashing the run.
      verdict = fail(`internal error in the check: ${(e as Error)?.stack ?? String(e)}`);
    } finally {
      clearTimeout(timer);
    }
    if (verdict.outcome === 'fail' && [...used, ...inherited].some((ex) => ex.rateLimited))
      verdict = { outcome: 'not-tested', message: `rate limited (429) beyond the retry budget; was: ${verdict.message}` };
    const showEvidence = verdict.outcome === 'fail' || verdict.outcome === 'not-tested';
    const { run: _run, ...meta } = check;
    const result: CheckResult = {
      ...meta,
      outcome: verdict.outcome,
      message: verdict.message === undefined ? undefined : redactor.text(verdict.message),
      notes: verdict.notes?.map((n) => redactor.text(n)),
      // A discovery's exchanges (the model list, the catalog) are evidence only when the check sent
      // nothing of its own: otherwise they would bury the request that broke the rule.
      evidence: showEvidence ? (used.length ? used : inherited).map((ex) => evidenceOf(ex, redactor)) : [],
      durationMs: Math.round(performance.now() - started),
    };
    opts.onResult?.(result);
    return result;
  };

  const results: CheckResult[] = new Array(checks.length);
  let next = 0;
  const worker = async () => {
    while (next < checks.length) {
      const i = next++;
      results[i] = await runOne(checks[i]);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, checks.length)) }, worker));
  } finally {
    await http.close();
  }
  return { results, requestsSent: exchanges.sent };
}
