// chat-api-conformance/vitest as a team uses it: their server (here the mock) started inside their
// tests, held to the document by a test per check and path; and the cases that entry makes fail
// exactly where a run would, with what broke and the command that replays it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { startMockServer } from '../mock/http.js';
import { runSession } from '../suites/session.js';
import { conformanceCases, describeConformance } from '../suites/vitest.js';
import { KEY, SECOND_KEY } from './support/run.js';
import { within } from './support/machine.js';

describeConformance({
  name: 'the mock, held to the document from inside a vitest run',
  suites: ['chat', 'stop'],
  start: async () => {
    const server = await startMockServer();
    return { baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, close: () => server.close() };
  },
});

// A server that is already running when the file is collected: named by its URL and key alone.
const running = await startMockServer();
afterAll(() => running.close());
describeConformance({ name: 'a running mock, named by its URL and key', suites: ['stop'], baseUrl: running.url, apiKey: KEY });

describe('describeConformance', () => {
  it('says both forms when given neither, and what is wrong with the one given', () => {
    expect(() => describeConformance({} as never)).toThrow(/running server, \{ baseUrl: .*, apiKey \}, or one it starts, \{ start: .*; neither was given/);
    expect(() => describeConformance({ baseUrl: 'http://127.0.0.1:1' } as never)).toThrow(/apiKey is missing for http:\/\/127\.0\.0\.1:1/);
    expect(() => describeConformance({ start: 'yes' } as never)).toThrow(/start is string, not a function/);
  });
});

/** Whether a case's assertion holds (does not throw). */
const holds = (c: { assert(): void }) => {
  try {
    c.assert();
    return true;
  } catch {
    return false;
  }
};

describe('conformance cases', () => {
  it('fail on the broken path only, with what broke and how to replay it; a failed should fails only when strict', async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: ['chat-max-tokens-ignored-streamed', 'chat-model-other'] }) });
    try {
      const report = await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, suites: ['chat'] });
      const cases = conformanceCases(report.results);
      const cap = cases.filter((c) => c.check === 'chat.max-tokens');
      expect(cap.map((c) => c.path)).toEqual([
        'json, mock-chat-1, essay',
        'json, mock-chat-1, tool call',
        'json, mock-reason-1, essay',
        'json, mock-reason-1, tool call',
        'stream, mock-chat-1, essay',
        'stream, mock-chat-1, tool call',
        'stream, mock-reason-1, essay',
        'stream, mock-reason-1, tool call',
      ]);
      for (const c of cap.filter((c) => c.path.startsWith('json'))) expect(() => c.assert()).not.toThrow();
      for (const c of cap.filter((c) => c.path.startsWith('stream'))) expect(() => c.assert()).toThrow(/^chat\.max-tokens \(must, §2\.1, 4\.1, 8\): [\s\S]*Reproduce with: curl /);
      const echo = cases.filter((c) => c.check === 'chat.model-echo');
      expect(echo.every(holds)).toBe(true);
      // Not a pass all the same: skipped with the reason, and what broke for an annotation.
      for (const c of echo) {
        expect(c.skip).toMatch(/^should failed \(fails the run only with strict: true\): .*gpt-4o-mini/);
        expect(c.warning).toMatch(/^chat\.model-echo \(should, §2\.3\): [\s\S]*Reproduce with: curl /);
      }
      expect(cases.filter((c) => c.outcome === 'pass').every((c) => c.skip === undefined && c.warning === undefined)).toBe(true);
      expect(
        conformanceCases(report.results, { strict: true })
          .filter((c) => c.check === 'chat.model-echo')
          .every((c) => !holds(c)),
      ).toBe(true);
    } finally {
      await server.close();
    }
  });
});

/** A team's own vitest run of test/fixtures/vitest-entry (a server failing a should and, on one
 * path, a must) as on GitHub Actions: what the verbose and GitHub Actions reporters printed and what
 * the JSON reporter wrote. */
