// Failures a frontend must handle: served per request (`x-mock-fault`), per scenario, or at a
// configured rate. The same catalogue as the kit's own proofs, marked apart because they are
// failures a correct service may have, not deviations from the document.
import { errorReply } from '../errors.js';
import { eventBytes } from '../sse.js';
import { isRaw, isStream, type Frame, type MockReply } from '../types.js';
import type { Fault, FaultContext } from './fault.js';
import { withJson, withPayloads } from './rewrite.js';

/** setTimeout's longest delay: longer than any client waits. */
export const FOREVER_MS = 2 ** 31 - 1;

/** When the `loading` fault answered its first request: this mock's model loads from then. */
const LOADING_SINCE = 'loading:since';

/** A parameter's value, checked when the fault was chosen (select.ts), or its default. */
const num = (ctx: FaultContext, name: string, fallback: number) => (ctx.params[name] !== undefined ? Number(ctx.params[name]) : fallback);

function retryHeaders(ms: number): Record<string, string> {
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))), 'retry-after-ms': String(Math.round(ms)) };
}

function delayed(reply: MockReply, ms: number): MockReply {
  if (isRaw(reply)) return reply;
  if (!isStream(reply)) return { ...reply, delayMs: (reply.delayMs ?? 0) + ms };
  const frames = reply.stream;
  return {
    ...reply,
    stream: (function* () {
      let first = true;
      for (const f of frames) {
        yield first ? { ...f, delayMs: f.delayMs + ms } : f;
        first = false;
      }
    })(),
  };
}

/** A stream whose middle event comes `ms` late: it falls silent after half its events, then goes on
 * as it would have. Its frames are taken at once (the core's streams end), to find the middle. */
function pausedMidway(reply: MockReply, ms: number): MockReply {
  if (!isStream(reply)) return reply;
  const frames = [...reply.stream];
  const events = frames.flatMap((f, i) => ('bytes' in f && String(f.bytes).startsWith('data:') ? [i] : []));
  const at = events[Math.floor(events.length / 2)];
  if (at === undefined) return { ...reply, stream: frames };
  return { ...reply, stream: frames.map((f, i) => (i === at ? { ...f, delayMs: f.delayMs + ms } : f)) };
}

/** The first `n` frames that carry data, then what `end` gives. */
function cutAfter(reply: MockReply, n: number, end: Frame[]): MockReply {
  if (!isStream(reply)) return reply;
  const frames = reply.stream;
  return {
    ...reply,
    stream: (function* () {
      let sent = 0;
      for (const f of frames) {
        if ('bytes' in f && String(f.bytes).startsWith('data:')) {
          if (sent === n) break;
          sent++;
        }
        yield f;
      }
      yield* end;
    })(),
  };
}

