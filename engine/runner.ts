// Select checks by filters, expand each over its paths, run the paths with bounded concurrency,
// and collect one result per check (the worst of its paths) with evidence.
import picomatch from 'picomatch';
import { fail, notTested, worst, type AxisPoint, type AxisValues, type Check, type CheckResult, type Evidence, type Path, type PathResult, type Progress, type Verdict } from './check.js';
import { BOUNDS, bounded } from './bounded.js';
import { evidenceOf, Exchanges, type Exchange, type RetryPolicy } from './exchanges.js';
import { HttpClient, type Limits, type RequestSpec } from './http.js';
import { KEY_VARIABLES, Redactor, shellVariable } from './redact.js';
import type { Target } from './target.js';

/** What a check sees: the target, a memoized sender, and run-wide memoized discoveries. */
export interface CheckContext {
  target: Target;
  limits: Limits;
  /** Requests the run has on the wire at once: a check that sends many (the fuzz session) keeps no
   * more than this waiting, so none waits in the run's queue past the moment it was sent for. */
  concurrency: number;
  send(spec: RequestSpec, label?: string): Promise<Exchange>;
  /** Run-wide memo for derived facts (the model list, the catalog): computed once, on demand.
   * The exchanges it made become evidence of every check that awaits it. */
  memo<T>(key: string, fn: (ctx: CheckContext) => Promise<T>): Promise<T>;
  /** A value made from a secret (a key with one character changed): redacted wherever it shows;
   * `shell`, the shell word that makes it from the key's variable, for a command that replays it. */
  secret(value: string, shell?: string): void;
  /** Every exchange of the run so far: for a check that runs last and judges them all. */
  received(): Promise<Exchange[]>;
  /** Names an exchange as the one that broke the rule: it leads the check's evidence (and its curl). */
  cite(ex: Exchange): void;
  /** The id of the check whose path this is; absent for a discovery, which no check owns. */
  readonly check?: string;
  /** A note the path's verdict carries, whatever it is (how its requests had to be asked). */
  note(text: string): void;
  /** Says that this path, judging its own rule, saw `owner`'s rule broken on `ex` (a field sent for
   * the kit's own ends refused): the owner fails on the same path (and at `at`, a point of its own
   * axes), with `ex` as evidence, unless it failed there itself. One defect, one failure, even where
   * the check that saw it could judge its rule without it. */
  charge(owner: string, breach: string, ex: Exchange, at?: Path): void;
}

/** What a path saw beside its verdict: notes, and other checks' rules broken (CheckContext.charge). */
interface Seen {
  notes: string[];
  charges: { owner: string; breach: string; ex: Exchange; at?: Path }[];
}

export interface Filters {
  suites?: string[];
  /** Globs over check ids (`stream.*`). */
  checks?: string[];
}

export function selectChecks<C extends Check<CheckContext, any>>(all: readonly C[], filters: Filters): C[] {
  const suiteSet = filters.suites?.length ? new Set(filters.suites) : undefined;
  const matchers = filters.checks?.length ? filters.checks.map((g) => picomatch(g)) : undefined;
  return all.filter((c) => (!suiteSet || suiteSet.has(c.suite)) && (!matchers || matchers.some((m) => m(c.id))));
}

export interface RunOptions {
  target: Target;
  limits: Limits;
  concurrency: number;
  retry: RetryPolicy;
  /** Stops the run (its deadline passed, or it was interrupted): what has not finished becomes
   * not-tested, with the signal's reason (a string) as the reason. */
  signal?: AbortSignal;
  /** Called with each check's result once the run has judged every path and held every owner to
   * what the checks it blocked saw (attribution), in the order of the checks. */
  onResult?: (r: CheckResult) => void;
  /** Called once the paths are known, with a live view of the run, for a progress line. */
  onStart?: (progress: Progress) => void;
}

export interface RunOutcome {
  results: CheckResult[];
  requestsSent: number;
  /** Each distinct request the run sent (a retry is the same request), for what the run cost. */
  requests: RequestSpec[];
  /** What the run found once for all checks (how the models under test were chosen). */
  notes: string[];
  /** Every secret of the run, those its checks made (a near miss of a key) included: what its
   * report is redacted of. */
  redactor: Redactor;
}

