// The report boundary (report/boundary.ts) is the only way to a report: the compiler refuses a raw
// one to every reporter; seal redacts and cuts every text by its field, whatever its nesting, cuts
// lists of texts to a count, is a no-op on what it sealed, and says once when a key is too short to
// be redacted.
import { describe, expect, it } from 'vitest';
import type { CheckResult, Evidence } from '../../engine/check.js';
import { BOUNDS } from '../../engine/bounded.js';
import { evidenceOf, type Exchange } from '../../engine/exchanges.js';
import { Redactor, REDACTED, shellVariable } from '../../engine/redact.js';
import { MAX_TEXTS, REPORT_CURLS, seal, SHORT_KEY_WARNING } from '../../report/boundary.js';
import { render, REPORTER_NAMES } from '../../report/index.js';
import { renderJson } from '../../report/json.js';
import { exitCodeFor, REPORT_FORMAT_VERSION, summarize, type RawReport } from '../../report/report.js';

const KEY = 'sk-boundary-0123456789abcdef';
const huge = (what: string) => `${what} ${KEY} ${'z'.repeat(100_000)}`;

function rawReport(results: CheckResult[], extra: Partial<RawReport> = {}): RawReport {
  const options = { strict: false, requireComplete: false };
  return {
    formatVersion: REPORT_FORMAT_VERSION,
    tool: { name: 'chat-api-conformance', version: 'test' },
    target: { baseUrl: 'http://127.0.0.1:9', siteUrl: 'http://127.0.0.1:9', embeddedMock: false },
    options,
    startedAt: '2026-11-27T00:00:00.000Z',
    durationMs: 1,
    results,
    summary: summarize(results),
    exitCode: exitCodeFor(results, options),
    warnings: [],
    ...extra,
  };
}

const evidence: Evidence = {
  label: huge('label'),
  request: { method: 'POST', url: `http://h/${huge('url')}`, headers: { [huge('name')]: huge('value') }, body: huge('body') },
  status: 400,
  headers: { 'x-request-id': huge('id') },
  excerpt: huge('excerpt'),
  error: huge('error'),
  reproduce: huge('curl'),
};

const result: CheckResult = {
  id: 'chat.role.user',
  suite: 'chat',
  title: 'a title',
  section: '2.2',
  sections: ['2.2'],
  level: 'must',
  outcome: 'fail',
  message: huge('message'),
  notes: Array.from({ length: 500 }, (_, i) => `note ${i} ${huge('note')}`),
  evidence: [evidence],
  durationMs: 1,
  axes: ['model'],
  paths: [{ path: { model: huge('model') }, label: huge('path label'), outcome: 'fail', message: huge('path message'), evidence: [evidence], durationMs: 1 }],
};

/** Every string of a value, with the name of the field that holds it. */
function texts(value: unknown, field = ''): [string, string][] {
  if (typeof value === 'string') return [[field, value]];
  if (Array.isArray(value)) return value.flatMap((v) => texts(v, field));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [[`${field}.${k} (name)`, k] as [string, string], ...texts(v, k)]);
  return [];
}

