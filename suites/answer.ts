// What a chat request got back, read part by part the same way on both paths (one JSON body, or a
// stream of chunks), so a rule is written once and judged on the parts it reads: a broken part is
// reported by the one check that owns it, and every other check that reads it is not-tested,
// blocked by that owner. The part validators are pieces of the 2.3 and chunk schemas, so the whole
// answer's schema is the union of its parts, not a second copy.
import { validator } from '../schemas/index.js';
import {
  catalog,
  cutByKit,
  cutShort,
  declaredParameters,
  describe,
  errorText,
  generated,
  is2xx,
  is4xx,
  readStream,
  sayOk,
  serverKept,
  type StreamRead,
  type ApiPath,
  type ChatBody,
  type CheckDef,
} from './api.js';
import { ask, locatedOf, refusalOwner, refusedFor } from './ask.js';
import { fail, failIfAny, notTested, pass, unjudgedBy, unserved, type Verdict } from '../engine/check.js';
import type { CheckContext } from '../engine/runner.js';
import { bodyJson, sentJson, type Exchange } from '../engine/exchanges.js';
import { toolCallJoiner, type ToolCallRead } from './tool-deltas.js';
import { modelsUnderTest } from './paths.js';
import { basic } from './basic.js';

/** The parts an answer is read in. `served`: a 2xx, whose body parses as JSON on the JSON path;
 * `events`, `complete`, `chunk-json`: a stream that dispatches server-sent events, reaches its end,
 * each event a JSON chunk; the rest are the fields of 2.3 (or of each chunk). `served` and `events`
 * belong to the request: the check that sends it owns them (the basic request's, chat.role.user
 * and stream.events). */
export const PARTS = ['served', 'events', 'complete', 'chunk-json', 'envelope', 'object', 'index', 'role', 'content', 'finish_reason', 'usage', 'usage-details', 'tool-calls'] as const;
export type Part = (typeof PARTS)[number];
export type Way = 'json' | 'stream';

/** The one check that fails when a part is broken, on each way (json, stream). `served` is the
 * basic request's: a check's own request is its own to fail. */
export const OWNERS: Record<Part, Partial<Record<Way, string>>> = {
  served: { json: 'chat.role.user', stream: 'chat.role.user' },
  events: { stream: 'stream.events' },
  complete: { stream: 'stream.complete' },
  'chunk-json': { stream: 'stream.chunk-json' },
  envelope: { json: 'chat.response-shape', stream: 'stream.chunk-schema' },
  object: { json: 'chat.object', stream: 'stream.chunk-schema' },
  index: { json: 'chat.choice-index', stream: 'stream.chunk-schema' },
  role: { json: 'chat.assistant-role', stream: 'stream.first-delta-role' },
  content: { json: 'chat.content', stream: 'stream.chunk-schema' },
  finish_reason: { json: 'chat.finish-reason', stream: 'chat.finish-reason' },
  usage: { json: 'chat.usage', stream: 'usage.stream-present' },
  'usage-details': { json: 'chat.usage-details', stream: 'usage.stream-shape' },
  'tool-calls': { json: 'tools.call-valid', stream: 'tools.stream' },
};

/** The parts every reader needs, whatever its rule: the answer, and on a stream, a readable one. */
export const BASE: Record<Way, readonly Part[]> = { json: ['served'], stream: ['served', 'events', 'complete', 'chunk-json'] };
/** The parts that say only whether the request was served as asked: a rule of acceptance reads these alone. */
const ACCEPTED: readonly Part[] = ['served', 'events'];

/** An answer read leniently, whichever path it came by: every value is what could be read, and
 * `broken` says which parts are not sound and why. */
export interface Answer {
  stream: boolean;
  ex: Exchange;
  /** The first choice's text: the message's content, or the content deltas joined. */
  content: string;
  toolCalls: ToolCallRead[];
  /** The first choice's finish_reason: on a stream, the last non-null one, whether or not its choice
   * carries a delta. */
  finishReason: unknown;
  /** The usage object: the body's, or on a stream the first usage chunk's that counts something. */
  usage?: Record<string, unknown>;
  /** `model` and `created` of the body, or of every chunk. */
  models: unknown[];
  created: unknown[];
  /** The JSON body (JSON path). */
  body?: Record<string, unknown>;
  /** The stream as read (stream path). */
  read?: StreamRead;
  broken: Partial<Record<Part, string>>;
  /** The server said it could not serve the request (429, 503, a stream that ends in an error
   * event): no rule is broken by it, and none can be judged on it. */
  unserved?: string;
  /** The kit cut the answer at a limit of its own (cutByKit: the idle limit, --timeout, --max-body):
   * `parts` are those it kept from being seen, in `broken` with `why`. A rule that needs one is
   * not-tested, naming the option (cutVerdict), and their owners fail nothing: a server may be slower
   * or answer more than the kit waits for. What came before the cut (the status, the events
   * dispatched, each chunk) is read and judged as on any answer. */
  cut?: { why: string; parts: readonly Part[] };
}

