// The official `openai` SDK against the mock, over loopback HTTP and in-process: what a frontend
// or backend developer building on the SDK relies on.
import OpenAI, { APIError } from 'openai';
import { LengthFinishReasonError } from 'openai/error';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
// The mock under test (its keys, models, faults and limits), then what the SDK tests share to drive it.
import { ALPHA, BETA, MAX_RETRIES, MODEL, RATE_LIMITED, STREAM_ERROR, STREAM_ERROR_MESSAGE, TIMEOUT_MS, TRANSPORTS } from './support.js';
import { thrown, guardNetwork, useTransport, Person, Weather, type Transport } from './support.js';

const network = guardNetwork();
/** On the first key's list: spends part of max_tokens on reasoning. */
const REASONING_MODEL = 'mock-reason-1';
/** get_weather as a plain function definition (not strict): the SDK reads its calls without parsing them. */
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather forecast',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } }, required: ['city', 'unit', 'days'] },
  },
};

const usageOk = (u: OpenAI.CompletionUsage | null | undefined) => {
  expect(u).toBeTruthy();
  expect(u!.prompt_tokens).toBeGreaterThan(0);
  expect(u!.completion_tokens).toBeGreaterThan(0);
  expect(u!.total_tokens).toBe(u!.prompt_tokens + u!.completion_tokens);
};

