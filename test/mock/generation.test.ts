// Deterministic generation: the same request and seed give the same reply; structured output
// validates against the schema sent; every usage count is exact under the tokenizer stand-in.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import { countTokens, promptTokens } from '../../mock/core/tokens.js';
import { validateWith } from '../../schemas/index.js';
import { chat, contentDeltas, frames, json, REASONER, usageOf, user, type Body } from './helpers.js';

const content = (body: Body) => json(chat(createMock(), body)).choices[0].message.content as string;

const SCHEMAS: [name: string, schema: Record<string, unknown>][] = [
  ['flat object', { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' }, ok: { type: 'boolean' } }, required: ['name', 'age', 'ok'], additionalProperties: false }],
  [
    'nested objects',
    {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: {
            id: { type: 'string', format: 'uuid' },
            address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string', minLength: 5, maxLength: 5 } }, required: ['city', 'zip'], additionalProperties: false },
          },
          required: ['id', 'address'],
          additionalProperties: false,
        },
        created: { type: 'string', format: 'date-time' },
      },
      required: ['user', 'created'],
      additionalProperties: false,
    },
  ],
  [
    'arrays',
    {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 4 },
        matrix: { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 1 }, minItems: 1 },
        people: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } }, required: ['n'], additionalProperties: false } },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
      },
      required: ['tags', 'matrix', 'people', 'pair'],
      additionalProperties: false,
    },
  ],
  [
    'enums and consts',
    {
      type: 'object',
      properties: {
        colour: { type: 'string', enum: ['red', 'green', 'blue'] },
        level: { enum: [1, 2, 3] },
        kind: { const: 'fixed' },
        maybe: { anyOf: [{ type: 'null' }, { type: 'string', enum: ['x', 'y'] }] },
        nullable: { type: ['integer', 'null'], minimum: 3, maximum: 4 },
      },
      required: ['colour', 'level', 'kind', 'maybe', 'nullable'],
      additionalProperties: false,
    },
  ],
  [
    'integers and numbers with bounds',
    {
      type: 'object',
      properties: {
        percent: { type: 'integer', minimum: 0, maximum: 100 },
        negative: { type: 'integer', minimum: -10, maximum: -3 },
        below: { type: 'integer', maximum: -1 },
        exclusive: { type: 'integer', exclusiveMinimum: 5, exclusiveMaximum: 8 },
        fraction: { type: 'number', minimum: 0.5, maximum: 0.9 },
        step: { type: 'integer', minimum: 7, maximum: 40, multipleOf: 5 },
      },
      required: ['percent', 'negative', 'below', 'exclusive', 'fraction', 'step'],
      additionalProperties: false,
    },
  ],
  [
    '$ref into $defs',
    {
      type: 'object',
      $defs: {
        money: { type: 'object', properties: { amount: { type: 'integer', minimum: 1 }, currency: { enum: ['EUR', 'USD'] } }, required: ['amount', 'currency'], additionalProperties: false },
        line: { type: 'object', properties: { sku: { type: 'string' }, price: { $ref: '#/$defs/money' } }, required: ['sku', 'price'], additionalProperties: false },
      },
      properties: { lines: { type: 'array', items: { $ref: '#/$defs/line' }, minItems: 1 }, total: { $ref: '#/$defs/money' } },
      required: ['lines', 'total'],
      additionalProperties: false,
    },
  ],
  [
    'a recursive $ref',
    {
      type: 'object',
      $defs: {
        node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['name', 'children'], additionalProperties: false },
      },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
      additionalProperties: false,
    },
  ],
  ['a string schema', { type: 'string', minLength: 12 }],
];

describe('deterministic generation', () => {
  it('the same request twice gives the same content, on one mock and on another', () => {
    const body = { ...user('Tell me about caching.'), seed: 7 };
    const mock = createMock();
    const a = json(chat(mock, body)).choices[0].message.content;
    expect(json(chat(mock, body)).choices[0].message.content).toBe(a);
    expect(content(body)).toBe(a);
    expect(contentDeltas(frames(chat(createMock(), { ...body, stream: true }))).join('')).toBe(a);
  });

  it('a different seed, or a different prompt, gives different content', () => {
    const base = content({ ...user('Tell me about caching.'), seed: 7 });
    const seeds = [8, 9, 10, 11].map((seed) => content({ ...user('Tell me about caching.'), seed }));
    for (const s of seeds) expect(s).not.toBe(base);
    expect(content({ ...user('Tell me about queues.'), seed: 7 })).not.toBe(base);
  });

  it('tool call arguments are deterministic too', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: SCHEMAS[1][1] } }];
    const call = (seed: number) => json(chat(createMock(), { ...user('call f'), tools, seed })).choices[0].message.tool_calls[0].function.arguments;
    expect(call(1)).toBe(call(1));
    expect(validateWith(SCHEMAS[1][1], JSON.parse(call(1))).ok).toBe(true);
  });
});

