// Faults that show only with requests in flight together, each proving a rule of the load suite
// (or a rule of the document that breaks only under load). Every chat answer a load fault serves is
// held `hold_ms` longer, so that requests overlap even on an unpaced mock, and counted in flight
// until its last byte; an answer that begins while more than `limit` are in flight is bent. One
// request at a time never is: `conformance run` sees a correct mock, a load sweep sees the fault
// from the step where more than `limit` are in flight.
import { errorReply } from '../errors.js';
import { eventBytes } from '../sse.js';
import { textOf } from '../bytes.js';
import { isRaw, isStream, type Frame, type MockReply, type StreamReply } from '../types.js';
import type { Fault, FaultContext } from './fault.js';
import { isChat, requestJson, withRequestJson } from './rewrite.js';

/** One answer in flight: its id and prompt_tokens, once its bytes told them. */
interface InFlight {
  id?: string;
  prompt?: number;
}

const STATE = 'load:in-flight';
const STARVED = 'load:starve';
const PARAMS = {
  limit: { default: 1, describe: 'answers in flight beyond which the fault begins' },
  hold_ms: { default: 100, describe: 'how much longer every chat answer takes, so that requests overlap' },
};

const num = (ctx: FaultContext, name: string, fallback: number) => (ctx.params[name] !== undefined ? Number(ctx.params[name]) : fallback);

/** This mock's answers in flight (a fault applied outside a mock gets a set of its own). */
function inFlight(ctx: FaultContext): Set<InFlight> {
  const open = (ctx.state?.get(STATE) as Set<InFlight> | undefined) ?? new Set<InFlight>();
  ctx.state?.set(STATE, open);
  return open;
}

const ID = /^data: \{"id":"([^"]*)"/;
const PROMPT = /"prompt_tokens":(\d+)/;

/** What a piece of an answer tells of it: the id of a chunk (or of the body), the prompt_tokens of its usage. */
function note(me: InFlight, text: string): void {
  if (me.id === undefined) me.id = (ID.exec(text) ?? /^\{"id":"([^"]*)"/.exec(text))?.[1];
  if (me.prompt === undefined && text.includes('"usage":{')) me.prompt = Number(PROMPT.exec(text)?.[1]) || undefined;
}

/** The answer as frames, the first held `hold` ms longer (a JSON body becomes one frame), noting what they tell of it. */
function* held(r: Extract<MockReply, { status: number }>, hold: number, me: InFlight): Generator<Frame> {
  const frames: Iterable<Frame> = isStream(r) ? r.stream : [{ delayMs: r.delayMs ?? 0, bytes: r.body }];
  let first = true;
  for (const f of frames) {
    if ('bytes' in f) note(me, textOf(f.bytes));
    yield first ? { ...f, delayMs: f.delayMs + hold } : f;
    first = false;
  }
}

/** Frames whose data pieces `edit` rewrites as text, as they pass. */
function* edited(frames: Iterable<Frame>, edit: (text: string) => string): Generator<Frame> {
  for (const f of frames) yield 'bytes' in f ? { ...f, bytes: edit(textOf(f.bytes)) } : f;
}

/** Until the answer's last frame is written (or its client goes), it is in flight. */
function* releasing(frames: Iterable<Frame>, release: () => void): Generator<Frame> {
  try {
    yield* frames;
  } finally {
    release();
  }
}

type Bend = (r: StreamReply, me: InFlight, others: InFlight[], ctx: FaultContext, body: Record<string, unknown>) => MockReply;

/** A load fault: every served chat answer held and counted in flight; `bend` rewrites one that begins while more than `limit` others are. */
const underLoad =
  (bend: Bend): NonNullable<Fault['reply']> =>
  (r, req, ctx) => {
    if (!isChat(req) || isRaw(r) || r.status !== 200) return r;
    const open = inFlight(ctx);
    const others = [...open];
    const me: InFlight = {};
    const reply: StreamReply = { status: r.status, headers: r.headers, stream: held(r, num(ctx, 'hold_ms', PARAMS.hold_ms.default), me) };
    const bent = others.length >= num(ctx, 'limit', PARAMS.limit.default) ? bend(reply, me, others, ctx, requestJson(req) ?? {}) : reply;
    // A refusal, or a connection dropped at once, is not in flight.
    if (isRaw(bent) || !isStream(bent)) return bent;
    open.add(me);
    return { ...bent, stream: releasing(bent.stream, () => open.delete(me)) };
  };

