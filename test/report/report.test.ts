import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { CheckResult } from '../../engine/check.js';
import { sectionsOf } from '../../engine/runner.js';
import { validator } from '../../schemas/index.js';
import { render, REPORTER_NAMES } from '../../report/index.js';
import type { ClientsReport, FlowResult } from '../../report/clients.js';
import { applyFlowBaseline, baselineOf } from '../../report/baseline.js';
import { renderGithub } from '../../report/github.js';
import { renderJson } from '../../report/json.js';
import { renderMarkdown } from '../../report/markdown.js';
import { renderJunit } from '../../report/junit.js';
import { renderHtml } from '../../report/html.js';
import { compareSections, renderPretty } from '../../report/pretty.js';
import { exitCodeFor, failsRun, gateOf, REPORT_FORMAT_VERSION, summarize, type GateOptions, type RawReport, type RunReport } from '../../report/report.js';
import { seal } from '../../report/boundary.js';
import { matrix } from '../../report/client-matrix.js';
import { closingLines } from '../../bin/closing.js';
import { Redactor } from '../../engine/redact.js';
import { within } from '../support/machine.js';

/** A report as a command's boundary makes it, from results written here. */
const sealed = (raw: RawReport): RunReport => seal(raw, new Redactor());

const XSD = readFileSync(fileURLToPath(new URL('../fixtures/junit-10.xsd', import.meta.url)), 'utf8');

/** An excerpt as long as the report boundary lets one be (BOUNDS.excerpt). */
const bigBody = JSON.stringify({ error: { message: 'x'.repeat(1000), type: 'invalid_request_error' } });
const hostile = 'bad <tag> & "quote" \'apos\' nul:\u0000 bell:\u0007 esc:\u001b[31m lone:\uD800 tail:\uDFFF ffff:\uFFFF ok:😀';

function result(p: Partial<CheckResult> & Pick<CheckResult, 'id' | 'suite' | 'section' | 'level' | 'outcome'>): CheckResult {
  return { title: `title of ${p.id}`, sections: sectionsOf(p.section), evidence: [], durationMs: 12, ...p };
}

const results: CheckResult[] = [
  result({ id: 'models.list-shape', suite: 'models', section: '4.1', level: 'must', outcome: 'pass' }),
  result({
    id: 'chat.error-envelope',
    suite: 'chat',
    section: '2.3',
    level: 'must',
    outcome: 'fail',
    title: 'Errors use the <error> envelope & status',
    message: `expected {"error":{...}} but got ${hostile}`,
    evidence: [
      {
        label: 'bad request',
        request: { method: 'POST', url: 'https://api.example.test/v1/chat/completions', headers: { authorization: 'Bearer [REDACTED]' }, body: '{"model":"m","messages":[]}' },
        status: 400,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Retry-After': '7', 'x-other': 'hidden' },
        excerpt: `<html>${hostile}</html>\n${bigBody}`,
        durationMs: 35,
      },
      {
        request: { method: 'GET', url: 'https://api.example.test/v1/models', headers: {} },
        error: 'timeout after 30000 ms',
      },
    ],
  }),
  result({
    id: 'chat.retry-after',
    suite: 'chat',
    section: '6',
    level: 'should',
    outcome: 'fail',
    message: 'no Retry-After on 429',
    convention: 'OpenAI sends Retry-After',
    evidence: [{ request: { method: 'POST', url: 'https://api.example.test/v1/chat/completions', headers: {} }, status: 429, headers: {} }],
  }),
  result({ id: 'chat.extra-fields', suite: 'chat', section: '2.3', level: 'info', outcome: 'fail', message: 'extra field "x_meta"', notes: ['SSE comment lines seen'] }),
  result({ id: 'chat.stream-usage', suite: 'chat', section: '2.10', level: 'should', outcome: 'pass', notes: ['usage chunk sent last'] }),
  result({ id: 'chat.second-key', suite: 'chat', section: '2.3', level: 'must', outcome: 'not-tested', message: 'only one API key given' }),
  result({ id: 'catalog.pricing', suite: 'catalog', section: 'catalog 2.4', level: 'must', outcome: 'skip', message: 'no catalog on this target' }),
  result({ id: 'catalog.index', suite: 'catalog', section: 'catalog 1', level: 'info', outcome: 'pass' }),
  result({ id: 'models.order', suite: 'models', section: '4', level: 'should', outcome: 'not-tested', message: 'rate limited' }),
];

const options = { strict: false, requireComplete: false };
const report: RunReport = sealed({
  formatVersion: REPORT_FORMAT_VERSION,
  tool: { name: 'chat-api-conformance', version: '0.1.0' },
  target: { baseUrl: 'https://api.example.test/v1', siteUrl: 'https://example.test', embeddedMock: false },
  options,
  startedAt: '2025-01-02T03:04:05.678Z',
  durationMs: 12345,
  results,
  summary: summarize(results),
  exitCode: exitCodeFor(results, options),
  warnings: ['the target answered 429 three times; some checks are not tested'],
});

