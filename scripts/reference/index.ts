// The reference pages generated from the code, by file: `npm run docs` writes them, and
// test/docs/reference.test.ts fails when one on disk differs from what the code gives.
import { checksPage } from './checks.js';
import { cliPage } from './cli.js';
import { faultsPage } from './faults.js';

export const REFERENCE: Readonly<Record<string, () => string>> = {
  'docs/reference/checks.md': checksPage,
  'docs/reference/faults.md': faultsPage,
  'docs/reference/cli.md': cliPage,
};
