// Scenarios: each match condition alone selects or rejects, the first match wins, every kind of
// scripted reply is served as written (and counted exactly), unmatched requests are generated, and
// strict_scenarios refuses them naming the closest rule.
import { describe, expect, it } from 'vitest';
import type { Scenario, ScenarioMatch } from '../../mock/config/types.js';
import { createMock } from '../../mock/core/handle.js';
import { countTokens } from '../../mock/core/tokens.js';
import { validateWith } from '../../schemas/index.js';
import { chat, contentDeltas, events, finishOf, frames, headersOf, json, MODEL, REASONER, scenarioMock, KEY, SECOND_KEY, statusOf, usageOf, user, type Body } from './helpers.js';

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 2 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        hourly: { type: 'boolean' },
        coords: {
          type: 'object',
          properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } },
          required: ['lat', 'lon'],
          additionalProperties: false,
        },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
      },
      required: ['city', 'unit', 'days', 'hourly', 'coords', 'tags'],
      additionalProperties: false,
    },
  },
};
const OTHER_TOOL = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };

/** The name of the scenario a lone rule gives this request, or null when it does not match. */
function picked(match: ScenarioMatch, body: Body, key?: string): string | null {
  const mock = scenarioMock([{ name: 'rule', match, reply: { text: 'Scripted.' } }]);
  const r = chat(mock, body, {}, key);
  expect(statusOf(r), 'status').toBe(200);
  if ('stream' in r) [...r.stream];
  const scenario = mock.journal.list().at(-1)!.scenario;
  if (!('stream' in r)) expect(json(r).choices[0].message.content === 'Scripted.').toBe(scenario === 'rule');
  return scenario;
}

const toolTurn = (text: string) => ({
  messages: [
    { role: 'user', content: text },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"temp":18}' },
  ],
});

