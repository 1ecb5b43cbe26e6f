// The instruction gate's rule (bench/instructions.ts), on figures given: the counts themselves take
// valgrind minutes, and a documented run shows the gate failing an injected slowdown
// (docs/performance.md). Here: what is over, what is held to what, and the injection's own input.
import { describe, expect, it } from 'vitest';
import { type Counted, type Figure, PATHS, slowerOf, verdicts } from '../../bench/instructions.js';
import type { BaselineFile } from '../../bench/baseline-build.js';
import type { PathName } from '../../bench/instructions-probe.js';

const figure = (value: number, spread = 0.001): Figure => ({ value, windows: [value], spread });

function counted(today: Partial<Record<PathName, number>>, baseline: Partial<Record<PathName, number>>, sha = 'aaaaaaa111'): Counted {
  const of = (values: Partial<Record<PathName, number>>) => new Map(Object.entries(values).map(([k, v]) => [k as PathName, [figure(v!)]]));
  return {
    baseline: { name: 'base', dir: '/nowhere', sha },
    today: { name: 'today', dir: '/nowhere' },
    paths: PATHS.filter((p) => p.name in today),
    figures: new Map([
      ['today', of(today)],
      ['base', of(baseline)],
    ]),
    missing: new Map(),
    majorGcs: 0,
    wallMs: 0,
    cpuSeconds: 0,
  };
}

const FILE: BaselineFile = { commit: 'aaaaaaa', tolerance: 0.03, accepted: {} };

describe('the instruction gate', () => {
  it('fails a path 5% more expensive than the release, and passes one 2% more', () => {
    const vs = verdicts(counted({ 'kit.read-json': 105_000, 'kit.judge-json': 102_000 }, { 'kit.read-json': 100_000, 'kit.judge-json': 100_000 }), FILE);
    expect(vs.map((v) => [v.path.name, v.over])).toEqual([
      ['kit.read-json', true],
      ['kit.judge-json', false],
    ]);
  });

  it('a path cheaper at the release is held to the release, not to an older count: its room is the tolerance', () => {
    const [v] = verdicts(counted({ 'load.driver': 104_000 }, { 'load.driver': 100_000 }), FILE);
    expect(v.ratio).toBeCloseTo(1.04);
    expect(v.over).toBe(true);
  });

  it('a cost accepted on purpose holds only against the release it was accepted against', () => {
    const accepted = { ...FILE, accepted: { 'mock.same': { ratio: 1.05, why: 'a bound' } } };
    expect(verdicts(counted({ 'mock.same': 105_000 }, { 'mock.same': 100_000 }), accepted)[0].over).toBe(false);
    expect(verdicts(counted({ 'mock.same': 105_000 }, { 'mock.same': 100_000 }, 'bbbbbbb222'), accepted)[0].over).toBe(true);
  });

  it('a path the release does not have is counted, not compared', () => {
    const [v] = verdicts(counted({ 'fuzz.generate': 300_000 }, {}), FILE);
    expect(v.ratio).toBeUndefined();
    expect(v.over).toBe(false);
  });

  it('BENCH_SLOWER names paths and fractions, and a mistake names what is allowed', () => {
    expect(slowerOf(undefined)).toBeUndefined();
    expect(slowerOf('kit.read-json:0.05,load.driver:0.1')).toEqual({ 'kit.read-json': 0.05, 'load.driver': 0.1 });
    expect(() => slowerOf('kit.read:0.05')).toThrow(/"kit.read:0.05" is not path:fraction .*kit.read-json/);
    expect(() => slowerOf('kit.read-json:5')).toThrow(/a fraction such as 0.05/);
  });
});
