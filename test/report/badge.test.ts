// conformance badge: the SVG a README shows, linked to the HTML report, made from the JSON reports
// of real runs against the mock. Each badge is well-formed XML whose texts are the document's name,
// the musts passed of judged and the run's date, coloured by the gate's verdict; a report's texts,
// however hostile, never reach it; a report that cannot be read is named, exit 2.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { CheckResult } from '../../engine/check.js';
import { errorReply } from '../../mock/core/errors.js';
import { isChat } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { badgeOf } from '../../report/badge.js';
import type { RunReport } from '../../report/report.js';
import { cli } from '../support/cli.js';
import { within } from '../support/machine.js';
import { KEY, mockWith } from '../support/run.js';

/** shields.io's palette (badge-maker 6): brightgreen, red, orange. */
const GREEN = '#4b0';
const RED = '#dd4343';
const ORANGE = '#ea7233';

const dir = mkdtempSync(join(tmpdir(), 'badge-'));
const at = (name: string) => join(dir, name);

/** What a badge shows, read from its SVG: the texts (unescaped), the colour of each half, the widths. */
async function read(svg: string) {
  const parsed = await validateXML({ xml: [{ fileName: 'badge.svg', contents: svg }], normalization: 'c14n' });
  expect(parsed.errors.map((e) => e.message)).toEqual([]);
  const unescaped = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  const rects = [...svg.matchAll(/<rect (?:x="(\d+)" )?width="(\d+)" height="20" fill="(#[0-9a-f]+)"\/>/g)].map((m) => ({ x: Number(m[1] ?? 0), width: Number(m[2]), fill: m[3] }));
  // The visible texts: the last of each half's three (two are its shadow).
  const texts = [...svg.matchAll(/<text x="\d+" y="140" textLength="(\d+)">([^<]*)<\/text>/g)].map((m) => ({ text: unescaped(m[2]), length: Number(m[1]) }));
  return {
    title: unescaped(/<title>([^<]*)<\/title>/.exec(svg)![1]),
    width: Number(/^<svg [^>]*width="(\d+)"/.exec(svg)![1]),
    rects,
    texts,
    link: /<a target="_blank" href="([^"]*)">/.exec(svg)?.[1],
  };
}

interface Run {
  report: RunReport;
  file: string;
}

/** A run of the CLI against `url`, its JSON report kept in `name`. */
async function run(name: string, url: string, ...args: string[]): Promise<Run> {
  const file = at(`${name}.json`);
  const r = await cli(['run', '--base-url', url, '--api-key', KEY, '--no-fuzz', '--reporter', `json=${file}`, ...args]);
  expect(r.code, r.stderr).not.toBe(2);
  return { report: JSON.parse(readFileSync(file, 'utf8')) as RunReport, file };
}

const musts = (report: RunReport, outcome: CheckResult['outcome']) => report.results.filter((r) => r.level === 'must' && r.outcome === outcome).length;
const dateOf = (report: RunReport) => report.startedAt.slice(0, 10);