type AnyCheck = Check<CheckContext, any>;

/** Added to a request's `repeat` when a failed check is run again, so nothing of the first attempt is shared. */
const AGAIN = 1_000;

/** One check on one path: the unit the workers take. */
interface Unit {
  check: number;
  path: Path;
  label: string;
  /** Its place among the check's paths, in the order of expansion. */
  slot: number;
  /** The exchanges of the discoveries that gave the path (the model list), shared by the check's units. */
  inherited: Exchange[];
}

/** A run in named steps: expand each check over its paths, schedule the units, judge them with
 * bounded concurrency, and collect one result per check as its last path ends. */
export async function runChecks(checks: readonly AnyCheck[], opts: RunOptions): Promise<RunOutcome> {
  const run = new Run(opts);
  try {
    const expanded = await expandPaths(checks, run);
    const units = schedule(checks, expanded.units);
    await judge(checks, units, expanded.paths, run);
    attribute(checks, expanded.paths, run);
    const results = checks.map((check, i) => combinePaths(check, expanded.paths[i], run));
    for (const r of results) opts.onResult?.(r);
    return { results, requestsSent: run.exchanges.sent, requests: run.exchanges.requests, notes: expanded.notes, redactor: run.redactor };
  } finally {
    run.exchanges.close();
    await run.http.close();
  }
}

/** What every step of one run shares: the client and its exchanges, the redactor, the memos, the
 * stop signal, and how a check is run and its verdict recorded. */
class Run {
  readonly http: HttpClient;
  readonly exchanges: Exchanges;
  readonly redactor: Redactor;
  private readonly memos = new Map<string, Promise<{ value: unknown; used: Exchange[] }>>();
  /** What each blocked path saw broken of its owner's rule (redacted), for attribute(). */
  readonly breaches = new Map<PathResult, string>();
  /** What each path charged to other checks (CheckContext.charge), with its evidence, for attribute(). */
  readonly charges = new Map<PathResult, { owner: string; breach: string; evidence: Evidence[]; at?: Path }[]>();
  /** A check bounds itself through its requests' deadlines; this one catches a check that waits on
   * something else, so a run always ends. */
  readonly checkDeadline: number;
  private readonly stopped?: Promise<void>;

  constructor(readonly opts: RunOptions) {
    this.http = new HttpClient(opts.limits, opts.target.tls);
    this.exchanges = new Exchanges(this.http, opts.concurrency, opts.retry, opts.signal);
    this.redactor = redactorFor(opts.target);
    this.checkDeadline = Math.max(opts.limits.deadlineMs * 8, 2_000);
    const signal = opts.signal;
    if (signal) this.stopped = new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  }

  /** Why the run was stopped, once it was. */
  stoppedBecause(): string | undefined {
    const signal = this.opts.signal;
    return signal?.aborted ? (typeof signal.reason === 'string' ? signal.reason : 'the run was stopped') : undefined;
  }

  /** `used`: the exchanges a check sent itself; `inherited`: those of the discoveries it awaited.
   * `again`: the exchanges of a first attempt that failed: every request is then sent anew (not
   * shared with the first), and the run's exchanges a rule reads show those requests' new answers. */
  context(used: Exchange[], inherited: Exchange[] = used, again?: readonly Exchange[], check?: string, seen?: Seen): CheckContext {
    const { target, limits, concurrency } = this.opts;
    const run = this;
    const anew = (spec: RequestSpec): RequestSpec => (again ? { ...spec, repeat: (spec.repeat ?? 0) + AGAIN } : spec);
    return {
      target,
      limits,
      concurrency,
      check,
      note(text) {
        if (seen && !seen.notes.includes(text)) seen.notes.push(text);
      },
      charge(owner, breach, ex, at) {
        if (seen && !seen.charges.some((c) => c.owner === owner && c.breach === breach)) seen.charges.push({ owner, breach, ex, ...(at ? { at } : {}) });
      },
      async send(spec, label) {
        const ex = await run.exchanges.send(anew({ ...spec, headers: { ...target.headers, ...spec.headers } }), again && label ? `${label}, sent again` : label);
        if (!used.includes(ex)) used.push(ex);
        return ex;
      },
      async memo<T>(key: string, fn: (c: CheckContext) => Promise<T>): Promise<T> {
        let p = run.memos.get(key);
        if (!p) {
          const inner: Exchange[] = [];
          p = fn(run.context(inner)).then((value) => ({ value, used: inner }));
          run.memos.set(key, p);
        }
        const { value, used: inner } = await p;
        for (const ex of inner) if (!inherited.includes(ex)) inherited.push(ex);
        return value as T;
      },
      secret(value, shell) {
        run.redactor.add(value, shell);
      },
      received: async () => {
        const all = await run.exchanges.all();
        return again ? Promise.all(all.map((ex) => (again.includes(ex) ? run.exchanges.send(anew(ex.request), `${ex.label}, sent again`) : ex))) : all;
      },
      cite(ex) {
        const at = used.indexOf(ex);
        if (at >= 0) used.splice(at, 1);
        used.unshift(ex);
      },
    };
  }

