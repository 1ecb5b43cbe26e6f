// A fault of the answer's shape bends whatever chat request it is asked on, not only the kit's own
// prompts: a frontend developer who sends `x-mock-fault: chat-role-bot` with an ordinary conversation
// gets role "bot" back. Each shape fault is asked here on a request the kit never sends, on each path
// it is a fault of, and its answer is held to what the fault describes, against the answer the same
// request gets without it (so a predicate that holds anyway proves nothing, and fails here).
//
// Not here: the refusals (chat-role-*-refused, stream-basic-refused), which refuse a request rather
// than bend its answer's shape; the stream's framing (blank lines, UTF-8, a reset, a split chunk,
// what follows [DONE]), which bends the kit's basic stream only, so that the other suites' streams
// stay readable; and the stream-*-tool-calls and stream-*-structured faults, whose point is to bend
// only the streams of one kind.
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../mock/core/faults/index.js';
import { createMock } from '../../mock/core/handle.js';
import type { MockReply } from '../../mock/core/types.js';
import { type Body, chat, events, headersOf, json, REASONER } from './helpers.js';

const ORDINARY: Body = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
};
/** As a frontend streams it: with usage, as the AI SDK and most chat UIs ask. */
const STREAMED: Body = { stream: true, stream_options: { include_usage: true } };

/** An answer as a frontend reads it: the JSON body, or the stream's chunks (`[DONE]` left out). */
interface Read {
  headers: Record<string, string>;
  body?: any;
  chunks?: any[];
}

function read(reply: MockReply): Read {
  if ('stream' in reply) return { headers: headersOf(reply), chunks: events([...reply.stream]).filter((e) => typeof e === 'object') };
  return { headers: headersOf(reply), body: json(reply) };
}

const usageOf = (a: Read) => (a.body ? a.body.usage : a.chunks!.find((c) => c.usage)?.usage);
const finishes = (a: Read): unknown[] =>
  a.body ? a.body.choices.map((c: any) => c.finish_reason) : a.chunks!.flatMap((c) => (c.choices ?? []).map((x: any) => x.finish_reason)).filter((f) => f != null);
/** The tool-call deltas of a stream's first choice, in order. */
const callDeltas = (a: Read): any[] => a.chunks!.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
/** The envelope of the answer: the body, or every chunk. */
const envelopes = (a: Read): any[] => (a.body ? [a.body] : a.chunks!);

interface Bent {
  /** What the fault does to the answer: true of the bent answer, false of the plain one. */
  bent: (a: Read) => boolean;
  /** The paths it is a fault of. */
  paths: ('json' | 'stream')[];
  /** Fields a request needs for the fault to have something to bend (a cut, a tool call), beside the ordinary conversation. */
  ask?: Body;
  /** Only on the streamed request, for the fault about a stream that did not ask for usage. */
  streamAsk?: Body;
}

const BOTH = ['json', 'stream'] as const;
const JSON_ONLY = ['json'] as const;
const STREAM_ONLY = ['stream'] as const;

const LOOKUP_TOOL = {
  type: 'function',
  function: { name: 'lookup_capital', description: 'The capital of a country.', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] } },
};
/** An ordinary conversation that offers a tool and must call it. */
const CALLS_A_TOOL: Body = { tools: [LOOKUP_TOOL], tool_choice: 'required' };
/** An ordinary conversation that ends in the result of the tool its answer called. */
const TOOL_ANSWERED: Body = {
  tools: [LOOKUP_TOOL],
  messages: [
    ...(ORDINARY.messages as Body[]),
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_capital', arguments: '{"country":"France"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"capital":"Paris"}' },
  ],
};
/** An ordinary conversation cut by its token limit. */
const CUT = 2;

