// A completion as the JSON bodies the client receives: one chat.completion, or the sequence of
// chat.completion.chunk payloads of a stream. They are built without `id` and `created`, which
// differ per request, so that a request's reply can be prepared once and stamped each time.
import type { ContentSplit } from '../config/types.js';
import { fenceChunks } from './content/split.js';
import type { Completion } from './generate.js';

export interface ReplyMeta {
  model: string;
}

/** A JSON object's text with `id` and `created` put first: the per-request part of a reply. */
export function stamp(unstamped: string, id: string, created: number): string {
  return `{"id":"${id}","created":${created},${unstamped.slice(1)}`;
}

export function completionBody(c: Completion, meta: ReplyMeta) {
  return {
    object: 'chat.completion',
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: c.tokens === null ? '' : c.tokens.join(''),
          ...(c.toolCalls.length
            ? { tool_calls: c.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })) }
            : {}),
          refusal: c.refusal ?? null,
        },
        finish_reason: c.finishReason,
      },
    ],
    usage: c.usage,
  };
}

/** Argument fragments per streamed tool-call delta, as the official clients receive them. */
const ARG_FRAGMENT = 16;

/** One chunk payload (as JSON text, without id and created) and the tokens it carries (what
 * pacing waits for). */
export type StreamEvent = [payload: string, tokens: number];

/** `split` fence: each markdown fence of the content is cut across two deltas. */
export function* streamChunks(c: Completion, meta: ReplyMeta, includeUsage: boolean, tokensPerChunk = 1, split?: ContentSplit): Generator<StreamEvent> {
  // Serialized once per stream: the parts every chunk shares.
  const head = `{"object":"chat.completion.chunk","model":${JSON.stringify(meta.model)},"choices":[{"index":0,"delta":`;
  const tail = includeUsage ? ',"usage":null}' : '}';
  const chunk = (delta: object, finish: string | null = null) => `${head}${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)}}]${tail}`;
  yield [chunk({ role: 'assistant', content: '' }), 0];
  if (c.tokens && split === 'fence') {
    for (const [text, weight] of fenceChunks(c.tokens, c.weights, Math.max(1, tokensPerChunk))) yield [chunk({ content: text }), weight];
  } else if (c.tokens) {
    const per = Math.max(1, tokensPerChunk);
    for (let i = 0; i < c.tokens.length; i += per) {
      const weight = c.weights ? c.weights.slice(i, i + per).reduce((a, b) => a + b, 0) : Math.min(per, c.tokens.length - i);
      yield [chunk({ content: c.tokens.slice(i, i + per).join('') }), weight];
    }
  }
  if (c.refusal !== undefined) yield [chunk({ refusal: c.refusal }), c.usage.completion_tokens - c.reasoningTokens];
  for (const [index, t] of c.toolCalls.entries()) {
    yield [chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }), 1];
    for (let i = 0; i < t.arguments.length; i += ARG_FRAGMENT)
      yield [chunk({ tool_calls: [{ index, function: { arguments: t.arguments.slice(i, i + ARG_FRAGMENT) } }] }), 1];
  }
  yield [chunk({}, c.finishReason), 0];
  if (includeUsage) yield [JSON.stringify({ object: 'chat.completion.chunk', model: meta.model, choices: [], usage: c.usage }), 0];
}
