// The command line as a user and a CI pipeline see it: exit codes, reporters, redaction.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { CHECKS } from '../../suites/index.js';
import { validator } from '../../schemas/index.js';
import { REPORT_FORMAT_VERSION } from '../../report/report.js';
import { KEY, SECOND_KEY } from '../support/run.js';
import { BIN, cli } from '../support/cli.js';
import { proofSentence } from '../../bin/proof.js';

describe('conformance CLI', () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMockServer();
  });
  afterAll(() => server.close());

  // One run against the embedded mock serves both tests below (a whole run is a second of CPU).
  const shared = mkdtempSync(join(tmpdir(), 'conformance-'));
  let embeddedRun: ReturnType<typeof cli> | undefined;
  const embedded = () => (embeddedRun ??= cli(['run', '--reporter', 'pretty', '--reporter', `json=${join(shared, 'a.json')}`]));

  it('runs every suite against the embedded mock and exits 0', async () => {
    const r = await embedded();
    // One line on standard error, what to do next.
    expect(r.stderr).toBe('conformance: the embedded mock passed; to test your server: conformance run --base-url URL --api-key KEY\n');
    expect(r.stdout).toMatch(/PASSED/);
    expect(r.code).toBe(0);
  });

  it('gives the same verdicts against a separately started mock, and never prints a key', async () => {
    const external = await cli([
      'run',
      '--base-url',
      server.url,
      '--api-key',
      KEY,
      '--second-api-key',
      SECOND_KEY,
      '--strict',
      '--reporter',
      'pretty',
      '--reporter',
      `json=${join(shared, 'b.json')}`,
      '--reporter',
      `junit=${join(shared, 'b.xml')}`,
    ]);
    expect(external.code).toBe(0);
    const verdicts = (file: string) => {
      const report = JSON.parse(readFileSync(join(shared, file), 'utf8'));
      // Every report the kit writes is valid against its published schema.
      expect(validator('report')(report).errors, file).toEqual([]);
      return (report as { results: { id: string; outcome: string }[] }).results.map((x) => `${x.id}=${x.outcome}`);
    };
    expect((await embedded()).code).toBe(0);
    expect(verdicts('b.json')).toEqual(verdicts('a.json'));
    for (const text of [external.stdout, external.stderr, readFileSync(join(shared, 'b.json'), 'utf8'), readFileSync(join(shared, 'b.xml'), 'utf8')]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(SECOND_KEY);
    }
  });

  it('exits 1 when a must fails and reports the failure', async () => {
    const faulty = await startMockServer({ mock: createMock(undefined, { faults: ['models-owned-by-missing'] }) });
    try {
      const r = await cli(['run', '--base-url', faulty.url, '--api-key', KEY, '--suite', 'models']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/models\.list-shape/);
    } finally {
      await faulty.close();
    }
  });

  it('stops at once, exit 2, when the server refuses the key on every request', async () => {
    const r = await cli(['run', '--base-url', server.url, '--api-key', 'sk-wrong-key-for-this-test-000000']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/refused the key on every request .*: check --api-key/);
    expect(r.stderr + r.stdout).not.toContain('sk-wrong-key-for-this-test-000000');
  });

  it('finds problems with the run itself before the first request: exit 2, one line', async () => {
    const mock = createMock();
    const watched = await startMockServer({ mock });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
      writeFileSync(join(dir, 'a-file'), '');
      for (const args of [
        ['--reporter', 'junit='],
        ['--reporter', `junit=${join(dir, 'a-file', 'junit.xml')}`],
        ['--reporter', `json=${dir}`],
        ['--header', 'no colon here'],
      ]) {
        const r = await cli(['run', '--base-url', watched.url, '--api-key', KEY, ...args]);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
      expect(mock.journal.list()).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  /** A hostile mock (by default one that drips its answers, a byte a second) for the test `fn`, and a
   * folder for reports. */
  async function dripping(fn: (url: string, dir: string, drip: MockServer) => Promise<void>, fault = 'hostile-drip'): Promise<void> {
    const drip = await startMockServer({ mock: createMock(undefined, { faults: [fault] }) });
    try {
      await fn(drip.url, mkdtempSync(join(tmpdir(), 'conformance-')), drip);
    } finally {
      await drip.close();
    }
  }

  // Side by side: each waits out its deadline. A request waits half a minute or more before its own
  // limits end it (--timeout's defaults), so a run its deadline does not end outlasts the test's timeout.
  it.concurrent.each(['hostile-drip', 'hostile-stream-forever', 'hostile-headers-then-nothing'])('ends a run against %s at the run deadline, with a report of what finished', (fault) =>
    dripping(async (url, dir) => {
      // Servers that never answer whole.
      const r = await cli(['run', '--base-url', url, '--api-key', KEY, '--deadline', '3000', '--reporter', `json=${join(dir, 'r.json')}`]);
      expect(existsSync(join(dir, 'r.json')), `no report: exit ${r.code}, ${r.stderr.slice(-2000)}`).toBe(true);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
      expect(validator('report')(report).errors).toEqual([]);
      expect(report.stopped).toBe("the run's deadline passed (--deadline 3000 ms)");
      expect(report.results.some((x: { message?: string }) => x.message?.includes("the run's deadline passed"))).toBe(true);
      expect([0, 1]).toContain(r.code);
    }, fault),
  );

  it('on Ctrl-C writes the report of what finished and exits 130', () =>
    dripping(async (url, dir, drip) => {
      const child = spawn(process.execPath, [BIN, 'run', '--base-url', url, '--api-key', KEY, '--reporter', `json=${join(dir, 'r.json')}`], { env: { ...process.env, NO_COLOR: '1' } });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      // Under way (its first request in, so its handler set, however slowly a loaded machine starts
      // it), and a while into its run.
      while (!drip.mock.journal.list().length) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 1000));
      child.kill('SIGINT');
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      expect(code).toBe(130);
      expect(stderr).toMatch(/SIGINT: writing the report/);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
      expect(validator('report')(report).errors).toEqual([]);
      expect(report.stopped).toBe('interrupted (SIGINT)');
      expect(report.results.every((x: { outcome: string; message?: string }) => x.outcome !== 'fail' || !x.message?.includes('interrupted'))).toBe(true);
    }));

  it('exits 2 with a one-line reason for usage errors and unreachable servers', async () => {
    const unknown = await cli(['run', '--suite', 'no-such-suite']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    // Nothing listens at port 9.
    const unreachable = await cli(['run', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--timeout', '2000']);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/cannot reach/);
    expect(unreachable.stderr).not.toMatch(/\n\s+at /);
    const badFlag = await cli(['run', '--timeout', 'soon']);
    expect(badFlag.code).toBe(2);
    const badReporter = await cli(['run', '--reporter', 'xml']);
    expect(badReporter.code).toBe(2);
  });

  it('appends the markdown summary to $GITHUB_STEP_SUMMARY when set, beside a reporter on standard output', async () => {
    const summary = join(mkdtempSync(join(tmpdir(), 'conformance-')), 'summary.md');
    writeFileSync(summary, 'an earlier step\n');
    const r = await cli(['run', '--base-url', server.url, '--api-key', KEY, '--suite', 'models', '--reporter', 'markdown', '--reporter', 'github'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(/^an earlier step\n## ✅ chat-api-conformance: PASSED \(exit code 0\)/);
    expect(r.stdout).toMatch(/^::notice title=chat-api-conformance%3A passed::/m);
  });

  it('diff: a check that newly fails is a regression (exit 1); the other way round, newly passing (exit 0)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    const faulty = await startMockServer({ mock: createMock(undefined, { faults: ['chat-max-tokens-ignored-streamed'] }) });
    try {
      await cli(['run', '--base-url', server.url, '--api-key', KEY, '--suite', 'chat', '--reporter', `json=${join(dir, 'main.json')}`]);
      await cli(['run', '--base-url', faulty.url, '--api-key', KEY, '--suite', 'chat', '--reporter', `json=${join(dir, 'branch.json')}`]);
    } finally {
      await faulty.close();
    }
    const worse = await cli(['diff', join(dir, 'main.json'), join(dir, 'branch.json')]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/^Newly failing \(1\)\n {2}chat\.max-tokens \[must\]: pass -> fail: \[stream, mock-chat-1, essay\]/);
    expect(worse.stdout).toMatch(/REGRESSION: 1 check\(s\) newly failing\n$/);
    const better = await cli(['diff', join(dir, 'branch.json'), join(dir, 'main.json'), '--json']);
    expect(better.code).toBe(0);
    expect(JSON.parse(better.stdout)).toMatchObject({ regression: false, newlyPassing: [{ id: 'chat.max-tokens', what: 'fail -> pass' }] });
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ formatVersion: 1, results: [] }));
    const old = await cli(['diff', join(dir, 'old.json'), join(dir, 'main.json')]);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain(`old.json: formatVersion 1; this conformance reads ${REPORT_FORMAT_VERSION}`);
  });

  it('takes keys from the environment', async () => {
    const r = await cli(['run', '--base-url', server.url, '--suite', 'models'], { CONFORMANCE_API_KEY: KEY });
    expect(r.code).toBe(0);
  });

  it('`npx conformance` in this repository runs our bin, offline, never the registry package of that name', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const r = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile('npx', ['--offline', 'conformance', 'list', '--json'], { cwd: root, env: { ...process.env, npm_config_yes: 'false' }, timeout: 60_000 }, (err, stdout) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }),
      ),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).checks.length).toBe(CHECKS.length);
  });

  it('lists every check with id, section and level, and what cannot be tested; the proof figure as the reference states it', async () => {
    const r = await cli(['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nmodels \(5 checks: 3 must, 2 should\)\n {2}models\.list-shape\s+2\.4\s+must/);
    expect(r.stdout).toMatch(/5\.4/);
    // The fault count of list is the one the docs give.
    expect(r.stdout).toContain(`\n${proofSentence()} `);
    expect(readFileSync(new URL('../../docs/reference/checks.md', import.meta.url), 'utf8')).toContain(`**${proofSentence()}**`);
  });
});