const SHAPE: Record<string, Bent> = {
  'chat-created-string': { paths: [...JSON_ONLY], bent: (a) => typeof a.body.created === 'string' },
  'chat-object-chat-completions': { paths: [...JSON_ONLY], bent: (a) => a.body.object === 'chat.completions' },
  'chat-choice-index-out-of-order': { paths: [...JSON_ONLY], bent: (a) => a.body.choices.map((c: any) => c.index).join() === '1,0' },
  'chat-finish-reason-eos': { paths: [...JSON_ONLY], bent: (a) => finishes(a).includes('eos') },
  'chat-role-bot': { paths: [...JSON_ONLY], bent: (a) => a.body.choices[0].message.role === 'bot' },
  'chat-usage-missing': { paths: [...JSON_ONLY], bent: (a) => a.body.usage === undefined },
  'chat-usage-missing-mock-reason-1': { paths: [...JSON_ONLY], ask: { model: REASONER }, bent: (a) => a.body.usage === undefined },
  'chat-usage-counts-strings': { paths: [...JSON_ONLY], bent: (a) => typeof a.body.usage.prompt_tokens === 'string' },
  'chat-usage-total-off': { paths: [...JSON_ONLY], bent: ({ body: { usage: u } }) => u.total_tokens === u.prompt_tokens + u.completion_tokens + 1 },
  'chat-usage-details-missing': { paths: [...JSON_ONLY], bent: ({ body: { usage: u } }) => !('prompt_tokens_details' in u) && !('completion_tokens_details' in u) },
  'chat-usage-cached-tokens-string': { paths: [...JSON_ONLY], bent: (a) => typeof a.body.usage.prompt_tokens_details.cached_tokens === 'string' },
  'chat-usage-reasoning-tokens-string': { paths: [...JSON_ONLY], bent: (a) => typeof a.body.usage.completion_tokens_details.reasoning_tokens === 'string' },
  'chat-stream-false-streamed': { paths: [...JSON_ONLY], ask: { stream: false }, bent: (a) => a.chunks !== undefined },
  'chat-max-tokens-ignored': { paths: [...BOTH], ask: { max_tokens: CUT }, bent: (a) => usageOf(a).completion_tokens > CUT },
  'chat-max-tokens-ignored-streamed': { paths: [...STREAM_ONLY], ask: { max_tokens: CUT }, bent: (a) => usageOf(a).completion_tokens > CUT },
  'chat-length-reported-as-stop': { paths: [...JSON_ONLY], ask: { max_tokens: CUT }, bent: (a) => finishes(a).includes('stop') },
  'chat-length-before-cap': { paths: [...JSON_ONLY], ask: { max_tokens: CUT }, bent: (a) => a.body.usage.completion_tokens < CUT },
  'chat-reasoning-beyond-cap': { paths: [...BOTH], ask: { model: REASONER, max_tokens: 16 }, bent: (a) => usageOf(a).completion_tokens > 16 },
  'chat-length-when-not-cut': { paths: [...JSON_ONLY], bent: (a) => finishes(a).includes('length') },
  'chat-created-milliseconds': { paths: [...BOTH], bent: (a) => envelopes(a).every((x) => x.created > 1e12) },
  'chat-created-milliseconds-streamed': { paths: [...STREAM_ONLY], bent: (a) => envelopes(a).every((x) => x.created > 1e12) },
  'chat-model-other': { paths: [...BOTH], bent: (a) => envelopes(a).every((x) => x.model === 'gpt-4o-mini') },
  'chat-model-other-mock-reason-1': { paths: [...BOTH], ask: { model: REASONER }, bent: (a) => envelopes(a).every((x) => x.model === 'gpt-4o-mini') },
  'chat-natural-end-content-filter': { paths: [...BOTH], bent: (a) => finishes(a).includes('content_filter') },
  'chat-natural-end-length-streamed': { paths: [...STREAM_ONLY], bent: (a) => finishes(a).includes('length') },

  'stream-chunk-model-missing': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.every((c) => !('model' in c)) },
  'stream-delta-content-parts': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.some((c) => Array.isArray(c.choices?.[0]?.delta?.content)) },
  'stream-chunk-index-string': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.some((c) => typeof c.choices?.[0]?.index === 'string') },
  'stream-chunk-object-wrong': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.every((c) => c.object === 'chat.completion') },
  'stream-json-content-type': { paths: [...STREAM_ONLY], bent: (a) => a.headers['content-type'].startsWith('application/json') },
  'stream-ids-differ': { paths: [...STREAM_ONLY], bent: (a) => new Set(a.chunks!.map((c) => c.id)).size > 1 },
  'stream-first-delta-without-role': { paths: [...STREAM_ONLY], bent: (a) => !('role' in a.chunks![0].choices[0].delta) },
  'stream-two-finish-reasons': { paths: [...STREAM_ONLY], bent: (a) => finishes(a).length > 1 },
  'stream-finish-reason-outside-enum': { paths: [...STREAM_ONLY], bent: (a) => finishes(a).includes('done') },

  'usage-stream-missing': { paths: [...STREAM_ONLY], bent: (a) => usageOf(a) === undefined },
  'usage-stream-on-every-chunk': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.every((c) => c.usage) },
  'usage-stream-before-finish': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.findIndex((c) => c.usage) < a.chunks!.findIndex((c) => c.choices?.[0]?.finish_reason) },
  'usage-stream-with-choices': { paths: [...STREAM_ONLY], bent: (a) => a.chunks!.find((c) => c.usage).choices.length > 0 },
  'usage-stream-shape': { paths: [...STREAM_ONLY], bent: (a) => typeof usageOf(a).prompt_tokens === 'string' },
  'usage-stream-total-off': { paths: [...STREAM_ONLY], bent: (a) => usageOf(a).total_tokens === usageOf(a).prompt_tokens + usageOf(a).completion_tokens + 1 },
  'usage-stream-unasked': { paths: [...STREAM_ONLY], streamAsk: { stream_options: undefined }, bent: (a) => usageOf(a) !== undefined },
  'usage-stream-counts-chunks': { paths: [...STREAM_ONLY], bent: (a) => usageOf(a).completion_tokens === a.chunks!.filter((c) => !c.usage).length },

  'engine-usage-no-completion-details': { paths: [...JSON_ONLY], bent: (a) => !('completion_tokens_details' in a.body.usage) },
  'engine-stream-usage-no-completion-details': { paths: [...STREAM_ONLY], bent: (a) => !('completion_tokens_details' in usageOf(a)) },
  'engine-prompt-details-null': { paths: [...BOTH], bent: (a) => usageOf(a).prompt_tokens_details === null },
  'engine-content-null-with-tool-calls': { paths: [...JSON_ONLY], ask: CALLS_A_TOOL, bent: (a) => a.body.choices[0].message.content === null },
  'chat-cut-tool-call-finish-tool-calls': { paths: [...BOTH], ask: { ...CALLS_A_TOOL, max_tokens: CUT }, bent: (a) => finishes(a).includes('tool_calls') },
  'engine-tool-arguments-object': { paths: [...JSON_ONLY], ask: CALLS_A_TOOL, bent: (a) => typeof a.body.choices[0].message.tool_calls[0].function.arguments === 'object' },
  'tools-result-empty': { paths: [...JSON_ONLY], ask: TOOL_ANSWERED, bent: (a) => a.body.choices[0].message.content === null && !a.body.choices[0].message.tool_calls },
  'engine-stream-tool-delta-no-index': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => a.chunks!.some((c) => c.choices?.[0]?.delta?.tool_calls?.some((d: any) => !('index' in d))) },
  'tools-stream-delta-without-id': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => !callDeltas(a).some((d) => d.id) },
  'tools-stream-delta-without-name': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => !callDeltas(a).some((d) => d.function?.name) },
  'tools-stream-delta-without-type': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => !callDeltas(a).some((d) => d.type) },
  'tools-stream-delta-without-function': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => callDeltas(a).some((d) => !d.function) },
  'tools-stream-delta-repeats-id-name': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => callDeltas(a).filter((d) => d.id && d.function?.name).length > 1 },
  'tools-stream-index-from-one': { paths: [...STREAM_ONLY], ask: CALLS_A_TOOL, bent: (a) => callDeltas(a)[0]?.index === 1 },
  'tools-stream-calls-interleaved': {
    paths: [...STREAM_ONLY],
    ask: CALLS_A_TOOL,
    bent: (a) =>
      callDeltas(a)
        .map((d) => d.index)
        .join('')
        .includes('010'),
  },
};

