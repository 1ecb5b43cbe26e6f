// Every command ends, whatever the server does not send: run, fuzz and load against a server that
// drips 1xx answers and never a final one, one that sends headers and then silence, and one that
// never reads what it accepted, each end (by their requests' limits or their --deadline, which their
// report then names), write their report and exit with its code. And Ctrl-C stops a load whose
// requests are waiting: the first writes the report of what finished and exits 130; so does a
// second, sent once the first is taken.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stallingServer, type StallKind } from '../../bench/hostile-servers.js';
import type { RunReport } from '../../report/report.js';
import { validator } from '../../schemas/index.js';
import { BIN, cli } from '../support/cli.js';
import { KEY } from '../support/run.js';
import { within } from '../support/machine.js';

// Against servers that never answer: any limit cuts them.
const TIMEOUT_MS = 1_500;
/** Each command's --deadline. A fuzz session sends nothing once the deadline is near (a request's
 * timeout before it): 6 s left a command that a busy machine was slow to start no request to send.
 * Fixed, not scaled: the commands wait it out, and the machine measured as a file starts is the
 * suite's own busiest moment (it made 6 s into 48). */
const DEADLINES_MS: Record<string, number> = { run: 6_000, fuzz: 10_000, load: 6_000 };
/** How long past its deadline a command is waited for before it counts as hung: a guard, not a speed
 * (the servers never answer, so a command whose deadline does not hold never ends). */
const MARGIN_MS = 35_000;
const dir = mkdtempSync(join(tmpdir(), 'waits-'));

const KINDS: StallKind[] = ['early-hints', 'headers-then-silence', 'never-answers'];
const COMMANDS = {
  run: [],
  fuzz: ['--seed', '1', '--runs', '20'],
  // The model is named: a server that never answers lists none.
  load: ['--concurrency', '2', '--model', 'stalling-1'],
} as const;
const CASES = KINDS.flatMap((kind) => Object.entries(COMMANDS).map(([command, extra]) => ({ kind, command, extra })));

// Each waits on its limits most of the time: side by side, they take about as long as one.
describe.concurrent.each(CASES)('$command against a server of kind $kind', ({ kind, command, extra }) => {
  const DEADLINE_MS = DEADLINES_MS[command];
  it("ends, by its requests' limits or its deadline, writes its report and exits with its code", { timeout: DEADLINE_MS + within(MARGIN_MS) }, async () => {
    const server = await stallingServer(kind, { everyMs: 200 });
    const file = join(dir, `${command}-${kind}.json`);
    try {
      const r = await cli([command, '--base-url', server.url, '--api-key', KEY, '--timeout', String(TIMEOUT_MS), '--deadline', String(DEADLINE_MS), '--reporter', `json=${file}`, ...extra]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
      expect(validator('report')(report).errors).toEqual([]);
      // Its requests' own limits end them, or its deadline ends the run, which the report then says:
      // nothing else stops it (a busy machine takes longer to start, and which comes first moves).
      expect([undefined, `the run's deadline passed (--deadline ${DEADLINE_MS} ms)`]).toContain(report.stopped);
      expect([0, 1]).toContain(r.code);
      expect(r.code, r.stderr).toBe(report.exitCode);
      if (command === 'load') expect(report.load).toBeDefined();
      expect(server.stalled()).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

/** `conformance load` against a server that sends 103 every second and never an answer, with limits
 * far past the test's: only Ctrl-C can end it in time. Resolves once a request of the sweep waits. */
async function waitingLoad(file: string) {
  const server = await stallingServer('early-hints', { everyMs: 1_000 });
  // --max-tokens: a mix of its own, worked out with no request, so the first chat request is the load's.
  const child = spawn(process.execPath, [BIN, 'load', '--base-url', server.url, '--api-key', KEY, '--max-tokens', '16', '--timeout', '120000', '--deadline', '600000', '--reporter', `json=${file}`], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  // However the test ends (a hang meets its timeout), no load is left waiting.
  onTestFinished(() => {
    child.kill('SIGKILL');
    return server.close();
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  while (server.stalled() < 1 && running()) await new Promise((r) => setTimeout(r, 50));
  return { child, exited, running, stderr: () => stderr };
}

describe('Ctrl-C during a load whose requests wait for an answer', () => {
  it('the first writes the report of what finished and exits 130', async () => {
    const file = join(dir, 'interrupted.json');
    const load = await waitingLoad(file);
    load.child.kill('SIGINT');
    expect(await load.exited).toBe(130);
    expect(load.stderr()).toMatch(/SIGINT: writing the report of what finished/);
    const report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
    expect(validator('report')(report).errors).toEqual([]);
    expect(report.stopped).toBe('interrupted (SIGINT)');
    // The request cut short is not judged: it is no timeout and no failure of the server.
    expect(report.load!.steps[0]).toMatchObject({ label: 'alone', requests: 0, timedOut: 0, failed: 0 });
  });

  it('a second, sent once the first is taken, exits 130 too', async () => {
    const load = await waitingLoad(join(dir, 'twice.json'));
    load.child.kill('SIGINT');
    // Two sent together may reach it as one: the second goes once the first is said to be taken.
    while (!/SIGINT: writing the report/.test(load.stderr()) && load.running()) await new Promise((r) => setTimeout(r, 10));
    load.child.kill('SIGINT');
    expect(await load.exited).toBe(130);
  });
});
