// Markdown reporter: the summary a person reads in a pull request (GitHub's job summary, a PR
// comment): the verdict first, then what fails the run with its evidence and the command that
// replays it, then findings that do not fail it, then what was not tested.
import type { CheckResult, Evidence } from '../engine/check.js';
import { blockedUnder, failsRun, flowCountLine, flowCounts, gateOf, onlyBlocked, OUTCOME_WORDS, tlsNote, whyFailing, whyPassing, type RunReport } from './report.js';
import { safe, summary } from './text.js';
import { METRIC_MEANINGS, METRICS, paceNote, profileRows, ruleRows, type LoadReport } from './load.js';
import { clientSection } from './markdown-clients.js';

/** Text safe inside a table cell: one line, no pipe, no markup surprises. */
const cell = (s: string) => s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;');
/** A fenced block whose fence no backtick run inside it can close. */
export function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function evidenceBlock(e: Evidence): string[] {
  const lines = [`${e.request.method} ${e.request.url}`];
  if (e.request.body) lines.push(`body: ${e.request.body}`);
  if (e.status !== undefined) lines.push(`<- ${e.status}${e.durationMs !== undefined ? ` (${Math.round(e.durationMs)} ms)` : ''}`);
  if (e.excerpt) lines.push(e.excerpt);
  if (e.error) lines.push(`error: ${e.error}`);
  const out = [`*${cell(e.label ?? 'exchange')}*`, '', fenced(lines.join('\n'))];
  if (e.reproduce) out.push('', 'Reproduce with:', '', fenced(e.reproduce, 'sh'));
  return out;
}

function detail(r: CheckResult, under: Map<string, CheckResult[]>): string[] {
  const out = [`#### \`${r.id}\` (${r.level}, §${r.section})`, '', r.title, ''];
  const blocked = under.get(r.id) ?? [];
  if (blocked.length) out.push(`${r.id} failed; ${blocked.length} check(s) could not judge their rule without it: ${blocked.map((b) => `\`${b.id}\``).join(', ')}.`, '');
  if (r.convention) out.push(`> Convention: ${r.convention}`, '');
  const failing = (r.paths ?? []).filter((p) => p.outcome === r.outcome && p.label);
  if (failing.length) {
    for (const p of failing) {
      out.push(`- **[${cell(p.label)}]** ${cell(p.message ?? r.outcome)}`);
      for (const e of p.evidence.slice(0, 2)) out.push('', '<details><summary>evidence</summary>', '', ...evidenceBlock(e), '', '</details>', '');
    }
  } else {
    out.push(cell(r.message ?? r.outcome), '');
    for (const e of r.evidence.slice(0, 2)) out.push('<details><summary>evidence</summary>', '', ...evidenceBlock(e), '', '</details>', '');
  }
  return out;
}

const table = (rows: string[][]) => [`| ${rows[0].map(cell).join(' | ')} |`, `|${rows[0].map(() => '---').join('|')}|`, ...rows.slice(1).map((r) => `| ${r.map(cell).join(' | ')} |`)];

/** The sweep: what broke under load, the latency profile, and per rule the answers that held at each step. */
function loadSection(load: LoadReport, results: readonly CheckResult[]): string[] {
  const rules = ruleRows(load);
  const broken = rules.filter((r, i) => i === 0 || r.slice(1).some((c) => /^\d+\/\d+$/.test(c) && c.split('/')[0] !== c.split('/')[1]));
  const slos = results.filter((r) => r.section === '--slo');
  const missed = slos.filter((r) => r.outcome === 'fail');
  return [
    `### Load: ${cell(load.model)}, ${load.workload.length} requests in the mix, ${load.mode === 'open' ? 'arrival rates' : 'requests in flight'}`,
    '',
    ...load.breaksUnderLoad.map((b) => `- ❌ \`${b.check}\` held alone, broke at ${cell(b.brokeAt)} (${b.held} of ${b.of} held)`),
    ...(load.breaksUnderLoad.length ? [''] : []),
    ...(paceNote(load) ? [`> ${cell(paceNote(load)!)}`, ''] : []),
    ...table(profileRows(load)),
    '',
    METRICS.map((m) => `\`${m}\`: ${METRIC_MEANINGS[m]}`).join('; '),
    '',
    ...(broken.length > 1
      ? [`Rules an answer broke (held / judged per step; ${rules.length - broken.length} more held on every answer):`, '', ...table(broken), '']
      : [`All ${rules.length - 1} rules held on every answer judged.`, '']),
    ...(slos.length ? [`${missed.length} of ${slos.length} objectives (\`--slo\`) failed${missed.length ? `: ${missed.map((r) => `\`${r.id}\``).join(', ')}` : ''}.`, ''] : []),
  ];
}

/** A check's row; a long finding is cut after a word, saying where it is whole: in its section
 * below (what fails the run has one), else in the reports that keep every text (json, html). */
