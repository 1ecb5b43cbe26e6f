// The non-streamed body is written out by hand for speed: it must be exactly what stringifying the
// object would give, field order included, for every kind of completion.
import { describe, expect, it } from 'vitest';
import { completionJson } from '../../mock/core/chunks.js';
import type { Completion } from '../../mock/core/generate.js';

const usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 2 } };
const base: Completion = { tokens: ['Hi', ' "there"', ' \u2028✓'], toolCalls: [], finishReason: 'stop', reasoningTokens: 2, usage };

/** The object the body stands for, in the order the fields are sent. */
function reference(c: Completion, model: string): string {
  const message: Record<string, unknown> = { role: 'assistant', content: c.tokens === null ? '' : c.tokens.join('') };
  if (c.toolCalls.length) message.tool_calls = c.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } }));
  message.refusal = c.refusal ?? null;
  return JSON.stringify({ object: 'chat.completion', model, choices: [{ index: 0, message, finish_reason: c.finishReason }], usage: c.usage });
}

describe('completionJson', () => {
  const cases: [string, Completion][] = [
    ['text with quotes and line separators', base],
    [
      'tool calls',
      {
        ...base,
        tokens: null,
        finishReason: 'tool_calls',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Zürich \\"old\\""}' },
          { id: 'call_2', name: 'x', arguments: '{}' },
        ],
      },
    ],
    ['a refusal', { ...base, tokens: null, refusal: 'I can\'t "help"', finishReason: 'content_filter' }],
    ['an empty answer cut at once', { ...base, tokens: [], finishReason: 'length' }],
    ['a recorded usage with fields of its own', { ...base, usage: { ...usage, cost: 0.0001, prompt_tokens_details: { cached_tokens: 1, audio_tokens: 0 } } as Completion['usage'] }],
    ['a recorded usage without details', { ...base, usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } as Completion['usage'] }],
  ];
  it.each(cases)('%s: the same bytes as stringifying the object', (_name, c) => {
    expect(completionJson(c, { model: 'mock-"chat"-1' })).toBe(reference(c, 'mock-"chat"-1'));
  });
});
