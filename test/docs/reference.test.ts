// The reference pages (docs/reference/) are what the code gives today, as a snapshot would be: a check,
// a fault or an option added without `npm run docs` fails here, saying so.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REFERENCE } from '../../scripts/reference/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the generated reference', () => {
  it.each(Object.entries(REFERENCE))('%s is current', (file, page) => {
    let onDisk = '';
    try {
      onDisk = readFileSync(`${root}${file}`, 'utf8');
    } catch {
      // Missing: the same message as stale.
    }
    expect(onDisk, `${file} is stale: run \`npm run docs\` and commit it`).toBe(page());
  });
});
