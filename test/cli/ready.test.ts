// Ready before judged (suites/ready.ts), on every command that judges a server, newest first: a
// server that answers 503 "Loading model" for its first requests (the mock's `loading` fault, as
// llama.cpp does while its model loads) is waited for, said so on standard error, and then judged
// whole, with nothing flaky or unjudged for its slow start; one that never gets ready ends with exit 2
// and one line naming what it answered and --wait, within the --wait the test gives, though each of
// its answers asks for a Retry-After of a day; Ctrl-C stops the wait as it stops a run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import type { RunReport } from '../../report/report.js';
import { BIN, cli } from '../support/cli.js';
import { KEY, passing, SECOND_KEY } from '../support/run.js';

const dir = mkdtempSync(join(tmpdir(), 'conformance-ready-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each command, at its smallest whole run against the mock. */
const COMMANDS: Record<string, string[]> = {
  clients: ['clients', '--client', 'openai', '--flow', 'completion'],
  load: ['load', '--concurrency', '1', '--requests', '4'],
  fuzz: ['fuzz', '--seed', '1', '--runs', '20'],
  run: ['run', '--second-api-key', SECOND_KEY],
};

/** A mock whose model loads: its first three answers are 503 "Loading model" (times, not a time:
 * how long a busy machine takes to ask them does not move what the test sees). */
const LOADING = 'loading; times=3; retry_after_ms=50';
/** A model that never loads, each 503 asking for a Retry-After of a day. */
const NEVER = 'loading; ms=1e15; retry_after_ms=86400000';

async function against(fault: string, args: string[]) {
  const server = await startMockServer({ mock: createMock(undefined, { faults: [fault] }) });
  const file = join(dir, `${args[0]}-${fault.split(';')[1].trim()}.json`);
  try {
    const r = await cli([...args, '--base-url', server.url, '--api-key', KEY, '--reporter', `json=${file}`]);
    return { ...r, file, lines: r.stderr.trim().split('\n'), url: server.url };
  } finally {
    await server.close();
  }
}

describe.concurrent.each(Object.keys(COMMANDS))('%s', (command) => {
  it('waits for a server whose model loads, says so, then judges it whole', async () => {
    const r = await against(LOADING, COMMANDS[command]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.lines).toContain(`conformance: ${r.url} is not ready: GET /v1/models answered 503 application/json ("Loading model"); waiting up to 60 s (--wait)`);
    expect(r.lines).toContainEqual(expect.stringMatching(new RegExp(`^conformance: ${r.url} is ready after \\d+(\\.\\d)? s$`)));
    const report = JSON.parse(readFileSync(r.file, 'utf8')) as RunReport;
    // Its slow start left nothing flaky, not served or not tested: every check was judged.
    expect(report.results.filter((x) => !passing(x)).map((x) => `${x.id}: ${x.outcome}: ${x.message}`)).toEqual([]);
    expect(report.exitCode).toBe(0);
  });

  it('ends with exit 2 and one line naming what the server answered and --wait, when it is never ready', async () => {
    const r = await against(NEVER, [...COMMANDS[command], '--wait', '1s']);
    // Ended by --wait, not by the day the server asked for: the command would have been killed as hung.
    expect(r.code, r.stderr).toBe(2);
    const said = r.lines.filter((l) => !l.includes('fuzz seed'));
    expect(said).toEqual([
      `conformance: ${r.url} is not ready: GET /v1/models answered 503 application/json ("Loading model"); waiting up to 1 s (--wait)`,
      `conformance: ${r.url} is not ready after 1 s: GET /v1/models answered 503 application/json ("Loading model"); give it longer with --wait (1 s now), e.g. --wait 2m`,
    ]);
    expect(existsSync(r.file)).toBe(false);
  });
});

describe('Ctrl-C while the kit waits for a server to be ready', () => {
  it('stops the wait as it stops a run: the report of what finished (nothing), exit 130', async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: [NEVER] }) });
    const file = join(dir, 'interrupted.json');
    const child = spawn(process.execPath, [BIN, 'run', '--base-url', server.url, '--api-key', KEY, '--wait', '10m', '--reporter', `json=${file}`], { env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // However the test ends (a hang meets its timeout), nothing is left waiting.
    onTestFinished(() => {
      child.kill('SIGKILL');
      return server.close();
    });
    while (!stderr.includes('is not ready') && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
    expect(report.stopped).toBe('interrupted (SIGINT)');
    expect(report.results.every((r) => r.outcome === 'not-tested' || r.outcome === 'skip')).toBe(true);
  });
});

describe('--wait', () => {
  it('0 does not wait: the run judges the server as it answers', async () => {
    const r = await against(LOADING, ['run', '--suite', 'models', '--wait', '0']);
    expect(r.stderr).not.toContain('is not ready');
    const report = JSON.parse(readFileSync(r.file, 'utf8')) as RunReport;
    expect(report.results.some((x) => x.outcome !== 'pass')).toBe(true);
  });

  it('takes a duration, and names itself when given something else', async () => {
    const r = await cli(['run', '--base-url', 'http://127.0.0.1:9', '--api-key', KEY, '--wait', 'soon']);
    expect([r.code, r.stderr.trim()]).toEqual([2, "conformance: --wait takes the longest wait for a server getting ready, 0 for none (30s, 500ms, 2m), got 'soon'"]);
  });
});