describe('structured output', () => {
  it.each(SCHEMAS)('json_schema (%s): the content validates against the schema sent', (name, schema) => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const text = content({ ...user(`give me ${name}`), seed, response_format: { type: 'json_schema', json_schema: { name: 'out', schema, strict: true } } });
      const v = validateWith(schema, JSON.parse(text));
      expect(v.schemaError).toBeUndefined();
      expect(v.ok, `${text}\n${v.errors.join('\n')}`).toBe(true);
    }
  });

  it('json_schema output is valid when streamed and deterministic', () => {
    const schema = SCHEMAS[5][1];
    const body = { ...user('order'), seed: 3, response_format: { type: 'json_schema', json_schema: { name: 'order', schema } } };
    const streamed = contentDeltas(frames(chat(createMock(), { ...body, stream: true }))).join('');
    expect(streamed).toBe(content(body));
    expect(validateWith(schema, JSON.parse(streamed)).ok).toBe(true);
  });

  it('json_object: the content parses to an object', () => {
    for (const seed of [1, 2, 3]) {
      const parsed = JSON.parse(content({ ...user('Answer in JSON.'), seed, response_format: { type: 'json_object' } }));
      expect(parsed).toBeTypeOf('object');
      expect(parsed).not.toBeNull();
      expect(Array.isArray(parsed)).toBe(false);
    }
  });
});

describe('usage', () => {
  const bodies: [string, Body][] = [
    ['a short answer', user('Hi.')],
    ['a long answer', user('Write a long essay about streams.')],
    [
      'a system prompt and several turns',
      {
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Hi.' },
          { role: 'assistant', content: 'Hello.' },
          { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
        ],
      },
    ],
    ['a cap', { ...user('Write a long essay.'), max_tokens: 17 }],
    ['json_schema', { ...user('data'), response_format: { type: 'json_schema', json_schema: { name: 'o', schema: SCHEMAS[2][1] } } }],
    ['a reasoning model', { model: REASONER, ...user('Why is the sky blue?'), reasoning_effort: 'high' }],
    ['a reasoning model with a cap', { model: REASONER, ...user('Why is the sky blue?'), max_tokens: 40 }],
  ];
  it.each(bodies)('is exact (%s): completion = reasoning + countTokens(content), total = prompt + completion', (_name, body) => {
    const r = json(chat(createMock(), body));
    const { usage } = r;
    const reasoning = usage.completion_tokens_details.reasoning_tokens;
    expect(usage.completion_tokens).toBe(reasoning + countTokens(r.choices[0].message.content));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.prompt_tokens).toBe(promptTokens((body.messages as unknown[]) ?? [], undefined));
    if (body.max_tokens) {
      expect(usage.completion_tokens).toBeLessThanOrEqual(body.max_tokens as number);
      if (r.choices[0].finish_reason === 'length') expect(usage.completion_tokens).toBe(body.max_tokens);
    }
    if (body.model === REASONER) expect(reasoning).toBeGreaterThan(0);
    else expect(reasoning).toBe(0);
    // The streamed usage is the same.
    const fs = frames(chat(createMock(), { ...body, stream: true, stream_options: { include_usage: true } }));
    expect(usageOf(fs)).toEqual(usage);
  });

  it('prompt tokens count the tools offered', () => {
    const tools = [{ type: 'function', function: { name: 'lookup', description: 'Looks a thing up.', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
    const body = { ...user('Use a tool.'), tools, tool_choice: 'none' };
    const { usage } = json(chat(createMock(), body));
    expect(usage.prompt_tokens).toBe(promptTokens(body.messages, tools));
    expect(usage.prompt_tokens).toBeGreaterThan(promptTokens(body.messages));
  });
});