const v = (ref: Parameters<typeof validator>[0]) => validator(ref);
/** A field the schema leaves optional: absent is sound. */
const optional = (ref: Parameters<typeof validator>[0]) => {
  const check = validator(ref);
  return (x: unknown) => (x === undefined ? { ok: true, errors: [] } : check(x));
};
const JSON_PARTS = {
  id: v('response#/properties/id'),
  created: v('response#/properties/created'),
  model: v('response#/properties/model'),
  object: v('response#/properties/object'),
  index: v('response#/$defs/choice/properties/index'),
  role: v('response#/$defs/assistantMessage/properties/role'),
  content: v('response#/$defs/assistantMessage/properties/content'),
  refusal: optional('response#/$defs/assistantMessage/properties/refusal'),
  finishReason: v('response#/$defs/finishReason'),
  count: v('response#/$defs/usage/properties/prompt_tokens'),
  promptDetails: v('response#/$defs/usage/properties/prompt_tokens_details'),
  completionDetails: v('response#/$defs/usage/properties/completion_tokens_details'),
  toolCalls: optional('response#/$defs/assistantMessage/properties/tool_calls'),
};
const CHUNK_PARTS = {
  id: v('chunk#/properties/id'),
  created: v('chunk#/properties/created'),
  model: v('chunk#/properties/model'),
  object: v('chunk#/properties/object'),
  index: v('chunk#/$defs/chunkChoice/properties/index'),
  content: optional('chunk#/$defs/delta/properties/content'),
  refusal: optional('chunk#/$defs/delta/properties/refusal'),
  toolCalls: optional('chunk#/$defs/delta/properties/tool_calls'),
};

/** The whole response, and a whole chunk: an answer that passes them has every part sound (the parts
 * are pieces of these schemas), and is read without checking each part (a load reads thousands). */
const WHOLE_RESPONSE = validator('response');
const WHOLE_CHUNK = validator('chunk');
/** Whether a chunk of a stream read is a chat.completion.chunk as a whole, remembered with it (several
 * rules ask): a WeakMap keyed by the chunk cost a load more than the validation (29,000 instructions a
 * streamed answer of 17 chunks, most of it the collector's barrier on each entry). */
export const soundChunk = (c: StreamRead['chunks'][number]): boolean => (c.sound ??= WHOLE_CHUNK(c.chunk).ok);

const show = (x: unknown) => {
  const s = x === undefined ? 'absent' : JSON.stringify(x);
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
};
const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
/** The first of a list of problems, and how many more. */
const first = (problems: string[]) => (problems.length ? `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}` : undefined);

/** A usage object's parts: its three counts, and its details. */
function usageProblems(usage: unknown, where: string): { usage?: string; details?: string } {
  if (!isObject(usage)) return { usage: `${where} is ${show(usage)}, not a usage object`, details: `${where} is missing` };
  const counts = (['prompt_tokens', 'completion_tokens', 'total_tokens'] as const).filter((k) => !JSON_PARTS.count(usage[k]).ok).map((k) => `${where}.${k} is ${show(usage[k])}, not an integer`);
  const details = [
    ...(JSON_PARTS.promptDetails(usage.prompt_tokens_details).ok ? [] : [`${where}.prompt_tokens_details is ${show(usage.prompt_tokens_details)}, not an object with an integer cached_tokens`]),
    ...(JSON_PARTS.completionDetails(usage.completion_tokens_details).ok
      ? []
      : [`${where}.completion_tokens_details is ${show(usage.completion_tokens_details)}, not an object with an integer reasoning_tokens`]),
  ];
  return { usage: first(counts), details: first(details) };
}

/** Whether a usage counts something: one of its counts a number above zero. A usage of zeros, or of
 * no counts, says nothing of the answer where another usage of the same stream does. */
function countsSomething(usage: unknown): boolean {
  if (!isObject(usage)) return false;
  const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = usage;
  return (typeof p === 'number' && p > 0) || (typeof c === 'number' && c > 0) || (typeof t === 'number' && t > 0);
}

/** Statuses by which a server says it cannot serve now, not that the request was wrong (RFC 9110
 * 15.5.30 and 15.6.4): a rule cannot be judged on them, nor are they a breach of it. */
const BUSY = new Set([429, 503]);

/** A chat answer on the path it was asked on, read part by part. */
export function readAnswer(ex: Exchange, stream: boolean): Answer {
  const empty: Answer = { stream, ex, content: '', toolCalls: [], finishReason: undefined, models: [], created: [], broken: {} };
  if (!is2xx(ex)) {
    // No status line within --timeout: whether it would have been served is not known.
    const cut = ex.status === undefined ? cutByKit(ex) : undefined;
    if (cut) return { ...empty, broken: { served: cut }, cut: { why: cut, parts: ['served'] } };
    const served = `the request was not served: ${describe(ex)}${errorText(ex)}`;
    return { ...empty, broken: { served }, ...(ex.status !== undefined && BUSY.has(ex.status) ? { unserved: served } : {}) };
  }
  return stream ? readStreamed(ex, empty) : readJson(ex, empty);
}

/** Why a stream ended in an error event (`data: {"error": {...}}`, the OpenAI-compatible way an
 * engine says mid-stream that it cannot go on), or undefined. */
function errorEvent(read: StreamRead): string | undefined {
  const found = read.chunks.find(({ chunk }) => isObject(chunk.error) && !Array.isArray(chunk.choices));
  if (!found) return undefined;
  const message = (found.chunk.error as Record<string, unknown>).message;
  return `the stream ended in an error event at event ${found.at}${typeof message === 'string' ? ` (${show(message)})` : ''}`;
}

