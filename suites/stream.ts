// Sections 4.1 (rule 3) and 6: with stream true, the response is a stream of server-sent events.
// The document shows neither the chunks nor the end marker; those checks hold the server to the
// OpenAI-compatible convention.
import { validator } from '../schemas/index.js';
import { cutByKit, DONE_MARKER, fit, inSuite, readStream, type ApiCheck, type CheckDef, type StreamRead, type ApiPath } from './api.js';
import { ask, serve } from './ask.js';
import { basicBody } from './chat.js';
import { MODELS } from './paths.js';
import { answersOfRun, BASIC_OWNERS, blockedOn, cutVerdict, readAnswer, soundChunk, unservedVerdict, wrongOnEach, type Answer, type Part, type RequestOwners } from './answer.js';
import { fail, notTested, pass, unjudgedBy, type Verdict } from '../engine/check.js';
import { excerpt, type Exchange } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';
import { parseSse, type SseFinding, type SseFindingKind } from '../engine/sse.js';
import type { OnEach } from './each.js';

/** The basic request streamed, as every streamed path of the kit asks it (with include_usage): the
 * chat suite's stream paths read the same answer. */
export const streamed = (ctx: CheckContext, model: string) => ask(ctx, { stream: true, model }, basicBody(model), 'basic chat completion');

/** The basic request streamed without include_usage: the one stream where usage must not come. */
export const plainStream = async (ctx: CheckContext, model: string) => serve(ctx, await fit(ctx, { ...basicBody(model), stream: true }), 'basic chat completion, streamed without include_usage');

/** Each model under test: the framing rules hold for every model's stream. */
export const STREAM_PATHS = { model: MODELS };

export interface EveryStream {
  /** Which of the run's other streams the rule holds for (all, by default; the usage rules: those
   * that asked include_usage). */
  asked?: (body: Record<string, unknown>) => boolean;
}

/** A rule applied to what streamed back, once the parts it reads are sound (these checks read the
 * stream itself, so they name each part they need, the stream's own included). The basic stream is
 * chat.role.user's to be served; a check's own stream (`owners` null) fails when it is not. With
 * `every`, the rule is also held on every other stream the run received for the model (tool calls,
 * stop sequences, structured output): it runs last, and a stream whose parts it needs are broken is
 * left to those parts' owners. */
export const onStream = (
  send: (ctx: CheckContext, model: string) => Promise<Exchange>,
  reads: Part[],
  rule: (s: StreamRead, ex: Exchange, a: Answer) => Verdict,
  owners: RequestOwners | null = BASIC_OWNERS,
  every?: EveryStream,
): Pick<CheckDef, 'reads' | 'run' | 'last' | 'onEach'> => ({
  reads,
  ...(every ? { last: true, onEach: eachStream(reads, rule, every.asked) } : {}),
  async run(ctx: CheckContext, path: ApiPath): Promise<Verdict> {
    const ex = await send(ctx, path.model!);
    const a = readAnswer(ex, true);
    if (a.unserved !== undefined) return unservedVerdict(a);
    if (owners === null && a.cut && (a.cut.parts.includes('served') || (reads.includes('events') && a.cut.parts.includes('events')))) return cutVerdict(a);
    const own = owners === null ? (a.broken.served ?? (reads.includes('events') ? a.broken.events : undefined)) : undefined;
    if (own !== undefined) return fail(own);
    const verdict = blockedOn(a, reads, owners ?? {}) ?? rule(a.read ?? readStream(ex), ex, a);
    if (!every) return verdict;
    const others = (await answersOfRun(ctx, path.model!, true, every.asked)).filter((other) => other !== ex);
    const wrong = wrongOnEach(
      ctx,
      others,
      (other) => {
        const b = readAnswer(other, true);
        // Another request's being served as a stream is its owner's to report (stop.string, tools.finish-reason...),
        // and so are the broken parts this rule reads: nothing is judged on them here.
        if (blockedOn(b, ['served', 'events', ...reads], { servedBy: 'its owner', readableBy: 'its owner' })) return undefined;
        const v = rule(b.read ?? readStream(other), other, b);
        return v.outcome === 'fail' ? v.message : undefined;
      },
      'streams',
      verdict.outcome !== 'fail',
    );
    if (!wrong.length) return verdict;
    return fail([...(verdict.outcome === 'fail' ? [`the basic stream: ${verdict.message}`] : []), ...wrong].join('; '), verdict.notes);
  },
});

