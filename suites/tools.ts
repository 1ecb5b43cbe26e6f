// Section 2.1 (tools, tool_choice), 2.2 (the tool role) and 4.1 rule 2 (finish_reason tool_calls):
// function calling, on the models whose catalog entry declares tools.
import { validateWith, validator } from '../schemas/index.js';
import { chat, choicesOf, modelsUnderTest, onEachModel, readReply, readStream, undeclared, type ApiCheck, type ChatBody, type ChatReply } from './api.js';
import { fail, notTested, pass, type Verdict } from './harness/check.js';
import type { CheckContext } from './harness/runner.js';

/** The tools every request declares. Strict: so the arguments can be held to the schemas. */
const TOOL_SET = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The current weather in a city.',
      strict: true,
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'The city, e.g. Paris' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'The current time in a time zone.',
      strict: true,
      parameters: {
        type: 'object',
        properties: { timezone: { type: 'string', description: 'An IANA time zone, e.g. Europe/Paris' } },
        required: ['timezone'],
        additionalProperties: false,
      },
    },
  },
] as const;

type FunctionName = (typeof TOOL_SET)[number]['function']['name'];
const DECLARED = new Map<string, unknown>(TOOL_SET.map((t) => [t.function.name, t.function.parameters]));
const NAMED: FunctionName = 'get_time';

const ASK = [{ role: 'user', content: 'What is the weather in Paris right now, in celsius?' }];
/** Room for a reasoning model to think before it calls; a tool call itself is short. */
const MAX_TOKENS = 1024;

const asked = (model: string, toolChoice: unknown): ChatBody => ({ model, messages: ASK, tools: TOOL_SET, tool_choice: toolChoice, max_tokens: MAX_TOKENS });
const requiredBody = (model: string) => asked(model, 'required');
const noneBody = (model: string) => asked(model, 'none');
const namedBody = (model: string) => asked(model, { type: 'function', function: { name: NAMED } });
const streamedBody = (model: string): ChatBody => ({ ...requiredBody(model), stream: true });

/** What the tool "returns" in the follow-up turn. */
const RESULTS: Record<FunctionName, object> = {
  get_weather: { city: 'Paris', temperature: 18, unit: 'celsius', conditions: 'cloudy' },
  get_time: { timezone: 'Europe/Paris', time: '2026-01-01T12:00:00+01:00' },
};
/** Sent when the tool_choice "required" answer holds no usable call, so the tool turn is still tested. */
const FIXED_CALL = { id: 'call_conformance_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } };

const validToolCall = validator('response#/$defs/toolCall');

const shown = (v: unknown) => {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
};

type Args = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Arguments are JSON text of an object: the parameters of every declared function are objects. */
function parseArgs(text: unknown): Args {
  if (typeof text !== 'string') return { ok: false, error: `is ${shown(text)}, not a string of JSON` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `is not JSON (${(e as Error).message}): ${shown(text)}` };
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? { ok: true, value: value as Record<string, unknown> } : { ok: false, error: `is JSON but not an object: ${shown(text)}` };
}

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** As received, so a follow-up turn sends it back with any vendor fields it carried. */
  raw: Record<string, unknown>;
}

/** Everything wrong with one tool call (shape, a declared name, JSON arguments), or its reading. */
function readCall(call: unknown, where: string): { call?: Call; problems: string[] } {
  const shape = validToolCall(call);
  if (!shape.ok) return { problems: [`${where} is not a tool call: ${shape.errors.join(', ')}`] };
  const raw = call as Record<string, unknown> & { id: string; function: { name: string; arguments: string } };
  const problems: string[] = [];
  if (!DECLARED.has(raw.function.name)) problems.push(`${where} calls ${shown(raw.function.name)}, which no declared tool names (${[...DECLARED.keys()].join(', ')})`);
  const args = parseArgs(raw.function.arguments);
  if (!args.ok) problems.push(`${where}.function.arguments ${args.error}`);
  return problems.length || !args.ok ? { problems } : { call: { id: raw.id, name: raw.function.name, args: args.value, raw }, problems };
}

/** The message's tool calls: the readable ones and what is wrong with the others. */
function readCalls(reply: ChatReply): { calls: Call[]; problems: string[]; count: number } {
  const list = reply.message?.tool_calls;
  if (!Array.isArray(list)) return { calls: [], problems: [], count: 0 };
  const read = list.map((c, i) => readCall(c, `tool_calls[${i}]`));
  return { calls: read.flatMap((r) => (r.call ? [r.call] : [])), problems: read.flatMap((r) => r.problems), count: list.length };
}

/** The rule applied to each model under test whose catalog entry declares tools. */
function onToolModels(ctx: CheckContext, rule: (model: string) => Promise<Verdict>): Promise<Verdict> {
  return modelsUnderTest(ctx).then((list) =>
    onEachModel(list, async (model) => {
      const why = await undeclared(ctx, model, 'tools');
      return why ? notTested(why) : rule(model);
    }),
  );
}

