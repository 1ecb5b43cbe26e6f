// GitHub Actions reporter: one workflow command per finding, which GitHub shows as an annotation on
// the run: ::error for what fails the run, ::warning for a failure that does not (a should without
// --strict, a flaky check, an expected failure), each with its section and the first line of its evidence.
import type { CheckResult } from '../engine/check.js';
import { failsRun, type RunReport } from './report.js';
import { safe } from './text.js';

/** Escaping of a workflow command's message and of its properties (GitHub's toolkit rules), what
 * the server sent made inert first, as in pretty output. */
const data = (s: string) => safe(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function annotation(kind: 'error' | 'warning', r: CheckResult): string {
  const e = r.evidence[0];
  const first = e ? `${e.request.method} ${e.request.url}${e.status !== undefined ? ` -> ${e.status}` : ''}${e.error ? ` (${e.error})` : ''}` : '';
  const message = [`${r.outcome === 'flaky' ? 'flaky: ' : ''}${r.message ?? r.outcome}`, first && `evidence: ${first}`, r.expected && `expected by the baseline: ${r.expected.reason}`]
    .filter(Boolean)
    .join('\n');
  return `::${kind} title=${property(`${r.id} (${r.level}, §${r.section})`)}::${data(`${r.title}\n${message}`)}`;
}

export function renderGithub(report: RunReport): string {
  const lines = report.results.flatMap((r) =>
    failsRun(r, report.options) ? [annotation('error', r)] : (r.outcome === 'fail' || r.outcome === 'flaky') && r.level !== 'info' ? [annotation('warning', r)] : [],
  );
  for (const e of report.baseline?.stale ?? []) lines.push(`::error title=${property(`stale baseline entry: ${e.check}`)}::${data(`${e.why} (${report.baseline!.file}: ${e.reason})`)}`);
  if (report.stopped) lines.push(`::warning title=${property('run stopped before the end')}::${data(report.stopped)}`);
  lines.push(
    `::notice title=${property(`${report.tool.name}: ${report.exitCode === 0 ? 'passed' : 'failed'}`)}::${data(`${report.results.length} checks against ${report.target.baseUrl}; exit code ${report.exitCode}`)}`,
  );
  return `${lines.join('\n')}\n`;
}
