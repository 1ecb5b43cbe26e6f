// A folder made where the user names one (a report's, the recordings'). Node's recursive mkdir loops
// forever, at full CPU, where the kernel answers ENOENT for a folder it will never make (under /proc:
// `--reporter json=/proc/x/r.json` hung the command): the missing folders are made one at a time, and
// the first that cannot be made is the error.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeFolder(dir: string): void {
  const missing: string[] = [];
  let d = resolve(dir);
  for (; !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  // `d` exists: the loop stopped at it, or at the root.
  if (!statSync(d).isDirectory()) throw new Error(`${d} is a file, not a folder`);
  for (const m of missing) mkdirSync(m);
}
