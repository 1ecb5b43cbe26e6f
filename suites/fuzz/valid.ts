// Requests the document allows, for one model: every field of 2.1 in every legal form, numbers at and
// inside the ranges the catalog declares, and edge values wherever a field takes them: integers past
// 32 and 53 bits, numbers in exponent form, strings past 4 KiB (and past 64 KiB where no prompt
// grows by it: a stop sequence). A field the model's catalog entry does not declare is sent now and
// then (a 4xx for it is allowed).
import fc from 'fast-check';
import { enumAt, schemaAt } from '../../schemas/index.js';
import { sayOk } from '../api.js';
import { INT64_ENDS, integerIn, numberIn, sometimesInExponentForm } from './numbers.js';
import { emptyRange, rangeOf, type ModelSpace } from './space.js';
import { RawJson } from './case.js';
import { identifier, LONG_LENGTHS, text, textOrLong } from './text.js';

export type Body = Record<string, unknown>;

const EFFORTS = enumAt('request#/properties/reasoning_effort').filter((v): v is string => typeof v === 'string');
const TIERS = enumAt('request#/properties/service_tier').filter((v): v is string => typeof v === 'string');
const CHOICES = enumAt('request#/$defs/toolChoice/oneOf/0').filter((v): v is string => typeof v === 'string');
/** The document's limit on stop sequences (section 8), unless the catalog declares another. */
export const STOP_MAX = schemaAt('request#/properties/stop/oneOf/1').maxItems as number;
/** The conventional ranges of the sampling fields, for a model whose catalog entry declares none. */
const TEMPERATURE = { min: 0, max: 2 };
const TOP_P = { min: 0, max: 1 };
const MAX_TOKENS = { min: 1, max: 4096 };

const textPart = text(40).map((t) => ({ type: 'text', text: t }));
/** Text of a prompt: rarely past 4 KiB, never past 64 KiB, where a model's context (its tokens)
 * would refuse it rightly. */
const promptText = textOrLong(40, 0, LONG_LENGTHS[0]);
/** A message's text: a string, or an array of text parts. */
const content = fc.oneof({ arbitrary: promptText, weight: 4 }, { arbitrary: fc.array(textPart, { minLength: 1, maxLength: 3 }), weight: 1 });

const user = content.map((c) => ({ role: 'user', content: c }));
const assistant = promptText.map((c) => ({ role: 'assistant', content: c }));
const instructions = fc.record({ role: fc.constantFrom('system', 'developer'), content: fc.oneof(promptText, fc.array(textPart, { minLength: 1, maxLength: 2 })) });
/** A stop sequence: short, or now and then past 4 KiB or 64 KiB (no limit is shown on its length). */
const stopText = textOrLong(12, 1, LONG_LENGTHS[1]);

/** JSON Schemas of an object, of the plain kinds every server that takes schemas takes. A few, not
 * one per request: what a schema holds is not the document's (2.3: not shown), and a server compiles
 * each one it meets, which would make the session a benchmark of schema compilers. */
const objectSchema = fc.constantFrom(
  { type: 'object', properties: {} },
  { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  { type: 'object', properties: { amount: { type: 'number' }, exact: { type: 'boolean' } }, required: ['amount', 'exact'] },
  { type: 'object', properties: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, tags: { type: 'array', items: { type: 'string' } } } },
  { type: 'object', properties: { where: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] } }, required: ['where'] },
);

const tool = fc.record({ name: identifier, description: promptText, parameters: objectSchema }, { requiredKeys: ['name'] }).map((fn) => ({ type: 'function', function: fn }));

/** Tools, a tool_choice among the string values or naming the first tool, and now and then a turn
 * where the model called the first tool and its result came back. */
const toolUse = fc.record(
  {
    tools: fc.uniqueArray(tool, { minLength: 1, maxLength: 3, selector: (t) => t.function.name }),
    choice: fc.constantFrom(...CHOICES, 'named'),
    called: fc.record({ id: identifier, result: promptText }),
  },
  { requiredKeys: ['tools'] },
);

const responseFormat = fc.oneof(
  fc.constant({ type: 'text' }),
  fc.constant({ type: 'json_object' }),
  fc.record({ name: identifier, schema: objectSchema }).map((s) => ({ type: 'json_schema', json_schema: s })),
);

/** A field the model declares, or (rarely) one it does not: served, or refused with a 4xx. A range
 * the catalog declares empty (its min above its max) has no valid value: the field is left out. */
function declared<T>(m: ModelSpace, name: string, arb: () => fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  if (emptyRange(m, name)) return fc.constant(undefined);
  return !m.params || name in m.params ? arb() : fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: arb(), weight: 1 });
}

const enumValues = (m: ModelSpace, name: string, document: string[]): string[] => {
  const d = m.params?.[name];
  const values = d?.type === 'enum' && Array.isArray(d.values) ? d.values.filter((v): v is string => typeof v === 'string') : [];
  return values.length ? values : document;
};

/** An integer within [min, max] as integerIn gives it, and now and then an end of a 64-bit integer
 * inside it, written as text no double holds. */
function integerOrEnds(min: number, max: number): fc.Arbitrary<number | RawJson> {
  const ends = INT64_ENDS.filter((t) => Number(t) >= min && Number(t) <= max);
  const within = integerIn(min, max);
  return ends.length ? fc.oneof({ arbitrary: within, weight: 9 }, { arbitrary: fc.constantFrom(...ends).map((t) => new RawJson(t)), weight: 1 }) : within;
}

