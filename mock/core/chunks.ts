// A completion as the JSON bodies the client receives: one chat.completion, or the sequence of
// chat.completion.chunk payloads of a stream.
import type { Completion } from './generate.js';

export interface ReplyMeta {
  id: string;
  created: number;
  model: string;
}

export function completionBody(c: Completion, meta: ReplyMeta) {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: c.tokens === null ? null : c.tokens.join(''),
          ...(c.toolCalls.length
            ? { tool_calls: c.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })) }
            : {}),
          refusal: null,
        },
        finish_reason: c.finishReason,
      },
    ],
    usage: c.usage,
  };
}

/** Argument fragments per streamed tool-call delta, as the official clients receive them. */
const ARG_FRAGMENT = 16;

export function* streamChunks(c: Completion, meta: ReplyMeta, includeUsage: boolean, tokensPerChunk = 1): Generator<object> {
  const base = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model };
  const usage = includeUsage ? { usage: null } : {};
  const chunk = (delta: object, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...usage });
  yield chunk({ role: 'assistant', content: c.tokens === null ? null : '' });
  if (c.tokens) {
    for (let i = 0; i < c.tokens.length; i += tokensPerChunk) yield chunk({ content: c.tokens.slice(i, i + tokensPerChunk).join('') });
  }
  for (const [index, t] of c.toolCalls.entries()) {
    yield chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] });
    for (let i = 0; i < t.arguments.length; i += ARG_FRAGMENT)
      yield chunk({ tool_calls: [{ index, function: { arguments: t.arguments.slice(i, i + ARG_FRAGMENT) } }] });
  }
  yield chunk({}, c.finishReason);
  if (includeUsage) yield { ...base, choices: [], usage: c.usage };
}
