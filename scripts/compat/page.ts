// docs/compatibility.md, written from the reports of one compatibility run: the servers, a table of
// the document's sections against the servers, each server's client matrix, and what was left out.
import { type KitReports, kitErrors } from './verdicts.js';
import { anchorOf, kept, portless } from './evidence.js';
import type { Dropped, Server } from './servers.js';

/** The rows of the table: each check sits in the first section it names. */
const SECTIONS: [string, string][] = [
  ['2.1', 'request fields'],
  ['2.2', 'messages'],
  ['2.3', 'response'],
  ['2.4', 'model list'],
  ['2.5', 'catalog content'],
  ['4.1', 'chat completion'],
  ['4.3', 'public catalog'],
  ['5', 'authentication'],
  ['5.1', 'Bearer required'],
  ['5.2', 'list per key'],
  ['5.3', 'catalog without a key'],
  ['6', 'events'],
  ['6.1', 'streaming'],
  ['6.2', 'streamed usage'],
  ['7', 'errors'],
  ['8', 'limits'],
];

export interface Outcome {
  server: Server;
  reports?: KitReports;
  /** Why the server has no reports: its install or its start failed. */
  error?: string;
  durationMs: number;
}

/** Cut after a whole word; a server's port, new at every run, as PORT so that a page changes only with
 * a verdict. */
const cut = (text: string, n: number): string => {
  const t = portless(text);
  return t.length > n ? `${t.slice(0, t.lastIndexOf(' ', n - 1) > n / 2 ? t.lastIndexOf(' ', n - 1) : n - 1)}…` : t;
};
const cellText = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A finding's heading on the server's evidence page (scripts/compat/evidence.ts). */
const evidenceOf = (o: Outcome, id: string) => `compatibility/${o.server.id}.md#${anchorOf(id)}`;

