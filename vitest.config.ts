import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Says which tests this machine cannot run, and why, before they are skipped.
    globalSetup: ['test/support/skips.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
