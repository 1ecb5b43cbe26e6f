// The stop suite passes against the correct mock; its failures name what they found, and its rules
// are not-tested where they cannot be judged. That each check fails against a mock broken in the one
// way it is about is proven by the fault catalogue (test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isChat, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { STOP } from '../../suites/stop.js';
import { declaring, notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

const stopsOf = (request: Record<string, any> | undefined): string[] => (request?.stop == null ? [] : [request.stop].flat());

async function outcomes(ids: string[], mock: Mock) {
  const results = await runAgainstMock(
    STOP.filter((c) => ids.includes(c.id)),
    { mock },
  );
  return ids.map((id) => results.get(id)!);
}

describe('stop suite', () => {
  it('passes against the correct mock', async () => {
    const results = await runAgainstMock(STOP);
    expect(notPassing(results), notPassing(results).join('\n')).toEqual([]);
    expect(results.size).toBe(STOP.length);
  });

  it('passes on the reasoning model, which declares no temperature', async () => {
    const temperatures: unknown[] = [];
    const mock = rewrittenMock(
      (_req, reply) => reply,
      (req) => {
        if (isChat(req)) temperatures.push(requestJson(req)?.temperature);
        return req;
      },
    );
    const results = await runAgainstMock(STOP, { mock, target: { models: ['mock-reason-1'] } });
    expect(notPassing(results), notPassing(results).join('\n')).toEqual([]);
    expect(new Set(temperatures)).toEqual(new Set([undefined]));
  });

  it('stop.array sends arrays only up to the declared max_items', async () => {
    const sizes: number[] = [];
    const mock = declaring(
      (params) => void (params.stop.max_items = 2),
      (req) => {
        const stop = requestJson(req)?.stop;
        if (isChat(req) && Array.isArray(stop)) sizes.push(stop.length);
      },
    );
    const [r] = await outcomes(['stop.array'], mock);
    expect(r.outcome, r.message).toBe('pass');
    expect(new Set(sizes)).toEqual(new Set([1, 2]));
    expect(r.notes?.[0]).toContain('stop.max_items 2');
  });

  it('picks the stop sequences from the answer itself: a word in its middle, and a span across two words', async () => {
    const stops = new Set<string>();
    // A server that ignores the prompt and always says the same thing of its own.
    const mock = rewrittenMock(
      (req, reply) => {
        const request: Record<string, any> | undefined = requestJson(req);
        if (!isChat(req) || !String(request?.messages?.[0]?.content).startsWith('Repeat exactly') || request?.stream) return reply;
        const own = 'The quick brown fox jumps over the lazy dog';
        const cut = stopsOf(request)
          .map((s) => own.indexOf(s))
          .filter((i) => i >= 0);
        return withJson(reply, (b) => {
          b.choices[0].message.content = cut.length ? own.slice(0, Math.min(...cut)) : own;
          b.choices[0].finish_reason = 'stop';
        });
      },
      (req) => {
        for (const s of stopsOf(requestJson(req))) stops.add(s);
        return req;
      },
    );
    const results = await runAgainstMock(
      STOP.filter((c) => c.paths?.form),
      { mock, target: { models: ['mock-chat-1'] } },
    );
    expect([...stops].filter((s) => !s.startsWith('~~~')).sort()).toEqual(['over', 'ps ov']);
    for (const r of results.values())
      expect(
        r.paths!.filter((p) => p.label.startsWith('json')).map((p) => p.outcome),
        r.id,
      ).toEqual(['pass', 'pass', 'pass']);
  });

  it('the rules that need a known cut are not-tested when the output does not reproduce', async () => {
    let n = 0;
    const mock = rewrittenMock((req, reply) => {
      const request = requestJson(req);
      if (!isChat(req) || stopsOf(request).length || request?.stream) return reply;
      return withJson(reply, (b) => void (b.choices[0].message.content += ` (answer ${++n})`));
    });
    for (const r of await outcomes(['stop.exact-prefix', 'stop.ends-generation'], mock)) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toContain('the answer does not reproduce');
    }
  });

  it('a server that refuses every stop sequence fails the checks whose requests it refused, and leaves the rules that need a cut unjudged, blocked by them', async () => {
    const mock = rewrittenMock((req, reply) => (isChat(req) && stopsOf(requestJson(req)).length ? errorReply(400, 'stop is not supported', 'invalid_request_error') : reply));
    const [string, notIn] = await outcomes(['stop.string', 'stop.not-in-content'], mock);
    expect(string.outcome).toBe('fail');
    // Found by asking again without stop, not read from the error's words.
    expect(string.message).toContain('got no answer: stop "echo" was refused (status 400 (stop is not supported)), and the same request without it was served');
    expect(notIn.outcome, notIn.message).toBe('not-tested');
    // Each form's refusal is its owner's by the value sent: a string stop.string's, an array stop.array's.
    expect(notIn.blockedBy).toEqual(['stop.string', 'stop.array']);
    expect(notIn.message).toContain('was refused (status 400 (stop is not supported)), and the same request without it was served; see stop.string');
  });

  it('each failure names its path: stream or not, model, form', async () => {
    const [r] = await outcomes(['stop.not-in-content'], createMock(undefined, { faults: ['stop-left-in-content-mock-reason-1'] }));
    expect(r.message).toMatch(/^\[json, mock-reason-1, stop string\] the content contains the stop sequence "echo": "alpha bravo charlie delta echo"/);
    expect(r.paths!.filter((p) => p.outcome === 'fail').length).toBe(6);
  });

  it('five sequences answered 404 or 500 are no refusal', async () => {
    for (const fault of ['stop-five-404', 'stop-five-500']) {
      const [r] = await outcomes(['stop.five-refused'], createMock(undefined, { faults: [fault] }));
      expect(r.outcome, fault).toBe('fail');
      expect(r.message).toMatch(/is (a server error|missing), not|says the route/);
    }
  });
});
