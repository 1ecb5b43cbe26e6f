// Faults proving the checks of the structured suite (2.1 response_format): the content of answers to
// one kind of response_format is replaced, as the request names it.
import { lastUserText, type ChatRequest } from '../generate.js';
import type { MockReply, MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { isChat, requestJson, withJson, withRequestJson } from './rewrite.js';

const formatOf = (b: Record<string, any> | undefined): unknown => (b?.response_format as { type?: unknown } | undefined)?.type;

/** Replaces the content of successful, non-streamed answers to response_format `kind`. */
const contentFor =
  (kind: 'json_object' | 'json_schema', content: string): Fault['reply'] =>
  (r: MockReply, req: MockRequest) => {
    const b = isChat(req) ? requestJson(req) : undefined;
    if (formatOf(b) !== kind || !('status' in r) || r.status !== 200) return r;
    return withJson(r, (body) => {
      const message = body.choices?.[0]?.message;
      if (message) message.content = content;
    });
  };

/** A json_schema request as a server that takes it for json_object serves it: the model writes the
 * object its prompt asks for, of the schema's keys that the prompt names, and nothing holds it to the
 * rest of the schema. */
function asPromptedObject(b: Record<string, any>): void {
  const schema = b.response_format?.json_schema?.schema;
  const user = lastUserText(b as ChatRequest).toLowerCase();
  const named = Object.keys(schema?.properties ?? {}).filter((k) => new RegExp(`\\b${k.toLowerCase()}`).test(user));
  const properties = Object.fromEntries(named.map((k) => [k, schema.properties[k]]));
  b.response_format = { type: 'json_schema', json_schema: { name: 'free_object', schema: { type: 'object', properties, required: named } } };
}

export const STRUCTURED_FAULTS: Fault[] = [
  {
    name: 'structured-json-object-prose',
    description: 'With response_format json_object, the content is prose around JSON, not JSON',
    fails: ['structured.json-object'],
    reply: contentFor('json_object', 'Here is your cat: {"name": "Tom", "color": "grey"}'),
  },
  {
    name: 'structured-json-object-fenced',
    description: 'With response_format json_object, the JSON comes in a Markdown code fence',
    fails: ['structured.json-object'],
    reply: contentFor('json_object', '```json\n{"name": "Tom", "color": "grey"}\n```'),
  },
  {
    name: 'structured-json-object-array',
    description: 'With response_format json_object, the content is a JSON array, not an object',
    fails: ['structured.json-object'],
    reply: contentFor('json_object', '["Tom", "grey"]'),
  },
  {
    name: 'structured-json-object-ignored',
    description: 'response_format json_object is ignored: the content is the prose the prompt asks for, streamed or not',
    fails: ['structured.json-object'],
    request: (req) => (isChat(req) && formatOf(requestJson(req)) === 'json_object' ? withRequestJson(req, (b) => void delete b.response_format) : req),
  },
  {
    name: 'structured-json-schema-as-object',
    description: 'response_format json_schema is taken for json_object: the content is the object the prompt describes, without what only the schema asks for, streamed or not',
    fails: ['structured.json-schema'],
    request: (req) => (isChat(req) && formatOf(requestJson(req)) === 'json_schema' ? withRequestJson(req, asPromptedObject) : req),
  },
  {
    name: 'structured-json-schema-broken',
    description: 'With response_format json_schema (strict), the content breaks the schema: a required key missing, an unknown one added',
    fails: ['structured.json-schema'],
    reply: contentFor('json_schema', '{"name":"Ada","age":36,"nickname":"A"}'),
  },
  {
    name: 'structured-json-schema-negative-age',
    description: 'With response_format json_schema (strict), the content breaks a constraint of the schema (age -1, minimum 0)',
    fails: ['structured.json-schema'],
    reply: contentFor('json_schema', '{"kind":"conformance-person","name":"Ada","age":-1,"tags":[]}'),
  },
  {
    name: 'structured-json-schema-not-json',
    description: 'With response_format json_schema, the content is cut-off JSON though finish_reason is "stop"',
    fails: ['structured.json-schema'],
    reply: contentFor('json_schema', '{"name":"Ada",'),
  },
];