describe.each(TRANSPORTS)('openai SDK, $name', (transport) => {
  let t: Transport;
  let client: OpenAI;
  const make = (apiKey: string, defaultHeaders?: Record<string, string>) => new OpenAI({ apiKey, baseURL: t.baseURL, maxRetries: MAX_RETRIES, timeout: TIMEOUT_MS, defaultHeaders });

  useTransport(transport, network, (started) => {
    t = started;
    client = make(ALPHA.key);
  });

  it('plain reply: content, finish_reason stop, usage', async () => {
    const r = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Say something.' }] });
    expect(r.object).toBe('chat.completion');
    expect(typeof r.choices[0].message.content).toBe('string');
    expect(r.choices[0].message.content!.length).toBeGreaterThan(0);
    expect(r.choices[0].finish_reason).toBe('stop');
    usageOk(r.usage);
  });

  it('streaming with include_usage: text assembled, usage in the last chunk', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Repeat exactly: one two three four' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(3);
    expect(text).toBe('one two three four');
    expect(finish).toBe('stop');
    usageOk(usage);
  });

  it('tool call, non-streamed: parsed name and arguments', async () => {
    const r = await client.chat.completions.parse({
      model: MODEL,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [zodFunction({ name: 'get_weather', parameters: Weather, description: 'Weather forecast' })],
      tool_choice: 'required',
    });
    const choice = r.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0];
    expect(call.type).toBe('function');
    if (call.type !== 'function') return;
    expect(call.function.name).toBe('get_weather');
    expect(Weather.parse(call.function.parsed_arguments)).toEqual(call.function.parsed_arguments);
    expect(JSON.parse(call.function.arguments)).toEqual(call.function.parsed_arguments);
  });

  it('tool call, streamed: the stream helper assembles and parses the call', async () => {
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [zodFunction({ name: 'get_weather', parameters: Weather })],
      tool_choice: 'required',
      stream_options: { include_usage: true },
    });
    const done: { name: string; parsed: unknown }[] = [];
    stream.on('tool_calls.function.arguments.done', (e) => done.push({ name: e.name, parsed: e.parsed_arguments }));
    const final = await stream.finalChatCompletion();
    const call = final.choices[0].message.tool_calls![0];
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    const parsed = call.type === 'function' ? call.function.parsed_arguments : undefined;
    expect(Weather.parse(parsed)).toEqual(parsed);
    expect(done).toEqual([{ name: 'get_weather', parsed }]);
    usageOk(final.usage);
  });

  // A model cut by max_tokens in the middle of a call: a chat UI that reads the content would paint
  // the call's raw JSON, and a client that binds tools would have no call to run. On each model (the
  // reasoning one spends part of the cap thinking), the cap put halfway through the arguments.
  it.each([MODEL, REASONING_MODEL])('tool call cut by max_tokens on %s stays a tool call, read by the SDK on both paths: arguments cut, no content, finish_reason length', async (model) => {
    const ask = { model, messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }], tools: [WEATHER_TOOL], tool_choice: 'required' as const };
    const whole = await client.chat.completions.create(ask);
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    const wholeCall = whole.choices[0].message.tool_calls![0];
    const wholeArgs = wholeCall.type === 'function' ? wholeCall.function.arguments : '';
    const reasoning = whole.usage!.completion_tokens_details!.reasoning_tokens!;
    const cap = reasoning + Math.floor((whole.usage!.completion_tokens - reasoning) / 2);

    const json = await client.chat.completions.create({ ...ask, max_tokens: cap });
    const stream = client.chat.completions.stream({ ...ask, max_tokens: cap, stream_options: { include_usage: true } });
    const seen: string[] = [];
    stream.on('content', (delta) => seen.push(delta));
    const streamed = await stream.finalChatCompletion();
    for (const [path, r] of [
      ['json', json],
      ['stream', streamed],
    ] as const) {
      const choice = r.choices[0];
      expect([path, choice.finish_reason]).toEqual([path, 'length']);
      expect([path, choice.message.content ?? '']).toEqual([path, '']);
      expect(choice.message.tool_calls?.length).toBe(1);
      const call = choice.message.tool_calls![0];
      expect(call.type === 'function' && call.function.name).toBe('get_weather');
      const args = call.type === 'function' ? call.function.arguments : '';
      // Cut where the cap fell: a start of the whole call's arguments, not yet JSON.
      expect(args.length).toBeGreaterThan(0);
      expect(wholeArgs.startsWith(args) && args !== wholeArgs, `${path}: ${args} of ${wholeArgs}`).toBe(true);
      expect(() => JSON.parse(args)).toThrow();
      expect(r.usage?.completion_tokens).toBe(cap);
    }
    expect(seen).toEqual([]);
    expect(streamed.choices[0].message.tool_calls).toEqual(json.choices[0].message.tool_calls);
    // A tool the SDK parses itself (strict): the cut is told as such, never parsed or read as text.
    const parsed = { ...ask, tools: [zodFunction({ name: 'get_weather', parameters: Weather })], max_tokens: cap };
    await expect(client.chat.completions.parse(parsed)).rejects.toBeInstanceOf(LengthFinishReasonError);
    await expect(client.chat.completions.stream(parsed).finalChatCompletion()).rejects.toBeInstanceOf(LengthFinishReasonError);
  });

  it('json_schema output parsed by chat.completions.parse', async () => {
    const r = await client.chat.completions.parse({
      model: MODEL,
      messages: [{ role: 'user', content: 'Describe a person.' }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    const parsed = r.choices[0].message.parsed;
    expect(parsed).not.toBeNull();
    expect(Person.parse(parsed)).toEqual(parsed);
    expect(r.choices[0].finish_reason).toBe('stop');
  });

  it('429 with retry-after-ms: the SDK retries and succeeds (journal: 429 then 200)', async () => {
    const since = await t.mark();
    const r = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello after a rate limit.' }] }, { headers: { 'x-mock-fault': RATE_LIMITED } });
    expect(r.choices[0].message.content).toBeTruthy();
    const sent = await t.chatRequests(since);
    expect(sent.map((e) => e.status)).toEqual([429, 200]);
    expect(sent[0].faults).toEqual([RATE_LIMITED]);
    expect(sent[1].faults).toEqual([]);
  });

  it('429 beyond maxRetries surfaces as RateLimitError', async () => {
    const since = await t.mark();
    const strict = make(ALPHA.key, { 'x-mock-fault': 'rate-limited; retry_after_ms=20' });
    const e = await thrown(() => strict.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }));
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e as APIError).status).toBe(429);
    expect((await t.chatRequests(since)).map((x) => x.status)).toEqual(Array(MAX_RETRIES + 1).fill(429));
  });

  it('in-stream error event: APIError thrown from the iteration, with the message', async () => {
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Tell me a long story.' }], stream: true }, { headers: { 'x-mock-fault': STREAM_ERROR } });
    const seen: string[] = [];
    const e = await thrown(async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
    });
    expect(e).toBeInstanceOf(APIError);
    const err = e as APIError;
    expect(err.message).toBe(STREAM_ERROR_MESSAGE);
    expect(err.status).toBeUndefined();
    expect(err.code).toBe('internal_error');
    expect(err.type).toBe('server_error');
    // The two chunks before the error were delivered.
    expect(seen).toHaveLength(2);
  });

  it('models.list() is scoped to the key', async () => {
    const ids = async (key: string) => {
      const out: string[] = [];
      for await (const m of make(key).models.list()) out.push(m.id);
      return out.sort();
    };
    expect(await ids(ALPHA.key)).toEqual([...ALPHA.models].sort());
    expect(await ids(BETA.key)).toEqual([...BETA.models].sort());
  });
});
