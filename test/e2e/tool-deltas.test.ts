// The faults that break how a stream's tool-call deltas join (suites/tool-deltas.ts, owned by
// tools.stream) are ones the official `openai` SDK really trips on or mis-joins: its stream helper
// (ChatCompletionStream) is run on each, over loopback HTTP and in-process, and on the correct
// mock, whose stream it joins cleanly. Where the stream helper joins a fault right (it overwrites an
// id or name sent again), the SDK's generic delta join, AssistantStream.accumulateDelta, which
// joins as openai-python's accumulate_delta does, shows the mis-join; where it joins one it does not
// look into (a delta without a function object), the Vercel AI SDK's streamText shows it refused.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText, tool } from 'ai';
import OpenAI from 'openai';
import { zodFunction } from 'openai/helpers/zod';
import { AssistantStream } from 'openai/lib/AssistantStream';
import { describe, expect, it, vi } from 'vitest';
import { FAULTS } from '../../mock/core/faults/index.js';
import { ALPHA, MAX_RETRIES, MODEL, TIMEOUT_MS, TRANSPORTS } from './support.js';
import { guardNetwork, useTransport, Weather, type Transport } from './support.js';

const network = guardNetwork();

type Delta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall;

interface Joined {
  /** The stream's tool-call deltas as sent, in order. */
  deltas: Delta[];
  /** The final message's tool calls, or what finalChatCompletion threw. */
  calls?: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[];
  finish?: string | null;
  error?: Error;
  /** The `tool_calls.function.arguments.done` events. */
  done: { index: number; name: string; arguments: string }[];
}

/** The SDK's generic join of the deltas (openai-python's for a chat stream). */
const accumulated = (deltas: Delta[]) =>
  (deltas.reduce((acc, d) => AssistantStream.accumulateDelta(acc, { tool_calls: [structuredClone(d)] }), {} as Record<string, unknown>).tool_calls ?? []) as Delta[];

/** What each fault that breaks stream:tool-calls does to the SDK, shown on what it joined. */
const PROOF: Record<string, (j: Joined) => void> = {
  // No delta carries an id: the helper makes one up, which the server never issued.
  'tools-stream-delta-without-id': (j) => {
    expect(j.deltas.some((d) => d.id)).toBe(false);
    expect(j.calls![0].id).toMatch(/^call_[0-9a-f-]{36}$/);
  },
  // The call is joined with the function name "", so no declared tool parses its arguments.
  'tools-stream-delta-without-name': (j) => {
    const call = j.calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall & { function: { parsed_arguments: unknown } };
    expect(call.function.name).toBe('');
    expect(call.function.parsed_arguments).toBeNull();
  },
  'tools-stream-delta-without-type': (j) => {
    expect(j.error?.message).toMatch(/missing `type`/);
    expect(j.done).toEqual([]);
  },
  // The helper overwrites the id and name with the copy, so it joins right; the generic join
  // (openai-python's) concatenates them.
  'tools-stream-delta-repeats-id-name': (j) => {
    const sent = j.deltas.filter((d) => d.function?.name).length;
    expect(sent).toBeGreaterThan(1);
    expect(j.calls![0].type === 'function' && j.calls![0].function.name).toBe('get_weather');
    const [joined] = accumulated(j.deltas);
    expect(joined.function?.name).toBe('get_weather'.repeat(sent));
    expect(joined.id).toBe(j.calls![0].id.repeat(sent));
  },
  // The calls array keeps a hole at 0, which the helper walks into.
  'tools-stream-index-from-one': (j) => {
    expect(j.deltas[0].index).toBe(1);
    expect(j.error?.message).toMatch(/Cannot read properties of undefined/);
  },
  // Call 0 is closed when call 1 starts, and its arguments so far ("") parsed for the strict tool.
  'tools-stream-calls-interleaved': (j) => {
    expect(j.error?.message).toMatch(/JSON/);
  },
  // Every delta is put under the key "undefined": the stream ends with tool_calls and no call.
  'engine-stream-tool-delta-no-index': (j) => {
    expect(j.finish).toBe('tool_calls');
    expect(j.calls ?? []).toEqual([]);
    // The generic join logs the entry before it throws: kept out of the test's output.
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(() => accumulated(j.deltas)).toThrow(/index/);
    } finally {
      log.mockRestore();
    }
  },
};

/** What the AI SDK's streamText made of a stream: its error parts, and the calls it gave. */
interface AiJoined {
  errors: unknown[];
  calls: { toolName: string }[];
}

