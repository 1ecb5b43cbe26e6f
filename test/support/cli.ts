// The built command and a shell, as a user runs them: exit code, standard output, standard error.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { within } from './machine.js';

export const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));

/** The command run to its end, or killed as hung after `timeoutMs`: its exit code is then null (the
 * code it exits with on the kill's SIGTERM would pass for its own). `env` goes over the test's own
 * environment, and a variable given as undefined is unset. `bin`: another copy of the command. */
export function cli(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = within(60_000), bin = BIN): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err?.killed) resolve({ code: null, stdout, stderr: `${stderr}\n(killed: not ended after ${timeoutMs} ms)` });
      else resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A command line pasted into a shell (sh -c), with these variables set (or, undefined, unset). */
export const sh = (command: string, env: Record<string, string | undefined>) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile('sh', ['-c', command], { env: { ...process.env, ...env }, timeout: within(10_000) }, (err, stdout) => resolve({ code: err ? 1 : 0, stdout })),
  );