/** The parts of an answer's shape (the answer reader's, but being served and the stream's framing). */
const SHAPE_PARTS = new Set(['envelope', 'object', 'index', 'role', 'content', 'finish_reason', 'usage', 'usage-details', 'tool-calls']);

describe("a shape fault bends an ordinary request, not only the kit's own", () => {
  const mock = createMock();

  it("every fault that breaks a part of the answer's shape is held here", () => {
    const breaking = FAULTS.filter((f) => f.breaks?.some((b) => SHAPE_PARTS.has(b.split(':')[1]))).map((f) => f.name);
    expect(breaking.filter((name) => !(name in SHAPE))).toEqual([]);
    expect(Object.keys(SHAPE).filter((name) => !FAULTS.some((f) => f.name === name))).toEqual([]);
  });

  const cases = Object.entries(SHAPE).flatMap(([name, b]) => b.paths.map((path) => [name, path, b] as const));
  it.each(cases)('%s, %s', (name, path, b) => {
    const body = { ...ORDINARY, ...(path === 'stream' ? { ...STREAMED, ...b.streamAsk } : {}), ...b.ask };
    const plain = read(chat(mock, body));
    const faulty = read(chat(mock, body, { 'x-mock-fault': name }));
    expect(b.bent(plain), 'the answer without the fault is already so').toBe(false);
    expect(b.bent(faulty), `the answer with ${name}: ${JSON.stringify(faulty.body ?? faulty.chunks).slice(0, 600)}`).toBe(true);
  });
});
