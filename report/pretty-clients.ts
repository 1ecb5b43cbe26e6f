// The client section of the pretty report: the clients and their versions (or how to add the missing
// ones), the matrix of flows against clients with a footnote per cell that did not pass, the flows no
// failed rule explains (first: the kit lacks a rule), the other failed flows with the checks that
// explain them and their evidence, and each failed check with the flows it broke.
import type { ChalkInstance } from 'chalk';
import type { Evidence } from '../engine/check.js';
import { clientLine, explanation, matrix } from './client-matrix.js';
import type { ClientsReport, FlowResult } from './clients.js';
import { safe } from './text.js';

type EvidenceLines = (e: Evidence, i: number, c: ChalkInstance, indent: string) => string[];

const TAG = { must: '[MUST]', should: '[SHOULD]', info: '[INFO]' } as const;

function flowLines(f: FlowResult, c: ChalkInstance, evidence: EvidenceLines): string[] {
  const out = [`  ${c.red('✗')} ${TAG[f.failureLevel ?? f.level]} ${c.bold(safe(f.id))}: ${safe(f.title)}`, `      ${c.gray(`does: ${safe(f.does)}`)}`];
  out.push(`      ${f.brokenBy?.length ? c.yellow(safe(explanation(f))) : c.red.bold(safe(explanation(f)))}`);
  for (const p of f.paths.filter((p) => p.outcome === 'fail' || p.outcome === 'flaky')) {
    out.push(`      ${c.red(`[${safe(p.label)}]`)} ${c.red(safe(p.message ?? 'failed'))}`);
    p.evidence.forEach((e, i) => out.push(...evidence(e, i, c, '        ')));
  }
  return out;
}

export function clientLines(clients: ClientsReport, c: ChalkInstance, evidence: EvidenceLines): string[] {
  const out = ['', c.bold('Client flows')];
  for (const client of clients.clients) out.push(`  ${client.installed ? '' : c.yellow('not installed: ')}${safe(clientLine(client))}`);
  if (clients.install) out.push(`  ${c.yellow('to add the missing clients:')} ${safe(clients.install)}`);
  // The matrix: a column per client, a footnote per cell that did not pass.
  const rows = matrix(clients);
  const notes: string[] = [];
  const cellText = (cell: (typeof rows)[number]['cells'][number]) => {
    if (cell.mark === '✓') return '✓';
    // One footnote per reason: a client that does not offer seven flows says why once.
    if (!notes.includes(cell.why ?? '')) notes.push(cell.why ?? '');
    return `${cell.mark} [${notes.indexOf(cell.why ?? '') + 1}]`;
  };
  const names = clients.clients.map((x) => x.name);
  const table = [['flow', ...names], ...rows.map((r) => [r.flow.name, ...r.cells.map(cellText)])];
  const widths = names.map((_, i) => Math.max(...table.map((row) => row[i + 1].length)));
  const first = Math.max(...table.map((row) => row[0].length));
  for (const [i, row] of table.entries()) {
    const line = `  ${row[0].padEnd(first)}  ${row
      .slice(1)
      .map((cell, j) => cell.padEnd(widths[j]))
      .join('  ')}`;
    out.push(i === 0 ? c.gray(safe(line)) : safe(line).replace(/✓/g, c.green('✓')).replace(/✗/g, c.red('✗')));
  }
  for (const [i, n] of notes.entries()) out.push(c.gray(`  [${i + 1}] ${safe(n)}`));
  const failed = clients.results.filter((f) => f.outcome === 'fail' || f.outcome === 'flaky');
  const unexplained = failed.filter((f) => f.unexplained);
  if (unexplained.length) {
    out.push('', c.red.bold(`No failed rule explains ${unexplained.length === 1 ? 'this client failure' : `these ${unexplained.length} client failures`}: the kit lacks a rule`));
    for (const f of unexplained) out.push(...flowLines(f, c, evidence));
  }
  const explained = failed.filter((f) => !f.unexplained);
  if (explained.length) {
    out.push('', c.bold('Client flows that failed'));
    for (const f of explained) out.push(...flowLines(f, c, evidence));
  }
  if (clients.impact.length) {
    out.push('', c.bold('Failed checks and the client flows they broke'));
    for (const i of clients.impact) out.push(`  ${c.red(safe(i.check))} → ${safe(i.flows.join(', '))}`);
  }
  return out;
}
