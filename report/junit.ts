// JUnit XML reporter, valid against the Jenkins xunit / Maven Surefire schema (junit-10.xsd):
// one <testsuite> per suite, one <testcase> per check. A <failure> is exactly a result that fails the
// run (the exit code's rule: report.ts failsRun); a failure that does not (a should without --strict,
// an expected failure, an info note) is a finding in <system-out>; a flaky check that does not fail
// the run is Surefire's <flakyFailure> (it failed, then passed when run again); skip, not-tested and
// not-served are <skipped>.
import type { CheckResult, Evidence } from '../engine/check.js';
import { failsRun, OUTCOME_WORDS, type RunReport } from './report.js';
import { header } from './text.js';

/** Everything outside XML 1.0's Char production (controls but tab/LF/CR, lone surrogates,
 * U+FFFE/U+FFFF). With the `u` flag a lone surrogate is one code point, so it matches too. */
const ILLEGAL_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Escapes text content; drops characters XML 1.0 cannot carry at all. */
function xmlText(s: string): string {
  return s.replace(ILLEGAL_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Escapes an attribute value (double-quoted); keeps line breaks and tabs as references so
 * attribute-value normalization does not turn them into spaces. */
function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/** Seconds with millisecond precision, in the SUREFIRE_TIME pattern (no sign, no exponent). */
function seconds(ms: number): string {
  return (Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0).toFixed(3);
}

function evidenceText(e: Evidence, i: number): string {
  const lines = [`--- evidence ${i + 1}${e.label ? `: ${e.label}` : ''}`];
  lines.push(`> ${e.request.method} ${e.request.url}`);
  if (e.request.body !== undefined && e.request.body !== '') lines.push(`> body: ${e.request.body}`);
  if (e.status !== undefined) lines.push(`< status ${e.status}${e.durationMs !== undefined ? ` (${Math.round(e.durationMs)} ms)` : ''}`);
  for (const name of ['content-type', 'retry-after']) {
    const v = header(e.headers, name);
    if (v !== undefined) lines.push(`< ${name}: ${v}`);
  }
  if (e.excerpt !== undefined && e.excerpt !== '') {
    lines.push('< body:');
    for (const l of e.excerpt.split('\n')) lines.push(`    ${l}`);
  }
  if (e.error) lines.push(`! error: ${e.error}`);
  if (e.reproduce) lines.push(`Reproduce with: ${e.reproduce}`);
  return lines.join('\n');
}

function systemOut(r: CheckResult, report: RunReport): string {
  const lines = [`section: ${r.section}`, `level: ${r.level}`, `outcome: ${r.outcome}`];
  if (r.convention) lines.push(`convention: ${r.convention}`);
  // A failure that does not fail the run is a finding: shown in full, with its evidence.
  const finding = r.outcome === 'fail' && !failsRun(r, report.options);
  if (finding) {
    const why = r.expected ? `expected failure (baseline: ${r.expected.reason})` : r.level === 'should' ? 'a failed should, which fails the run only with --strict' : 'a note';
    lines.push(`finding, ${why}: ${r.message ?? 'failed'}`);
  }
  for (const n of r.notes ?? []) lines.push(`note: ${n}`);
  if (finding) for (const [i, e] of r.evidence.entries()) lines.push(evidenceText(e, i));
  return lines.join('\n');
}

function testcase(r: CheckResult, report: RunReport): string {
  const open = `    <testcase name="${xmlAttr(`${r.id}: ${r.title}`)}" classname="${xmlAttr(`conformance.${r.suite}`)}" time="${seconds(r.durationMs)}">`;
  const body: string[] = [];
  // A <failure> exactly where the run fails: the same rule as the exit code.
  if (failsRun(r, report.options)) {
    const incomplete = r.outcome === 'not-tested' || r.outcome === 'not-served' || (r.outcome === 'flaky' && !report.options.strict);
    const message = incomplete ? `${OUTCOME_WORDS[r.outcome]}, and --require-complete asks every must to be: ${r.message ?? 'no reason given'}` : (r.message ?? 'failed');
    const text = [message, ...r.evidence.map(evidenceText)].join('\n\n');
    body.push(`      <failure message="${xmlAttr(message)}" type="${r.outcome === 'fail' ? r.level : r.outcome}">${xmlText(text)}</failure>`);
  } else if (r.outcome === 'flaky') {
    const message = r.message ?? 'failed, then held when sent again';
    body.push(`      <flakyFailure message="${xmlAttr(message)}" type="${r.level}">${xmlText([message, ...r.evidence.map(evidenceText)].join('\n\n'))}</flakyFailure>`);
  } else if (r.outcome === 'skip' || r.outcome === 'not-tested' || r.outcome === 'not-served') {
    body.push(`      <skipped message="${xmlAttr(`${r.outcome}: ${r.message ?? 'no reason given'}`)}"/>`);
  }
  body.push(`      <system-out>${xmlText(systemOut(r, report))}</system-out>`);
  return [open, ...body, '    </testcase>'].join('\n');
}

function tlsProperties(tls: NonNullable<RunReport['target']['tls']>): Array<[string, string]> {
  return [
    ['target.tls.insecure', String(tls.insecure)],
    ...(tls.caCert ? [['target.tls.caCert', tls.caCert] as [string, string]] : []),
    ...(tls.clientCert ? [['target.tls.clientCert', tls.clientCert] as [string, string]] : []),
  ];
}

function testsuite(name: string, results: CheckResult[], report: RunReport): string {
  const failures = results.filter((r) => failsRun(r, report.options)).length;
  const skipped = results.filter((r) => (r.outcome === 'skip' || r.outcome === 'not-tested' || r.outcome === 'not-served') && !failsRun(r, report.options)).length;
  const time = results.reduce((t, r) => t + (Number.isFinite(r.durationMs) && r.durationMs > 0 ? r.durationMs : 0), 0);
  const props: Array<[string, string]> = [
    ['tool', `${report.tool.name} ${report.tool.version}`],
    ['target.baseUrl', report.target.baseUrl],
    ['target.siteUrl', report.target.siteUrl],
    ['target.embeddedMock', String(report.target.embeddedMock)],
    ...(report.target.tls ? tlsProperties(report.target.tls) : []),
    ['options.strict', String(report.options.strict)],
    ['options.requireComplete', String(report.options.requireComplete)],
  ];
  for (const r of results) {
    props.push([`${r.id}.section`, r.section], [`${r.id}.level`, r.level]);
  }
  const lines = [
    `  <testsuite name="${xmlAttr(name)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}" timestamp="${xmlAttr(report.startedAt)}">`,
    '    <properties>',
    ...props.map(([k, v]) => `      <property name="${xmlAttr(k)}" value="${xmlAttr(v)}"/>`),
    '    </properties>',
    ...results.map((r) => testcase(r, report)),
    '  </testsuite>',
  ];
  return lines.join('\n');
}

export function renderJunit(report: RunReport): string {
  const suites = new Map<string, CheckResult[]>();
  for (const r of report.results) {
    const list = suites.get(r.suite);
    if (list) list.push(r);
    else suites.set(r.suite, [r]);
  }
  const failures = report.results.filter((r) => failsRun(r, report.options)).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(report.tool.name)}" tests="${report.results.length}" failures="${failures}" errors="0" time="${seconds(report.durationMs)}">`,
    ...[...suites].map(([name, results]) => testsuite(name, results, report)),
    '</testsuites>',
    '',
  ].join('\n');
}