  /** Runs `fn` as a check would: bounded in time, a throw reported as the kit's own defect, and
   * cut short when the run is stopped. A failure seen once the run was stopped may be the stop's
   * own doing (an aborted request): it is not-tested, with the stop's reason. */
  async guarded(fn: () => Promise<Verdict>, limitMs = this.checkDeadline): Promise<Verdict> {
    let timer: NodeJS.Timeout | undefined;
    let verdict: Verdict;
    try {
      verdict = await Promise.race([
        fn(),
        new Promise<Verdict>((resolve) => {
          timer = setTimeout(() => resolve(fail(`the check did not finish within ${limitMs} ms`)), limitMs);
        }),
        ...(this.stopped ? [this.stopped.then(() => notTested(this.stoppedBecause()!))] : []),
      ]);
    } catch (e) {
      verdict = fail(`internal error in the check: ${(e as Error)?.stack ?? String(e)}`);
    } finally {
      clearTimeout(timer);
    }
    const why = this.stoppedBecause();
    return why && verdict.outcome !== 'pass' && verdict.outcome !== 'skip' ? { outcome: 'not-tested', message: why } : verdict;
  }

  /** A text as the report keeps it: redacted, then cut (engine/bounded.ts). */
  bound(text: string, max: number): string {
    return bounded(text, max, this.redactor);
  }

  /** A verdict on one path as the report keeps it: its texts and the string values of its path (a
   * model id the server listed) bounded, with the evidence that shows it. */
  pathResult(verdict: Verdict, path: Path, label: string, used: Exchange[], inherited: Exchange[], started: number, seen?: Seen): PathResult {
    if (verdict.outcome === 'fail' && [...used, ...inherited].some((ex) => ex.rateLimited))
      verdict = { outcome: 'not-served', message: `rate limited (429) beyond the retry budget; was: ${verdict.message}` };
    if (seen?.notes.length) verdict = { ...verdict, notes: [...(verdict.notes ?? []), ...seen.notes.filter((n) => !verdict.notes?.includes(n))] };
    const showEvidence = verdict.outcome !== 'pass' && verdict.outcome !== 'skip';
    const { redactor } = this;
    const result: PathResult = {
      path: Object.fromEntries(Object.entries(path).map(([axis, v]) => [axis, typeof v === 'string' ? this.bound(v, BOUNDS.label) : v])),
      label: this.bound(label, BOUNDS.label),
      outcome: verdict.outcome,
      message: verdict.message === undefined ? undefined : this.bound(verdict.message, BOUNDS.message),
      notes: verdict.notes?.map((n) => this.bound(n, BOUNDS.note)),
      ...(verdict.outcome === 'not-tested' && verdict.blockedBy ? { blockedBy: verdict.blockedBy } : {}),
      ...(verdict.outcome === 'not-tested' && verdict.unjudged ? { unjudged: verdict.unjudged } : {}),
      // A discovery's exchanges (the model list, the catalog) are evidence only when the path sent
      // nothing of its own: otherwise they would bury the request that broke the rule.
      evidence: showEvidence ? (used.length ? used : inherited).map((ex) => evidenceOf(ex, redactor, this.opts.target.tls?.flags)) : [],
      durationMs: Math.round(performance.now() - started),
    };
    if (result.blockedBy) this.breaches.set(result, this.bound(verdict.breach ?? verdict.message ?? 'a part it owns was broken', BOUNDS.message));
    if (seen?.charges.length)
      this.charges.set(
        result,
        seen.charges.map((c) => ({ owner: c.owner, breach: this.bound(c.breach, BOUNDS.message), evidence: [evidenceOf(c.ex, redactor, this.opts.target.tls?.flags)], ...(c.at ? { at: c.at } : {}) })),
      );
    return result;
  }
}

