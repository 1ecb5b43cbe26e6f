// The errors suite passes the correct mock, each check fails against a mock broken for it, and a
// missing prerequisite reports not-tested.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { Fault } from '../../mock/core/faults/index.js';
import { isChat, isModels, requestJson, withJson, withRequestJson } from '../../mock/core/faults/rewrite.js';
import { createMock } from '../../mock/core/handle.js';
import { isRaw, type MockReply, type MockRequest } from '../../mock/core/types.js';
import { ERRORS } from '../../suites/errors.js';
import { notPassing, runAgainstMock } from '../support/run.js';

const MODEL_IDS = new Set(DEFAULT_CONFIG.models.map((m) => m.id));
const chatError = (r: MockReply, req: MockRequest) => isChat(req) && !isRaw(r) && r.status >= 400;
const lacks = (req: MockRequest, field: string) => isChat(req) && requestJson(req) !== undefined && !(field in requestJson(req)!);
const notJson = (req: MockRequest) => isChat(req) && requestJson(req) === undefined;
const withStatus = (r: MockReply, status: number): MockReply => (isRaw(r) ? r : { ...r, status });

/** A broken mock: one deliberate deviation, and the checks of this suite it must make fail. */
const cases: { name: string; fault: Omit<Fault, 'name' | 'description' | 'fails'>; fails: string[] }[] = [
  {
    name: 'a request without model answers 200 with an error inside',
    fault: { reply: (r, req) => (lacks(req, 'model') ? withStatus(r, 200) : r) },
    fails: ['errors.missing-model', 'errors.missing-field-4xx'],
  },
  {
    name: 'a request without messages is served',
    fault: { request: (req) => (lacks(req, 'messages') ? withRequestJson(req, (b) => void (b.messages = [{ role: 'user', content: 'Hi' }])) : req) },
    fails: ['errors.missing-messages', 'errors.missing-field-4xx'],
  },
  {
    name: 'a request without model answers 500',
    fault: { reply: (r, req) => (lacks(req, 'model') ? withStatus(r, 500) : r) },
    fails: ['errors.missing-field-4xx'],
  },
  {
    name: 'a body that is not JSON answers 500',
    fault: { reply: (r, req) => (notJson(req) ? withStatus(r, 500) : r) },
    fails: ['errors.invalid-json'],
  },
  {
    name: 'messages as a string is taken as one user message',
    fault: { request: (req) => withRequestJson(req, (b) => void (typeof b.messages === 'string' && (b.messages = [{ role: 'user', content: b.messages }]))) },
    fails: ['errors.messages-not-array'],
  },
  {
    name: 'an unknown role is taken as user',
    fault: {
      request: (req) =>
        withRequestJson(req, (b) => {
          if (Array.isArray(b.messages)) for (const m of b.messages) if (m?.role === 'wizard') m.role = 'user';
        }),
    },
    fails: ['errors.unknown-role'],
  },
  {
    name: 'an unknown model falls back to a default one',
    fault: { request: (req) => withRequestJson(req, (b) => void (typeof b.model === 'string' && !MODEL_IDS.has(b.model) && (b.model = 'mock-chat-1'))) },
    fails: ['errors.unknown-model'],
  },
  {
    name: 'an unknown model answers 500',
    fault: { reply: (r, req) => (chatError(r, req) && (r as { status: number }).status === 404 ? withStatus(r, 500) : r) },
    fails: ['errors.unknown-model'],
  },
  {
    name: 'error bodies are plain text',
    fault: { reply: (r, req) => (chatError(r, req) ? { status: (r as { status: number }).status, headers: { 'content-type': 'text/plain' }, body: 'Bad Request' } : r) },
    fails: ['errors.error-body'],
  },
  {
    name: 'error bodies lack error.message',
    fault: { reply: (r, req) => (chatError(r, req) ? withJson(r, (b) => void delete b.error.message) : r) },
    fails: ['errors.error-body'],
  },
  {
    name: 'error bodies carry an empty error.message',
    fault: { reply: (r, req) => (chatError(r, req) ? withJson(r, (b) => void (b.error.message = '')) : r) },
    fails: ['errors.error-body'],
  },
];

const brokenMock = (fault: (typeof cases)[number]['fault']) => createMock(undefined, { faults: [{ name: 'test', description: 'test', fails: [], ...fault }] });

describe('errors suite', () => {
  it('passes the correct mock', async () => {
    const results = await runAgainstMock(ERRORS);
    expect(notPassing(results)).toEqual([]);
    expect(results.size).toBe(ERRORS.length);
  });

  it('has a broken mock for every check', () => {
    const killed = new Set(cases.flatMap((c) => c.fails));
    expect(ERRORS.map((c) => c.id).filter((id) => !killed.has(id))).toEqual([]);
  });

  describe.concurrent.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it(`fails exactly ${c.fails.join(', ')}`, async () => {
      const results = await runAgainstMock(ERRORS, { mock: brokenMock(c.fault) });
      const failed = [...results.values()].filter((r) => r.outcome === 'fail');
      const detail = [...results.values()].filter((r) => r.outcome !== 'pass').map((r) => `${r.id}: ${r.outcome}: ${r.message}`).join('\n');
      expect(failed.map((r) => r.id).sort(), detail).toEqual([...c.fails].sort());
    });
  });

  it('proves nothing (not-tested) when the primary key itself is refused', async () => {
    const results = await runAgainstMock(ERRORS, { target: { apiKey: 'sk-not-a-key-of-the-mock-000000' } });
    expect([...results.values()].filter((r) => r.outcome !== 'not-tested').map((r) => r.id)).toEqual([]);
  });

  it('checks that need a model are not-tested when none is listed, the others still run', async () => {
    const mock = brokenMock({ reply: (r, req) => (isModels(req) ? withJson(r, (b) => void (b.data = [])) : r) });
    const results = await runAgainstMock(ERRORS, { mock });
    const outcome = (id: string) => results.get(id)?.outcome;
    for (const id of ['errors.missing-messages', 'errors.messages-not-array', 'errors.unknown-role']) expect(outcome(id), id).toBe('not-tested');
    for (const id of ['errors.missing-model', 'errors.invalid-json', 'errors.unknown-model', 'errors.error-body']) expect(outcome(id), id).toBe('pass');
    expect(outcome('errors.missing-field-4xx')).toBe('not-tested');
    expect(results.get('errors.missing-messages')?.message).toMatch(/--model/);
  });
});