/** The rule of every stream, under load: on each streamed answer `asked` accepts, once the parts it reads are sound. */
const eachStream = (reads: Part[], rule: (s: StreamRead, ex: Exchange, a: Answer) => Verdict, asked?: EveryStream['asked']): OnEach => ({
  way: 'stream',
  ...(asked ? { asked } : {}),
  judge: (a) => blockedOn(a, reads, BASIC_OWNERS) ?? rule(a.read ?? readStream(a.ex), a.ex, a),
});

/** A rule of the basic stream held on every stream of the run too (those `asked` accepts). */
export const onEveryStream = (send: Parameters<typeof onStream>[0], reads: Part[], rule: Parameters<typeof onStream>[2], asked?: EveryStream['asked']) =>
  onStream(send, reads, rule, BASIC_OWNERS, { asked });

const show = (v: unknown) => excerpt(JSON.stringify(v) ?? String(v), 120);
const upTo = (items: string[], n = 5) => (items.length > n ? [...items.slice(0, n), `… ${items.length - n} more`] : items).join('; ');

const SSE_TYPE = 'text/event-stream';

export const contentType: CheckDef = {
  id: 'stream.content-type',
  title: `When stream is true, the response's Content-Type is ${SSE_TYPE}`,
  section: '4.1, 6.1',
  level: 'must',
  audit:
    'Reads the Content-Type of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output): a server that streams server-sent events as application/json fails, on the stream it does it; shown by fault stream-json-content-type.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served'], (_s, ex) => {
    const header = ex.headers['content-type'];
    if (header === undefined) return fail(`the streamed response has no Content-Type; a server-sent event stream is ${SSE_TYPE}`);
    // Media types compare case-insensitively; parameters (charset) do not change the type.
    // The type alone, or with parameters (charset): no split, no copy, the same verdict.
    if (header.startsWith(SSE_TYPE) && (header.length === SSE_TYPE.length || header.charCodeAt(SSE_TYPE.length) === 0x3b)) return pass();
    const type = header.split(';')[0].trim().toLowerCase();
    return type === SSE_TYPE ? pass() : fail(`the streamed response's Content-Type is "${header}", not ${SSE_TYPE}`);
  }),
};

/** Legal framing worth a reader's attention, as the notes say it. */
const LEGAL_FORMS: Partial<Record<SseFindingKind, string>> = {
  bom: 'a byte order mark at the start (stripped by clients)',
  comment: 'comment lines',
  'data-no-space': 'data: lines without a space after the colon',
  'multi-line-data': 'events with several data: lines',
  'event-field': 'event: fields',
  'id-field': 'id: fields',
  'retry-field': 'retry: fields',
  'unknown-field': 'fields of unknown name (ignored by clients)',
  'event-without-data': 'blocks with fields but no data: (dispatch nothing)',
  'cr-line-ending': 'lines ending in CR',
  'crlf-line-ending': 'lines ending in CRLF',
  'mixed-line-endings': 'line endings mixed within the stream',
  'unterminated-event': 'bytes after the last event that carry no data (discarded by clients)',
};

/** The parser reports these once per stream, at their first occurrence: a count would mislead. */
const ONCE_PER_STREAM = new Set<SseFindingKind>(['bom', 'cr-line-ending', 'crlf-line-ending', 'mixed-line-endings', 'unterminated-event']);

function framingNotes(findings: SseFinding[]): string[] {
  const byKind = new Map<SseFindingKind, SseFinding[]>();
  for (const f of findings) if (LEGAL_FORMS[f.kind]) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
  return [...byKind].map(([kind, all]) => {
    const where = `first at byte ${all[0].offset}: ${excerpt(all[0].excerpt, 60)}`;
    return ONCE_PER_STREAM.has(kind) ? `${LEGAL_FORMS[kind]} (legal), ${where}` : `${LEGAL_FORMS[kind]}: ${all.length} (legal), ${where}`;
  });
}

/** Whether a browser would drop data at the end: the tail, had it been terminated, would dispatch. */
const tailLosesData = (tail: string) => tail !== '' && parseSse(`${tail}\n\n`).events.length > 0;