/** Every secret of a target, as every text shown to a reader is redacted of it. */
export function redactorFor(target: Pick<Target, 'headers'> & { apiKey?: string; secondApiKey?: string }): Redactor {
  const redactor = new Redactor().add(target.apiKey, shellVariable(KEY_VARIABLES.apiKey)).add(target.secondApiKey, shellVariable(KEY_VARIABLES.secondApiKey));
  for (const v of Object.values(target.headers)) redactor.add(v);
  return redactor;
}

/** `fn` given what a check sees, outside any check (what a load works out before its sweep): its
 * discoveries are memoized as a run's are, and its requests counted. */
export async function withContext<T>(opts: Omit<RunOptions, 'concurrency'>, fn: (ctx: CheckContext) => Promise<T>): Promise<{ value: T; requestsSent: number }> {
  const run = new Run({ ...opts, concurrency: 1 });
  try {
    return { value: await fn(run.context([])), requestsSent: run.exchanges.sent };
  } finally {
    await run.http.close();
  }
}

/** Step 1: each check's paths. Axes that depend on discoveries (the models a key lists) share them
 * through the memo, so expanding every check costs the discoveries once. A check that cannot be
 * expanded (no model to test) gets its one result here. */
async function expandPaths(checks: readonly AnyCheck[], run: Run): Promise<{ units: Unit[]; paths: PathResult[][]; notes: string[] }> {
  const paths: PathResult[][] = checks.map(() => []);
  const notes = new Set<string>();
  const units: Unit[] = [];
  await Promise.all(
    checks.map(async (check, i) => {
      const inherited: Exchange[] = [];
      const ctx = run.context(inherited);
      const started = performance.now();
      const expanded = await run.guarded(async () => {
        let partial: { path: Path; labels: string[] }[] = [{ path: {}, labels: [] }];
        for (const [axis, source] of Object.entries(check.paths ?? {})) {
          const next: typeof partial = [];
          for (const p of partial) {
            const values: AxisValues = typeof source === 'function' ? await source(ctx, p.path) : { points: [...(source as readonly AxisPoint[])] };
            if (values.note) notes.add(run.bound(values.note, BOUNDS.note));
            if (!values.points.length) return notTested(values.problem ?? `no ${axis} to test`, values.blockedBy);
            for (const point of values.points) next.push({ path: { ...p.path, [axis]: point.value }, labels: [...p.labels, point.label] });
          }
          partial = next;
        }
        partial.forEach((p, slot) => units.push({ check: i, path: p.path, label: p.labels.join(', '), slot, inherited: [...inherited] }));
        return { outcome: 'pass' };
      });
      if (expanded.outcome !== 'pass') paths[i].push(run.pathResult(expanded, {}, '', [], inherited, started));
    }),
  );
  return { units, paths, notes: [...notes] };
}

/** Step 2: the units in the order of the checks, so a check's paths run together and its result
 * comes early; the checks that judge the whole run come after every other. */
function schedule(checks: readonly AnyCheck[], units: Unit[]): Unit[] {
  const isLast = (u: Unit) => !!checks[u.check].last;
  return [...units].sort((a, b) => Number(isLast(a)) - Number(isLast(b)) || a.check - b.check);
}

/** Step 3: the units run by a bounded pool of workers, the checks that run last once every other
 * unit is done. */
