// The chat suite passes against the correct mock; its failures name what they found, and its rules
// are not-tested where they cannot be judged. That each check fails against a mock broken in the one
// way it is about is proven by the fault catalogue (test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { isCatalog, isChat, isModels, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { CHAT } from '../../suites/chat.js';
import { notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';


/** The mock serving one fault of the catalogue. */
const faulty = (name: string) => createMock(undefined, { faults: [name] });

const only = (id: string) => CHAT.filter((c) => c.id === id);

async function outcomeOf(id: string, mock: Mock) {
  const results = await runAgainstMock(only(id), { mock });
  return results.get(id)!;
}

describe('chat suite', () => {
  it('passes against the correct mock', async () => {
    const results = await runAgainstMock(CHAT);
    expect(notPassing(results), notPassing(results).join('\n')).toEqual([]);
    expect(results.size).toBe(CHAT.length);
  });

  it('passes with two models under test, the reasoning one included', async () => {
    const results = await runAgainstMock(CHAT, { target: { models: ['mock-chat-1', 'mock-reason-1'] } });
    expect(notPassing(results), notPassing(results).join('\n')).toEqual([]);
  });

  it.concurrent.each(['system', 'developer', 'user', 'assistant', 'tool'])('chat.role.%s names the refusal the mock gave', async (role) => {
    const r = await outcomeOf(`chat.role.${role}`, faulty(`chat-role-${role}-refused`));
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toContain(`role ${role} is not supported`);
  });

  it('chat.max-tokens holds the reasoning model of the key to the cap, reasoning tokens included', async () => {
    // The visible answer gets the whole cap and reasoning comes on top of it.
    const r = await outcomeOf('chat.max-tokens', faulty('chat-reasoning-beyond-cap'));
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toMatch(/^mock-reason-1: usage\.completion_tokens \d+ exceeds max_tokens 1 \(reasoning_tokens/);
  });

  it('chat.length-only-at-cap fails on "length" below the cap of the essay', async () => {
    const r = await outcomeOf('chat.length-only-at-cap', faulty('chat-length-before-cap'));
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toContain('the essay with max_tokens 1 ended with "length" after 0 completion tokens');
  });

  it('uses the catalog minimum of max_tokens for the essay', async () => {
    const seen: number[] = [];
    const mock = rewrittenMock(
      (req, reply) =>
        isCatalog(req)
          ? withJson(reply, (doc) => {
              for (const m of doc.data) m.output_modalities[0].supported_parameters.max_tokens.min = 5;
            })
          : reply,
      (req) => {
        const body = requestJson(req) as { messages?: { content?: string }[]; max_tokens?: number } | undefined;
        if (isChat(req) && body?.messages?.[0]?.content?.includes('essay')) seen.push(body.max_tokens!);
        return req;
      },
    );
    const r = await outcomeOf('chat.max-tokens', mock);
    expect(r.outcome, r.message).toBe('pass');
    expect(seen).toEqual([5, 5]);
  });

  it('is not-tested throughout when the model list is empty and no model is named', async () => {
    const mock = rewrittenMock((req, reply) => (isModels(req) ? withJson(reply, (b) => void (b.data = [])) : reply));
    const results = await runAgainstMock(CHAT, { mock });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toContain('--model');
    }
  });

  it('chat.role.tool is not-tested when the catalog declares no tools for the model', async () => {
    const mock = rewrittenMock((req, reply) =>
      isCatalog(req)
        ? withJson(reply, (doc) => {
            for (const m of doc.data) delete m.output_modalities[0].supported_parameters.tools;
          })
        : reply,
    );
    const r = await outcomeOf('chat.role.tool', mock);
    expect(r.outcome, r.message).toBe('not-tested');
    expect(r.message).toContain('does not declare tools');
  });

  it('the usage rules, and the cap, are not-tested, not failed, when usage is missing', async () => {
    const mock = faulty('chat-usage-missing');
    for (const id of ['chat.usage-total', 'chat.usage-details', 'chat.max-tokens']) {
      const r = await outcomeOf(id, mock);
      expect(r.outcome, `${id}: ${r.message}`).toBe('not-tested');
    }
  });
});