function readJson(ex: Exchange, empty: Answer): Answer {
  const kit = cutByKit(ex);
  // A body cut short is no JSON to read: by the kit, nothing of it is known.
  if (kit) return { ...empty, broken: { served: kit }, cut: { why: kit, parts: ['served'] } };
  const cut = cutShort(ex);
  if (cut) return { ...empty, broken: { served: cut } };
  const json = bodyJson(ex);
  if (!json.ok) return { ...empty, broken: { served: json.error } };
  if (!isObject(json.value)) return { ...empty, broken: { served: `the body is ${show(json.value)}, not a JSON object` } };
  const body = json.value;
  const choices = Array.isArray(body.choices) ? body.choices : [];
  // The schema says all but the indexes' being positions: a whole that passes has no broken part,
  // and its first choice is an object with a message.
  if (WHOLE_RESPONSE(body).ok && atTheirPositions(choices)) return readJsonTail(empty, body, choices, (choices[0] as { message: Record<string, unknown> }).message, {});
  const objects = choices.filter(isObject);
  const messages = objects.map((c) => (isObject(c.message) ? c.message : {}));
  return readJsonTail(empty, body, choices, messages[0] ?? {}, jsonBroken(body, choices, objects, messages));
}

/** Whether each choice is an object whose index is its position. */
function atTheirPositions(choices: unknown[]): boolean {
  for (let i = 0; i < choices.length; i++) if (!isObject(choices[i]) || (choices[i] as Record<string, unknown>).index !== i) return false;
  return true;
}

/** What is broken in a JSON body, part by part. */
function jsonBroken(body: Record<string, unknown>, choices: unknown[], objects: Record<string, unknown>[], messages: Record<string, unknown>[]): Answer['broken'] {
  const broken: Answer['broken'] = {};
  const envelope = [
    ...(['id', 'created', 'model'] as const).filter((k) => !JSON_PARTS[k](body[k]).ok).map((k) => `${k} is ${show(body[k])}, not ${k === 'created' ? 'an integer' : 'a string'}`),
    ...(!Array.isArray(body.choices) ? [`choices is ${show(body.choices)}, not an array`] : !choices.length ? ['choices is empty'] : []),
    ...choices.flatMap((c, i) => (isObject(c) && isObject(c.message) ? [] : [`choices[${i}]${isObject(c) ? '.message' : ''} is not an object`])),
  ];
  broken.envelope = first(envelope);
  if (!JSON_PARTS.object(body.object).ok) broken.object = `object is ${show(body.object)}, not "chat.completion"`;
  broken.index = first(choices.flatMap((c, i) => (isObject(c) && c.index === i ? [] : [`choices[${i}].index is ${show(isObject(c) ? c.index : undefined)}`])));
  broken.role = first(messages.flatMap((m, i) => (JSON_PARTS.role(m.role).ok ? [] : [`choices[${i}].message.role is ${show(m.role)}, not "assistant"`])));
  broken.content = first(
    messages.flatMap((m, i) => [
      ...(JSON_PARTS.content(m.content).ok
        ? []
        : [`choices[${i}].message.content is ${show(m.content)}, not a string${Array.isArray(m.tool_calls) && m.tool_calls.length ? ' (beside tool_calls)' : ''}`]),
      ...(JSON_PARTS.refusal(m.refusal).ok ? [] : [`choices[${i}].message.refusal is ${show(m.refusal)}, not a string or null`]),
    ]),
  );
  broken.finish_reason = first(
    objects.flatMap((c, i) => (JSON_PARTS.finishReason(c.finish_reason).ok ? [] : [`choices[${i}].finish_reason is ${show(c.finish_reason)}, not one of stop, length, tool_calls, content_filter`])),
  );
  const u = usageProblems(body.usage, 'usage');
  broken.usage = u.usage;
  broken['usage-details'] = u.details;
  broken['tool-calls'] = first(
    messages.flatMap((m, i) =>
      JSON_PARTS.toolCalls(m.tool_calls).ok
        ? []
        : [`choices[${i}].message.tool_calls is not a list of calls with id, type "function", function.name and function.arguments as a string: ${show(m.tool_calls)}`],
    ),
  );
  return broken;
}

/** The answer's values, read leniently, with what is broken. */
function readJsonTail(empty: Answer, body: Record<string, unknown>, choices: unknown[], message: Record<string, unknown>, broken: Answer['broken']): Answer {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  // Every field written out, not `...empty` and more: V8 defined the fields past the copy one miss of
  // its inline cache at a time, 23,000 instructions an answer (issue 36, counted under callgrind).
  return {
    stream: empty.stream,
    ex: empty.ex,
    content: typeof message.content === 'string' ? message.content : '',
    toolCalls: calls.map((raw, index) => {
      const fn = isObject(raw.function) ? raw.function : {};
      return { index, id: raw.id, name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? null), raw };
    }),
    finishReason: isObject(choices[0]) ? choices[0].finish_reason : undefined,
    usage: isObject(body.usage) ? body.usage : undefined,
    models: [body.model],
    created: [body.created],
    body,
    broken: prune(broken),
  };
}

