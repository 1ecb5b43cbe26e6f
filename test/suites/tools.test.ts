// The tools suite passes against the mock, and each of its checks fails against a mock broken in
// the one way that check looks for.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { MockConfig } from '../../mock/config/types.js';
import { errorReply } from '../../mock/core/errors.js';
import { createMock, type Mock } from '../../mock/core/handle.js';
import { isChat, requestJson, withJson, withPayloads } from '../../mock/core/faults/rewrite.js';
import type { MockReply, MockRequest } from '../../mock/core/types.js';
import { TOOLS } from '../../suites/tools.js';
import { notPassing, runAgainstMock } from '../support/run.js';

type Body = Record<string, any>;

/** The mock with its replies to chat requests rewritten when `when` holds for the request body. */
const broken = (when: (body: Body) => boolean, edit: (reply: MockReply, body: Body) => MockReply, config?: MockConfig): Mock => {
  const m = createMock(config);
  return {
    config: m.config,
    handle: (req: MockRequest) => {
      const reply = m.handle(req);
      const body = isChat(req) ? requestJson(req) : undefined;
      return body && when(body) ? edit(reply, body) : reply;
    },
  };
};

const toolChoice = (value: unknown) => (b: Body) => JSON.stringify(b.tool_choice) === JSON.stringify(value) && !b.stream;
const named = (b: Body) => typeof b.tool_choice === 'object' && b.tool_choice !== null;
const streamed = (b: Body) => b.stream === true;
const message = (edit: (msg: Body, choice: Body) => void) => (r: MockReply) =>
  withJson(r, (b) => {
    edit(b.choices[0].message, b.choices[0]);
  });
const firstCallDelta = (edit: (delta: Body) => void) => (r: MockReply) =>
  withPayloads(r, (ps) => {
    const first = ps.find((p) => p?.choices?.[0]?.delta?.tool_calls);
    edit(first.choices[0].delta.tool_calls[0]);
    return ps;
  });

const A_CALL = { id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } };

const FAULTS: [string, string, Mock][] = [
  ['tools.required', 'finish_reason "stop" with tool calls', broken(toolChoice('required'), message((_m, c) => (c.finish_reason = 'stop')))],
  ['tools.required', 'arguments that are not JSON', broken(toolChoice('required'), message((m) => (m.tool_calls[0].function.arguments = 'city=Paris')))],
  ['tools.required', 'an undeclared function name', broken(toolChoice('required'), message((m) => (m.tool_calls[0].function.name = 'get_stock')))],
  ['tools.required', 'no tool call at all', broken(toolChoice('required'), message((m, c) => { delete m.tool_calls; m.content = 'Sunny.'; c.finish_reason = 'stop'; }))],
  ['tools.strict-arguments', 'arguments failing the schema', broken(toolChoice('required'), message((m) => (m.tool_calls[0].function.arguments = '{"unit":"kelvin"}')))],
  ['tools.none', 'a tool call under tool_choice "none"', broken(toolChoice('none'), message((m, c) => { m.content = null; m.tool_calls = [A_CALL]; c.finish_reason = 'tool_calls'; }))],
  ['tools.named', 'the named function ignored', broken((b) => named(b) && !b.stream, message((m) => (m.tool_calls[0].function.name = 'get_weather')))],
  ['tools.named.finish-reason', 'finish_reason "stop" for a named call', broken((b) => named(b) && !b.stream, message((_m, c) => (c.finish_reason = 'stop')))],
  ['tools.stream', 'a first tool-call delta without id', broken(streamed, firstCallDelta((d) => delete d.id))],
  ['tools.stream', 'a first tool-call delta without function.name', broken(streamed, firstCallDelta((d) => delete d.function.name))],
  ['tools.stream', 'argument fragments that do not join into JSON', broken(streamed, firstCallDelta((d) => (d.function.arguments = '{{')))],
  ['tools.stream', 'finish_reason "stop" after streamed tool calls', broken(streamed, (r) => withPayloads(r, (ps) => ps.map((p) => (p?.choices?.[0]?.finish_reason ? { ...p, choices: [{ ...p.choices[0], finish_reason: 'stop' }] } : p))))],
  ['tools.result-answered', 'the tool message refused (400)', broken((b) => b.messages.some((m: Body) => m.role === 'tool'), () => errorReply(400, 'tool messages are not supported', 'invalid_request_error'))],
  ['tools.result-answered', 'an answer with neither content nor tool_calls', broken((b) => b.messages.some((m: Body) => m.role === 'tool'), message((m) => (m.content = null)))],
];

const withoutParameter = (name: string): MockConfig => ({
  ...DEFAULT_CONFIG,
  models: DEFAULT_CONFIG.models.map((m) => ({ ...m, parameters: Object.fromEntries(Object.entries(m.parameters).filter(([k]) => k !== name)) })),
});

describe('tools suite', () => {
  it('passes against the mock', async () => {
    const results = await runAgainstMock(TOOLS);
    expect(notPassing(results)).toEqual([]);
  });

  it.concurrent.each(FAULTS)('%s fails on %s', async (id, _what, mock) => {
    const results = await runAgainstMock(TOOLS, { mock });
    const r = results.get(id)!;
    expect(r.outcome, `${id}: ${r.message}`).toBe('fail');
  });

  it('is not-tested when the catalog entry does not declare tools', async () => {
    const results = await runAgainstMock(TOOLS, { mock: createMock(withoutParameter('tools')) });
    for (const r of results.values()) {
      expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
      expect(r.message).toMatch(/does not declare tools/);
    }
  });

  it('is not-tested when the catalog is missing', async () => {
    const m = createMock();
    const mock: Mock = { config: m.config, handle: (req) => (req.path.startsWith('/models.json') ? errorReply(404, 'no catalog', 'not_found') : m.handle(req)) };
    const results = await runAgainstMock(TOOLS, { mock });
    for (const r of results.values()) expect(r.outcome, `${r.id}: ${r.message}`).toBe('not-tested');
  });

  it('still sends a tool result, with a fixed call, when the required answer was unusable', async () => {
    const results = await runAgainstMock(TOOLS, { mock: FAULTS[1][2] });
    const r = results.get('tools.result-answered')!;
    expect(r.outcome, r.message).toBe('pass');
    expect(r.notes?.join()).toMatch(/fixed get_weather call/);
  });

  it('holds the named finish_reason apart from the named call', async () => {
    const results = await runAgainstMock(TOOLS, { mock: FAULTS.find(([, w]) => w.startsWith('finish_reason "stop" for a named'))![2] });
    expect(results.get('tools.named')!.outcome).toBe('pass');
  });
});
