// The kit's own limits are never the server's failure (issue 45). A slow engine whose streams fall
// silent in the middle (the fault stream-pause, its pause a parameter so that a test waits little)
// passes every check with an idle limit above the pause; below it, what the kit cut is not-tested,
// naming --idle-timeout, and no must fails. The idle limit is undici's, whose clock ticks every half
// second and counts ticks, not time: it fires no sooner than the limit less a tick, and later on a
// busy machine. So the pause under a limit above it is a fraction of that limit less a tick, and the
// pause a limit cuts never ends within the test, as a deadline is proven against a server that never
// answers. The hostile transports the kit can only cut (headers then
// nothing, a drip, an endless stream, 100 MB) fail nothing for the cut, and what they leave unjudged
// names the option that would let it through.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { faultNamed } from '../../mock/core/faults/index.js';
import { startMockServer } from '../../mock/http.js';
import { CHECKS } from '../../suites/index.js';
import { runChecks } from '../../engine/runner.js';
import { shortOfJudgement } from '../../report/report.js';
import type { CheckResult } from '../../engine/check.js';
import { KEY, notPassing, runAgainstMock, SECOND_KEY } from '../support/run.js';
import { ABOUT_TIME } from '../support/fault-sweep.js';

/** The pause of the slow engine's streams, and an idle limit it stays under whatever undici's clock. */
const PAUSE_MS = 400;
const IDLE_ABOVE_MS = 2_500;
/** An idle limit, and a pause that outlasts it and the test. */
const IDLE_BELOW_MS = 100;
const FOREVER_MS = 600_000;
const slowEngine = (ms: number) => createMock(undefined, { faults: [`stream-pause; ms=${ms}`] });

/** The paths a check was left unjudged on by the kit's cut. */
const cutPaths = (r: CheckResult) => (r.paths ?? [r]).filter((p) => p.outcome === 'not-tested' && p.unjudged === 'cut');

describe('a slow engine whose streams fall silent in the middle', () => {
  it('passes every check with an idle limit above the pause', async () => {
    const results = await runAgainstMock(CHECKS, { mock: slowEngine(PAUSE_MS), idleTimeoutMs: IDLE_ABOVE_MS });
    expect(notPassing(results)).toEqual([]);
  });

  it('below it, leaves the streams the kit cut not-tested, naming --idle-timeout, and fails no must', async () => {
    const results = await runAgainstMock(CHECKS, { mock: slowEngine(FOREVER_MS), idleTimeoutMs: IDLE_BELOW_MS });
    const all = [...results.values()];
    const failedMusts = all.filter((r) => r.level === 'must' && (r.outcome === 'fail' || r.outcome === 'flaky')).map((r) => `${r.id}: ${r.message}`);
    expect(failedMusts).toEqual([]);
    // Only the rule whose subject is the kit's limits may fail on it, at should, naming the option.
    const failed = all.filter((r) => r.outcome === 'fail' || r.outcome === 'flaky');
    for (const r of failed) {
      expect(r.id, r.message).toBe('fuzz.within-timeout');
      expect(r.message).toMatch(/--idle-timeout/);
    }
    const complete = results.get('stream.complete')!;
    expect(complete.outcome, complete.message).toBe('not-tested');
    expect(complete.unjudged).toBe('cut');
    expect(complete.message).toMatch(/server silent for 100 ms in the body \(--idle-timeout\); raise --idle-timeout to judge it/);
    // Every stream rule that needs the stream's end says why it could not judge, and blames no check.
    for (const id of ['stream.done-marker', 'stream.one-finish-reason', 'usage.stream-present', 'chat.finish-reason']) {
      const r = results.get(id)!;
      expect(cutPaths(r).length, `${id}: ${r.outcome}: ${r.message}`).toBeGreaterThan(0);
      for (const p of cutPaths(r)) {
        expect(p.message).toMatch(/raise --idle-timeout to judge it/);
        expect(p.blockedBy).toBeUndefined();
      }
    }
    // What came before the pause is judged all the same: the chunks that came are sound.
    for (const id of ['stream.content-type', 'stream.events', 'stream.chunk-json', 'stream.chunk-schema', 'stream.first-delta-role']) expect(results.get(id)!.outcome, id).toBe('pass');
    // The JSON path never pauses: its rules are judged in full.
    expect(results.get('chat.response-shape')!.outcome).toBe('pass');
  });
});

/** Hostile transports the kit can only cut: their defect, if any, is past what the kit waits for or keeps. */
const CUT_ONLY: Record<string, RegExp> = {
  'hostile-headers-then-nothing': /raise --(idle-timeout|timeout) to judge it/,
  'hostile-drip': /raise --(idle-timeout|timeout) to judge it/,
  'hostile-stream-forever': /raise --timeout to judge it/,
  'hostile-hundred-megabytes': /raise --(max-body|timeout) to judge it/,
};
/** The transport's words for each of the kit's cuts: a failure that says them charges the server with
 * the cut, but where it judged what came before it (a 200 to a request that must be refused). */
const CUT_WORDS = /server silent for|within --timeout|--max-body/;
const JUDGED_BEFORE_THE_CUT = /served \(status 2\d\d then /;

describe.concurrent.each(Object.keys(CUT_ONLY))('a run against %s, which the kit can only cut', (name) => {
  it("charges no check with the kit's cut, names the option on what it left unjudged, and is short of judgement", async () => {
    const server = await startMockServer({ mock: createMock(undefined, { faults: [faultNamed(name)] }) });
    try {
      const { results } = await runChecks(CHECKS, {
        target: { baseUrl: server.url, siteUrl: server.url, siteUrlExplicit: true, apiKey: KEY, secondApiKey: SECOND_KEY, models: ['mock-chat-1'], headers: {}, embeddedMock: false },
        // The hostile transports never answer whole: any limit cuts them.
        limits: { connectTimeoutMs: 300, idleTimeoutMs: 300, deadlineMs: 600, maxBodyBytes: 64 * 1024 },
        concurrency: 8,
        retry: { maxRetries: 0, maxWaitMs: 0 },
      });
      const charged = results.flatMap((r) =>
        // The rules whose subject is the kit's limits judge its cuts, as a client gives up where the kit does.
        ABOUT_TIME.includes(r.id)
          ? []
          : (r.paths ?? [r])
              .filter((p) => (p.outcome === 'fail' || p.outcome === 'flaky') && CUT_WORDS.test(p.message ?? '') && !JUDGED_BEFORE_THE_CUT.test(p.message ?? ''))
              .map((p) => `${r.id}: ${p.message}`),
      );
      expect(charged).toEqual([]);
      const cut = results.flatMap(cutPaths);
      expect(cut.length).toBeGreaterThan(0);
      for (const p of cut) expect(p.message).toMatch(CUT_ONLY[name]);
      // A run the kit's limits left unjudged is no pass: the gate weighs what they kept from judging.
      expect(shortOfJudgement(results)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
