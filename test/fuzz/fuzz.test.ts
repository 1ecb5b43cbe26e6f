// `conformance fuzz` end to end, with fixed seeds and small budgets: it passes the correct mock, which
// answers every generated request with a 2xx or a 4xx JSON error; against each rare-input fault (an
// emoji, a string past 4 KiB or 64 KiB, an integer past 32 bits, nesting 1,000 deep) it exits 1 with
// the smallest request that trips it, as a curl that gets the 5xx again in a shell, the same for the
// same seed, shrunk even when --runs takes the whole request cap; Ctrl-C writes what was found; a
// server that serves nothing leaves every property not-tested; the properties are checks like any
// other (every reporter, the list, the baseline); and `conformance run` carries a short pass and stays
// under 200 requests.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { errorReply } from '../../mock/core/errors.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { validator } from '../../schemas/index.js';
import { FUZZ_PASS } from '../../suites/fuzz/index.js';
import type { CheckResult } from '../../engine/check.js';
import { render, REPORTER_NAMES } from '../../report/index.js';
import type { RunReport } from '../../report/report.js';
import { CHECKS, withFuzz } from '../../suites/index.js';
import { runSession } from '../../suites/session.js';
import { watched } from '../../bench/fuzz.js';
import { pass } from '../../engine/check.js';
import type { CheckContext } from '../../engine/runner.js';
import type { ApiCheck } from '../../suites/api.js';
import { FuzzSession } from '../../suites/fuzz/session.js';
import { BIN, cli, sh } from '../support/cli.js';
import { KEY, mockWith, runAgainstMock, SECOND_KEY } from '../support/run.js';
import { within } from '../support/machine.js';

/** The ceiling of the default run's summed max_tokens: lower it when a change lowers the cost. It
 * was 72,200 while the requests sent to be refused were counted; it went up once by what new rules
 * need (issue 34: the other orders of the roles, a tool call cut by the cap, the key elsewhere in two
 * requests a route). */
const DEFAULT_RUN_TOKENS = 47_250;
const PROPERTIES = ['fuzz.no-5xx', 'fuzz.no-5xx-refusable', 'fuzz.valid-served', 'fuzz.invalid-refused', 'fuzz.served-shape', 'fuzz.within-timeout'];
const dir = mkdtempSync(join(tmpdir(), 'conformance-fuzz-'));
const readReport = (file: string): RunReport => {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  expect(validator('report')(report).errors, file).toEqual([]);
  return report;
};
const result = (report: RunReport, id: string) => report.results.find((r) => r.id === id)!;
const hasCurl = existsSync('/usr/bin/curl') || existsSync('/bin/curl');

