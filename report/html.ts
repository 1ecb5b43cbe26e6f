// HTML reporter: one self-contained page (no request leaves it: styles and script inline), failures
// first, filters by suite, level and verdict, and per check its paths, evidence and the command that
// replays each exchange. The page reads without its script too: the filters only hide.
import type { CheckResult, Evidence, Outcome } from '../engine/check.js';
import { blockedUnder, failsRun, flowCountLine, flowCounts, gateOf, onlyBlocked, OUTCOME_WORDS, tlsNote, whyFailing, whyPassing, type RunReport } from './report.js';
import { heldChart, latencyChart } from './charts.js';
import { METRIC_MEANINGS, METRICS, paceNote, profileRows, ruleRows, type LoadReport } from './load.js';
import { clientSection } from './html-clients.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Where a result stands in the page, worst first: what fails the run, findings, not tested, the rest. */
function verdictOf(r: CheckResult, report: RunReport): 'failing' | 'finding' | Outcome {
  if (failsRun(r, gateOf(report))) return 'failing';
  return r.outcome === 'fail' ? 'finding' : r.outcome;
}
const ORDER = ['failing', 'finding', 'flaky', 'not-tested', 'not-served', 'pass', 'skip'];
const LABEL: Record<string, string> = { failing: 'fails the run', finding: 'finding', ...OUTCOME_WORDS };

export function evidence(e: Evidence): string {
  const lines = [`→ ${e.request.method} ${e.request.url}`];
  if (e.request.body) lines.push(`  body: ${e.request.body}`);
  if (e.status !== undefined) lines.push(`← ${e.status}${e.durationMs !== undefined ? ` (${Math.round(e.durationMs)} ms)` : ''}`);
  for (const [k, v] of Object.entries(e.headers ?? {})) lines.push(`  ${k}: ${v}`);
  if (e.excerpt) lines.push(e.excerpt);
  if (e.error) lines.push(`error: ${e.error}`);
  return `<details class="evidence"><summary>${esc(e.label ?? 'exchange')}</summary><pre>${esc(lines.join('\n'))}</pre>${
    e.reproduce ? `<p class="repro">Reproduce with:</p><pre class="curl">${esc(e.reproduce)}</pre>` : ''
  }</details>`;
}