describe('scenario matching: each condition alone', () => {
  const cases: [name: string, match: ScenarioMatch, yes: [Body, string?][], no: [Body, string?][]][] = [
    ['model', { model: REASONER }, [[{ model: REASONER, ...user('hi') }]], [[{ model: MODEL, ...user('hi') }]]],
    ['key id', { key: 'beta' }, [[user('hi'), SECOND_KEY]], [[user('hi')]]],
    [
      'last_user substring, in any case',
      { last_user: 'weather' },
      [
        [user('What is the weather like?')],
        [user('What is the Weather like?')],
        [user('WEATHER NOW')],
        [
          {
            messages: [
              { role: 'user', content: 'hi' },
              { role: 'assistant', content: 'Hello.' },
              { role: 'user', content: [{ type: 'text', text: 'the weather?' }] },
            ],
          },
        ],
      ],
      [
        [user('What is the forecast?')],
        [
          {
            messages: [
              { role: 'user', content: 'weather' },
              { role: 'assistant', content: 'Sunny.' },
              { role: 'user', content: 'thanks' },
            ],
          },
        ],
      ],
    ],
    ['last_user /regex/i', { last_user: '/^(hi|hello)\\b/i' }, [[user('HELLO there')], [user('hi!')]], [[user('say hello')], [user('hippo')]]],
    // The docs' canned reply (docs/mock.md): "Hello!" is what a person types.
    ["last_user: hello (the docs' scenario)", { last_user: 'hello' }, [[user('Hello!')], [user('hello')], [user('Oh, HELLO there')]], [[user('Hi!')]]],
    ['last_user /regex/: as written, case and all', { last_user: '/hello/' }, [[user('say hello')]], [[user('Hello!')]]],
    [
      'system (system or developer message)',
      { system: 'pirate' },
      [
        [
          {
            messages: [
              { role: 'system', content: 'Talk like a pirate.' },
              { role: 'user', content: 'hi' },
            ],
          },
        ],
        [
          {
            messages: [
              { role: 'developer', content: 'You are a pirate.' },
              { role: 'user', content: 'hi' },
            ],
          },
        ],
        [
          {
            messages: [
              { role: 'system', content: 'Pirate speak only.' },
              { role: 'user', content: 'hi' },
            ],
          },
        ],
      ],
      [
        [user('Talk like a pirate.')],
        [
          {
            messages: [
              { role: 'system', content: 'Be polite.' },
              { role: 'user', content: 'pirate' },
            ],
          },
        ],
      ],
    ],
    [
      'system /regex/',
      { system: '/^be (brief|terse)$/' },
      [
        [
          {
            messages: [
              { role: 'system', content: 'be terse' },
              { role: 'user', content: 'hi' },
            ],
          },
        ],
      ],
      [
        [
          {
            messages: [
              { role: 'system', content: 'Be terse' },
              { role: 'user', content: 'hi' },
            ],
          },
        ],
      ],
    ],
    ['tools: true', { tools: true }, [[{ ...user('hi'), tools: [OTHER_TOOL] }]], [[user('hi')]]],
    ['tools: false', { tools: false }, [[user('hi')]], [[{ ...user('hi'), tools: [OTHER_TOOL] }]]],
    ['tools: a list', { tools: ['get_weather'] }, [[{ ...user('hi'), tools: [OTHER_TOOL, WEATHER_TOOL] }]], [[{ ...user('hi'), tools: [OTHER_TOOL] }], [user('hi')]]],
    ['tool_result: true', { tool_result: true }, [[{ ...toolTurn('weather?'), tools: [WEATHER_TOOL] }]], [[{ ...user('weather?'), tools: [WEATHER_TOOL] }]]],
    ['tool_result: false', { tool_result: false }, [[{ ...user('weather?'), tools: [WEATHER_TOOL] }]], [[{ ...toolTurn('weather?'), tools: [WEATHER_TOOL] }]]],
    [
      'tool_result of a tool, saying something',
      { tool_result: { name: 'get_weather', content: '/"temp":\\s*18/' } },
      [[{ ...toolTurn('weather?'), tools: [WEATHER_TOOL] }]],
      [
        [{ ...user('weather?'), tools: [WEATHER_TOOL] }],
        [{ ...toolTurn('weather?'), messages: toolTurn('weather?').messages.map((m) => (m.role === 'tool' ? { ...m, content: '{"temp":25}' } : m)), tools: [WEATHER_TOOL] }],
        [
          {
            ...toolTurn('weather?'),
            messages: toolTurn('weather?').messages.map((m) => (m.role === 'assistant' ? { ...m, tool_calls: [{ ...m.tool_calls![0], function: { name: 'get_time', arguments: '{}' } }] } : m)),
            tools: [WEATHER_TOOL],
          },
        ],
      ],
    ],
    [
      'tool_result saying a substring, in any case',
      { tool_result: { content: 'approved' } },
      [[{ ...toolTurn('weather?'), messages: toolTurn('weather?').messages.map((m) => (m.role === 'tool' ? { ...m, content: 'Approved' } : m)), tools: [WEATHER_TOOL] }]],
      [[{ ...toolTurn('weather?'), tools: [WEATHER_TOOL] }]],
    ],
    ['response_format', { response_format: 'json_object' }, [[{ ...user('hi'), response_format: { type: 'json_object' } }]], [[user('hi')], [{ ...user('hi'), response_format: { type: 'text' } }]]],
    [
      'response_format: text (the default)',
      { response_format: 'text' },
      [[user('hi')], [{ ...user('hi'), response_format: { type: 'text' } }]],
      [[{ ...user('hi'), response_format: { type: 'json_object' } }]],
    ],
    ['stream: true', { stream: true }, [[{ ...user('hi'), stream: true }]], [[user('hi')], [{ ...user('hi'), stream: false }]]],
    ['stream: false', { stream: false }, [[user('hi')]], [[{ ...user('hi'), stream: true }]]],
  ];
  describe.each(cases)('%s', (_name, match, yes, no) => {
    it('selects what it names', () => {
      for (const [body, key] of yes) expect(picked(match, body, key), JSON.stringify(body)).toBe('rule');
    });
    it('rejects what it does not', () => {
      for (const [body, key] of no) expect(picked(match, body, key), JSON.stringify(body)).toBeNull();
    });
  });

  it('every given condition must hold', () => {
    const match: ScenarioMatch = { model: MODEL, last_user: 'weather', stream: false };
    expect(picked(match, user('weather?'))).toBe('rule');
    expect(picked(match, { ...user('weather?'), stream: true })).toBeNull();
    expect(picked(match, { ...user('news?') })).toBeNull();
  });

  it('the first match wins', () => {
    const mock = scenarioMock([
      { name: 'first', match: { last_user: 'hello' }, reply: { text: 'First.' } },
      { name: 'second', match: { last_user: '/hello/' }, reply: { text: 'Second.' } },
      { name: 'catch-all', match: {}, reply: { text: 'Anything.' } },
    ]);
    expect(json(chat(mock, user('hello'))).choices[0].message.content).toBe('First.');
    expect(json(chat(mock, user('bye'))).choices[0].message.content).toBe('Anything.');
    expect(mock.journal.list().map((e) => e.scenario)).toEqual(['first', 'catch-all']);
  });
});

