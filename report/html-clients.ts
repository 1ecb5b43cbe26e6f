// The client section of the HTML report: the matrix of flows against clients, each cell that did not
// pass saying why on hover (its title) and in a footnote, the flows no failed rule explains first,
// then the other failed flows with the checks that explain them and their evidence, and each failed
// check with the flows it broke (linked to the check's own section).
import type { Evidence } from '../engine/check.js';
import { clientLine, explanation, matrix } from './client-matrix.js';
import type { ClientsReport, FlowResult } from './clients.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function flowBlock(f: FlowResult, evidence: (e: Evidence) => string): string {
  const paths = f.paths.filter((p) => p.outcome === 'fail' || p.outcome === 'flaky');
  // The words around the ids are the kit's own: only the ids are the report's, escaped as links.
  const because = f.brokenBy?.length ? explanation(f, (id) => `<a href="#${esc(id)}"><code>${esc(id)}</code></a>`) : `<strong>${esc(explanation(f))}</strong>`;
  return `<section class="flow" id="flow-${esc(f.id)}" data-flow="${esc(f.id)}"><h3><span class="badge ${f.unexplained ? 'failing' : 'finding'}">${f.unexplained ? 'no rule' : 'failed'}</span> <code>${esc(f.id)}</code> <span class="level">${f.failureLevel ?? f.level}</span></h3>
<p class="title">${esc(f.title)}</p><p class="convention">does: ${esc(f.does)}</p><p class="blocked">${because}</p>${paths
    .map((p) => `<div class="path"><p><span class="label">[${esc(p.label)}]</span> ${esc(p.message ?? 'failed')}</p>${p.evidence.map(evidence).join('')}</div>`)
    .join('')}</section>`;
}

export function clientSection(clients: ClientsReport, evidence: (e: Evidence) => string): string {
  const rows = matrix(clients);
  const notes: string[] = [];
  const td = (c: (typeof rows)[number]['cells'][number]) => {
    if (c.mark === '✓') return '<td class="pass">✓</td>';
    // One footnote per reason: a client that does not offer seven flows says why once.
    if (!notes.includes(c.why ?? '')) notes.push(c.why ?? '');
    const link = c.result && c.mark === '✗' ? `<a href="#flow-${esc(c.result.id)}">✗</a>` : esc(c.mark);
    return `<td class="${c.mark === '✗' ? 'fail' : 'notrun'}" title="${esc(c.why ?? '')}">${link}<sup>${notes.indexOf(c.why ?? '') + 1}</sup></td>`;
  };
  const body = rows.map((r) => `<tr><th scope="row" title="${esc(r.flow.title)}">${esc(r.flow.name)}</th>${r.cells.map(td).join('')}</tr>`).join('');
  const failed = clients.results.filter((f) => f.outcome === 'fail' || f.outcome === 'flaky');
  const unexplained = failed.filter((f) => f.unexplained);
  const explained = failed.filter((f) => !f.unexplained);
  return `<section class="clients" data-clients><h2>Client flows</h2><ul>${clients.clients.map((c) => `<li>${esc(clientLine(c))}</li>`).join('')}${
    clients.install ? `<li class="expected">to add the missing clients: <code>${esc(clients.install)}</code></li>` : ''
  }</ul>
<table data-table="clients"><thead><tr><th>flow</th>${clients.clients.map((c) => `<th>${esc(c.name)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>
${notes.length ? `<ol class="footnotes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ol>` : ''}${
  unexplained.length
    ? `<h3 class="breaks">No failed rule explains ${unexplained.length === 1 ? 'this client failure' : 'these client failures'}: the kit lacks a rule</h3>${unexplained.map((f) => flowBlock(f, evidence)).join('')}`
    : ''
}${explained.length ? `<h3>Client flows that failed</h3>${explained.map((f) => flowBlock(f, evidence)).join('')}` : ''}${
  clients.impact.length
    ? `<h3>Failed checks and the client flows they broke</h3><ul>${clients.impact.map((i) => `<li><a href="#${esc(i.check)}"><code>${esc(i.check)}</code></a> → ${i.flows.map((f) => `<a href="#flow-${esc(f)}"><code>${esc(f)}</code></a>`).join(', ')}</li>`).join('')}</ul>`
    : ''
}</section>`;
}