const ESC = '\x1b[';

describe('json reporter', () => {
  it('round-trips and carries formatVersion', () => {
    const text = renderJson(report);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain(`\n  "formatVersion": ${REPORT_FORMAT_VERSION},`);
    expect(validator('report')(JSON.parse(text)).errors).toEqual([]);
    const back = JSON.parse(text);
    expect(back.formatVersion).toBe(REPORT_FORMAT_VERSION);
    // Lone surrogates survive as escapes, so compare via the same serialization.
    expect(JSON.stringify(back)).toBe(JSON.stringify(report));
    expect(back.results).toHaveLength(results.length);
    expect(render('json', report)).toBe(text);
  });
});

describe('junit reporter', () => {
  const xml = renderJunit(report);

  it(
    'validates against the Jenkins/Surefire junit-10.xsd',
    async () => {
      const out = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: XSD }] });
      expect(out.errors).toEqual([]);
      expect(out.valid).toBe(true);
    },
    within(30_000),
  );

  it(
    'rejects a broken document (the validator really validates)',
    async () => {
      const broken = xml.replace('<testsuite name="chat"', '<testsuite nom="chat"');
      const out = await validateXML({ xml: [{ fileName: 'broken.xml', contents: broken }], schema: [{ fileName: 'junit-10.xsd', contents: XSD }] });
      expect(out.valid).toBe(false);
    },
    within(30_000),
  );

  it('contains no characters illegal in XML 1.0 and escapes markup', () => {
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/);
    expect(xml).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(xml).toContain('😀');
    expect(xml).toContain('bad &lt;tag&gt; &amp; ');
    expect(xml).toContain('name="chat.error-envelope: Errors use the &lt;error&gt; envelope &amp; status"');
    expect(xml).not.toContain('<html>');
    expect(xml).toContain('x'.repeat(1000)); // an excerpt at its bound is carried whole
  });

  it('has one testsuite per suite and one testcase per check, each with name and classname', () => {
    const suites = [...xml.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1]);
    expect(suites).toEqual(['models', 'chat', 'catalog']);
    const cases = [...xml.matchAll(/<testcase\b([^>]*)>/g)].map((m) => m[1]);
    expect(cases).toHaveLength(results.length);
    for (const attrs of cases) {
      expect(attrs).toMatch(/\bname="[^"]+: [^"]+"/);
      expect(attrs).toMatch(/\bclassname="conformance\.[a-z]+"/);
      expect(attrs).toMatch(/\btime="\d+\.\d{3}"/);
    }
    expect(xml).toContain('classname="conformance.catalog"');
  });

  it('counts as failures exactly what fails the run: here the failed must; the failed should is a finding', () => {
    const failures = (xml.match(/<failure /g) ?? []).length;
    expect(failures).toBe(results.filter((r) => failsRun(r, gateOf(report))).length);
    expect(failures).toBe(1);
    expect(report.exitCode).toBe(1);
    expect(xml).toMatch(/<testsuites name="chat-api-conformance" tests="9" failures="1" errors="0" time="12\.345">/);
    expect(xml).toMatch(/<testsuite name="chat" tests="5" failures="1" errors="0" skipped="1" /);
    expect(xml).toMatch(/<testsuite name="models" tests="2" failures="0" errors="0" skipped="1" /);
    expect(xml).toMatch(/<testsuite name="catalog" tests="2" failures="0" errors="0" skipped="1" /);
    expect(xml).toContain('type="must"');
    const should = /<testcase name="chat\.retry-after[^>]*>([\s\S]*?)<\/testcase>/.exec(xml)![1];
    expect(should).not.toContain('<failure');
    expect(should).toContain('finding, a failed should, which fails the run only with --strict: no Retry-After on 429');
    expect((xml.match(/<skipped /g) ?? []).length).toBe(3);
    expect(xml).toContain('<skipped message="not-tested: only one API key given"/>');
    expect(xml).toContain('<skipped message="skip: no catalog on this target"/>');
  });

  it('agrees with the exit code in every mode: strict, require-complete, an expected failure', () => {
    const failuresIn = (r: RunReport) => (renderJunit(r).match(/<failure /g) ?? []).length;
    const modes: [GateOptions, number][] = [
      [{ strict: false, requireComplete: false }, 1],
      [{ strict: true, requireComplete: false }, 2],
      [{ strict: false, requireComplete: true }, 2],
      [{ strict: true, requireComplete: true }, 3],
    ];
    for (const [opts, n] of modes) {
      const r = { ...report, options: opts, exitCode: exitCodeFor(results, opts) };
      expect(failuresIn(r), JSON.stringify(opts)).toBe(n);
      expect(r.exitCode).toBe(n ? 1 : 0);
    }
    // The failed must, expected by the baseline, fails nothing: no <failure>, exit 0.
    const expected = results.map((r) => (r.id === 'chat.error-envelope' ? { ...r, expected: { reason: 'fixing in #12' } } : r));
    const r = sealed({ ...report, results: expected, exitCode: exitCodeFor(expected, options) });
    expect(failuresIn(r)).toBe(0);
    expect(r.exitCode).toBe(0);
    expect(renderJunit(r)).toContain('finding, expected failure (baseline: fixing in #12)');
    const notTested = /<testcase name="chat\.second-key[^>]*>([\s\S]*?)<\/testcase>/.exec(renderJunit({ ...report, options: { strict: false, requireComplete: true } }))![1];
    expect(notTested).toContain('<failure message="not tested, and --require-complete asks every must to be: only one API key given" type="not-tested">');
  });

  it('reports info-level fails as notes, and section/level as properties and system-out', () => {
    const info = /<testcase name="chat\.extra-fields[^>]*>([\s\S]*?)<\/testcase>/.exec(xml)![1];
    expect(info).not.toContain('<failure');
    expect(info).toContain('<system-out>');
    expect(info).toContain('note: extra field "x_meta"');
    expect(info).toContain('note: SSE comment lines seen');
    expect(xml).toContain('<property name="chat.retry-after.section" value="6"/>');
    expect(xml).toContain('<property name="chat.retry-after.level" value="should"/>');
    expect(xml).toMatch(/section: catalog 2\.4\nlevel: must/);
  });

  it('puts evidence in the failure body', () => {
    const fail = /<failure message="[^"]*" type="must">([\s\S]*?)<\/failure>/.exec(xml)![1];
    expect(fail).toContain('&gt; POST https://api.example.test/v1/chat/completions');
    expect(fail).toContain('&lt; status 400');
    expect(fail).toContain('&lt; content-type: text/html; charset=utf-8');
    expect(fail).toContain('&lt; retry-after: 7');
    expect(fail).not.toContain('x-other');
    expect(fail).toContain('! error: timeout after 30000 ms');
  });
});

