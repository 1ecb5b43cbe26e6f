// Writes dist/schemas/validators.cjs, the document's validators compiled ahead (schemas/precompiled.ts
// says why). Which validators: every one a module of the kit asks for as it loads, so the script
// loads every built module but the entry points that run a command, then has ajv write the code of
// those validators. A validator that a module asks for later is compiled when first used, as before.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { madeOf } from '../schemas/index.js';
import { PRECOMPILED_FILE, precompiledSource } from '../schemas/precompiled.js';

const DIST = fileURLToPath(new URL('..', import.meta.url));
/** Not loaded: they run a command when loaded, measure, or run in a browser. */
const SKIPPED = ['bin/conformance.js', 'bin/cli.js', 'bin/action.js', 'bench', 'scripts', 'test', 'examples', 'mock/dashboard/page'];

const modules = (dir: string): string[] =>
  readdirSync(join(DIST, dir), { withFileTypes: true }).flatMap((e) => {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (SKIPPED.includes(path)) return [];
    return e.isDirectory() ? modules(path) : path.endsWith('.js') ? [path] : [];
  });

for (const path of modules('')) await import(pathToFileURL(join(DIST, path)).href);
writeFileSync(PRECOMPILED_FILE, await precompiledSource(madeOf()));
// Some modules keep handles open (a timer, a pool) once loaded: the script is done.
process.exit(0);
