// `conformance load`, from options to a report: the target (the embedded mock without a base URL),
// the mix of the kit's own requests, each sent alone, then a sweep of steps (N in flight, or an
// arrival rate), every answer judged by the run's rules and the load suite's as it ends. The report
// is a run's (results, gate, baseline) with the latency profile beside it.
import { setTimeout as sleep } from 'node:timers/promises';
import { combinePaths, withContext } from '../../engine/runner.js';
import { HttpClient, limitsFor, type RequestSpec } from '../../engine/http.js';
import { drive, sendTimed, type LoadStep } from '../../engine/load.js';
import { redactorFor } from '../../engine/runner.js';
import { worst, type CheckResult, type PathResult } from '../../engine/check.js';
import { breaksUnderLoad, mergeHistograms, METRICS, percentiles, type LoadReport, type LoadStepReport } from '../../report/load.js';
import type { LoadProgress } from '../../report/progress.js';
import { exitCodeFor, summarize, type RawReport, type RunReport } from '../../report/report.js';
import { seal } from '../../report/boundary.js';
import { Redactor } from '../../engine/redact.js';
import { parseSlo, sloResults, SloError, type Slo } from '../../report/slo.js';
import { CHECKS } from '../index.js';
import { onEachOf } from '../each.js';
import { modelsUnderTest } from '../paths.js';
import { begin, DEFAULT_DEADLINE_MS, gatedReport, openTarget, readBaseline, UsageError, type SessionOptions } from '../session.js';
import { Judge, keeperFor, Step, type EachRule } from './judge.js';
import { workloadFor, type Item, type Workload } from './workload.js';

export const LOAD_DEFAULTS = { concurrency: [1, 4, 16, 64], timeoutMs: 60_000 } as const;

export interface LoadOptions
  extends Pick<
    SessionOptions,
    | 'baseUrl'
    | 'apiKey'
    | 'secondApiKey'
    | 'siteUrl'
    | 'models'
    | 'headers'
    | 'tls'
    | 'strict'
    | 'requireComplete'
    | 'maxBodyBytes'
    | 'idleTimeoutMs'
    | 'expectedFailures'
    | 'updateBaseline'
    | 'flowIds'
    | 'signal'
    | 'deadlineMs'
    | 'waitMs'
    | 'onWait'
  > {
  /** The steps: requests in flight (a closed loop), or arrivals a second (`rate`, an open loop). */
  concurrency?: number[];
  rate?: number[];
  /** How long each step lasts, ms; without it (and without `requests`), a step sends 4 requests per
   * request in flight (at least 2 per request of the mix). */
  durationMs?: number;
  /** Requests per step (resends included). */
  requests?: number;
  /** A workload of its own: the essay at this max_tokens, streamed and not. */
  maxTokens?: number;
  /** Service-level objectives (`ttft_p99<2000ms`), held at every step. */
  slo?: string[];
  /** Deadline of each request, ms: no first byte or no end within it is a starved request. */
  timeoutMs?: number;
  /** Seeds the arrivals of an open loop. */
  seed?: number;
  /** When the sweep's first step begins (Unix ms), each next one a slot later (`slotOf`): processes
   * given the same instant sweep as one, step by step (with `durationMs`). */
  startAt?: number;
  /** Called as each step ends, for a progress line. */
  onStep?: (step: LoadStepReport) => void;
  /** Called as each step starts (the answers alone first), with its counts as they grow: a live line. */
  onProgress?: (step: LoadProgress) => void;
}

/** The SLOs, parsed before the first request: a malformed one is a usage error naming the flag. */
export function readSlos(exprs: readonly string[] = []): Slo[] {
  try {
    return exprs.map(parseSlo);
  } catch (e) {
    if (e instanceof SloError) throw new UsageError(e.message);
    throw e;
  }
}

/** The time from one step's instant to the next under --start-at: the step's duration, and a quarter
 * of it for the answers still in flight at its end. A step whose answers take longer begins late
 * (its report says how late), never early. */
