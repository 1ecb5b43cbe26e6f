// Faults proving the checks of the stream suite (4.1 rule 3, 6): the framing of server-sent events,
// the chunks, the end of the stream.
//
// Faults of the framing that would leave no readable chunk, or no finish, bend only the basic
// stream: a streamed completion of one user message without tools, stop or response_format (the
// stream suite's request). Applied to every stream they would also blind the checks of other suites
// that read a stream for another rule (tools, stop). The others, the chunks' shape among them, bend
// every stream, whatever was asked: a frontend that asks for one gets it on its own request.
import { isStream, type Frame, type MockReply, type MockRequest } from '../types.js';
import type { Fault } from './fault.js';
import { isBasic } from './chat.js';
import { DONE, isChat, onChunks, requestJson, withPayloads, withRequestJson, withStreamText } from './rewrite.js';
import { errorReply } from '../errors.js';
import { bytesOf, concatBytes } from '../bytes.js';

/** The kit's ordinary request, streamed. */
const isPlainStream = (req: MockRequest) => isBasic(req) && requestJson(req)?.stream === true;

/** The basic request streamed as the kit asks every stream (with include_usage). */
const isBasicStream = (req: MockRequest) => isPlainStream(req) && (requestJson(req)?.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;

/** Bends the plain streamed completion only (see above); every other reply is left alone. */
const onPlain =
  (edit: (r: MockReply) => MockReply): Fault['reply'] =>
  (r, req) =>
    isStream(r) && isPlainStream(req) ? edit(r) : r;

const isFinish = (p: any) => typeof p === 'object' && p?.choices?.[0]?.finish_reason;

/** A second finish_reason: the first chunk after the opening one that has none yet says "stop". */
const earlyFinish = (ps: any[]) => {
  const early = ps.findIndex((p, i) => i > 0 && p?.choices?.[0] && !p.choices[0].finish_reason);
  if (early >= 0) ps[early].choices[0].finish_reason = 'stop';
  return ps;
};

export const STREAM_FAULTS: Fault[] = [
  {
    name: 'stream-basic-refused',
    description: 'The basic request streamed is refused (400): a one-message conversation is served only as one JSON body',
    fails: ['chat.role.user'],
    breaks: ['stream:served'],
    reply: (r, req) => (isPlainStream(req) ? errorReply(400, 'streaming is not supported for this conversation', 'invalid_request_error') : r),
  },
  {
    name: 'stream-basic-empty',
    description: 'The basic request streamed is answered 200 text/event-stream with an empty body: no event at all',
    fails: ['stream.events'],
    breaks: ['stream:events'],
    reply: (r, req) => (isStream(r) && isBasicStream(req) ? { ...r, stream: [] } : r),
  },
  {
    // Seen on a real server (docs/compatibility.md, Prism): one defect, owned by the stream's own
    // checks; the checks whose requests happened to be streamed are blocked by them, not failed.
    name: 'stream-answered-as-json',
    description:
      'Every request with stream: true is answered with the whole completion as one JSON body (application/json), as a mock generated from an API description that holds one answer per operation does',
    fails: ['stream.content-type', 'stream.events'],
    request: (req) =>
      isChat(req) && requestJson(req)?.stream === true
        ? withRequestJson(req, (b) => {
            delete b.stream;
            delete b.stream_options;
          })
        : req,
  },
  {
    name: 'stream-chunk-model-missing',
    description: 'Chunks of every stream carry no model',
    fails: ['stream.chunk-schema'],
    breaks: ['stream:envelope'],
    reply: onChunks((c) => void delete c.model),
  },
  {
    name: 'stream-delta-content-parts',
    description: 'Every stream\'s deltas carry content as a list of parts ([{type: "text", text}]), not as text (a vendor whose reasoning models answer in parts)',
    fails: ['stream.chunk-schema'],
    breaks: ['stream:content'],
    reply: onChunks((c) => {
      for (const choice of c.choices ?? []) if (typeof choice?.delta?.content === 'string') choice.delta.content = [{ type: 'text', text: choice.delta.content }];
    }),
  },
  {
    name: 'stream-chunk-index-string',
    description: 'Choices of every stream give their index as a string ("0")',
    fails: ['stream.chunk-schema'],
    breaks: ['stream:index'],
    reply: onChunks((c) => {
      for (const choice of c.choices ?? []) if (choice && typeof choice === 'object') choice.index = String(choice.index);
    }),
  },
  {
    name: 'stream-json-content-type',
    description: 'Streams are served with Content-Type application/json instead of text/event-stream',
    fails: ['stream.content-type'],
    reply: (r) => (isStream(r) ? { ...r, headers: { ...r.headers, 'content-type': 'application/json' } } : r),
  },
  {
    name: 'stream-no-blank-lines',
    description: 'Events of a plain stream are not separated by a blank line, so the whole stream reads as one event of many data: lines',
    fails: ['stream.chunk-json'],
    reply: onPlain((r) => withStreamText(r, (t) => t.replace(/\n\n(?=data: )/g, '\n'))),
  },
  {
    name: 'stream-unterminated-last-event',
    description: 'The last event (data: [DONE]) is never ended by a blank line, so a client drops it',
    fails: ['stream.events', 'stream.done-marker'],
    reply: (r) => withStreamText(r, (t) => t.replace(/\n\n$/, '')),
  },
  {
    name: 'stream-invalid-utf8',
    description: 'A byte that is not UTF-8 inside the first content string of a plain stream',
    fails: ['stream.events'],
    reply: onPlain((r) =>
      withStreamText(r, (t) => {
        const at = t.indexOf('"content":"') + '"content":"'.length;
        return [{ delayMs: 0, bytes: concatBytes(bytesOf(t.slice(0, at)), Uint8Array.of(0xff), bytesOf(t.slice(at))) }];
      }),
    ),
  },
  {
    name: 'stream-reset',
    description: 'A plain stream is cut by a connection reset after its first three events, with no finishing chunk and no [DONE]',
    fails: ['stream.complete'],
    breaks: ['stream:complete'],
    // The pause lets the client read what was sent before the reset discards its buffers.
    reply: onPlain((r) => (isStream(r) ? { ...r, stream: [...[...r.stream].slice(0, 3), { delayMs: 30, reset: true } satisfies Frame] } : r)),
  },
  {
    name: 'stream-json-split-over-events',
    description: 'One JSON chunk of a plain stream is split over two events',
    fails: ['stream.chunk-json'],
    breaks: ['stream:chunk-json'],
    reply: onPlain((r) =>
      withPayloads(r, (ps) => {
        const text = JSON.stringify(ps[2]);
        const cut = text.indexOf(',"') + 1;
        return [...ps.slice(0, 2), text.slice(0, cut), text.slice(cut), ...ps.slice(3)];
      }),
    ),
  },
  {
    name: 'stream-chunk-object-wrong',
    description: 'Chunks of every stream say object: "chat.completion" instead of "chat.completion.chunk"',
    fails: ['stream.chunk-schema'],
    breaks: ['stream:object'],
    reply: onChunks((c) => void (c.object = 'chat.completion')),
  },
  {
    name: 'stream-ids-differ',
    description: 'Chunks after the second carry another id',
    fails: ['stream.single-id'],
    reply: (r) => withPayloads(r, (ps) => ps.map((p, i) => (i >= 2 && typeof p === 'object' ? { ...p, id: 'chatcmpl-other' } : p))),
  },
  {
    name: 'stream-first-delta-without-role',
    description: 'The first delta of a stream has no role',
    fails: ['stream.first-delta-role'],
    breaks: ['stream:role'],
    reply: (r) =>
      withPayloads(r, (ps) => {
        delete ps[0]?.choices?.[0]?.delta?.role;
        return ps;
      }),
  },
  {
    name: 'stream-two-finish-reasons',
    description: 'In every stream, an early chunk already says finish_reason "stop", before the finishing chunk',
    fails: ['stream.one-finish-reason'],
    reply: (r, req) => (isChat(req) ? withPayloads(r, earlyFinish) : r),
  },
  {
    name: 'stream-finish-reason-outside-enum',
    description: 'The finishing chunk of every stream says finish_reason "done"',
    fails: ['chat.finish-reason'],
    breaks: ['stream:finish_reason'],
    reply: onChunks((c) => {
      for (const choice of c.choices ?? []) if (choice?.finish_reason) choice.finish_reason = 'done';
    }),
  },
  {
    name: 'stream-no-done',
    description: 'Streams end without data: [DONE]',
    fails: ['stream.done-marker'],
    reply: (r) => withPayloads(r, (ps) => ps.filter((p) => p !== DONE)),
  },
  {
    name: 'stream-event-after-done',
    description: 'A content chunk of a plain stream is sent again after data: [DONE]',
    fails: ['stream.done-marker'],
    reply: onPlain((r) => withPayloads(r, (ps) => [...ps, ps[1]])),
  },
  {
    name: 'stream-bytes-after-done',
    description: 'Stray text follows data: [DONE] (no data lost: it is no event)',
    fails: ['stream.done-marker'],
    reply: (r) => withStreamText(r, (t) => `${t}oops`),
  },
];

// --- The stream rules on every stream: each broken only on the streams of tool calls, or only on
// those of structured output, so a rule judged on the basic stream alone would miss it. ------------

type Kind = { name: string; label: string; is: (body: Record<string, unknown>) => boolean };
const KINDS: Kind[] = [
  { name: 'tool-calls', label: 'streams that offer tools', is: (b) => Array.isArray(b.tools) && b.tools.length > 0 },
  { name: 'structured', label: 'streams asked for structured output (response_format)', is: (b) => !!b.response_format },
];

/** One rule's deviation: what it does to a stream's payloads (or its text), and the check it breaks. */
const ON_EVERY: { name: string; what: string; fails: string; payloads?: (ps: any[]) => unknown[]; text?: (t: string) => string | Frame[] }[] = [
  {
    name: 'invalid-utf8',
    what: 'carry a byte that is not UTF-8 in the first chunk',
    fails: 'stream.events',
    text: (t) => {
      const at = t.indexOf('"model":"') + '"model":"'.length;
      return [{ delayMs: 0, bytes: concatBytes(bytesOf(t.slice(0, at)), Uint8Array.of(0xff), bytesOf(t.slice(at))) }];
    },
  },
  { name: 'first-delta-without-role', what: 'open with a delta that has no role', fails: 'stream.first-delta-role', payloads: (ps) => (delete ps[0]?.choices?.[0]?.delta?.role, ps) },
  {
    name: 'two-finish-reasons',
    what: 'give an early chunk a finish_reason too',
    fails: 'stream.one-finish-reason',
    payloads: earlyFinish,
  },
  {
    name: 'ids-differ',
    what: 'change their id after the second chunk',
    fails: 'stream.single-id',
    payloads: (ps) => ps.map((p, i) => (i >= 2 && typeof p === 'object' ? { ...p, id: 'chatcmpl-other' } : p)),
  },
  {
    name: 'usage-before-finish',
    what: 'send the usage chunk before the chunk with the finish_reason',
    fails: 'usage.stream-position',
    payloads: (ps) => {
      const usage = ps.find((p) => typeof p === 'object' && p?.usage);
      if (!usage) return ps;
      const rest = ps.filter((p) => p !== usage);
      const at = rest.findIndex(isFinish);
      return at < 0 ? ps : [...rest.slice(0, at), usage, ...rest.slice(at)];
    },
  },
  { name: 'no-done', what: 'end without data: [DONE]', fails: 'stream.done-marker', payloads: (ps) => ps.filter((p) => p !== DONE) },
];

export const EVERY_STREAM_FAULTS: Fault[] = KINDS.flatMap((kind) =>
  ON_EVERY.map(
    (d): Fault => ({
      name: `stream-${d.name}-${kind.name}`,
      description: `Only ${kind.label} ${d.what}`,
      fails: [d.fails],
      reply: (r, req) => {
        const body = requestJson(req);
        if (!isStream(r) || !body || !kind.is(body)) return r;
        return d.payloads ? withPayloads(r, d.payloads) : withStreamText(r, d.text!);
      },
    }),
  ),
);