function readStreamed(ex: Exchange, empty: Answer): Answer {
  const read = readStream(ex);
  const broken: Answer['broken'] = {};
  const kit = cutByKit(ex);
  const cut = kit ?? cutShort(ex);
  if (cut) broken.complete = cut;
  if (!read.sse.events.length) {
    // Cut by the kit before its first event: whether it would have dispatched any is not known.
    if (kit) return { ...empty, read, broken: { events: kit, complete: kit }, cut: { why: kit, parts: ['events', 'complete'] } };
    return {
      ...empty,
      read,
      broken: { events: `no server-sent event was dispatched (${ex.body.length ? `${ex.body.length} bytes, content-type ${ex.headers['content-type'] ?? 'none'}` : 'the body is empty'})` },
    };
  }
  broken['chunk-json'] = first(
    read.payloads.filter((p) => p.data !== '[DONE]' && !isObject(p.json)).map((p) => `event ${p.at} is ${p.error !== undefined ? `not JSON (${p.error})` : `JSON but not an object: ${show(p.json)}`}`),
  );
  const envelope: string[] = [];
  const object: string[] = [];
  const index: string[] = [];
  const content: string[] = [];
  const calls: string[] = [];
  const reasons: unknown[] = [];
  let role: string | undefined;
  let roleSeen = false;
  let text = '';
  let finishReason: unknown;
  let usage: unknown;
  // The tool-call deltas are joined as the official clients join them (suites/tool-deltas.ts).
  const toolCalls = toolCallJoiner();
  for (const c of read.chunks) {
    const { at, chunk } = c;
    // A chunk sound as a whole has every part sound: only its values are read.
    const sound = soundChunk(c);
    if (!sound) {
      for (const k of ['id', 'created', 'model'] as const)
        if (!CHUNK_PARTS[k](chunk[k]).ok) envelope.push(`event ${at}: ${k} is ${show(chunk[k])}, not ${k === 'created' ? 'an integer' : 'a string'}`);
      if (!Array.isArray(chunk.choices)) envelope.push(`event ${at}: choices is ${show(chunk.choices)}, not an array`);
      if (!CHUNK_PARTS.object(chunk.object).ok) object.push(`event ${at}: object is ${show(chunk.object)}, not "chat.completion.chunk"`);
    }
    // The usage the stream gives first that counts something: a second one (a gateway's trailer of
    // zeros, the counts again) is usage.stream-single's to report, and no rule reads it as the answer's.
    if (chunk.usage !== null && chunk.usage !== undefined && (usage === undefined || !countsSomething(usage))) usage = chunk.usage;
    const choices: unknown[] = Array.isArray(chunk.choices) ? chunk.choices : [];
    // By index, not entries(): no iterator and no pair a choice of every chunk.
    for (let position = 0; position < choices.length; position++) {
      const choice = choices[position];
      if (!isObject(choice)) {
        envelope.push(`event ${at}: a choice is not an object`);
        continue;
      }
      // A choice without a delta (a finishing chunk that sends only its finish_reason) is the chunk
      // schema's to report; what it does give is read all the same.
      const delta = isObject(choice.delta) ? choice.delta : undefined;
      if (!sound) {
        if (delta === undefined) envelope.push(`event ${at}: a choice has no delta object`);
        if (!CHUNK_PARTS.index(choice.index).ok) index.push(`event ${at}: a choice's index is ${show(choice.index)}`);
        if (delta !== undefined) {
          if (!CHUNK_PARTS.content(delta.content).ok) content.push(`event ${at}: delta.content is ${show(delta.content)}, not a string or null`);
          if (!CHUNK_PARTS.refusal(delta.refusal).ok) content.push(`event ${at}: delta.refusal is ${show(delta.refusal)}, not a string or null`);
          if (!CHUNK_PARTS.toolCalls(delta.tool_calls).ok)
            calls.push(`event ${at}: delta.tool_calls is not a list of tool-call deltas, each with an integer index and a function object: ${show(delta.tool_calls)}`);
        }
      }
      // Read leniently (a malformed index is the chunk schema's to report): by its place otherwise.
      if ((sound || CHUNK_PARTS.index(choice.index).ok ? choice.index : position) !== 0) continue;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) reasons.push((finishReason = choice.finish_reason));
      if (delta === undefined) continue;
      if (!roleSeen) {
        roleSeen = true;
        if (delta.role !== 'assistant') role = `the first delta (event ${at}) has role ${show(delta.role)}, not "assistant"`;
      } else if (delta.role !== undefined && delta.role !== null && delta.role !== 'assistant') role ??= `event ${at}: a delta has role ${show(delta.role)}`;
      if (typeof delta.content === 'string') text += delta.content;
      if (Array.isArray(delta.tool_calls)) toolCalls.add(at, delta.tool_calls);
    }
  }
  const joined = toolCalls.done();
  // Cut by the kit, a stream is judged on what came: a chunk that came broken is broken, whatever
  // follows; what had not come yet (a role, a finish_reason, the usage, the rest of a tool call) is
  // not missing, only unseen.
  Object.assign(broken, {
    envelope: first(envelope),
    object: first(object),
    index: first(index),
    role: read.chunks.length && !roleSeen && !kit ? 'no chunk carries a delta of choice 0' : role,
    content: first(content),
    'tool-calls': first(kit ? calls : [...calls, ...joined.problems]),
  });
  const bad = reasons.filter((r) => !JSON_PARTS.finishReason(r).ok);
  if (bad.length) broken.finish_reason = `finish_reason ${show(bad[0])} is not one of stop, length, tool_calls, content_filter`;
  else if (!reasons.length && !kit) broken.finish_reason = `no chunk gives choice 0 a finish_reason (${read.chunks.length} chunks)`;
  if (!kit) {
    const u = usage !== undefined ? usageProblems(usage, 'the streamed usage') : { usage: `no chunk carries the usage (${read.chunks.length} chunks)`, details: 'no chunk carries the usage' };
    broken.usage = u.usage;
    broken['usage-details'] = u.details;
  }
  // Written out as the JSON path's is (readJsonTail); an error event, rare, is added to it.
  const answer: Answer = {
    stream: empty.stream,
    ex: empty.ex,
    content: text,
    toolCalls: joined.calls,
    finishReason,
    usage: isObject(usage) ? usage : undefined,
    models: read.chunks.map((c) => c.chunk.model),
    created: read.chunks.map((c) => c.chunk.created),
    read,
    broken: prune(broken),
  };
  if (kit) answer.cut = { why: kit, parts: ['complete'] };
  const event = errorEvent(read);
  if (event) answer.unserved = event;
  return answer;
}

