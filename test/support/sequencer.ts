// The order vitest starts the test files in. Vitest runs the longest files first when it has their
// times from an earlier run (node_modules/.vite/vitest), and the largest first when it has none, as on
// CI's clean clone: there the fault sweep's second half, a file of a few lines and some 100 s of tests,
// came last of 95 and ran alone at the end. The files that take longest (a quiet run's times, by
// `--reporter=json`) start first wherever the suite runs; the rest keep vitest's order.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first: seconds each took in a run of the whole suite (two cores, three workers), by
 * `--reporter=json`; refresh the list when the order of these changes. */
const LONGEST = [
  'test/faults.test.ts', // 76 s
  'test/faults-second-half.test.ts', // 59 s
  'test/clients/sweep.test.ts', // about 50 s, most of it in its beforeAll, which the report leaves out
  'test/package.test.ts', // about 50 s: the install from git (npm installs the kit's dev dependencies in its clone and builds it)
  'test/tls/https.test.ts', // 41 s
  'test/clients/hostile.test.ts', // 33 s: eight commands side by side, each waiting on its deadline
  'test/cli/ready.test.ts', // waits on servers getting ready, every command
  'test/clients/cli.test.ts', // 40 s
  'test/cli/cli.test.ts', // 28 s
  'test/docs/commands.test.ts', // 26 s
  'test/cli/waits.test.ts', // 22 s
  'test/browser/dashboard.test.ts', // 19 s
  'test/load/bounded-memory.test.ts', // 19 s
  'test/fuzz/fuzz.test.ts', // 18 s
  'test/browser/clients.test.ts', // 15 s
  'test/mock/record.test.ts', // 14 s
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
