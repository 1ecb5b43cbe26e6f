// The stop suite passes against the correct mock, and each of its checks fails against a mock broken
// in the one way the check is about.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, isChat, requestJson, withJson, withPayloads, withRequestJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { isStream, type MockReply, type MockRequest } from '../../mock/core/types.js';
import { STOP } from '../../suites/stop.js';
import { notPassing, runAgainstMock } from '../support/run.js';

/** The correct mock with its requests and replies rewritten. */
const broken = (edit: (req: MockRequest, reply: MockReply) => MockReply, editRequest: (req: MockRequest) => MockRequest = (r) => r): Mock => {
  const m = createMock();
  return {
    config: m.config,
    handle: (req) => {
      const r = editRequest(req);
      return edit(r, m.handle(r));
    },
  };
};

const stopsOf = (request: Record<string, any> | undefined): string[] => (request?.stop == null ? [] : [request.stop].flat());

/** Rewrites replies to chat requests that carry stop sequences: JSON bodies and stream payloads. */
const onStopped = (json: (body: any, stops: string[]) => void, payloads?: (ps: any[], stops: string[]) => void) =>
  broken((req, reply) => {
    const stops = stopsOf(requestJson(req));
    if (!isChat(req) || !stops.length || reply.hasOwnProperty('raw')) return reply;
    if (isStream(reply)) return payloads ? withPayloads(reply, (ps) => (payloads(ps, stops), ps)) : reply;
    return withJson(reply, (b) => json(b, stops));
  });

const contentChunkOf = (ps: any[], content: string) => ({ ...ps[0], choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const finishAt = (ps: any[]) => ps.findIndex((p) => p?.choices?.[0]?.finish_reason);

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
    const mock = broken(
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

  const FAULTS: [string[], string, Mock][] = [
    [['stop.string', 'stop.array', 'stop.five-4xx'], 'stop answered with a 500', broken((req, reply) => (isChat(req) && stopsOf(requestJson(req)).length ? errorReply(500, 'internal error', 'server_error') : reply))],
    [['stop.five-refused', 'stop.five-4xx'], 'five stop sequences accepted', broken((_req, reply) => reply, (req) => (isChat(req) ? withRequestJson(req, (b) => void (Array.isArray(b.stop) && (b.stop = b.stop.slice(0, 4)))) : req))],
    [['stop.five-4xx'], 'five stop sequences refused with a 500', broken((req, reply) => (isChat(req) && stopsOf(requestJson(req)).length === 5 ? errorReply(500, 'too many stop sequences', 'server_error') : reply))],
    [['stop.five-4xx'], 'five stop sequences refused with a text body', broken((req, reply) => (isChat(req) && stopsOf(requestJson(req)).length === 5 ? { status: 400, headers: { 'content-type': 'text/plain' }, body: 'too many stop sequences' } : reply))],
    [
      ['stop.not-in-content', 'stop.exact-prefix', 'stop.stream-split'],
      'the stop sequence left in the content',
      onStopped(
        (b, stops) => void (b.choices[0].message.content += stops[0]),
        (ps, stops) => void ps.splice(finishAt(ps), 0, contentChunkOf(ps, stops[0])),
      ),
    ],
    [
      ['stop.exact-prefix', 'stop.stream-split'],
      'the content cut at a wrong place',
      onStopped(
        (b) => void (b.choices[0].message.content = b.choices[0].message.content.slice(0, -2)),
        (ps) => void ps.splice(finishAt(ps) - 1, 1),
      ),
    ],
    [['stop.exact-prefix'], 'finish_reason "length" at a stop sequence', onStopped((b) => void (b.choices[0].finish_reason = 'length'))],
    [['stop.stream-split'], 'stop sequences ignored when streaming', broken((_req, reply) => reply, (req) => (isChat(req) ? withRequestJson(req, (b) => void (b.stream && delete b.stop)) : req))],
  ];

  it.concurrent.each(FAULTS)('%j fail against a mock with %s', async (ids, _what, mock) => {
    for (const r of await outcomes(ids, mock)) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('fail');
      expect(r.evidence.length).toBeGreaterThan(0);
    }
  });

  it('stop.array sends arrays only up to the declared max_items', async () => {
    const sizes: number[] = [];
    const mock = broken(
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
    const mock = broken((req, reply) => {
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
    const mock = broken((req, reply) => (isChat(req) && stopsOf(requestJson(req)).length ? errorReply(400, 'stop is not supported', 'invalid_request_error') : reply));
    const [r] = await outcomes(['stop.not-in-content'], mock);
    expect(r.outcome, r.message).toBe('not-tested');
  });

  it('each check names its model', async () => {
    const mock = onStopped((b, stops) => void (b.choices[0].message.content += stops[0]));
    const [r] = await outcomes(['stop.not-in-content'], mock);
    expect(r.message).toMatch(/^mock-chat-1: the answer with stop "charlie" contains "charlie": .*; the answer with stop \["charlie"\] contains/);
  });
});