/** The broken parts of an answer none of whose parts is broken: one object for them all, so that a
 * rule asked of a sound answer (most of a load's) learns it in one comparison (`sound`). */
const NONE_BROKEN: Answer['broken'] = Object.freeze({});

function prune(broken: Answer['broken']): Answer['broken'] {
  let kept: Answer['broken'] | undefined;
  for (const part in broken) {
    const why = broken[part as Part];
    if (why !== undefined) (kept ??= {})[part as Part] = why;
  }
  return kept ?? NONE_BROKEN;
}

/** Whether an answer was served and no part of it is broken: nothing blocks a rule that reads it. */
export const sound = (a: Answer): boolean => a.broken === NONE_BROKEN && a.unserved === undefined && a.cut === undefined;

/** The verdict of a rule that needs a part of an answer the kit cut at its own limit: not-tested,
 * naming the option that lets the answer through, and nobody's failure. */
export const cutVerdict = (a: Answer): Verdict => unjudgedBy('cut', `${a.ex.label}: ${a.cut?.why ?? cutByKit(a.ex)}`);

/** The verdict of a rule that reads what the kit cut of `ex` (the rest of a refusal's body, the
 * status that never came), or undefined where the kit cut nothing. */
export function cutOf(ex: Exchange): Verdict | undefined {
  const cut = cutByKit(ex);
  return cut === undefined ? undefined : unjudgedBy('cut', `${ex.label}: ${cut}`);
}

/** Whether the kit's cut kept `part` of an answer from being seen. */
const cutOff = (a: Answer, part: Part): boolean => !!a.cut?.parts.includes(part);

export const wayOf = (stream: boolean | undefined): Way => (stream ? 'stream' : 'json');

/** The first broken part of an answer, as `part: why`, for a rule that reads the whole answer but
 * the parts in `ignore`; or undefined. */
export function firstBroken(a: Answer, ignore: readonly Part[] = []): string | undefined {
  const part = PARTS.find((p) => a.broken[p] !== undefined && !ignore.includes(p) && (a.stream || OWNERS[p].json !== undefined || p === 'served'));
  return part && `${part}: ${a.broken[part]}`;
}

/** The parts a rule that reads `reads` needs sound, on a way: the base of every answer, and its own.
 * A rule of acceptance (served, and on a stream events) needs nothing more. */
export const needed = (way: Way, reads: readonly Part[]): readonly Part[] => (reads.some((p) => !ACCEPTED.includes(p)) ? [...new Set([...BASE[way], ...reads])] : [...reads]);

/** Whose a request's own parts are: `served` (absent: the caller's own request; nothing blocks on
 * it), and `events` when another check owns them (the basic stream's are stream.events'). */
export interface RequestOwners {
  servedBy?: string;
  readableBy?: string;
}

/** A refusal located by asking again (ask.ts) that a reader could not judge without: the verdict of
 * a rule whose request it is. The field's owner fails where the model owes taking it (a refusal of
 * the asking check's own field is its failure); elsewhere the rule is blocked by that owner; and a
 * field the model need not take breaks no rule (4.1 leaves unsupported parameters open). */
export function locatedVerdict(ex: Exchange, check: string | undefined, what: string, tries?: readonly string[]): Verdict | undefined {
  const found = refusedFor(ex, check, tries);
  if (!found || (!found.own.length && !found.others.length)) return undefined;
  const own = found.own.find((f) => f.owed);
  if (own) return fail(`${what} got no answer: ${own.why}`);
  const other = found.others.find((f) => f.owed);
  if (other) return notTested(`${what} got no answer: ${other.why}; see ${other.owner}`, other.owner, `${ex.label}: ${other.why}`);
  const any = [...found.own, ...found.others][0];
  return notTested(`${what} got no answer: ${any.why}, and the catalog does not declare it for the model; 4.1 leaves unsupported parameters open`);
}

/** Why a part of the answer keeps a check from judging, naming the owner to see, or nothing. */
export function blockedOn(a: Answer, parts: readonly Part[], { servedBy, readableBy }: RequestOwners = {}): Verdict | undefined {
  if (a.unserved !== undefined) return unservedVerdict(a);
  if (a.broken === NONE_BROKEN) return undefined;
  const way = wayOf(a.stream);
  for (const part of parts) {
    const why = a.broken[part];
    if (why === undefined) continue;
    if (cutOff(a, part)) return cutVerdict(a);
    const field = part === 'served' ? refusalOwner(a.ex) : undefined;
    const owner = field ?? (part === 'served' ? servedBy : part === 'events' ? (readableBy ?? servedBy) : OWNERS[part][way]);
    if (!owner) continue;
    return notTested(`needs ${part === 'served' ? 'the answer served' : part} (${why}): see ${owner}`, owner, `${a.ex.label}: ${part === 'served' ? '' : `${part}: `}${why}`);
  }
  return undefined;
}

/** The verdict on a rule whose answer the server could not serve: chat.served-when-valid counts it. */
export const unservedVerdict = (a: Answer) => unserved(`${a.ex.label}: ${a.unserved}; the server could not serve it (see chat.served-when-valid)`);

