// The run report every reporter renders. The JSON reporter writes it as it is, so its shape
// is a published format: bump REPORT_FORMAT_VERSION on any incompatible change.
import { OUTCOMES, type CheckResult, type Level, type Outcome, type PathResult, type Unjudged } from '../engine/check.js';
import type { StaleEntry } from './baseline.js';
import type { LoadReport } from './load.js';
import type { ClientsReport, FlowResult } from './clients.js';

/** 2: results carry their paths, sections, expected failures; reports carry notes, baseline, stopped.
 * 3: the outcomes flaky and not-served; the run's cost in tokens asked for. */
export const REPORT_FORMAT_VERSION = 3;

declare const boundaryPassed: unique symbol;
/** A text that passed the report boundary (report/boundary.ts): redacted, then cut to its bound. Only
 * `seal` makes one, so a reporter, which takes a RunReport, cannot be handed a text that did not. */
export type Bounded = string & { readonly [boundaryPassed]: true };

/** `T` with every free text (a field typed `string`) a Bounded one; a closed set of words (an
 * outcome, a level) is bounded by its type and stays as it is. */
export type Sealed<T> = T extends string ? (string extends T ? Bounded : T) : T extends readonly (infer U)[] ? Sealed<U>[] : T extends object ? { [K in keyof T]: Sealed<T[K]> } : T;

/** The run report every reporter renders: each of its texts passed the boundary. */
export type RunReport = Sealed<RawReport>;

/** A report as a command builds it, its texts as checks and servers gave them: report/boundary.ts
 * seals it into a RunReport. */
export interface RawReport {
  formatVersion: number;
  tool: { name: string; version: string };
  /** `tls`: present when the run was given a TLS flag: verification off (--insecure), the CA file
   * trusted besides Node's store (--ca-cert), the client certificate presented (--client-cert). */
  target: { baseUrl: string; siteUrl: string; embeddedMock: boolean; tls?: { insecure: boolean; caCert?: string; clientCert?: string } };
  options: { strict: boolean; requireComplete: boolean; expectedFailures?: string };
  startedAt: string;
  durationMs: number;
  results: CheckResult[];
  summary: Summary;
  exitCode: number;
  warnings: string[];
  /** Said once for the run: how the models under test were chosen, how many listed ids were tried. */
  notes?: string[];
  /** Requests the run sent, retries of a 429 included. */
  requestsSent?: number;
  /** The max_tokens of the run's chat requests, summed, and how many chat requests set none: what the
   * run asked a server to generate at most. */
  /** What it asked to generate (suites/cost.ts): `refused` chat requests were sent to be refused, not
   * counted; `askedAgain`, sent again with less to find which field a refusal was of. */
  cost?: { maxTokens: number; uncapped: number; refused?: number; askedAgain?: number };
  /** Why the run stopped before every check finished (its deadline, an interruption). */
  stopped?: string;
  /** The run's baseline (--expected-failures): how many failures it expected, which of its entries
   * are stale (they pass now, and fail the run), whether the run wrote it (--update-baseline). */
  baseline?: { file: string; expected: number; stale: StaleEntry[]; updated: boolean };
  /** A load sweep's latency profile and per-step rule counts (`conformance load`). */
  load?: LoadReport;
  /** The client flows (`conformance clients`, `run --clients`): the real SDKs against the target. */
  clients?: ClientsReport;
}

export type Summary = Record<Level, Record<Outcome, number>>;

/** How the run spoke TLS, for a report's heading: `TLS verification off (--insecure)`; undefined
 * with Node's defaults. Verification off comes first: it is what a reader must not miss. */
export function tlsNote(report: Pick<RawReport, 'target'>): string | undefined {
  const t = report.target.tls;
  if (!t) return undefined;
  const parts = [
    ...(t.insecure ? ['TLS verification off (--insecure)'] : []),
    ...(t.caCert ? [`CAs of ${t.caCert} trusted (--ca-cert)`] : []),
    ...(t.clientCert ? [`client certificate ${t.clientCert}`] : []),
  ];
  return parts.length ? parts.join(', ') : undefined;
}

