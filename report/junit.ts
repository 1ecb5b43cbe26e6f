// JUnit XML reporter, valid against the Jenkins xunit / Maven Surefire schema (junit-10.xsd):
// one <testsuite> per suite, one <testcase> per check, and one <testsuite> per client whose flows ran
// (`clients.openai`), one <testcase> per flow. A <failure> is exactly a result that fails the
// run (the exit code's rule: report.ts failsRun); a failure that does not (a should without --strict,
// an expected failure, an info note) is a finding in <system-out>; a flaky check that does not fail
// the run is Surefire's <flakyFailure> (it failed, then passed when run again); skip, not-tested and
// not-served are <skipped>.
import type { CheckResult, Evidence } from '../engine/check.js';
import { explanation } from './client-matrix.js';
import type { FlowResult } from './clients.js';
import { failsRun, flowFailsRun, gateOf, OUTCOME_WORDS, type RunReport } from './report.js';
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

/** A <testcase>: a check, or a client flow, with what the gate said of it. */
interface Case {
  name: string;
  classname: string;
  durationMs: number;
  level: string;
  outcome: CheckResult['outcome'];
  message?: string;
  evidence: Evidence[];
  /** Whether it fails the run: report.ts's gate, the same as the exit code's. */
  fails: boolean;
  expected?: { reason: string };
  /** The lines of <system-out> before the finding: section, level, outcome, and the like. */
  about: string[];
  notes: string[];
}

function systemOut(c: Case): string {
  const lines = [...c.about];
  // A failure that does not fail the run is a finding: shown in full, with its evidence.
  const finding = c.outcome === 'fail' && !c.fails;
  if (finding) {
    const why = c.expected ? `expected failure (baseline: ${c.expected.reason})` : c.level === 'should' ? 'a failed should, which fails the run only with --strict' : 'a note';
    lines.push(`finding, ${why}: ${c.message ?? 'failed'}`);
  }
  for (const n of c.notes) lines.push(`note: ${n}`);
  if (finding) for (const [i, e] of c.evidence.entries()) lines.push(evidenceText(e, i));
  return lines.join('\n');
}

function testcase(c: Case, report: RunReport): string {
  const open = `    <testcase name="${xmlAttr(c.name)}" classname="${xmlAttr(c.classname)}" time="${seconds(c.durationMs)}">`;
  const body: string[] = [];
  // A <failure> exactly where the run fails: the same rule as the exit code.
  if (c.fails) {
    const incomplete = c.outcome === 'not-tested' || c.outcome === 'not-served' || (c.outcome === 'flaky' && !report.options.strict);
    const asked = report.options.requireComplete ? '--require-complete asks every must to be' : 'the server left as many must paths unjudged as the run judged, or more';
    const message = incomplete ? `${OUTCOME_WORDS[c.outcome]}, and ${asked}: ${c.message ?? 'no reason given'}` : (c.message ?? 'failed');
    const text = [message, ...c.evidence.map(evidenceText)].join('\n\n');
    body.push(`      <failure message="${xmlAttr(message)}" type="${c.outcome === 'fail' ? c.level : c.outcome}">${xmlText(text)}</failure>`);
  } else if (c.outcome === 'flaky') {
    const message = c.message ?? 'failed, then held when sent again';
    body.push(`      <flakyFailure message="${xmlAttr(message)}" type="${c.level}">${xmlText([message, ...c.evidence.map(evidenceText)].join('\n\n'))}</flakyFailure>`);
  } else if (c.outcome === 'skip' || c.outcome === 'not-tested' || c.outcome === 'not-served') {
    body.push(`      <skipped message="${xmlAttr(`${c.outcome}: ${c.message ?? 'no reason given'}`)}"/>`);
  }
  body.push(`      <system-out>${xmlText(systemOut(c))}</system-out>`);
  return [open, ...body, '    </testcase>'].join('\n');
}

const checkCase = (r: CheckResult, report: RunReport): Case => ({
  name: `${r.id}: ${r.title}`,
  classname: `conformance.${r.suite}`,
  durationMs: r.durationMs,
  level: r.level,
  outcome: r.outcome,
  message: r.message,
  evidence: r.evidence,
  fails: failsRun(r, gateOf(report)),
  expected: r.expected,
  about: [`section: ${r.section}`, `level: ${r.level}`, `outcome: ${r.outcome}`, ...(r.convention ? [`convention: ${r.convention}`] : [])],
  notes: r.notes ?? [],
});

