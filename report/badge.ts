// The badge an implementer shows in a README, linked to the HTML report: a two-part flat badge in
// the shields.io look, the document's name on the left; on the right the run's musts, passed of
// judged, and the date of the run. Its colour is the run's verdict as the gate gives it (gateOf,
// failsRun, exitCodeFor): green where every judged must passed and the run passed its gate, red where
// a must failed (or the run failed its gate otherwise), orange where only musts the gate counts
// unjudged failed it. No text of the report reaches the badge: counts, a date, and the label the
// user chose. The SVG is badge-maker's, the shields.io library itself (Verdana 11px widths, its
// palette, XML escaping), loaded only when a badge is made: no other command pays for its tables.
import { exitCodeFor, failsRun, flowFailsRun, gateOf, whyFailing, type RunReport } from './report.js';

/** How the reports name the document the kit holds a server to (report.schema.json: "the sections
 * of chat-api.md"). */
export const DOCUMENT_NAME = 'chat-api.md';

/** The run's verdict, as the badge shows it. */
export type BadgeVerdict = 'passed' | 'failed' | 'unjudged';

/** shields.io's named colours, which badge-maker renders in its palette. */
export const BADGE_COLOURS: Record<BadgeVerdict, string> = { passed: 'brightgreen', failed: 'red', unjudged: 'orange' };

export interface Badge {
  label: string;
  /** `MUST 104/108 · 2025-06-01`. */
  message: string;
  verdict: BadgeVerdict;
  /** Why that verdict, in the words of the gate: for the line the command prints. */
  why: string;
}

/** The badge of a report: `label` on the left (the document's name unless given). */
export function badgeOf(report: RunReport, label: string = DOCUMENT_NAME): Badge {
  const { results } = report;
  const gate = gateOf(report);
  const musts = results.filter((r) => r.level === 'must');
  const passed = musts.filter((r) => r.outcome === 'pass').length;
  // Every failed must, those the baseline expects too: the badge says how the server conforms.
  const failed = musts.filter((r) => r.outcome === 'fail');
  const failing = results.filter((r) => failsRun(r, gate));
  // The musts that fail the run unjudged: left so under --require-complete, or by a server that left
  // the run short of judgement (flaky ones among them).
  const unjudged = failing.filter((r) => r.level === 'must' && r.outcome !== 'fail').length;
  const flows = report.clients?.results ?? [];
  const stale = report.baseline?.stale ?? [];
  const gateFailed = exitCodeFor(results, report.options, stale, flows) !== 0 || report.exitCode !== 0;
  // Nothing else fails it: no other check, no client flow, no stale baseline entry, no interruption.
  const onlyUnjudged = unjudged > 0 && failing.length === unjudged && !flows.some((f) => flowFailsRun(f, gate)) && !stale.length && report.exitCode <= 1;
  const verdict: BadgeVerdict = failed.length ? 'failed' : !gateFailed ? 'passed' : onlyUnjudged ? 'unjudged' : 'failed';
  const expected = failed.filter((r) => r.expected).length;
  const why = failed.length
    ? `${failed.length} must failed${expected ? `, ${expected} of which the baseline expects` : ''}`
    : gateFailed
      ? whyFailing(report).join(', ') || `the run failed its gate (exit code ${report.exitCode})`
      : 'every judged must passed, and the run passed its gate';
  const date = /^\d{4}-\d{2}-\d{2}/.exec(report.startedAt)?.[0];
  const counts = [`MUST ${passed}/${passed + failed.length}`, ...(unjudged ? [`${unjudged} unjudged`] : []), ...(verdict === 'failed' && !failed.length ? ['run failed'] : [])];
  return { label, message: `${counts.join(', ')}${date ? ` · ${date}` : ''}`, verdict, why };
}

/** The badge as an SVG document; with `link`, the whole badge is a link to it (the HTML report). */
export async function renderBadge(badge: Badge, link?: string): Promise<string> {
  const { makeBadge } = await import('badge-maker');
  const svg = makeBadge({ label: badge.label, message: badge.message, color: BADGE_COLOURS[badge.verdict], style: 'flat', ...(link ? { links: [link] } : {}) });
  return `${svg}\n`;
}
