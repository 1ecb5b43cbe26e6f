// Section 2.1 (tools, tool_choice), 2.2 (the tool role) and 4.1 rule 2 (finish_reason tool_calls):
// function calling, streamed and not, on the models under test that may take tools (those the
// catalog declares tools for, and those it does not describe: a refusal leaves them not-tested).
import { validateWith } from '../schemas/index.js';
import { inSuite, type ApiCheck, type CheckDef, type ChatBody, type ApiPath } from './api.js';
import { ask } from './ask.js';
import { answerTo, askWithRoom, heldOnEvery, judged, partOnEveryAnswer, ROOM, type Answer, type Part } from './answer.js';
import type { ToolCallRead } from './tool-deltas.js';
import { failIfAny, fail, notTested, pass, type AxisPoint, type Verdict } from '../engine/check.js';
import { parseJson } from '../engine/json.js';
import type { CheckContext } from '../engine/runner.js';
import { modelsTaking, STREAM, STREAM_ONLY } from './paths.js';
import { eachReading, type Known } from './each.js';

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

/** A question one of the tools answers: auto may call it, none must not, and the named form must
 * call the other one all the same. */
const ASK = [{ role: 'user', content: 'What is the weather in Paris right now, in celsius?' }];
/** A question no tool answers, for tool_choice "required": a server that takes "required" for "auto"
 * answers it in words, where one that honours it must call a tool anyway. */
const UNINVITED = [{ role: 'user', content: 'Say hello in one short sentence.' }];
const askFor = (choice: string) => (choice === 'required' ? UNINVITED : ASK);
/** A tool result needs only to be answered, not answered in full. */
const RESULT_CAP = 16;

/** The values of tool_choice, by name: the named form names one declared function. */
const CHOICES: Record<string, unknown> = { auto: 'auto', required: 'required', none: 'none', named: { type: 'function', function: { name: NAMED } } };
const CHOICE_AXIS: readonly AxisPoint[] = Object.keys(CHOICES).map((c) => ({ value: c, label: c === 'named' ? `tool_choice naming ${NAMED}` : `tool_choice ${c}` }));

const asked =
  (model: string, choice: string) =>
  (cap: number): ChatBody => ({ model, messages: askFor(choice), tools: TOOL_SET, tool_choice: CHOICES[choice], max_tokens: cap });

