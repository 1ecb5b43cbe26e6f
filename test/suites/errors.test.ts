// The errors suite passes the correct mock, and a missing prerequisite reports not-tested. That
// each check fails is proven by the fault catalogue (mock/core/faults/errors.ts, test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { isModels, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { CHAT } from '../../suites/chat.js';
import { ERRORS } from '../../suites/errors.js';
import { expectPassesCorrectMock, MAY_SKIP, mockWith, runAgainstMock } from '../support/run.js';

describe('errors suite', () => {
  it('passes the correct mock', async () => {
    await expectPassesCorrectMock(ERRORS);
  });

  it('proves nothing (not-tested) when the primary key itself is refused', async () => {
    const results = await runAgainstMock(ERRORS, { target: { apiKey: 'sk-not-a-key-of-the-mock-000000' } });
    expect([...results.values()].filter((r) => r.outcome !== 'not-tested' && !MAY_SKIP.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it('checks that need a model are not-tested when none is listed, the others still run', async () => {
    const mock = mockWith({ reply: (r, req) => (isModels(req) ? withJson(r, (b) => void (b.data = [])) : r) });
    const results = await runAgainstMock(ERRORS, { mock });
    const outcome = (id: string) => results.get(id)?.outcome;
    for (const id of ['errors.missing-messages', 'errors.messages-not-array', 'errors.unknown-role']) expect(outcome(id), id).toBe('not-tested');
    for (const id of ['errors.missing-model', 'errors.invalid-json', 'errors.unknown-model', 'errors.error-body']) expect(outcome(id), id).toBe('pass');
    expect(outcome('errors.missing-field-4xx')).toBe('not-tested');
    expect(results.get('errors.missing-messages')?.message).toMatch(/--model/);
  });

  it('a streamed request with bad input answered with a stream that carries an error event fails, naming the stream path', async () => {
    const results = await runAgainstMock(ERRORS, { mock: createMock(undefined, { faults: ['errors-streamed-error-event'] }) });
    const r = results.get('errors.missing-model')!;
    expect(r.outcome).toBe('fail');
    expect(r.message).toBe(
      '[stream] a request without model got no error answer: it was answered status 200 with a stream that carries an error event, instead of an HTTP error; the request is incomplete without it',
    );
  });

  it('errors.content-filter skips when nothing was filtered, passes a filtered completion, fails a filter told as an error', async () => {
    // It judges what the other checks received: the developer conversation is the chat suite's.
    const checks = [...ERRORS, ...CHAT.filter((c) => c.id === 'chat.role.developer')];
    const run = async (mock?: ReturnType<typeof createMock>) => (await runAgainstMock(checks, { mock })).get('errors.content-filter')!;
    expect((await run()).outcome).toBe('skip');
    const filteredOk = mockWith({
      reply: (r, req) => (requestJson(req)?.stream === true ? r : withJson(r, (b) => void (b.choices && (b.choices[0].finish_reason = 'content_filter')))),
    });
    const ok = await run(filteredOk);
    expect(ok.outcome, ok.message).toBe('pass');
    const asError = await run(createMock(undefined, { faults: ['errors-content-filter-as-error'] }));
    expect(asError.outcome).toBe('fail');
    expect(asError.message).toContain('a content filter is a completed response (7), not an error');
  });
});