export function summarize(results: CheckResult[]): Summary {
  const blank = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const summary: Summary = { must: blank(), should: blank(), info: blank() };
  for (const r of results) summary[r.level][r.outcome]++;
  return summary;
}

/** The gate's options: what the run was asked to hold besides its musts. */
export interface GateOptions {
  strict: boolean;
  requireComplete: boolean;
}

/** What a result is weighed against: the options, and whether the server left the run short of
 * judgement (`serverShort`, shortOfJudgement): then each must it left unjudged fails the run. Made
 * from a run's results by gateOf, so no reporter can weigh a result by the options alone. */
export interface Gate extends GateOptions {
  serverShort: boolean;
}

/** Why the answers, not the run's options nor a failed owner, left a verdict unjudged: a not-served
 * one was turned away (`busy`: a 429 beyond the retries, a 503, an error event), a flaky one broke
 * once and held when asked again, a not-tested one says why (engine/check.ts, Unjudged). `cut` is no
 * fault of the server's: the kit cut an answer at its own limit. It weighs all the same, as a run left
 * short of judgement vouches for nothing whoever is why; its line says which options let it through. */
export type ServerReason = Unjudged | 'flaky';

export function serverReason(v: Pick<PathResult, 'outcome' | 'unjudged'>): ServerReason | undefined {
  if (v.outcome === 'flaky') return 'flaky';
  if (v.outcome === 'not-served') return 'busy';
  return v.outcome === 'not-tested' ? v.unjudged : undefined;
}

/** The reasons as a reader's words (the outcomes' own, docs/verdicts.md), in the order a line lists them. */
const SERVER_REASON_WORDS: Record<ServerReason, string> = {
  busy: 'not served',
  unanswered: 'not answered',
  flaky: 'flaky',
  'flaky-owner': 'blocked by a flaky check',
  cut: 'cut by the kit',
};

/** The paths of the run's musts (a check without paths is its one path), judged (passed or failed)
 * and kept from being judged by the server (serverReason): what the gate weighs. Counted by paths,
 * not checks: a must judged on some paths and not served on one (a step of a load sweep where every
 * request was refused, as overload may be) was judged. */
export function mustPaths(results: readonly CheckResult[]): { judged: number; unjudged: number } {
  let judged = 0;
  let unjudged = 0;
  for (const r of results) {
    if (r.level !== 'must') continue;
    for (const p of r.paths?.length ? r.paths : [r]) {
      if (p.outcome === 'pass' || p.outcome === 'fail') judged++;
      else if (serverReason(p)) unjudged++;
    }
  }
  return { judged, unjudged };
}

/** A run the server left short of judgement: it kept as many must paths from being judged as the
 * run judged, or more. Fewer is a run that judged most of what it was asked, whatever one 429 or
 * one flaky answer cost it; as many is one whose verdict stands on a minority of its rules, and a
 * gate that goes green on it vouches for what it never saw. */
export function shortOfJudgement(results: readonly CheckResult[]): boolean {
  const { judged, unjudged } = mustPaths(results);
  return unjudged > 0 && unjudged >= judged;
}

const gates = new WeakMap<readonly CheckResult[], boolean>();

/** The gate of a run: its options, and its results weighed once (shortOfJudgement). */
export function gateOf({ options, results }: { options: GateOptions; results: readonly CheckResult[] }): Gate {
  let short = gates.get(results);
  if (short === undefined) gates.set(results, (short = shortOfJudgement(results)));
  return { strict: options.strict, requireComplete: options.requireComplete, serverShort: short };
}

/** Whether a result fails the run: a failed must (with strict, a failed should too, and a flaky
 * must or should), a must left not-tested, not served or flaky under requireComplete, or by the
 * server's doing in a run the server left short of judgement; never a failure the baseline expects.
 * Every reporter that counts failures asks this, so the reports and the exit code cannot disagree. */
export function failsRun(r: Pick<CheckResult, 'level' | 'outcome' | 'expected' | 'unjudged'>, gate: Gate): boolean {
  if (r.expected) return false;
  const counted = r.level === 'must' || (gate.strict && r.level === 'should');
  const unjudged = r.level === 'must' && (gate.requireComplete || (gate.serverShort && serverReason(r) !== undefined));
  switch (r.outcome) {
    case 'fail':
      return counted;
    case 'flaky':
      return (gate.strict && counted) || unjudged;
    case 'not-tested':
    case 'not-served':
      return unjudged;
    default:
      return false;
  }
}

