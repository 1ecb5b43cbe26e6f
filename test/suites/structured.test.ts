// The structured suite passes against the mock, and each of its checks fails against a mock broken
// in the one way that check looks for.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { MockConfig } from '../../mock/config/types.js';
import { errorReply } from '../../mock/core/errors.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { isChat, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { STRUCTURED } from '../../suites/structured.js';
import { notPassing, runAgainstMock } from '../support/run.js';

type Body = Record<string, any>;

/** The mock with the first choice of its replies to one kind of response_format rewritten. */
const broken = (kind: string, edit: (choice: Body) => void): Mock => {
  const m = createMock();
  return {
    config: m.config,
    handle: (req: MockRequest): MockReply => {
      const reply = m.handle(req);
      const body = isChat(req) ? requestJson(req) : undefined;
      if (body?.response_format?.type !== kind) return reply;
      return withJson(reply, (b) => {
        edit(b.choices[0]);
      });
    },
  };
};

const withoutParameter = (name: string): MockConfig => ({
  ...DEFAULT_CONFIG,
  models: DEFAULT_CONFIG.models.map((m) => ({ ...m, parameters: Object.fromEntries(Object.entries(m.parameters).filter(([k]) => k !== name)) })),
});

const FAULTS: [string, string, Mock][] = [
  ['structured.json-object', 'json_object content that is not JSON', broken('json_object', (c) => (c.message.content = 'Here is your cat: {"name": "Tom"}'))],
  ['structured.json-object', 'json_object content in a code fence', broken('json_object', (c) => (c.message.content = '```json\n{"name": "Tom"}\n```'))],
  ['structured.json-object', 'json_object content that is an array', broken('json_object', (c) => (c.message.content = '["Tom", "grey"]'))],
  ['structured.json-schema', 'json_schema output with a negative age', broken('json_schema', (c) => (c.message.content = '{"name":"Ada","age":-1,"tags":[]}'))],
  ['structured.json-schema', 'json_schema output missing a required key and adding another', broken('json_schema', (c) => (c.message.content = '{"name":"Ada","age":36,"nickname":"A"}'))],
  ['structured.json-schema', 'json_schema output that is not JSON', broken('json_schema', (c) => (c.message.content = '{"name":"Ada",'))],
];

describe('structured suite', () => {
  it('passes against the mock', async () => {
    const results = await runAgainstMock(STRUCTURED);
    expect(notPassing(results)).toEqual([]);
  });

  it.concurrent.each(FAULTS)('%s fails on %s', async (id, _what, mock) => {
    const results = await runAgainstMock(STRUCTURED, { mock });
    const r = results.get(id)!;
    expect(r.outcome, `${id}: ${r.message}`).toBe('fail');
  });

  it('json_schema output cut by the token limit is not-tested, not judged', async () => {
    const mock = broken('json_schema', (c) => {
      c.message.content = '{"name":"Ada","a';
      c.finish_reason = 'length';
    });
    const r = (await runAgainstMock(STRUCTURED, { mock })).get('structured.json-schema')!;
    expect(r.outcome, r.message).toBe('not-tested');
    expect(r.message).toMatch(/finish_reason is "length"/);
  });

  it('is not-tested when the catalog entry does not declare response_format', async () => {
    const results = await runAgainstMock(STRUCTURED, { mock: createMock(withoutParameter('response_format')) });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toMatch(/does not declare response_format/);
    }
  });

  it('is not-tested when the catalog is missing', async () => {
    const m = createMock();
    const mock: Mock = { config: m.config, handle: (req) => (req.path.startsWith('/models.json') ? errorReply(404, 'no catalog', 'not_found') : m.handle(req)) };
    const results = await runAgainstMock(STRUCTURED, { mock });
    for (const r of results.values()) expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
  });
});