const required = (ctx: CheckContext, model: string) => chat(ctx, requiredBody(model), { label: 'tool_choice "required"' }).then(readReply);
const named = (ctx: CheckContext, model: string) => chat(ctx, namedBody(model), { label: `tool_choice naming ${NAMED}` }).then(readReply);

const ended = (r: ChatReply) => `finish_reason ${shown(r.finishReason)}`;
/** A turn cut by the token limit may end before any call: that proves nothing about tools. */
const cutShort = (r: ChatReply) => (r.finishReason === 'length' ? notTested(`generation reached max_tokens (${MAX_TOKENS}) before any tool call`) : undefined);

export const requiredCalls: ApiCheck = {
  id: 'tools.required',
  suite: 'tools',
  title: 'With tool_choice "required" the message carries tool_calls of a declared function, with JSON arguments, and finish_reason is "tool_calls"',
  section: '4.1',
  level: 'must',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const r = await required(ctx, model);
      if (r.problem) return fail(`tool_choice "required" was not answered with a completion: ${r.problem}`);
      const { problems, count } = readCalls(r);
      if (!count) return cutShort(r) ?? fail(`tool_choice "required" gave no message.tool_calls (got ${shown(r.message?.tool_calls)}, ${ended(r)})`);
      if (r.finishReason !== 'tool_calls') problems.push(`the model called a tool but ${ended(r)}, not "tool_calls" (4.1 rule 2)`);
      return problems.length ? fail(problems.join('; ')) : pass();
    }),
};

export const strictArguments: ApiCheck = {
  id: 'tools.strict-arguments',
  suite: 'tools',
  title: 'With strict: true, the arguments of a tool call are valid against the function\'s parameters',
  section: '2.1',
  level: 'should',
  convention: 'Tool definitions are not shown; by convention strict: true makes the arguments conform to the parameters schema.',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const r = await required(ctx, model);
      const { calls } = readCalls(r);
      if (!calls.length) return notTested('the tool_choice "required" answer holds no call of a declared function with JSON arguments (tools.required says why)');
      const wrong = calls.flatMap((c) => {
        const v = validateWith(DECLARED.get(c.name), c.args);
        return v.ok ? [] : [`${c.name}(${shown(c.args)}): ${v.schemaError ?? v.errors.join(', ')}`];
      });
      return wrong.length ? fail(`arguments do not match the strict parameters schema: ${wrong.join('; ')}`) : pass();
    }),
};

export const noneCalls: ApiCheck = {
  id: 'tools.none',
  suite: 'tools',
  title: 'With tool_choice "none" the message carries no tool_calls',
  section: '2.1',
  level: 'should',
  convention: 'tool_choice "none" is listed without its meaning; by convention the model then calls no tool.',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const r = readReply(await chat(ctx, noneBody(model), { label: 'tool_choice "none"' }));
      if (r.problem) return fail(`tool_choice "none" was not answered with a completion: ${r.problem}`);
      const calls = r.message?.tool_calls;
      if (Array.isArray(calls) && calls.length) return fail(`tool_choice "none" still gave ${calls.length} tool call(s): ${shown(calls)}`);
      if (r.finishReason === 'tool_calls') return fail('tool_choice "none" gave no tool call, yet finish_reason is "tool_calls"');
      return pass();
    }),
};

export const namedCall: ApiCheck = {
  id: 'tools.named',
  suite: 'tools',
  title: `With tool_choice naming a function (${NAMED}), the message calls that function`,
  section: '2.1',
  level: 'should',
  convention: 'The named form of tool_choice is not shown; by convention {type: "function", function: {name}} forces a call of that function.',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const r = await named(ctx, model);
      if (r.problem) return fail(`tool_choice naming ${NAMED} was not answered with a completion: ${r.problem}`);
      const list = r.message?.tool_calls;
      if (!Array.isArray(list) || !list.length) return cutShort(r) ?? fail(`tool_choice named ${NAMED}, but the message has no tool_calls (${ended(r)})`);
      const others = list.map((c) => (c as { function?: { name?: unknown } })?.function?.name).filter((n) => n !== NAMED);
      return others.length ? fail(`tool_choice named ${NAMED}, but the model called ${others.map(shown).join(', ')}`) : pass();
    }),
};

export const namedFinishReason: ApiCheck = {
  id: 'tools.named.finish-reason',
  suite: 'tools',
  title: `When tool_choice names a function and it is called, finish_reason is "tool_calls"`,
  section: '4.1',
  level: 'should',
  convention: '4.1 rule 2 asks "tool_calls" whenever the model calls a tool, but OpenAI itself answers "stop" when tool_choice names the function, so this is held as should.',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const r = await named(ctx, model);
      if (!readCalls(r).calls.some((c) => c.name === NAMED)) return notTested(`no readable call of ${NAMED} to judge (tools.named says why)`);
      return r.finishReason === 'tool_calls' ? pass() : fail(`the model called ${NAMED} but ${ended(r)}, not "tool_calls"`);
    }),
};