/** A max_tokens the model allows: a small one as a rule (a hosted service bills each token, a small
 * engine has little context, and acceptance is proven by any), its largest now and then, the edge a
 * server may break on. */
const CHEAP_CAP = 32;
function cheapCap(min: number, max: number): fc.Arbitrary<number> {
  const small = integerIn(min, Math.max(min, Math.min(max, CHEAP_CAP)));
  return max > CHEAP_CAP ? fc.oneof({ arbitrary: small, weight: 7 }, { arbitrary: fc.constant(max), weight: 1 }) : small;
}

/** The parts a valid request is put together from; every key but `last` may be left out. */
function parts(m: ModelSpace) {
  const maxTokens = rangeOf(m, 'max_tokens', MAX_TOKENS);
  const temperature = rangeOf(m, 'temperature', TEMPERATURE);
  const topP = rangeOf(m, 'top_p', TOP_P);
  const seed = rangeOf(m, 'seed', { min: -(2 ** 63), max: 2 ** 63 - 1 });
  const stopItems = m.params?.stop?.type === 'array' && typeof m.params.stop.max_items === 'number' ? Math.max(1, Math.floor(m.params.stop.max_items)) : STOP_MAX;
  return fc.record(
    {
      instructions,
      turns: fc.array(fc.tuple(user, assistant), { maxLength: 1 }),
      last: user,
      max_tokens: declared(m, 'max_tokens', () => cheapCap(maxTokens.min, Math.min(maxTokens.max, m.outputLength ?? Infinity))),
      temperature: declared(m, 'temperature', () => sometimesInExponentForm(numberIn(temperature.min, temperature.max))),
      top_p: declared(m, 'top_p', () => sometimesInExponentForm(numberIn(topP.min, topP.max))),
      stop: declared(m, 'stop', () => fc.oneof(stopText, fc.array(stopText, { minLength: 1, maxLength: stopItems }))),
      stream: fc.record({ on: fc.boolean(), usage: fc.boolean() }, { requiredKeys: ['on'] }),
      tools: declared(m, 'tools', () => toolUse),
      response_format: declared(m, 'response_format', () => responseFormat),
      reasoning_effort: declared(m, 'reasoning_effort', () => fc.constantFrom(...enumValues(m, 'reasoning_effort', EFFORTS))),
      seed: declared(m, 'seed', () => integerOrEnds(seed.min, seed.max)),
      service_tier: declared(m, 'service_tier', () => fc.constantFrom(...enumValues(m, 'service_tier', TIERS))),
    },
    { requiredKeys: ['last'] },
  );
}

type Parts = ReturnType<typeof parts> extends fc.Arbitrary<infer P> ? P : never;

/** The body, fields in the document's order; a structured-output request says "JSON" to the model,
 * as OpenAI-compatible services require of json_object. */
function assemble(m: ModelSpace, p: Parts): Body {
  const messages: Record<string, unknown>[] = [];
  if (p.instructions) messages.push(p.instructions);
  for (const [u, a] of p.turns ?? []) messages.push(u, a);
  if (p.response_format?.type === 'json_object') messages.push({ role: 'user', content: 'Answer in JSON.' });
  messages.push(p.last);
  const body: Body = { model: m.id, messages };
  if (p.max_tokens !== undefined) body.max_tokens = p.max_tokens;
  if (p.temperature !== undefined) body.temperature = p.temperature;
  if (p.top_p !== undefined) body.top_p = p.top_p;
  if (p.stop !== undefined) body.stop = p.stop;
  if (p.stream) {
    body.stream = p.stream.on;
    if (p.stream.on && p.stream.usage !== undefined) body.stream_options = { include_usage: p.stream.usage };
  }
  if (p.tools) {
    const name = p.tools.tools[0].function.name;
    body.tools = p.tools.tools;
    if (p.tools.choice) body.tool_choice = p.tools.choice === 'named' ? { type: 'function', function: { name } } : p.tools.choice;
    if (p.tools.called) {
      const { id, result } = p.tools.called;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] }, { role: 'tool', tool_call_id: id, content: result });
    }
  }
  if (p.response_format !== undefined) body.response_format = p.response_format;
  if (p.reasoning_effort !== undefined) body.reasoning_effort = p.reasoning_effort;
  if (p.seed !== undefined) body.seed = p.seed;
  if (p.service_tier !== undefined) body.service_tier = p.service_tier;
  return body;
}

/** A valid request body for the model. */
export function validBody(m: ModelSpace): fc.Arbitrary<Body> {
  let arb = bodies.get(m);
  if (!arb) bodies.set(m, (arb = parts(m).map((p) => assemble(m, p))));
  return arb;
}
/** One arbitrary per model of a session, shared by the invalid and edge requests built on it. */
const bodies = new WeakMap<ModelSpace, fc.Arbitrary<Body>>();

/** The kit's smallest request (sayOk), its max_tokens within the declared range as the suites fit
 * it: so that a wrong type in messages is the very request errors.messages-not-array sends. */
export const smallBody = (m: ModelSpace): Body => {
  const body = sayOk(m.id);
  const { min, max } = rangeOf(m, 'max_tokens', MAX_TOKENS);
  return { ...body, max_tokens: Math.min(Math.max(body.max_tokens as number, min), max) };
};