const row = (r: CheckResult, whole = 'the whole in the json or html report') => `| \`${r.id}\` | ${r.level} | ${cell(r.section)} | ${cell(summary(r.message ?? r.outcome, 200, whole))} |`;
const TABLE = ['| check | level | section | what was found |', '|---|---|---|---|'];

export function renderMarkdown(report: RunReport): string {
  const o = report.options;
  const gate = gateOf(report);
  const failing = report.results.filter((r) => failsRun(r, gate));
  const flows = flowCounts(report);
  const findings = report.results.filter((r) => (r.outcome === 'fail' || r.outcome === 'flaky') && !failsRun(r, gate));
  const under = blockedUnder(report.results);
  // A check blocked by a failure is shown under that failure, once.
  const untested = report.results.filter((r) => (r.outcome === 'not-tested' || r.outcome === 'not-served') && !failsRun(r, gate) && !onlyBlocked(r, under));
  // The rarer outcomes get a column only in a run that has them.
  const columns = (['pass', 'fail', 'flaky', 'not-tested', 'not-served', 'skip'] as const).filter(
    (x) => x === 'pass' || x === 'fail' || x === 'not-tested' || x === 'skip' || report.results.some((r) => r.outcome === x),
  );
  const s = report.summary;
  const verdict = report.exitCode === 0 ? 'PASSED' : 'FAILED';
  const passing = report.exitCode === 0 ? whyPassing(report) : [];
  const failingWhy = report.exitCode === 0 ? [] : whyFailing(report);
  const tls = tlsNote(report);
  const out = [
    `## ${report.exitCode === 0 ? '✅' : '❌'} ${report.tool.name}: ${verdict} (exit code ${report.exitCode})`,
    '',
    ...(passing.length ? [`Passed with ${passing.join('; ')}.`, ''] : []),
    ...(failingWhy.length ? [`Failed with ${failingWhy.join(', ')}.`, ''] : []),
    `Target \`${report.target.baseUrl}\`${report.target.embeddedMock ? ' (embedded mock)' : ''}, ${report.results.length} checks${flows ? `, ${flows.total} client flows (${flowCountLine(flows)})` : ''}, ${(report.durationMs / 1000).toFixed(1)} s${o.strict ? ', strict' : ''}${o.requireComplete ? ', require-complete' : ''}.`,
    '',
    ...(tls ? [`${report.target.tls?.insecure ? '> ⚠️ ' : ''}${cell(tls)}.`, ''] : []),
    `| level | ${columns.map((x) => OUTCOME_WORDS[x]).join(' | ')} |`,
    `|---|${columns.map(() => '---|').join('')}`,
    ...(['must', 'should', 'info'] as const).filter((l) => Object.values(s[l]).some((n) => n > 0)).map((l) => `| ${l} | ${columns.map((x) => s[l][x]).join(' | ')} |`),
    '',
  ];
  if (report.stopped) out.push(`> **Stopped before the end:** ${report.stopped}; what had not finished is not tested.`, '');
  if (report.baseline) {
    const b = report.baseline;
    out.push(`Baseline \`${b.file}\`${b.updated ? ' (written from this run)' : ''}: ${b.expected} expected failure(s), ${b.stale.length} stale entr${b.stale.length === 1 ? 'y' : 'ies'}.`, '');
    for (const e of b.stale) out.push(`- ❌ stale: ${cell(e.why)} (${cell(e.reason)})`);
    if (b.stale.length) out.push('');
  }
  for (const w of report.warnings) out.push(`> ⚠️ ${w}`, '');
  if (report.load) out.push(...loadSection(report.load, report.results));
  if (report.clients) out.push(...clientSection(report.clients));
  if (failing.length)
    out.push(`### ❌ Failing the run (${failing.length})`, '', ...TABLE, ...failing.map((r) => row(r, `the whole under ${r.id} below`)), '', ...failing.flatMap((r) => detail(r, under)));
  if (findings.length)
    out.push(
      `### Findings that do not fail the run (${findings.length})`,
      '',
      'A failed should without `--strict`, a flaky check (it broke, then held when sent again), an expected failure of the baseline, an info note.',
      '',
      ...TABLE,
      ...findings.map((r) => row(r.expected ? { ...r, message: `expected (${r.expected.reason}): ${r.message ?? ''}` } : r.outcome === 'flaky' ? { ...r, message: `flaky: ${r.message ?? ''}` } : r)),
      '',
    );
  if (untested.length)
    out.push(`### Not tested (${untested.length})`, '', ...TABLE, ...untested.map((r) => row(r.outcome === 'not-served' ? { ...r, message: `not served: ${r.message ?? ''}` } : r)), '');
  // What the server sent (a model id, a message) may carry terminal escapes: inert, as in pretty output.
  return `${safe(out.join('\n')).trimEnd()}\n`;
}