export const slotOf = (durationMs: number) => Math.round(durationMs * 1.25);

/** Sleeps until the Unix instant `at` (now, if past); how late it woke, ms. */
async function until(at: number, signal: AbortSignal): Promise<number> {
  const wait = at - Date.now();
  if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => {});
  return Math.max(0, Date.now() - at);
}

/** The steps of the sweep, as the driver takes them. */
function stepsOf(opts: LoadOptions, items: number): (LoadStep & { label: string })[] {
  if (opts.rate?.length && opts.concurrency?.length) throw new UsageError('--rate and --concurrency are two kinds of sweep: give one');
  const per = (n: number) => (opts.durationMs === undefined && opts.requests === undefined ? { requests: Math.max(4 * n, 2 * items) } : { durationMs: opts.durationMs, requests: opts.requests });
  if (opts.rate?.length) return opts.rate.map((rate) => ({ rate, label: `rate ${rate}/s`, ...per(Math.ceil(rate)) }));
  return (opts.concurrency ?? LOAD_DEFAULTS.concurrency).map((concurrency) => ({ concurrency, label: `concurrency ${concurrency}`, ...per(concurrency) }));
}

/** Every rule of the run that is held on each answer (onEach), by the registry's order. */
export const EACH_RULES: EachRule[] = CHECKS.flatMap((c) => {
  const onEach = onEachOf(c.id);
  return onEach ? [{ id: c.id, onEach }] : [];
});
const LOAD_CHECKS = CHECKS.filter((c) => c.suite === 'load');