function cell(o: Outcome, section: string): string {
  if (!o.reports) return 'not tested: the server did not start';
  const checks = o.reports.run.results.filter((r) => r.sections[0] === section && r.outcome !== 'skip');
  if (checks.length === 0) return '';
  const failed = checks.filter((r) => r.outcome === 'fail');
  if (failed.length) return `✗ ${failed.map((r) => `[\`${r.id}\`](${evidenceOf(o, r.id)})${r.level === 'must' ? '' : ` (${r.level})`}`).join(', ')}`;
  if (checks.some((r) => r.outcome === 'pass')) {
    const open = checks.filter(kept);
    return open.length ? `✓ ([${open.length} of ${checks.length} not judged](${evidenceOf(o, open[0].id)}))` : '✓';
  }
  const first = checks.find((r) => r.message) ?? checks[0];
  return `[not tested](${evidenceOf(o, first.id)})${first.message ? `: ${cellText(cut(first.message, 90))}` : ''}`;
}

const OUTCOME_MARK: Record<string, string> = { pass: '✓', fail: '✗', 'not-tested': '–', 'not-served': 'not served', flaky: 'flaky', skip: 'skip' };

function clientMatrix(o: Outcome): string[] {
  const c = o.reports?.clients.clients;
  if (!c || c.results.length === 0) return ['No client flow ran.', ''];
  const clients = [...new Set(c.results.map((r) => r.client))];
  const flows = [...new Set(c.results.map((r) => r.flow))];
  const rows = flows.map((flow) => {
    const marks = clients.map((client) => {
      const r = c.results.find((x) => x.client === client && x.flow === flow);
      if (!r) return 'n/a';
      const mark = OUTCOME_MARK[r.outcome] ?? r.outcome;
      return r.outcome === 'fail' || r.outcome === 'not-tested' ? `[${mark}](${evidenceOf(o, r.id)})` : mark;
    });
    return `| ${flow} | ${marks.join(' | ')} |`;
  });
  return [`| flow | ${clients.join(' | ')} |`, `|---|${clients.map(() => '---').join('|')}|`, ...rows, ''];
}

const minutes = (ms: number): string => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

export function compatibilityPage(outcomes: Outcome[], dropped: Dropped[], meta: { date: string; kitVersion: string; node: string; durationMs: number; disagreements: number }): string {
  const ok = outcomes.filter((o) => o.reports);
  const lines: string[] = [
    '# Compatibility: the kit against real servers',
    '',
    '<!-- Written by `npm run compat` (scripts/compat/): edit compat/servers.json or a review, not this page. -->',
    '',
    `The kit's verdicts on third-party servers installed from the npm registry at pinned versions, each`,
    'started on 127.0.0.1 with no network beyond loopback; a gateway or a proxy routes to the kit’s own',
    `mock. Run on ${meta.date} with chat-api-conformance ${meta.kitVersion} on Node ${meta.node}; the whole run (installs`,
    `from a warm npm cache, ${outcomes.length} servers, \`run\` and \`clients\` on each) took ${minutes(meta.durationMs)}.`,
    '',
    '**What this table is not.** It is no ranking of these projects: most of them are test doubles or',
    'routers built for other purposes, and were never meant to implement every rule of this document. A',
    '✗ says which rule of `chat-api.md` the server as set up here breaks, with the check id that shows it;',
    'it says nothing about the quality of the project. Each verdict was compared with a review written',
    'before the run, from the server’s own answers to curl (compat/reviews/):',
    meta.disagreements ? `${meta.disagreements} disagreements were left open in this run.` : 'the kit and every review agree.',
    '',
    '## The servers',
    '',
    '| server | kind | package | how it was set up | run, clients |',
    '|---|---|---|---|---|',
    ...outcomes.map(
      (o) =>
        `| ${o.server.name} | ${o.server.kind} | \`${o.server.package}@${o.server.version}\` | ${cellText(o.server.setup)} | ${o.reports ? `exit ${o.reports.run.exitCode}, exit ${o.reports.clients.exitCode}` : cellText(o.error ?? '')} (${minutes(o.durationMs)}) |`,
    ),
    '',
    '## Sections of the document',
    '',
    'Each check counts in the first section it names. ✓: every check of the section that judged held',
    '(those left unjudged are counted); ✗: the checks that failed, a should marked so; not tested: the',
    'reason the first such check gave. A blank cell has no check of the section that applies. Each',
    'finding links to its evidence: what the kit found and the exchanges that show it, on a page per',
    'server (docs/compatibility/).',
    '',
    `| section | ${ok.map((o) => o.server.name).join(' | ')} |`,
    `|---|${ok.map(() => '---').join('|')}|`,
    ...SECTIONS.map(([id, title]) => `| ${id} ${title} | ${ok.map((o) => cell(o, id)).join(' | ')} |`),
    '',
    '## The clients against each server',
    '',
    'The flows of `conformance clients` in the Node clients (openai, the AI SDK, LangChain): ✓ passed,',
    '✗ failed, – not tested (a check it rests on was not judged), n/a a flow the client lacks; a ✗ or a',
    "– links to the flow's evidence.",
    '',
  ];
  for (const o of ok) lines.push(`### ${o.server.name} ${o.server.version}`, '', `![${o.server.name}: the badge of its run](compatibility/${o.server.id}.svg)`, '', ...clientMatrix(o));
  const wrong = ok.flatMap((o) => kitErrors(o.server.id).map((k) => `- ${o.server.name}: \`${k.check}\`: ${k.why}`));
  lines.push(
    '## Where the kit is wrong',
    '',
    'Failures the reviews settled as errors of the kit, not of the server (the review of each server says why, with the answer):',
    '',
    ...(wrong.length ? wrong : ['None.']),
    '',
    '## Left out',
    '',
    ...dropped.map((d) => `- \`${d.package}@${d.version}\`: ${d.why}.`),
    '',
    '## Adding a server',
    '',
    '1. Add it to `compat/servers.json`: the package and an exact version, the file it starts from, its',
    '   arguments with `{port}` (and `{upstream}` for a router), and `"loopback": true` where it has no',
    '   option for its address. It must bind 127.0.0.1 and need nothing from the network.',
    '2. Start it by hand and ask it with curl; write `compat/reviews/<id>.md` before running the kit:',
    '   the rules it breaks (`- fail \\`check.id\\``), those that must hold (`- pass`), and those nothing',
    '   of it answers (`- not-judged`), each with its section and the answer that shows it.',
    '3. `npm run compat` installs, runs, compares and writes this page and `compat/verdicts.json`. A',
    '   disagreement is printed and exits 1: read the evidence in `compat/reports/<id>/`; a kit that',
    '   is wrong gets a fix and a mock fault that behaves as the server did, a review that is wrong',
    '   gets its correction with the reason.',
    '',
    '`test/compat.test.ts` runs the servers marked `"ci": true` (the quickest to install) and holds their',
    'verdicts to `compat/verdicts.json` and to their review, so a change of the kit that moves a verdict',
    'on a real server fails until the review or the recorded verdicts are changed on purpose.',
    '',
  );
  return lines.join('\n');
}
