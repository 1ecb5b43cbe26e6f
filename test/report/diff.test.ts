// conformance diff at the grain of paths: a check failing before and after still regresses when it
// fails on a path it passed before; a changed finding and a changed level are told apart.
import { describe, expect, it } from 'vitest';
import type { CheckResult, PathResult } from '../../engine/check.js';
import { diffReports } from '../../report/diff.js';
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
});
