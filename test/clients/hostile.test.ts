// `conformance clients` against servers that break what a client library reads (issue 41): a 429 that
// asks to wait a day, an endless stream, headers then silence, a million one-character deltas, a gzip
// bomb, a 50 MB answer, a redirect to another port. Every client installed runs (the browser where
// Chromium is), as a user runs the command: the process ends by itself, every report is written, its
// memory stays bounded, and no secret reaches another origin.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientHostileServer, type ClientHostileKind } from '../../bench/hostile-servers.js';
import type { RunReport } from '../../report/report.js';
import { validator } from '../../schemas/index.js';
import { BIN } from '../support/cli.js';
import { within } from '../support/machine.js';
import { KEY } from '../support/run.js';

const KINDS: ClientHostileKind[] = ['retry-after-day', 'retry-after-date', 'endless-stream', 'headers-then-silence', 'million-deltas', 'gzip-bomb', 'fifty-megabytes', 'redirect'];
/** A --header value the redirect must not carry elsewhere. */
const SECRET = 'x-conformance-secret: hdr-secret-0123456789abcdef';
// The servers never answer whole (or ask to wait a day): the deadline ends every run.
const DEADLINE_MS = 8_000;
/** Past its deadline, the command is waited for this long before it counts as hung: a guard, not a
 * speed (the servers never end some answers, so a command whose limits do not hold never ends). */
const GUARD_MS = 30_000;
/** The most memory the kit's processes may hold together, whatever the server sends (docs/bounded-input.md);
 * the browser's is Chromium's own, said beside it. */
const PEAK_MB = 600;
const dir = mkdtempSync(join(tmpdir(), 'hostile-clients-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The resident memory, in MB, of a process and of every process it started, now, split into the
 * kit's own (node: the command, each client's process) and the browser's (Chromium, whose network
 * stack reads the target itself: --max-body is not its bound); 0 without /proc. */
function treeRss(pid: number, into = { kit: 0, browser: 0 }): { kit: number; browser: number } {
  // A process, or a thread of it, may end as it is read: it counts for nothing more.
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const mb = Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
  if (read(`/proc/${pid}/comm`).trim() === 'node') into.kit += mb;
  else into.browser += mb;
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    // ended
  }
  for (const task of tasks) for (const child of read(`/proc/${pid}/task/${task}/children`).split(' ').filter(Boolean)) treeRss(Number(child), into);
  return into;
}

describe.concurrent.each(KINDS)('conformance clients against a server of kind %s', (kind) => {
  it('ends by itself with every report written, its memory bounded, no secret elsewhere', { timeout: DEADLINE_MS + within(GUARD_MS) + 10_000 }, async () => {
    const server = await clientHostileServer(kind, [KEY, SECRET.split(': ')[1]]);
    const json = join(dir, `${kind}.json`);
    const html = join(dir, `${kind}.html`);
    try {
      const child = spawn(
        process.execPath,
        [
          BIN,
          'clients',
          '--base-url',
          server.url,
          '--api-key',
          KEY,
          '--header',
          SECRET,
          '--model',
          'mock-chat-1',
          '--timeout',
          '2000',
          '--deadline',
          String(DEADLINE_MS),
          '--reporter',
          `json=${json}`,
          '--reporter',
          `html=${html}`,
        ],
        { env: { ...process.env, NO_COLOR: '1' } },
      );
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b));
      child.stdout.resume();
      let peak = 0;
      let browser = 0;
      const sample = setInterval(() => {
        const now = treeRss(child.pid!);
        peak = Math.max(peak, now.kit);
        browser = Math.max(browser, now.browser);
      }, 100);
      const guard = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS + within(GUARD_MS));
      const started = performance.now();
      const [code, signal] = (await new Promise((resolve) => child.once('exit', (c, s) => resolve([c, s])))) as [number | null, NodeJS.Signals | null];
      const ms = Math.round(performance.now() - started);
      clearInterval(sample);
      clearTimeout(guard);
      expect(signal, `killed: it did not end by itself within its deadline and ${GUARD_MS} ms; ${stderr.slice(-2000)}`).toBeNull();
      expect(stderr).not.toMatch(/\n\s+at /);
      expect([0, 1], stderr).toContain(code);
      const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
      expect(validator('report')(report).errors).toEqual([]);
      expect(report.exitCode).toBe(code);
      expect(existsSync(html)).toBe(true);
      expect(report.clients?.flows.length).toBeGreaterThan(0);
      if (peak) expect(peak, `peak RSS of the kit's processes ${Math.round(peak)} MB`).toBeLessThan(PEAK_MB);
      expect(server.elsewhere().withSecret, 'requests that carried a secret to another origin').toBe(0);
      // The figures of docs/bounded-input.md, said where the suite runs.
      console.log(
        `clients against ${kind}: exit ${code} after ${ms} ms (--deadline ${DEADLINE_MS}), peak RSS of the kit's processes ${Math.round(peak)} MB, of the browser's ${Math.round(browser)} MB (not the kit's bound: Chromium reads the target itself)`,
      );
    } finally {
      await server.close();
    }
  });
});
