#!/usr/bin/env node
// The command line's entry: loads the built command line (dist/bin/cli.cjs, one file:
// scripts/bundle-bin.ts) with V8's code cache, so that a command does not compile it anew each time
// it starts. The cache is this user's (XDG_CACHE_HOME, else ~/.cache), one file per build of the
// command line, place and version of Node; V8 refuses one made for another source or another V8, and the
// command then compiles as without one and writes a new one as it exits. A cache that cannot be read
// or written is no cache: the command runs the same (CONFORMANCE_NO_CODE_CACHE=1 turns it off).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** Caches kept: one per copy of the command line and version of Node that ran lately. */
const KEPT = 4;
const file = fileURLToPath(new URL('./cli.cjs', import.meta.url));
const bytes = readFileSync(file);

/** This copy's cache: named by a digest of the file, since V8 checks only a source's length, and of
 * where it is: the functions of a cache keep the file name they were compiled under, so two projects
 * with the same version installed would show each other's path in a stack trace. */
function cacheFile(): string | undefined {
  if (process.env.CONFORMANCE_NO_CODE_CACHE) return undefined;
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'chat-api-conformance');
  return join(dir, `cli-${process.version}-${process.arch}-${createHash('sha1').update(file).update('\0').update(bytes).digest('hex')}.cache`);
}

/** This command's name (`run`, `__client`), or '' for the options alone (`--version`, `--help`). */
const command = /^[a-z_][a-z-]{0,39}$/.test(process.argv[2] ?? '') ? process.argv[2] : '';

const cache = cacheFile();
// The file: the names of the commands whose code it holds, a NUL, then V8's data. A cache holds what
// the commands that made it compiled: one made by `--version` left a run to compile most of its own
// code anew every time (0.2 s of CPU more a run, against a cache a run made).
let cachedData: Buffer | undefined;
let holds: string[] = [];
try {
  const held = cache ? readFileSync(cache) : undefined;
  const end = held?.indexOf(0) ?? -1;
  if (held && end >= 0) {
    holds = held.subarray(0, end).toString('latin1').split(',');
    cachedData = held.subarray(end + 1);
  }
} catch {
  // none yet
}

// A CommonJS module's scope, and the ES module's `import.meta.resolve`: a client package's version
// is looked up where an import from here finds it (clients/load.ts, scripts/bundle-bin.ts).
const script = new Script(`(function (exports, require, module, __filename, __dirname, __importMetaResolve) {${bytes.toString('utf8')}\n})`, { filename: file, cachedData });
if (cachedData === undefined || script.cachedDataRejected) holds = [];

if (cache && !(cachedData && holds.includes(command))) {
  // Made as the command exits, with what it compiled by then (the code the cache gave it included):
  // a command of a kind the cache does not hold adds its own, once; written whole or not at all.
  process.once('exit', () => {
    const dir = dirname(cache);
    const partial = `${cache}.${process.pid}`;
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(partial, Buffer.concat([Buffer.from(`${[...holds, command].join(',')}\0`, 'latin1'), script.createCachedData()]));
      renameSync(partial, cache);
      // The builds before this one are not run again, as a rule: the newest few are kept.
      const older = readdirSync(dir)
        .filter((f) => f.startsWith('cli-') && f.endsWith('.cache'))
        .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
        .sort((a, b) => b.at - a.at)
        .slice(KEPT);
      for (const { f } of older) rmSync(join(dir, f), { force: true });
    } catch {
      // Not writable (or full): the next command compiles again, and no part of a file stays.
      try {
        rmSync(partial, { force: true });
      } catch {
        // no folder to hold it: nothing was written
      }
    }
  });
}

const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), import.meta.resolve);