/** What a verdict's line weighs: the checks, the client flows, and the gate's options. */
type Weighed = Pick<RawReport, 'results' | 'options' | 'clients'>;

/** `3 flaky, 9 blocked by a flaky check`: the server's reasons among `results`, counted. */
function reasonsOf(results: readonly CheckResult[]): string {
  const count = (reason: ServerReason) => results.filter((r) => serverReason(r) === reason).length;
  return (Object.keys(SERVER_REASON_WORDS) as ServerReason[])
    .filter((reason) => count(reason))
    .map((reason) => `${count(reason)} ${SERVER_REASON_WORDS[reason]}`)
    .join(', ');
}

/** The musts the server left unjudged, said once with why and how much of the run it kept from
 * being judged, against what the run judged: `12 must not judged because of the server (3 flaky, 9
 * blocked by a flaky check); it left 12 must paths unjudged and the run judged 173`. */
function serverLine(unjudged: readonly CheckResult[], results: readonly CheckResult[]): string {
  const paths = mustPaths(results);
  const many = `${paths.unjudged} must path${paths.unjudged === 1 ? '' : 's'}`;
  const cut = unjudged.filter((r) => serverReason(r) === 'cut').length;
  if (!cut) return `${unjudged.length} must not judged because of the server (${reasonsOf(unjudged)}); it left ${many} unjudged and the run judged ${paths.judged}`;
  // The kit's own limits are no fault of the server's: the line says so, and what lets the answers through.
  const by = cut === unjudged.length ? 'because the kit cut their answers at its own limits' : "because of the server or the kit's own limits";
  return `${unjudged.length} must not judged ${by} (${reasonsOf(unjudged)}: raise --idle-timeout, --timeout or --max-body, as each check says); ${many} left unjudged and the run judged ${paths.judged}`;
}

/** What fails the run, counted per kind, for a verdict's one line: `2 must failed, 1 must flaky (strict),
 * 17 client flows failed, 6 of which fail the run`; the musts that fail it only because the server left the
 * run short of judgement, said once with why. The failed flows are all counted, as the matrix shows
 * them, with how many fail the run where that is fewer. */
export function whyFailing(report: Weighed): string[] {
  const { results, options: opts } = report;
  const gate = gateOf(report);
  const all = results.filter((r) => failsRun(r, gate));
  const byServer = gate.serverShort ? all.filter((r) => !failsRun(r, { ...gate, serverShort: false })) : [];
  const failing = all.filter((r) => !byServer.includes(r));
  const count = (level: Level, outcome: Outcome) => failing.filter((r) => r.level === level && r.outcome === outcome).length;
  const kinds: [Level, Outcome, string][] = [
    ['must', 'fail', 'failed'],
    ['should', 'fail', 'failed (strict)'],
    ['must', 'flaky', `flaky (${opts.strict ? 'strict' : 'require-complete'})`],
    ['should', 'flaky', 'flaky (strict)'],
    ['must', 'not-tested', 'not tested (require-complete)'],
    ['must', 'not-served', 'not served (require-complete)'],
  ];
  const flows = flowCounts(report);
  // The flows as the matrix shows them (each ✗), and apart how many of them fail the run; then those
  // that fail it without a ✗ (left not tested, under --require-complete).
  const failedWhy =
    !flows?.failed || flows.failedFailingRun === flows.failed
      ? ''
      : `, ${flows.failedFailingRun || 'none'} of which ${flows.failedFailingRun === 1 || !flows.failedFailingRun ? 'fails' : 'fail'} the run`;
  const unjudged = (flows?.failingRun ?? 0) - (flows?.failedFailingRun ?? 0);
  return [
    ...kinds.filter(([l, o]) => count(l, o)).map(([l, o, words]) => `${count(l, o)} ${l} ${words}`),
    ...(byServer.length ? [serverLine(byServer, results)] : []),
    ...(flows?.failed ? [`${flows.failed} client flow${flows.failed === 1 ? '' : 's'} failed${failedWhy}`] : []),
    ...(unjudged ? [`${unjudged} client flow${unjudged === 1 ? '' : 's'} not tested (require-complete)`] : []),
  ];
}

