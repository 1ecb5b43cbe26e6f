// Section 6.2: stream_options.include_usage is the documented way to get usage in a stream. Where
// the usage arrives and what it holds follow the OpenAI-compatible convention.
import { inSuite, type ApiCheck, type CheckDef, type StreamRead } from './api.js';
import { failIfAny, fail, pass, type Verdict } from '../engine/check.js';
import { excerpt } from '../engine/exchanges.js';
import { BASIC_OWNERS, blockedOn, needed, ownPart, readAnswer, type Part } from './answer.js';
import { basic } from './chat.js';
import { refusedFor } from './ask.js';
import { onEveryStream, onStream, plainStream, STREAM_PATHS, streamed } from './stream.js';

type UsageChunk = { at: number; chunk: Record<string, unknown>; usage: unknown };

/** The usage chunks of the stream last asked about: the usage rules ask in turn of one stream (four
 * filters of every chunk an answer, under load). Read them, never change them. */
let usageOf: { read: StreamRead; found: UsageChunk[] } | undefined;

function usageChunks(s: StreamRead): UsageChunk[] {
  if (usageOf?.read !== s) {
    const found: UsageChunk[] = [];
    for (const { at, chunk } of s.chunks) if (chunk.usage !== null && chunk.usage !== undefined) found.push({ at, chunk, usage: chunk.usage });
    usageOf = { read: s, found };
  }
  return usageOf.found;
}

/** What a rule about the streamed usage needs: a whole stream of JSON chunks, and the usage with its counts. */
const STREAM_READ: Part[] = ['served', 'events', 'complete', 'chunk-json'];
const USAGE_READ: Part[] = [...STREAM_READ, 'usage'];

/** A rule about the usage a stream delivered, once usage.stream-present's part is sound. */
const onUsage = (rule: (found: UsageChunk[], s: StreamRead) => Verdict) => onEveryStream(streamed, USAGE_READ, (s) => rule(usageChunks(s), s), askedUsage);

/** The streams that asked for usage: the usage rules hold on each of them. */
const askedUsage = (body: Record<string, unknown>) => (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;

const show = (v: unknown) => excerpt(JSON.stringify(v) ?? String(v), 160);

const present = onEveryStream(
  streamed,
  STREAM_READ,
  (s, _ex, a) => (usageChunks(s).length ? ownPart(a, 'usage', STREAM_READ, BASIC_OWNERS) : fail(`include_usage was true, yet none of the ${s.chunks.length} chunks carries a usage object`)),
  askedUsage,
);

export const streamPresent: CheckDef = {
  id: 'usage.stream-present',
  title: 'With stream_options.include_usage true, the stream carries the usage, with integer prompt_tokens, completion_tokens and total_tokens',
  section: '6.2, 2.3',
  level: 'must',
  audit:
    'Streams the basic request with stream_options.include_usage (every stream of the kit asks it) and reads every such stream of the run: a server that ignores include_usage sends no usage chunk, one that sends it ill-typed fails too, and one that refuses stream_options fails here alone (the checks that sent it only to share the stream are blocked by it); shown by faults usage-stream-missing, usage-stream-shape and stream-options-refused.',
  paths: STREAM_PATHS,
  ...present,
  async run(ctx, path) {
    // stream_options is this rule's (suites/fields.ts): a server that refuses it fails here, the
    // checks that sent it only to share the stream are judged without it (ask.ts), and those about
    // the usage it asks for are blocked by this one.
    const refused = refusedFor(await streamed(ctx, path.model!), ctx.check)?.own.find((f) => f.field === 'stream_options');
    if (refused) return fail(`the documented way to ask for usage in a stream (6.2) was refused: ${refused.why}`);
    return present.run(ctx, path);
  },
};

export const streamSingle: CheckDef = {
  id: 'usage.stream-single',
  title: 'With include_usage, exactly one chunk carries the usage',
  section: '6.2',
  level: 'should',
  audit: 'Counts the chunks that carry usage on every stream that asked include_usage: a server that puts the usage on every chunk fails; shown by fault usage-stream-on-every-chunk.',
  convention: 'The usage of the whole completion is sent once; every other chunk has usage null or none.',
  paths: STREAM_PATHS,
  ...onUsage((found) => (found.length === 1 ? pass() : fail(`${found.length} chunks carry a usage (events ${found.map((f) => f.at).join(', ')}); one is expected`))),
};

export const streamPosition: CheckDef = {
  id: 'usage.stream-position',
  title: 'The usage chunk comes after the chunk with the finish_reason and before [DONE], with choices []',
  section: '6.2',
  level: 'should',
  audit:
    'Reads where the usage chunk is on every stream that asked include_usage, tool calls and structured output included: a usage chunk before the finish, or one that carries a choice, fails; shown by faults usage-stream-before-finish, usage-stream-with-choices and stream-usage-before-finish-tool-calls.',
  convention: 'The usage arrives in a chunk of its own, once generation has finished, with an empty choices array.',
  paths: STREAM_PATHS,
  ...onUsage((found, s) => {
    // With several, the last is the one a client keeps (usage.stream-single judges the rest).
    const { at, chunk } = found[found.length - 1];
    // The last chunk with a finish_reason in a choice, found without a list of them (every answer, under load).
    let lastFinish: number | undefined;
    for (const c of s.chunks) if (finishes(c.chunk)) lastFinish = c.at;
    const wrong: string[] = [];
    if (lastFinish !== undefined && at <= lastFinish) wrong.push(`it is event ${at}, not after the finish_reason at event ${lastFinish}`);
    if (s.doneAt !== undefined && at > s.doneAt) wrong.push(`it is event ${at}, after [DONE] at event ${s.doneAt}`);
    if (!Array.isArray(chunk.choices) || chunk.choices.length) wrong.push(`its choices are ${show(chunk.choices)}, not []`);
    return wrong.length ? fail(`the usage chunk is out of place: ${wrong.join('; ')}`) : pass();
  }),
};

export const streamShape: CheckDef = {
  id: 'usage.stream-shape',
  title: 'The streamed usage carries prompt_tokens_details.cached_tokens and completion_tokens_details.reasoning_tokens, as the usage of 2.3 does',
  section: '6.2',
  level: 'should',
  audit:
    'Reads the streamed usage of every stream that asked include_usage: a usage chunk without completion_tokens_details, or with prompt_tokens_details null, fails; shown by faults engine-stream-usage-no-completion-details and engine-prompt-details-null.',
  convention: 'The streamed usage is the usage object of the non-streamed response (2.3), details included.',
  paths: STREAM_PATHS,
  ...onEveryStream(streamed, USAGE_READ, (_s, _ex, a) => ownPart(a, 'usage-details', USAGE_READ, BASIC_OWNERS), askedUsage),
};

/** Whether a chunk has a choice (an object) with a finish_reason. */
function finishes(chunk: Record<string, unknown>): boolean {
  if (!Array.isArray(chunk.choices)) return false;
  for (const ch of chunk.choices) if (ch && typeof ch === 'object' && !Array.isArray(ch) && ch.finish_reason !== null && ch.finish_reason !== undefined) return true;
  return false;
}

export const streamTotal: CheckDef = {
  id: 'usage.stream-total',
  title: 'In the streamed usage, total_tokens is prompt_tokens plus completion_tokens',
  section: '6.2, 2.3',
  level: 'should',
  audit: 'Adds up the streamed usage of every stream that asked include_usage: a total_tokens other than prompt_tokens + completion_tokens fails; shown by fault usage-stream-total-off.',
  convention: 'The total counts the prompt and the completion, nothing else.',
  paths: STREAM_PATHS,
  ...onUsage((found) => {
    const counts = found.map(({ at, usage }) => ({ at, u: usage as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } }));
    // Only the usage a client keeps (the last) is usage.stream-present's to shape; earlier ones are counted as they come.
    const summable = counts.filter(({ u }) => [u.prompt_tokens, u.completion_tokens, u.total_tokens].every(Number.isInteger));
    const wrong = summable
      .filter(({ u }) => (u.prompt_tokens as number) + (u.completion_tokens as number) !== u.total_tokens)
      .map(({ at, u }) => `event ${at}: ${String(u.prompt_tokens)} + ${String(u.completion_tokens)} is not ${String(u.total_tokens)}`);
    return wrong.length ? fail(`total_tokens is not the sum: ${wrong.join('; ')}`) : pass();
  }),
};

