// The structured suite passes against the mock, is not tested where the catalog does not declare
// response_format, and does not judge output cut by the token limit. That each check fails on a mock
// broken in the one way it looks for is proven by the fault catalogue
// (mock/core/faults/structured.ts, test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import type { Fault } from '../../mock/core/faults/fault.js';
import { isChat, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { STRUCTURED } from '../../suites/structured.js';
import { expectNotTestedWithout, notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

describe('structured suite', () => {
  it('passes against the mock', async () => {
    const results = await runAgainstMock(STRUCTURED);
    expect(notPassing(results)).toEqual([]);
  });

  it('json_schema output cut by the token limit is not-tested, not judged', async () => {
    // Not a deviation: a completion that reached max_tokens may end mid-JSON.
    const cut: Fault = {
      name: 'json-schema-cut',
      description: 'json_schema output cut by the token limit',
      fails: [],
      reply: (r, req) =>
        (isChat(req) ? (requestJson(req)?.response_format as { type?: unknown } | undefined)?.type : undefined) !== 'json_schema'
          ? r
          : withJson(r, (b) => {
              b.choices[0].message.content = '{"name":"Ada","a';
              b.choices[0].finish_reason = 'length';
            }),
    };
    const r = (await runAgainstMock(STRUCTURED, { mock: createMock(undefined, { faults: [cut] }) })).get('structured.json-schema')!;
    expect(r.outcome, r.message).toBe('not-tested');
    expect(r.message).toMatch(/finish_reason is "length"/);
  });

  it('has no path where the catalog declares response_format for no model under test', async () => {
    await expectNotTestedWithout(STRUCTURED, 'response_format');
  });

  it('runs without a catalog too, and passes a server that serves structured output', async () => {
    const m = createMock();
    const mock = rewrittenMock((req, r) => (req.path.startsWith('/models.json') ? errorReply(404, 'no catalog', 'not_found') : r), undefined, m);
    const results = await runAgainstMock(STRUCTURED, { mock });
    expect(notPassing(results)).toEqual([]);
  });
});
