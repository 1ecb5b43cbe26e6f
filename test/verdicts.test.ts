// Verdicts a CI gate can trust (issue 25): a failure that does not reproduce is flaky and fails no
// run by itself; a request the server could not serve (an error event mid-stream, a 503) breaks no
// rule of the check that reads it; every report format and the exit code agree on both.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../mock/config/default.js';
import { createMock } from '../mock/core/handle.js';
import { faultNamed } from '../mock/core/faults/index.js';
import { startMockServer } from '../mock/http.js';
import { runSession, type SessionOptions } from '../suites/session.js';
import { renderJunit } from '../report/junit.js';
import { renderMarkdown } from '../report/markdown.js';
import { renderPretty } from '../report/pretty.js';
import { validator } from '../schemas/index.js';
import { costOf, toBeRefused, askedAgain } from '../suites/cost.js';
import { whyFailing, whyPassing } from '../report/report.js';
import { errorReply } from '../mock/core/errors.js';
import { isCatalog, isChat } from '../mock/core/faults/rewrite.js';
import { mockWith } from './support/run.js';
import { ONLY_A_HANG_MS } from './support/machine.js';

const CHECKS = ['chat.role.user', 'chat.usage', 'chat.usage-total', 'chat.max-tokens', 'chat.length-only-at-cap', 'chat.served-when-valid'];

async function runWith(fault: string, opts: Partial<SessionOptions> = {}) {
  const server = await startMockServer({ mock: createMock(undefined, { faults: [faultNamed(fault)] }) });
  try {
    return await runSession({ baseUrl: server.url, siteUrl: server.url, apiKey: DEFAULT_CONFIG.keys[0].key, checks: CHECKS, timeoutMs: ONLY_A_HANG_MS, ...opts });
  } finally {
    await server.close();
  }
}

const byId = (report: Awaited<ReturnType<typeof runWith>>) => new Map<string, (typeof report.results)[number]>(report.results.map((r) => [r.id, r]));
const validReport = validator('report');