async function judge(checks: readonly AnyCheck[], units: Unit[], paths: PathResult[][], run: Run): Promise<void> {
  const { opts } = run;
  let unitsDone = 0;
  opts.onStart?.({
    done: () => unitsDone,
    total: () => units.length,
    slowest: () => {
      const slow = run.exchanges.slowest();
      return slow && { ...slow, label: run.bound(slow.label, BOUNDS.label) };
    },
  });

  const firstLast = units.findIndex((u) => checks[u.check].last);
  let next = 0;
  let lastPhase: Promise<void> | undefined;
  let inFlight = 0;
  let drained: () => void = () => {};
  const worker = async () => {
    while (next < units.length) {
      if (next === firstLast) {
        lastPhase ??= inFlight ? new Promise<void>((r) => (drained = r)) : Promise.resolve();
        await lastPhase;
        if (next >= units.length) break;
      }
      const unit = units[next++];
      inFlight++;
      // A check whose requests were all answered runs on resolved promises alone, which never let
      // a timer fire: the run's deadline is seen between units, at least.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const used: Exchange[] = [];
      const inherited = [...unit.inherited];
      const started = performance.now();
      const why = run.stoppedBecause();
      // Once stopped, nothing more is sent: what is left is not-tested, at once.
      const check = checks[unit.check];
      const limit = check.timeLimitMs?.(opts.limits) ?? run.checkDeadline;
      const seen: Seen = { notes: [], charges: [] };
      let verdict = why ? notTested(why) : await run.guarded(() => check.run(run.context(used, inherited, undefined, check.id, seen), unit.path), limit);
      let shown = used;
      if ((verdict.outcome === 'fail' || verdict.blockedBy) && !check.once && !run.stoppedBecause()) {
        const usedAgain: Exchange[] = [];
        const again = await runAgain(verdict, () => check.run(run.context(usedAgain, [...unit.inherited], [...used], check.id, seen), unit.path), run, limit);
        if (again.judgedAgain) shown = usedAgain;
        verdict = again.verdict;
      }
      paths[unit.check][unit.slot] = run.pathResult(verdict, unit.path, unit.label, shown, inherited, started, seen);
      unitsDone++;
      if (--inFlight === 0 && next === firstLast) drained();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, units.length)) }, worker));
}

/** A failure is judged once more on the same requests sent anew: one that holds then was not the
 * server's rule, but one answer of it, and is flaky; one that breaks again is stable. Either way the
 * first attempt's evidence stays. A check blocked by a broken part is run again too: where the part
 * is sound the second time, its rule is judged on that answer. */
async function runAgain(first: Verdict, again: () => Promise<Verdict>, run: Run, limitMs: number): Promise<{ verdict: Verdict; judgedAgain?: boolean }> {
  const second = await run.guarded(again, limitMs);
  if (first.outcome !== 'fail')
    return second.outcome === 'pass' || second.outcome === 'fail'
      ? { verdict: { ...second, notes: [...(second.notes ?? []), `judged on its requests sent again: the first time, ${first.message}`] }, judgedAgain: true }
      : { verdict: first };
  if (second.outcome === 'pass') return { verdict: { ...first, outcome: 'flaky', message: `${first.message}; sent again, it held` } };
  return { verdict: second.outcome === 'fail' ? first : { ...first, notes: [...(first.notes ?? []), `sent again, it was ${second.outcome}: ${second.message ?? ''}`] } };
}

/** Step 4: one defect, one failure, at its owner. A path left not-tested because a part its rule
 * reads was broken names that part's owner, and a path that judged its rule without what another
 * check owns (a field refused) charged that owner; an owner that did not fail on that path (it judged
 * only its own requests, which held) fails there now, with the evidence of what was seen broken. So
 * every blockedBy of a report names a failed check. */