/** The client flows as the matrix shows them (report/client-matrix.ts), a cell (a client's flow, on
 * every model) each: passed (✓), failed (✗: failed or flaky), and the others by their outcome; and,
 * apart, how many fail the run (`failingRun`), of them how many failed (`failedFailingRun`). The
 * gate weighs a flow as a check of its failure's level, so a failed should-level flow is a ✗ that
 * fails the run only with --strict. */
export interface FlowCounts {
  total: number;
  passed: number;
  failed: number;
  /** Flows that ran to neither (not tested, not served, skipped), by outcome: "not run" in the matrix. */
  other: Partial<Record<Outcome, number>>;
  failingRun: number;
  failedFailingRun: number;
}

export function flowCounts(report: Weighed): FlowCounts | undefined {
  if (!report.clients) return undefined;
  const gate = gateOf(report);
  const flows = report.clients.results;
  const failed = flows.filter((f) => f.outcome === 'fail' || f.outcome === 'flaky');
  const other: Partial<Record<Outcome, number>> = {};
  for (const f of flows) if (f.outcome !== 'pass' && f.outcome !== 'fail' && f.outcome !== 'flaky') other[f.outcome] = (other[f.outcome] ?? 0) + 1;
  return {
    total: flows.length,
    passed: flows.filter((f) => f.outcome === 'pass').length,
    failed: failed.length,
    other,
    failingRun: flows.filter((f) => flowFailsRun(f, gate)).length,
    failedFailingRun: failed.filter((f) => flowFailsRun(f, gate)).length,
  };
}

/** `18 passed, 17 failed; 6 fail the run`: the flows' line of a summary. */
export function flowCountLine(c: FlowCounts): string {
  const others = (Object.entries(c.other) as [Outcome, number][]).map(([o, n]) => `, ${n} ${OUTCOME_WORDS[o]}`).join('');
  const run = c.failingRun ? `; ${c.failingRun} ${c.failingRun === 1 ? 'fails' : 'fail'} the run` : c.failed ? '; none fails the run' : '';
  return `${c.passed} passed, ${c.failed} failed${others}${run}`;
}

/** What broke or went unjudged without failing the run, counted per kind, with the option that
 * would make it fail: said beside a PASSED, so a verdict under a list of failures says why it holds.
 * The musts the server left unjudged are said apart from those the run's own options did (one key,
 * the models chosen): a run the server judged little does not pass quietly. The client flows are
 * counted apart from the checks, as the summary counts them. */
export function whyPassing(report: Weighed): string[] {
  const { results, clients } = report;
  const gate = gateOf(report);
  const open = results.filter((r) => !failsRun(r, gate) && r.level !== 'info');
  const count = (f: (r: (typeof open)[number]) => boolean) => open.filter(f).length;
  // The flows apart from the checks, as the summary counts them: a failed flow is no failed should.
  const flows = (clients?.results ?? []).filter((f) => !flowFailsRun(f, gate));
  const countFlows = (f: (r: (typeof flows)[number]) => boolean) => flows.filter(f).length;
  const plural = (n: number, one: string, more: string) => (n === 1 ? one : more);
  const expected = count((r) => !!r.expected && (r.outcome === 'fail' || r.outcome === 'flaky')) + countFlows((f) => !!f.expected && (f.outcome === 'fail' || f.outcome === 'flaky'));
  const byServer = results.filter((r) => r.level === 'must' && !r.expected && serverReason(r) && !failsRun(r, gate));
  const said: [number, (n: number) => string][] = [
    [count((r) => !r.expected && r.level === 'should' && r.outcome === 'fail'), (n) => `${n} should failed, which ${plural(n, 'fails', 'fail')} the run only with --strict`],
    [byServer.length, () => `${serverLine(byServer, results)}: as many would fail the run`],
    [count((r) => !r.expected && r.outcome === 'flaky' && r.level !== 'must'), (n) => `${n} flaky, which ${plural(n, 'fails', 'fail')} the run only with --strict`],
    [
      count((r) => r.level === 'must' && (r.outcome === 'not-tested' || r.outcome === 'not-served') && !serverReason(r)),
      (n) => `${n} must not tested, which ${plural(n, 'fails', 'fail')} the run only with --require-complete`,
    ],
    // A failed flow that fails nothing is one of a should's level, or flaky: --strict fails it.
    [
      countFlows((f) => !f.expected && (f.outcome === 'fail' || f.outcome === 'flaky')),
      (n) => `${n} client ${plural(n, 'flow', 'flows')} failed, which ${plural(n, 'fails', 'fail')} the run only with --strict`,
    ],
    [
      countFlows((f) => (f.failureLevel ?? f.level) === 'must' && (f.outcome === 'not-tested' || f.outcome === 'not-served')),
      (n) => `${n} client ${plural(n, 'flow', 'flows')} not tested, which ${plural(n, 'fails', 'fail')} the run only with --require-complete`,
    ],
    [expected, (n) => `${n} ${plural(n, 'failure', 'failures')} the baseline expects`],
  ];
  return said.filter(([n]) => n > 0).map(([n, words]) => words(n));
}

