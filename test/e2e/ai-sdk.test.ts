// The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`) against the mock, over loopback HTTP
// and in-process.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, Output, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
// The mock under test (its keys, models, faults and limits), then what the SDK tests share to drive it.
import { ALPHA, BETA, BETA_ONLY_MODEL, MAX_RETRIES, MODEL, RATE_LIMITED, STREAM_ERROR, STREAM_ERROR_MESSAGE, TIMEOUT_MS, TRANSPORTS } from './support.js';
import { thrown, guardNetwork, useTransport, Person, Weather, type Transport } from './support.js';

// The SDK prints its warnings (an unsupported setting...) to the console unless told not to.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const network = guardNetwork();

const WeatherJson = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit', 'days'],
  additionalProperties: false,
} as const;

interface Usage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
}
const usageOk = (u: Usage) => {
  expect(u.inputTokens).toBeGreaterThan(0);
  expect(u.outputTokens).toBeGreaterThan(0);
  expect(u.totalTokens).toBe(u.inputTokens! + u.outputTokens!);
};

describe.each(TRANSPORTS)('AI SDK, $name', (transport) => {
  let t: Transport;
  const provider = (apiKey: string, headers?: Record<string, string>) =>
    createOpenAICompatible({ name: 'mock', baseURL: t.baseURL, apiKey, headers, includeUsage: true, supportsStructuredOutputs: true });
  const call = { maxRetries: MAX_RETRIES, timeout: TIMEOUT_MS };

  useTransport(transport, network, (started) => (t = started));

  it('plain reply: text, finishReason stop, usage', async () => {
    const r = await generateText({ model: provider(ALPHA.key)(MODEL), prompt: 'Say something.', ...call });
    expect(typeof r.text).toBe('string');
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.finishReason).toBe('stop');
    usageOk(r.usage);
  });

  it('streamText with includeUsage: text assembled, usage received', async () => {
    const since = await t.mark();
    const r = streamText({ model: provider(ALPHA.key)(MODEL), prompt: 'Repeat exactly: one two three four', ...call });
    const pieces: string[] = [];
    for await (const piece of r.textStream) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe('one two three four');
    expect(await r.finishReason).toBe('stop');
    usageOk(await r.usage);
    const [sent] = await t.chatRequests(since);
    expect(sent.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('tool call, non-streamed (zod schema): toolName and parsed input', async () => {
    const r = await generateText({
      model: provider(ALPHA.key)(MODEL),
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: tool({ description: 'Weather forecast', inputSchema: Weather }) },
      toolChoice: 'required',
      ...call,
    });
    expect(r.finishReason).toBe('tool-calls');
    expect(r.toolCalls).toHaveLength(1);
    const [c] = r.toolCalls;
    expect(c.toolName).toBe('get_weather');
    expect(c.dynamic).toBeFalsy();
    expect(Weather.parse(c.input)).toEqual(c.input);
  });

  it('tool call, streamed (JSON schema): toolName and parsed input', async () => {
    const r = streamText({
      model: provider(ALPHA.key)(MODEL),
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: tool({ inputSchema: jsonSchema<z.infer<typeof Weather>>(WeatherJson) }) },
      toolChoice: 'required',
      ...call,
    });
    const parts: string[] = [];
    for await (const p of r.fullStream) parts.push(p.type);
    expect(parts).toContain('tool-input-delta');
    const calls = await r.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0].toolName).toBe('get_weather');
    expect(Weather.parse(calls[0].input)).toEqual(calls[0].input);
    expect(await r.finishReason).toBe('tool-calls');
    usageOk(await r.usage);
  });

  it('json_schema output parsed by Output.object', async () => {
    const since = await t.mark();
    const r = await generateText({
      model: provider(ALPHA.key)(MODEL),
      prompt: 'Describe a person.',
      output: Output.object({ schema: Person, name: 'person' }),
      ...call,
    });
    expect(Person.parse(r.output)).toEqual(r.output);
    const [sent] = await t.chatRequests(since);
    expect(sent.body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'person' } } });
  });

  it('429 with retry-after-ms: the SDK retries and succeeds (journal: 429 then 200)', async () => {
    const since = await t.mark();
    const r = await generateText({ model: provider(ALPHA.key, { 'x-mock-fault': RATE_LIMITED })(MODEL), prompt: 'Hello after a rate limit.', ...call });
    expect(r.text.length).toBeGreaterThan(0);
    const sent = await t.chatRequests(since);
    expect(sent.map((e) => e.status)).toEqual([429, 200]);
    expect(sent[0].faults).toEqual([RATE_LIMITED]);
  });

  it('in-stream error event: an error part with the message, and onError told', async () => {
    const told: unknown[] = [];
    const r = streamText({
      model: provider(ALPHA.key, { 'x-mock-fault': STREAM_ERROR })(MODEL),
      prompt: 'Tell me a long story.',
      onError: ({ error }) => void told.push(error),
      ...call,
    });
    const errors: unknown[] = [];
    let text = '';
    for await (const p of r.fullStream) {
      if (p.type === 'error') errors.push(p.error);
      if (p.type === 'text-delta') text += p.text;
    }
    expect(errors).toHaveLength(1);
    // openai-compatible passes the event's `error` object through as it came.
    expect(errors[0]).toMatchObject({ message: STREAM_ERROR_MESSAGE, type: 'server_error', code: 'internal_error' });
    expect(told).toEqual(errors);
    expect(await r.finishReason).toBe('error');
    // The chunk before the error (role, then one content token) was delivered.
    expect(text.length).toBeGreaterThan(0);
  });

  it('a model outside the key: APICallError 404, not retried', async () => {
    const since = await t.mark();
    const ok = await generateText({ model: provider(BETA.key)(BETA_ONLY_MODEL), prompt: 'Hi', ...call });
    expect(ok.text.length).toBeGreaterThan(0);
    const e = await thrown(() => generateText({ model: provider(ALPHA.key)(BETA_ONLY_MODEL), prompt: 'Hi', ...call }));
    expect(APICallError.isInstance(e)).toBe(true);
    const err = e as APICallError;
    expect(err.statusCode).toBe(404);
    expect(err.isRetryable).toBe(false);
    expect(err.message).toContain(BETA_ONLY_MODEL);
    expect((await t.chatRequests(since)).map((x) => x.status)).toEqual([200, 404]);
  });
});
