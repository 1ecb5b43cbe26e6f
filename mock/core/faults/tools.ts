// Faults proving the checks of the tools suite (2.1 tools and tool_choice, 2.2 the tool role, 4.1
// rule 2): each bends the answers to one shape of tool request, as the request names it.
import { errorReply } from '../errors.js';
import { isStream, type MockReply, type MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { isChat, requestJson, withJson, withPayloads, withRequestJson } from './rewrite.js';
import { only } from './scope.js';

type Body = Record<string, any>;

/** The chat request's JSON body, or undefined for any other request. */
const chatBody = (req: MockRequest): Body | undefined => (isChat(req) ? requestJson(req) : undefined);

const choiceIs = (value: unknown) => (b: Body) => JSON.stringify(b.tool_choice) === JSON.stringify(value);
const namesFunction = (b: Body) => typeof b.tool_choice === 'object' && b.tool_choice !== null;
const answersTool = (b: Body) => Array.isArray(b.messages) && b.messages.some((m: Body) => m?.role === 'tool');

/** Rewrites the first choice of non-streamed, successful answers to requests `when` accepts. */
const onMessage =
  (when: (b: Body) => boolean, edit: (message: Body, choice: Body) => void): Fault['reply'] =>
  (r: MockReply, req: MockRequest) => {
    const b = chatBody(req);
    if (!b || b.stream === true || !when(b) || isStream(r) || !('status' in r) || r.status !== 200) return r;
    return withJson(r, (body) => {
      const choice = body.choices?.[0];
      if (choice?.message) edit(choice.message, choice);
    });
  };

/** Rewrites the payloads of streamed answers that call a tool. */
const onToolStream =
  (edit: (payloads: any[]) => unknown[]): Fault['reply'] =>
  (r: MockReply, req: MockRequest) => {
    const b = chatBody(req);
    return b?.stream === true && Array.isArray(b.tools) ? withPayloads(r, edit) : r;
  };

/** Edits the first tool-call delta of a stream. */
const firstCallDelta = (edit: (delta: Body) => void) =>
  onToolStream((ps) => {
    const first = ps.find((p) => p?.choices?.[0]?.delta?.tool_calls);
    if (first) edit(first.choices[0].delta.tool_calls[0]);
    return ps;
  });

/** Arguments that are a JSON object but break the strict parameters of get_weather and get_time. */
const STRICT_BREAKING = '{"unit":"kelvin"}';

/** The first tool call of a stream carries `args` whole in its first delta, and no fragment after it. */
const argumentsOfFirstCall = (args: string) => (ps: any[]) => {
  let first = true;
  for (const p of ps)
    for (const d of p?.choices?.[0]?.delta?.tool_calls ?? [])
      if (d?.index === 0 && d.function) {
        d.function.arguments = first ? args : '';
        first = false;
      }
  return ps;
};

/** Under a tool_choice, a message that calls a tool ends with finish_reason "stop" (4.1 rule 2). */
const callEndsWithStop = (name: string, when: (b: Body) => boolean, under: string): Fault => ({
  name,
  description: `Under ${under} the message calls a tool, yet finish_reason is "stop" instead of "tool_calls"`,
  fails: ['tools.finish-reason'],
  // A call the cap cut ends with "length": that is chat.max-tokens' to judge, and stays.
  reply: onMessage(when, (m, c) => {
    if (m.tool_calls && c.finish_reason === 'tool_calls') c.finish_reason = 'stop';
  }),
});

const BASE: Fault[] = [
  callEndsWithStop('tools-finish-stop', choiceIs('required'), 'tool_choice "required"'),
  {
    name: 'tools-arguments-not-json',
    description: 'Under tool_choice "required" the arguments of a tool call are not JSON (city=Paris)',
    fails: ['tools.call-valid'],
    reply: onMessage(choiceIs('required'), (m) => {
      if (m.tool_calls?.[0]) m.tool_calls[0].function.arguments = 'city=Paris';
    }),
  },
  {
    // Engines that number calls themselves leave the id out: a client has nothing to answer the call with.
    name: 'tools-call-without-id',
    description: 'A tool call of a JSON answer carries no id, so the tool message that answers it has no tool_call_id to name',
    fails: ['tools.call-valid'],
    reply: onMessage(
      () => true,
      (m) => {
        for (const call of m.tool_calls ?? []) delete call.id;
      },
    ),
  },
  {
    name: 'tools-undeclared-function',
    description: 'Under tool_choice "required" the message calls get_stock, a function the request did not declare',
    fails: ['tools.call-valid'],
    reply: onMessage(choiceIs('required'), (m) => {
      if (m.tool_calls?.[0]) m.tool_calls[0].function.name = 'get_stock';
    }),
  },
  {
    name: 'tools-required-ignored',
    description: 'tool_choice "required" is answered with text and no tool call',
    fails: ['tools.required'],
    reply: onMessage(choiceIs('required'), (m, c) => {
      delete m.tool_calls;
      m.content = 'It is sunny in Paris.';
      c.finish_reason = 'stop';
    }),
  },
  {
    name: 'tools-strict-arguments-invalid',
    description: 'With strict: true, the arguments of a tool call break the parameters schema ({"unit":"kelvin"}), streamed or not',
    fails: ['tools.strict-arguments'],
    reply: (r, req, ctx) => {
      const b = chatBody(req);
      if (!b || !choiceIs('required')(b)) return r;
      if (b.stream === true) return onToolStream(argumentsOfFirstCall(STRICT_BREAKING))!(r, req, ctx);
      return onMessage(choiceIs('required'), (m) => {
        if (m.tool_calls?.[0]) m.tool_calls[0].function.arguments = STRICT_BREAKING;
      })!(r, req, ctx);
    },
  },
  {
    name: 'tools-none-ignored',
    description: 'tool_choice "none" is taken for "auto": the question about the weather gets a get_weather call, streamed or not',
    fails: ['tools.none'],
    request: (req) => (chatBody(req)?.tool_choice === 'none' ? withRequestJson(req, (b) => void (b.tool_choice = 'auto')) : req),
  },
  {
    name: 'tools-named-ignored',
    description: 'tool_choice naming get_time is taken for "auto": the question about the weather gets a get_weather call, streamed or not',
    fails: ['tools.named'],
    request: (req) => {
      const b = chatBody(req);
      return b && namesFunction(b) ? withRequestJson(req, (body) => void (body.tool_choice = 'auto')) : req;
    },
  },
  callEndsWithStop('tools-named-finish-stop', namesFunction, 'tool_choice naming a function'),
  {
    name: 'tools-stream-delta-without-id',
    description: 'Streamed, the first delta of a tool call has no id',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: firstCallDelta((d) => void delete d.id),
  },
  {
    name: 'tools-stream-delta-without-name',
    description: 'Streamed, the first delta of a tool call has no function.name',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: firstCallDelta((d) => void delete d.function?.name),
  },
  {
    name: 'tools-stream-arguments-not-json',
    description: 'Streamed, the argument fragments of a tool call do not join into JSON',
    fails: ['tools.call-valid'],
    reply: firstCallDelta((d) => void (d.function.arguments = '{{')),
  },
  {
    name: 'tools-stream-finish-stop',
    description: 'Streamed, a tool call ends with finish_reason "stop" instead of "tool_calls"',
    fails: ['tools.finish-reason'],
    reply: onToolStream((ps) => ps.map((p) => (p?.choices?.[0]?.finish_reason === 'tool_calls' ? { ...p, choices: [{ ...p.choices[0], finish_reason: 'stop' }] } : p))),
  },
  {
    name: 'tools-result-refused',
    description: 'A conversation ending in a tool message is refused (400, tool messages are not supported)',
    fails: ['chat.role.tool', 'tools.result-answered'],
    reply: (r, req) => {
      const b = chatBody(req);
      return b && answersTool(b) && 'status' in r && r.status === 200 ? errorReply(400, 'tool messages are not supported', 'invalid_request_error') : r;
    },
  },
  {
    name: 'tools-result-empty',
    description: 'The answer to a tool result carries neither content nor tool_calls',
    fails: ['chat.content'],
    breaks: ['json:content'],
    reply: onMessage(answersTool, (m) => {
      m.content = null;
      delete m.tool_calls;
    }),
  },
];

const named = (name: string) => BASE.find((f) => f.name === name)!;

/** The tool-call deltas of a stream's first choice, with the payload each is in. */
const callDeltas = (ps: any[]) => ps.flatMap((p) => (p?.choices?.[0]?.delta?.tool_calls ?? []).map((d: Body) => ({ p, d })));

/** Two calls where the stream has one, their deltas alternating: call 0's first delta, call 1's
 * (a copy under index 1 with an id of its own), call 0's next fragment, call 1's, and so on. */
function interleaved(ps: any[]): unknown[] {
  const own = callDeltas(ps).filter(({ d }) => d?.index === 0);
  if (!own.length) return ps;
  const twin = (d: Body) => ({ ...structuredClone(d), index: 1, ...(d.id ? { id: `${d.id}_b` } : {}) });
  const calls = new Set(own.map(({ p }) => p));
  const out: unknown[] = [];
  for (const p of ps) {
    if (!calls.has(p)) out.push(p);
    else out.push(p, { ...p, choices: [{ ...p.choices[0], delta: { tool_calls: p.choices[0].delta.tool_calls.map(twin) } }] });
  }
  return out;
}

/** Faults of the way a tool call's deltas join (suites/tool-deltas.ts): each bends an ordinary
 * tool-call stream the way an engine or gateway was reported to, which the official clients join
 * into another call than the one meant, or fail on. */
const DELTAS: Fault[] = [
  {
    name: 'tools-stream-delta-without-type',
    description: 'Streamed, the first delta of a tool call has no type "function" (openai-node then throws "missing type" at the end of the stream)',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: firstCallDelta((d) => void delete d.type),
  },
  {
    name: 'tools-stream-delta-repeats-id-name',
    description:
      'Streamed, every delta of a tool call repeats its id, type and function.name (as Fireworks AI and MiniMax behind NVIDIA NIM were reported to): openai-python joins them twice, "get_weatherget_weather"',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: onToolStream((ps) => {
      const first = new Map<unknown, Body>();
      for (const { d } of callDeltas(ps)) {
        const head = first.get(d.index);
        if (!head) first.set(d.index, d);
        else Object.assign(d, { id: head.id, type: head.type, function: { ...d.function, name: head.function?.name } });
      }
      return ps;
    }),
  },
  {
    name: 'tools-stream-delta-without-function',
    description: 'Streamed, a tool call has an empty delta ({"index": 0}, no function object) after its first: openai-python asserts a function on every delta, and the AI SDK refuses the chunk',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: onToolStream((ps) => {
      const at = ps.findIndex((p) => p?.choices?.[0]?.delta?.tool_calls);
      if (at < 0) return ps;
      const p = ps[at];
      const empty = { ...p, choices: [{ ...p.choices[0], delta: { tool_calls: [{ index: p.choices[0].delta.tool_calls[0].index }] } }] };
      return [...ps.slice(0, at + 1), empty, ...ps.slice(at + 1)];
    }),
  },
  {
    name: 'tools-stream-index-from-one',
    description:
      'Streamed, tool calls are numbered from 1 (as gateways that count the content blocks before the call were reported to): openai-python raises IndexError, openai-node leaves a hole at 0',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: onToolStream((ps) => {
      for (const { d } of callDeltas(ps)) if (typeof d.index === 'number') d.index += 1;
      return ps;
    }),
  },
  {
    name: 'tools-stream-calls-interleaved',
    description:
      "Streamed, two tool calls' deltas alternate: the clients close call 0 when call 1's first delta arrives, with its arguments so far (openai-node's JSON.parse of them throws for a strict tool)",
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: onToolStream(interleaved),
  },
];

const NEW: Fault[] = [
  callEndsWithStop('tools-auto-finish-stop', choiceIs('auto'), 'tool_choice "auto"'),
  {
    name: 'tools-required-as-auto',
    description: 'tool_choice "required" is taken for "auto": a tool is called only when the conversation asks for one, streamed or not',
    fails: ['tools.required'],
    request: (req) => (chatBody(req)?.tool_choice === 'required' ? withRequestJson(req, (b) => void (b.tool_choice = 'auto')) : req),
  },
  {
    name: 'tools-finish-tool-calls-without-call',
    description: 'Under tool_choice "none" the message calls no tool, yet finish_reason is "tool_calls"',
    fails: ['tools.finish-reason'],
    reply: onMessage(choiceIs('none'), (m, c) => {
      if (!m.tool_calls) c.finish_reason = 'tool_calls';
    }),
  },
];

export const TOOLS_FAULTS: Fault[] = [...BASE, ...NEW, ...DELTAS, only(named('tools-finish-stop'), { model: 'mock-reason-1' }, ['tools.finish-reason'])];
