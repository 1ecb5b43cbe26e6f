// Every wait of the HTTP client has an end that nothing from the server restarts, in both of its
// modes (an AbortSignal per request, as a run sends; one sweeping timer, as a load sends): 1xx
// answers dripped forever, a connection never read and a body fallen silent each end, and say which
// limit ended them; --timeout bounds the wait for headers with no lower cap, so an answer slower than
// the idle limit but within --timeout is served; the caller's signal ends what is in flight. The
// stalling servers never end an answer: a limit that did not end one hangs the test until its timeout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { stallingServer } from '../../bench/hostile-servers.js';
import { HttpClient, limitsFor, type Limits } from '../../engine/http.js';
import { runChecks } from '../../engine/runner.js';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { createMock } from '../../mock/core/handle.js';
import { startMockServer } from '../../mock/http.js';
import { CHECKS } from '../../suites/index.js';
import { KEY, notPassing, SECOND_KEY } from '../support/run.js';
import { ONLY_A_HANG_MS } from '../support/machine.js';

// Proven against servers that never answer, or answer long after these limits.
const LIMITS: Limits = { connectTimeoutMs: 1_000, idleTimeoutMs: 300, deadlineMs: 1_500, maxBodyBytes: 64 * 1024 };
const chat = (url: string) => ({ method: 'POST' as const, url: `${url}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: '{}' });

/** A server that answers 200 with a small JSON body once `afterMs` have passed. */
async function slowServer(afterMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), afterMs);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

// Every test waits on a server of its own: they wait together.
describe.concurrent.each([
  { mode: 'a signal per request', swept: false },
  { mode: 'swept deadlines', swept: true },
])('the HTTP client, $mode', ({ swept }) => {
  const client = (limits = LIMITS) => new HttpClient(limits, undefined, { sweptDeadlines: swept });

  it.each([
    { status: 103 as const, what: 'Early Hints' },
    { status: 102 as const, what: 'Processing' },
  ])('ends a request answered only with $status $what, every 50 ms, at --timeout', async ({ status }) => {
    const server = await stallingServer('early-hints', { everyMs: 50, status });
    const http = client();
    try {
      const r = await http.send(chat(server.url));
      expect(r.status).toBeUndefined();
      expect(r.error).toEqual({ kind: 'deadline', message: 'no status line and headers within --timeout 1500 ms' });
      expect(r.durationMs).toBeGreaterThanOrEqual(LIMITS.deadlineMs - 1);
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('ends a request on a connection that is never read at --timeout', async () => {
    const server = await stallingServer('never-answers');
    const http = client();
    try {
      const r = await http.send(chat(server.url));
      expect(r.error).toEqual({ kind: 'deadline', message: 'no status line and headers within --timeout 1500 ms' });
      expect(server.stalled()).toBe(1);
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('ends a body that falls silent at the idle limit, and says it is the idle limit', async () => {
    const server = await stallingServer('headers-then-silence');
    const http = client();
    try {
      const r = await http.send(chat(server.url));
      expect(r.status).toBe(200);
      expect(r.complete).toBe(false);
      expect(r.error).toEqual({ kind: 'timeout', message: 'server silent for 300 ms in the body (--idle-timeout)' });
      expect(r.error!.message).not.toMatch(/--timeout/);
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('ends a silent body at --timeout where the idle limit is above it (--idle-timeout is not capped by --timeout)', async () => {
    const server = await stallingServer('headers-then-silence');
    const limits = limitsFor(LIMITS.deadlineMs, LIMITS.maxBodyBytes, 600_000);
    expect(limits.idleTimeoutMs).toBe(600_000);
    const http = client(limits);
    try {
      const r = await http.send(chat(server.url));
      expect(r.status).toBe(200);
      expect(r.error).toEqual({ kind: 'deadline', message: 'no complete answer within --timeout 1500 ms' });
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('waits for headers past the idle limit, up to --timeout: an answer after 800 ms is served', async () => {
    const server = await slowServer(800);
    const http = client({ ...LIMITS, deadlineMs: ONLY_A_HANG_MS });
    try {
      const r = await http.send(chat(server.url));
      expect(r.error).toBeUndefined();
      expect(r).toMatchObject({ status: 200, complete: true });
      expect(r.body.toString()).toBe('{"ok":true}');
      expect(r.durationMs).toBeGreaterThan(LIMITS.idleTimeoutMs);
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('ends a wait for headers past --timeout with a timeout that names --timeout', async () => {
    // A server that never answers within the test.
    const server = await slowServer(600_000);
    const http = client({ ...LIMITS, deadlineMs: 800 });
    try {
      const r = await http.send(chat(server.url));
      expect(r.error).toEqual({ kind: 'deadline', message: 'no status line and headers within --timeout 800 ms' });
    } finally {
      await http.close();
      await server.close();
    }
  });

  it("ends every request in flight when the caller's signal aborts, whatever it waits for, and says why", async () => {
    const drip = await stallingServer('early-hints', { everyMs: 50 });
    const silent = await stallingServer('headers-then-silence');
    // Limits far past the test's timeout: only the signal can end these requests before it.
    const http = client({ connectTimeoutMs: 600_000, idleTimeoutMs: 600_000, deadlineMs: 600_000, maxBodyBytes: 64 * 1024 });
    const stop = new AbortController();
    try {
      const sent = [drip, drip, silent].map((s) => http.send(chat(s.url), stop.signal));
      while (drip.stalled() < 2 || silent.stalled() < 1) await new Promise((r) => setTimeout(r, 20));
      stop.abort('interrupted (SIGINT)');
      const results = await Promise.all(sent);
      for (const r of results) expect(r.error).toEqual({ kind: 'stopped', message: 'the run was stopped (interrupted (SIGINT))' });
      // A request sent once the signal has aborted is not sent at all.
      const late = await http.send(chat(drip.url), stop.signal);
      expect(late.error?.kind).toBe('stopped');
      expect(drip.stalled()).toBe(2);
    } finally {
      await http.close();
      await drip.close();
      await silent.close();
    }
  });
});

/** The checks that read the basic non-streamed answer: what a slow engine's first answer decides. */
const READ_THE_ANSWER = ['chat.response-shape', 'chat.object', 'chat.choice-index', 'chat.finish-reason', 'chat.assistant-role', 'chat.content', 'chat.usage', 'chat.stream-false'];

/** A run of those checks against the mock, its non-streamed answers' headers sent after `ttftMs`. */
async function runSlowMock(ttftMs: number, limits: Limits) {
  const server = await startMockServer({ mock: createMock({ ...DEFAULT_CONFIG, timing: { ttft_ms: ttftMs } }) });
  try {
    const { results } = await runChecks(
      CHECKS.filter((c) => READ_THE_ANSWER.includes(c.id)),
      {
        target: { baseUrl: server.url, siteUrl: server.url, siteUrlExplicit: true, apiKey: KEY, secondApiKey: SECOND_KEY, models: ['mock-chat-1'], headers: {}, embeddedMock: false },
        limits,
        concurrency: 4,
        retry: { maxRetries: 0, maxWaitMs: 0 },
      },
    );
    return results;
  } finally {
    await server.close();
  }
}

describe('a run against a slow engine', () => {
  it('is served when its answers come after the idle limit but within --timeout: every check that reads them passes', async () => {
    const results = await runSlowMock(800, { ...LIMITS, deadlineMs: ONLY_A_HANG_MS });
    expect(results.map((r) => r.id).sort()).toEqual([...READ_THE_ANSWER].sort());
    expect(notPassing(results)).toEqual([]);
  });

  it("leaves one whose answer comes past --timeout not-tested, naming --timeout: the kit's limit is no failure of the server", async () => {
    // An engine that never answers within the test.
    const results = await runSlowMock(600_000, { ...LIMITS, deadlineMs: 1_000 });
    for (const r of results) {
      expect([r.id, r.outcome, r.unjudged], r.message).toEqual([r.id, 'not-tested', 'cut']);
      expect(r.blockedBy).toBeUndefined();
    }
    const r = results.find((x) => x.id === 'chat.stream-false')!;
    expect(r.message).toMatch(/no status line and headers within --timeout 1000 ms; raise --timeout to judge it/);
    expect(r.message).not.toMatch(/idle|silent/);
  });
});
