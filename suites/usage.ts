// Section 6.2: stream_options.include_usage is the documented way to get usage in a stream. Where
// the usage arrives and what it holds follow the OpenAI-compatible convention.
import { validator } from '../schemas/index.js';
import { choicesOf, type ApiCheck, type ChatBody, type StreamRead } from './api.js';
import { fail, notTested, pass, type Verdict } from './harness/check.js';
import { excerpt } from './harness/exchanges.js';
import { onEachStream, streamBody, withChunks } from './stream.js';

/** The stream suite's request, asking for usage: the two differ in nothing else. */
const usageBody = (model: string): ChatBody => ({ ...streamBody(model), stream_options: { include_usage: true } });

type UsageChunk = { at: number; chunk: Record<string, unknown>; usage: unknown };

const usageChunks = (s: StreamRead): UsageChunk[] =>
  s.chunks.filter(({ chunk }) => chunk.usage !== null && chunk.usage !== undefined).map(({ at, chunk }) => ({ at, chunk, usage: chunk.usage }));

/** A rule about the usage a stream delivered; without any, usage.stream-present says why. */
const withUsage = (rule: (found: UsageChunk[], s: StreamRead) => Verdict) =>
  withChunks((s) => {
    const found = usageChunks(s);
    return found.length ? rule(found, s) : notTested('no chunk carries usage (see usage.stream-present)');
  });

const show = (v: unknown) => excerpt(JSON.stringify(v) ?? String(v), 160);

export const streamPresent: ApiCheck = {
  id: 'usage.stream-present',
  suite: 'usage',
  title: 'With stream_options.include_usage true, the stream carries the usage',
  section: '6.2',
  level: 'must',
  run: (ctx) =>
    onEachStream(
      ctx,
      usageBody,
      withChunks((s) => (usageChunks(s).length ? pass() : fail(`include_usage was true, yet none of the ${s.chunks.length} chunks carries a usage object`))),
    ),
};

export const streamSingle: ApiCheck = {
  id: 'usage.stream-single',
  suite: 'usage',
  title: 'With include_usage, exactly one chunk carries the usage',
  section: '6.2',
  level: 'should',
  convention: 'The usage of the whole completion is sent once; every other chunk has usage null or none.',
  run: (ctx) =>
    onEachStream(
      ctx,
      usageBody,
      withUsage((found) => (found.length === 1 ? pass() : fail(`${found.length} chunks carry a usage (events ${found.map((f) => f.at).join(', ')}); one is expected`))),
    ),
};

export const streamPosition: ApiCheck = {
  id: 'usage.stream-position',
  suite: 'usage',
  title: 'The usage chunk comes after the chunk with the finish_reason and before [DONE], with choices []',
  section: '6.2',
  level: 'should',
  convention: 'The usage arrives in a chunk of its own, once generation has finished, with an empty choices array.',
  run: (ctx) =>
    onEachStream(
      ctx,
      usageBody,
      withUsage((found, s) => {
        // With several, the last is the one a client keeps (usage.stream-single judges the rest).
        const { at, chunk } = found[found.length - 1];
        const finishes = s.chunks.filter((c) => choicesOf(c.chunk).some((ch) => ch.finish_reason !== null && ch.finish_reason !== undefined)).map((c) => c.at);
        const wrong: string[] = [];
        const lastFinish = finishes.at(-1);
        if (lastFinish !== undefined && at <= lastFinish) wrong.push(`it is event ${at}, not after the finish_reason at event ${lastFinish}`);
        if (s.doneAt !== undefined && at > s.doneAt) wrong.push(`it is event ${at}, after [DONE] at event ${s.doneAt}`);
        if (!Array.isArray(chunk.choices) || chunk.choices.length) wrong.push(`its choices are ${show(chunk.choices)}, not []`);
        return wrong.length ? fail(`the usage chunk is out of place: ${wrong.join('; ')}`) : pass();
      }),
    ),
};

const validUsage = validator('response#/$defs/usage');

export const streamShape: ApiCheck = {
  id: 'usage.stream-shape',
  suite: 'usage',
  title: 'The streamed usage has the fields of 2.3: prompt_tokens, completion_tokens, total_tokens',
  section: '6.2',
  level: 'should',
  convention: 'The streamed usage is the usage object of the non-streamed response (2.3).',
  run: (ctx) =>
    onEachStream(
      ctx,
      usageBody,
      withUsage((found) => {
        const wrong = found.flatMap(({ at, usage }) => {
          const v = validUsage(usage);
          return v.ok ? [] : [`event ${at}: ${v.errors.join(', ')}`];
        });
        return wrong.length ? fail(`the streamed usage does not match 2.3: ${wrong.join('; ')}`) : pass();
      }),
    ),
};

export const streamTotal: ApiCheck = {
  id: 'usage.stream-total',
  suite: 'usage',
  title: 'In the streamed usage, total_tokens is prompt_tokens plus completion_tokens',
  section: '6.2, 2.3',
  level: 'should',
  convention: 'The total counts the prompt and the completion, nothing else.',
  run: (ctx) =>
    onEachStream(
      ctx,
      usageBody,
      withUsage((found) => {
        const counts = found.map(({ at, usage }) => ({ at, u: usage as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } }));
        const summable = counts.filter(({ u }) => [u.prompt_tokens, u.completion_tokens, u.total_tokens].every(Number.isInteger));
        if (!summable.length) return notTested('no streamed usage has three integer counts (see usage.stream-shape)');
        const wrong = summable
          .filter(({ u }) => (u.prompt_tokens as number) + (u.completion_tokens as number) !== u.total_tokens)
          .map(({ at, u }) => `event ${at}: ${String(u.prompt_tokens)} + ${String(u.completion_tokens)} is not ${String(u.total_tokens)}`);
        return wrong.length ? fail(`total_tokens is not the sum: ${wrong.join('; ')}`) : pass();
      }),
    ),
};

export const streamAbsent: ApiCheck = {
  id: 'usage.stream-absent',
  suite: 'usage',
  title: 'Without include_usage, no chunk of the stream carries a usage',
  section: '6.2',
  level: 'should',
  convention: 'include_usage is how a client asks for usage in a stream (6.2); without it, chunks carry none (or null).',
  run: (ctx) =>
    onEachStream(
      ctx,
      streamBody,
      withChunks((s) => {
        const found = usageChunks(s);
        return found.length ? fail(`include_usage was not set, yet ${found.length} chunk(s) carry a usage; the first, event ${found[0].at}: ${show(found[0].usage)}`) : pass();
      }),
    ),
};

export const USAGE: ApiCheck[] = [streamPresent, streamSingle, streamPosition, streamShape, streamTotal, streamAbsent];
