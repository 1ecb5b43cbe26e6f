// `npm run docs`: writes the reference pages generated from the code (docs/reference/), and says which
// changed. Run it after adding a check, a fault or an option.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE } from './reference/index.js';

// dist/scripts/docs.js, two folders below the repository's root.
const root = fileURLToPath(new URL('../..', import.meta.url));
for (const [file, page] of Object.entries(REFERENCE)) {
  const at = join(root, file);
  const text = page();
  const changed = !existsSync(at) || readFileSync(at, 'utf8') !== text;
  if (changed) {
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, text);
  }
  process.stdout.write(`${file}: ${changed ? 'written' : 'unchanged'}\n`);
}