export async function runLoad(opts: LoadOptions): Promise<RunReport> {
  const warnings: string[] = [];
  const slos = readSlos(opts.slo);
  // Said before the target is opened, as the options' other mistakes are.
  if (opts.startAt !== undefined && opts.durationMs === undefined)
    throw new UsageError('--start-at needs --duration: steps that end at a count of requests end at other times in each process, and the next would not begin together');
  // The deadline runs from the start: a first instant past it would be waited for and never swept.
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  if (opts.startAt !== undefined && opts.startAt - Date.now() >= deadlineMs)
    throw new UsageError(`--start-at is ${Math.round((opts.startAt - Date.now()) / 1000)} s ahead, past the run's --deadline (${deadlineMs} ms): raise --deadline past the whole sweep`);
  const known = new Set([...CHECKS.map((c) => c.id), ...sloResults(slos, []).map((r) => r.id)]);
  // One baseline may serve run --clients and load: its flows' entries (opts.flowIds) are known here
  // too, and judge nothing.
  const baseline = readBaseline(opts, known);
  const timeoutMs = opts.timeoutMs ?? LOAD_DEFAULTS.timeoutMs;
  const opened = await openTarget(opts, warnings, true);
  const started = new Date();
  const t0 = performance.now();
  const limits = limitsFor(timeoutMs, opts.maxBodyBytes, opts.idleTimeoutMs);
  const { target, tls } = opened;
  const http = new HttpClient(limits, tls, { sweptDeadlines: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const begun = await begin(target, limits, opts);
    const signal = begun.signal;
    timer = begun.timer;
    // What the mix is made of, worked out as a run works it out (the model list, the catalog, the
    // reproducible answer a stop sequence is picked from).
    let model = opts.models?.[0];
    const prepared = await withContext({ target, limits, retry: { maxRetries: 2, maxWaitMs: 20_000 }, signal }, async (ctx) => {
      const under = await modelsUnderTest(ctx);
      model = under.models[0]?.id;
      if (!model) throw new UsageError(`no model to load: ${under.problem ?? 'the model list is empty; name one with --model'}`);
      return workloadFor(ctx, model, opts.maxTokens);
    }).catch((e: unknown) => {
      // Stopped (its deadline, Ctrl-C) while the mix was worked out, which then reads answers the
      // stop cut short: nothing is sent under load, and the report says what stopped it.
      if (!signal.aborted) throw e;
      const workload: Workload = { items: [], known: { model: model ?? '(not known)', refs: {} }, notes: [`the mix was not worked out: the run was stopped first (${String(signal.reason)})`] };
      return { value: workload, requestsSent: 0 };
    });
    const workload = prepared.value;
    // Worked out before the first request is sent: a mistake in the options is found there.
    const planned = stepsOf(opts, workload.items.length);
    const judge = new Judge(EACH_RULES, workload.known, timeoutMs, workload.seeded);
    const itemOf = new Map<RequestSpec, Item>();
    for (const item of workload.items) itemOf.set((item.spec = { ...item.spec, headers: { ...target.headers, ...item.spec.headers } }), item);

    // Each request alone first: what the rules hold alone, and what answers under load are held to.
    const redactor = redactorFor(target);
    const keep = keeperFor(redactor, tls?.flags);
    const alone = new Step('alone', keep);
    const aloneStarted = performance.now();
    let sending = 1;
    opts.onProgress?.(progressOf(alone, { requests: workload.items.length }, () => sending));
    for (const item of workload.items)
      for (let attempt = 0; !signal.aborted; attempt++) {
        const wait = judge.answer(alone, item, await sendTimed(http, item.spec, signal), attempt, false);
        if (wait === undefined) break;
        await sleep(wait, undefined, { signal }).catch(() => {});
      }
    sending = 0;
    alone.end();
    // What was refused alone is no load: the sweep sends the rest of the mix.
    const swept = workload.items.filter((i) => !judge.refusedAlone.has(i));
    if (swept.length < workload.items.length)
      workload.notes.push(
        `left out of the sweep, refused alone: ${workload.items
          .filter((i) => judge.refusedAlone.has(i))
          .map((i) => i.label)
          .join(', ')}`,
      );
    const steps = swept.length === workload.items.length ? planned : swept.length ? stepsOf(opts, swept.length) : [];
    const reports: LoadStepReport[] = [stepReport(alone, {}, performance.now() - aloneStarted, 1)];
    opts.onStep?.(reports[0]);
    const tallies: Step[] = [alone];
    for (const [k, step] of steps.entries()) {
      if (signal.aborted) break;
      const scheduledAt = opts.startAt === undefined ? undefined : opts.startAt + k * slotOf(step.durationMs!);
      const lateMs = scheduledAt === undefined ? undefined : await until(scheduledAt, signal);
      if (signal.aborted) break;
      const tally = new Step(step.label, keep);
      // Each step goes through the mix from its start: a step of as many requests as the mix sends each.
      let next = 0;
      // In flight: sent and not yet answered for good (one waiting to be sent again counts).
      let finished = 0;
      opts.onProgress?.(progressOf(tally, step, () => next - finished));
      const driven = await drive({
        http,
        step,
        signal,
        seed: opts.seed,
        next: () => swept[next++ % swept.length].spec,
        onAnswer: (spec, answer, attempt) => {
          const wait = judge.answer(tally, itemOf.get(spec)!, answer, attempt, true);
          if (wait === undefined) finished++;
          return wait;
        },
      });
      tally.end();
      tallies.push(tally);
      reports.push({ ...stepReport(tally, step, driven.elapsedMs, driven.peakInFlight), ...(scheduledAt === undefined ? {} : { scheduledAt, startedLateMs: lateMs! }) });
      opts.onStep?.(reports.at(-1)!);
    }
    clearTimeout(timer);

    const results = [...ruleResults(tallies, workload.items, judge), ...sloResults(slos, reports.slice(1))];
    const load: LoadReport = {
      mode: opts.rate?.length ? 'open' : 'closed',
      model: workload.known.model,
      workload: workload.items.map((i) => ({ kind: i.kind, label: i.label, stream: i.stream })),
      steps: reports,
      breaksUnderLoad: breaksUnderLoad(reports),
      slo: opts.slo ?? [],
      ...(opened.pace ? { pace: opened.pace } : {}),
    };
    return gatedReport(
      results,
      opts,
      { target, tls, started, t0, warnings, baseline, redactor },
      {
        notes: [`load of ${workload.known.model}: a mix of ${workload.items.length} requests, each sent alone first`, ...workload.notes],
        requestsSent: prepared.requestsSent + tallies.reduce((n, s) => n + s.requests, 0),
        ...(signal.aborted ? { stopped: String(signal.reason) } : {}),
        load,
      },
    );
  } finally {
    clearTimeout(timer);
    await http.close();
    await opened.close();
  }
}

/** A step's counts as they grow, for a live line. */
function progressOf(s: Step, step: Partial<LoadStep>, inFlight: () => number): LoadProgress {
  const started = performance.now();
  return {
    label: s.label,
    requests: step.requests,
    durationMs: step.durationMs,
    elapsedMs: () => performance.now() - started,
    done: () => s.requests,
    inFlight,
    failed: () => s.failed + s.timedOut,
  };
}

/** A step's counts as the report keeps them. */
function stepReport(s: Step, step: Partial<LoadStep>, elapsedMs: number, peakInFlight: number): LoadStepReport {
  const seconds = Math.max(elapsedMs, 1) / 1000;
  const rate = (n: number) => (s.requests ? n / s.requests : 0);
  return {
    label: s.label,
    ...(step.concurrency ? { concurrency: step.concurrency } : {}),
    ...(step.rate ? { rate: step.rate } : {}),
    durationMs: Math.round(elapsedMs),
    requests: s.requests,
    peakInFlight,
    served: s.served,
    refused: s.refused,
    failed: s.failed,
    timedOut: s.timedOut,
    ...Object.fromEntries(METRICS.flatMap((m) => (s[m].count ? [[m, percentiles(s[m].toJSON())]] : []))),
    outputTokensPerSecond: Math.round((s.outputTokens / seconds) * 10) / 10,
    requestsPerSecond: Math.round((s.requests / seconds) * 10) / 10,
    errorRate: rate(s.failed + s.timedOut),
    refusalRate: rate(s.refused),
    ...(s.slowest ? { slowest: s.slowest } : {}),
    rules: Object.fromEntries([...s.rules].map(([id, t]) => [id, { held: t.held, broken: t.broken, unjudged: t.unjudged }])),
    histograms: Object.fromEntries(METRICS.flatMap((m) => (s[m].count ? [[m, s[m].toJSON()]] : []))),
  };
}

/** One result per rule the load judged: a path per step (alone first), failing where an answer broke it. */
function ruleResults(steps: readonly Step[], items: readonly Item[], judge: Judge): CheckResult[] {
  const about = new Set(items.flatMap((i) => judge.about(i).map((r) => r.id)));
  const checks = CHECKS.filter((c) => about.has(c.id) || c.suite === 'load');
  return checks.map((check) => {
    const paths: PathResult[] = steps.map((s) => {
      const t = s.rules.get(check.id);
      const base = { path: { step: s.label }, label: s.label, evidence: [], durationMs: 0 };
      if (!t || !(t.held + t.broken + t.unjudged)) {
        const why = LOAD_CHECKS.includes(check) && s.label === 'alone' ? 'alone, nothing is in flight beside it' : 'no answer of its kind at this step';
        return { ...base, outcome: 'skip', message: why };
      }
      const judged = t.held + t.broken;
      if (t.broken)
        return { ...base, outcome: 'fail', message: `${t.broken} of ${judged} answers broke it (${rate(t.held, judged)} held); the first: ${t.first!.message}`, evidence: [t.first!.evidence] };
      if (t.held) return { ...base, outcome: 'pass', ...(t.unjudged ? { notes: [`${t.unjudged} answers not judged: ${t.open!.message}`] } : {}) };
      // None judged: not served where the server could serve none of them, otherwise not-tested, with why.
      const outcome = t.unserved === t.unjudged ? 'not-served' : 'not-tested';
      return {
        ...base,
        outcome,
        message: `${t.unjudged} answers, none judged: ${t.open!.message}`,
        ...(outcome === 'not-tested' && t.open!.blockedBy ? { blockedBy: t.open!.blockedBy } : {}),
        ...(outcome === 'not-tested' && t.open!.unjudged ? { unjudged: t.open!.unjudged } : {}),
      };
    });
    return combinePaths({ ...check, paths: { step: [] } }, paths);
  });
}

const rate = (held: number, of: number) => `${Math.round((held / of) * 1000) / 10}%`;

/** The reports of several processes that ran the same sweep at once, as one: counts and histograms
 * add up (so the percentiles are those of every answer), throughput adds, rates come from the sums,
 * each rule's path at a step fails where any process's did, and the objectives are held again to the
 * merged steps. A report that is no load, or of other steps, is a usage error naming it. Read from
 * files, their texts are anyone's: the merge is sealed again, redacted of what `redactor` knows. */
export function mergeLoads(reports: readonly { file: string; report: RawReport }[], extraSlo: readonly string[] = [], redactor = new Redactor()): RunReport {
  const [first] = reports;
  for (const { file, report } of reports) {
    if (!report.load) throw new UsageError(`${file}: not a report of conformance load (it has no load section)`);
    const labels = (r: RawReport) => r.load!.steps.map((s) => s.label).join(', ');
    if (labels(report) !== labels(first.report)) throw new UsageError(`${file}: its steps (${labels(report)}) are not those of ${first.file} (${labels(first.report)}): merge reports of one sweep`);
    const instants = (r: RawReport) => r.load!.steps.map((s) => s.scheduledAt ?? '').join(',');
    if (instants(report) !== instants(first.report))
      throw new UsageError(`${file}: its steps began at other instants (--start-at) than those of ${first.file}: merge the reports of processes given the same --start-at`);
  }
  const loads = reports.map((r) => r.report.load!);
  const steps = loads[0].steps.map((_, i) => mergeSteps(loads.map((l) => l.steps[i])));
  const slo = [...new Set([...loads.flatMap((l) => l.slo), ...extraSlo])];
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    const of = reports.map((r) => r.report.results.find((x) => x.id === check.id));
    if (!of.some(Boolean)) continue;
    const paths = steps.map((step, i): PathResult => {
      const found = of.flatMap((r, k) => {
        const p = r?.paths?.find((x) => x.label === loads[0].steps[i].label);
        return p ? [{ p, k }] : [];
      });
      const outcome = worst(found.map(({ p }) => p.outcome));
      const deciding = found.filter(({ p }) => p.outcome === outcome);
      const messages = deciding.flatMap(({ p, k }) => (p.message ? [`process ${k + 1}: ${p.message}`] : []));
      return {
        path: { step: step.label },
        label: step.label,
        outcome,
        ...(messages.length ? { message: messages.join('; ') } : {}),
        evidence: deciding.flatMap(({ p }) => p.evidence).slice(0, 2),
        durationMs: 0,
        ...(deciding.find(({ p }) => p.blockedBy) ? { blockedBy: deciding.find(({ p }) => p.blockedBy)!.p.blockedBy } : {}),
      };
    });
    const merged = combinePaths({ ...check, paths: { step: [] } }, paths);
    const expected = of.find((r) => r?.expected)?.expected;
    results.push(expected && merged.outcome === 'fail' ? { ...merged, expected } : merged);
  }
  results.push(...sloResults(readSlos(slo), steps.slice(1)));
  const options = first.report.options;
  return seal(
    {
      ...first.report,
      startedAt: reports.map((r) => r.report.startedAt).sort()[0],
      durationMs: Math.max(...reports.map((r) => r.report.durationMs)),
      results,
      summary: summarize(results),
      exitCode: exitCodeFor(results, options),
      warnings: [...new Set(reports.flatMap((r) => r.report.warnings))],
      notes: [...(first.report.notes ?? []), `merged from ${reports.length} reports: ${reports.map((r) => r.file).join(', ')}`, ...startNote(reports)],
      requestsSent: reports.reduce((n, r) => n + (r.report.requestsSent ?? 0), 0),
      load: { ...loads[0], steps, breaksUnderLoad: breaksUnderLoad(steps), slo, merged: reports.length },
    },
    redactor,
  );
}