function attribute(checks: readonly AnyCheck[], paths: PathResult[][], run: Run): void {
  const index = new Map(checks.map((c, i) => [c.id, i]));
  checks.forEach((seer, i) => {
    for (const p of paths[i]) {
      const breach = run.breaches.get(p);
      // What blocked the path, and what it judged its rule without (a field refused that it could
      // leave out): both are the owner's rule seen broken.
      const seen = [
        ...(breach !== undefined && p.blockedBy !== undefined ? [{ owner: p.blockedBy, breach, evidence: p.evidence, at: undefined as Path | undefined }] : []),
        ...(run.charges.get(p) ?? []),
      ];
      for (const s of seen) {
        const owner = index.get(s.owner);
        if (owner === undefined || owner === i) continue;
        const own = paths[owner];
        const exact: Path = s.at ?? {};
        // The owner's path of the same point: the same value on every axis both declare, but one whose
        // value the owner never takes (an axis of the same name holding the blocked check's own points);
        // a point the charge names (the model a field was refused on) is that point or none.
        const shared = (axis: string) => axis in p.path && own.some((o) => o.path[axis] === p.path[axis]);
        const same = (o: PathResult) => Object.entries(o.path).every(([axis, v]) => (axis in exact ? exact[axis] === v : !shared(axis) || p.path[axis] === v));
        // An owner that saw it on a path of that point (and found it flaky) has said what there is to
        // say; a path it blocked is then unjudged by the server's doing (a glitch), not by a defect
        // that fails the run.
        if (s.at === undefined && own.some((o) => same(o) && o.outcome === 'flaky')) p.unjudged = 'flaky-owner';
        if (own.some((o) => same(o) && (o.outcome === 'fail' || o.outcome === 'flaky'))) continue;
        const at = own.findIndex(same);
        const failed: PathResult = {
          path: at >= 0 ? own[at].path : exact,
          label: at >= 0 ? own[at].label : Object.values(exact).join(', '),
          outcome: 'fail',
          message: `${s.breach} (seen by ${seer.id}${p.label ? ` [${p.label}]` : ''})`,
          evidence: s.evidence,
          durationMs: at >= 0 ? own[at].durationMs : p.durationMs,
        };
        if (at >= 0) own[at] = failed;
        else own.push(failed);
      }
    }
  });
}

/** `2.1, 2.2` as its items; a section of another document keeps its prefix (`catalog 2.4`). */
export const sectionsOf = (section: string) =>
  section
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** One result per check: its paths in the order they were expanded, its outcome the worst of them,
 * and the messages and evidence of the paths that gave that outcome; `run` bounds the joined
 * message (a load, whose paths its own run bounded, joins few). */
export function combinePaths(check: AnyCheck, paths: PathResult[], run?: Pick<Run, 'bound'>): CheckResult {
  const { run: _run, paths: axes, timeLimitMs: _limit, once: _once, ...meta } = check;
  const outcome = worst(paths.map((p) => p.outcome));
  const deciding = paths.filter((p) => p.outcome === outcome);
  const named = axes !== undefined;
  const labelled = (p: PathResult, text: string) => (named && p.label ? `[${p.label}] ${text}` : text);
  const messages = deciding.filter((p) => p.message !== undefined).map((p) => labelled(p, p.message!));
  const pathNotes = paths.flatMap((p) => (p.notes ?? []).map((n) => labelled(p, n)));
  const evidence: Evidence[] = [];
  const seen = new Set<string>();
  for (const p of deciding)
    for (const e of p.evidence) {
      const key = JSON.stringify([e.label, e.request.url, e.request.body, e.request.headers]);
      if (!seen.has(key)) {
        seen.add(key);
        evidence.push(e);
      }
    }
  const allNotes = [...new Set(pathNotes)];
  const blockedBy = outcome === 'not-tested' ? [...new Set(deciding.flatMap((p) => (p.blockedBy ? [p.blockedBy] : [])))] : [];
  const unjudged = outcome === 'not-tested' ? deciding.find((p) => p.unjudged)?.unjudged : undefined;
  return {
    ...meta,
    sections: sectionsOf(meta.section),
    outcome,
    // Each path's message is bounded already; all of them together are bounded too.
    message: messages.length ? (run ? run.bound(messages.join('; '), BOUNDS.checkMessage) : messages.join('; ')) : undefined,
    notes: allNotes.length ? allNotes : undefined,
    ...(blockedBy.length ? { blockedBy } : {}),
    ...(unjudged ? { unjudged } : {}),
    evidence,
    durationMs: paths.reduce((n, p) => Math.max(n, p.durationMs), 0),
    ...(named ? { axes: Object.keys(axes), paths } : {}),
  };
}