/** An owner's verdict on its part of an answer, once the parts it needs first are sound. */
export function ownPart(a: Answer, part: Part, first: readonly Part[], served?: RequestOwners): Verdict {
  if (sound(a)) return pass();
  const before = blockedOn(
    a,
    first.filter((p) => p !== part),
    served,
  );
  if (before) return before;
  if (cutOff(a, part)) return cutVerdict(a);
  if (part === 'served' && a.broken.served) return fail(a.broken.served);
  const why = a.broken[part];
  return why === undefined ? pass() : fail(why);
}

/** The caps a request that needs a model's own judgement (a tool call, structured output) is tried
 * with, smallest first: a plain model answers well within the first; a reasoning model that thinks
 * past it is asked once more with room to think. Each cap a request is sent with is shared by every
 * check that reads it. */
export const ROOM = [256, 1024] as const;

/** The request at the smallest cap of ROOM its answer ends within (not "length"), or at the largest. */
export async function askWithRoom(ctx: CheckContext, path: ApiPath, body: (cap: number) => ChatBody, label: string): Promise<Exchange> {
  let ex: Exchange | undefined;
  for (const cap of ROOM) {
    ex = await ask(ctx, path, body(cap), label);
    if (readAnswer(ex, !!path.stream).finishReason !== 'length') break;
  }
  return ex!;
}

/** The basic request ("Count from one to ten"), which most rules read: served is chat.role.user's, its stream's events stream.events'. */
export const BASIC_OWNERS = { servedBy: 'chat.role.user', readableBy: 'stream.events' } as const;

export interface Asked extends RequestOwners {
  /** What the request was, for messages: `a long essay with max_tokens 1`. */
  what: string;
  /** An optional request field (tools, response_format): a model that refuses it with a JSON error
   * leaves the check not-tested unless the catalog declares the field for it, where asking again
   * without each field did not find it. */
  feature?: 'tools' | 'response_format';
}

/** The answer to a request the document allows, with the parts the rule reads sound, or the verdict
 * that ends the check: its own request not served fails it; a broken part it reads leaves it
 * not-tested, blocked by the part's owner. */
export async function answerTo(
  ctx: CheckContext,
  ex: Exchange,
  path: ApiPath,
  reads: readonly Part[],
  asked: Asked,
): Promise<{ answer: Answer; verdict?: undefined } | { answer?: undefined; verdict: Verdict }> {
  const a = readAnswer(ex, !!path.stream);
  if (a.unserved !== undefined) return { verdict: unservedVerdict(a) };
  if (cutOff(a, 'served')) return { verdict: cutVerdict(a) };
  const unserved = a.broken.served;
  if (unserved !== undefined) {
    const located = locatedVerdict(ex, ctx.check, asked.what);
    if (located) return { verdict: located };
    if (asked.feature && is4xx(ex) && bodyJson(ex).ok && errorText(ex)) {
      const declared = path.model !== undefined && asked.feature in (declaredParameters((await catalog(ctx)).entries.get(path.model)) ?? {});
      if (!declared) return { verdict: notTested(`the model refuses ${asked.feature}${errorText(ex)}, and no catalog entry declares it; 4.1 leaves unsupported parameters open`) };
    }
    if (!asked.servedBy) return { verdict: fail(`${asked.what} got no answer: ${unserved}`) };
  }
  const parts = needed(wayOf(a.stream), reads);
  // A stream of the check's own that dispatches nothing is asked again with less: the basic question
  // on the same path. Where that streams, the check's own request is what the server did not stream:
  // its defect. Where that does not stream either, no stream does: stream.events' defect (it judges
  // every stream of the run), and the check is blocked by it, not failed beside it (a server that
  // answers JSON to every stream: true failed six checks at must over one defect).
  if (a.broken.events !== undefined && parts.includes('events') && !asked.readableBy && !cutOff(a, 'events')) {
    if ((await eventsOwner(ctx, path, a)) === 'stream.events')
      return { verdict: notTested(`${asked.what} got no stream, and neither did the basic question: ${a.broken.events}`, 'stream.events', `${ex.label}: ${a.broken.events}`) };
    if (!asked.servedBy) return { verdict: fail(`${asked.what} got no stream: ${a.broken.events}`) };
  }
  const verdict = blockedOn(a, parts, asked);
  return verdict ? { verdict } : { answer: a };
}

/** Who answers for a stream of a check's own request that dispatches no event: stream.events where
 * the basic question on the same path dispatches none either (no stream does), else undefined (the
 * check's own request is what the server did not stream). Asked of the run's memoized sender. */
export async function eventsOwner(ctx: CheckContext, path: ApiPath, a: Answer): Promise<'stream.events' | undefined> {
  if (a.broken.events === undefined || !path.stream || path.model === undefined) return undefined;
  const control = readAnswer(await basic(ctx, path), true);
  return control.broken.served === undefined && control.broken.events !== undefined ? 'stream.events' : undefined;
}

/** A check's reads and run, its preamble written once: `get` sends the check's request on the path
 * and reads the answer, or ends the check with the verdict that comes first (its own request not
 * served, a part it reads broken, a control missing); `rule` judges what it got. */
export function judged<T extends object>(
  reads: Part[],
  get: (ctx: CheckContext, path: ApiPath) => Promise<T | { verdict: Verdict }>,
  rule: (got: T, ctx: CheckContext, path: ApiPath) => Verdict | Promise<Verdict>,
): Pick<CheckDef, 'reads' | 'run'> {
  return {
    reads,
    async run(ctx, path) {
      const got = await get(ctx, path);
      return (got as { verdict?: Verdict }).verdict ?? rule(got as T, ctx, path);
    },
  };
}

