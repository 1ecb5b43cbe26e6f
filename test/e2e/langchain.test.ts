// LangChain (`@langchain/openai` ChatOpenAI) against the mock, over loopback HTTP and in-process.
// ChatOpenAI's own retry loop (AsyncCaller) retries, not the openai client inside it (maxRetries 0).
import type { AIMessageChunk } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
// The mock under test (its keys, models, faults and limits), then what the SDK tests share to drive it.
import { ALPHA, BETA, BETA_ONLY_MODEL, MAX_RETRIES, MODEL, RATE_LIMITED, STREAM_ERROR, STREAM_ERROR_MESSAGE, TIMEOUT_MS, TRANSPORTS } from './support.js';
import { thrown, guardNetwork, useTransport, Person, Weather, type Transport } from './support.js';

// No tracing to LangSmith, whatever the environment says.
process.env.LANGSMITH_TRACING = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';

const network = guardNetwork();

const getWeather = tool(async (input) => JSON.stringify(input), { name: 'get_weather', description: 'Weather forecast', schema: Weather });

const usageOk = (u: { input_tokens: number; output_tokens: number; total_tokens: number } | undefined) => {
  expect(u).toBeTruthy();
  expect(u!.input_tokens).toBeGreaterThan(0);
  expect(u!.output_tokens).toBeGreaterThan(0);
  expect(u!.total_tokens).toBe(u!.input_tokens + u!.output_tokens);
};

async function collect(stream: AsyncIterable<AIMessageChunk>): Promise<{ final: AIMessageChunk; chunks: number }> {
  let final: AIMessageChunk | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    final = final ? final.concat(chunk) : chunk;
  }
  return { final: final!, chunks };
}

describe.each(TRANSPORTS)('LangChain ChatOpenAI, $name', (transport) => {
  let t: Transport;
  // Never `streaming: true` with invoke(): that path estimates token counts with tiktoken, whose
  // encodings it downloads from the network.
  const chat = (apiKey: string, opts: { model?: string; headers?: Record<string, string> } = {}) =>
    new ChatOpenAI({
      model: opts.model ?? MODEL,
      apiKey,
      maxRetries: MAX_RETRIES,
      timeout: TIMEOUT_MS,
      // The default, stated: streams ask for stream_options.include_usage.
      streamUsage: true,
      configuration: { baseURL: t.baseURL, defaultHeaders: opts.headers },
    });

  useTransport(transport, network, (started) => (t = started));

  it('plain reply: content, finish_reason stop, usage_metadata', async () => {
    const m = await chat(ALPHA.key).invoke('Say something.');
    expect(typeof m.content).toBe('string');
    expect((m.content as string).length).toBeGreaterThan(0);
    expect(m.response_metadata.finish_reason).toBe('stop');
    usageOk(m.usage_metadata);
  });

  it('stream() with streamUsage: text assembled, usage received', async () => {
    const since = await t.mark();
    const { final, chunks } = await collect(await chat(ALPHA.key).stream('Repeat exactly: one two three four'));
    expect(chunks).toBeGreaterThan(3);
    expect(final.content).toBe('one two three four');
    expect(final.response_metadata.finish_reason).toBe('stop');
    usageOk(final.usage_metadata);
    const [sent] = await t.chatRequests(since);
    expect(sent.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('tool call, non-streamed: bindTools with tool_choice required, parsed name and args', async () => {
    const m = await chat(ALPHA.key).bindTools([getWeather], { tool_choice: 'required' }).invoke('What is the weather in Paris?');
    expect(m.response_metadata.finish_reason).toBe('tool_calls');
    expect(m.tool_calls).toHaveLength(1);
    const [c] = m.tool_calls!;
    expect(c.name).toBe('get_weather');
    expect(c.id).toBeTruthy();
    expect(Weather.parse(c.args)).toEqual(c.args);
    expect(m.invalid_tool_calls ?? []).toEqual([]);
  });

  it('tool call, streamed: chunks concatenated into a parsed call', async () => {
    const bound = chat(ALPHA.key).bindTools([getWeather], { tool_choice: 'required' });
    const { final, chunks } = await collect(await bound.stream('What is the weather in Paris?'));
    expect(chunks).toBeGreaterThan(2);
    expect(final.tool_call_chunks!.length).toBeGreaterThan(0);
    expect(final.tool_calls).toHaveLength(1);
    const [c] = final.tool_calls!;
    expect(c.name).toBe('get_weather');
    expect(Weather.parse(c.args)).toEqual(c.args);
    usageOk(final.usage_metadata);
  });

  it('json_schema output parsed by withStructuredOutput', async () => {
    const since = await t.mark();
    const person = await chat(ALPHA.key).withStructuredOutput(Person, { name: 'person' }).invoke('Describe a person.');
    expect(Person.parse(person)).toEqual(person);
    const [sent] = await t.chatRequests(since);
    expect(sent.body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'person' } } });
  });

  it('429 with Retry-After: ChatOpenAI retries and succeeds (journal: 429 then 200)', async () => {
    const since = await t.mark();
    const m = await chat(ALPHA.key, { headers: { 'x-mock-fault': RATE_LIMITED } }).invoke('Hello after a rate limit.');
    expect((m.content as string).length).toBeGreaterThan(0);
    const sent = await t.chatRequests(since);
    expect(sent.map((e) => e.status)).toEqual([429, 200]);
    expect(sent[0].faults).toEqual([RATE_LIMITED]);
  });

  it('in-stream error event: stream() throws the openai APIError with the message', async () => {
    let chunks = 0;
    const e = await thrown(async () => {
      for await (const _ of await chat(ALPHA.key, { headers: { 'x-mock-fault': STREAM_ERROR } }).stream('Tell me a long story.')) chunks++;
    });
    expect(e).toBeInstanceOf(APIError);
    expect((e as APIError).message).toBe(STREAM_ERROR_MESSAGE);
    expect((e as APIError).code).toBe('internal_error');
    expect(chunks).toBeGreaterThan(0);
  });

  it('a model outside the key: a 404 error, not retried', async () => {
    const since = await t.mark();
    const ok = await chat(BETA.key, { model: BETA_ONLY_MODEL }).invoke('Hi');
    expect((ok.content as string).length).toBeGreaterThan(0);
    const e = await thrown(() => chat(ALPHA.key, { model: BETA_ONLY_MODEL }).invoke('Hi'));
    expect(e).toBeInstanceOf(APIError);
    expect((e as APIError).status).toBe(404);
    expect((e as { lc_error_code?: string }).lc_error_code).toBe('MODEL_NOT_FOUND');
    expect((await t.chatRequests(since)).map((x) => x.status)).toEqual([200, 404]);
  });
});
