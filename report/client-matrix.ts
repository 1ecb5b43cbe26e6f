// What the reporters draw from a report's client section (report/clients.ts): the matrix of flows
// against clients, and why a flow failed (the failed checks that explain it, or that none does). The
// gate that weighs a flow is the checks' (report.ts, flowFailsRun).
import type { ClientInfo, ClientsReport, FlowResult } from './clients.js';
import { summary } from './text.js';

/** A cell of the matrix: a flow in a client. */
export interface MatrixCell {
  mark: '✓' | '✗' | 'not run';
  /** Why it failed or did not run, one line. */
  why?: string;
  result?: FlowResult;
}

/** The matrix, flows against clients: a pass, a failure (and why), or not run (and why). */
export function matrix(clients: ClientsReport): { flow: { name: string; title: string }; cells: MatrixCell[] }[] {
  return clients.flows.map((flow) => ({
    flow,
    cells: clients.clients.map((client): MatrixCell => {
      const absent = clients.absent.find((a) => a.client === client.name && a.flow === flow.name);
      if (absent) return { mark: 'not run', why: absent.why };
      if (!client.installed) return { mark: 'not run', why: `${client.title} is not installed${client.missing ? `: ${client.missing}` : ''}` };
      const result = clients.results.find((r) => r.client === client.name && r.flow === flow.name);
      if (!result) return { mark: 'not run', why: 'not selected' };
      if (result.outcome === 'pass') return { mark: '✓', result };
      if (result.outcome === 'fail' || result.outcome === 'flaky') return { mark: '✗', why: failureWhy(result), result };
      return { mark: 'not run', why: `${result.outcome}: ${result.message ?? ''}`, result };
    }),
  }));
}

/** Why a flow failed, in a phrase: its message, then the failed checks that explain it, or that
 * none does. A long message is cut after a word, and says where it is whole: the flow's own entry,
 * which every reporter draws under the matrix. */
export function failureWhy(f: FlowResult, max = 160): string {
  const first = (f.message ?? 'failed').replace(/\s+/g, ' ');
  return `${summary(first, max, `the whole under ${f.id} below`)} ${explanation(f)}`;
}

/** `← tools.stream failed`, a requirement outside the document, a precondition never reached, or the
 * plain word that no failed rule explains it; `named` writes a check's
 * id that broke it (the HTML report links it to the check's section). */
export function explanation(f: FlowResult, named: (id: string) => string = (id) => id): string {
  if (f.brokenBy?.length) return `← ${f.brokenBy.map(named).join(', ')} failed${f.expected ? ', expected by the baseline' : ''}`;
  if (f.cause?.kind === 'outside') return `← a requirement outside the document: ${f.cause.why}`;
  if (f.cause?.kind === 'precondition') return `← it never reached what it is about: ${f.cause.why}`;
  if (f.unjudged?.length) return `← none of its checks failed, but ${f.unjudged.join(', ')} did not run`;
  return '← no failed rule explains it: the kit lacks a rule here';
}

/** A client's heading: `openai (Node SDK) 6.49.0`, or why it did not run. */
export function clientLine(c: ClientInfo): string {
  const versions = c.packages.map((p) => `${p.name}${p.version ? ` ${p.version}` : ''}`).join(', ');
  return c.installed ? `${c.title}: ${versions}` : `${c.title}: not installed (${c.missing ?? c.packages.map((p) => p.name).join(', ')})`;
}
