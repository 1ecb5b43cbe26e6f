// Section 2.1 (response_format): structured output, streamed and not, on the models under test
// that may take response_format (declared in the catalog, or not described there: a refusal then
// leaves them not-tested).
import { validateWith } from '../schemas/index.js';
import { inSuite, type ApiCheck, type CheckDef, type ChatBody, type ApiPath } from './api.js';
import { answerTo, askWithRoom, judged, type Answer, type Part } from './answer.js';
import { fail, notTested, pass, type Verdict } from '../engine/check.js';
import { parseJson } from '../engine/json.js';
import type { CheckContext } from '../engine/runner.js';
import { modelsTaking, STREAM } from './paths.js';
import { eachReading, knownOf, type Known } from './each.js';
import { lengthShort } from './chat.js';

/** The schema asks for what the prompt does not: a `kind` of one allowed value. A server that takes
 * json_schema for json_object gets an object of the keys the prompt names (name, age, tags), which
 * lacks it; only a server that holds the content to the schema writes it. */
const PERSON = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['conformance-person'] },
    name: { type: 'string' },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['kind', 'name', 'age', 'tags'],
  additionalProperties: false,
} as const;

// The prompt asks for prose and names JSON only as the format the request sets (OpenAI refuses
// json_object when no message says JSON): a server that ignores response_format answers prose.
const jsonObjectBody =
  (model: string) =>
  (cap: number): ChatBody => ({
    model,
    messages: [{ role: 'user', content: 'Write two short sentences about a cat (the request sets the format: JSON).' }],
    response_format: { type: 'json_object' },
    max_tokens: cap,
  });

export const jsonSchemaBody =
  (model: string) =>
  (cap: number): ChatBody => ({
    model,
    messages: [{ role: 'user', content: 'Invent a person: a name, an age and a few tags.' }],
    response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: PERSON } },
    max_tokens: cap,
  });

const shown = (v: unknown) => {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
};

/** The content of the answer as JSON, or the verdict that ends the check: an answer that did not
 * end naturally (length, content_filter) may be cut mid-JSON, which proves nothing. */
async function contentJson(
  ctx: CheckContext,
  path: ApiPath,
  kind: string,
  body: (cap: number) => ChatBody,
): Promise<{ value: unknown; verdict?: undefined } | { value?: undefined; verdict: Verdict }> {
  // The JSON itself is short; a reasoning model that thinks past the first cap is given room (ROOM).
  const got = await answerTo(ctx, await askWithRoom(ctx, path, body, `response_format ${kind}`), path, READS, { what: `response_format ${kind}`, feature: 'response_format' });
  return got.verdict ? got : jsonOf(got.answer, kind, await knownOf(ctx, path.model!));
}

/** The content of an answer as JSON, or the verdict that ends the check. */
function jsonOf(a: Answer, kind: string, known: Known): { value: unknown; verdict?: undefined } | { value?: undefined; verdict: Verdict } {
  if (a.finishReason !== 'stop') {
    // "length" short of every limit is chat.length-only-at-cap's breach, on this answer too.
    const short = lengthShort(a, known.entry, `the response_format ${kind} answer`);
    return { verdict: notTested(`finish_reason is ${shown(a.finishReason)}, not "stop", so the content may be incomplete`, short && 'chat.length-only-at-cap', short) };
  }
  const json = parseJson(a.content);
  return json.ok ? { value: json.value } : { verdict: fail(`with response_format ${kind}, the content is not JSON (${json.error}): ${shown(a.content)}`) };
}

const ON_STRUCTURED = { stream: STREAM, model: modelsTaking('response_format') };
const READS: Part[] = ['content', 'finish_reason'];

/** A rule about the JSON content of a response_format request, on both paths; under load, on each
 * answer to the json_schema request. */
const onContent = (kind: string, body: (model: string) => (cap: number) => ChatBody, rule: (value: unknown) => Verdict) => ({
  ...judged<{ value: unknown }>(
    READS,
    (ctx, path) => contentJson(ctx, path, kind, body(path.model!)),
    (got) => rule(got.value),
  ),
  ...(kind === 'json_schema'
    ? {
        onEach: eachReading(
          READS,
          (a, known) => {
            const got = jsonOf(a, kind, known);
            return got.verdict ?? rule(got.value);
          },
          { kinds: ['json-schema'] },
        ),
      }
    : {}),
});

export const jsonObject: CheckDef = {
  id: 'structured.json-object',
  title: 'With response_format json_object, the content is a JSON object',
  section: '2.1',
  level: 'should',
  audit:
    'Asks for two sentences about a cat with response_format json_object, naming JSON only as the format the request sets, streamed and not: a server that ignores response_format answers the prose the prompt asks for, where json_object makes it one JSON object; shown by faults structured-json-object-ignored and structured-json-object-fenced.',
  convention: 'The contents of response_format are not shown; by convention {type: "json_object"} makes the content one JSON object.',
  paths: ON_STRUCTURED,
  ...onContent('json_object', jsonObjectBody, (v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? pass() : fail(`with response_format json_object, the content is JSON but not an object: ${shown(v)}`),
  ),
};

export const jsonSchema: CheckDef = {
  id: 'structured.json-schema',
  title: 'With response_format json_schema (strict), the content is JSON valid against the given schema',
  section: '2.1',
  level: 'should',
  audit:
    'Asks to invent a person (a name, an age and a few tags) with a strict json_schema that also requires a kind of one allowed value the prompt never names, streamed and not: a server that takes json_schema for json_object answers the object the prompt describes, without kind, where one that holds the content to the schema writes it; shown by faults structured-json-schema-as-object and structured-json-schema-negative-age.',
  convention: 'The contents of response_format are not shown; by convention {type: "json_schema", json_schema: {name, strict: true, schema}} makes the content conform to the schema.',
  paths: ON_STRUCTURED,
  ...onContent('json_schema', jsonSchemaBody, (value) => {
    const v = validateWith(PERSON, value);
    return v.ok ? pass() : fail(`with response_format json_schema, the content does not match the schema: ${v.schemaError ?? v.errors.join('; ')} (content ${shown(value)})`);
  }),
};

export const STRUCTURED: ApiCheck[] = inSuite('structured', [jsonObject, jsonSchema]);