function check(r: CheckResult, report: RunReport, under: Map<string, CheckResult[]>): string {
  const v = verdictOf(r, report);
  const paths = (r.paths ?? []).filter((p) => p.outcome !== 'pass' && p.outcome !== 'skip' && (p.message || p.evidence.length));
  const blocked = under.get(r.id) ?? [];
  // A check blocked by a failure points there; the failure lists what it blocked.
  const body = onlyBlocked(r, under)
    ? `<p class="blocked">blocked by ${r.blockedBy!.map((id) => `<a href="#${esc(id)}"><code>${esc(id)}</code></a>`).join(', ')}</p>`
    : (blocked.length
        ? `<p class="blocked">${esc(r.id)} failed; ${blocked.length} check(s) could not judge their rule without it: ${blocked.map((b) => `<code>${esc(b.id)}</code>`).join(', ')}</p>`
        : '') +
      (paths.length
        ? paths.map((p) => `<div class="path"><p><span class="label">[${esc(p.label)}]</span> ${esc(p.message ?? p.outcome)}</p>${p.evidence.map(evidence).join('')}</div>`).join('')
        : `${r.message ? `<p>${r.outcome === 'skip' ? 'skipped: ' : ''}${esc(r.message)}</p>` : ''}${r.evidence.map(evidence).join('')}`);
  const count = r.paths && r.paths.length > 1 ? `<span class="paths">${r.paths.length} paths</span>` : '';
  return `<section class="check ${v}" id="${esc(r.id)}" data-suite="${esc(r.suite)}" data-level="${r.level}" data-verdict="${v}">
<h3><span class="badge ${v}">${LABEL[v]}</span> <code>${esc(r.id)}</code> <span class="level">${r.level}</span> <span class="section">§${esc(r.section)}</span> ${count}</h3>
<p class="title">${esc(r.title)}</p>${r.expected ? `<p class="expected">expected failure (baseline): ${esc(r.expected.reason)}</p>` : ''}${r.convention ? `<p class="convention">Convention: ${esc(r.convention)}</p>` : ''}${body}${
    r.notes?.length ? `<ul class="notes">${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''
  }
</section>`;
}

const table = (rows: string[][], attr: string) =>
  `<table ${attr}><thead><tr>${rows[0].map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .slice(1)
    .map((r) => `<tr>${r.map((c, i) => (i ? `<td>${esc(c)}</td>` : `<th scope="row">${esc(c)}</th>`)).join('')}</tr>`)
    .join('')}</tbody></table>`;

/** A sweep: what broke under load, the charts, the latency profile and the rules per step. */
function loadSection(load: LoadReport): string {
  const breaks = load.breaksUnderLoad
    .map((b) => `<li class="breaks" data-breaks="${esc(b.check)}"><code>${esc(b.check)}</code> held alone, broke at ${esc(b.brokeAt)} (${b.held} of ${b.of} held)</li>`)
    .join('');
  return `<section class="load" data-load><h2>Load: ${esc(load.model)}, ${load.workload.length} requests in the mix, ${load.mode === 'open' ? 'arrival rates' : 'requests in flight'}</h2>${breaks ? `<ul>${breaks}</ul>` : ''}${paceNote(load) ? `<p data-pace>${esc(paceNote(load)!)}</p>` : ''}
<div class="charts">${latencyChart(load)}${heldChart(load)}</div>
${table(profileRows(load), 'data-table="profile"')}
<dl class="legend" data-legend>${METRICS.map((m) => `<dt>${m}</dt><dd>${esc(METRIC_MEANINGS[m])}</dd>`).join('')}</dl>
<details><summary>Answers that held each rule, per step (held / judged)</summary>${table(ruleRows(load), 'data-table="rules"')}</details></section>`;
}

const select = (name: string, values: string[], label: (v: string) => string = (v) => v) =>
  `<label>${name} <select id="filter-${name}" data-filter="${name}"><option value="">all</option>${values.map((v) => `<option value="${esc(v)}">${esc(label(v))}</option>`).join('')}</select></label>`;

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem;color:#1b1b1b}
header h1{font-size:1.4rem;margin:.2rem 0}.verdict.passed{color:#17692f}.verdict.failed{color:#b3261e}
.filters{display:flex;gap:1rem;flex-wrap:wrap;background:#f4f4f4;padding:.6rem;border-radius:6px;position:sticky;top:0}
.check{border:1px solid #ddd;border-left:6px solid #ccc;border-radius:6px;margin:.6rem 0;padding:.4rem .8rem}
.check.failing{border-left-color:#b3261e}.check.finding,.check.flaky{border-left-color:#c77c02}.check.not-tested,.check.not-served{border-left-color:#8a8a8a}.check.pass{border-left-color:#17692f}
h3{font-size:1rem;margin:.3rem 0}.badge{font-size:.75rem;padding:.1rem .4rem;border-radius:4px;color:#fff;background:#8a8a8a}
.badge.failing{background:#b3261e}.badge.finding,.badge.flaky{background:#c77c02}.badge.pass{background:#17692f}
.level,.section,.paths{color:#555;font-weight:normal;font-size:.85rem}.title{margin:.2rem 0}.label{font-family:monospace;color:#444}
pre{white-space:pre-wrap;word-break:break-word;background:#fafafa;border:1px solid #eee;padding:.5rem;font-size:12px}
.expected{color:#c77c02}.convention{color:#555;font-style:italic}[hidden]{display:none!important}#shown{color:#555}
.load h2,.clients h2{font-size:1.1rem}td.pass{color:#17692f;text-align:center}td.fail{color:#b3261e;text-align:center}td.notrun{color:#555;text-align:center}.flow{border:1px solid #ddd;border-left:6px solid #b3261e;border-radius:6px;margin:.6rem 0;padding:.4rem .8rem}.charts{display:flex;flex-wrap:wrap;gap:1rem}.chart{margin:0}.chart figcaption{color:#555;font-size:.85rem}
table{border-collapse:collapse;font-size:12px;margin:.6rem 0}th,td{border:1px solid #ddd;padding:.2rem .45rem;text-align:right}th[scope=row],thead th:first-child{text-align:left}.breaks{color:#b3261e}
.legend{display:grid;grid-template-columns:auto 1fr;gap:.1rem .6rem;font-size:12px;color:#555;margin:0 0 .6rem}.legend dt{font-family:monospace}.legend dd{margin:0}`;

// Hides what the filters leave out and says how many remain.
const SCRIPT = `const selects=[...document.querySelectorAll('select[data-filter]')];const checks=[...document.querySelectorAll('section.check')];
function apply(){const want=Object.fromEntries(selects.map(s=>[s.dataset.filter,s.value]));let n=0;for(const c of checks){const ok=Object.entries(want).every(([k,v])=>!v||c.dataset[k]===v);c.hidden=!ok;if(ok)n++}document.getElementById('shown').textContent=n+' of '+checks.length+' checks shown'}
selects.forEach(s=>s.addEventListener('change',apply));apply();`;

export function renderHtml(report: RunReport): string {
  const results = [...report.results].sort((a, b) => ORDER.indexOf(verdictOf(a, report)) - ORDER.indexOf(verdictOf(b, report)));
  const suites = [...new Set(report.results.map((r) => r.suite))];
  const verdicts = ORDER.filter((v) => results.some((r) => verdictOf(r, report) === v));
  const passed = report.exitCode === 0;
  const under = blockedUnder(report.results);
  const s = report.summary;
  // As the pretty report counts them: the rarer outcomes, and skipped checks, only where there are some.
  const counts = (['must', 'should'] as const)
    .map(
      (l) =>
        `${l}: ${(['pass', 'fail', 'flaky', 'not-tested', 'not-served', 'skip'] as const)
          .filter((o) => o === 'pass' || o === 'fail' || o === 'not-tested' || s[l][o])
          .map((o) => `${s[l][o]} ${OUTCOME_WORDS[o]}`)
          .join(', ')}`,
    )
    .join(' · ');
  const flows = flowCounts(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>${esc(report.tool.name)}: ${passed ? 'passed' : 'failed'}</title><style>${STYLE}</style></head>
<body><header><h1 class="verdict ${passed ? 'passed' : 'failed'}">${passed ? 'PASSED' : 'FAILED'} (exit code ${report.exitCode})</h1>
${passed && whyPassing(report).length ? `<p class="expected" data-passing>Passed with ${esc(whyPassing(report).join('; '))}.</p>` : ''}${!passed && whyFailing(report).length ? `<p data-failing>Failed with ${esc(whyFailing(report).join(', '))}.</p>` : ''}
<p>${esc(report.tool.name)} ${esc(report.tool.version)} → <code>${esc(report.target.baseUrl)}</code>${report.target.embeddedMock ? ' (embedded mock)' : ''}, ${esc(report.startedAt)}, ${(report.durationMs / 1000).toFixed(1)} s${report.options.strict ? ', strict' : ''}${report.options.requireComplete ? ', require-complete' : ''}</p>
${tlsNote(report) ? `<p${report.target.tls?.insecure ? ' class="expected"' : ''}>${esc(tlsNote(report)!)}</p>` : ''}<p>${esc(counts)}</p>${flows ? `<p data-flows>client flows: ${esc(flowCountLine(flows))}</p>` : ''}${report.stopped ? `<p class="expected">Stopped before the end: ${esc(report.stopped)}</p>` : ''}${
    report.baseline?.stale.length ? `<ul>${report.baseline.stale.map((e) => `<li class="expected">stale baseline entry: ${esc(e.why)}</li>`).join('')}</ul>` : ''
  }</header>
<nav class="filters">${select('suite', suites)}${select('level', ['must', 'should', 'info'])}${select('verdict', verdicts, (v) => LABEL[v])}<span id="shown">${results.length} checks</span></nav>
${report.load ? loadSection(report.load) : ''}${report.clients ? clientSection(report.clients, evidence) : ''}<main>${results.map((r) => check(r, report, under)).join('\n')}</main>
<script>${SCRIPT}</script></body></html>
`;
}
