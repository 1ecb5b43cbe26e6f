// The evidence behind one server's cells of docs/compatibility.md, kept beside it as
// docs/compatibility/<id>.md: every check that failed or was left unjudged, and every client flow that
// broke, each under a heading a cell links to, with what the kit found and the exchanges that show it.
// The whole reports are large (up to a megabyte a server); this page keeps what a reader needs to
// check a verdict: each finding once, each exchange once, bodies cut.
import type { CheckResult, Evidence } from '../../engine/check.js';
import { fenced } from '../../report/markdown.js';
import type { Server } from './servers.js';
import type { KitReports } from './verdicts.js';

/** What a page keeps of one exchange: enough to see the answer, not a dump of it. */
const BODY = 400;
const EXCERPT = 700;
/** At most this many paths of a finding, and exchanges of a path: the first ones show it, the
 * report keeps the rest. */
const PATHS = 3;
const EXCHANGES = 2;

/** A server's port, new at every run, as PORT. */
export const portless = (text: string) => text.replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:PORT');

/** The anchor GitHub gives a heading made of an id alone (`chat.role.tool` is #chatroletool). */
export const anchorOf = (id: string) => id.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '');

const cutAt = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}… (${text.length - n} more characters in the report)` : text);

/** The exchanges a page has shown, each under the first heading that showed it: a second finding
 * from the same answer links there instead of repeating it. */
type Shown = Map<string, string>;

function exchange(e: Evidence, shown: Shown, heading: string): string[] {
  const lines = [`${e.request.method} ${e.request.url}`];
  if (e.request.body) lines.push(cutAt(e.request.body, BODY));
  if (e.status !== undefined) lines.push(`<- ${e.status}${e.headers?.['content-type'] ? ` ${e.headers['content-type']}` : ''}`);
  if (e.excerpt) lines.push(cutAt(e.excerpt, EXCERPT));
  if (e.error) lines.push(`error: ${e.error}`);
  const text = portless(lines.join('\n'));
  const first = shown.get(text);
  if (first && first !== heading) return [`${e.label ?? 'exchange'}: as under [${first}](#${anchorOf(first)}).`, ''];
  shown.set(text, heading);
  return [`${e.label ?? 'exchange'}:`, '', fenced(text), ''];
}

/** The kit's own words, quoted on one line. A finding blocked by another shows only these: the
 * exchanges are under the owner. */
const quoted = (message: string | undefined) => (message ? [`> ${portless(message).replace(/\n/g, ' ')}`, ''] : []);

/** The findings of a result, path by path where it has paths: each message, then its first exchanges. */
function findings(
  shown: Shown,
  heading: string,
  outcome: string,
  message: string | undefined,
  evidence: Evidence[],
  paths: { label: string; outcome: string; message?: string; evidence: Evidence[] }[] = [],
): string[] {
  const own = paths.filter((p) => p.outcome === outcome);
  const parts = own.length ? own.map((p) => ({ message: p.message ? `[${p.label}] ${p.message}` : undefined, evidence: p.evidence })) : [{ message, evidence }];
  const more = parts.length > PATHS ? [`And ${parts.length - PATHS} more paths alike in the report.`, ''] : [];
  return [...parts.slice(0, PATHS).flatMap((p) => [...quoted(p.message), ...p.evidence.slice(0, EXCHANGES).flatMap((e) => exchange(e, shown, heading))]), ...more];
}

const WORDS: Record<string, string> = { fail: 'failed', 'not-tested': 'not tested', flaky: 'flaky' };

/** The checks a page keeps: those that did not pass and were not skipped. */
export const kept = (r: { outcome: string }) => r.outcome in WORDS;

export function evidencePage(server: Server, reports: KitReports): string {
  const results = reports.run.results as unknown as CheckResult[];
  const flows = (reports.clients.clients?.results ?? []) as unknown as (CheckResult & { client: string; flow: string; brokenBy?: string[] })[];
  const lines = [
    `# ${server.name} ${server.version}: the evidence`,
    '',
    '<!-- Written by `npm run compat` (scripts/compat/): the evidence of the last run, not to be edited. -->',
    '',
    `What the kit found on ${server.name} (\`${server.package}@${server.version}\`, set up as [the compatibility table](../compatibility.md) says), one heading per check that failed or was left unjudged and per client flow that broke, with the first exchanges that show it (the port as PORT, bodies cut). \`npm run compat -- ${server.id}\` writes the whole reports again to \`compat/reports/${server.id}/\`.`,
    '',
    '## Checks',
    '',
  ];
  const shown: Shown = new Map();
  const open = results.filter(kept);
  if (!open.length) lines.push('Every check that applies passed.', '');
  for (const r of open) {
    const blocked = r.blockedBy?.length ? `, blocked by ${r.blockedBy.map((b) => `[${b}](#${anchorOf(b)})`).join(', ')}` : '';
    lines.push(`### ${r.id}`, '', `${WORDS[r.outcome]}${blocked}: a ${r.level} of §${r.section} ([the rule](../reference/checks.md#${anchorOf(r.id)}))`, '');
    lines.push(...(r.blockedBy?.length ? quoted(r.message) : findings(shown, r.id, r.outcome, r.message, r.evidence, r.paths)));
  }
  lines.push('## Client flows', '');
  const broken = flows.filter((f) => f.outcome === 'fail' || f.outcome === 'not-tested');
  if (!flows.length) lines.push('No client flow ran.', '');
  else if (!broken.length) lines.push('Every client flow passed.', '');
  for (const f of broken) {
    const rests = f.brokenBy?.length ? `, broken as ${f.brokenBy.map((b) => `[${b}](#${anchorOf(b)})`).join(', ')} failed` : '';
    lines.push(`### ${f.id}`, '', `${WORDS[f.outcome]}${rests}: the flow ${f.flow} in ${f.client} ([what it does](../clients.md#what-each-flow-does-in-each-client))`, '');
    lines.push(...(f.brokenBy?.length ? quoted(f.message) : findings(shown, f.id, f.outcome, f.message, f.evidence ?? [], f.paths)));
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
