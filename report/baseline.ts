// Expected failures: a baseline that burns down. A listed failure is reported as expected and does
// not fail the run; a listed failure that now passes is stale and fails the run, so the list only
// shrinks; --update-baseline writes the list from a run, keeping the reasons of what still fails.
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { FILE_LIMITS, FileError, parseAs, readText, type Problem } from '../schemas/file.js';
import { nearest } from '../schemas/nearest.js';
import type { CheckResult, Outcome, PathResult } from '../engine/check.js';
import type { FlowResult } from './clients.js';

export interface BaselineEntry {
  check: string;
  /** Only the paths on this model. */
  model?: string;
  /** Only the paths whose label holds each of these comma-separated parts. */
  path?: string;
  reason: string;
}

export interface Baseline {
  formatVersion?: 1;
  expected: BaselineEntry[];
}

/** An entry whose failure is gone: the check (or its paths the entry names) now passes. */
export interface StaleEntry extends BaselineEntry {
  why: string;
}

const parts = (label: string) =>
  label
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/** Whether the entry covers a path of its check or flow (every path, when it names none), the path
 * given by the parts of its label. */
function covers(e: BaselineEntry, label: ReadonlySet<string> | undefined): boolean {
  if (!e.model && !e.path) return true;
  if (!label) return false;
  return (!e.model || label.has(e.model)) && (!e.path || parts(e.path).every((x) => label.has(x)));
}

/** The baseline file, checked: its schema, and every entry naming a check of the registry or a
 * client flow (`openai.stream`). */
export function loadBaseline(file: string, knownChecks: ReadonlySet<string>, knownFlows: ReadonlySet<string> = new Set()): Baseline {
  const names = [...knownChecks, ...knownFlows];
  const unknown = (b: Baseline): Problem[] => {
    const out: Problem[] = [];
    // The first few say what to fix: each is a did-you-mean against every name, and a file may
    // hold a hundred thousand of them.
    for (let i = 0; i < b.expected.length && out.length < FILE_LIMITS.problems; i++) {
      const e = b.expected[i];
      if (knownChecks.has(e.check) || knownFlows.has(e.check)) continue;
      const near = nearest(e.check, names);
      out.push({
        path: ['expected', i, 'check'],
        message: `expected the id of a check (conformance list)${knownFlows.size ? ' or of a client flow' : ''}; "${e.check}" is none${near ? `: did you mean ${near}?` : ''}`,
      });
    }
    return out;
  };
  return parseAs<Baseline>(readText(file, 'expected failures'), file, 'baseline', unknown);
}

/** The baseline's entries by the id they name. */
function byId(baseline: Baseline | undefined): Map<string, BaselineEntry[]> {
  const map = new Map<string, BaselineEntry[]>();
  for (const e of baseline?.expected ?? []) {
    const entries = map.get(e.check);
    if (entries) entries.push(e);
    else map.set(e.check, [e]);
  }
  return map;
}

/** What a check's or a flow's entries say of it (`name` as a stale entry names it): the reason it is
 * expected, when it failed and every failing path is covered, and the entries gone stale, whose every
 * covered path passed. `paths` undefined: a result without paths, judged whole by its outcome. */
function judged(name: string, entries: readonly BaselineEntry[], outcome: Outcome, paths: readonly Pick<PathResult, 'label' | 'outcome'>[] | undefined): { reason?: string; stale: StaleEntry[] } {
  if (!entries.length) return { stale: [] };
  // Each label split once, not once per entry that asks about it.
  const labelled = paths?.map((p) => ({ outcome: p.outcome, label: new Set(parts(p.label)) }));
  const stale = entries
    .filter((e) => {
      const covered = labelled?.filter((p) => covers(e, p.label));
      return covered ? covered.length > 0 && covered.every((p) => p.outcome === 'pass' || p.outcome === 'skip') : outcome === 'pass';
    })
    .map((e) => ({ ...e, why: `${name}${e.model || e.path ? ` [${[e.model, e.path].filter(Boolean).join(', ')}]` : ''} now passes: remove the entry` }));
  const failing: (ReadonlySet<string> | undefined)[] = labelled ? labelled.filter((p) => p.outcome === 'fail').map((p) => p.label) : outcome === 'fail' ? [undefined] : [];
  if (outcome !== 'fail' || !failing.every((p) => entries.some((e) => covers(e, p)))) return { stale };
  return { stale, reason: [...new Set(entries.filter((e) => failing.some((p) => covers(e, p))).map((e) => e.reason))].join('; ') };
}