describe('pretty reporter', () => {
  const plain = renderPretty(report, { color: false });

  it('has no ANSI escapes without color, even from hostile evidence', () => {
    expect(plain).not.toContain(ESC);
    expect(plain).not.toContain('\x1b');
    expect(plain).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F]/);
    expect(plain).toContain('esc:\\x1b[31m');
    expect(plain).toContain('nul:\\x00');
    expect(plain).toContain('lone:\\ud800');
    expect(plain).toContain('ffff:\\uffff');
    expect(render('pretty', report, { color: false })).toBe(plain);
  });

  it('uses ANSI codes with color', () => {
    const colored = renderPretty(report, { color: true });
    expect(colored).toContain(ESC);
    expect(colored.replace(/\x1b\[[0-9;]*m/g, '')).toBe(plain);
  });

  it('lists sections in document order', () => {
    const headings = ['§2.3', '§2.10', '§4', '§4.1', '§6', 'catalog §1', 'catalog §2.4'];
    const at = headings.map((h) => plain.indexOf(`\n${h}\n`));
    for (const i of at) expect(i).toBeGreaterThan(-1);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(['catalog 2.4', '6', '2.10', '2.3', '4.1', '4', 'catalog 1'].sort(compareSections)).toEqual(['2.3', '2.10', '4', '4.1', '6', 'catalog 1', 'catalog 2.4']);
  });

  it('marks each outcome with level tags and details', () => {
    expect(plain).toMatch(/✓ \[MUST\] +models\.list-shape: title of models\.list-shape/);
    expect(plain).toMatch(/✗ \[MUST\] +chat\.error-envelope: Errors use the <error> envelope & status/);
    expect(plain).toMatch(/✗ \[SHOULD\] +chat\.retry-after/);
    expect(plain).toMatch(/! \[INFO\] +chat\.extra-fields/);
    expect(plain).toMatch(/- \[MUST\] +catalog\.pricing/);
    expect(plain).toMatch(/\? \[MUST\] +chat\.second-key: .*\n +not tested: only one API key given/);
    expect(plain).toContain('note: SSE comment lines seen');
    expect(plain).toContain('note: usage chunk sent last');
    expect(plain).toContain('→ POST https://api.example.test/v1/chat/completions');
    expect(plain).toContain('body: {"model":"m","messages":[]}');
    expect(plain).toContain('← 400');
    expect(plain).toContain('content-type: text/html; charset=utf-8');
    expect(plain).toContain('retry-after: 7');
    expect(plain).not.toContain('x-other');
    expect(plain).toContain('error: timeout after 30000 ms');
    // Shown as the boundary bounded it (report/boundary.ts): no reporter cuts it again.
    expect(plain).toContain('x'.repeat(1000));
  });

  it('ends with counts per level, warnings and the verdict', () => {
    expect(plain).toContain('must: 1 passed, 1 failed, 1 not tested, 1 skipped');
    expect(plain).toContain('should: 1 passed, 1 failed, 1 not tested');
    expect(plain).toContain('info: 1 passed, 1 failed, 0 not tested');
    expect(plain).toContain('warning: the target answered 429 three times');
    expect(plain.trimEnd().split('\n').at(-1)).toBe('FAILED: 1 must failed (exit code 1)');
    const passing = sealed({ ...report, results: [results[0]], summary: summarize([results[0]]), exitCode: 0, warnings: [] });
    expect(renderPretty(passing, { color: false }).trimEnd().split('\n').at(-1)).toBe('PASSED (exit code 0)');
  });

  it('says beside a PASSED why what broke does not fail the run, and what would make it', () => {
    const broke: CheckResult[] = [
      results[0],
      result({ id: 'chat.model-echo', suite: 'chat', section: '2.3', level: 'should', outcome: 'fail', message: 'another model' }),
      result({ id: 'chat.created', suite: 'chat', section: '2.3', level: 'should', outcome: 'fail', message: 'milliseconds' }),
      result({ id: 'stream.complete', suite: 'stream', section: '6.1', level: 'must', outcome: 'flaky', message: 'cut once' }),
      result({ id: 'catalog.pricing', suite: 'catalog', section: 'catalog 2.4', level: 'must', outcome: 'not-tested', message: 'no catalog' }),
      result({ id: 'chat.usage', suite: 'chat', section: '2.3', level: 'must', outcome: 'fail', message: 'no usage', expected: { reason: 'the engine has no usage yet' } }),
    ];
    const passing = sealed({ ...report, results: broke, summary: summarize(broke), exitCode: 0, warnings: [] });
    expect(renderPretty(passing, { color: false }).trimEnd().split('\n').at(-1)).toBe(
      'PASSED (exit code 0): 2 should failed, which fail the run only with --strict; 1 must not judged because of the server (1 flaky); it left 1 must path unjudged and the run judged 2: as many would fail the run; 1 must not tested, which fails the run only with --require-complete; 1 failure the baseline expects',
    );
    expect(renderMarkdown(passing)).toMatch(/^## ✅ chat-api-conformance: PASSED \(exit code 0\)\n\nPassed with 2 should failed, which fail the run only with --strict; .*\.$/m);
    expect(render('html', passing, { color: false })).toContain('<p class="expected" data-passing>Passed with 2 should failed, which fail the run only with --strict;');
  });
});