describe('conformance badge', () => {
  const servers: MockServer[] = [];
  let passing: Run;
  let failing: Run;
  let busy: Run;
  let incomplete: Run;
  beforeAll(async () => {
    const [correct, usageMissing, turnedAway] = await Promise.all([
      startMockServer(),
      startMockServer({ mock: createMock(undefined, { faults: ['chat-usage-missing'] }) }),
      // Every chat request turned away: the server leaves the run short of judgement.
      startMockServer({ mock: mockWith({ reply: (r, req) => (isChat(req) ? errorReply(503, 'The engine is currently overloaded.', 'server_error', 'overloaded') : r) }) }),
    ]);
    servers.push(correct, usageMissing, turnedAway);
    [passing, failing, busy, incomplete] = await Promise.all([
      run('passing', correct.url, '--suite', 'chat'),
      run('failing', usageMissing.url, '--suite', 'chat'),
      run('busy', turnedAway.url, '--suite', 'chat'),
      // One key given: the key-scope must is not tested, which --require-complete fails.
      run('incomplete', correct.url, '--suite', 'auth', '--require-complete'),
    ]);
  }, within(120_000));
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('a passing run: green, the document named, every judged must passed, the date of the run; linked to the HTML report', async () => {
    expect(passing.report.exitCode).toBe(0);
    const out = at('passing.svg');
    const r = await cli(['badge', passing.file, '--out', out, '--link', 'report.html']);
    expect(r.code, r.stderr).toBe(0);
    const n = musts(passing.report, 'pass');
    expect(n).toBeGreaterThan(5);
    const message = `MUST ${n}/${n} · ${dateOf(passing.report)}`;
    expect(r.stderr).toBe(`conformance: badge in ${out}: chat-api.md | ${message} (brightgreen: every judged must passed, and the run passed its gate)\n`);
    const badge = await read(readFileSync(out, 'utf8'));
    expect(badge.title).toBe(`chat-api.md: ${message}`);
    expect(badge.texts.map((t) => t.text)).toEqual(['chat-api.md', message]);
    // The left half grey, the right green, side by side, as wide as the badge.
    expect(badge.rects.slice(0, 2).map((x) => x.fill)).toEqual(['#555', GREEN]);
    expect(badge.rects[1].x).toBe(badge.rects[0].width);
    expect(badge.rects[0].width + badge.rects[1].width).toBe(badge.width);
    // Widths from Verdana 11px, as shields.io computes them (tenths of a pixel): not one per character.
    expect(badge.texts[0].length).toBe(670);
    expect(badge.link).toBe('report.html');
  });

  it('a run where a must failed: red, with the musts passed of judged', async () => {
    expect(failing.report.exitCode).toBe(1);
    const r = await cli(['badge', failing.file, '--out', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const [passed, failed] = [musts(failing.report, 'pass'), musts(failing.report, 'fail')];
    expect(failed).toBeGreaterThan(0);
    const badge = await read(r.stdout);
    expect(badge.texts.map((t) => t.text)).toEqual(['chat-api.md', `MUST ${passed}/${passed + failed} · ${dateOf(failing.report)}`]);
    expect(badge.rects[1].fill).toBe(RED);
    expect(badge.link).toBeUndefined();
    const written = await cli(['badge', failing.file, '--out', at('failing.svg')]);
    expect(written.stderr).toContain(`(red: ${failed} must failed)`);
  });

  it('a run the server left short of judgement: orange, the musts the gate counts unjudged said', async () => {
    expect(busy.report.exitCode).toBe(1);
    expect(musts(busy.report, 'fail')).toBe(0);
    const out = at('busy.svg');
    const r = await cli(['badge', busy.file, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const badge = await read(readFileSync(out, 'utf8'));
    const n = musts(busy.report, 'pass');
    expect(badge.texts[1].text).toMatch(new RegExp(`^MUST ${n}/${n}, [1-9]\\d* unjudged · ${dateOf(busy.report)}$`));
    expect(badge.rects[1].fill).toBe(ORANGE);
    // Why, in the gate's words.
    expect(r.stderr).toMatch(/\(orange: \d+ must not judged because of the server \(\d+ not served\); it left \d+ must paths unjudged and the run judged \d+\)\n$/);
  });

  it('a run whose --require-complete a must left not tested failed: orange too', async () => {
    expect(incomplete.report.exitCode).toBe(1);
    const r = await cli(['badge', incomplete.file, '--out', at('incomplete.svg')]);
    const badge = await read(readFileSync(at('incomplete.svg'), 'utf8'));
    const n = musts(incomplete.report, 'pass');
    const unjudged = musts(incomplete.report, 'not-tested');
    expect(unjudged).toBeGreaterThan(0);
    expect(badge.texts[1].text).toBe(`MUST ${n}/${n}, ${unjudged} unjudged · ${dateOf(incomplete.report)}`);
    expect(badge.rects[1].fill).toBe(ORANGE);
    expect(r.stderr).toContain(`(orange: ${unjudged} must not tested (require-complete))`);
  });

  it('escapes what it shows, and shows nothing of a hostile report: no text of the server, no key', async () => {
    const hostile = JSON.parse(readFileSync(passing.file, 'utf8'));
    const evil = `</text><script>alert(1)</script>&amp;"' ${KEY}`;
    hostile.target.baseUrl = `http://127.0.0.1/${evil}`;
    hostile.tool.name = evil;
    hostile.notes = [evil];
    for (const r of hostile.results) {
      r.title = evil;
      r.message = evil;
    }
    writeFileSync(at('hostile.json'), JSON.stringify(hostile));
    const label = `ours <b> & "quoted" ${KEY}`;
    const r = await cli(['badge', at('hostile.json'), '--out', '-', '--label', label, '--link', 'https://ci.example/run?a=1&b=<2>'], { CONFORMANCE_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('<script');
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).toContain('ours &lt;b&gt; &amp; &quot;quoted&quot; ');
    const badge = await read(r.stdout);
    expect(badge.texts[0].text).toMatch(/^ours <b> & "quoted" /);
    expect(badge.texts[1].text).toMatch(/^MUST (\d+)\/\1 · /);
    expect(badge.link).toBe('https://ci.example/run?a=1&amp;b=&lt;2&gt;');
  });

  it('a report that cannot be read, or a link or file it cannot take: exit 2, one line naming it, no badge written', async () => {
    writeFileSync(at('not-json.json'), '{"formatVersion": 3, ');
    writeFileSync(at('not-a-report.json'), JSON.stringify({ formatVersion: 3, results: [] }));
    writeFileSync(at('old.json'), JSON.stringify({ formatVersion: 1, results: [] }));
    writeFileSync(at('a-file'), '');
    const out = at('never.svg');
    const cases: [string[], RegExp][] = [
      [[at('missing.json')], /: cannot read the JSON report: ENOENT\n$/],
      [[at('not-json.json')], /not-json\.json: cannot read a JSON report: /],
      [[at('not-a-report.json')], /not-a-report\.json: not a report of format 3: tool: expected this field/],
      [[at('old.json')], /old\.json: formatVersion 1; this conformance reads 3/],
      [[passing.file, '--link', 'javascript:alert(1)'], /--link takes an http\(s\) URL or a relative path \(report\.html\), got 'javascript:alert\(1\)'/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(['badge', ...args, '--out', out])));
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^conformance: [^\n]+\n$/);
      expect(r.stderr).toMatch(cases[i][1]);
    });
    expect(results[0].stderr).toContain(at('missing.json'));
    expect(existsSync(out)).toBe(false);
    const unwritable = await cli(['badge', passing.file, '--out', join(at('a-file'), 'badge.svg')]);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(/^conformance: --out: cannot write .*a-file\/badge\.svg: /);
  });
});

describe('the verdict a badge shows', () => {
  const must = (outcome: CheckResult['outcome'], extra: Partial<CheckResult> = {}) => ({ id: `chat.${outcome}`, level: 'must', outcome, evidence: [], ...extra }) as unknown as CheckResult;
  const should = (outcome: CheckResult['outcome']) => ({ id: `stop.${outcome}`, level: 'should', outcome, evidence: [] }) as unknown as CheckResult;
  const reportOf = (results: CheckResult[], over: Partial<RunReport> = {}) =>
    ({ results, options: { strict: false, requireComplete: false }, exitCode: 0, startedAt: '2025-06-01T10:00:00.000Z', ...over }) as unknown as RunReport;

  it('is red where a must failed that the baseline expects: the run passed, the server does not conform', () => {
    const b = badgeOf(reportOf([must('pass'), must('fail', { expected: { reason: 'fix due' } } as Partial<CheckResult>)]));
    expect([b.verdict, b.message, b.why]).toEqual(['failed', 'MUST 1/2 · 2025-06-01', '1 must failed, 1 of which the baseline expects']);
  });

  it('is red, saying the run failed, where every must passed and a should failed under --strict', () => {
    const b = badgeOf(reportOf([must('pass'), should('fail')], { options: { strict: true, requireComplete: false }, exitCode: 1 } as Partial<RunReport>));
    expect([b.verdict, b.message, b.why]).toEqual(['failed', 'MUST 1/1, run failed · 2025-06-01', '1 should failed (strict)']);
  });

  it('is red where the run was interrupted, whatever its checks', () => {
    const b = badgeOf(reportOf([must('pass')], { exitCode: 130 }));
    expect([b.verdict, b.message, b.why]).toEqual(['failed', 'MUST 1/1, run failed · 2025-06-01', 'the run failed its gate (exit code 130)']);
  });

  it('is green where musts went unjudged but fewer than the run judged: the gate vouches for the run', () => {
    const b = badgeOf(reportOf([must('pass'), must('pass'), { ...must('not-served'), id: 'chat.busy' }]));
    expect([b.verdict, b.message]).toEqual(['passed', 'MUST 2/2 · 2025-06-01']);
  });

  it('takes the label given, an empty one too', () => {
    expect(badgeOf(reportOf([must('pass')]), 'my server').label).toBe('my server');
    expect(badgeOf(reportOf([must('pass')]), '').label).toBe('');
  });
});