/** The run's served answers to chat requests for `model`, streamed or not as `stream` says, that
 * `asked` accepts by the request's body: what a rule held on every answer of the run reads. An answer
 * to a model that is not under test (an unknown id, or none, served where a refusal was due; a model
 * only another check names) is read on the path of the first model under test: whatever a check
 * expecting a refusal concludes, what was served is held to the shape rules by their owners. A 2xx
 * that carries an error and no choices is a refusal told with the wrong status, the refusal's check's
 * to report. The fuzz session's generated requests are its properties' own (one defect, one failure). */
export async function answersOfRun(ctx: CheckContext, model: string, stream: boolean, asked: (body: Record<string, unknown>) => boolean = () => true): Promise<Exchange[]> {
  const { models } = await modelsUnderTest(ctx);
  const strays = models[0]?.id === model;
  const tested = (m: unknown) => typeof m === 'string' && models.some((u) => u.id === m);
  return (await ctx.received()).filter((ex) => {
    if (ex.request.method !== 'POST' || !ex.request.url.endsWith('/v1/chat/completions') || !is2xx(ex) || generated(ex)) return false;
    const body = sentJson(ex.request);
    if (!isObject(body) || (body.stream === true) !== stream || !asked(body)) return false;
    return (body.model === model || (strays && !tested(body.model))) && !errorInstead(ex, stream);
  });
}

/** A JSON answer that is an error object, with no choices: a refusal told with a 2xx. (A stream that
 * carries an error event is read as not served: readAnswer.) */
function errorInstead(ex: Exchange, stream: boolean): boolean {
  if (stream) return false;
  const json = bodyJson(ex);
  return json.ok && isObject(json.value) && 'error' in json.value && !('choices' in json.value);
}

/** Parts whose owner judges only answers that carry them at all: details need a usage object to be in. */
const CARRIED_IN: Partial<Record<Part, (a: Answer) => boolean>> = { 'usage-details': (a) => a.usage !== undefined };

/** What is wrong with `part` on each answer the run received for `model` on the way `stream` says
 * (but those in `except`), read as the part's owner reads its own: an answer not served, or whose
 * earlier parts are broken, is left to those parts' owners. An owner judges its part on every answer
 * of the run, so a part broken only on another suite's request (usage on a tool call) is still its
 * failure. The first wrong answer is cited unless `cite` is false. */
export async function partOnEveryAnswer(ctx: CheckContext, model: string, stream: boolean, part: Part, except: readonly Exchange[], cite: boolean): Promise<string[]> {
  const first = needed(wayOf(stream), [part]).filter((p) => p !== part);
  const answers = (await answersOfRun(ctx, model, stream)).filter((ex) => !except.includes(ex));
  return wrongOnEach(
    ctx,
    answers,
    (ex) => {
      const b = readAnswer(ex, stream);
      if (b.unserved !== undefined || first.some((p) => b.broken[p] !== undefined) || cutOff(b, part) || CARRIED_IN[part]?.(b) === false) return undefined;
      return b.broken[part];
    },
    'answers',
    cite,
  );
}

/** An owner's verdict on its own request, and on every other answer of the run (partOnEveryAnswer). */
export const heldOnEvery = (own: Verdict, wrong: readonly string[], what = 'the basic answer'): Verdict =>
  wrong.length ? fail([...(own.outcome === 'fail' ? [`${what}: ${own.message}`] : []), ...wrong].join('; '), own.notes) : own;

/** A rule held on each of `answers`: what is wrong with each (the rule says undefined where nothing
 * is), the first that breaks it cited as the exchange that did unless `cite` is false, and at most
 * three named, then how many more `noun`. */
export function wrongOnEach(ctx: CheckContext, answers: readonly Exchange[], rule: (ex: Exchange) => string | undefined, noun: string, cite = true): string[] {
  const wrong: string[] = [];
  for (const ex of answers) {
    const why = rule(ex);
    if (why === undefined) continue;
    if (!wrong.length && cite) ctx.cite(ex);
    wrong.push(`${ex.label}: ${why}`);
  }
  return wrong.length > 3 ? [...wrong.slice(0, 3), `and ${wrong.length - 3} more ${noun}`] : wrong;
}

/** Whether a positive control was served: a 2xx whose body parses, or a stream that dispatches
 * events. Nothing else of the answer is asked: a broken field is its owner's to report, and must not
 * hide a refusal the control stands for. Undefined when served; otherwise why not. */
export function notServed(ex: Exchange, stream: boolean): string | undefined {
  const a = readAnswer(ex, stream);
  return a.broken.served ?? a.broken.events;
}

/** The verdict of a rule that asks whether `ex` was served, where the kit cut it before that could
 * tell (no status line, a JSON body cut, a stream cut before its first event); else undefined. */
export function servedCut(ex: Exchange, stream: boolean): Verdict | undefined {
  const a = readAnswer(ex, stream);
  return a.cut && (cutOff(a, 'served') || cutOff(a, 'events')) ? cutVerdict(a) : undefined;
}

/** The verdict of a rule whose positive control was not served, or undefined when it was: not served
 * when the server said so (a 503, an error event), blocked by the owner of a field its rule is not
 * about that was refused (ask.ts), otherwise not-tested as `why` says, blocked by `owner` (the check whose rule the
 * control's request is) where there is one. */