async function teamRun(strict: boolean): Promise<{ code: number; printed: string; tests: { fullName: string; status: string; meta: { conformance?: { outcome: string; level: string } } }[] }> {
  const root = fileURLToPath(new URL('./fixtures/vitest-entry/', import.meta.url));
  const out = join(mkdtempSync(join(tmpdir(), 'vitest-entry-')), 'report.json');
  const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
  // The child is a run of its own, not a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  const done = await promisify(execFile)(process.execPath, [vitest, 'run', '--root', root, '--reporter=verbose', '--reporter=github-actions', '--reporter=json', `--outputFile.json=${out}`], {
    env: { ...env, NO_COLOR: '1', GITHUB_ACTIONS: 'true', STRICT: strict ? '1' : '' },
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, printed: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, printed: e.stdout + e.stderr }),
  );
  const report = JSON.parse(readFileSync(out, 'utf8')) as { testResults: { assertionResults: Awaited<ReturnType<typeof teamRun>>['tests'] }[] };
  return { ...done, tests: report.testResults.flatMap((f) => f.assertionResults) };
}

describe("a failed should in a team's vitest run", () => {
  it(
    'is never a silent green tick: a skip with its reason and a warning annotation; strict: true fails it',
    async () => {
      const [lenient, strict] = await Promise.all([teamRun(false), teamRun(true)]);
      const echo = (run: typeof lenient) => run.tests.filter((t) => t.fullName.includes('chat.model-echo'));
      const streamCap = (run: typeof lenient) => run.tests.filter((t) => t.fullName.includes('chat.max-tokens stream'));

      // Without strict: the must fails the run, the should does not, and shows as skipped, not passed.
      expect(lenient.code).toBe(1);
      // The essay and the tool call cut by the cap, on each model.
      expect(streamCap(lenient).map((t) => t.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
      expect(echo(lenient).length).toBeGreaterThan(0);
      for (const t of echo(lenient)) {
        expect(t.status).toBe('skipped');
        expect(t.meta.conformance).toMatchObject({ outcome: 'fail', level: 'should' });
      }
      // The reporter prints the reason beside the skipped test, and the annotation with what broke.
      expect(lenient.printed).toMatch(/chat\.model-echo > .*\[should failed \(fails the run only with strict: true\): /);
      expect(lenient.printed).toMatch(/warning\n\s+\S+ chat\.model-echo \(should, §[\d.]+\): /);
      // On GitHub Actions each is a warning at the team's describeConformance call, and a failure an
      // error there too, not in the package's code.
      const fixture = fileURLToPath(new URL('./fixtures/vitest-entry/should.fixture.ts', import.meta.url));
      const at = (command: string) => lenient.printed.split('\n').filter((l) => l.startsWith(`::${command} `));
      expect(at('warning').length).toBe(echo(lenient).length);
      const line =
        readFileSync(fixture, 'utf8')
          .split('\n')
          .findIndex((l) => l.startsWith('describeConformance(')) + 1;
      for (const l of at('warning')) expect(l).toMatch(/^::warning file=[^,]+,line=\d+,column=\d+::chat\.model-echo \(should, /);
      for (const l of [...at('warning'), ...at('error')]) expect(l).toContain(`file=${fixture},`);
      for (const l of [...at('warning'), ...at('error')]) expect(l).toContain(`,line=${line},`);
      // One error a failing path of the must: each streamed path, on each model.
      expect(at('error').length).toBe(streamCap(lenient).filter((t) => t.status === 'failed').length);
      expect(at('error').length).toBeGreaterThan(0);
      // A path that passed is a pass, with its verdict in the meta.
      const passed = lenient.tests.filter((t) => t.status === 'passed');
      expect(passed.length).toBeGreaterThan(0);
      expect(passed.every((t) => t.meta.conformance?.outcome === 'pass')).toBe(true);

      // strict: true: the should fails like the must.
      expect(strict.code).toBe(1);
      expect(echo(strict).map((t) => t.status)).toEqual(echo(lenient).map(() => 'failed'));
    },
    within(90_000),
  );
});
