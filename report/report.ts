// The run report every reporter renders. The JSON reporter writes it as it is, so its shape
// is a published format: bump REPORT_FORMAT_VERSION on any incompatible change.
import type { CheckResult, Level, Outcome } from '../engine/check.js';
import type { StaleEntry } from './baseline.js';
import type { LoadReport } from './load.js';

/** 2: results carry their paths, sections, expected failures; reports carry notes, baseline, stopped. */
export const REPORT_FORMAT_VERSION = 2;

export interface RunReport {
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
  /** Why the run stopped before every check finished (its deadline, an interruption). */
  stopped?: string;
  /** The run's baseline (--expected-failures): how many failures it expected, which of its entries
   * are stale (they pass now, and fail the run), whether the run wrote it (--update-baseline). */
  baseline?: { file: string; expected: number; stale: StaleEntry[]; updated: boolean };
  /** A load sweep's latency profile and per-step rule counts (`conformance load`). */
  load?: LoadReport;
}

export type Summary = Record<Level, Record<Outcome, number>>;

/** How the run spoke TLS, for a report's heading: `TLS verification off (--insecure)`; undefined
 * with Node's defaults. Verification off comes first: it is what a reader must not miss. */
export function tlsNote(report: RunReport): string | undefined {
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
  const blank = (): Record<Outcome, number> => ({ pass: 0, fail: 0, skip: 0, 'not-tested': 0 });
  const summary: Summary = { must: blank(), should: blank(), info: blank() };
  for (const r of results) summary[r.level][r.outcome]++;
  return summary;
}

export interface GateOptions {
  strict: boolean;
  requireComplete: boolean;
}

/** Whether a result fails the run: a failed must (with strict, a failed should too), a must left
 * not-tested under requireComplete; never a failure the baseline expects. Every reporter that
 * counts failures asks this, so the reports and the exit code cannot disagree. */
export function failsRun(r: CheckResult, opts: GateOptions): boolean {
  if (r.expected) return false;
  if (r.outcome === 'fail') return r.level === 'must' || (opts.strict && r.level === 'should');
  return r.outcome === 'not-tested' && opts.requireComplete && r.level === 'must';
}

/** 0: nothing fails the run (see failsRun) and no baseline entry is stale. 1: otherwise. Usage
 * errors (2) never reach a report. */
export function exitCodeFor(results: CheckResult[], opts: GateOptions, stale: readonly unknown[] = []): 0 | 1 {
  return results.some((r) => failsRun(r, opts)) || stale.length ? 1 : 0;
}

/** The checks each failure kept from judging their rule (a not-tested result whose every deciding
 * path names it in blockedBy), by the failed check's id: a report shows them under their cause. */
export function blockedUnder(results: readonly CheckResult[]): Map<string, CheckResult[]> {
  const failed = new Set(results.filter((r) => r.outcome === 'fail').map((r) => r.id));
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
