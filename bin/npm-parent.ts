// A command started by npm (`npx conformance mock &`, `npm run mock`) is not npm's child but its
// grandchild: npm runs it in a shell (`sh -c 'conformance' mock ...`), and a signal npm gets (the
// `kill $!` of a script, which names npm's process) npm passes on to that shell only. The shell dies,
// npm exits after it, and the command, never signalled, would stay on, orphaned, a mock holding its
// port. So when the parent npm gave this process goes, the command takes it as the SIGTERM it was
// meant to get: a mock closes its port, a run writes the report of what finished.
//
// Only the parent npm gave it: a command started under nohup, setsid, systemd or in a container, or
// put in the background by the npm script itself (`"mock": "conformance mock &"`), outlives its
// parent on purpose and is left alone.
import { readFileSync } from 'node:fs';

/** How often the parent is looked at: a system call, ten times a second. */
const EVERY_MS = 100;

/** A script that puts a command in the background, or out of its shell's reach, on purpose. */
const DETACHES = /(?<![&>|])&(?![&>])|\b(nohup|setsid|disown|daemon)\b/;

/** The arguments a process was started with, from /proc (Linux); undefined where there is none. */
function argsOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** Whether this process is the command of an npm script (npm exec, npx, npm run) that npm waits for
 * through its parent: npm's shell running that script, or npm itself. Where the parent cannot be
 * read (no /proc), npm's variables alone say so. */
export function startedByNpm(env: NodeJS.ProcessEnv, parent: string[] | undefined): boolean {
  const script = env.npm_lifecycle_script;
  if (!env.npm_command || script === undefined || DETACHES.test(script)) return false;
  if (!parent) return true;
  const [first = '', flag, line] = parent;
  // npm's own process names itself `npm exec ...` (process.title), or runs as node npm-cli.js.
  if (/^npm\b/.test(first) || parent.some((a) => /npm-cli\.js$/.test(a))) return true;
  return flag === '-c' && /(^|\/)(sh|bash|dash|zsh)$/.test(first) && line?.startsWith(script) === true;
}

/** Watches the parent npm gave this process; when it is gone, `onGone` (once). Nothing where npm did
 * not start it, or where it was already orphaned when it started. */
export function watchNpmParent(onGone: () => void): void {
  const ppid = process.ppid;
  if (ppid <= 1 || !startedByNpm(process.env, argsOf(ppid))) return;
  const timer = setInterval(() => {
    if (process.ppid === ppid) return;
    clearInterval(timer);
    onGone();
  }, EVERY_MS);
  timer.unref();
}
