// What a run says on standard error once its reports are written: where they went, when none went to
// standard output (so a run with only file reporters does not end in silence), with why it passed or
// failed (what broke or went unjudged, and what the server kept from being judged), and what to do
// next after the embedded mock passed (a new user's first run).
import { whyFailing, whyPassing, type RunReport } from '../report/report.js';

export function closingLines(command: string, reporters: readonly { name: string; file?: string }[], report: RunReport, exitCode: number): string[] {
  const lines: string[] = [];
  const verdict = exitCode === 0 ? 'PASSED' : exitCode === 1 ? 'FAILED' : 'STOPPED';
  const stale = report.baseline?.stale.length ?? 0;
  const why = exitCode === 0 ? whyPassing(report).join('; ') : exitCode === 1 ? [...whyFailing(report), ...(stale ? [`${stale} stale baseline entr${stale === 1 ? 'y' : 'ies'}`] : [])].join(', ') : '';
  if (reporters.every((r) => r.file)) lines.push(`${verdict} (exit code ${exitCode})${why ? `: ${why}` : ''}; ${reporters.map((r) => `${r.name} report in ${r.file}`).join(', ')}`);
  if (report.target.embeddedMock && exitCode === 0) lines.push(`the embedded mock passed; to test your server: conformance ${command} --base-url URL --api-key KEY`);
  return lines;
}