/** The faults the openai SDK's helper joins right, each shown refused by the AI SDK instead. */
const AI_PROOF: Record<string, (j: AiJoined) => void> = {
  // openai-node skips a delta without function; the AI SDK's chunk schema requires the object, so
  // the chunk is an error part (and openai-python's _build_events asserts it).
  'tools-stream-delta-without-function': (j) => {
    expect(j.errors.length).toBeGreaterThan(0);
    const e = j.errors[0] as Error;
    expect(e.name).toBe('AI_TypeValidationError');
    expect(e.message).toMatch(/"function"/);
  },
};

describe.each(TRANSPORTS)('SDKs joining tool-call deltas, $name', (transport) => {
  let client: OpenAI;
  let baseURL: string;

  useTransport(transport, network, (t: Transport) => {
    baseURL = t.baseURL;
    client = new OpenAI({ apiKey: ALPHA.key, baseURL, maxRetries: MAX_RETRIES, timeout: TIMEOUT_MS });
  });

  /** The same question and tool through the AI SDK's streamText. */
  async function aiJoin(fault?: string): Promise<AiJoined> {
    const provider = createOpenAICompatible({ name: 'mock', baseURL, apiKey: ALPHA.key, headers: fault ? { 'x-mock-fault': fault } : undefined });
    const r = streamText({
      model: provider(MODEL),
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: tool({ inputSchema: Weather }) },
      toolChoice: 'required',
      maxRetries: MAX_RETRIES,
      timeout: TIMEOUT_MS,
      // Errors are read off the stream's parts, not logged.
      onError: () => {},
    });
    const errors: unknown[] = [];
    for await (const p of r.fullStream) if (p.type === 'error') errors.push(p.error);
    return { errors, calls: await r.toolCalls };
  }

  /** A weather question with a required, strict tool, streamed through the SDK's stream helper. */
  async function join(fault?: string): Promise<Joined> {
    const stream = client.chat.completions.stream(
      { model: MODEL, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [zodFunction({ name: 'get_weather', parameters: Weather })], tool_choice: 'required' },
      fault ? { headers: { 'x-mock-fault': fault } } : undefined,
    );
    const j: Joined = { deltas: [], done: [] };
    stream.on('chunk', (chunk) => {
      for (const d of chunk.choices[0]?.delta?.tool_calls ?? []) j.deltas.push(structuredClone(d));
      j.finish = chunk.choices[0]?.finish_reason ?? j.finish;
    });
    stream.on('tool_calls.function.arguments.done', (e) => j.done.push({ index: e.index, name: e.name, arguments: e.arguments }));
    try {
      j.calls = (await stream.finalChatCompletion()).choices[0].message.tool_calls;
    } catch (e) {
      j.error = e as Error;
    }
    return j;
  }

  it("the correct mock's tool-call stream joins cleanly, in the helper and in the generic join", async () => {
    const j = await join();
    expect(j.error).toBeUndefined();
    const [first] = j.deltas;
    expect(first).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    const [call] = j.calls!;
    expect(call).toMatchObject({ id: first.id, type: 'function', function: { name: 'get_weather' } });
    const args = call.type === 'function' ? call.function.arguments : '';
    expect(Weather.parse(JSON.parse(args))).toEqual(JSON.parse(args));
    expect(j.done).toEqual([{ index: 0, name: 'get_weather', arguments: args }]);
    expect(accumulated(j.deltas)).toEqual([{ index: 0, id: first.id, type: 'function', function: { name: 'get_weather', arguments: args } }]);
  });

  it("the correct mock's tool-call stream joins cleanly in the AI SDK", async () => {
    const j = await aiJoin();
    expect(j.errors).toEqual([]);
    expect(j.calls.map((c) => c.toolName)).toEqual(['get_weather']);
  });

  it('has a proof for every fault that breaks the tool-call deltas of a stream', () => {
    const breaking = FAULTS.filter((f) => f.breaks?.includes('stream:tool-calls')).map((f) => f.name);
    expect([...Object.keys(PROOF), ...Object.keys(AI_PROOF)].sort()).toEqual(breaking.sort());
  });

  it.each(Object.keys(PROOF))('%s: the SDK trips on it or joins another call', async (fault) => {
    PROOF[fault](await join(fault));
  });

  it.each(Object.keys(AI_PROOF))('%s: the openai helper joins it, the AI SDK refuses it', async (fault) => {
    const j = await join(fault);
    expect(j.error).toBeUndefined();
    expect(j.calls).toHaveLength(1);
    AI_PROOF[fault](await aiJoin(fault));
  });
});