export const events: CheckDef = {
  id: 'stream.events',
  title: 'The streamed response is a server-sent event stream that a client reads without losing data',
  section: '6.1',
  level: 'must',
  audit:
    'Parses the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output) by the WHATWG rules, as a client does: a stream that dispatches no event, ends inside an event, or carries bytes that are not UTF-8 loses data in a client; shown by faults stream-basic-empty, stream-unterminated-last-event, stream-invalid-utf8-tool-calls and stream-invalid-utf8-structured.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served'], ({ sse }, ex) => {
    // Cut by the kit, the stream is judged on the events that came: its tail is where the kit stopped
    // reading, not where the stream ends, and one cut before its first event is not known to have none.
    const cut = cutByKit(ex);
    if (cut && !sse.events.length) return unjudgedBy('cut', `${ex.label}: ${cut}`);
    const wrong: string[] = [];
    if (!sse.events.length) wrong.push('no server-sent event was dispatched (an event is data: lines ended by a blank line)');
    if (!cut && tailLosesData(sse.tail)) wrong.push(`the stream ends inside an event, without the blank line that dispatches it, so a client drops its data: ${excerpt(sse.tail, 120)}`);
    const bad = sse.findings.find((f) => f.kind === 'invalid-utf8');
    if (bad) wrong.push(`the stream is not valid UTF-8 (bytes ${bad.excerpt} at offset ${bad.offset}); a client replaces them`);
    const notes = framingNotes(sse.findings.filter((f) => f.kind !== 'unterminated-event' || !tailLosesData(sse.tail)));
    return wrong.length ? fail(wrong.join('; '), notes.length ? notes : undefined) : pass(notes);
  }),
};

export const complete: CheckDef = {
  id: 'stream.complete',
  title: 'The stream reaches its end: the server does not cut the connection mid-stream',
  section: '6.1',
  level: 'must',
  audit:
    "Reads whether the basic stream, and every other stream of the run, reaches its end. A stream the kit cut at its own limit (the idle limit, --timeout, --max-body) is not-tested, naming the option: a slow or long stream is no cut of the server's. A server that resets the connection mid-stream fails; shown by fault stream-reset.",
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served'], ({ sse }, ex) => {
    if (ex.complete && !ex.error) return pass();
    const cut = cutByKit(ex);
    if (cut) return unjudgedBy('cut', `${ex.label}: ${cut} (${sse.events.length} events came)`);
    const seen = ex.body.length ? `; the last bytes seen: ${ex.body.length > 160 ? '…' : ''}${excerpt(ex.body.subarray(-160).toString('utf8'), 160)}` : '';
    return fail(
      `the stream was cut before its end (${ex.error?.kind ?? 'incomplete'}: ${ex.error?.message ?? 'the body did not end normally'}) after ${ex.bytesRead} bytes and ${sse.events.length} events${seen}`,
    );
  }),
};

export const chunkJson: CheckDef = {
  id: 'stream.chunk-json',
  title: `Every event's data, but the terminator ${DONE_MARKER}, is one JSON value`,
  section: '6',
  level: 'should',
  audit:
    "Parses each event's data of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output): events not separated by a blank line, or a chunk split over two events, give data that is not one JSON value; shown by faults stream-no-blank-lines and stream-json-split-over-events.",
  convention: 'The document does not show the chunks (4.1, 6); the convention is one JSON chunk per event.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served', 'events'], ({ payloads }) => {
    const wrong: string[] = [];
    for (const p of payloads) if (p.error !== undefined) wrong.push(`event ${p.at} is not JSON (${p.error}): ${excerpt(p.data, 120)}`);
    return wrong.length ? fail(`${wrong.length} of ${payloads.length} events: ${upTo(wrong, 3)}`) : pass();
  }),
};

const validChunk = validator('chunk');

/** A chunk without the fields whose rules other checks own (usage, finish_reason, the delta's role
 * and tool calls), so that the chunk's schema judges only the parts stream.chunk-schema owns. */
function ownFields(chunk: unknown): unknown {
  if (!chunk || typeof chunk !== 'object' || Array.isArray(chunk)) return chunk;
  const { usage: _usage, ...rest } = chunk as Record<string, unknown>;
  if (!Array.isArray(rest.choices)) return rest;
  return {
    ...rest,
    choices: rest.choices.map((c) => {
      if (!c || typeof c !== 'object' || Array.isArray(c)) return c;
      const { finish_reason: _f, ...choice } = c as Record<string, unknown>;
      if (!choice.delta || typeof choice.delta !== 'object' || Array.isArray(choice.delta)) return choice;
      const { role: _r, tool_calls: _t, ...delta } = choice.delta as Record<string, unknown>;
      return { ...choice, delta };
    }),
  };
}