/** What the tool "returns" in the follow-up turn. */
const RESULTS: Record<FunctionName, object> = {
  get_weather: { city: 'Paris', temperature: 18, unit: 'celsius', conditions: 'cloudy' },
  get_time: { timezone: 'Europe/Paris', time: '2026-01-01T12:00:00+01:00' },
};
/** Sent when the tool_choice "required" answer holds no usable call, so the tool turn is still tested. */
const FIXED_CALL = { id: 'call_conformance_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } };

const shown = (v: unknown) => {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
};

type Args = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Arguments are JSON text of an object: the parameters of every declared function are objects. */
function parseArgs(text: unknown): Args {
  if (typeof text !== 'string') return { ok: false, error: `is ${shown(text)}, not a string of JSON` };
  const json = parseJson(text);
  if (!json.ok) return { ok: false, error: `is not JSON (${json.error}): ${shown(text)}` };
  const value = json.value;
  return value && typeof value === 'object' && !Array.isArray(value) ? { ok: true, value: value as Record<string, unknown> } : { ok: false, error: `is JSON but not an object: ${shown(text)}` };
}

/** What is wrong with one call: a name no declared tool has, arguments that are not a JSON object. */
function callProblems(call: ToolCallRead): string[] {
  const problems: string[] = [];
  if (typeof call.name !== 'string' || !DECLARED.has(call.name)) problems.push(`tool call ${call.index} calls ${shown(call.name)}, which no declared tool names (${[...DECLARED.keys()].join(', ')})`);
  const args = parseArgs(call.arguments);
  if (!args.ok) problems.push(`the arguments of tool call ${call.index}${call.raw ? '' : ', joined from their fragments,'} ${args.error}`);
  return problems;
}

const ON_TOOLS = { stream: STREAM, model: modelsTaking('tools') };

/** The tool request under one tool_choice, on a path: one exchange, whichever checks read it. */
export const toolRequest = (ctx: CheckContext, path: ApiPath, choice: string) => askWithRoom(ctx, path, asked(path.model!, choice), CHOICE_AXIS.find((c) => c.value === choice)!.label);

/** The answer to a tool request on a path, with the parts a rule reads sound, or the verdict that
 * ends the check. Its being served is tools.finish-reason's to judge, which asks every choice; a
 * refusal of its tool_choice is the check's that owns that form (fields.ts), which fails it where it
 * asks it; `self`, the check asking, where it is tools.finish-reason, owns the request's being served. */
async function answered(
  ctx: CheckContext,
  path: ApiPath,
  choice: string,
  reads: readonly Part[],
  self?: string,
): Promise<{ answer: Answer; verdict?: undefined } | { answer?: undefined; verdict: Verdict }> {
  const label = CHOICE_AXIS.find((c) => c.value === choice)!.label;
  const servedBy = self === 'tools.finish-reason' ? undefined : 'tools.finish-reason';
  return answerTo(ctx, await toolRequest(ctx, path, choice), path, reads, { what: label, servedBy, feature: 'tools' });
}

/** The tool_choice of the load's tool request (a call it is sure to make). */
const UNDER_LOAD = 'required';

/** A rule about the answer under one tool_choice (the path's, when not named), and the parts it
 * reads; `self`, the check, where it owns that form of tool_choice; under load, on each answer to
 * the tool request when it is that choice's. */
const under = (choice: string | undefined, reads: Part[], rule: (a: Answer) => Verdict, self?: string) => ({
  ...judged<{ answer: Answer }>(
    reads,
    (ctx, path) => answered(ctx, path, choice ?? String(path.choice), reads, self),
    (got) => rule(got.answer),
  ),
  ...(choice === UNDER_LOAD ? { onEach: eachReading(reads, rule, { kinds: ['tools'] }) } : {}),
});

/** The tool request of a load: the one the rules judge under tool_choice "required". */
export const toolBody = (model: string) => asked(model, UNDER_LOAD)(ROOM[0]);

const ended = (a: Answer) => `finish_reason ${shown(a.finishReason)}`;
/** A turn cut by the token limit may end before any call: that proves nothing about tools. */
const cutBeforeCall = (a: Answer) => (a.finishReason === 'length' ? notTested(`generation reached max_tokens (${ROOM.at(-1)}) before any tool call`) : undefined);
/** Or inside one: "length" with a call whose arguments end before their JSON does (a server-side cap
 * below max_tokens). Whether a limit was reached is chat.length-only-at-cap's to judge, not the
 * tools checks'. */
const cutInCall = (a: Answer) =>
  a.finishReason === 'length' && a.toolCalls.some((c) => !parseArgs(c.arguments).ok) ? notTested('generation reached the token limit inside the tool call: its arguments end cut') : undefined;

export const finishReason: CheckDef = {
  id: 'tools.finish-reason',
  title: 'finish_reason is "tool_calls" exactly when the message calls a tool, whatever tool_choice is',
  section: '4.1',
  level: 'must',
  audit:
    'Sends the tool request under each tool_choice, streamed and not: auto and none with a weather question get_weather answers, required with a greeting no tool answers, the named get_time with the weather question; a server that ends a call with "stop", or says "tool_calls" with no call, fails on the choice and path it does it; shown by faults tools-finish-stop, tools-stream-finish-stop and tools-finish-tool-calls-without-call.',
  paths: { ...ON_TOOLS, choice: CHOICE_AXIS },
  // Whether a call was made is read leniently: the calls' shape is tools.call-valid's and tools.stream's.
  reads: ['finish_reason'],
  onEach: eachReading(['finish_reason'], (a) => endsAsCalled(a), { kinds: ['tools'] }),
  async run(ctx, path) {
    const got = await answered(ctx, path, String(path.choice), ['finish_reason'], 'tools.finish-reason');
    return got.verdict ?? endsAsCalled(got.answer);
  },
};

/** "tool_calls" exactly when the message calls a tool. */
function endsAsCalled(a: Answer): Verdict {
  if (a.toolCalls.length) return a.finishReason === 'tool_calls' ? pass() : (cutInCall(a) ?? fail(`the message calls ${a.toolCalls.length} tool(s) but ${ended(a)}, not "tool_calls" (4.1 rule 2)`));
  return a.finishReason === 'tool_calls' ? fail('finish_reason is "tool_calls" but the message calls no tool') : pass();
}

export const requiredCalls: CheckDef = {
  id: 'tools.required',
  title: 'With tool_choice "required" the message calls a tool',
  section: '2.1',
  level: 'should',
  audit:
    'Asks with tool_choice "required" a greeting that no declared tool answers, streamed and not: a server that takes "required" for "auto" answers in words, where one that honours it must call a tool anyway, and one that refuses "required" (a 4xx naming tool_choice, where the catalog lists the value) fails here, not the rules of the other checks that read the answer; shown by faults tools-required-as-auto, tools-required-ignored and tools-forced-choice-refused.',
  convention: 'tool_choice "required" is listed without its meaning; by convention it forces at least one call.',
  paths: ON_TOOLS,
  ...under(
    'required',
    ['finish_reason'],
    (a) => (a.toolCalls.length ? pass() : (cutBeforeCall(a) ?? fail(`tool_choice "required" gave no tool call (${ended(a)}, content ${shown(a.content)})`))),
    'tools.required',
  ),
};

export const validCalls: CheckDef = {
  id: 'tools.call-valid',
  title: 'A tool call names a declared function and carries its arguments as JSON text of an object',
  section: '2.1',
  level: 'should',
  audit:
    'Reads the calls made under auto, required and the named choice, streamed and not: a server that calls a function the request did not declare, or passes arguments that are not JSON text of an object (an object, city=Paris), fails; shown by faults tools-undeclared-function, tools-arguments-not-json and tools-stream-arguments-not-json.',
  convention: 'Tool definitions and calls are not shown; by convention a call names one of the functions the request declares, with arguments as JSON text.',
  paths: { ...ON_TOOLS, choice: CHOICE_AXIS.filter((c) => c.value !== 'none') },
  reads: ['tool-calls', 'finish_reason'],
  // Owner of the tool calls' shape on a JSON answer (tools.stream owns the deltas of a stream): on
  // the path of the first choice it holds every other JSON answer of the run to it too, so it runs last.
  last: true,
  onEach: {
    kinds: ['tools'],
    judge: (a: Answer, known: Known) => eachReading(a.stream ? ['tool-calls', 'finish_reason'] : ['finish_reason'], (b) => callsValid(b, UNDER_LOAD)).judge(a, known),
  },
  async run(ctx, path) {
    const got = await answered(ctx, path, String(path.choice), path.stream ? ['tool-calls', 'finish_reason'] : ['finish_reason']);
    const own = got.verdict ?? callsValid(got.answer, String(path.choice));
    if (path.stream || path.choice !== CHOICE_AXIS[0].value) return own;
    return heldOnEvery(own, await partOnEveryAnswer(ctx, path.model!, false, 'tool-calls', got.answer ? [got.answer.ex] : [], own.outcome !== 'fail'), 'the answer under tool_choice auto');
  },
};

/** Each call of an answer under `choice` names a declared function with JSON arguments; on a JSON
 * answer, the calls' shape too. */
function callsValid(a: Answer, choice: string): Verdict {
  const shape = a.stream ? undefined : a.broken['tool-calls'];
  // No call where one was due is the forcing check's to fail (tools.required, tools.named).
  const forcedBy = choice === 'required' ? 'tools.required' : choice === 'named' ? 'tools.named' : undefined;
  if (!a.toolCalls.length && !shape) return cutBeforeCall(a) ?? notTested(`no tool call to judge (${ended(a)})${forcedBy ? `: see ${forcedBy}` : ''}`, forcedBy);
  return (shape ? undefined : cutInCall(a)) ?? failIfAny([...(shape ? [shape] : []), ...a.toolCalls.flatMap(callProblems)]);
}

export const strictArguments: CheckDef = {
  id: 'tools.strict-arguments',
  title: "With strict: true, the arguments of a tool call are valid against the function's parameters",
  section: '2.1',
  level: 'should',
  audit:
    'Forces a call with tool_choice "required" on a greeting, so the model must invent the arguments, of tools declared strict: true with every parameter required and unit an enum, streamed and not: a server that does not hold arguments to a strict schema lets through arguments that break it; shown by fault tools-strict-arguments-invalid.',
  convention: 'Tool definitions are not shown; by convention strict: true makes the arguments conform to the parameters schema.',
  paths: ON_TOOLS,
  ...under('required', ['tool-calls'], (a) => {
    const calls = a.toolCalls.filter((c) => !callProblems(c).length);
    if (!calls.length && cutInCall(a)) return cutInCall(a)!;
    if (!calls.length)
      return (
        (a.toolCalls.length ? undefined : cutBeforeCall(a)) ??
        notTested(
          'the tool_choice "required" answer holds no call of a declared function with JSON arguments: see tools.required, tools.call-valid',
          a.toolCalls.length ? 'tools.call-valid' : 'tools.required',
        )
      );
    const wrong = calls.flatMap((c) => {
      const v = validateWith(DECLARED.get(String(c.name)), JSON.parse(c.arguments));
      return v.ok ? [] : [`${String(c.name)}(${shown(c.arguments)}): ${v.schemaError ?? v.errors.join(', ')}`];
    });
    return wrong.length ? fail(`arguments do not match the strict parameters schema: ${wrong.join('; ')}`) : pass();
  }),
};

export const noneCalls: CheckDef = {
  id: 'tools.none',
  title: 'With tool_choice "none" the message carries no tool_calls',
  section: '2.1',
  level: 'should',
  audit:
    'Asks the weather question, which get_weather answers, with tool_choice "none", streamed and not: a server that ignores "none" (takes it for auto) calls get_weather, where one that honours it answers in words; shown by fault tools-none-ignored.',
  convention: 'tool_choice "none" is listed without its meaning; by convention the model then calls no tool.',
  paths: ON_TOOLS,
  ...under(
    'none',
    ['finish_reason'],
    (a) => (a.toolCalls.length ? fail(`tool_choice "none" still gave ${a.toolCalls.length} tool call(s): ${shown(a.toolCalls.map((c) => c.name))}`) : pass()),
    'tools.none',
  ),
};

export const namedCall: CheckDef = {
  id: 'tools.named',
  title: `With tool_choice naming a function (${NAMED}), the message calls that function`,
  section: '2.1',
  level: 'should',
  audit:
    'Asks the weather question with tool_choice naming get_time, the tool the question does not invite, streamed and not: a server that ignores the named form (takes it for auto or required) calls get_weather, the tool the question asks for, and one that refuses it (a 4xx naming tool_choice) fails here, not the rules of the other checks that read the answer; shown by faults tools-named-ignored and tools-forced-choice-refused.',
  convention: 'The named form of tool_choice is not shown; by convention {type: "function", function: {name}} forces a call of that function.',
  paths: ON_TOOLS,
  ...judged<{ answer: Answer }>(
    ['tool-calls', 'finish_reason'],
    // The name a client reads off a stream is the one its deltas join to (tools.stream's part); off a
    // JSON answer, the message's own, whatever else of the call is wrong.
    (ctx, path) => answered(ctx, path, 'named', path.stream ? ['tool-calls', 'finish_reason'] : ['finish_reason'], 'tools.named'),
    ({ answer: a }) => {
      if (!a.toolCalls.length) return cutBeforeCall(a) ?? fail(`tool_choice named ${NAMED}, but the message calls no tool (${ended(a)})`);
      const others = a.toolCalls.map((c) => c.name).filter((n) => n !== NAMED);
      return others.length ? fail(`tool_choice named ${NAMED}, but the model called ${others.map(shown).join(', ')}`) : pass();
    },
  ),
};

export const streamedDeltas: CheckDef = {
  id: 'tools.stream',
  title: "Streamed, each tool call's deltas join as the official clients join them",
  section: '6',
  level: 'should',
  audit:
    'Joins the tool-call deltas of the stream asked with tool_choice "required", and of every other tool-call stream the run received for the model (auto, named), as openai-node, openai-python and the AI SDK do: a server whose first delta of a call lacks id, type "function" or function.name, that sends a delta without a function object, or the id or name again on a later delta, numbers a call other than 0, 1, 2 in order, interleaves two calls or sends a delta without an index leaves a client with a call other than the one meant, or an error; shown by faults tools-stream-delta-without-id, tools-stream-delta-without-name, tools-stream-delta-without-type, tools-stream-delta-without-function, tools-stream-delta-repeats-id-name, tools-stream-index-from-one, tools-stream-calls-interleaved and engine-stream-tool-delta-no-index.',
  convention:
    'Chunk fields are not shown; by convention a tool call streams as a first delta with index, id, type "function" and function.name, then argument fragments under the same index, one call after another, indexed 0, 1, 2.',
  paths: { stream: STREAM_ONLY, model: modelsTaking('tools') },
  reads: ['tool-calls', 'finish_reason'],
  // Also holds the rule on the other tool-call streams of the run, once they are all received.
  last: true,
  onEach: eachReading(['finish_reason'], (a) => deltasWhole(a), { kinds: ['tools'], way: 'stream' }),
  async run(ctx, path) {
    // Owner of the tool-call deltas on a stream: the part as suites/tool-deltas.ts joins it.
    const got = await answered(ctx, path, 'required', ['finish_reason']);
    const own = got.verdict ?? deltasWhole(got.answer);
    return heldOnEvery(own, await partOnEveryAnswer(ctx, path.model!, true, 'tool-calls', got.answer ? [got.answer.ex] : [], own.outcome !== 'fail'), 'the tool_choice "required" stream');
  },
};

/** The tool calls of a stream join as the official clients join them (suites/tool-deltas.ts reads
 * the part), and the stream asked to call one does. */
function deltasWhole(answer: Answer): Verdict {
  const shape = answer.broken['tool-calls'];
  if (shape !== undefined) return fail(shape);
  return answer.toolCalls.length ? pass() : (cutBeforeCall(answer) ?? notTested('the stream carried no tool-call delta: see tools.required', 'tools.required'));
}

export const resultAnswered: CheckDef = {
  id: 'tools.result-answered',
  title: "A conversation ending in a tool message that answers the assistant's tool call is answered",
  section: '2.1, 2.2',
  level: 'must',
  audit:
    'Sends back the call the "required" answer made (or a fixed get_weather call) with its tool result, streamed and not: a server that refuses tool messages, or the call it made itself, answers a 4xx; shown by fault tools-result-refused.',
  paths: ON_TOOLS,
  reads: ['served'],
  async run(ctx, path) {
    const first = await answered(ctx, path, 'required', ['tool-calls']);
    // A call goes back only whole: a tool message must name its call's id.
    const calls = first.answer?.toolCalls.filter((c) => !callProblems(c).length && typeof c.id === 'string' && c.id) ?? [];
    const usable = calls.length > 0;
    const sentBack = usable ? calls.map((c) => c.raw ?? { id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }) : [FIXED_CALL];
    const messages = [
      ...askFor('required'),
      // Content is a string (2.2), also on the turn that carries tool_calls.
      { role: 'assistant', content: usable ? first.answer!.content : '', tool_calls: sentBack.map((c) => ({ ...c, type: 'function' })) },
      ...sentBack.map((c) => ({ role: 'tool', tool_call_id: (c as { id: string }).id, content: JSON.stringify(RESULTS[(c as { function: { name: FunctionName } }).function.name] ?? { ok: true }) })),
    ];
    const got = await answerTo(ctx, await ask(ctx, path, { model: path.model!, messages, tools: TOOL_SET, max_tokens: RESULT_CAP }, 'conversation ending in a tool result'), path, [], {
      what: 'a conversation ending in a tool result',
      feature: 'tools',
    });
    if (got.verdict) return got.verdict;
    return pass(usable ? [] : ['the tool_choice "required" answer held no usable tool call, so a fixed get_weather call was sent back']);
  },
};

export const TOOLS: ApiCheck[] = inSuite('tools', [finishReason, requiredCalls, validCalls, strictArguments, noneCalls, namedCall, streamedDeltas, resultAnswered]);
