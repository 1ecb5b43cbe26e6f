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

/** The chat.completion body as JSON text, written out field by field: on the path of every distinct
 * request, and about three times quicker than building the object and stringifying it. */
export function completionJson(c: Completion, meta: ReplyMeta): string {
  const content = c.tokens === null ? '' : c.tokens.join('');
  const calls = c.toolCalls.length
    ? `,"tool_calls":[${c.toolCalls.map((t) => `{"id":${JSON.stringify(t.id)},"type":"function","function":{"name":${JSON.stringify(t.name)},"arguments":${JSON.stringify(t.arguments)}}}`).join(',')}]`
    : '';
  return `{"object":"chat.completion","model":${JSON.stringify(meta.model)},"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(content)}${calls},"refusal":${c.refusal === undefined ? 'null' : JSON.stringify(c.refusal)}},"finish_reason":"${c.finishReason}"}],"usage":${usageJson(c.usage)}}`;
}

/** The mock's own usage has one shape and is written out; a recorded one is kept as it came. */
function usageJson(u: Completion['usage']): string {
  const keys = Object.keys(u);
  if (
    keys.length !== 5 ||
    keys[3] !== 'prompt_tokens_details' ||
    keys[4] !== 'completion_tokens_details' ||
    Object.keys(u.prompt_tokens_details).length !== 1 ||
    Object.keys(u.completion_tokens_details).length !== 1
  )
    return JSON.stringify(u);
  return `{"prompt_tokens":${u.prompt_tokens},"completion_tokens":${u.completion_tokens},"total_tokens":${u.total_tokens},"prompt_tokens_details":{"cached_tokens":${u.prompt_tokens_details.cached_tokens}},"completion_tokens_details":{"reasoning_tokens":${u.completion_tokens_details.reasoning_tokens}}}`;
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
    for (let i = 0; i < t.arguments.length; i += ARG_FRAGMENT) yield [chunk({ tool_calls: [{ index, function: { arguments: t.arguments.slice(i, i + ARG_FRAGMENT) } }] }), 1];
  }
  yield [chunk({}, c.finishReason), 0];
  if (includeUsage) yield [JSON.stringify({ object: 'chat.completion.chunk', model: meta.model, choices: [], usage: c.usage }), 0];
}