describe('conformance fuzz', () => {
  it('passes the embedded mock, printing its seed, within its budget', async () => {
    const file = join(dir, 'clean.json');
    const r = await cli(['fuzz', '--seed', '11', '--runs', '120', '--reporter', 'pretty', '--reporter', `json=${file}`]);
    expect(r.stderr).toContain('conformance: fuzz seed 11 (--seed 11 sends these requests again)');
    expect(r.code, r.stdout).toBe(0);
    const report = readReport(file);
    expect(report.results.map((x) => `${x.id}=${x.outcome}`).sort()).toEqual(PROPERTIES.map((id) => `${id}=pass`).sort());
    expect(report.notes).toContain('fuzz: seed 11, 120 generated requests (--seed 11 repeats them)');
    // The generated requests, and one plain request per model and path that served-shape compares with.
    expect(report.requestsSent).toBeLessThanOrEqual(120 + 4);
    // What it asks to generate counts the requests a server owes an answer, each within the largest
    // output a model declares (16,384): a max_tokens meant to be refused (up to 2^32) is said apart.
    expect(report.cost!.refused).toBeGreaterThan(0);
    expect(report.cost!.maxTokens).toBeLessThanOrEqual(16_384 * (report.requestsSent! - report.cost!.refused!));
    expect(r.stdout).toMatch(new RegExp(`asking for at most ${report.cost!.maxTokens} tokens in all \\(.*${report.cost!.refused} sent to be refused, not counted\\)`));
    expect(r.stdout).toMatch(/PASSED \(exit code 0\)/);
  });

  it('exits 2 for a usage or connection problem', async () => {
    // Nothing listens at port 9.
    const [seed, unreachable] = await Promise.all([cli(['fuzz', '--seed', '-1']), cli(['fuzz', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--timeout', '2000'])]);
    expect([seed.code, unreachable.code]).toEqual([2, 2]);
    expect(seed.stderr).toMatch(/--seed takes a whole number/);
    expect(unreachable.stderr).toMatch(/cannot reach/);
  });
});

// Each case starts a CLI process: a minute each where the machine is shared, seconds where it is not.
describe('against rare-input faults', { timeout: within(60_000) }, () => {
  let servers: Record<string, MockServer>;
  beforeAll(async () => {
    const names = ['fuzz-astral-500', 'fuzz-long-string-500', 'fuzz-64k-string-500', 'fuzz-int32-500', 'fuzz-deep-nesting-500'];
    servers = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await startMockServer({ mock: createMock(undefined, { faults: [n] }) })])));
  });
  afterAll(() => Promise.all(Object.values(servers).map((s) => s.close())));

  /** The property each fault breaks: a 5xx to a request owed an answer, or to one the server may refuse. */
  const owner = (fault: string) => (fault === 'fuzz-deep-nesting-500' ? 'fuzz.no-5xx-refusable' : 'fuzz.no-5xx');
  /** The default budget's shrinking (40 requests a property) on its first 20 requests, where the breadth list puts the rare inputs. */
  const fuzz = async (fault: string, name: string, extra: string[] = [], budget = ['--runs', '20']) => {
    const file = join(dir, `${name}.json`);
    const r = await cli(['fuzz', '--base-url', servers[fault].url, '--seed', '3', '--check', owner(fault), '--reporter', `json=${file}`, ...budget, ...extra], {
      CONFORMANCE_API_KEY: KEY,
    });
    return { ...r, report: readReport(file) };
  };

  /** The request with nothing else but `kept`: the kit's smallest, one message, unstreamed, with no seed and no stop. */
  const bare = (b: Record<string, any>, kept?: string) => b.messages.length === 1 && !b.stream && ['seed', 'stop'].every((k) => k === kept || !(k in b));
  /** What each fault's smallest request holds: one character, a string one past the limit, an integer
   * one past 32 bits, nesting as generated and nothing else. */
  const SMALLEST: Record<string, (body: Record<string, any>) => boolean> = {
    'fuzz-astral-500': (b) => bare(b) && Array.from(b.messages[0].content as string).length === 1 && /[\u{10000}-\u{10ffff}]/u.test(b.messages[0].content),
    'fuzz-long-string-500': (b) => bare(b) && (b.messages[0].content as string).length === 4097,
    'fuzz-64k-string-500': (b) => bare(b, 'stop') && b.stop.length === 1 && b.stop[0].length === 65_537 && b.messages[0].content === 'Say OK.',
    'fuzz-int32-500': (b) => bare(b, 'seed') && b.seed === 2 ** 31 && b.messages[0].content === 'Say OK.',
    'fuzz-deep-nesting-500': (b) => bare(b) && b.messages[0].content === 'Say OK.' && JSON.stringify(b.x_conformance_nested) === `${'['.repeat(1000)}${']'.repeat(1000)}`,
  };

  it.concurrent.each(Object.keys(SMALLEST))('%s: finds it, shrinks it, and prints a curl that gets the 5xx again', async (fault) => {
    const { code, report, stdout, stderr } = await fuzz(fault, fault);
    expect(code).toBe(1);
    const r = result(report, owner(fault));
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(/answered status 500.*stable: sent once more, it broke the rule again.*shrunk in \d+ steps/);
    const [shrunk, again] = r.evidence;
    expect(again.label).toMatch(/sent once more/);
    expect(shrunk.reproduce).toBe(again.reproduce);
    expect(SMALLEST[fault](JSON.parse(/--data-raw '(.*)'$/s.exec(shrunk.reproduce!)![1]))).toBe(true);
    expect(shrunk.reproduce).toContain('"$CONFORMANCE_API_KEY"');
    for (const text of [stdout, stderr, readFileSync(join(dir, `${fault}.json`), 'utf8')]) expect(text).not.toContain(KEY);
    if (!hasCurl) return;
    const replay = await sh(`${shrunk.reproduce} -o /dev/null -w '%{http_code}'`, { CONFORMANCE_API_KEY: KEY });
    expect(replay.stdout).toBe('500');
  });

  it.concurrent('shrinks within the request cap when --runs asks for all of it', async () => {
    const { code, report } = await fuzz('fuzz-int32-500', 'capped', [], ['--runs', '60', '--max-requests', '40']);
    expect(code).toBe(1);
    const r = result(report, 'fuzz.no-5xx');
    expect(r.message).toMatch(/shrunk in \d+ steps \(\d+ requests tried\)/);
    expect(SMALLEST['fuzz-int32-500'](JSON.parse(/--data-raw '(.*)'$/s.exec(r.evidence[0].reproduce!)![1]))).toBe(true);
    expect(r.notes?.join(' ')).toMatch(/the session stopped after 20 of 60 requests: the last 20 of its 40 requests \(--max-requests\) are kept to shrink what breaks/);
    expect(report.requestsSent).toBeLessThanOrEqual(40 + 2);
  });

  it.concurrent('gives the same curl for the same seed, and holds the failure under a baseline like any check', async () => {
    const baseline = join(dir, 'expected.yaml');
    writeFileSync(baseline, 'expected:\n  - check: fuzz.no-5xx\n    reason: emoji break our store; fix due in 2.4\n');
    const [a, b] = await Promise.all([fuzz('fuzz-astral-500', 'again-a'), fuzz('fuzz-astral-500', 'again-b', ['--expected-failures', baseline])]);
    expect(result(a.report, 'fuzz.no-5xx').evidence[0].reproduce).toBe(result(b.report, 'fuzz.no-5xx').evidence[0].reproduce);
    expect([a.code, b.code]).toEqual([1, 0]);
    expect(result(b.report, 'fuzz.no-5xx').expected?.reason).toMatch(/emoji/);
    // Where it passes, the entry is stale, and fails the session.
    const stale = await runSession({ apiKey: KEY, registry: withFuzz({ seed: 3, runs: 40, maxRequests: 40, shrinkRequests: 0 }), checks: ['fuzz.no-5xx'], strict: true, expectedFailures: baseline });
    expect(stale.exitCode).toBe(1);
    expect(stale.baseline?.stale.map((e) => e.check)).toEqual(['fuzz.no-5xx']);
  });

  // A million requests to send: only Ctrl-C ends the session in time, or the test's timeout does.
  it('writes what it found so far on Ctrl-C, and exits 130', { timeout: within(30_000) }, async () => {
    const file = join(dir, 'interrupted.json');
    // A server of its own, whose journal tells when the session has had its first 500 answered.
    const mock = createMock(undefined, { faults: ['fuzz-astral-500'] });
    const server = await startMockServer({ mock });
    const child = spawn(process.execPath, [BIN, 'fuzz', '--base-url', server.url, '--api-key', KEY, '--seed', '3', '--runs', '1000000', '--max-requests', '1000000', '--reporter', `json=${file}`], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    // However the test ends (a hang meets its timeout), no session is left sending.
    onTestFinished(() => {
      child.kill('SIGKILL');
      return server.close();
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    // Under way, and past its first 500: eight requests after it, four in flight at most, it was read.
    const pastFirst500 = () => {
      const entries = mock.journal.list();
      const at = entries.findIndex((e) => e.status === 500);
      return at >= 0 && entries.length - at > 8;
    };
    while (!pastFirst500()) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/SIGINT: writing the report/);
    const r = result(readReport(file), 'fuzz.no-5xx');
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(/not sent once more \(interrupted \(SIGINT\)\)/);
    expect(r.notes?.join(' ')).toMatch(/the session stopped after \d+ of 1000000 requests: interrupted \(SIGINT\)/);
  });

  it('shows the properties in every reporter', async () => {
    const report = await runSession({
      baseUrl: servers['fuzz-astral-500'].url,
      apiKey: KEY,
      registry: withFuzz({ seed: 3, runs: 20, maxRequests: 30, shrinkRequests: 4 }),
      suites: ['fuzz'],
      strict: true,
    });
    expect(result(report, 'fuzz.no-5xx').outcome).toBe('fail');
    for (const name of REPORTER_NAMES) {
      const text = render(name, report, { color: false });
      expect(text, name).toContain('fuzz.no-5xx');
      expect(text, name).not.toContain(KEY);
    }
  });
});

describe('against servers that break HTTP or refuse everything', () => {
  const session = async (mock: Mock, runs: number) => {
    const server = await startMockServer({ mock });
    try {
      // The quiet machine's request timeout, as this machine meets it now: a refusal that came after a
      // fixed 300 ms was a timeout on a busy machine, and nothing was served. The run's deadline is a
      // guard against a hang, far past what a session of these sizes takes: one that needs it failed.
      const settings = { seed: 3, runs, maxRequests: runs + 10, shrinkRequests: 4 };
      return await runSession({ baseUrl: server.url, apiKey: KEY, registry: withFuzz(settings), suites: ['fuzz'], strict: true, timeoutMs: within(300), deadlineMs: within(20_000) });
    } finally {
      await server.close();
    }
  };

  it.each([
    // The model list is garbage too: every request goes to a model nobody lists, which the server may refuse.
    ['hostile-random-bytes', 'fuzz.no-5xx-refusable', /no answer: protocol/],
    [
      'hostile-stream-forever',
      'fuzz.within-timeout',
      /not answered in time: no complete answer within --timeout \d+ ms \(after status 200\); a server this slow by design is let through by raising --timeout/,
    ],
  ])("%s: a failed property with its evidence, ended before the run's deadline stops it", { timeout: within(60_000) }, async (fault, id, why) => {
    const report = await session(createMock(undefined, { faults: [fault] }), 8);
    // Which limit ended each wait: an answer that is not HTTP ends at once, a stream that never ends
    // at the request's timeout; the run's deadline had nothing to stop.
    expect(report.stopped).toBeUndefined();
    const r = result(report, id);
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(why);
    expect(r.evidence.length).toBeGreaterThan(0);
    // The model list is garbage too: the rules of valid requests cannot be judged, and say why.
    expect(result(report, 'fuzz.valid-served').message).toMatch(/no model is known/);
  });

  it('keeps no more generated requests unanswered than the run has on the wire: none waits in its queue to be sent past the cutoff it was generated before', { timeout: within(60_000) }, async () => {
    // Counted at the session's own sends, so what is asserted is a number, not a time (the timeout is
    // short: every request waits it out against a stream that never ends, and how long it is changes
    // no count, for a window is sent in one go). Before the fix every request generated waited at once
    // (the session sent until the run's deadline stopped it, and lost every verdict).
    const seen = { waiting: 0, most: 0, concurrency: 0 };
    const probe: ApiCheck = {
      id: 'probe.window',
      suite: 'probe',
      title: 'the fuzz session, its sends counted',
      section: '—',
      level: 'must',
      timeLimitMs: () => within(60_000),
      async run(ctx) {
        seen.concurrency = ctx.concurrency;
        const counted: CheckContext = {
          ...ctx,
          async send(spec, label) {
            seen.most = Math.max(seen.most, ++seen.waiting);
            try {
              return await ctx.send(spec, label);
            } finally {
              seen.waiting--;
            }
          },
        };
        await new FuzzSession(counted, { seed: 3, runs: 12, maxRequests: 12, shrinkRequests: 0 }).result();
        return pass();
      },
    };
    // A stream that never answers whole.
    const results = await runAgainstMock([probe], { mock: createMock(undefined, { faults: ['hostile-stream-forever'] }), timeoutMs: 100 });
    expect(results.get('probe.window')!.outcome, results.get('probe.window')!.message).toBe('pass');
    // runAgainstMock's concurrency, as a run's.
    expect(seen.concurrency).toBe(4);
    expect(seen.most).toBe(4);
  });

  it('counts no answer as a pass where nothing is served', async () => {
    const refusing = mockWith({ reply: (r, req) => (req.path === '/v1/chat/completions' ? errorReply(400, 'No.', 'invalid_request_error') : r) });
    const report = await session(refusing, 20);
    for (const id of PROPERTIES.filter((p) => p !== 'fuzz.valid-served')) {
      expect(result(report, id).outcome, id).toBe('not-tested');
      expect(result(report, id).message, id).toMatch(/no generated request was served, nor the plain one/);
    }
    expect(result(report, 'fuzz.valid-served').outcome).toBe('fail');
  });

  it('sends no generated request to a server that answers every route 404: it is not the API (suites/sanity.ts)', async () => {
    await expect(session(createMock(undefined, { faults: ['every-route-404'] }), 20)).rejects.toThrow(/does not answer as the API: GET \/v1\/models answered 404/);
  });
});

describe('the fuzz checks in the registry', () => {
  it('are listed with their section, level and the faults that prove them', async () => {
    const [text, json] = await Promise.all([cli(['list']), cli(['list', '--json'])]);
    for (const id of PROPERTIES) expect(text.stdout).toContain(id);
    expect(text.stdout).toMatch(/fuzz \(6 checks: 3 must, 3 should\)/);
    const checks = JSON.parse(json.stdout).checks as { id: string; section: string; level: string; provenBy: string[] }[];
    const listed = checks.filter((c) => c.id.startsWith('fuzz.'));
    expect(listed.map((c) => c.id)).toEqual(PROPERTIES);
    for (const c of listed) expect(c.provenBy.length, c.id).toBeGreaterThan(0);
  });

  it('run a short pass in `conformance run` that keeps the default run under 210 requests; --no-fuzz leaves it out', async () => {
    const cost = async (opts: Parameters<typeof runSession>[0]) => {
      const mock = watched();
      const server = await startMockServer({ mock });
      try {
        const report = await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: SECOND_KEY, ...opts });
        return { report, requests: mock.statuses.length };
      } finally {
        await server.close();
      }
    };
    const [full, without, wider] = await Promise.all([cost({}), cost({ without: ['fuzz'] }), cost({ registry: withFuzz({ ...FUZZ_PASS, runs: 40 }), checks: ['fuzz.*'] })]);
    const fuzzOf = (rs: CheckResult[]) => rs.filter((r) => r.suite === 'fuzz');
    expect(fuzzOf(full.report.results).map((r) => `${r.id}=${r.outcome}`)).toEqual(PROPERTIES.map((id) => `${id}=pass`));
    expect(full.report.exitCode).toBe(0);
    // Every request of a run, the reachability probe included, counted by the server.
    expect(full.requests).toBeLessThan(210);
    // What the run asks a server to generate at most goes down, never up: 96,283 tokens before the
    // caps were made the smallest that prove each rule (issue 25).
    expect(full.report.cost!.maxTokens).toBeLessThanOrEqual(DEFAULT_RUN_TOKENS);
    expect(fuzzOf(without.report.results)).toEqual([]);
    // The pass's requests (one of which the errors suite sends too).
    expect(full.requests - without.requests).toBe(FUZZ_PASS.runs - 1);
    expect(fuzzOf(wider.report.results).every((r) => r.outcome === 'pass')).toBe(true);
    expect(wider.report.notes?.join(' ')).toMatch(/40 generated requests/);
    expect(CHECKS.filter((c) => c.suite === 'fuzz')).toHaveLength(6);
  });
});

describe('the mock under generated requests', () => {
  it('answers every one with a 2xx or a 4xx JSON error, never a 5xx', async () => {
    const mock = watched();
    const server = await startMockServer({ mock });
    try {
      const report = await runSession({ baseUrl: server.url, apiKey: KEY, registry: withFuzz({ seed: 2024, runs: 600, maxRequests: 600, shrinkRequests: 0 }), suites: ['fuzz'], strict: true });
      expect(report.results.filter((r) => r.outcome !== 'pass').map((r) => `${r.id}: ${r.message}`)).toEqual([]);
      expect(mock.statuses.length).toBeGreaterThan(600);
      expect(mock.statuses.filter((s) => s < 200 || s >= 500)).toEqual([]);
      expect(mock.statuses.filter((s) => s >= 400).length).toBeGreaterThan(100);
      expect(mock.unclear).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
