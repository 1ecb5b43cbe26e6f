// Two JSON reports side by side (a branch's against main's): the checks that newly fail, newly
// pass, changed level or changed what they found, and the client flows that newly fail or pass. A
// check or a flow that newly fails, or a check that fails on a path it passed before, is a regression.
import type { CheckResult } from '../engine/check.js';
import { explanation } from './client-matrix.js';
import type { FlowResult } from './clients.js';
import type { RunReport } from './report.js';
import { safe } from './text.js';

export interface Change {
  id: string;
  level: string;
  /** What changed, one line. */
  what: string;
  /** A client flow's change (`openai.stream`), not a check's. */
  flow?: true;
}

export interface ReportDiff {
  newlyFailing: Change[];
  newlyPassing: Change[];
  levelChanged: Change[];
  /** Failing in both, saying something else: a different failure, or other paths failing. */
  findingChanged: Change[];
  added: string[];
  removed: string[];
  /** Whether anything newly fails. */
  regression: boolean;
}

const failingPaths = (r: CheckResult) => new Set((r.paths ?? []).filter((p) => p.outcome === 'fail').map((p) => p.label));
const shown = (labels: string[]) => labels.map((l) => `[${l}]`).join(', ');

export function diffReports(before: RunReport, after: RunReport): ReportDiff {
  const old = new Map(before.results.map((r) => [r.id, r]));
  const now = new Map(after.results.map((r) => [r.id, r]));
  const diff: ReportDiff = { newlyFailing: [], newlyPassing: [], levelChanged: [], findingChanged: [], added: [], removed: [], regression: false };
  for (const [id, b] of now) {
    const a = old.get(id);
    if (!a) {
      diff.added.push(id);
      if (b.outcome === 'fail') diff.newlyFailing.push({ id, level: b.level, what: `a new check, failing: ${b.message ?? ''}` });
      continue;
    }
    if (a.level !== b.level) diff.levelChanged.push({ id, level: b.level, what: `${a.level} -> ${b.level}` });
    if (a.outcome !== 'fail' && b.outcome === 'fail') diff.newlyFailing.push({ id, level: b.level, what: `${a.outcome} -> fail: ${b.message ?? ''}` });
    else if (a.outcome === 'fail' && b.outcome !== 'fail') diff.newlyPassing.push({ id, level: b.level, what: `fail -> ${b.outcome}` });
    else if (a.outcome === 'fail' && b.outcome === 'fail') {
      const [was, is] = [failingPaths(a), failingPaths(b)];
      const fresh = [...is].filter((l) => !was.has(l));
      const healed = [...was].filter((l) => !is.has(l));
      if (fresh.length) diff.newlyFailing.push({ id, level: b.level, what: `now fails on ${shown(fresh)} too` });
      if (healed.length) diff.newlyPassing.push({ id, level: b.level, what: `no longer fails on ${shown(healed)}` });
      if (!fresh.length && !healed.length && a.message !== b.message) diff.findingChanged.push({ id, level: b.level, what: `${a.message ?? ''} -> ${b.message ?? ''}` });
    }
  }
  for (const id of old.keys()) if (!now.has(id)) diff.removed.push(id);
  diffFlows(before, after, diff);
  diff.regression = diff.newlyFailing.length > 0;
  return diff;
}

/** A flow that fails now and did not (or did not run), or the other way round: what a user's code
 * meets through a client changed. Flows are compared by id, over the clients both reports ran. */
function diffFlows(before: RunReport, after: RunReport, diff: ReportDiff): void {
  const old = new Map((before.clients?.results ?? []).map((f) => [f.id, f]));
  const failing = (f: FlowResult | undefined) => f?.outcome === 'fail';
  for (const b of after.clients?.results ?? []) {
    const a = old.get(b.id);
    const level = b.failureLevel ?? b.level;
    // Why first: the message quotes what the client threw, and a line is cut at WHAT_SHOWN.
    if (failing(b) && !failing(a)) diff.newlyFailing.push({ id: b.id, level, flow: true, what: `${a ? a.outcome : 'not run'} -> fail (${explanation(b).replace(/^← /, '')}): ${b.message ?? ''}` });
    // At the level it failed at: a passing flow weighs what it rests on, not what it broke.
    else if (failing(a) && b.outcome !== 'fail') diff.newlyPassing.push({ id: b.id, level: a!.failureLevel ?? a!.level, flow: true, what: `fail -> ${b.outcome}` });
  }
}

/** Most characters of what changed on a line of the text diff: a failure's message quotes what the
 * server sent, kilobytes of it, and a line is read, not scrolled. */
const WHAT_SHOWN = 200;

/** The text diff; a line cut short says where its whole is: `files` names the reports compared. */
export function renderDiff(diff: ReportDiff, files?: { old: string; new: string }): string {
  const out: string[] = [];
  let cut = false;
  const line = (what: string) => {
    const flat = what.replace(/\s*\n\s*/g, ' ');
    if (flat.length <= WHAT_SHOWN) return flat;
    cut = true;
    const end = flat.lastIndexOf(' ', WHAT_SHOWN);
    return `${flat.slice(0, end > WHAT_SHOWN / 2 ? end : WHAT_SHOWN)} …`;
  };
  const list = (title: string, changes: Change[]) => {
    if (!changes.length) return;
    out.push(`${title} (${changes.length})`);
    for (const c of changes) out.push(`  ${c.flow ? 'client flow ' : ''}${c.id} [${c.level}]: ${line(c.what)}`);
    out.push('');
  };
  list('Newly failing', diff.newlyFailing);
  list('Newly passing', diff.newlyPassing);
  list('Level changed', diff.levelChanged);
  list('Failing in both, finding changed', diff.findingChanged);
  if (diff.added.length) out.push(`Checks added: ${diff.added.join(', ')}`, '');
  if (diff.removed.length) out.push(`Checks removed: ${diff.removed.join(', ')}`, '');
  if (cut)
    out.push(
      `A line ending in … is cut at ${WHAT_SHOWN} characters: the whole finding is the check's message in ${files ? `${files.new} (and ${files.old})` : 'the reports compared'}, by id, and in conformance diff --json.`,
      '',
    );
  const flows = diff.newlyFailing.filter((c) => c.flow).length;
  const checks = diff.newlyFailing.length - flows;
  out.push(diff.regression ? `REGRESSION: ${[checks && `${checks} check(s)`, flows && `${flows} client flow(s)`].filter(Boolean).join(' and ')} newly failing` : 'no regression');
  // The reports' messages and labels quote what servers sent: inert on a terminal, as in pretty output.
  return `${safe(out.join('\n'))}\n`;
}
