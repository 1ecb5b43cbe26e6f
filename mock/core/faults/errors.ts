// Faults proving the checks of the errors suite (4.1 rule 1, section 7): faulty requests served,
// errors told with the wrong status, error bodies that are not the convention's. Only chat requests
// with a valid key are bent: refusals of credentials are the auth suite's. The error-body faults
// bend every chat error, so stop.five-4xx and fuzz.invalid-refused, which judge the bodies of
// refusals too, fail with them.
import { enumAt } from '../../../schemas/index.js';
import { isRaw, isStream, type MockReply, type MockRequest } from '../types.js';
import type { Fault, FaultContext } from './fault.js';
import { errorReply } from '../errors.js';
import { isChat, keyOf, requestJson, withJson, withRequestJson } from './rewrite.js';

const ROLES: unknown[] = enumAt('request#/$defs/message/properties/role');

/** A chat request the key may make: the faults of this file bend nothing else. */
const keyed = (req: MockRequest, ctx: FaultContext) => isChat(req) && keyOf(req, ctx.config) !== undefined;
/** A JSON chat request without `field`. */
const lacks = (req: MockRequest, ctx: FaultContext, field: string) => {
  const body = requestJson(req);
  return keyed(req, ctx) && body !== undefined && !(field in body);
};
const notJson = (req: MockRequest, ctx: FaultContext) => keyed(req, ctx) && requestJson(req) === undefined;
/** An error answer (a JSON body, 4xx or 5xx) to a keyed chat request. */
const chatError = (r: MockReply, req: MockRequest, ctx: FaultContext): r is Extract<MockReply, { body: unknown }> => keyed(req, ctx) && !isRaw(r) && !isStream(r) && r.status >= 400;
const withStatus = (r: MockReply, status: number): MockReply => (isRaw(r) ? r : { ...r, status });
/** The error answer to a request `when` picks out, given another status. */
const statusOf =
  (when: (req: MockRequest, ctx: FaultContext) => boolean, status: number): NonNullable<Fault['reply']> =>
  (r, req, ctx) =>
    when(req, ctx) && chatError(r, req, ctx) ? withStatus(r, status) : r;
