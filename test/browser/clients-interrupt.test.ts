// One Ctrl-C while the browser client runs: the browser is the run's to close (Playwright's own
// handlers, which ended the process at once and wrote nothing, are off), so the reports of what
// finished are written, with the exit code the process ends with: 130.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { clientHostileServer } from '../../bench/hostile-servers.js';
import type { RunReport } from '../../report/report.js';
import { BIN } from '../support/cli.js';
import { browserRuns } from '../support/chromium.js';
import { within } from '../support/machine.js';
import { KEY } from '../support/run.js';

describe.skipIf(!browserRuns)('Ctrl-C during conformance clients, the browser client running', () => {
  it('writes every report and exits 130, soon, the JSON report saying 130', { timeout: within(120_000) }, async () => {
    // Every chat request gets its headers and then nothing: the flows wait, the page's among them.
    const server = await clientHostileServer('headers-then-silence');
    const dir = mkdtempSync(join(tmpdir(), 'clients-sigint-'));
    const json = join(dir, 'report.json');
    const html = join(dir, 'report.html');
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'clients', '--base-url', server.url, '--api-key', KEY, '--model', 'mock-chat-1', '--timeout', '60000', '--reporter', `json=${json}`, '--reporter', `html=${html}`],
        {
          env: { ...process.env, NO_COLOR: '1' },
        },
      );
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b));
      child.stdout.resume();
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      // Until the page has sent a request of its own, and so the browser runs.
      for (const end = performance.now() + within(60_000); server.chats().fromPage === 0 && performance.now() < end; ) await sleep(100);
      expect(server.chats().fromPage, `the browser client sent nothing: ${stderr.slice(-1000)}`).toBeGreaterThan(0);
      const sent = performance.now();
      child.kill('SIGINT');
      const guard = setTimeout(() => child.kill('SIGKILL'), within(30_000));
      const { code, signal } = await exited;
      clearTimeout(guard);
      const ms = Math.round(performance.now() - sent);
      expect(signal, stderr.slice(-2000)).toBeNull();
      expect(code, stderr.slice(-2000)).toBe(130);
      expect(JSON.parse(readFileSync(json, 'utf8')) as RunReport).toMatchObject({ exitCode: 130 });
      expect(existsSync(html)).toBe(true);
      // How soon is a figure (docs/bounded-input.md), not a bound a busy machine could miss.
      console.log(`clients, Ctrl-C with the browser running: exit 130 after ${ms} ms`);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
