import { defineConfig } from 'vitest/config';
import { machineSlowdown } from './test/support/machine.js';
import { LongestFirst } from './test/support/sequencer.js';

/** The longest a test may take: four times the longest on the quiet 2-core machine (30 s), and as
 * much more as the machine is slower as the suite starts (test/support/machine.ts). Only a hang
 * reaches it: the machine can grow busier after that measure (a suite started quiet, then eight
 * busy processes), and a hung test still ends. */
const LIMIT_MS = Math.round(120_000 * machineSlowdown());

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Says which tests this machine cannot run, and why, before they are skipped.
    globalSetup: ['test/support/skips.ts'],
    // Vitest takes one worker fewer than the cores (one, on CI's two): most of these tests wait on
    // servers, timers and child processes, so three files at once keep both cores busy (on the quiet
    // 2-core machine, 249 s against 290 to 310 s with two; docs/development.md).
    maxWorkers: 3,
    // Each file in a fresh module graph cost two fifths of the suite's CPU (every file loads the
    // kit, the mock and their schemas anew: 9 min of CPU against 5.4 without). So a worker keeps its
    // modules from file to file, and a test file leaves no global behind: spies restored, interceptors
    // disposed, servers closed.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    testTimeout: LIMIT_MS,
    hookTimeout: LIMIT_MS,
  },
});
