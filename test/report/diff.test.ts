// conformance diff at the grain of paths: a check failing before and after still regresses when it
// fails on a path it passed before; a changed finding and a changed level are told apart.
import { describe, expect, it } from 'vitest';
import type { CheckResult, PathResult } from '../../engine/check.js';
import { diffReports, renderDiff } from '../../report/diff.js';
import type { RunReport } from '../../report/report.js';

const path = (label: string, outcome: PathResult['outcome']): PathResult => ({ path: {}, label, outcome, evidence: [], durationMs: 1 });
const result = (id: string, level: CheckResult['level'], paths: PathResult[], message?: string): CheckResult => ({
  id,
  suite: id.split('.')[0],
  title: id,
  section: '2.1',
  sections: ['2.1'],
  level,
  outcome: paths.some((p) => p.outcome === 'fail') ? 'fail' : 'pass',
  message,
  evidence: [],
  durationMs: 1,
  paths,
});
const reportOf = (results: CheckResult[]) => ({ results }) as unknown as RunReport;

describe('diff', () => {
  it('finds a regression on a path of a check that failed already', () => {
    const before = reportOf([result('stop.exact-prefix', 'should', [path('json, m', 'fail'), path('stream, m', 'pass')], 'a')]);
    const after = reportOf([result('stop.exact-prefix', 'should', [path('json, m', 'fail'), path('stream, m', 'fail')], 'b')]);
    const d = diffReports(before, after);
    expect(d.regression).toBe(true);
    expect(d.newlyFailing).toEqual([{ id: 'stop.exact-prefix', level: 'should', what: 'now fails on [stream, m] too' }]);
    expect(diffReports(after, before)).toMatchObject({ regression: false, newlyPassing: [{ what: 'no longer fails on [stream, m]' }] });
  });

  it('tells a changed finding and a changed level from a regression', () => {
    const before = reportOf([result('chat.object', 'must', [path('m', 'fail')], 'object is "x"'), result('chat.usage-details', 'should', [path('m', 'pass')])]);
    const after = reportOf([
      result('chat.object', 'must', [path('m', 'fail')], 'object is "y"'),
      result('chat.usage-details', 'must', [path('m', 'pass')]),
      result('chat.new', 'must', [path('m', 'pass')]),
    ]);
    const d = diffReports(before, after);
    expect(d).toMatchObject({
      regression: false,
      added: ['chat.new'],
      removed: [],
      levelChanged: [{ id: 'chat.usage-details', what: 'should -> must' }],
      findingChanged: [{ id: 'chat.object', what: 'object is "x" -> object is "y"' }],
    });
  });

  it('prints a newly failing check on one readable line, and says where the whole finding is', () => {
    const long = `the answer was ${'x'.repeat(5000)}`;
    const d = diffReports(reportOf([result('chat.object', 'must', [path('m', 'pass')])]), reportOf([result('chat.object', 'must', [path('m', 'fail')], long)]));
    const lines = renderDiff(d, { old: 'main.json', new: 'branch.json' }).split('\n');
    const failing = lines.find((l) => l.startsWith('  chat.object [must]: pass -> fail: the answer was '))!;
    expect(failing.length).toBeLessThan(240);
    expect(failing.endsWith(' …')).toBe(true);
    expect(lines).toContain("A line ending in … is cut at 200 characters: the whole finding is the check's message in branch.json (and main.json), by id, and in conformance diff --json.");
    // Short ones are as they were, and nothing is said of cuts.
    expect(renderDiff(diffReports(reportOf([]), reportOf([result('chat.object', 'must', [path('m', 'fail')], 'short')])))).not.toContain('…');
  });
});
