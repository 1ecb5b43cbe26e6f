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

const CHECKS = ['chat.role.user', 'chat.usage', 'chat.usage-total', 'chat.max-tokens', 'chat.length-only-at-cap', 'chat.served-when-valid'];

async function runWith(fault: string, opts: Partial<SessionOptions> = {}) {
  const server = await startMockServer({ mock: createMock(undefined, { faults: [faultNamed(fault)] }) });
  try {
    return await runSession({ baseUrl: server.url, siteUrl: server.url, apiKey: DEFAULT_CONFIG.keys[0].key, checks: CHECKS, timeoutMs: 5_000, ...opts });
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
