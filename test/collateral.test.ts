// Collateral MUST failures measured on real servers (issue 42), each shown by a fault that behaves as
// the server did (mock/core/faults/collateral.ts): an error that says why, told with a 5xx, holds
// the MUST of a request the document says cannot be served, and fails the convention's status alone;
// a usage a stream gives twice is read once, the first that counts, and the second is the duplicate's
// rule's; a finishing choice without a delta still gives its finish_reason.
import { describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { faultNamed } from '../mock/core/faults/index.js';
import { isChat, requestJson, withPayloads } from '../mock/core/faults/rewrite.js';
import type { MockReply, MockRequest } from '../mock/core/types.js';
import { CHECKS } from '../suites/index.js';
import { mockWith, runAgainstMock } from './support/run.js';

const only = (...ids: string[]) => CHECKS.filter((c) => ids.includes(c.id));
const ON_ONE_MODEL = { models: ['mock-chat-1'] };
const withFault = (name: string) => createMock(undefined, { faults: [faultNamed(name)] });

describe('an error that says why, told with a 5xx (class 3)', () => {
  it('holds the MUST of a request without model or messages and of five stops; the status fails its should alone', async () => {
    const results = await runAgainstMock(only('errors.missing-model', 'errors.missing-messages', 'stop.five-refused', 'errors.missing-field-4xx', 'stop.five-4xx'), {
      mock: withFault('errors-incomplete-500-with-error'),
      target: ON_ONE_MODEL,
    });
    for (const [id, note] of [
      ['errors.missing-model', "a request without model was refused with status 500, with an error that says why (Model is required): its status is errors.missing-field-4xx's to judge"],
      ['errors.missing-messages', "a request without messages was refused with status 500, with an error that says why (Messages are required): its status is errors.missing-field-4xx's to judge"],
      ['stop.five-refused', "five stop sequences were refused with status 500, with an error that says why ('stop' may hold at most 4 sequences): its status is stop.five-4xx's to judge"],
    ]) {
      const r = results.get(id)!;
      expect([r.outcome, r.level], r.message).toEqual(['pass', 'must']);
      for (const path of r.paths!) expect(path.notes, `${id} [${path.label}]`).toContain(note);
    }
    for (const id of ['errors.missing-field-4xx', 'stop.five-4xx']) {
      const r = results.get(id)!;
      expect([r.outcome, r.level]).toEqual(['fail', 'should']);
      expect(r.message).toMatch(/status 500/);
    }
  });

  /** A request without model answered with `reply` instead of the mock's refusal. */
  const missingModelAnswered = (reply: MockReply) => mockWith({ reply: (r: MockReply, req: MockRequest) => (isChat(req) && requestJson(req) && !('model' in requestJson(req)!) ? reply : r) });
  const json = (status: number, body: unknown): MockReply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.concurrent.each([
    ['a 500 in plain text', { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' }, /status 500 is a server error, not a refusal, and no error body says why/],
    ['a 500 whose error has a blank message', json(500, { error: { message: ' ', type: 'server_error' } }), /no error body says why/],
    ['a 500 whose error is a string, not an object with a message', json(500, { error: 'Model is required' }), /no error body says why/],
    ['a 503 that says why: busy, not a refusal', json(503, { error: { message: 'Model is required' } }), /status 503 is a server error, not a refusal \(Model is required\);/],
    ['a 405', json(405, { error: { message: 'Model is required' } }), /status 405 says the route is missing/],
  ] as const)('%s holds nothing', async (_what, reply, why) => {
    const results = await runAgainstMock(only('errors.missing-model'), { mock: missingModelAnswered(reply as MockReply), target: ON_ONE_MODEL });
    const r = results.get('errors.missing-model')!;
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toMatch(why);
  });

  it('no refusal without a control: a server that answers every chat request 500 with an error proves nothing', async () => {
    const everyChat500 = mockWith({ reply: (r, req) => (isChat(req) ? json(500, { error: { message: 'The upstream is down.' } }) : r) });
    const results = await runAgainstMock(only('errors.missing-model', 'errors.missing-messages', 'stop.five-refused'), { mock: everyChat500, target: ON_ONE_MODEL });
    for (const id of ['errors.missing-model', 'errors.missing-messages', 'stop.five-refused']) {
      const r = results.get(id)!;
      expect(r.outcome, `${id}: ${r.message}`).toBe('not-tested');
    }
    expect(results.get('errors.missing-model')!.message).toMatch(/an error answer proves nothing without a served request/);
    expect(results.get('stop.five-refused')!.message).toMatch(/the control failed: stop as an array of 4 was not served/);
  });
});

describe('a value a stream gives twice (class 4)', () => {
  const MUSTS_ON_USAGE = ['chat.length-only-at-cap', 'chat.max-tokens', 'usage.stream-present'];
  const SHOULDS_ON_USAGE = ['usage.stream-shape', 'usage.stream-counts', 'usage.stream-total', 'usage.stream-position'];

  it('a trailer of zeros after the real usage fails usage.stream-single alone: the rules on the usage read the real one', async () => {
    const results = await runAgainstMock(only(...MUSTS_ON_USAGE, ...SHOULDS_ON_USAGE, 'usage.stream-single'), { mock: withFault('usage-stream-zeros-trailer'), target: ON_ONE_MODEL });
    for (const id of [...MUSTS_ON_USAGE, ...SHOULDS_ON_USAGE]) expect(results.get(id)!.outcome, `${id}: ${results.get(id)!.message}`).toBe('pass');
    const single = results.get('usage.stream-single')!;
    expect([single.outcome, single.level]).toEqual(['fail', 'should']);
    expect(single.message).toMatch(/2 chunks carry a usage/);
  });

  it('a usage of zeros before the real one is read past as well', async () => {
    const zerosFirst = mockWith({
      reply: (r, req) =>
        isChat(req) && requestJson(req)?.stream === true
          ? withPayloads(r, (ps) => {
              const at = ps.findIndex((p) => typeof p === 'object' && !!p?.usage);
              return at < 0 ? ps : [...ps.slice(0, at), { ...ps[at], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }, ...ps.slice(at)];
            })
          : r,
    });
    const results = await runAgainstMock(only(...MUSTS_ON_USAGE, 'usage.stream-counts', 'usage.stream-shape', 'usage.stream-single'), { mock: zerosFirst, target: ON_ONE_MODEL });
    for (const id of [...MUSTS_ON_USAGE, 'usage.stream-counts', 'usage.stream-shape']) expect(results.get(id)!.outcome, `${id}: ${results.get(id)!.message}`).toBe('pass');
    expect(results.get('usage.stream-single')!.outcome).toBe('fail');
  });
});

describe('a finishing chunk whose choice has no delta (class 5)', () => {
  it('gives its finish_reason all the same: the missing delta fails stream.chunk-schema alone', async () => {
    const results = await runAgainstMock(only('chat.finish-reason', 'chat.natural-stop', 'chat.length-only-at-cap', 'stream.one-finish-reason', 'stream.chunk-schema'), {
      mock: withFault('stream-finish-without-delta'),
      target: ON_ONE_MODEL,
    });
    for (const id of ['chat.finish-reason', 'chat.natural-stop', 'chat.length-only-at-cap', 'stream.one-finish-reason'])
      expect(results.get(id)!.outcome, `${id}: ${results.get(id)!.message}`).toBe('pass');
    const schema = results.get('stream.chunk-schema')!;
    expect([schema.outcome, schema.level]).toEqual(['fail', 'should']);
    expect(schema.message).toMatch(/must have required property 'delta'/);
  });

  it('and that finish_reason is judged: one outside the four still fails chat.finish-reason', async () => {
    const eosWithoutDelta = mockWith({
      reply: (r, req) =>
        isChat(req) && requestJson(req)?.stream === true
          ? withPayloads(r, (ps) =>
              ps.map((p) => {
                const choice = typeof p === 'object' ? p?.choices?.[0] : undefined;
                return choice?.finish_reason ? { ...p, choices: [{ index: 0, finish_reason: 'eos' }] } : p;
              }),
            )
          : r,
    });
    const results = await runAgainstMock(only('chat.finish-reason', 'stream.chunk-schema'), { mock: eosWithoutDelta, target: ON_ONE_MODEL });
    const finish = results.get('chat.finish-reason')!;
    expect([finish.outcome, finish.level]).toEqual(['fail', 'must']);
    expect(finish.message).toMatch(/finish_reason "eos" is not one of stop, length, tool_calls, content_filter/);
    expect(finish.paths!.filter((p) => p.outcome === 'fail').every((p) => p.label.startsWith('stream'))).toBe(true);
  });
});
