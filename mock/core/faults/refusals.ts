// Faults that prove attribution by experiment (issue 42): a request refused for one field is charged
// to that field's owner, found by asking again without it, whatever the error says and however it is
// shaped; and a listed model that chat does not take is the list's failure, not every chat rule's.
// Each refusal is worded as a real server words it, or not in any form the kit could read.
import { errorReply } from '../errors.js';
import type { MockReply, MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { isCatalog, isChat, isModels, requestJson, withJson } from './rewrite.js';

const REASONING = 'mock-reason-1';

const servedChat = (r: MockReply, req: MockRequest) => isChat(req) && 'status' in r && r.status >= 200 && r.status < 300;
const toReasoning = (req: MockRequest) => requestJson(req)?.model === REASONING;

/** The text output modality's supported_parameters of a catalog entry. */
const declared = (entry: any): Record<string, unknown> | undefined => entry?.output_modalities?.find((o: any) => o.type === 'text')?.supported_parameters;

/** A listed id with a tag, as a model server lists its models, that the chat route does not take. */
const TAGGED = 'mock-chat-1:latest';

export const REFUSAL_FAULTS: Fault[] = [
  {
    // A reasoning model takes only the default temperature, as OpenAI's do: the stop rules, which
    // send 0 for a reproducible answer, are judged without it; the catalog that declares the range
    // for it is what makes the refusal parameters.in-range's.
    name: 'reasoning-temperature-refused',
    description:
      "The catalog declares temperature 0 to 2 for the reasoning model, which refuses any temperature but 1 with a 400 worded as OpenAI's (\"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.\")",
    fails: ['parameters.in-range'],
    on: REASONING,
    reply: (r, req) => {
      if (isCatalog(req) && 'status' in r && r.status === 200)
        return withJson(r, (doc) => {
          const params = declared(doc.data.find((m: any) => m.id === REASONING));
          if (params) params.temperature = { type: 'range', min: 0, max: 2, default: 1 };
        });
      const t = servedChat(r, req) && toReasoning(req) ? requestJson(req)?.temperature : undefined;
      return t === undefined || t === 1
        ? r
        : errorReply(
            400,
            `Unsupported value: 'temperature' does not support ${JSON.stringify(t)} with this model. Only the default (1) value is supported.`,
            'invalid_request_error',
            'unsupported_value',
            'temperature',
          );
    },
  },
  {
    // The catalog declares max_tokens for the model: refusing it is chat.max-tokens' failure (section
    // 8 caps every completion), and every other rule is judged on its requests sent without it.
    name: 'reasoning-max-tokens-refused',
    description:
      "The reasoning model refuses max_tokens with a 400 worded as OpenAI's (\"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.\")",
    fails: ['chat.max-tokens'],
    on: REASONING,
    reply: (r, req) =>
      servedChat(r, req) && toReasoning(req) && requestJson(req)?.max_tokens !== undefined
        ? errorReply(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'invalid_request_error', 'unsupported_parameter', 'max_tokens')
        : r,
  },
  {
    // stop is what the stop rules are about: never left out to judge them. The refusal is the
    // acceptance rules' (one per form sent); the rules of the cut are blocked by them.
    name: 'reasoning-stop-refused',
    description: 'The reasoning model refuses stop, which its catalog entry declares, with a 400 ("Unsupported parameter: \'stop\' is not supported with this model.")',
    fails: ['stop.string', 'stop.array'],
    on: REASONING,
    reply: (r, req) =>
      servedChat(r, req) && toReasoning(req) && requestJson(req)?.stop !== undefined
        ? errorReply(400, "Unsupported parameter: 'stop' is not supported with this model.", 'invalid_request_error', 'unsupported_parameter', 'stop')
        : r,
  },
  {
    // A field outside any list of the kit's, refused in a shape no OpenAI-compatible server uses (a
    // framework's own validation error, with no error object to read): found all the same.
    name: 'seed-refused-extra-inputs',
    description:
      'Every request that carries seed, which the catalog declares, is refused with a 422 in a validation framework\'s own shape ({"detail": [{"type": "extra_forbidden", "loc": ["body", "seed"], "msg": "Extra inputs are not permitted"}]})',
    fails: ['parameters.in-range'],
    reply: (r, req) =>
      servedChat(r, req) && requestJson(req)?.seed !== undefined
        ? {
            status: 422,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ detail: [{ type: 'extra_forbidden', loc: ['body', 'seed'], msg: 'Extra inputs are not permitted', input: requestJson(req)?.seed }] }),
          }
        : r,
  },
  {
    // The tagged id is listed (and described) first, so it would be the chat model under test; chat
    // answers it 404. The listed model that chat does not take is models.ids-usable's failure: the
    // rules run on the next model of its kind.
    name: 'models-tagged-id-not-found',
    description: `The list names ${TAGGED} first, and the catalog describes it as mock-chat-1, but chat answers it 404 ("model not found"), as a server whose list shows tagged ids its chat route does not take`,
    fails: ['models.ids-usable'],
    on: TAGGED,
    reply: (r, req) => {
      if (!('status' in r) || r.status !== 200) return isChat(req) && requestJson(req)?.model === TAGGED ? notFound() : r;
      if (isModels(req))
        return withJson(r, (list) => {
          const plain = list.data.find((m: any) => m.id === 'mock-chat-1');
          if (plain) list.data.unshift({ ...plain, id: TAGGED });
        });
      if (isCatalog(req))
        return withJson(r, (doc) => {
          const plain = doc.data.find((m: any) => m.id === 'mock-chat-1');
          if (plain) doc.data.unshift({ ...structuredClone(plain), id: TAGGED });
        });
      return isChat(req) && requestJson(req)?.model === TAGGED ? notFound() : r;
    },
  },
];

function notFound(): MockReply {
  return errorReply(404, `The model \`${TAGGED}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', 'model');
}