/** What a server that crashes answers: a 500 whose body says nothing of the request. */
const CRASH: MockReply = { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' };
const without = (field: string) => (req: MockRequest, ctx: FaultContext) => lacks(req, ctx, field);

const BASE: Fault[] = [
  {
    name: 'errors-missing-model-200',
    description: 'A request without model answers 200, with the error body inside',
    fails: ['errors.missing-model', 'errors.missing-field-4xx'],
    reply: statusOf(without('model'), 200),
  },
  {
    name: 'errors-missing-messages-served',
    description: 'A request without messages is served, as if it held one user message',
    fails: ['errors.missing-messages', 'errors.missing-field-4xx'],
    request: (req, ctx) => (lacks(req, ctx, 'messages') ? withRequestJson(req, (b) => void (b.messages = [{ role: 'user', content: 'Hi' }])) : req),
  },
  {
    // A 500 that says why is a refusal of an incomplete request, told with the wrong status
    // (errors-incomplete-500-with-error); one that says nothing is no refusal at all.
    name: 'errors-missing-field-500',
    description: 'A request without model answers 500 with a plain-text body, "Internal Server Error", as a server that crashes on it does, instead of a 4xx error',
    fails: ['errors.missing-model', 'errors.missing-field-4xx', 'errors.error-body'],
    reply: (r, req, ctx) => (lacks(req, ctx, 'model') && chatError(r, req, ctx) ? CRASH : r),
  },
  {
    name: 'errors-invalid-json-500',
    description: 'A body that is not JSON answers 500 instead of a 4xx',
    fails: ['errors.invalid-json'],
    reply: statusOf(notJson, 500),
  },
  {
    name: 'errors-messages-string-accepted',
    description: 'messages given as a string is taken as one user message',
    // The fuzz pass sends the same request (messages "hello"): it judges the same answer.
    fails: ['errors.messages-not-array', 'fuzz.invalid-refused'],
    request: (req, ctx) => (keyed(req, ctx) ? withRequestJson(req, (b) => void (typeof b.messages === 'string' && (b.messages = [{ role: 'user', content: b.messages }]))) : req),
  },
  {
    name: 'errors-unknown-role-as-user',
    description: "A message whose role is not one of the document's is taken as a user message",
    fails: ['errors.unknown-role'],
    request: (req, ctx) =>
      keyed(req, ctx)
        ? withRequestJson(req, (b) => {
            if (Array.isArray(b.messages)) for (const m of b.messages) if (typeof m?.role === 'string' && !ROLES.includes(m.role)) m.role = 'user';
          })
        : req,
  },
  {
    name: 'errors-unknown-model-fallback',
    description: 'A model id that does not exist falls back to the first model of the key',
    fails: ['errors.unknown-model'],
    request: (req, ctx) => {
      const key = keyOf(req, ctx.config);
      if (!isChat(req) || !key?.models.length) return req;
      return withRequestJson(req, (b) => void (typeof b.model === 'string' && !ctx.config.models.some((m) => m.id === b.model) && (b.model = key.models[0])));
    },
  },
  {
    name: 'errors-unknown-model-500',
    description: 'A model id that does not exist answers 500 instead of a 4xx',
    fails: ['errors.unknown-model'],
    reply: (r, req, ctx) => {
      const model = requestJson(req)?.model;
      return chatError(r, req, ctx) && typeof model === 'string' && !ctx.config.models.some((m) => m.id === model) ? withStatus(r, 500) : r;
    },
  },
  {
    name: 'errors-plain-text-body',
    description: 'Error answers to chat requests carry a plain-text body, "Bad Request", instead of a JSON error',
    fails: ['stop.five-4xx', 'errors.error-body', 'fuzz.invalid-refused'],
    reply: (r, req, ctx) => (chatError(r, req, ctx) ? { status: r.status, headers: { 'content-type': 'text/plain' }, body: 'Bad Request' } : r),
  },
  {
    name: 'errors-no-message',
    description: 'Error answers to chat requests carry a JSON error without error.message',
    fails: ['stop.five-4xx', 'errors.error-body', 'fuzz.invalid-refused'],
    reply: (r, req, ctx) => (chatError(r, req, ctx) ? withJson(r, (b) => void delete b.error.message) : r),
  },
  {
    name: 'errors-empty-message',
    description: 'Error answers to chat requests carry an empty error.message',
    fails: ['stop.five-4xx', 'errors.error-body', 'fuzz.invalid-refused'],
    reply: (r, req, ctx) => (chatError(r, req, ctx) ? withJson(r, (b) => void (b.error.message = '')) : r),
  },
];

/** The developer conversation of the chat suite (a developer message first). */
const opensWith = (req: MockRequest, role: string) => (requestJson(req)?.messages as { role?: unknown }[] | undefined)?.[0]?.role === role;

const NEW: Fault[] = [
  {
    name: 'errors-streamed-error-event',
    description: 'A streamed request without model is answered 200 with a stream that carries an error event, instead of an HTTP error',
    fails: ['errors.missing-model', 'errors.missing-field-4xx'],
    on: 'stream',
    reply: (r, req, ctx) =>
      lacks(req, ctx, 'model') && requestJson(req)?.stream === true && chatError(r, req, ctx)
        ? {
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            stream: [{ delayMs: 0, bytes: `data: ${JSON.stringify({ error: { message: 'model is required', type: 'invalid_request_error' } })}\n\ndata: [DONE]\n\n` }],
          }
        : r,
  },
  {
    name: 'errors-missing-messages-404',
    description: 'A request without messages is answered 404, as if the route were missing, instead of a refusal',
    fails: ['errors.missing-messages', 'errors.missing-field-4xx'],
    reply: statusOf(without('messages'), 404),
  },
  {
    name: 'errors-content-filter-as-error',
    description: 'A filtered answer (to the developer conversation) comes as a 400 error with code content_filter, instead of a completed response',
    fails: ['chat.role.developer', 'errors.content-filter'],
    reply: (r, req, ctx) => (keyed(req, ctx) && opensWith(req, 'developer') ? errorReply(400, 'The response was filtered by the content policy.', 'invalid_request_error', 'content_filter') : r),
  },
  {
    name: 'errors-content-filter-cut',
    description: 'A filtered answer (to the system conversation) ends with content_filter but its body is cut short',
    fails: ['chat.role.system', 'errors.content-filter'],
    reply: (r, req, ctx) => {
      if (!keyed(req, ctx) || !opensWith(req, 'system') || isRaw(r) || isStream(r) || r.status !== 200) return r;
      const text = withJson(r, (b) => void (b.choices[0].finish_reason = 'content_filter'));
      return isRaw(text) || isStream(text) ? text : { ...text, body: String(text.body).slice(0, -20) };
    },
  },
];

/** Deviations no check holds, shown by the clients they break (the kit lacks the rule). */
const UNRULED: Fault[] = [
  {
    name: 'errors-422',
    description:
      "Every chat refusal of a body answers 422 Unprocessable Entity (as a FastAPI server's validation does) instead of 400: a 4xx, as every check asks, yet the official clients' bad-request error is a 400's",
    fails: [],
    breaksFlowsOnly: ['openai.bad-request', 'ai-sdk.bad-request', 'langchain.bad-request'],
    reply: (r, req, ctx) => (chatError(r, req, ctx) && r.status === 400 ? withStatus(r, 422) : r),
  },
];

export const ERRORS_FAULTS: Fault[] = [...BASE, ...NEW, ...UNRULED];