/** How together the parts of a merged sweep began their steps, where --start-at set the instants. */
function startNote(reports: readonly { file: string; report: RawReport }[]): string[] {
  const late = reports.flatMap(({ report }, k) => report.load!.steps.flatMap((s) => (s.scheduledAt === undefined ? [] : [{ k, label: s.label, ms: s.startedLateMs ?? 0 }])));
  if (!late.length) return [];
  const worst = late.reduce((a, b) => (b.ms > a.ms ? b : a));
  return [`every step began at the instant --start-at set for it in each process, the latest ${worst.ms} ms after it (process ${worst.k + 1}, ${worst.label})`];
}

/** One step of several processes that ran it at once. */
function mergeSteps(steps: readonly LoadStepReport[]): LoadStepReport {
  const sum = (f: (s: LoadStepReport) => number) => steps.reduce((n, s) => n + f(s), 0);
  const requests = sum((s) => s.requests);
  const histograms = Object.fromEntries(METRICS.flatMap((m) => (steps.some((s) => s.histograms[m]) ? [[m, mergeHistograms(steps.map((s) => s.histograms[m]))!]] : [])));
  // Rule ids are read from the reports merged: `__proto__` or `toString` is a key like any other,
  // never the prototype's (where `??=` finds a value and `+=` writes into every object's).
  const rules: LoadStepReport['rules'] = Object.create(null);
  for (const s of steps)
    for (const [id, c] of Object.entries(s.rules)) {
      const r = (rules[id] ??= { held: 0, broken: 0, unjudged: 0 });
      r.held += c.held;
      r.broken += c.broken;
      r.unjudged += c.unjudged;
    }
  const slowest = steps.flatMap((s) => (s.slowest ? [s.slowest] : [])).sort((a, b) => b.ms - a.ms)[0];
  const n = steps.length;
  return {
    ...steps[0],
    // Together they had n times as many in flight, or arriving.
    ...(n > 1 && steps[0].label !== 'alone' ? { label: `${steps[0].label} × ${n} processes` } : {}),
    ...(steps[0].concurrency ? { concurrency: sum((s) => s.concurrency ?? 0) } : {}),
    ...(steps[0].rate ? { rate: sum((s) => s.rate ?? 0) } : {}),
    durationMs: Math.max(...steps.map((s) => s.durationMs)),
    ...(steps[0].scheduledAt === undefined ? {} : { startedLateMs: Math.max(...steps.map((s) => s.startedLateMs ?? 0)) }),
    requests,
    peakInFlight: sum((s) => s.peakInFlight),
    served: sum((s) => s.served),
    refused: sum((s) => s.refused),
    failed: sum((s) => s.failed),
    timedOut: sum((s) => s.timedOut),
    ...Object.fromEntries(METRICS.flatMap((m) => (histograms[m] ? [[m, percentiles(histograms[m])]] : []))),
    outputTokensPerSecond: Math.round(sum((s) => s.outputTokensPerSecond) * 10) / 10,
    requestsPerSecond: Math.round(sum((s) => s.requestsPerSecond) * 10) / 10,
    errorRate: requests ? sum((s) => s.failed + s.timedOut) / requests : 0,
    refusalRate: requests ? sum((s) => s.refused) / requests : 0,
    ...(slowest ? { slowest } : {}),
    rules,
    histograms,
  };
}