// A run the server judged little does not pass quietly, and one it left short of judgement fails:
// the gate weighs the must paths the server kept from being judged (not served, flaky, blocked by a
// flaky check, not answered) against those the run judged; the run's own options leaving musts
// unjudged (one key, the models chosen) weigh nothing, as before.
describe("the server's share of a run's musts", () => {
  const must = (id: string, outcome: CheckResult['outcome'], more: Partial<CheckResult> = {}) => result({ id, suite: 'chat', section: '4.1', level: 'must', outcome, ...more });
  const busy = must('chat.busy', 'not-served', { message: 'status 503' });
  const blocked = must('catalog.pricing', 'not-tested', { message: 'the catalog answered 503', blockedBy: ['catalog.available'], unjudged: 'flaky-owner' });
  const flaky = must('catalog.available', 'flaky', { message: 'status 503; sent again, it held' });
  const run = (rs: CheckResult[]) => sealed({ ...report, results: rs, summary: summarize(rs), exitCode: exitCodeFor(rs, options), warnings: [] });
  const lastLine = (r: RunReport) => renderPretty(r, { color: false }).trimEnd().split('\n').at(-1);

  it('says beside a PASSED how many musts the server kept from being judged, and why, when the run judged more', () => {
    const r = run([must('chat.a', 'pass'), must('chat.b', 'pass'), must('chat.c', 'pass'), flaky, blocked]);
    expect(r.exitCode).toBe(0);
    const said = '2 must not judged because of the server (1 flaky, 1 blocked by a flaky check); it left 2 must paths unjudged and the run judged 3: as many would fail the run';
    expect(lastLine(r)).toBe(`PASSED (exit code 0): ${said}`);
    expect(renderMarkdown(r)).toContain(`Passed with ${said}.`);
    expect(renderHtml(r)).toContain(`Passed with ${said}.`);
    expect(renderJunit(r)).not.toContain('<failure ');
  });

  it('fails the run where it kept as many must paths from being judged as the run judged, each such must a failure of every report', () => {
    const rs = [must('chat.a', 'pass'), must('chat.b', 'fail', { message: 'wrong', expected: { reason: 'known' } }), busy, blocked];
    const r = run(rs);
    expect(r.exitCode).toBe(1);
    expect(rs.filter((x) => failsRun(x, gateOf(r))).map((x) => x.id)).toEqual(['chat.busy', 'catalog.pricing']);
    expect(lastLine(r)).toBe('FAILED: 2 must not judged because of the server (1 not served, 1 blocked by a flaky check); it left 2 must paths unjudged and the run judged 2 (exit code 1)');
    const junit = renderJunit(r);
    expect((junit.match(/<failure /g) ?? []).length).toBe(2);
    expect(junit).toContain('<failure message="not served, and the server left as many must paths unjudged as the run judged, or more: status 503" type="not-served">');
    const md = renderMarkdown(r);
    expect(md).toContain('### ❌ Failing the run (2)');
    const said = 'Failed with 2 must not judged because of the server (1 not served, 1 blocked by a flaky check); it left 2 must paths unjudged and the run judged 2.';
    expect(md.split('\n').slice(0, 3)).toEqual(['## ❌ chat-api-conformance: FAILED (exit code 1)', '', said]);
    expect(renderHtml(r)).toContain(`<p data-failing>${said}</p>`);
    expect(renderGithub(r)).toContain('::error title=chat.busy');
    // --require-complete fails them whatever their share, as it fails every must left unjudged.
    const one = [must('chat.a', 'pass'), must('chat.b', 'pass'), busy];
    expect(exitCodeFor(one, options)).toBe(0);
    expect(exitCodeFor(one, { strict: false, requireComplete: true })).toBe(1);
  });

  it('weighs paths: a must judged on some paths and not served on one was judged (a load step where every request was refused)', () => {
    const steps = ['alone', 'concurrency 1', 'concurrency 4', 'concurrency 64'].map((label, i) => ({
      path: { step: label },
      label,
      outcome: i < 3 ? ('pass' as const) : ('not-served' as const),
      evidence: [],
      durationMs: 1,
    }));
    const r = run([must('load.ids', 'not-served', { paths: steps }), must('load.tokens', 'not-served', { paths: steps })]);
    expect(r.exitCode).toBe(0);
    expect(lastLine(r)).toBe('PASSED (exit code 0): 2 must not judged because of the server (2 not served); it left 2 must paths unjudged and the run judged 6: as many would fail the run');
  });

  it('leaves a run whose options left musts unjudged passing as before, however many', () => {
    const r = run([
      must('chat.a', 'pass'),
      must('auth.key-scope', 'not-tested', { message: 'needs --second-api-key' }),
      must('tools.finish-reason', 'not-tested', { message: 'no model under test declares tools in the catalog' }),
      must('catalog.pricing', 'not-tested', { message: 'no catalog at the default site URL: give --site-url' }),
    ]);
    expect(r.exitCode).toBe(0);
    expect(lastLine(r)).toBe('PASSED (exit code 0): 3 must not tested, which fail the run only with --require-complete');
  });
});