/** A flow as a test case: its failure weighed at the level the gate reads (failureLevel), its message
 * with the checks that explain it, and the evidence of the paths that failed. */
const flowCase = (f: FlowResult, report: RunReport): Case => {
  const level = f.failureLevel ?? f.level;
  const failed = f.outcome === 'pass' ? [] : f.paths.filter((p) => p.outcome === f.outcome);
  const said = f.outcome === 'fail' || f.outcome === 'flaky' ? `${f.message ?? 'failed'} ${explanation(f)}` : f.message;
  return {
    name: `${f.id}: ${f.title}`,
    classname: `conformance.clients.${f.client}`,
    durationMs: f.durationMs,
    level,
    outcome: f.outcome,
    message: said,
    evidence: failed.flatMap((p) => p.evidence),
    fails: flowFailsRun(f, gateOf(report)),
    expected: f.expected,
    about: [`client flow: ${f.does}`, `rests on: ${f.restsOn.join(', ') || 'no check'}`, `level: ${level}`, `outcome: ${f.outcome}`, ...failed.map((p) => `[${p.label}] ${p.message ?? p.outcome}`)],
    notes: f.notes ?? [],
  };
};

function tlsProperties(tls: NonNullable<RunReport['target']['tls']>): Array<[string, string]> {
  return [
    ['target.tls.insecure', String(tls.insecure)],
    ...(tls.caCert ? [['target.tls.caCert', tls.caCert] as [string, string]] : []),
    ...(tls.clientCert ? [['target.tls.clientCert', tls.clientCert] as [string, string]] : []),
  ];
}

function testsuite(name: string, cases: readonly Case[], properties: readonly [string, string][], report: RunReport): string {
  const failures = cases.filter((c) => c.fails).length;
  const skipped = cases.filter((c) => (c.outcome === 'skip' || c.outcome === 'not-tested' || c.outcome === 'not-served') && !c.fails).length;
  const time = cases.reduce((t, c) => t + (Number.isFinite(c.durationMs) && c.durationMs > 0 ? c.durationMs : 0), 0);
  const props: Array<[string, string]> = [
    ['tool', `${report.tool.name} ${report.tool.version}`],
    ['target.baseUrl', report.target.baseUrl],
    ['target.siteUrl', report.target.siteUrl],
    ['target.embeddedMock', String(report.target.embeddedMock)],
    ...(report.target.tls ? tlsProperties(report.target.tls) : []),
    ['options.strict', String(report.options.strict)],
    ['options.requireComplete', String(report.options.requireComplete)],
    ...properties,
  ];
  const lines = [
    `  <testsuite name="${xmlAttr(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}" timestamp="${xmlAttr(report.startedAt)}">`,
    '    <properties>',
    ...props.map(([k, v]) => `      <property name="${xmlAttr(k)}" value="${xmlAttr(v)}"/>`),
    '    </properties>',
    ...cases.map((c) => testcase(c, report)),
    '  </testsuite>',
  ];
  return lines.join('\n');
}

/** One <testsuite> per suite of checks, then one per client whose flows ran (`clients.openai`). */
export function renderJunit(report: RunReport): string {
  const suites = new Map<string, { cases: Case[]; props: [string, string][] }>();
  const add = (name: string, c: Case, props: [string, string][]) => {
    const suite = suites.get(name) ?? suites.set(name, { cases: [], props: [] }).get(name)!;
    suite.cases.push(c);
    suite.props.push(...props);
  };
  for (const r of report.results)
    add(r.suite, checkCase(r, report), [
      [`${r.id}.section`, r.section],
      [`${r.id}.level`, r.level],
    ]);
  for (const f of report.clients?.results ?? []) {
    const client = report.clients!.clients.find((c) => c.name === f.client);
    const versions: [string, string][] = suites.has(`clients.${f.client}`) ? [] : (client?.packages ?? []).map((p) => [`client.${p.name}`, p.version ?? 'unknown']);
    add(`clients.${f.client}`, flowCase(f, report), [...versions, [`${f.id}.restsOn`, f.restsOn.join(', ')], [`${f.id}.level`, f.failureLevel ?? f.level]]);
  }
  const all = [...suites.values()].flatMap((s) => s.cases);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(report.tool.name)}" tests="${all.length}" failures="${all.filter((c) => c.fails).length}" errors="0" time="${seconds(report.durationMs)}">`,
    ...[...suites].map(([name, s]) => testsuite(name, s.cases, s.props, report)),
    '</testsuites>',
    '',
  ].join('\n');
}