export const streamedCalls: ApiCheck = {
  id: 'tools.stream',
  suite: 'tools',
  title: 'Streamed, each tool call\'s first delta carries index, id and function.name, the argument fragments join into JSON, and finish_reason is "tool_calls"',
  section: '6',
  level: 'should',
  convention: 'Chunk fields are not shown; by convention a tool call streams as a first delta with index, id and function.name, then argument fragments under the same index.',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const s = readStream(await chat(ctx, streamedBody(model), { label: 'tool_choice "required", streamed' }));
      if (s.problem) return fail(s.problem);
      if (!s.chunks.length) return fail(`the stream carried no JSON chunk (${s.sse.events.length} event(s))`);
      const problems = s.payloads.filter((p) => p.error).map((p) => `event ${p.at} is not JSON (${p.error})`);
      const calls = new Map<number, { id?: unknown; name?: unknown; args: string }>();
      let finish: unknown;
      for (const { at, chunk } of s.chunks) {
        for (const choice of choicesOf(chunk)) {
          if ((choice.index ?? 0) !== 0) continue;
          if (choice.finish_reason != null) finish = choice.finish_reason;
          const deltas = (choice.delta as { tool_calls?: unknown } | undefined)?.tool_calls;
          if (!Array.isArray(deltas)) continue;
          for (const d of deltas as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }[]) {
            if (typeof d?.index !== 'number' || !Number.isInteger(d.index)) {
              problems.push(`event ${at}: a tool-call delta has no integer index`);
              continue;
            }
            const fn = d.function ?? {};
            let call = calls.get(d.index);
            if (!call) {
              const lacks = [typeof d.id === 'string' && d.id ? '' : 'id', typeof fn.name === 'string' && fn.name ? '' : 'function.name'].filter(Boolean);
              if (lacks.length) problems.push(`event ${at}: the first delta of tool call ${d.index} lacks ${lacks.join(' and ')}`);
              calls.set(d.index, (call = { id: d.id, name: fn.name, args: '' }));
            }
            if (!call.name && typeof fn.name === 'string') call.name = fn.name;
            if (typeof fn.arguments === 'string') call.args += fn.arguments;
          }
        }
      }
      if (!calls.size) {
        if (finish === 'length') return notTested(`generation reached max_tokens (${MAX_TOKENS}) before any tool call`);
        problems.push('no tool-call delta under tool_choice "required"');
      }
      for (const [index, c] of calls) {
        if (typeof c.name === 'string' && !DECLARED.has(c.name)) problems.push(`tool call ${index} calls ${shown(c.name)}, which no declared tool names`);
        const args = parseArgs(c.args);
        if (!args.ok) problems.push(`the argument text of tool call ${index}, joined from its fragments, ${args.error}`);
      }
      if (calls.size && finish !== 'tool_calls') problems.push(`the model called a tool but the stream's finish_reason is ${shown(finish)}, not "tool_calls"`);
      return problems.length ? fail(problems.join('; ')) : pass();
    }),
};

export const resultAnswered: ApiCheck = {
  id: 'tools.result-answered',
  suite: 'tools',
  title: 'A conversation ending in a tool message that answers the assistant\'s tool call is answered with an assistant message',
  section: '2.1, 2.2',
  level: 'must',
  run: (ctx) =>
    onToolModels(ctx, async (model) => {
      const first = await required(ctx, model);
      const read = readCalls(first);
      const usable = read.count > 0 && !read.problems.length;
      const calls = usable ? read.calls.map((c) => ({ id: c.id, name: c.name as FunctionName, raw: c.raw })) : [{ id: FIXED_CALL.id, name: 'get_weather' as const, raw: FIXED_CALL }];
      const content = usable && typeof first.message?.content === 'string' ? first.message.content : null;
      const messages = [
        ...ASK,
        { role: 'assistant', content, tool_calls: calls.map((c) => ({ ...c.raw, type: 'function' })) },
        ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(RESULTS[c.name] ?? { ok: true }) })),
      ];
      const r = readReply(await chat(ctx, { model, messages, tools: TOOL_SET, max_tokens: MAX_TOKENS }, { label: 'conversation ending in a tool result' }));
      if (r.problem) return fail(`a conversation ending in a tool result was not answered with a completion: ${r.problem}`);
      if (!r.message) return fail('the answer to the tool result has no choices[0].message');
      const more = r.message.tool_calls;
      if (typeof r.message.content !== 'string' && !(Array.isArray(more) && more.length))
        return fail(`the answer to the tool result carries neither content text nor tool_calls (content ${shown(r.message.content)}, ${ended(r)})`);
      return pass(usable ? [] : ['the tool_choice "required" answer held no usable tool call, so a fixed get_weather call was sent back']);
    }),
};

export const TOOLS: ApiCheck[] = [requiredCalls, strictArguments, noneCalls, namedCall, namedFinishReason, streamedCalls, resultAnswered];
