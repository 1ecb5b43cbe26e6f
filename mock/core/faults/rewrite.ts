// Small rewriting tools the faults are written with: find a route, rewrite a JSON body, a stream's
// payloads, its bytes, or the request's JSON.
import { DONE, frames } from '../sse.js';
import { isRaw, isStream, type Frame, type MockReply, type MockRequest } from '../types.js';
import { textOf } from '../bytes.js';
import type { FaultContext } from './fault.js';
import { bearerToken } from '../bearer.js';

const pathOf = (req: MockRequest) => req.path.split('?')[0].replace(/\/+$/, '');
export const isChat = (req: MockRequest) => pathOf(req) === '/v1/chat/completions';
export const isModels = (req: MockRequest) => pathOf(req) === '/v1/models';
export const isCatalog = (req: MockRequest) => pathOf(req) === '/models.json';

const text = textOf;

/** The request's JSON body, or undefined when it is not JSON. */
export function requestJson(req: MockRequest): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text(req.body ?? ''));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites the request's JSON body in place of the original (left alone when not JSON). */
export function withRequestJson(req: MockRequest, edit: (body: Record<string, unknown>) => void): MockRequest {
  const body = requestJson(req);
  if (!body) return req;
  edit(body);
  return { ...req, body: JSON.stringify(body) };
}

export const withHeader = (req: MockRequest, name: string, value: string | undefined): MockRequest => ({
  ...req,
  headers: { ...req.headers, [name]: value },
});

/** Rewrites a JSON reply's body; `edit` mutates it in place, or returns a replacement body
 * (beware: an arrow function ending in `delete x.y` returns true, which would replace the body). */
export function withJson(reply: MockReply, edit: (body: any) => unknown): MockReply {
  if (isStream(reply) || isRaw(reply)) return reply;
  let body: unknown;
  try {
    body = JSON.parse(text(reply.body));
  } catch {
    return reply;
  }
  const out = edit(body);
  return { ...reply, body: JSON.stringify(out === undefined ? body : out) };
}

/** A stream's payloads: JSON values, and `[DONE]` (or any non-JSON data) as strings. */
export function payloadsOf(reply: MockReply): unknown[] | undefined {
  if (!isStream(reply)) return undefined;
  const all = [...reply.stream].map((f) => ('bytes' in f ? text(f.bytes) : '')).join('');
  return all
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => {
      const data = e.slice('data: '.length);
      try {
        return data === DONE ? DONE : JSON.parse(data);
      } catch {
        return data;
      }
    });
}

/** Rewrites a stream's payloads (the `[DONE]` string included) and frames them again. */
export function withPayloads(reply: MockReply, edit: (payloads: any[]) => unknown[]): MockReply {
  const payloads = payloadsOf(reply);
  if (!payloads || isRaw(reply) || !isStream(reply)) return reply;
  return { ...reply, stream: [...frames(edit(payloads), 0, false)] };
}

/** Rewrites a stream's bytes as one text; a string back is one frame, an array gives frames. */
export function withStreamText(reply: MockReply, edit: (text: string) => string | Frame[]): MockReply {
  if (!isStream(reply)) return reply;
  const all = [...reply.stream].map((f) => ('bytes' in f ? text(f.bytes) : '')).join('');
  const out = edit(all);
  return { ...reply, stream: typeof out === 'string' ? [{ delayMs: 0, bytes: out }] : out };
}

export { DONE };

/** The key of `Authorization: Bearer <key>`, or undefined when the header is absent or not Bearer. */
export const bearerKey = (req: MockRequest): string | undefined => bearerToken(req.headers.authorization);

/** The configured key the request's Bearer credential names, or undefined when it names none. */
export const keyOf = (req: MockRequest, config: { keys: { key: string; id: string; models: string[] }[] }) => {
  const key = bearerKey(req);
  return key === undefined ? undefined : config.keys.find((k) => k.key === key);
};

// --- Bending chat answers: the JSON body of a completion, the chunks of a stream, or both ----------

type Json = Record<string, any>;
type Reply = (r: MockReply, req: MockRequest, ctx: FaultContext) => MockReply;

/** Only a chat completion answered as one JSON body (200) is bent: refusals and streams stay. */
export const onCompletion =
  (edit: (body: Json, request: Json, ctx: FaultContext) => unknown): Reply =>
  (r, req, ctx) =>
    isChat(req) && !isStream(r) && 'status' in r && r.status === 200 ? withJson(r, (b) => edit(b, requestJson(req) ?? {}, ctx)) : r;

/** Every chat completion is bent: the JSON body, or each chunk of a stream. */
export const onAnswers =
  (edit: (answer: Json, request: Json, ctx: FaultContext) => void): Reply =>
  (r, req, ctx) =>
    isStream(r) ? onChunks(edit)(r, req, ctx) : onCompletion(edit)(r, req, ctx);

/** The chunks of a streamed chat completion (200) are bent, each as JSON; the terminator stays. */
export const onChunks =
  (edit: (chunk: Json, request: Json, ctx: FaultContext) => void): Reply =>
  (r, req, ctx) =>
    isChat(req) && isStream(r) && r.status === 200 ? withPayloads(r, (ps) => (ps.forEach((p) => p && typeof p === 'object' && edit(p, requestJson(req) ?? {}, ctx)), ps)) : r;