/** An outcome as a reader's words. */
export const OUTCOME_WORDS: Record<Outcome, string> = { pass: 'passed', fail: 'failed', flaky: 'flaky', 'not-served': 'not served', 'not-tested': 'not tested', skip: 'skipped' };

/** A client flow as the gate weighs it: a check of the level of its failure; never failing where only
 * failures the baseline expects explain it (baseline.ts, applyFlowBaseline). */
const asWeighed = (f: Pick<FlowResult, 'level' | 'failureLevel' | 'outcome' | 'expected'>) => ({ level: f.failureLevel ?? f.level, outcome: f.outcome, expected: f.expected });

/** Whether a client flow fails the run: as a check of the level of its failure would. */
export const flowFailsRun = (f: Parameters<typeof asWeighed>[0], gate: Gate): boolean => failsRun(asWeighed(f), gate);

/** 0: nothing fails the run (no check, no client flow: see failsRun) and no baseline entry is stale.
 * 1: otherwise. Usage errors (2) never reach a report. */
export function exitCodeFor(results: readonly CheckResult[], opts: GateOptions, stale: readonly unknown[] = [], flows: readonly FlowResult[] = []): 0 | 1 {
  const gate = gateOf({ options: opts, results });
  return results.some((r) => failsRun(r, gate)) || flows.some((f) => flowFailsRun(f, gate)) || stale.length ? 1 : 0;
}

/** The checks each failure kept from judging their rule (a not-tested result whose every deciding
 * path names it in blockedBy), by the failed check's id: a report shows them under their cause. */
export function blockedUnder(results: readonly CheckResult[]): Map<string, CheckResult[]> {
  // A flaky owner saw the part broken too, once: what it blocked is shown under it all the same.
  const failed = new Set(results.filter((r) => r.outcome === 'fail' || r.outcome === 'flaky').map((r) => r.id));
  const under = new Map<string, CheckResult[]>();
  for (const r of results) {
    if (r.outcome !== 'not-tested') continue;
    for (const cause of r.blockedBy ?? []) {
      if (!failed.has(cause)) continue;
      under.set(cause, [...(under.get(cause) ?? []), r]);
    }
  }
  return under;
}

/** Whether a not-tested result is explained by failures of the run alone. */
export const onlyBlocked = (r: CheckResult, under: Map<string, CheckResult[]>) =>
  r.outcome === 'not-tested' && !!r.blockedBy?.length && r.blockedBy.every((id) => under.get(id)?.includes(r)) && (r.paths ?? []).every((p) => p.outcome !== 'not-tested' || !!p.blockedBy);

/** One phrase for a failure: its first message, up to the first path's reason, cut short. */
export function reasonPhrase(r: CheckResult, max = 110): string {
  const text = (r.message ?? r.outcome).replace(/\s+/g, ' ');
  const first = text.split(/; (?=\[)/)[0];
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
