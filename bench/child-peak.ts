// A command in a child process as a user runs it, and what it cost: its exit, its standard error,
// its wall time and its peak RSS (its own maxRSS as it exits, or the kernel's high-water mark, polled,
// if it dies first). What the hostile benches (bench/hostile-kit.ts, bench/hostile-files.ts) read.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes the child's own peak RSS (KiB) where MAX_RSS_FILE says, as it exits. */
export const MAX_RSS_HOOK = `data:text/javascript,import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.MAX_RSS_FILE,String(process.resourceUsage().maxRSS)))`;

/** The kernel's high-water mark of a live process's RSS, in bytes (0 once it is gone). */
export function vmHwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface ChildRun {
  exitCode: number | null;
  signal: string | null;
  /** Bytes. */
  maxRss: number;
  ms: number;
  /** Its last 4,000 characters. */
  stderr: string;
}

/** `node args…`, killed past `killAfterMs`. */
export async function runChild(args: readonly string[], killAfterMs: number, env: NodeJS.ProcessEnv = {}): Promise<ChildRun> {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-child-'));
  const rssFile = join(dir, 'max-rss');
  const started = performance.now();
  const child = spawn(process.execPath, [`--import=${MAX_RSS_HOOK}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env, MAX_RSS_FILE: rssFile, NO_COLOR: '1' } });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let polled = 0;
  const poll = setInterval(() => (polled = Math.max(polled, vmHwm(child.pid!))), 100);
  const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const [exitCode, signal] = (await once(child, 'exit')) as [number | null, string | null];
  const ms = performance.now() - started;
  clearInterval(poll);
  clearTimeout(kill);
  let maxRss = polled;
  try {
    maxRss = Math.max(maxRss, Number(readFileSync(rssFile, 'utf8')) * 1024);
  } catch {
    // Killed before its exit hook: the last polled high-water mark stands.
  }
  rmSync(dir, { recursive: true, force: true });
  return { exitCode, signal, maxRss, ms, stderr };
}