/** The results with the failures the baseline lists marked expected, and the entries gone stale. A
 * failing check is expected only when every failing path of it is covered. */
export function applyBaseline(results: CheckResult[], baseline: Baseline): { results: CheckResult[]; stale: StaleEntry[] } {
  const entries = byId(baseline);
  const stale: StaleEntry[] = [];
  const out = results.map((r) => {
    const { reason, stale: gone } = judged(r.id, entries.get(r.id) ?? [], r.outcome, r.paths);
    for (const entry of gone) stale.push(entry);
    return reason === undefined ? r : { ...r, expected: { reason } };
  });
  return { results: out, stale };
}

/** The client flows gated as the checks are: a failed flow is expected where the baseline lists it
 * (on every failing path, as a check), or where every check that broke it is an expected failure of
 * this run (the same known defect); a listed flow that ran and passed is stale. */
export function applyFlowBaseline(flows: readonly FlowResult[], results: readonly CheckResult[], baseline?: Baseline): { flows: FlowResult[]; stale: StaleEntry[] } {
  const entries = byId(baseline);
  const expected = new Map(results.filter((r) => r.expected).map((r) => [r.id, r.expected!.reason]));
  const stale: StaleEntry[] = [];
  const out = flows.map((f) => {
    const { reason, stale: gone } = judged(`client flow ${f.id}`, entries.get(f.id) ?? [], f.outcome, f.paths);
    for (const entry of gone) stale.push(entry);
    if (reason !== undefined) return { ...f, expected: { reason } };
    if ((f.outcome === 'fail' || f.outcome === 'flaky') && f.brokenBy?.length && f.brokenBy.every((id) => expected.has(id)))
      return { ...f, expected: { reason: f.brokenBy.map((id) => `${id}: ${expected.get(id)}`).join('; ') } };
    return f;
  });
  return { flows: out, stale };
}

/** The baseline of a run: one entry per failing check (at check granularity), and per failed client
 * flow that no failed check explains (one a check explains is expected with it), the reason kept from
 * an entry of the old baseline for that id, else a placeholder to be filled in. */
export function baselineOf(results: CheckResult[], old?: Baseline, flows: readonly FlowResult[] = []): Baseline {
  const reasons = new Map<string, string>();
  for (const e of old?.expected ?? []) if (!reasons.has(e.check)) reasons.set(e.check, e.reason);
  const today = new Date().toISOString().slice(0, 10);
  return {
    formatVersion: 1,
    expected: [
      ...results.filter((r) => r.outcome === 'fail' && r.level !== 'info').map((r) => r.id),
      ...flows.filter((f) => f.outcome === 'fail' && !f.brokenBy?.length && (f.failureLevel ?? f.level) !== 'info').map((f) => f.id),
    ].map((id) => ({ check: id, reason: reasons.get(id) ?? `failing since ${today}: say why, and until when` })),
  };
}

export function writeBaseline(file: string, baseline: Baseline): void {
  const text = file.endsWith('.json')
    ? `${JSON.stringify(baseline, null, 2)}\n`
    : `# Expected failures (conformance run --expected-failures); a listed check that passes again fails the run.\n${stringify(baseline)}`;
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new FileError(`${file}: cannot write the baseline: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}