describe('markdown reporter', () => {
  const withCurl: RunReport = sealed({
    ...report,
    results: report.results.map((r) =>
      r.id === 'chat.error-envelope'
        ? { ...r, evidence: [{ ...r.evidence[0], reproduce: `curl -sS -X POST 'https://api.example.test/v1/chat/completions' -H 'authorization: Bearer '"$CONFORMANCE_API_KEY"` }] }
        : r,
    ),
  });
  const md = renderMarkdown(withCurl);

  it('puts the verdict first and sorts what fails the run from findings and from what was not tested', () => {
    expect(md.split('\n')[0]).toBe('## ❌ chat-api-conformance: FAILED (exit code 1)');
    const failing = md.slice(md.indexOf('### ❌ Failing the run (1)'), md.indexOf('### Findings'));
    expect(failing).toContain('`chat.error-envelope`');
    expect(failing).not.toContain('`chat.retry-after`');
    expect(md.slice(md.indexOf('### Findings that do not fail the run (2)'))).toContain('| `chat.retry-after` | should | 6 | no Retry-After on 429 |');
    expect(md).toContain('### Not tested (2)');
  });

  it('shows the evidence in fences no excerpt can close, and the command that replays it', () => {
    expect(md).toContain('Reproduce with:\n\n```sh\ncurl -sS -X POST');
    expect(md).toContain('$CONFORMANCE_API_KEY');
    // Table cells hold no raw pipe or angle bracket from a server's text.
    for (const line of md.split('\n').filter((l) => l.startsWith('| `'))) expect(line.split(/(?<!\\)\|/).length).toBe(6);
  });

  it('makes terminal escapes from the server inert, as pretty output does', () => {
    expect(md).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F]/);
    expect(md).toContain('esc:\\x1b[31m');
    expect(md).toContain('bell:\\x07');
  });
});

