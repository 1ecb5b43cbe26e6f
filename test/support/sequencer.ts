// The order vitest starts the test files in. Vitest runs the longest files first when it has their
// times from an earlier run (node_modules/.vite/vitest), and the largest first when it has none, as on
// CI's clean clone: there the fault sweep's second half, a file of a few lines and some 100 s of tests,
// came last of 95 and ran alone at the end. The files that take longest (a quiet run's times, by
// `--reporter=json`) start first wherever the suite runs; the rest keep vitest's order.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first: seconds on the quiet 2-core machine, three workers. */
const LONGEST = [
  'test/faults.test.ts', // 124 s
  'test/faults-second-half.test.ts', // 109 s
  'test/cli/cli.test.ts', // 47 s
  'test/clients/sweep.test.ts', // about 30 s, all of it in its beforeAll
  'test/attribution.test.ts', // 31 s
  'test/report-boundary.test.ts', // 31 s
  'test/clients/cli.test.ts', // 31 s
  'test/tls/https.test.ts', // 28 s
  'test/browser/dashboard.test.ts', // 26 s
  'test/docs/commands.test.ts', // 26 s
  'test/fuzz/fuzz.test.ts', // 25 s
  'test/cli/waits.test.ts', // 22 s
  'test/mock/record.test.ts', // 22 s
  'test/load/bounded-memory.test.ts', // 20 s
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((path) => f.moduleId.endsWith(`/${path}`));
      return i < 0 ? LONGEST.length : i;
    };
    const rest = await super.sort(files);
    return rest
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
