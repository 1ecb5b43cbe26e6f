// `conformance mock ...` as a child process, as a user runs it: its URL once it listens, its memory
// as the kernel counts it, and how long one signal takes to end it. The child binds 127.0.0.1 on a
// free port (--port 0) and is killed when the test is done with it, whatever happened.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { BIN } from './cli.js';

export interface MockProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** What it wrote to standard error so far. */
  stderr(): string;
  /** Its resident memory now, and its peak since it started (bytes); undefined without /proc. */
  memory(): { rss: number; peak: number } | undefined;
  /** Sends `signal` and waits for the exit: the milliseconds it took, and how it ended. Still
   * running after 5 s, it is killed (SIGKILL), and says so. */
  signal(signal: NodeJS.Signals): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }>;
  /** Killed (SIGKILL) if still running. */
  stop(): void;
}

/** `conformance mock ARGS --port 0`, once it has said where it listens. */
export function startMockProcess(args: string[], env: Record<string, string> = {}): Promise<MockProcess> {
  const child = spawn(process.execPath, [BIN, 'mock', ...args, '--port', '0'], { env: { ...process.env, NO_COLOR: '1', ...env } });
  let out = '';
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b;
      const url = / on (https?:\/\/\S+)/.exec(out)?.[1];
      if (url)
        resolve({
          url,
          child,
          stderr: () => err,
          memory: () => memoryOf(child.pid!),
          signal: async (signal) => {
            const t0 = performance.now();
            child.kill(signal);
            const late = setTimeout(() => child.kill('SIGKILL'), 5_000);
            const how = await exited;
            clearTimeout(late);
            return { ms: performance.now() - t0, ...how };
          },
          stop: () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          },
        });
    });
    void exited.then(({ code }) => reject(new Error(`conformance mock exited (${code}) before it listened: ${err.slice(0, 500)}`)));
  });
}

/** VmRSS and VmHWM (the kernel's high-water mark) of a process, from /proc (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  const file = `/proc/${pid}/status`;
  if (!existsSync(file)) return undefined;
  const status = readFileSync(file, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