describe('a failure that does not reproduce', () => {
  it('is flaky, fails no run, and --strict or --require-complete makes it fail', async () => {
    const plain = await runWith('flaky-usage-missing-once');
    const usage = byId(plain).get('chat.usage')!;
    expect(usage.outcome, usage.message).toBe('flaky');
    expect(usage.message).toContain('sent again, it held');
    // Its evidence is the answer that broke the rule, not the one that held.
    expect(usage.evidence[0].excerpt).not.toContain('"usage"');
    // The check it blocked the first time judged its rule on the requests sent again.
    expect(byId(plain).get('chat.usage-total')!.outcome).toBe('pass');
    expect(plain.exitCode).toBe(0);
    expect(plain.summary.must.flaky).toBe(1);
    expect(validReport(JSON.parse(JSON.stringify(plain))).errors).toEqual([]);
    const junit = renderJunit(plain);
    expect(junit).toMatch(/<testcase name="chat\.usage:[^>]*>\s*<flakyFailure message="[^"]*sent again, it held/);
    expect(renderPretty(plain, { color: false })).toMatch(/~ \[MUST\]\s+chat\.usage:/);
    expect(renderMarkdown(plain)).toContain('flaky: ');

    for (const gate of [{ strict: true }, { requireComplete: true }]) {
      const gated = await runWith('flaky-usage-missing-once', gate);
      expect(byId(gated).get('chat.usage')!.outcome).toBe('flaky');
      expect(gated.exitCode, JSON.stringify(gate)).toBe(1);
      expect(renderJunit(gated)).toMatch(/<testcase name="chat\.usage:[^>]*>\s*<failure [^>]*type="flaky"/);
      expect(renderPretty(gated, { color: false })).toMatch(/FAILED: 1 must flaky/);
    }
  });
});

describe('a request the server could not serve', () => {
  it('an error event mid-stream leaves the checks that read it not served, fails no must, and is counted once', async () => {
    const report = await runWith('busy-essay-stream-error');
    const results = byId(report);
    for (const id of ['chat.max-tokens', 'chat.length-only-at-cap']) {
      const r = results.get(id)!;
      expect(r.outcome, `${id}: ${r.message}`).toBe('not-served');
      expect(r.paths!.find((p) => p.label.startsWith('stream'))!.message).toContain('error event');
    }
    const counted = results.get('chat.served-when-valid')!;
    expect(counted.outcome).toBe('fail');
    expect(counted.level).toBe('should');
    expect(counted.message).toMatch(/^2 of \d+ chat requests were not served/);
    expect(report.exitCode).toBe(0);
    expect((await runWith('busy-essay-stream-error', { requireComplete: true })).exitCode).toBe(1);
    expect(renderJunit(report)).toMatch(/<testcase name="chat\.max-tokens:[^>]*>\s*<skipped message="not-served: /);
  });

  it('a 503 is no breach either', async () => {
    const report = await runWith('busy-basic-503');
    const role = byId(report).get('chat.role.user')!;
    expect(role.outcome, role.message).toBe('not-served');
    expect(report.exitCode).toBe(0);
  });
});

// What a CI gate needs of a run the server judged little (issue 42): green where the server could
// not be judged is a broken gate, red on one 429 a flaky one. The musts the server kept from being
// judged (not served, flaky, blocked by a flaky check, not answered) are said on the verdict line, and
// fail the run where they are as many must paths as the run judged; musts the run's own options left
// unjudged (one key) pass quietly, as before.
describe('a run the server judged little', () => {
  const KEY = DEFAULT_CONFIG.keys[0].key;
  async function run(mock: ReturnType<typeof createMock>, opts: Partial<SessionOptions> = {}) {
    const server = await startMockServer({ mock });
    try {
      return await runSession({ baseUrl: server.url, apiKey: KEY, secondApiKey: DEFAULT_CONFIG.keys[1].key, timeoutMs: ONLY_A_HANG_MS, ...opts });
    } finally {
      await server.close();
    }
  }
  const serverLine = /^\d+ must not judged because of the server \(/;

  it('fails where the server turned away every chat request, saying how many musts it kept from being judged and why', async () => {
    const busy = mockWith({ reply: (r, req) => (isChat(req) ? errorReply(503, 'The engine is currently overloaded.', 'server_error', 'overloaded', null, { 'retry-after': '1' }) : r) });
    const report = await run(busy, { suites: ['chat', 'stream', 'usage'] });
    const musts = report.results.filter((r) => r.level === 'must');
    expect(musts.filter((r) => r.outcome === 'pass' || r.outcome === 'fail').map((r) => r.id)).toEqual([]);
    expect(report.exitCode).toBe(1);
    expect(whyFailing(report)).toEqual([expect.stringMatching(/^\d+ must not judged because of the server \(\d+ not served\); it left \d+ must paths unjudged and the run judged 0$/)]);
    expect(renderPretty(report, { color: false })).toMatch(/FAILED: \d+ must not judged because of the server/);
  });

  it("fails where the model list was turned away once after the probe, as the issue's run was: most musts blocked by a flaky models.list-shape", async () => {
    let lists = 0;
    const once = mockWith({ reply: (r, req) => (req.path.startsWith('/v1/models') && ++lists === 2 ? errorReply(503, 'Loading model', 'unavailable_error') : r) });
    const report = await run(once);
    expect(report.results.find((r) => r.id === 'models.list-shape')!.outcome).toBe('flaky');
    const blocked = report.results.filter((r) => r.level === 'must' && r.unjudged === 'flaky-owner');
    expect(blocked.length).toBeGreaterThan(30);
    expect(report.exitCode).toBe(1);
    expect(whyFailing(report)).toEqual([expect.stringMatching(new RegExp(`^\\d+ must not judged because of the server \\(\\d+ flaky, ${blocked.length} blocked by a flaky check\\); `))]);
  });

  it('passes, saying so, where the catalog was turned away once: a glitch the run judged past', async () => {
    let turned = 0;
    const glitch = mockWith({ reply: (r, req) => (isCatalog(req) && turned++ === 0 ? errorReply(503, 'Busy.', 'server_error', 'overloaded') : r) });
    const report = await run(glitch);
    expect(report.exitCode).toBe(0);
    const catalog = report.results.find((r) => r.id === 'catalog.pricing')!;
    expect([catalog.outcome, catalog.unjudged, catalog.blockedBy]).toEqual(['not-tested', 'flaky-owner', ['catalog.available']]);
    expect(whyPassing(report)).toEqual([
      expect.stringMatching(/^\d+ must not judged because of the server \(\d+ flaky, \d+ blocked by a flaky check\); .*: as many would fail the run$/),
      '1 flaky, which fails the run only with --strict',
    ]);
  });

  it('names a rule left unjudged by a control the server did not answer, where no check owns that request', async () => {
    const sayOk = (req: { body?: string | Uint8Array }) =>
      Buffer.from(req.body ?? '')
        .toString()
        .includes('Say OK.');
    const failing = mockWith({ reply: (r, req) => (isChat(req) && sayOk(req) ? errorReply(500, 'The server had an error.', 'server_error') : r) });
    const report = await run(failing, { suites: ['auth'], checks: ['auth.chat.missing'] });
    const missing = report.results[0];
    expect([missing.outcome, missing.unjudged, missing.blockedBy], missing.message).toEqual(['not-tested', 'unanswered', undefined]);
    expect(report.exitCode).toBe(1);
    expect(whyFailing(report)).toEqual(['1 must not judged because of the server (1 not answered); it left 2 must paths unjudged and the run judged 0']);
  });

  it('passes quietly, as before, where only its options left musts unjudged', async () => {
    const report = await run(createMock(), { secondApiKey: undefined });
    expect(report.exitCode).toBe(0);
    expect(report.results.find((r) => r.id === 'auth.key-scope')!.outcome).toBe('not-tested');
    expect(whyPassing(report)).toEqual(['1 must not tested, which fails the run only with --require-complete']);
    expect(whyPassing(report).some((w) => serverLine.test(w))).toBe(false);
  });
});

describe('the cost of a run', () => {
  it('sums the max_tokens of the chat requests a server owes an answer, counts those with none, those sent to be refused apart, and those asked again to locate a refusal', () => {
    const post = (body: unknown) => ({ method: 'POST' as const, url: 'http://x/v1/chat/completions', headers: {}, body: JSON.stringify(body) });
    const models = { method: 'GET' as const, url: 'http://x/v1/models', headers: {} };
    expect(
      costOf([
        post({ max_tokens: 16 }),
        post({ max_tokens: 64 }),
        post({}),
        models,
        post('not json'),
        toBeRefused(post({ max_tokens: 2 ** 32 })),
        toBeRefused(post({})),
        askedAgain(post({ max_tokens: 8 })),
      ]),
    ).toEqual({
      maxTokens: 88,
      uncapped: 1,
      refused: 2,
      askedAgain: 1,
    });
  });
});
