// The built command and a shell, as a user runs them: exit code, standard output, standard error.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { within } from './machine.js';

export const BIN = fileURLToPath(new URL('../../dist/bin/conformance.js', import.meta.url));

export function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, timeout: within(60_000) }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A command line pasted into a shell (sh -c), with these variables set. */
export const sh = (command: string, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile('sh', ['-c', command], { env: { ...process.env, ...env }, timeout: 10_000 }, (err, stdout) => resolve({ code: err ? 1 : 0, stdout })),
  );