export function controlVerdict(ex: Exchange, stream: boolean, why: (reason: string) => string, owner?: string): Verdict | undefined {
  const a = readAnswer(ex, stream);
  if (a.unserved !== undefined) return unservedVerdict(a);
  const reason = a.broken.served ?? a.broken.events;
  if (reason === undefined) return undefined;
  // Nobody's failure: an owner named here would be charged with the kit's cut.
  if (a.cut) return unjudgedBy('cut', why(a.cut.why));
  const field = locatedOf(ex)?.fields.find((f) => f.owed);
  const by = field?.owner ?? owner;
  // No owner answers for it: a control the server did not answer leaves the rule unjudged by its doing.
  const kept = by ? undefined : serverKept(ex);
  if (kept) return unjudgedBy(kept, why(reason));
  return notTested(why(field?.why ?? reason), by, by ? `${ex.label}: ${field?.why ?? reason}` : undefined);
}

/** The verdict of a check whose control was not served (controlVerdict, `why` saying what that
 * leaves unproven), or undefined: "Say OK." to `model` with the primary key, streamed where the
 * refused request is. One request, whichever suite's refusal it stands behind. */
export async function controlUnserved(ctx: CheckContext, path: ApiPath, model: string, why: (reason: string) => string): Promise<Verdict | undefined> {
  return controlVerdict(await ask(ctx, path, sayOk(model), 'plain chat with the primary key'), !!path.stream, why);
}

/** A rule held on each answer of a kind that a suite's requests got (each refusal, each error
 * answer), naming what is wrong with one; with none to hold it on, not-tested, saying why each
 * request gave none (each reason once), or `none`. */
export function onEachAnswer<T>(answers: readonly T[], whyNone: readonly (string | undefined)[], none: string, wrong: (answer: T) => string | undefined): Verdict {
  if (!answers.length) {
    const why = [...new Set(whyNone.filter((w): w is string => w !== undefined))];
    return notTested(why.length ? why.join('; ') : none);
  }
  return failIfAny(answers.flatMap((a) => wrong(a) ?? []));
}

/** How an answer to a request that must not be served reads. A refusal is a 4xx that says the
 * request was wrong; a missing route or model (404, 405), a redirect, a server error or a dropped
 * connection is no refusal, and neither is a 200 that opens a stream to carry an error. `toldBy`: a
 * refusal told with a 5xx, as `unservable` allows, described for a note. `cut`: the kit cut the
 * answer at its own limit before what tells (the status; the error body of a 5xx that must say why):
 * nothing is known, and a rule judges nothing on it (cutByKit). */
export type Refusal = { kind: 'refused'; toldBy?: string } | { kind: 'served'; why: string } | { kind: 'neither'; why: string } | { kind: 'cut'; why: string };

export interface RefusalOptions {
  /** A 404 is a fitting refusal: the model is what is missing or unknown. */
  notFoundRefuses?: boolean;
  /** The document itself says the request cannot be served: incomplete (4.1 rule 1) or over a limit
   * (section 8). Its MUST asks that it not be served and that an error say why; section 7 leaves the
   * status open, so a 5xx whose body says why (errorSaysWhy) refuses it too, and the status is the
   * convention's, judged by a should beside the must. A 5xx that says nothing, and a 503, which says
   * the server is busy, refuse nothing. */
  unservable?: boolean;
}

export function refusalOf(ex: Exchange, opts: RefusalOptions = {}): Refusal {
  const s = ex.status;
  const cut = cutByKit(ex);
  if (s === undefined) return cut ? { kind: 'cut', why: cut } : { kind: 'neither', why: `no answer: ${describe(ex)}` };
  if (is2xx(ex)) return { kind: 'served', why: `it was served (${describe(ex)})` };
  if (s >= 300 && s < 400) return { kind: 'neither', why: `status ${s} is a redirect${ex.headers.location ? ` to ${ex.headers.location}` : ''}, not a refusal` };
  if ((s === 404 && !opts.notFoundRefuses) || s === 405) return { kind: 'neither', why: `status ${s} says the route${s === 404 ? ' or model' : ''} is missing, not that the request was refused` };
  if (s === 429) return { kind: 'neither', why: 'status 429 is a rate limit, not a refusal' };
  if (s >= 400 && s < 500) return { kind: 'refused' };
  if (opts.unservable && s >= 500 && !BUSY.has(s) && cut) return { kind: 'cut', why: cut };
  if (opts.unservable && s >= 500 && !BUSY.has(s) && errorSaysWhy(ex)) return { kind: 'refused', toldBy: `status ${s}, with an error that says why${errorText(ex)}` };
  const said = opts.unservable && !BUSY.has(s) ? ', and no error body says why' : '';
  return { kind: 'neither', why: `status ${s} is a server error, not a refusal${errorText(ex)}${said}` };
}

/** Whether an error answer says why, at the least the convention asks of it: a JSON object whose
 * `error` is an object with a message that is not blank. Its other fields (type, param, code) and
 * their types are errors.error-body's and stop.five-4xx's to judge, as conventions. */
function errorSaysWhy(ex: Exchange): boolean {
  const json = bodyJson(ex);
  const error = json.ok && isObject(json.value) ? json.value.error : undefined;
  return isObject(error) && typeof error.message === 'string' && error.message.trim() !== '';
}

const validError = validator('error');

/** What keeps an error answer's body from the convention ({"error": {"message": ...}}), or nothing.
 * A body the kit cut is none to judge: the caller asks cutByKit first. */
export function errorBodyProblem(ex: Exchange): string | undefined {
  const json = bodyJson(ex);
  if (!json.ok) return `the error body: ${json.error}`;
  const r = validError(json.value);
  return r.ok ? undefined : `the error body does not match the convention: ${r.errors.join(', ')}`;
}
