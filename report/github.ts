// GitHub Actions reporter: one workflow command per finding, which GitHub shows as an annotation on
// the run: ::error for what fails the run, ::warning for a failure that does not (a should without
// --strict, a flaky check, an expected failure), each with its section and the first line of its
// evidence; a client flow likewise, with the checks that explain its failure.
import type { CheckResult, Evidence } from '../engine/check.js';
import { explanation } from './client-matrix.js';
import type { FlowResult } from './clients.js';
import { failsRun, flowFailsRun, gateOf, type RunReport } from './report.js';
import { safe } from './text.js';

/** Escaping of a workflow command's message and of its properties (GitHub's toolkit rules), what
 * the server sent made inert first, as in pretty output. */
const data = (s: string) => safe(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** The first exchange of the evidence, in a line. */
const firstOf = (e: Evidence | undefined) => (e ? `${e.request.method} ${e.request.url}${e.status !== undefined ? ` -> ${e.status}` : ''}${e.error ? ` (${e.error})` : ''}` : '');

function annotation(kind: 'error' | 'warning', r: CheckResult): string {
  const first = firstOf(r.evidence[0]);
  const message = [`${r.outcome === 'flaky' ? 'flaky: ' : ''}${r.message ?? r.outcome}`, first && `evidence: ${first}`, r.expected && `expected by the baseline: ${r.expected.reason}`]
    .filter(Boolean)
    .join('\n');
  return `::${kind} title=${property(`${r.id} (${r.level}, §${r.section})`)}::${data(`${r.title}\n${message}`)}`;
}

function flowAnnotation(kind: 'error' | 'warning', f: FlowResult): string {
  const failed = f.paths.find((p) => p.outcome === 'fail' || p.outcome === 'flaky');
  const first = firstOf(failed?.evidence[0]);
  const message = [
    `${f.outcome === 'flaky' ? 'flaky: ' : ''}${f.message ?? f.outcome} ${explanation(f)}`,
    `does: ${f.does}`,
    first && `evidence: ${first}`,
    f.expected && `expected by the baseline: ${f.expected.reason}`,
  ]
    .filter(Boolean)
    .join('\n');
  return `::${kind} title=${property(`client flow ${f.id} (${f.failureLevel ?? f.level})`)}::${data(`${f.title}\n${message}`)}`;
}

export function renderGithub(report: RunReport): string {
  const gate = gateOf(report);
  const lines = report.results.flatMap((r) => (failsRun(r, gate) ? [annotation('error', r)] : (r.outcome === 'fail' || r.outcome === 'flaky') && r.level !== 'info' ? [annotation('warning', r)] : []));
  for (const f of report.clients?.results ?? [])
    if (flowFailsRun(f, gate)) lines.push(flowAnnotation('error', f));
    else if (f.outcome === 'fail' || f.outcome === 'flaky') lines.push(flowAnnotation('warning', f));
  for (const e of report.baseline?.stale ?? []) lines.push(`::error title=${property(`stale baseline entry: ${e.check}`)}::${data(`${e.why} (${report.baseline!.file}: ${e.reason})`)}`);
  if (report.stopped) lines.push(`::warning title=${property('run stopped before the end')}::${data(report.stopped)}`);
  lines.push(
    `::notice title=${property(`${report.tool.name}: ${report.exitCode === 0 ? 'passed' : 'failed'}`)}::${data(`${report.results.length} checks${report.clients ? ` and ${report.clients.results.length} client flows` : ''} against ${report.target.baseUrl}; exit code ${report.exitCode}`)}`,
  );
  return `${lines.join('\n')}\n`;
}
