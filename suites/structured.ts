// Section 2.1 (response_format): structured output, on the models whose catalog entry declares
// response_format.
import { validateWith } from '../schemas/index.js';
import { chat, modelsUnderTest, onEachModel, readReply, undeclared, type ApiCheck, type ChatBody, type ChatReply } from './api.js';
import { fail, notTested, pass, type Verdict } from './harness/check.js';
import type { CheckContext } from './harness/runner.js';

/** Room for a reasoning model to think before it answers; the JSON itself is short. */
const MAX_TOKENS = 1024;

const PERSON = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'age', 'tags'],
  additionalProperties: false,
} as const;

// The prompt names JSON: OpenAI refuses json_object when no message does.
const jsonObjectBody = (model: string): ChatBody => ({
  model,
  messages: [{ role: 'user', content: 'Describe a cat as a JSON object with the keys "name" and "color". Reply with JSON only.' }],
  response_format: { type: 'json_object' },
  max_tokens: MAX_TOKENS,
});

const jsonSchemaBody = (model: string): ChatBody => ({
  model,
  messages: [{ role: 'user', content: 'Invent a person: a name, an age and a few tags.' }],
  response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: PERSON } },
  max_tokens: MAX_TOKENS,
});

const shown = (v: unknown) => {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
};

/** The rule applied to each model under test whose catalog entry declares response_format. */
function onStructuredModels(ctx: CheckContext, rule: (model: string) => Promise<Verdict>): Promise<Verdict> {
  return modelsUnderTest(ctx).then((list) =>
    onEachModel(list, async (model) => {
      const why = await undeclared(ctx, model, 'response_format');
      return why ? notTested(why) : rule(model);
    }),
  );
}

/** The content as JSON, or the verdict that ends the check: a completion that did not end
 * naturally (length, content_filter) may be cut mid-JSON, which proves nothing. */
function contentJson(r: ChatReply, kind: string): { value: unknown } | { verdict: Verdict } {
  if (r.problem) return { verdict: fail(`response_format ${kind} was not answered with a completion: ${r.problem}`) };
  if (r.finishReason !== 'stop') return { verdict: notTested(`finish_reason is ${shown(r.finishReason)}, not "stop", so the content may be incomplete`) };
  const content = r.message?.content;
  if (typeof content !== 'string') return { verdict: fail(`with response_format ${kind}, the content is ${shown(content)}, not a string of JSON`) };
  try {
    return { value: JSON.parse(content) };
  } catch (e) {
    return { verdict: fail(`with response_format ${kind}, the content is not JSON (${(e as Error).message}): ${shown(content)}`) };
  }
}

export const jsonObject: ApiCheck = {
  id: 'structured.json-object',
  suite: 'structured',
  title: 'With response_format json_object, the content is a JSON object',
  section: '2.1',
  level: 'should',
  convention: 'The contents of response_format are not shown; by convention {type: "json_object"} makes the content one JSON object.',
  run: (ctx) =>
    onStructuredModels(ctx, async (model) => {
      const read = contentJson(readReply(await chat(ctx, jsonObjectBody(model), { label: 'response_format json_object' })), 'json_object');
      if ('verdict' in read) return read.verdict;
      const v = read.value;
      return v && typeof v === 'object' && !Array.isArray(v) ? pass() : fail(`with response_format json_object, the content is JSON but not an object: ${shown(v)}`);
    }),
};

export const jsonSchema: ApiCheck = {
  id: 'structured.json-schema',
  suite: 'structured',
  title: 'With response_format json_schema (strict), the content is JSON valid against the given schema',
  section: '2.1',
  level: 'should',
  convention: 'The contents of response_format are not shown; by convention {type: "json_schema", json_schema: {name, strict: true, schema}} makes the content conform to the schema.',
  run: (ctx) =>
    onStructuredModels(ctx, async (model) => {
      const read = contentJson(readReply(await chat(ctx, jsonSchemaBody(model), { label: 'response_format json_schema' })), 'json_schema');
      if ('verdict' in read) return read.verdict;
      const v = validateWith(PERSON, read.value);
      return v.ok ? pass() : fail(`with response_format json_schema, the content does not match the schema: ${v.schemaError ?? v.errors.join('; ')} (content ${shown(read.value)})`);
    }),
};

export const STRUCTURED: ApiCheck[] = [jsonObject, jsonSchema];