describe('scripted replies', () => {
  it('text: the content as written, counted exactly', () => {
    const text = 'It is 18 degrees and sunny in Paris.';
    const mock = scenarioMock([{ name: 's', match: {}, reply: { text } }]);
    const body = json(chat(mock, user('weather?')));
    expect(body.choices[0].message.content).toBe(text);
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.completion_tokens).toBe(countTokens(text));
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    const streamed = frames(chat(mock, { ...user('weather?'), stream: true }));
    expect(contentDeltas(streamed).join('')).toBe(text);
  });

  it('chunks: a stream sends exactly those pieces, and usage counts their tokens', () => {
    const chunks = ['Hello', '! How', ' can I', ' help you', ' today?'];
    const mock = scenarioMock([{ name: 's', match: {}, reply: { chunks } }]);
    const fs = frames(chat(mock, { ...user('hi'), stream: true, stream_options: { include_usage: true } }));
    expect(contentDeltas(fs)).toEqual(chunks);
    expect(finishOf(fs)).toBe('stop');
    const usage = usageOf(fs);
    expect(usage.completion_tokens).toBe(chunks.reduce((n, c) => n + countTokens(c), 0));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(events(fs).at(-1)).toBe('[DONE]');
    const body = json(chat(mock, user('hi')));
    expect(body.choices[0].message.content).toBe(chunks.join(''));
    expect(body.usage).toEqual(usage);
  });

  it('tool_calls with arguments: exactly those', () => {
    const mock = scenarioMock([{ name: 's', match: {}, reply: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }] } }]);
    const body = json(chat(mock, { ...user('weather in Paris?'), tools: [WEATHER_TOOL] }));
    const choice = body.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    // Content is a string (2.2), also beside tool_calls.
    expect(choice.message.content).toBe('');
    expect(choice.message.tool_calls).toHaveLength(1);
    expect(choice.message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(choice.message.tool_calls[0].id).toMatch(/^call_/);
    expect(JSON.parse(choice.message.tool_calls[0].function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
  });

  it('tool_calls without arguments: generated, valid against the function parameters, also when streamed', () => {
    const mock = scenarioMock([{ name: 's', match: {}, reply: { tool_calls: [{ name: 'get_weather' }, { name: 'lookup' }] } }]);
    for (const q of ['weather?', 'forecast for Rome', 'and Oslo?']) {
      const body = json(chat(mock, { ...user(q), tools: [WEATHER_TOOL, OTHER_TOOL] }));
      const calls = body.choices[0].message.tool_calls as { function: { name: string; arguments: string } }[];
      expect(calls.map((c) => c.function.name)).toEqual(['get_weather', 'lookup']);
      for (const [i, tool] of [WEATHER_TOOL, OTHER_TOOL].entries()) {
        const v = validateWith(tool.function.parameters, JSON.parse(calls[i].function.arguments));
        expect(v.ok, `${calls[i].function.arguments}: ${v.errors.join('; ')}`).toBe(true);
      }
    }
    const fs = frames(chat(mock, { ...user('weather?'), tools: [WEATHER_TOOL, OTHER_TOOL], stream: true }));
    const args = new Map<number, string>();
    for (const e of events(fs)) for (const d of (typeof e === 'object' && e.choices?.[0]?.delta?.tool_calls) || []) args.set(d.index, (args.get(d.index) ?? '') + d.function.arguments);
    expect(validateWith(WEATHER_TOOL.function.parameters, JSON.parse(args.get(0)!)).ok).toBe(true);
    expect(finishOf(fs)).toBe('tool_calls');
  });

  it('tool_result turn awareness: the agent loop calls, then answers, then ends', () => {
    const mock = scenarioMock([
      { name: 'call', match: { tools: ['get_weather'], tool_result: false }, reply: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] } },
      { name: 'answer', match: { tools: ['get_weather'], tool_result: true }, reply: { text: 'It is 18 degrees in Paris.' } },
    ]);
    const first = json(chat(mock, { ...user('weather in Paris?'), tools: [WEATHER_TOOL] }));
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls[0];
    const second = json(
      chat(mock, {
        messages: [
          { role: 'user', content: 'weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: '{"temp":18}' },
        ],
        tools: [WEATHER_TOOL],
      }),
    );
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toBe('It is 18 degrees in Paris.');
    expect(mock.journal.list().map((e) => e.scenario)).toEqual(['call', 'answer']);
  });

  it('refusal: finish_reason content_filter, the text as the refusal, empty content (a string, 2.2)', () => {
    const mock = scenarioMock([{ name: 's', match: {}, reply: { refusal: "I can't help with that." } }]);
    const body = json(chat(mock, user('how do I pick a lock')));
    expect(body.choices[0].finish_reason).toBe('content_filter');
    expect(body.choices[0].message).toMatchObject({ content: '', refusal: "I can't help with that." });
    expect(body.usage.completion_tokens).toBe(countTokens("I can't help with that."));
    const fs = frames(chat(mock, { ...user('how do I pick a lock'), stream: true }));
    expect(finishOf(fs)).toBe('content_filter');
    expect(
      events(fs)
        .map((e) => (typeof e === 'object' ? (e.choices?.[0]?.delta?.refusal ?? '') : ''))
        .join(''),
    ).toBe("I can't help with that.");
    expect(contentDeltas(fs)).toEqual([]);
  });

  it('reasoning_tokens: counted in usage and within max_tokens', () => {
    const mock = scenarioMock([{ name: 's', match: {}, reply: { text: 'The answer is 42.', reasoning_tokens: 64 } }]);
    const full = json(chat(mock, user('think hard')));
    expect(full.choices[0].message.content).toBe('The answer is 42.');
    expect(full.usage.completion_tokens_details.reasoning_tokens).toBe(64);
    expect(full.usage.completion_tokens).toBe(64 + countTokens('The answer is 42.'));
    // 64 reasoning tokens leave 2 of 66 for the answer.
    const cut = json(chat(mock, { ...user('think hard'), max_tokens: 66 }));
    expect(cut.choices[0].message.content).toBe('The answer');
    expect(cut.choices[0].finish_reason).toBe('length');
    expect(cut.usage.completion_tokens).toBe(66);
    expect(cut.usage.completion_tokens_details.reasoning_tokens).toBe(64);
    // Reasoning alone can use the whole budget.
    const none = json(chat(mock, { ...user('think hard'), max_tokens: 10 }));
    expect(none.choices[0].finish_reason).toBe('length');
    expect(none.choices[0].message.content ?? '').toBe('');
    expect(none.usage.completion_tokens).toBe(10);
    expect(none.usage.completion_tokens_details.reasoning_tokens).toBe(10);
  });

  it('error: the status, the body and the headers given (Retry-After)', () => {
    const mock = scenarioMock([
      { name: 'overloaded', match: {}, reply: { error: { status: 503, message: 'The engine is overloaded.', type: 'server_error', code: 'overloaded', headers: { 'retry-after': '2' } } } },
    ]);
    const r = chat(mock, user('simulate overload'));
    expect(statusOf(r)).toBe(503);
    expect(headersOf(r)['retry-after']).toBe('2');
    expect(headersOf(r)['content-type']).toMatch(/application\/json/);
    expect(json(r)).toEqual({ error: { message: 'The engine is overloaded.', type: 'server_error', param: null, code: 'overloaded' } });
    expect(mock.journal.list()[0]).toMatchObject({ scenario: 'overloaded', status: 503 });
  });

  it('fault: a fault of the catalogue for matching requests only, `times` honoured', () => {
    const mock = scenarioMock([{ name: 'limited', match: { last_user: 'limit me' }, reply: { fault: 'rate-limited; retry_after_ms=200; times=1' } }]);
    const first = chat(mock, user('limit me'));
    expect(statusOf(first)).toBe(429);
    expect(headersOf(first)['retry-after-ms']).toBe('200');
    expect(statusOf(chat(mock, user('limit me')))).toBe(200);
    expect(statusOf(chat(mock, user('something else')))).toBe(200);
    expect(mock.journal.list().map((e) => [e.scenario, e.faults, e.status])).toEqual([
      ['limited', ['rate-limited; retry_after_ms=200; times=1'], 429],
      ['limited', [], 200],
      [null, [], 200],
    ]);
  });

  it('an unmatched request gets the generated reply', () => {
    const mock = scenarioMock([{ name: 'only', match: { last_user: 'magic word' }, reply: { text: 'Scripted.' } }]);
    const body = json(chat(mock, user('Tell me something.')));
    expect(body.choices[0].message.content).not.toBe('Scripted.');
    expect(body.choices[0].message.content.length).toBeGreaterThan(0);
    expect(mock.journal.list()[0].scenario).toBeNull();
  });

  it('strict_scenarios: an unmatched request is a 400 naming the closest scenario and what differs', () => {
    const scenarios: Scenario[] = [
      { name: 'far', match: { model: REASONER, last_user: 'weather', stream: true }, reply: { text: 'x' } },
      { name: 'weather', match: { last_user: 'weather', stream: true }, reply: { text: 'Sunny.' } },
    ];
    for (const mock of [scenarioMock(scenarios, { strict_scenarios: true }), scenarioMock(scenarios, {}, { strictScenarios: true })]) {
      const r = chat(mock, user('weather?'));
      expect(statusOf(r)).toBe(400);
      const { error } = json(r);
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toContain('"weather"');
      expect(error.message).toMatch(/differs in stream/);
      expect(error.message).not.toContain('"far"');
      expect(statusOf(chat(mock, { ...user('weather?'), stream: true }))).toBe(200);
    }
    const loose = scenarioMock(scenarios, { strict_scenarios: true }, { strictScenarios: false });
    expect(statusOf(chat(loose, user('weather?')))).toBe(200);
  });

  it('max_tokens and stop stay exact on scripted text and chunks', () => {
    const text = 'one two three four five';
    const mock = scenarioMock([
      { name: 'text', match: { last_user: 'text' }, reply: { text } },
      { name: 'chunks', match: { last_user: 'chunks' }, reply: { chunks: ['one two', ' three four', ' five'] } },
    ]);
    const cut = json(chat(mock, { ...user('text'), max_tokens: 3 }));
    expect(cut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'one two three' } });
    expect(cut.usage.completion_tokens).toBe(3);
    const stopped = json(chat(mock, { ...user('text'), stop: [' four', 'zzz'] }));
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'one two three' } });
    expect(stopped.usage.completion_tokens).toBe(4);
    const streamed = frames(chat(mock, { ...user('text'), stop: ' four', stream: true }));
    expect(contentDeltas(streamed).join('')).toBe('one two three');
    expect(finishOf(streamed)).toBe('stop');

    const chunkCut = json(chat(mock, { ...user('chunks'), max_tokens: 3 }));
    expect(chunkCut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'one two three' } });
    expect(chunkCut.usage.completion_tokens).toBe(3);
    const chunkStop = frames(chat(mock, { ...user('chunks'), stop: 'four', stream: true, stream_options: { include_usage: true } }));
    expect(contentDeltas(chunkStop).join('')).toBe('one two three ');
    expect(finishOf(chunkStop)).toBe('stop');
    expect(usageOf(chunkStop).completion_tokens).toBe(4);
  });
});

it('strict scenarios with no scenario configured refuse every chat request, naming none', () => {
  const m = createMock(undefined, { strictScenarios: true });
  const r = m.handle({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect('status' in r && r.status).toBe(400);
  expect('body' in r && String(r.body)).toMatch(/No scenario matches/);
});
