// The chat suite passes against the correct mock, and each of its checks fails against a mock broken
// in the one way the check is about.
import { describe, expect, it } from 'vitest';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, isChat, isModels, requestJson, withJson, withRequestJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { CHAT } from '../../suites/chat.js';
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

/** Rewrites the JSON body of chat replies; `request` is the chat request's JSON. */
const chatJson = (edit: (body: any, request: Record<string, any>) => unknown) =>
  broken((req, reply) => (isChat(req) ? withJson(reply, (b) => edit(b, requestJson(req) ?? {})) : reply));

const chatRequest = (edit: (body: Record<string, any>) => void) => broken((_req, reply) => reply, (req) => (isChat(req) ? withRequestJson(req, edit) : req));

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

  const FAULTS: [string, string, Mock][] = [
    ['chat.response-shape', 'created as a string', chatJson((b) => void (b.created = String(b.created)))],
    ['chat.object', 'object "chat.completions"', chatJson((b) => void (b.object = 'chat.completions'))],
    ['chat.choice-index', 'choices indexed out of order', chatJson((b) => void (b.choices = [{ ...b.choices[0], index: 1 }, { ...b.choices[0], index: 0 }]))],
    ['chat.finish-reason', 'finish_reason "eos"', chatJson((b) => void (b.choices[0].finish_reason = 'eos'))],
    ['chat.assistant-role', 'message role "bot"', chatJson((b) => void (b.choices[0].message.role = 'bot'))],
    ['chat.usage', 'usage missing', chatJson((b) => void delete b.usage)],
    ['chat.usage', 'usage counts as strings', chatJson((b) => void (b.usage.prompt_tokens = String(b.usage.prompt_tokens)))],
    ['chat.usage-total', 'total_tokens not the sum', chatJson((b) => void (b.usage.total_tokens += 1))],
    ['chat.usage-details', 'usage details missing', chatJson((b) => void (delete b.usage.prompt_tokens_details, delete b.usage.completion_tokens_details))],
    ['chat.stream-false', 'stream: false answered as a stream', chatRequest((b) => void (b.stream === false && (b.stream = true)))],
    ['chat.max-tokens', 'max_tokens ignored', chatRequest((b) => void delete b.max_tokens)],
    ['chat.max-tokens', 'finish_reason "stop" when cut', chatJson((b) => void (b.choices[0].finish_reason === 'length' && (b.choices[0].finish_reason = 'stop')))],
    ['chat.length-only-at-cap', 'finish_reason "length" when not cut', chatJson((b) => void (b.choices[0].finish_reason = 'length'))],
  ];

  it.concurrent.each(FAULTS)('%s fails against a mock with %s', async (id, _what, mock) => {
    const r = await outcomeOf(id, mock);
    expect(r.outcome, r.message).toBe('fail');
    expect(r.evidence.length).toBeGreaterThan(0);
  });

  it.concurrent.each(['system', 'developer', 'user', 'assistant', 'tool'])('chat.role.%s fails when the mock refuses that role', async (role) => {
    const mock = broken((req, reply) => {
      const messages = (requestJson(req)?.messages ?? []) as { role?: string }[];
      return isChat(req) && messages.some((m) => m.role === role) ? errorReply(400, `role ${role} is not supported`, 'invalid_request_error') : reply;
    });
    const r = await outcomeOf(`chat.role.${role}`, mock);
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toContain(`role ${role} is not supported`);
  });

  it('chat.max-tokens holds the reasoning model of the key to the cap, reasoning tokens included', async () => {
    // The visible answer gets the whole cap and reasoning comes on top of it.
    const mock = chatJson((b, request) => {
      if (request.model !== 'mock-reason-1') return;
      b.usage.completion_tokens += 8;
      b.usage.total_tokens += 8;
      b.usage.completion_tokens_details.reasoning_tokens += 8;
    });
    const r = await outcomeOf('chat.max-tokens', mock);
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toMatch(/^mock-reason-1: usage\.completion_tokens \d+ exceeds max_tokens 1 \(reasoning_tokens/);
  });

  it('chat.length-only-at-cap fails on "length" below the cap of the essay', async () => {
    const mock = chatJson((b, request) => {
      if (request.max_tokens === 1) b.usage.completion_tokens = 0;
    });
    const r = await outcomeOf('chat.length-only-at-cap', mock);
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toContain('the essay with max_tokens 1 ended with "length" after 0 completion tokens');
  });

  it('uses the catalog minimum of max_tokens for the essay', async () => {
    const seen: number[] = [];
    const mock = broken(
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
    const mock = broken((req, reply) => (isModels(req) ? withJson(reply, (b) => void (b.data = [])) : reply));
    const results = await runAgainstMock(CHAT, { mock });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toContain('--model');
    }
  });

  it('chat.role.tool is not-tested when the catalog declares no tools for the model', async () => {
    const mock = broken((req, reply) =>
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

  it('the usage rules are not-tested, not failed, when usage is missing', async () => {
    const mock = chatJson((b) => void delete b.usage);
    for (const id of ['chat.usage-total', 'chat.usage-details']) expect((await outcomeOf(id, mock)).outcome).toBe('not-tested');
  });
});