export const FRONTEND: Fault[] = [
  {
    name: 'rate-limited',
    description: '429 with Retry-After and retry-after-ms',
    fails: [],
    frontend: true,
    params: { retry_after_ms: { default: 1000, describe: 'the wait the Retry-After headers ask for' } },
    reply: (_r, _req, ctx) => {
      const ms = num(ctx, 'retry_after_ms', 1000);
      return errorReply(429, 'Rate limit reached for requests. Please retry after the time given in Retry-After.', 'rate_limit_error', 'rate_limit_exceeded', null, retryHeaders(ms));
    },
  },
  {
    name: 'server-error',
    description: '500 with an error body',
    fails: [],
    frontend: true,
    reply: () => errorReply(500, 'The server had an error while processing your request.', 'server_error', 'internal_error'),
  },
  {
    name: 'unavailable',
    description: '503 with Retry-After',
    fails: [],
    frontend: true,
    params: { retry_after_ms: { default: 1000, describe: 'the wait the Retry-After headers ask for' } },
    reply: (_r, _req, ctx) => errorReply(503, 'The engine is currently overloaded, please try again later.', 'server_error', 'overloaded', null, retryHeaders(num(ctx, 'retry_after_ms', 1000))),
  },
  {
    name: 'loading',
    description:
      'Every request answered 503 "Loading model" with Retry-After, for ms from the first request it answers, as llama.cpp answers while its model loads (with times=N, the first N requests)',
    fails: [],
    frontend: true,
    params: {
      ms: { default: 3000, describe: 'how long the model loads, from the first request it answers' },
      retry_after_ms: { default: 1000, describe: 'the wait the Retry-After headers ask for' },
    },
    reply: (r, _req, ctx) => {
      const now = performance.now();
      const since = (ctx.state?.get(LOADING_SINCE) as number | undefined) ?? now;
      ctx.state?.set(LOADING_SINCE, since);
      if (now - since >= num(ctx, 'ms', 3000)) return r;
      return errorReply(503, 'Loading model', 'unavailable_error', null, null, retryHeaders(num(ctx, 'retry_after_ms', 1000)));
    },
  },
  {
    name: 'slow',
    description: 'The right answer, after a delay longer than a client waits',
    fails: [],
    frontend: true,
    params: { delay_ms: { default: 60_000, describe: 'how long the answer waits' } },
    reply: (r, _req, ctx) => delayed(r, num(ctx, 'delay_ms', 60_000)),
  },
  {
    // Legal (the document sets no time), and what a UI must wait out; the kit judges it in full only
    // with an idle limit above the pause (--idle-timeout), and leaves what it cut not-tested below it.
    name: 'stream-pause',
    description: 'A stream falls silent after half its events for ms (an engine busy with other work), then finishes normally',
    fails: [],
    frontend: true,
    params: { ms: { default: 45_000, describe: 'how long the stream is silent' } },
    reply: (r, _req, ctx) => pausedMidway(r, num(ctx, 'ms', 45_000)),
  },
  {
    name: 'hang',
    description: 'Accepts the request and never answers',
    fails: [],
    frontend: true,
    reply: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '', delayMs: FOREVER_MS }),
  },
  {
    name: 'drop-after',
    description: 'A stream dropped (connection reset) after N chunks',
    fails: [],
    frontend: true,
    params: { chunks: { default: 3, describe: 'the chunks sent before the drop' } },
    reply: (r, _req, ctx) => cutAfter(r, num(ctx, 'chunks', 3), [{ delayMs: 0, reset: true }]),
  },
  {
    name: 'stream-error',
    description: 'After N chunks, an error event (data: {"error": {...}}) and the end of the stream',
    fails: [],
    frontend: true,
    params: { chunks: { default: 2, describe: 'the chunks sent before the error' } },
    reply: (r, _req, ctx) =>
      cutAfter(r, num(ctx, 'chunks', 2), [
        { delayMs: 0, bytes: eventBytes(JSON.stringify({ error: { message: 'The model stopped with an internal error.', type: 'server_error', param: null, code: 'internal_error' } })) },
      ]),
  },
  {
    name: 'refusal',
    description: 'The model refuses: finish_reason content_filter, the refusal text in refusal, no content',
    fails: [],
    frontend: true,
    reply: (r) => {
      const text = "I'm sorry, but I can't help with that.";
      if (isStream(r))
        return withPayloads(r, (ps) =>
          ps
            .filter((p) => typeof p === 'string' || !p.choices?.[0]?.delta?.content)
            .map((p) => {
              const c = typeof p === 'object' ? p.choices?.[0] : undefined;
              if (c?.delta?.role) c.delta = { role: 'assistant', content: null, refusal: text };
              if (c?.finish_reason) c.finish_reason = 'content_filter';
              return p;
            }),
        );
      return withJson(r, (b) => {
        const c = b.choices?.[0];
        if (!c) return;
        c.message = { role: 'assistant', content: null, refusal: text };
        c.finish_reason = 'content_filter';
      });
    },
  },
];
