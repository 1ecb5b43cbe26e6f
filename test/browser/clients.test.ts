// The browser client: the official openai SDK in a page of headless Chromium, against the mock on
// another origin. Its flows pass where the page's origin is allowed (a loopback one); where it is not
// (app.test, mapped to 127.0.0.1), every check still passes and the flows fail with the browser's CORS
// refusal in their message: a failure no rule of the document explains, said so. A legal variation
// the Node clients read (a gzip-coded stream) the page reads too.
import { describe, expect, it } from 'vitest';
import { checksForFlows, clientsBeside } from '../../clients/session.js';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { runSession } from '../../suites/session.js';
import { browserRuns } from '../support/chromium.js';
import { KEY } from '../clients/support.js';
import { within } from '../support/machine.js';

const run = async (pageHost?: string, mock = createMock()) => {
  const server = await startMockServer({ mock });
  try {
    const choice = { clients: ['openai-browser'], ...(pageHost ? { pageHost } : {}) };
    return await runSession({ baseUrl: server.url, apiKey: KEY, checks: checksForFlows(choice), without: ['fuzz'], beside: clientsBeside(choice) });
  } finally {
    await server.close();
  }
};

describe.skipIf(!browserRuns)('the openai SDK in a page of headless Chromium', { timeout: within(240_000) }, () => {
  it('passes its four flows on every model against the mock, the page on another origin', async () => {
    const report = await run();
    const flows = report.clients!.results;
    expect(flows.map((f) => [f.id, f.outcome, f.message ?? ''])).toEqual([
      ['openai-browser.completion', 'pass', ''],
      ['openai-browser.stream', 'pass', ''],
      ['openai-browser.auth-error', 'pass', ''],
      ['openai-browser.abort', 'pass', ''],
    ]);
    for (const f of flows) expect(f.paths.map((p) => p.label)).toEqual(['mock-chat-1', 'mock-reason-1']);
    expect(report.clients!.clients[0]).toMatchObject({ name: 'openai-browser', installed: true });
  });

  // Chromium's decoder ends a body at the end of its first gzip member, without an error: a stream
  // sent as a member per write gave the page its first event only ("missing finish_reason").
  it('passes its four flows against a server that gzips every answer, a stream flushed at every write', async () => {
    const mock = createMock(DEFAULT_CONFIG, { faults: ['legal-gzip'] });
    const report = await run(undefined, mock);
    expect(report.results.filter((r) => r.outcome !== 'pass').map((r) => r.id)).toEqual([]);
    expect(report.clients!.results.map((f) => [f.id, f.outcome, f.message ?? ''])).toEqual([
      ['openai-browser.completion', 'pass', ''],
      ['openai-browser.stream', 'pass', ''],
      ['openai-browser.auth-error', 'pass', ''],
      ['openai-browser.abort', 'pass', ''],
    ]);
    // The streams were served gzipped: the variation was in effect, not passed over.
    const streamed = mock.journal.list({ limit: 1000 }).filter((e) => e.stream && e.status === 200);
    expect(streamed.length).toBeGreaterThan(0);
    for (const e of streamed) expect(e.faults).toContain('legal-gzip');
    expect(report.exitCode).toBe(0);
  });

  it("fails where the API refuses the page's origin, with the browser's words, blamed on CORS (outside the document), no rule", async () => {
    const report = await run('app.test');
    expect(report.exitCode).toBe(0);
    expect(report.results.every((r) => r.outcome === 'pass')).toBe(true);
    const completion = report.clients!.results.find((f) => f.flow === 'completion')!;
    expect(completion).toMatchObject({ outcome: 'fail', failureLevel: 'should', cause: { kind: 'outside' } });
    expect(completion.cause!.why).toMatch(/CORS|Access-Control-Allow-Origin/);
    expect(completion.brokenBy).toBeUndefined();
    expect(completion.unexplained).toBeUndefined();
    expect(completion.message).toMatch(/blocked by CORS policy/);
    expect(completion.message).toMatch(/from origin 'http:\/\/app\.test:\d+'/);
    expect(completion.paths[0].evidence[0].error).toMatch(/the browser failed the request/);
  });
});
