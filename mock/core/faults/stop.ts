// Faults proving the checks of the stop suite (2.1, 8): stop sequences as a string or an array of at
// most 4, and the content they end.
import { errorReply } from '../errors.js';
import { lastUserText, repeatedText, type ChatRequest } from '../generate.js';
import { isRaw, isStream, type MockReply, type MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { isChat, requestJson, withJson, withPayloads, withRequestJson } from './rewrite.js';
import { only } from './scope.js';

type Json = Record<string, any>;

const stopsOf = (request: Json | undefined): string[] => (request?.stop == null ? [] : [request.stop].flat());
const stopped = (req: MockRequest) => isChat(req) && stopsOf(requestJson(req)).length > 0;
const five = (req: MockRequest) => isChat(req) && Array.isArray(requestJson(req)?.stop) && stopsOf(requestJson(req)).length === 5;

/** Bends the answers (JSON body, stream payloads) to chat requests that carry stop sequences; refusals
 * stay as they are. */
const onStopped =
  (json: (body: Json, stops: string[], request: Json) => void, payloads?: (ps: any[], stops: string[], request: Json) => void): Fault['reply'] =>
  (r, req) => {
    if (!stopped(req) || isRaw(r) || r.status !== 200) return r;
    const request = requestJson(req)!;
    const stops = stopsOf(request);
    if (isStream(r)) return payloads ? withPayloads(r, (ps) => (payloads(ps, stops, request), ps)) : r;
    return withJson(r, (b) => void json(b, stops, request));
  };

/** The index of the chunk that ends the choice. */
const finishAt = (ps: any[]) => ps.findIndex((p) => p?.choices?.[0]?.finish_reason);
const contentChunk = (like: Json, content: string) => ({ ...like, choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const streamedContent = (ps: any[]) => ps.map((p) => (typeof p?.choices?.[0]?.delta?.content === 'string' ? p.choices[0].delta.content : '')).join('');

/** The sequence that ended an answer: of the request's, the one its unstopped answer holds right after
 * the content. The mock's answer to "Repeat exactly:" is known; for another prompt the first stands in. */
const endedBy = (request: Json, content: string, stops: string[]): string => {
  const whole = repeatedText(lastUserText(request as ChatRequest));
  return (whole !== undefined && stops.find((s) => whole.startsWith(content + s))) || stops[0];
};

/** Text added after the content of an answer a stop sequence ended, on either path: `text` is given the
 * sequence that ended it. */
const appended = (text: (ended: string) => string) =>
  onStopped(
    (b, stops, request) => {
      const message = b.choices[0]?.message;
      if (b.choices[0]?.finish_reason === 'stop' && typeof message?.content === 'string') message.content += text(endedBy(request, message.content, stops));
    },
    (ps, stops, request) => {
      const at = finishAt(ps);
      if (at >= 0 && ps[at].choices[0].finish_reason === 'stop') ps.splice(at, 0, contentChunk(ps[at], text(endedBy(request, streamedContent(ps), stops))));
    },
  );

const TEXT_REFUSAL = (): MockReply => ({ status: 400, headers: { 'content-type': 'text/plain' }, body: 'too many stop sequences' });

const BASE: Fault[] = [
  // --- accepted forms ---
  {
    name: 'stop-string-refused',
    description: 'stop given as a string is refused (400): only arrays are accepted',
    fails: ['stop.string'],
    reply: (r, req) => (isChat(req) && typeof requestJson(req)?.stop === 'string' ? errorReply(400, 'stop must be an array of strings', 'invalid_request_error', 'invalid_type', 'stop') : r),
  },
  {
    name: 'stop-server-error',
    description: 'Any request with stop sequences is answered with a 500',
    // The fuzz pass sends stop of a wrong type, and a valid request with a stop sequence: a 500 to each.
    fails: ['stop.string', 'stop.array', 'stop.ends-generation', 'parameters.in-range', 'fuzz.no-5xx', 'fuzz.no-5xx-refusable'],
    reply: (r, req) => (stopped(req) ? errorReply(500, 'internal error', 'server_error') : r),
  },

  // --- at most 4 ---
  {
    name: 'stop-five-accepted',
    description: 'Five stop sequences are accepted (the fifth is dropped) instead of refused',
    fails: ['stop.five-refused', 'stop.five-4xx', 'parameters.out-of-range'],
    request: (req) => (five(req) ? withRequestJson(req, (b) => void (b.stop = (b.stop as string[]).slice(0, 4))) : req),
  },
  {
    // A 500 that says why is a refusal told with the wrong status (errors-incomplete-500-with-error);
    // one that says nothing is no refusal at all.
    name: 'stop-five-500',
    description: 'Five stop sequences are answered 500 with a plain-text body, "Internal Server Error", as a server that crashes on them does, instead of a 4xx error',
    fails: ['stop.five-refused', 'stop.five-4xx', 'parameters.out-of-range'],
    reply: (r, req) => (five(req) ? { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' } : r),
  },
  {
    name: 'stop-five-text-body',
    description: 'Five stop sequences are refused with a 400 whose body is plain text, not a JSON error',
    fails: ['stop.five-4xx'],
    reply: (r, req) => (five(req) ? TEXT_REFUSAL() : r),
  },

  // --- the content they end ---
  {
    name: 'stop-left-in-content',
    description: 'The stop sequence that ended the answer is left at the end of the content',
    fails: ['stop.not-in-content', 'stop.exact-prefix'],
    reply: appended((ended) => ended),
  },
  {
    name: 'stop-cut-early',
    description: 'A stop sequence cuts the content a little before the place it occurs',
    fails: ['stop.exact-prefix'],
    reply: onStopped(
      (b) => {
        if (b.choices[0]?.finish_reason === 'stop' && typeof b.choices[0].message?.content === 'string') b.choices[0].message.content = b.choices[0].message.content.slice(0, -2);
      },
      (ps) => {
        // The last content chunk before the end is lost.
        const at = finishAt(ps);
        if (at > 0 && ps[at].choices[0].finish_reason === 'stop' && typeof ps[at - 1]?.choices?.[0]?.delta?.content === 'string') ps.splice(at - 1, 1);
      },
    ),
  },
  {
    name: 'stop-finish-length',
    description: 'An answer ended by a stop sequence has finish_reason "length" instead of "stop", streamed or not',
    fails: ['stop.finish-reason'],
    reply: onStopped(
      (b) => {
        if (b.choices[0]?.finish_reason === 'stop') b.choices[0].finish_reason = 'length';
      },
      (ps) => {
        const at = finishAt(ps);
        if (at >= 0 && ps[at].choices[0].finish_reason === 'stop') ps[at].choices[0].finish_reason = 'length';
      },
    ),
  },
  {
    name: 'stop-ignored-when-streaming',
    description: 'Stop sequences are ignored when the answer is streamed',
    on: 'stream',
    fails: ['stop.ends-generation', 'stop.not-in-content', 'stop.exact-prefix', 'stop.five-refused', 'stop.five-4xx'],
    request: (req) => (isChat(req) && requestJson(req)?.stream === true ? withRequestJson(req, (b) => void delete b.stop) : req),
  },
];

const named = (name: string) => BASE.find((f) => f.name === name)!;

/** A 200 with nothing in it: a status that alone proves nothing. */
const EMPTY_200 = (): MockReply => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '' });

const NEW: Fault[] = [
  {
    name: 'stop-continues-after',
    description: 'The content goes on for a few characters after the stop sequence that ended it',
    fails: ['stop.ends-generation', 'stop.not-in-content', 'stop.exact-prefix'],
    reply: appended((ended) => `${ended} and more`),
  },
  {
    name: 'stop-span-ignored',
    description: 'A stop sequence that holds a space (spans two tokens) is ignored',
    fails: ['stop.ends-generation', 'stop.not-in-content', 'stop.exact-prefix'],
    on: 'stop across tokens',
    request: (req) =>
      isChat(req)
        ? withRequestJson(req, (b) => {
            if (Array.isArray(b.stop)) b.stop = (b.stop as string[]).filter((s) => !/\s/.test(s));
            if (Array.isArray(b.stop) && !b.stop.length) delete b.stop;
          })
        : req,
  },
  {
    name: 'stop-first-only',
    description: 'Of a stop array, only the first sequence is honoured (an engine that reads stop[0]), streamed or not',
    fails: ['stop.ends-generation', 'stop.not-in-content', 'stop.exact-prefix'],
    on: 'stop array',
    // Up to four: five are still refused, as the document's limit asks.
    request: (req) => (isChat(req) ? withRequestJson(req, (b) => void (Array.isArray(b.stop) && b.stop.length > 1 && b.stop.length <= 4 && (b.stop = [b.stop[0]]))) : req),
  },
  {
    name: 'stop-string-ignored',
    description: 'stop given as a string is accepted but ignored: only arrays stop the generation, streamed or not',
    fails: ['stop.ends-generation', 'stop.not-in-content', 'stop.exact-prefix'],
    on: 'stop string',
    request: (req) => (isChat(req) && typeof requestJson(req)?.stop === 'string' ? withRequestJson(req, (b) => void delete b.stop) : req),
  },
  {
    name: 'stop-five-404',
    description: 'Five stop sequences are answered 404 (as if the route were missing) instead of a refusal',
    fails: ['stop.five-refused', 'parameters.out-of-range'],
    reply: (r, req) => (five(req) ? errorReply(404, 'Not found', 'invalid_request_error') : r),
  },
  {
    name: 'stop-empty-200',
    description: 'A request with one or two stop sequences is answered 200 with an empty body',
    // The fuzz pass sends stop of a wrong type, which this serves, and a valid request with a stop
    // sequence, whose empty 200 is no chat completion.
    fails: ['stop.string', 'stop.array', 'stop.ends-generation', 'parameters.in-range', 'fuzz.invalid-refused', 'fuzz.served-shape'],
    reply: (r, req) => (stopped(req) && stopsOf(requestJson(req)).length <= 2 ? EMPTY_200() : r),
  },
];

export const STOP_FAULTS: Fault[] = [...BASE, ...NEW, only(named('stop-left-in-content'), { model: 'mock-reason-1' }, ['stop.not-in-content', 'stop.exact-prefix'])];