export const chunkSchema: CheckDef = {
  id: 'stream.chunk-schema',
  title: 'Every chunk is a chat.completion.chunk: id, object, created, model, and choices with index and delta',
  section: '6',
  level: 'should',
  audit:
    "Validates each chunk of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output) against the chunk schema: chunks without model, with the completion's object, an index as a string or content as a list of parts fail; shown by faults stream-chunk-model-missing, stream-chunk-object-wrong, stream-chunk-index-string and stream-delta-content-parts.",
  convention: 'The document does not show the chunks (4.1, 6); the convention is the OpenAI chat.completion.chunk.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served', 'events'], ({ payloads, chunks }) => {
    const wrong: string[] = [];
    // The chunks are the payloads that are JSON objects, in order.
    for (const c of chunks) {
      // A chunk sound as a whole is sound without the fields other checks own.
      if (soundChunk(c)) continue;
      const v = validChunk(ownFields(c.chunk));
      if (!v.ok) wrong.push(`event ${c.at}: ${v.errors.join(', ')}`);
    }
    if (wrong.length) return fail(`chunks that are not a chat.completion.chunk: ${upTo(wrong, 3)}`);
    if (payloads.some((p) => p.json !== undefined)) return pass();
    // Blocked by stream.chunk-json only where it fails: an event that is not JSON; a stream of no
    // chunk ([DONE] alone) has nothing to validate, and no one to blame for it here.
    return payloads.some((p) => p.error !== undefined) ? notTested('no event carried a JSON chunk: see stream.chunk-json', 'stream.chunk-json') : notTested('the stream carries no chunk to validate');
  }),
};

export const singleId: CheckDef = {
  id: 'stream.single-id',
  title: 'All chunks of one stream carry the same id',
  section: '6',
  level: 'should',
  audit:
    'Reads the id of every chunk of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output): a server whose chunks change id mid-stream fails, whichever stream it does it on; shown by faults stream-ids-differ, stream-ids-differ-tool-calls and stream-ids-differ-structured.',
  convention: 'Each chunk repeats the id of the completion it belongs to.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served', 'events', 'chunk-json', 'envelope'], ({ chunks }) => {
    // One id in every chunk, the common case, asks no map (JSON has no NaN, where === and the map's equality part).
    let same = chunks.length > 0;
    for (let i = 1; same && i < chunks.length; i++) same = chunks[i].chunk.id === chunks[0].chunk.id;
    if (same) return pass();
    const ids = new Map<unknown, number>();
    for (const { at, chunk } of chunks) if (!ids.has(chunk.id)) ids.set(chunk.id, at);
    // A stream of no chunk ([DONE] alone) has no id to hold to another.
    if (!ids.size) return notTested('the stream carries no chunk: no id to compare');
    if (ids.size === 1) return pass();
    return fail(`the chunks carry ${ids.size} different ids: ${upTo([...ids].map(([id, at]) => `${show(id)} from event ${at}`))}`);
  }),
};

export const firstDeltaRole: CheckDef = {
  id: 'stream.first-delta-role',
  title: 'The first delta of each choice carries role "assistant"',
  section: '6',
  level: 'should',
  audit:
    'Reads the first delta of each choice of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output): a server that opens a stream without role "assistant" fails, whichever stream it does it on; shown by faults stream-first-delta-without-role, stream-first-delta-without-role-tool-calls and stream-first-delta-without-role-structured.',
  convention: 'The first chunk of a choice names its role, as the message of 2.2 does; later deltas omit it.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, ['served', 'events', 'chunk-json'], ({ chunks }) => {
    const first = new Map<unknown, { at: number; delta: unknown }>();
    for (const { at, chunk } of chunks) {
      // choicesOf's objects, read in place: no list a chunk.
      if (!Array.isArray(chunk.choices)) continue;
      for (const c of chunk.choices) if (c && typeof c === 'object' && !Array.isArray(c) && !first.has(c.index)) first.set(c.index, { at, delta: c.delta });
    }
    if (!first.size) return notTested('no chunk carries a choice');
    const wrong = [...first]
      .filter(([, { delta }]) => (delta as { role?: unknown } | undefined)?.role !== 'assistant')
      .map(([index, { at, delta }]) => `choice ${show(index)} starts at event ${at} with delta ${show(delta)}`);
    return wrong.length ? fail(`the first delta of a choice lacks role "assistant": ${upTo(wrong)}`) : pass();
  }),
};

