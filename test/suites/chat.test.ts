// The chat suite passes against the correct mock on every path; its failures name the path and what
// they found, and its rules are not-tested where they cannot be judged. That each check fails
// against a mock broken in the one way it is about is proven by the fault catalogue
// (test/faults.test.ts).
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import { errorReply } from '../../mock/core/errors.js';
import { isCatalog, isChat, isModels, requestJson, withJson } from '../../mock/core/faults/rewrite.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { CHAT } from '../../suites/chat.js';
import { CHECKS } from '../../suites/index.js';
import { declaring, notPassing, rewrittenMock, runAgainstMock } from '../support/run.js';

/** The mock serving one fault of the catalogue. */
const faulty = (name: string) => createMock(undefined, { faults: [name] });

const only = (id: string) => CHAT.filter((c) => c.id === id);

async function outcomeOf(id: string, mock: Mock) {
  const results = await runAgainstMock(only(id), { mock });
  return results.get(id)!;
}

const failing = (r: { paths?: { outcome: string; label: string }[] }) => (r.paths ?? []).filter((p) => p.outcome === 'fail').map((p) => p.label);

describe('chat suite', () => {
  it('passes against the correct mock, on both paths and both kinds of model', async () => {
    const results = await runAgainstMock(CHAT);
    expect(notPassing(results), notPassing(results).join('\n')).toEqual([]);
    expect(results.size).toBe(CHAT.length);
    // The other order of the roles goes on the JSON path only.
    expect(results.get('chat.role.system')!.paths!.map((p) => p.label)).toEqual([
      'json, mock-chat-1, system first',
      'json, mock-chat-1, system after user',
      'json, mock-reason-1, system first',
      'json, mock-reason-1, system after user',
      'stream, mock-chat-1, system first',
      'stream, mock-reason-1, system first',
    ]);
    expect(results.get('chat.max-tokens')!.paths!.map((p) => `${p.label}=${p.outcome}`)).toContain('stream, mock-reason-1, tool call=pass');
    expect(results.get('chat.response-shape')!.paths!.map((p) => p.label)).toEqual(['mock-chat-1', 'mock-reason-1']);
  });

  it.concurrent.each(['system', 'developer', 'user', 'assistant', 'tool'])('chat.role.%s names the refusal the mock gave', async (role) => {
    const r = await outcomeOf(`chat.role.${role}`, faulty(`chat-role-${role}-refused`));
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toContain(`role ${role} is not supported`);
    // With the article English gives the role: an assistant message, a tool message.
    if (role !== 'user') expect(r.message).toContain(`a valid conversation with ${role === 'assistant' ? 'an' : 'a'} ${role} message`);
  });

  it('a role refused only when streamed fails on the stream paths only, and says so', async () => {
    const r = await outcomeOf('chat.role.developer', faulty('chat-role-developer-refused-streamed'));
    expect(r.outcome).toBe('fail');
    expect(failing(r)).toEqual(['stream, mock-chat-1, developer first', 'stream, mock-reason-1, developer first']);
    expect(r.message).toMatch(/^\[stream, mock-chat-1, developer first\] a valid conversation with a developer message got no answer: the request was not served: status 400/);
  });

  it.concurrent.each([
    ['chat.role.assistant', 'chat-role-assistant-first-refused', 'assistant first', 'an assistant greeting opening the conversation'],
    ['chat.role.user', 'chat-role-user-twice-refused', 'two user messages', 'two user messages in a row'],
    ['chat.role.system', 'chat-role-system-not-first-refused', 'system after user', 'a system message after a user turn'],
    ['chat.role.developer', 'chat-role-developer-with-system-refused', 'developer with system', 'a developer message after a system message'],
  ])('%s fails where an order the document allows is refused, on that order only', async (id, fault, order, what) => {
    const r = await outcomeOf(id, faulty(fault));
    expect(failing(r)).toEqual([`json, mock-chat-1, ${order}`, `json, mock-reason-1, ${order}`]);
    expect(r.message).toContain(`[json, mock-chat-1, ${order}] a valid conversation of ${what} got no answer: the request was not served: status 400`);
  });

  it("a developer message beside a system one is not judged where the system message alone is refused: that is chat.role.system's", async () => {
    const results = await runAgainstMock(
      CHAT.filter((c) => c.id === 'chat.role.system' || c.id === 'chat.role.developer'),
      { mock: faulty('chat-role-system-refused') },
    );
    expect(results.get('chat.role.system')!.outcome).toBe('fail');
    const developer = results.get('chat.role.developer')!;
    expect(developer.outcome).toBe('not-tested');
    expect(developer.blockedBy).toEqual(['chat.role.system']);
    expect(developer.paths!.filter((p) => p.outcome !== 'pass').map((p) => p.label)).toEqual(['json, mock-chat-1, developer with system', 'json, mock-reason-1, developer with system']);
  });

  it('chat.max-tokens cuts a tool call with a cap halfway through it, on both kinds of model, and fails one that says "tool_calls" for it', async () => {
    const caps: Record<string, number[]> = {};
    const mock = rewrittenMock((req, reply) => {
      const body = requestJson(req) as { model: string; tools?: unknown; tool_choice?: unknown; max_tokens: number } | undefined;
      if (isChat(req) && body?.tools && body.tool_choice === 'auto') (caps[body.model] ??= []).push(body.max_tokens);
      return reply;
    });
    const correct = await outcomeOf('chat.max-tokens', mock);
    expect(correct.outcome, correct.message).toBe('pass');
    // The whole call at the tools suite's cap, then the cut one (JSON, then streamed), below it:
    // for the reasoning model, above the reasoning it spends first.
    for (const model of ['mock-chat-1', 'mock-reason-1']) {
      const [whole, ...cut] = [...new Set(caps[model])];
      expect(whole).toBe(256);
      expect(cut).toHaveLength(1);
      expect(cut[0]).toBeLessThan(model === 'mock-reason-1' ? 64 : 24);
      expect(cut[0]).toBeGreaterThan(model === 'mock-reason-1' ? 31 : 1);
    }
    const r = await outcomeOf('chat.max-tokens', faulty('chat-cut-tool-call-finish-tool-calls'));
    expect(failing(r)).toEqual(['json, mock-chat-1, tool call', 'json, mock-reason-1, tool call', 'stream, mock-chat-1, tool call', 'stream, mock-reason-1, tool call']);
    expect(r.message).toMatch(
      /^\[json, mock-chat-1, tool call\] the answer reached max_tokens \d+ \(completion_tokens \d+\) inside a call of "get_weather", its arguments cut at "\{[^"]*.*, yet finish_reason is "tool_calls", not "length"/,
    );
  });

  it('chat.max-tokens holds the reasoning model to the cap, reasoning tokens included', async () => {
    // The visible answer gets the whole cap and reasoning comes on top of it, streamed or not.
    const r = await outcomeOf('chat.max-tokens', faulty('chat-reasoning-beyond-cap'));
    expect(r.outcome, r.message).toBe('fail');
    expect(failing(r)).toEqual(['json, mock-reason-1, essay', 'json, mock-reason-1, tool call', 'stream, mock-reason-1, essay', 'stream, mock-reason-1, tool call']);
    expect(r.message).toMatch(/^\[json, mock-reason-1, essay\] usage\.completion_tokens \d+ exceeds max_tokens 1 \(reasoning_tokens/);
    expect(r.message).toMatch(/\[stream, mock-reason-1, essay\] usage\.completion_tokens \d+ exceeds max_tokens 1 \(reasoning_tokens/);
  });

  it('chat.length-only-at-cap fails on "length" short of every known limit', async () => {
    const r = await outcomeOf('chat.length-only-at-cap', faulty('chat-length-before-cap'));
    expect(r.outcome, r.message).toBe('fail');
    expect(r.message).toContain('the essay ended with "length" after 0 completion tokens, short of max_tokens 1');
  });

  it('sends the essay with the catalog minimum of max_tokens, on every path', async () => {
    const seen: number[] = [];
    const mock = declaring(
      (params) => void (params.max_tokens.min = 5),
      (req) => {
        const body = requestJson(req) as { messages?: { content?: string }[]; max_tokens?: number } | undefined;
        if (isChat(req) && body?.messages?.[0]?.content?.includes('essay')) seen.push(body.max_tokens!);
      },
    );
    const r = await outcomeOf('chat.max-tokens', mock);
    expect(r.outcome, r.message).toBe('pass');
    expect(seen).toEqual([5, 5, 5, 5]);
  });

  it('is not-tested throughout when the model list is empty and no model is named', async () => {
    const mock = rewrittenMock((req, reply) => (isModels(req) ? withJson(reply, (b) => void (b.data = [])) : reply));
    const results = await runAgainstMock(CHAT, { mock });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toContain('--model');
    }
  });

  it('chat.role.tool has no path where the catalog declares no tools for any model under test', async () => {
    const r = await outcomeOf(
      'chat.role.tool',
      declaring((params) => delete params.tools),
    );
    expect(r.outcome, r.message).toBe('not-tested');
    expect(r.message).toContain('no model under test declares tools');
  });

  it('without a catalog, a model that refuses tools with a JSON error leaves chat.role.tool not-tested; with tools declared, the refusal fails the owner of tools, which blocks it', async () => {
    const refuseTools = (catalogToo: boolean) =>
      rewrittenMock((req, reply) => {
        if (isCatalog(req) && !catalogToo) return errorReply(404, 'no catalog', 'not_found');
        return isChat(req) && requestJson(req)?.tools ? errorReply(400, 'tools are not supported by this model', 'invalid_request_error', 'unsupported_parameter', 'tools') : reply;
      });
    const undeclared = await outcomeOf('chat.role.tool', refuseTools(false));
    expect(undeclared.outcome, undeclared.message).toBe('not-tested');
    expect(undeclared.message).toContain('tools was refused (status 400 (tools are not supported by this model)), and the same request without it was served, and the catalog does not declare it');
    const declared = await runAgainstMock(
      CHECKS.filter((c) => ['chat.role.tool', 'tools.finish-reason'].includes(c.id)),
      { mock: refuseTools(true) },
    );
    expect(declared.get('tools.finish-reason')!.outcome).toBe('fail');
    expect(declared.get('chat.role.tool')!.blockedBy).toEqual(['tools.finish-reason']);
  });

  it('the usage rules are not-tested, not failed, when usage is missing', async () => {
    const mock = faulty('chat-usage-missing');
    for (const id of ['chat.usage-total', 'chat.usage-details']) {
      const r = await outcomeOf(id, mock);
      expect(r.outcome, `${id}: ${r.message}`).toBe('not-tested');
    }
  });

  it('chat.model-echo takes a dated id of the requested model and names any other', async () => {
    const renamed = (name: (asked: string) => string) => rewrittenMock((req, reply) => (isChat(req) && !requestJson(req)?.stream ? withJson(reply, (b) => void (b.model = name(b.model))) : reply));
    expect(
      (
        await outcomeOf(
          'chat.model-echo',
          renamed((m) => `${m}-2026-01-01`),
        )
      ).outcome,
    ).toBe('pass');
    const other = await outcomeOf(
      'chat.model-echo',
      renamed(() => 'gpt-4o'),
    );
    expect(other.outcome).toBe('fail');
    expect(other.message).toContain('[json, mock-chat-1] the response names model "gpt-4o", not "mock-chat-1"');
  });

  it('chat.natural-stop names the finish of an answer that ended by itself', async () => {
    const r = await outcomeOf('chat.natural-stop', faulty('chat-natural-end-content-filter'));
    expect(r.outcome).toBe('fail');
    expect(r.message).toMatch(/ended with finish_reason "content_filter", not "stop"/);
  });

  it('a server that ends answers at the output length its catalog declares, with "length", fails no check', async () => {
    // A server-side cap: every model stops at 12 tokens whatever max_tokens asks, and says so.
    const config = { ...DEFAULT_CONFIG, models: DEFAULT_CONFIG.models.map((m) => ({ ...m, max_output_tokens: 12 })) };
    const results = await runAgainstMock(CHECKS, { mock: createMock(config) });
    const failed = [...results.values()].filter((r) => r.outcome === 'fail').map((r) => `${r.id}: ${r.message}`);
    expect(failed).toEqual([]);
  });
});