export const streamAbsent: CheckDef = {
  id: 'usage.stream-absent',
  title: 'Without include_usage, no chunk of the stream carries a usage',
  section: '6.2',
  level: 'should',
  audit: 'Streams the basic request without stream_options: a server that sends the usage whatever is asked, so include_usage means nothing, fails; shown by fault usage-stream-unasked.',
  convention: 'include_usage is how a client asks for usage in a stream (6.2); without it, chunks carry none (or null).',
  paths: STREAM_PATHS,
  ...onStream(
    plainStream,
    ['served', 'events'],
    (s) => {
      const found = usageChunks(s);
      return found.length ? fail(`include_usage was not set, yet ${found.length} chunk(s) carry a usage; the first, event ${found[0].at}: ${show(found[0].usage)}`) : pass();
    },
    // The basic conversation streamed, which chat.role.user owns being served (with include_usage or
    // without); its events are stream.events'.
    BASIC_OWNERS,
  ),
};

const COUNTS_READ: Part[] = ['usage', 'content'];

export const streamCounts: CheckDef = {
  id: 'usage.stream-counts',
  title: 'The streamed usage counts tokens as the non-streamed answer to the same request does',
  section: '6.2, 2.3',
  level: 'should',
  audit:
    'Compares the streamed usage of the basic request with the usage of its JSON answer, which has the same text: a server that counts chunks rather than tokens on the stream disagrees with itself; shown by fault usage-stream-counts-chunks.',
  convention: 'Usage counts tokens, not chunks: the same request has the same prompt_tokens streamed or not, and the same completion_tokens when it gets the same text.',
  paths: STREAM_PATHS,
  reads: COUNTS_READ,
  async run(ctx, path) {
    const json = readAnswer(await basic(ctx, { model: path.model }), false);
    const stream = readAnswer(await streamed(ctx, path.model!), true);
    const blocked = blockedOn(json, needed('json', COUNTS_READ), BASIC_OWNERS) ?? blockedOn(stream, needed('stream', COUNTS_READ), BASIC_OWNERS);
    if (blocked) return blocked;
    const [j, s] = [json.usage!, stream.usage!];
    const wrong: string[] = [];
    if (s.prompt_tokens !== j.prompt_tokens) wrong.push(`prompt_tokens is ${show(s.prompt_tokens)} streamed and ${show(j.prompt_tokens)} not, for the same prompt`);
    if (stream.content === json.content && s.completion_tokens !== j.completion_tokens)
      wrong.push(`completion_tokens is ${show(s.completion_tokens)} streamed and ${show(j.completion_tokens)} not, for the same text (${stream.read!.chunks.length} chunks)`);
    return failIfAny(wrong);
  },
};

/** Each rule of a stream's usage is about what stream_options asks for: never judged without it. */
const aboutUsage = (c: CheckDef): CheckDef => ({ ...c, about: ['stream_options'] });

export const USAGE: ApiCheck[] = inSuite('usage', [streamPresent, streamSingle, streamPosition, streamShape, streamTotal, streamAbsent, streamCounts].map(aboutUsage));
