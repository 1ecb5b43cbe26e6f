// What a load's judge says of a request that did not end well in time: no first byte within
// --timeout, a body that fell silent past the idle limit (said to be the idle limit, not --timeout),
// an answer cut at --max-body (judged by no rule, saying so), a request the run's stop cut short (not
// judged at all); and the step's slowest request counts
// those that waited out a timeout, not only those served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stallingServer, type StallingServer } from '../../bench/hostile-servers.js';
import { HttpClient, type Limits, type RequestSpec } from '../../engine/http.js';
import { sendTimed } from '../../engine/load.js';
import { startMockServer, type MockServer } from '../../mock/http.js';
import { basicBody } from '../../suites/chat.js';
import { Judge, keeperFor, Step } from '../../suites/load/judge.js';
import { Redactor } from '../../engine/redact.js';
import { EACH_RULES } from '../../suites/load/session.js';
import type { Item } from '../../suites/load/workload.js';
import { KEY } from '../support/run.js';

// Proven against servers that never answer (a drip, a silent body): any limit cuts them.
const LIMITS: Limits = { connectTimeoutMs: 1_000, idleTimeoutMs: 300, deadlineMs: 1_500, maxBodyBytes: 64 * 1024 };
const MODEL = 'mock-chat-1';

let mock: MockServer;
let drip: StallingServer;
let silent: StallingServer;
let http: HttpClient;

beforeAll(async () => {
  [mock, drip, silent] = await Promise.all([startMockServer(), stallingServer('early-hints', { everyMs: 50 }), stallingServer('headers-then-silence')]);
  http = new HttpClient(LIMITS, undefined, { sweptDeadlines: true });
});

afterAll(async () => {
  await http.close();
  await Promise.all([mock.close(), drip.close(), silent.close()]);
});

/** The basic request, sent to `url`. */
function itemTo(url: string): Item {
  const body = basicBody(MODEL);
  const spec: RequestSpec = { method: 'POST', url: `${url}/v1/chat/completions`, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) };
  return { kind: 'basic', stream: false, label: 'basic chat completion', body, spec };
}

const judge = () => new Judge(EACH_RULES, { model: MODEL, refs: {} }, LIMITS.deadlineMs, undefined);

describe("the load's judge, on requests that did not end in time", () => {
  it('says a request with no first byte within --timeout timed out, and names --timeout', async () => {
    const step = new Step('test', keeperFor(new Redactor()));
    judge().answer(step, itemTo(drip.url), await sendTimed(http, itemTo(drip.url).spec), 0, true);
    expect(step.timedOut).toBe(1);
    expect(step.rules.get('load.no-starvation')!.first!.message).toBe('basic chat completion got no first byte within --timeout 1500 ms (a server this slow by design is let through by raising it)');
  });

  it('says a body that fell silent stalled at the idle limit, not at --timeout', async () => {
    const step = new Step('test', keeperFor(new Redactor()));
    judge().answer(step, itemTo(silent.url), await sendTimed(http, itemTo(silent.url).spec), 0, true);
    expect(step.timedOut).toBe(1);
    const message = step.rules.get('load.no-starvation')!.first!.message;
    expect(message).toBe('basic chat completion stalled after 0 bytes: server silent for 300 ms in the body (--idle-timeout) (a server that pauses this long by design is let through by raising it)');
    expect(message).not.toMatch(/--timeout/);
    // Its headers came: the other rules judge what came, and leave what the kit cut unjudged, saying so.
    const others = [...step.rules].filter(([id]) => id !== 'load.no-starvation');
    expect(others.filter(([, t]) => t.broken).map(([id]) => id)).toEqual([]);
    for (const [id, t] of others.filter(([, t]) => t.unjudged)) expect([id, t.open!.unjudged, t.open!.message]).toEqual([id, 'cut', expect.stringMatching(/raise --idle-timeout to judge it$/)]);
  });

  it('names as the slowest of a step a request that timed out, not the slowest one served', async () => {
    const step = new Step('test', keeperFor(new Redactor()));
    const j = judge();
    const [served, starved] = await Promise.all([sendTimed(http, itemTo(mock.url).spec), sendTimed(http, itemTo(drip.url).spec)]);
    j.answer(step, itemTo(mock.url), served, 0, true);
    j.answer(step, itemTo(drip.url), starved, 0, true);
    expect(step.served).toBe(1);
    expect(step.timedOut).toBe(1);
    expect(step.slowest!.label).toBe('basic chat completion (timed out)');
    expect(step.slowest!.ms).toBeGreaterThanOrEqual(LIMITS.deadlineMs - 1);
  });

  it('judges no rule on what --max-body cut of an answer, and says to raise it', async () => {
    const capped = new HttpClient({ ...LIMITS, maxBodyBytes: 100 }, undefined, { sweptDeadlines: true });
    try {
      const step = new Step('test', keeperFor(new Redactor()));
      judge().answer(step, itemTo(mock.url), await sendTimed(capped, itemTo(mock.url).spec), 0, true);
      expect(step.served).toBe(1);
      const broken = [...step.rules].filter(([, t]) => t.broken).map(([id, t]) => `${id}: ${t.first?.message}`);
      expect(broken).toEqual([]);
      const open = [...step.rules.values()].filter((t) => t.unjudged);
      expect(open.length).toBeGreaterThan(0);
      for (const t of open) expect(t.open!.message).toMatch(/cut at 100 bytes \(--max-body\); reading stopped; raise --max-body to judge it/);
    } finally {
      await capped.close();
    }
  });

  it("does not judge a request the run's stop cut short", async () => {
    const step = new Step('test', keeperFor(new Redactor()));
    const stop = new AbortController();
    const sent = sendTimed(http, itemTo(drip.url).spec, stop.signal);
    setTimeout(() => stop.abort('interrupted (SIGINT)'), 100);
    const answer = await sent;
    expect(answer.error).toEqual({ kind: 'stopped', message: 'the run was stopped (interrupted (SIGINT))' });
    expect(judge().answer(step, itemTo(drip.url), answer, 0, true)).toBeUndefined();
    expect(step.requests).toBe(0);
    expect(step.rules.size).toBe(0);
    expect(step.slowest).toBeUndefined();
  });
});