describe('github reporter', () => {
  const out = renderGithub(report);

  it('annotates what fails the run as an error, a failed should as a warning, with section and escaped text', () => {
    const lines = out.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(1);
    const error = lines.find((l) => l.startsWith('::error '))!;
    expect(error).toMatch(/^::error title=chat\.error-envelope \(must%2C §2\.3\)::Errors use the <error> envelope & status%0Aexpected /);
    expect(error).toContain('%0Aevidence: POST https://api.example.test/v1/chat/completions -> 400');
    // One command per line: no raw line break survives inside one.
    expect(lines.every((l) => l.startsWith('::'))).toBe(true);
    expect(lines.at(-1)).toBe('::notice title=chat-api-conformance%3A failed::9 checks against https://api.example.test/v1; exit code 1');
  });

  it('makes terminal escapes from the server inert, as pretty output does', () => {
    expect(out).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F]/);
    expect(out).toContain('esc:\\x1b[31m');
    expect(out).toContain('bell:\\x07');
  });
});

describe('client flows pass every gate a check passes', () => {
  const flow = (p: Partial<FlowResult> & Pick<FlowResult, 'id' | 'outcome'>): FlowResult => {
    const [client, name] = p.id.split('.');
    const path = {
      label: 'mock-chat-1',
      outcome: p.outcome,
      message: p.message,
      evidence: p.outcome === 'fail' ? [{ request: { method: 'POST', url: 'https://api.example.test/v1/chat/completions', headers: {} }, status: 200 }] : [],
      durationMs: 5,
    };
    return { client, flow: name, title: `title of ${p.id}`, does: 'client.call()', level: 'must', restsOn: ['chat.error-envelope'], paths: [path], durationMs: 5, ...p };
  };
  const flows: FlowResult[] = [
    flow({ id: 'openai.tools', outcome: 'fail', failureLevel: 'must', brokenBy: ['tools.call-valid'], message: 'threw TypeError' }),
    flow({ id: 'ai-sdk.bad-request', outcome: 'fail', failureLevel: 'should', unexplained: true, message: 'statusCode is 422, not 400' }),
    flow({ id: 'langchain.stream', outcome: 'pass' }),
  ];
  const clients: ClientsReport = {
    clients: ['openai', 'ai-sdk', 'langchain'].map((name) => ({ name, title: name, packages: [{ name, version: '1.2.3' }], installed: true })),
    flows: [{ name: 'tools', title: 'tools' }],
    absent: [],
    results: flows,
    impact: [{ check: 'tools.call-valid', flows: ['openai.tools'] }],
    requestsSent: 3,
    maxTokens: 48,
  };
  // Every check passes: what fails the run is a flow alone.
  const passing = results.filter((r) => r.outcome === 'pass');
  const onlyFlows = (opts: GateOptions, list = flows): RunReport =>
    sealed({
      ...report,
      options: opts,
      results: passing,
      summary: summarize(passing),
      exitCode: exitCodeFor(passing, opts, [], list),
      clients: { ...clients, flows: [...new Set(list.map((f) => f.flow))].map((name) => ({ name, title: name })), results: list },
    });

  it('a long failure is cut after a word, in the footnote and the table, and says where the whole is', () => {
    const said = `the openai client threw APIConnectionError: ${'the stream ended before its last event and the client gave up on it; '.repeat(4)}end`;
    const md = renderMarkdown(onlyFlows(options, [flow({ id: 'openai.tools', outcome: 'fail', failureLevel: 'must', brokenBy: ['tools.call-valid'], message: said })]));
    const footnote = /^1\. (.*)$/m.exec(md)![1];
    expect(footnote).toMatch(/^the openai client threw APIConnectionError: the stream .*… \(the whole under openai\.tools below\) ← tools\.call-valid failed$/);
    // Cut where a word ends, not within one.
    const head = footnote.slice(0, footnote.indexOf('…'));
    expect(said.startsWith(head) && /[\s,;:.]/.test(said[head.length])).toBe(true);
    // The whole is where the footnote says.
    expect(md.slice(md.indexOf('`openai.tools`**'))).toContain(said);
    // A check's finding in a table: cut after a word too; the whole in its section below, or in the reports that keep it.
    const long = (id: string, outcome: 'fail' | 'not-tested') =>
      result({ id, suite: 'chat', section: '2.1', level: 'must', outcome, message: `${'the reply ended early with a finish_reason nobody asked for; '.repeat(5)}end` });
    const checks = [long('chat.cut', 'fail'), long('chat.later', 'not-tested')];
    const table = renderMarkdown(sealed({ ...report, results: checks, summary: summarize(checks), exitCode: 1 }));
    expect(table).toMatch(/^\| `chat\.cut` \|.* reply ended… \(the whole under chat\.cut below\) \|$/m);
    expect(table).toMatch(/^\| `chat\.later` \|.* reply ended… \(the whole in the json or html report\) \|$/m);
  });

  it('a flow that fails the run fails it in the exit code and in every reporter, and one that does not is told apart', () => {
    const r = onlyFlows(options);
    expect(r.exitCode).toBe(1);
    for (const name of REPORTER_NAMES) expect(render(name, r), name).toContain('openai.tools');
    expect(renderGithub(r)).toMatch(/^::error title=client flow openai\.tools \(must\)::title of openai\.tools%0Athrew TypeError ← tools\.call-valid failed/m);
    expect(renderGithub(r)).toMatch(/^::warning title=client flow ai-sdk\.bad-request \(should\)::.*no failed rule explains it/m);
    expect(renderGithub(r)).not.toContain('langchain.stream');
    expect(renderGithub(r)).toContain('3 client flows against');
    // The verdict's line counts the failed flows as the matrix shows them, and how many fail the run.
    expect(renderPretty(r, { color: false })).toMatch(/^FAILED: 2 client flows failed, 1 of which fails the run \(exit code 1\)$/m);
    const shouldOnly = onlyFlows(options, flows.slice(1));
    expect(shouldOnly.exitCode).toBe(0);
    // A failed flow is no failed check: the checks' summary says no should failed.
    for (const text of [renderPretty(shouldOnly, { color: false }), renderMarkdown(shouldOnly), renderHtml(shouldOnly)]) {
      expect(text).toContain('1 client flow failed, which fails the run only with --strict');
      expect(text).not.toContain('1 should failed');
    }
    expect(
      renderPretty(
        onlyFlows(options, applyFlowBaseline(flows, [result({ id: 'tools.call-valid', suite: 'tools', section: '2.4', level: 'must', outcome: 'fail', expected: { reason: 'r' } })]).flows),
        {
          color: false,
        },
      ),
    ).toMatch(/^PASSED \(exit code 0\): 1 client flow failed, which fails the run only with --strict; 1 failure the baseline expects$/m);
  });

  // A run with many ✗ in its matrix, few of them failing the run: every count says both.
  it('counts the flows as the matrix shows them (✓, ✗, not run), and apart how many fail the run, in the summary, the verdict, the closing line, the HTML header and markdown', () => {
    const many: FlowResult[] = [
      flow({ id: 'openai.tools', outcome: 'fail', failureLevel: 'must', brokenBy: ['tools.call-valid'], message: 'threw TypeError' }),
      flow({ id: 'ai-sdk.tools', outcome: 'fail', failureLevel: 'must', brokenBy: ['tools.call-valid'], message: 'threw TypeError' }),
      flow({ id: 'openai.bad-request', outcome: 'fail', failureLevel: 'should', unexplained: true }),
      flow({ id: 'ai-sdk.bad-request', outcome: 'fail', failureLevel: 'should', unexplained: true }),
      flow({ id: 'langchain.bad-request', outcome: 'flaky', failureLevel: 'should', unexplained: true }),
      flow({ id: 'openai.stream', outcome: 'pass' }),
      flow({ id: 'openai.retry', outcome: 'not-tested', message: 'Retry-After past the flow' }),
    ];
    const r = onlyFlows(options, many);
    const cells = matrix(r.clients!).flatMap((row) => row.cells);
    // What the matrix shows of these flows: 5 ✗, 1 ✓, and one run to no verdict.
    const shown = (mark: string) => cells.filter((c) => c.result && c.mark === mark).length;
    expect([shown('✗'), shown('✓'), shown('not run')]).toEqual([5, 1, 1]);
    const counted = '1 passed, 5 failed, 1 not tested; 2 fail the run';
    const pretty = renderPretty(r, { color: false });
    expect(pretty).toMatch(new RegExp(`^Summary\n(  (must|should|info): .*\n)+  client flows: ${counted}$`, 'm'));
    expect(pretty).toMatch(/^FAILED: 5 client flows failed, 2 of which fail the run \(exit code 1\)$/m);
    expect(closingLines('clients', [{ name: 'json', file: 'r.json' }], r, r.exitCode)).toEqual(['FAILED (exit code 1): 5 client flows failed, 2 of which fail the run; json report in r.json']);
    const html = renderHtml(r);
    expect(html).toContain(`<p data-flows>client flows: ${counted}</p>`);
    expect(html).toContain('<p data-failing>Failed with 5 client flows failed, 2 of which fail the run.</p>');
    const md = renderMarkdown(r);
    expect(md).toContain(`, 7 client flows (${counted}),`);
    expect(md).toContain('Failed with 5 client flows failed, 2 of which fail the run.');
    // None failing the run (every failed flow a should): said so, and the run passes.
    const shoulds = onlyFlows(options, many.slice(2));
    expect(shoulds.exitCode).toBe(0);
    expect(renderPretty(shoulds, { color: false })).toMatch(/^ {2}client flows: 1 passed, 3 failed, 1 not tested; none fails the run$/m);
    expect(renderPretty(shoulds, { color: false })).toMatch(
      /^PASSED \(exit code 0\): 3 client flows failed, which fail the run only with --strict; 1 client flow not tested, which fails the run only with --require-complete$/m,
    );
    // --strict: each ✗ fails the run, and the line needs no second figure.
    const strict = onlyFlows({ strict: true, requireComplete: false }, many);
    expect(renderPretty(strict, { color: false })).toMatch(/^FAILED: 5 client flows failed \(exit code 1\)$/m);
    expect(renderPretty(strict, { color: false })).toMatch(/^ {2}client flows: 1 passed, 5 failed, 1 not tested; 5 fail the run$/m);
    // --require-complete: a must-level flow left not tested fails the run too, said apart from the ✗.
    const complete = onlyFlows({ strict: false, requireComplete: true }, many);
    expect(renderPretty(complete, { color: false })).toMatch(/^FAILED: 5 client flows failed, 2 of which fail the run, 1 client flow not tested \(require-complete\) \(exit code 1\)$/m);
    expect(renderPretty(complete, { color: false })).toMatch(/^ {2}client flows: 1 passed, 5 failed, 1 not tested; 3 fail the run$/m);
  });

  it(
    'JUnit: one testsuite per client, a <failure> exactly where the gate fails a flow, in every mode, valid against junit-10.xsd',
    async () => {
      const modes: [GateOptions, number][] = [
        [{ strict: false, requireComplete: false }, 1],
        [{ strict: true, requireComplete: false }, 2],
      ];
      for (const [opts, n] of modes) {
        const r = onlyFlows(opts);
        const xml = renderJunit(r);
        expect((xml.match(/<failure /g) ?? []).length, JSON.stringify(opts)).toBe(n);
        expect(xml).toMatch(new RegExp(`<testsuites name="chat-api-conformance" tests="${passing.length + flows.length}" failures="${n}" `));
        expect(r.exitCode).toBe(1);
      }
      const xml = renderJunit(onlyFlows(options));
      expect([...xml.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1])).toEqual(['models', 'chat', 'catalog', 'clients.openai', 'clients.ai-sdk', 'clients.langchain']);
      expect(xml).toMatch(
        /<testcase name="openai\.tools: title of openai\.tools" classname="conformance\.clients\.openai" time="0\.005">\s*<failure message="threw TypeError ← tools\.call-valid failed" type="must">/,
      );
      expect(xml).toContain('finding, a failed should, which fails the run only with --strict: statusCode is 422, not 400 ← no failed rule explains it');
      expect(xml).toContain('<property name="client.openai" value="1.2.3"/>');
      expect(xml).toContain('<property name="openai.tools.restsOn" value="chat.error-envelope"/>');
      const out = await validateXML({ xml: [{ fileName: 'flows.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: XSD }] });
      expect(out.errors).toEqual([]);
    },
    within(30_000),
  );

  it('a flow the baseline lists is expected on the paths it names, stale once it passes, and written by --update-baseline where no check explains it', () => {
    const listed = applyFlowBaseline(flows, [], {
      expected: [
        { check: 'ai-sdk.bad-request', reason: 'the SDK reads 422' },
        { check: 'langchain.stream', reason: 'fixed?' },
      ],
    });
    expect(listed.flows[1].expected).toEqual({ reason: 'the SDK reads 422' });
    expect(exitCodeFor([], { strict: true, requireComplete: false }, [], [listed.flows[1]])).toBe(0);
    expect(listed.stale.map((e) => e.why)).toEqual(['client flow langchain.stream now passes: remove the entry']);
    // An entry for another model's path covers nothing that failed: the flow still fails.
    expect(applyFlowBaseline(flows, [], { expected: [{ check: 'ai-sdk.bad-request', model: 'mock-reason-1', reason: 'r' }] }).flows[1].expected).toBeUndefined();
    // Written for the flow no failed check explains; the one tools.call-valid broke goes with that check.
    const written = baselineOf([], undefined, flows).expected.map((e) => e.check);
    expect(written).toEqual(['ai-sdk.bad-request']);
  });

  it('a flow that only failures the baseline expects explain fails nothing; one no expected failure explains still does', () => {
    const checks = [result({ id: 'tools.call-valid', suite: 'tools', section: '2.4', level: 'must', outcome: 'fail', expected: { reason: 'ids in 2.4' } })];
    const gated = applyFlowBaseline(flows, checks).flows;
    expect(gated[0].expected).toEqual({ reason: 'tools.call-valid: ids in 2.4' });
    expect(gated[1].expected).toBeUndefined();
    expect(exitCodeFor(checks, options, [], gated)).toBe(0);
    expect(exitCodeFor(checks, { strict: true, requireComplete: false }, [], gated)).toBe(1);
    // Not expected where one of the checks that broke it is a failure the baseline does not list.
    const alsoOther = applyFlowBaseline([{ ...flows[0], brokenBy: ['tools.call-valid', 'tools.stream'] }], checks).flows;
    expect(alsoOther[0].expected).toBeUndefined();
    const xml = renderJunit(onlyFlows(options, gated));
    expect(xml).not.toMatch(/<testcase name="openai\.tools[^>]*>\s*<failure/);
    expect(xml).toContain('finding, expected failure (baseline: tools.call-valid: ids in 2.4): threw TypeError ← tools.call-valid failed, expected by the baseline');
  });
});
