// Faults proving the checks of the structured suite (2.1 response_format): the content of answers to
// one kind of response_format is replaced, as the request names it.
import type { MockReply, MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { isChat, requestJson, withJson } from './rewrite.js';

/** Replaces the content of successful, non-streamed answers to response_format `kind`. */
const contentFor =
  (kind: 'json_object' | 'json_schema', content: string): Fault['reply'] =>
  (r: MockReply, req: MockRequest) => {
    const b = isChat(req) ? requestJson(req) : undefined;
    if ((b?.response_format as { type?: unknown } | undefined)?.type !== kind || !('status' in r) || r.status !== 200) return r;
    return withJson(r, (body) => {
      const message = body.choices?.[0]?.message;
      if (message) message.content = content;
    });
  };

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
    name: 'structured-json-schema-broken',
    description: 'With response_format json_schema (strict), the content breaks the schema: a required key missing, an unknown one added',
    fails: ['structured.json-schema'],
    reply: contentFor('json_schema', '{"name":"Ada","age":36,"nickname":"A"}'),
  },
  {
    name: 'structured-json-schema-negative-age',
    description: 'With response_format json_schema (strict), the content breaks a constraint of the schema (age -1, minimum 0)',
    fails: ['structured.json-schema'],
    reply: contentFor('json_schema', '{"name":"Ada","age":-1,"tags":[]}'),
  },
  {
    name: 'structured-json-schema-not-json',
    description: 'With response_format json_schema, the content is cut-off JSON though finish_reason is "stop"',
    fails: ['structured.json-schema'],
    reply: contentFor('json_schema', '{"name":"Ada",'),
  },
];
