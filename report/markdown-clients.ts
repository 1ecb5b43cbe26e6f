// The client section of the markdown report: the matrix of flows against clients (✓, ✗ or not run,
// with a footnote saying why), the flows no failed rule explains first, then the other failed flows
// with the checks that explain them, and each failed check with the flows it broke.
import { clientLine, explanation, matrix } from './client-matrix.js';
import type { ClientsReport, FlowResult } from './clients.js';

/** Text safe inside a table cell: one line, no pipe, no markup surprises. */
const cell = (s: string) => s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;');

function flowItem(f: FlowResult): string[] {
  const paths = f.paths.filter((p) => p.outcome === 'fail' || p.outcome === 'flaky');
  return [
    `- **\`${f.id}\`** (${f.failureLevel ?? f.level}): ${cell(f.title)}, ${cell(explanation(f))}`,
    `  - does: ${cell(f.does)}`,
    ...paths.map((p) => `  - [${cell(p.label)}] ${cell(p.message ?? 'failed')}`),
  ];
}

export function clientSection(clients: ClientsReport): string[] {
  const rows = matrix(clients);
  const notes: string[] = [];
  const mark = (c: (typeof rows)[number]['cells'][number]) => {
    if (c.mark === '✓') return '✓';
    // One footnote per reason: a client that does not offer seven flows says why once.
    if (!notes.includes(c.why ?? '')) notes.push(c.why ?? '');
    return `${c.mark === '✗' ? '❌' : 'not run'} [${notes.indexOf(c.why ?? '') + 1}]`;
  };
  const out = [
    '### Client flows',
    '',
    ...clients.clients.map((c) => `- ${cell(clientLine(c))}`),
    ...(clients.install ? [`- To add the missing clients: \`${clients.install}\``] : []),
    '',
    `| flow | ${clients.clients.map((c) => cell(c.name)).join(' | ')} |`,
    `|---|${clients.clients.map(() => '---|').join('')}`,
    ...rows.map((r) => `| ${cell(r.flow.name)} | ${r.cells.map(mark).join(' | ')} |`),
    '',
    ...notes.map((n, i) => `${i + 1}. ${cell(n)}`),
    '',
  ];
  const failed = clients.results.filter((f) => f.outcome === 'fail' || f.outcome === 'flaky');
  const unexplained = failed.filter((f) => f.unexplained);
  if (unexplained.length) out.push('#### ❗ No failed rule explains these client failures: the kit lacks a rule', '', ...unexplained.flatMap(flowItem), '');
  const explained = failed.filter((f) => !f.unexplained);
  if (explained.length) out.push('#### Client flows that failed', '', ...explained.flatMap(flowItem), '');
  if (clients.impact.length) out.push('#### Failed checks and the client flows they broke', '', ...clients.impact.map((i) => `- \`${i.check}\` → ${i.flows.map((f) => `\`${f}\``).join(', ')}`), '');
  return out;
}