describe('the report boundary', () => {
  it('is the only way to a report: a raw one is refused by every reporter at compile time', () => {
    const raw = rawReport([result]);
    // @ts-expect-error a raw report's texts did not pass the boundary
    expect(() => render('json', raw)).not.toThrow();
    // @ts-expect-error the same for a reporter called by itself
    renderJson(raw);
    expect(render('json', seal(raw, new Redactor()))).toContain('"formatVersion"');
  });

  it('redacts, then cuts every text to the bound of its field, names of fields included', () => {
    const sealed = seal(rawReport([result], { notes: [huge('run note')], warnings: [huge('warning')], stopped: huge('stopped') }), new Redactor().add(KEY));
    for (const [field, text] of texts(sealed)) {
      expect(text, field).not.toContain(KEY);
      expect(text.length, field).toBeLessThanOrEqual(field === 'reproduce' ? BOUNDS.curl : BOUNDS.checkMessage);
    }
    const [r] = sealed.results;
    expect(r.message!.length).toBeLessThanOrEqual(BOUNDS.checkMessage);
    expect(r.paths![0].message!.length).toBeLessThanOrEqual(BOUNDS.message);
    expect(r.paths![0].label.length).toBeLessThanOrEqual(BOUNDS.label);
    expect(String(r.paths![0].path.model).length).toBeLessThanOrEqual(BOUNDS.label);
    const e = r.paths![0].evidence[0];
    expect(e.excerpt!.length).toBeLessThanOrEqual(BOUNDS.excerpt);
    expect(e.reproduce!.length).toBeLessThanOrEqual(BOUNDS.curl);
    expect(e.error!.length).toBeLessThanOrEqual(BOUNDS.error);
    expect(e.request.url.length).toBeLessThanOrEqual(BOUNDS.url);
    for (const [name, value] of Object.entries(e.request.headers)) {
      expect(name.length).toBeLessThanOrEqual(BOUNDS.label);
      expect(value.length).toBeLessThanOrEqual(BOUNDS.header);
    }
    expect(e.label).toContain(REDACTED);
    // A list of texts is cut to a count, saying how many were left out.
    expect(r.notes).toHaveLength(MAX_TEXTS);
    expect(r.notes!.at(-1)).toBe(`… and ${500 - MAX_TEXTS + 1} more`);
  });

  it('changes nothing on what it sealed, and says once that a short key is not redacted', () => {
    const redactor = new Redactor().add('x', shellVariable('CONFORMANCE_API_KEY'));
    const once = seal(rawReport([result]), redactor);
    expect(seal(once, redactor)).toEqual(once);
    expect(once.warnings.filter((w) => w === SHORT_KEY_WARNING)).toHaveLength(1);
    // Sealed again (a merge reads it back), it still says it once.
    expect(seal(once, new Redactor()).warnings.filter((w) => w === SHORT_KEY_WARNING)).toHaveLength(1);
    expect(seal(rawReport([result]), new Redactor().add(KEY)).warnings).not.toContain(SHORT_KEY_WARNING);
    // Two curls of 80,000 characters (BOUNDS.curl) at most, and texts of a few thousand.
    for (const name of REPORTER_NAMES) expect(render(name, once).length, name).toBeLessThan(2 * BOUNDS.curl + 150_000);
  });

  it("keeps a field named as a prototype's member a field, bounded as any other", () => {
    // As a report read from a file holds them: JSON.parse makes `__proto__` an own key.
    const headers = JSON.parse('{"__proto__":"a","constructor":"b","toString":"c"}') as Record<string, string>;
    const sealed = seal(rawReport([{ ...result, message: 'm', notes: [], evidence: [{ ...evidence, headers }], paths: [] }]), new Redactor());
    const kept = sealed.results[0].evidence[0].headers ?? {};
    expect(Object.keys(kept)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.values(kept)).toEqual(['a', 'b', 'c']);
    // A text in a field named toString is bounded as any other text, not emptied.
    const named = seal(rawReport([result], JSON.parse(`{"toString":${JSON.stringify('t'.repeat(50))}}`)), new Redactor()) as unknown as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(named, 'toString')?.value).toBe('t'.repeat(50));
  });

  it('spends a budget of characters on the replaying commands of a report, the same way when sealed again', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ ...result, id: `chat.check-${i}`, notes: [], paths: [], evidence: [{ ...evidence, reproduce: `curl ${'q'.repeat(200_000)}` }] }));
    const once = seal(rawReport(many), new Redactor());
    const curls = once.results.map((r) => r.evidence[0].reproduce!.length);
    expect(curls[0]).toBe(BOUNDS.curl);
    expect(curls.at(-1)).toBe(BOUNDS.curlPastBudget);
    expect(curls.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(REPORT_CURLS + 100 * BOUNDS.curlPastBudget);
    expect(seal(once, new Redactor())).toEqual(once);
  });

  it('with a key too short to look for, leaves the text whole and still says the key by its variable where it stands', () => {
    const redactor = new Redactor().add('x', shellVariable('CONFORMANCE_API_KEY'));
    const ex = {
      label: 'chat',
      request: { method: 'POST', url: 'http://h/v1/chat/completions', headers: { authorization: 'Bearer x', 'x-api-key': 'x' }, body: '{"messages":[{"role":"user","content":"xxx"}]}' },
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"content":"xx"}'),
      bytesRead: 16,
      complete: true,
      durationMs: 1,
      rateLimited: false,
      retries: 0,
    } as unknown as Exchange;
    const e = evidenceOf(ex, redactor);
    expect(e.excerpt).toBe('{"content":"xx"}');
    expect(e.request.body).toContain('"xxx"');
    expect(e.request.headers.authorization).toBe(`Bearer ${REDACTED}`);
    expect(e.reproduce).toContain(`-H 'authorization: Bearer '"$CONFORMANCE_API_KEY"`);
    expect(e.reproduce).toContain(`-H 'x-api-key: '"$CONFORMANCE_API_KEY"`);
    expect(e.reproduce).toContain('"content":"xxx"');
  });
});