export const oneFinishReason: CheckDef = {
  id: 'stream.one-finish-reason',
  title: 'Each choice ends with exactly one finish_reason',
  section: '2.3, 6',
  level: 'should',
  audit:
    'Counts the finish_reasons of each choice of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output): a server that gives an early chunk a finish_reason too, or none at all, fails; shown by faults stream-two-finish-reasons, stream-two-finish-reasons-tool-calls and stream-two-finish-reasons-structured.',
  convention: 'Every chunk of a choice has finish_reason null but the one that ends it (2.3 gives the values).',
  paths: STREAM_PATHS,
  ...onEveryStream(
    streamed,
    // The values are chat.finish-reason's to judge; here, how many each choice gets.
    ['served', 'events', 'complete', 'chunk-json', 'finish_reason'],
    ({ chunks }) => {
      // Choice 0 always exists: a stream whose choices never appear never finishes either.
      const reasons = new Map<unknown, { at: number; reason: unknown }[]>([[0, []]]);
      for (const { at, chunk } of chunks) {
        if (!Array.isArray(chunk.choices)) continue;
        // choicesOf's objects read in place, `place` their position among them: no list a chunk.
        let place = 0;
        for (const c of chunk.choices) {
          if (!c || typeof c !== 'object' || Array.isArray(c)) continue;
          // A malformed index is stream.chunk-schema's to report; the choice is then taken by its place.
          const index = Number.isInteger(c.index) ? c.index : place;
          place++;
          let list = reasons.get(index);
          if (!list) reasons.set(index, (list = []));
          if (c.finish_reason !== null && c.finish_reason !== undefined) list.push({ at, reason: c.finish_reason });
        }
      }
      const wrong = [...reasons].flatMap(([index, list]) => {
        if (!list.length) return [`choice ${show(index)} never gets a finish_reason`];
        return list.length > 1 ? [`choice ${show(index)} gets ${list.length} finish_reasons: ${list.map((r) => `${show(r.reason)} at event ${r.at}`).join(', ')}`] : [];
      });
      return wrong.length ? fail(upTo(wrong)) : pass();
    },
  ),
};

export const doneMarker: CheckDef = {
  id: 'stream.done-marker',
  title: `The stream ends with data: ${DONE_MARKER} and nothing after it`,
  section: '6',
  level: 'should',
  audit:
    'Reads the end of the basic stream and every other stream the run received for the model (tool calls, stop sequences, structured output): a stream that ends without data: [DONE], or goes on after it, fails; shown by faults stream-no-done, stream-event-after-done, stream-no-done-tool-calls and stream-no-done-structured.',
  convention: `The document does not show the end-of-stream marker (6); the convention is a last event data: ${DONE_MARKER}.`,
  paths: STREAM_PATHS,
  // A cut stream has no end to judge (stream.complete reports the cut), nor has one whose events are no chunks.
  ...onEveryStream(streamed, ['served', 'events', 'complete', 'chunk-json'], ({ sse, doneAt }, ex) => {
    const last = sse.events.at(-1);
    if (doneAt === undefined) return fail(`the stream ends without data: ${DONE_MARKER}; its last event${last ? `: ${excerpt(last.data, 120)}` : ' is missing'}`);
    const wrong: string[] = [];
    const after = sse.events.length - 1 - doneAt;
    if (after > 0) wrong.push(`${after} event(s) follow it, the first: ${excerpt(sse.events[doneAt + 1].data, 120)}`);
    const rest = ex.body.subarray(sse.events[sse.events.length - 1].end).toString('utf8');
    if (!after && rest.trim()) wrong.push(`bytes follow it: ${excerpt(rest, 120)}`);
    return wrong.length ? fail(`data: ${DONE_MARKER} is not the end of the stream: ${wrong.join('; ')}`) : pass();
  }),
};

export const STREAM: ApiCheck[] = inSuite('stream', [contentType, events, complete, chunkJson, chunkSchema, singleId, firstDeltaRole, oneFinishReason, doneMarker]);
