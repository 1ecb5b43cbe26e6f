// The stop suite passes against the correct mock; its failures name what they found, and its rules
// are not-tested where they cannot be judged. That each check fails against a mock broken in the one
// way it is about is proven by the fault catalogue (test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, isChat, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { STOP } from '../../suites/stop.js';
import { notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';


const stopsOf = (request: Record<string, any> | undefined): string[] => (request?.stop == null ? [] : [request.stop].flat());

async function outcomes(ids: string[], mock: Mock) {
  const results = await runAgainstMock(STOP.filter((c) => ids.includes(c.id)), { mock });
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
    const mock = rewrittenMock(
      (req, reply) =>
        isCatalog(req)
          ? withJson(reply, (doc) => {
              for (const m of doc.data) m.output_modalities[0].supported_parameters.stop.max_items = 2;
            })
          : reply,
      (req) => {
        const stop = requestJson(req)?.stop;
        if (isChat(req) && Array.isArray(stop)) sizes.push(stop.length);
        return req;
      },
    );
    const [r] = await outcomes(['stop.array'], mock);
    expect(r.outcome, r.message).toBe('pass');
    expect(sizes.sort()).toEqual([1, 2]);
    expect(r.notes?.[0]).toContain('stop.max_items 2');
  });

  it('stop.exact-prefix and stop.stream-split are not-tested when the output does not reproduce', async () => {
    const mock = rewrittenMock((req, reply) => {
      const request = requestJson(req);
      if (!isChat(req) || stopsOf(request).length) return reply;
      return withJson(reply, (b) => void (b.choices[0].message.content += ` (seed ${request?.seed})`));
    });
    for (const r of await outcomes(['stop.exact-prefix', 'stop.stream-split'], mock)) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toContain('output does not reproduce');
    }
  });

  it('stop.not-in-content is not-tested when every stopped request is refused', async () => {
    const mock = rewrittenMock((req, reply) => (isChat(req) && stopsOf(requestJson(req)).length ? errorReply(400, 'stop is not supported', 'invalid_request_error') : reply));
    const [r] = await outcomes(['stop.not-in-content'], mock);
    expect(r.outcome, r.message).toBe('not-tested');
  });

  it('each check names its model', async () => {
    const [r] = await outcomes(['stop.not-in-content'], createMock(undefined, { faults: ['stop-left-in-content'] }));
    expect(r.message).toMatch(/^mock-chat-1: the answer with stop "charlie" contains "charlie": .*; the answer with stop \["charlie"\] contains/);
  });
});