/** The data frames of a stream, then `end` after `keep` of them (a JSON answer is left whole). */
function cut(r: StreamReply, keep: (total: number) => number, end: Frame[]): StreamReply {
  if (!r.headers['content-type']?.startsWith('text/event-stream')) return r;
  const frames = [...r.stream];
  const data = frames.filter((f) => 'bytes' in f && textOf(f.bytes).startsWith('data: {'));
  const last = data[Math.max(0, keep(data.length) - 1)];
  return { ...r, stream: [...frames.slice(0, frames.indexOf(last) + 1), ...end] };
}

const RETRY_MS = 50;
const capacity = 'The server is at capacity: too many requests in flight.';

export const LOAD_FAULTS: Fault[] = [
  {
    name: 'load-limit-500',
    description: 'Past `limit` answers in flight, a request is answered 500 instead of being refused',
    fails: ['load.overload-refused'],
    load: true,
    params: PARAMS,
    reply: underLoad(() => errorReply(500, capacity, 'server_error', 'overloaded')),
  },
  {
    name: 'load-limit-reset',
    description: 'Past `limit` answers in flight, the connection of a request is closed with no answer',
    fails: ['load.overload-refused'],
    load: true,
    params: PARAMS,
    reply: underLoad(() => ({ raw: new Uint8Array(0) })),
  },
  {
    name: 'load-limit-429',
    description: 'Past `limit` answers in flight, a request is refused with 429 and Retry-After (legal: a client waits and sends it again)',
    fails: [],
    load: true,
    params: { ...PARAMS, retry_after_ms: { default: RETRY_MS, describe: 'the wait the Retry-After headers ask for' } },
    reply: underLoad((_r, _me, _others, ctx) => {
      const ms = num(ctx, 'retry_after_ms', RETRY_MS);
      return errorReply(429, capacity, 'rate_limit_error', 'rate_limit_exceeded', null, { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))), 'retry-after-ms': String(ms) });
    }),
  },
  {
    name: 'load-limit-429-bare',
    description: 'Past `limit` answers in flight, a request is refused with 429 and no Retry-After',
    fails: ['load.retry-after'],
    load: true,
    params: PARAMS,
    reply: underLoad(() => errorReply(429, capacity, 'rate_limit_error', 'rate_limit_exceeded')),
  },
  {
    name: 'load-error-event',
    description: 'Past `limit` answers in flight, a stream ends halfway with an error event',
    fails: ['load.overload-refused'],
    load: true,
    params: PARAMS,
    reply: underLoad((r) =>
      cut(r, (n) => n >> 1, [{ delayMs: 0, bytes: eventBytes(JSON.stringify({ error: { message: 'The engine ran out of KV cache.', type: 'server_error', param: null, code: 'internal_error' } })) }]),
    ),
  },
  {
    name: 'load-stream-cut',
    description: 'Past `limit` answers in flight, a stream is cut halfway (the connection reset)',
    fails: ['stream.complete'],
    breaks: ['stream:complete'],
    load: true,
    params: PARAMS,
    reply: underLoad((r) => cut(r, (n) => n >> 1, [{ delayMs: 0, reset: true }])),
  },
  {
    name: 'load-ids-reused',
    description: 'Past `limit` answers in flight, an answer carries the id of another answer in flight',
    fails: ['load.ids-unique'],
    load: true,
    params: PARAMS,
    reply: underLoad((r, me, others) => {
      let other: string | undefined;
      return {
        ...r,
        stream: edited(r.stream, (text) => {
          other ??= others.find((o) => o.id !== undefined && o.id !== me.id)?.id;
          return other && me.id ? text.split(`"id":"${me.id}"`).join(`"id":"${other}"`) : text;
        }),
      };
    }),
  },
  {
    name: 'load-usage-swapped',
    description: "Past `limit` answers in flight, an answer's usage counts the prompt of another request in flight",
    fails: ['load.usage-independent'],
    load: true,
    params: PARAMS,
    reply: underLoad((r, _me, others) => ({
      ...r,
      stream: edited(r.stream, (text) => {
        const usage = /"usage":\{"prompt_tokens":(\d+),"completion_tokens":(\d+),"total_tokens":\d+/.exec(text);
        if (!usage) return text;
        const own = Number(usage[1]);
        // Another's count where one differs; else the padding of the batch (one token a request).
        const theirs = others.map((o) => o.prompt).find((p) => p !== undefined && p !== own) ?? own + others.length;
        return text.replace(usage[0], `"usage":{"prompt_tokens":${theirs},"completion_tokens":${usage[2]},"total_tokens":${theirs + Number(usage[2])}`);
      }),
    })),
  },
  {
    name: 'load-seed-varies',
    description: 'Past `limit` answers in flight, a seeded request (seed, no stop) answers other text than alone',
    fails: ['load.seed-reproducible'],
    load: true,
    params: PARAMS,
    reply: underLoad((r, _me, _others, _ctx, body) => {
      if (body.seed === undefined || body.stop !== undefined) return r;
      let done = false;
      return {
        ...r,
        stream: edited(r.stream, (text) => {
          if (done) return text;
          // The first text of the answer gains a word: a batch-dependent kernel's other sampling.
          const at = /"content":"(?=[^"])/.exec(text);
          if (!at) return text;
          done = true;
          return `${text.slice(0, at.index + at[0].length)}So, ${text.slice(at.index + at[0].length)}`;
        }),
      };
    }),
  },
  {
    name: 'load-starve',
    description: 'Past `limit` answers in flight, one request in `every` is left in the queue for `delay_ms` before its first byte, while the others are served',
    fails: ['load.no-starvation'],
    load: true,
    params: {
      ...PARAMS,
      delay_ms: { default: 60_000, describe: 'how long a request left in the queue waits' },
      every: { default: 8, describe: 'one request past the limit in this many is left in the queue (the first of them too)' },
    },
    reply: underLoad((r, _me, _others, ctx) => {
      // Counted per mock: the first request past the limit is left behind, then one in `every`.
      const seen = (ctx.state?.get(STARVED) as number | undefined) ?? 0;
      ctx.state?.set(STARVED, seen + 1);
      if (seen % Math.max(1, num(ctx, 'every', 8))) return r;
      const wait = num(ctx, 'delay_ms', 60_000);
      let first = true;
      return {
        ...r,
        stream: (function* () {
          for (const f of r.stream) {
            yield first ? { ...f, delayMs: f.delayMs + wait } : f;
            first = false;
          }
        })(),
      };
    }),
  },
  {
    // A rule is judged only on an answer that reached what it is about: the stop rules on none of
    // these, and chat.length-only-at-cap, which holds every answer, on each.
    name: 'load-stop-cut-short',
    description:
      'Past `limit` answers in flight, a request with stop sequences is cut `cap` tokens in, long before its sequence, with finish_reason "length", as a batcher that hands it the cap of another request in its batch',
    fails: ['chat.length-only-at-cap'],
    load: true,
    params: { ...PARAMS, cap: { default: 3, describe: 'the tokens a request with stop sequences is cut at' } },
    // Decided as the request comes, when the answers in flight are those its reply would count.
    request: (req, ctx) =>
      isChat(req) && requestJson(req)?.stop !== undefined && inFlight(ctx).size >= num(ctx, 'limit', PARAMS.limit.default)
        ? withRequestJson(req, (b) => void (b.max_tokens = num(ctx, 'cap', 3)))
        : req,
    reply: underLoad((r) => r),
  },
];
